/*
 * sym.h: nodes that touch symbolic dimensions (compile --dim; ir/symdim.h).
 *
 *   wgc_sym_node   does node n read or write a symbolic shape or symbolic values?
 *   wgc_sym_infer  after the op's infer hook (at the maxima): gives n's outputs their
 *                  symbolic dims, or refuses n naming it and the symbol (sym_infer.c)
 *   wgc_sym_fold   after the op's fold hook: the folded output's symbolic values
 *   wgc_sym_emit   the C of a node with symbolic shapes, sizes read from wg_dims at run
 *                  time (sym_emit.c); static nodes keep their op's emit hook
 */
#ifndef WGC_OPS_SYM_H
#define WGC_OPS_SYM_H

#include "op.h"

bool wgc_sym_node(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_infer(wgc_graph *g, wgc_node *n);
wg_status wgc_sym_fold(wgc_graph *g, wgc_node *n);
/* Is n shape arithmetic to fold to symbolic values? A node of symbolic shapes that is not
 * (ConstantOfShape of a symbolic shape, a Slice to a symbolic end) is never folded: its
 * output's size is known only at run time. */
bool wgc_sym_foldable(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);
/* The error for node n that cannot take its symbolic input (why: NULL, or the reason). */
wg_status wgc_sym_refuse(wgc_graph *g, const wgc_node *n, const char *why);
/* ReduceMean/ReduceSum with symbolic dims: the run of consecutive axes [*a0, *a1) they
 * reduce (from the attribute or a constant input), or a refusal. */
wg_status wgc_sym_reduce_axes(wgc_graph *g, const wgc_node *n, int *a0, int *a1);
/* The elementwise ops of two or more broadcast inputs that take symbolic shapes. */
bool wgc_sym_binary_op(wgc_op op);
/* The one-input elementwise ops without a loop over the actual count in sym_emit.c (Log,
 * Floor, HardSigmoid ..., and Clip of scalar bounds): on symbolic or run-time sizes their
 * own code runs over the elements at the maxima. That is what memory is planned for, the
 * actual elements are the first ones (dense layout), and none of these can trap on the
 * stale values past them, so the results are exact; only the time is that of the maxima
 * (they are the rare ops of detection tails, not the transformer's). */
bool wgc_sym_runs_at_maxima(const wgc_graph *g, const wgc_node *n);

/* Per-sample ops over a symbolic batch (sym_batch.c): Conv, pools, normalisations ...
 * whose input 0 is symbolic in dim 0 alone (_op: n is one, and its inputs are such) run
 * their own static code for one sample in a loop over the actual batch. _infer gives
 * output shape y (output k, at the maxima) the input's batch, or refuses n. _refuse: the
 * error for a node no rule takes (for a per-sample op, which of its dims is in the way). */
bool wgc_sym_batch_op(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_batch_refuse(wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_batch_infer(wgc_graph *g, wgc_node *n, wgc_shape *y, int k);
wg_status wgc_sym_batch_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);

/* Conv, ConvTranspose, MaxPool, AveragePool, the global pools, BatchNormalization,
 * InstanceNormalization and LRN over symbolic spatial dims (sym_window.c): _op: n is one
 * of them (1-D or 2-D, no Indices, inference BatchNormalization, 2-D ConvTranspose);
 * _infer: its output shape y, each window's size a monomial or a derived symbol
 * (symdim.h). */
bool wgc_sym_window_op(const wgc_graph *g, const wgc_node *n);
wg_status wgc_sym_window_infer(wgc_graph *g, wgc_node *n, wgc_shape *y);
/* (their code is their own emit hook's, on sizes wgc_size_expr gives: literals or reads
 * of wg_dims) */

#endif
