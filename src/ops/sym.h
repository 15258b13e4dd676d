/*
 * sym.h: nodes that touch symbolic dimensions (compile --dim; ir/symdim.h): the driver
 * (sym_infer.c, sym_emit.c, sym_batch.c, sym_window.c) and what the ops' sym hooks
 * (op.h wgc_op_sym) share.
 *
 *   wgc_sym_node   does node n read or write a symbolic shape or symbolic values?
 *   wgc_sym_infer  after the op's infer hook (at the maxima): gives n's outputs their
 *                  symbolic dims by the op's sym.infer or its traits' rules, or refuses n
 *                  naming it and the symbol
 *   wgc_sym_fold   after the op's fold hook: the folded output's symbolic values
 *   wgc_sym_emit   the C of a node with symbolic shapes, sizes read from wg_dims at run
 *                  time (the op's sym.emit, or its emit where a trait says it serves);
 *                  static nodes keep their op's emit hook
 */
#ifndef WGC_OPS_SYM_H
#define WGC_OPS_SYM_H

#include "op.h"

/* ---- the driver: passes/infer.c and codegen/generate.c call these for every node that
 * touches a symbol; each dispatches to the op's sym hooks and traits (op.h) ---- */
bool wgc_sym_node(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_infer(wgc_graph *g, wgc_node *n);
wg_status wgc_sym_fold(wgc_graph *g, wgc_node *n);
/* Is n shape arithmetic to fold to symbolic values? A node of symbolic shapes that is not
 * (ConstantOfShape of a symbolic shape, a Slice to a symbolic end) is never folded: its
 * output's size is known only at run time. */
bool wgc_sym_foldable(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);

/* ---- for the ops' sym hooks (src/ops/<op>.c) ---- */
/* The error for node n that cannot take its symbolic input (why: NULL, or the reason). */
wg_status wgc_sym_refuse(wgc_graph *g, const wgc_node *n, const char *why);
/* Has n an input of symbolic shape (*which: the first)? */
bool wgc_sym_has_sym_input_at(const wgc_graph *g, const wgc_node *n, int *which);
/* Does an input of n hold symbolic values (shape arithmetic)? */
bool wgc_sym_has_symval_input(const wgc_graph *g, const wgc_node *n);
/* Output 0 of n (NULL when absent: a rule then has nothing to do), its dims without
 * their symbols in *y: where most sym.infer hooks start. */
wgc_tensor *wgc_sym_out0(wgc_graph *g, const wgc_node *n, wgc_shape *y);
/* s's dims without their symbols: where an output's symbolic rule starts. */
wgc_shape wgc_sym_dims_of(const wgc_shape *s);
/* Gives output i (if present) symbolic shape s, which must agree with its shape at the
 * maxima (else an internal error). */
wg_status wgc_sym_set_out(wgc_graph *g, const wgc_node *n, int i, const wgc_shape *s);
/* Reshape, Unsqueeze, Squeeze, Flatten of a symbolic tensor x: puts each symbolic dim of
 * x in the slot of y (dims at the maxima) that the same fixed product precedes, or
 * refuses a reshape that merges or splits one. */
wg_status wgc_sym_regroup(wgc_graph *g, const wgc_node *n, const wgc_shape *x, wgc_shape *y);
/* The shape a (symbolic) 1-D value tensor v gives. */
void wgc_sym_shape_of_values(const wgc_graph *g, const wgc_tensor *v, wgc_shape *s);
/* The hooks of ops that pass input 0's symbolic values on unchanged (Identity, Reshape,
 * Squeeze, Unsqueeze, Flatten, Cast): foldable when input 0 holds symbolic values, and
 * those values; _int_values refuses float values first (wgc_sym_int_values_only). */
wgc_sym_folds wgc_sym_passes_values(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_copy_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count);
wg_status wgc_sym_copy_int_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count);
/* The rule of Squeeze and Unsqueeze: input 0's symbolic dims regrouped (wgc_sym_regroup);
 * symbolic axes are refused. */
wg_status wgc_sym_regroup_rule(wgc_graph *g, wgc_node *n);
/* The takes hook of the per-plane and per-pixel ops (global pools, LRN,
 * InstanceNormalization): per sample always, over symbolic spatial dims at rank 3 or more. */
bool wgc_sym_takes_planes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t);
/* The rule of an op whose output sizes its own code decides from input 0's actual sizes
 * (Pad, Resize): output 0's shape from shape(), an input of symbolic values refused. */
wg_status wgc_sym_runtime_sizes(wgc_graph *g, wgc_node *n,
                                wg_status (*shape)(wgc_graph *g, const wgc_node *n, wgc_shape *y));
/* The rule of WGC_SAME_SHAPE: output 0 takes input 0's shape; an input of symbolic values
 * is refused. */
wg_status wgc_sym_same_shape(wgc_graph *g, wgc_node *n);
/* Values of an integer type only: the refusal for float symbolic values (a Cast of shape
 * arithmetic) in an op that is not their arithmetic, else WG_OK. */
wg_status wgc_sym_int_values_only(wgc_graph *g, const wgc_node *n);
/* The trait WGC_AT_MAXIMA applied to n: one output, input 0 without symbolic values,
 * the other inputs (Clip's bounds) fixed scalars. Then the op's own code runs over the
 * elements at the maxima. That is what memory is planned for, the actual elements are
 * the first ones (dense layout), and none of these ops can trap on the stale values past
 * them, so the results are exact; only the time is that of the maxima (they are the rare
 * ops of detection tails, not the transformer's). */
bool wgc_sym_runs_at_maxima(const wgc_graph *g, const wgc_node *n);

/* Per-sample ops over a symbolic batch (sym_batch.c): the ops of trait WGC_PER_SAMPLE
 * (Conv, pools, normalisations ...) whose input 0 is symbolic in dim 0 alone (_op: n is
 * one its takes hook agrees to, and its inputs are such) run
 * their own static code for one sample in a loop over the actual batch. _infer gives
 * output shape y (output k, at the maxima) the input's batch, or refuses n. _refuse: the
 * error for a node no rule takes (for a per-sample op, which of its dims is in the way). */
bool wgc_sym_batch_op(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_batch_refuse(wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_batch_infer(wgc_graph *g, wgc_node *n, wgc_shape *y, int k);
wg_status wgc_sym_batch_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);
/* The per-sample rule for every output of n (wgc_sym_batch_infer each). */
wg_status wgc_sym_batch_rule(wgc_graph *g, wgc_node *n);

/* The ops of trait WGC_WINDOW over symbolic spatial dims (sym_window.c): Conv,
 * ConvTranspose, the pools, BatchNormalization, InstanceNormalization and LRN; _op: n is
 * one of them and its takes hook agrees (1-D or 2-D, no Indices, inference
 * BatchNormalization, 2-D ConvTranspose);
 * _infer: its output shape y, each window's size a monomial or a derived symbol
 * (symdim.h). */
bool wgc_sym_window_op(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_window_infer(wgc_graph *g, wgc_node *n, wgc_shape *y);
/* (their code is their own emit hook's, on sizes wgc_size_expr gives: literals or reads
 * of wg_dims) */

#endif
