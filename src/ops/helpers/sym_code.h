/*
 * sym_code.h: what the ops' sym.emit hooks share (sym_code.c): sizes, strides and operands
 * of a node with symbolic shapes, printed as C expressions of wg_dims[] (wgc_dims_expr),
 * and the two whole emitters several ops take.
 */
#ifndef WGC_OPS_SYM_CODE_H
#define WGC_OPS_SYM_CODE_H

#include "../op.h"

/* t's element count at run time, as a C expression. */
const char *wgc_sym_numel(wgc_emitter *e, const wgc_tensor *t);
/* The C type of dtype dt, or NULL for one these loops do not take. */
const char *wgc_sym_c_type(int dt);
/* `const int32_t NAME[rank] = {d0, d1, ...};`: y's dims at run time. */
void wgc_sym_put_dims(wgc_emitter *e, const wgc_shape *y, const char *name);
/* `const int32_t NAME[rank] = {...};`: the strides (in elements) of operand x read at y's
 * shape, numpy broadcasting (0 where x broadcasts). */
void wgc_sym_put_strides(wgc_emitter *e, const wgc_shape *x, const wgc_shape *y, const char *name);
/* Input k's address for an elementwise node's code; an input holding symbolic values
 * (shape arithmetic, e.g. seq in transformers' batch_index * seq + kv_index) is written
 * at its actual values into an array `symv<k>` local to the node's block, which the code
 * then reads instead (its buffer holds the values at the maxima). Call after the "{". */
const char *wgc_sym_operand(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int k);
/* The start of a strided copy of input 0 into output 0 (Slice, Expand): input 0's address
 * into base (cap bytes), then "{" and the dims array `yd` of output 0 at run time. */
void wgc_sym_strided_begin(wgc_emitter *e, wgc_graph *g, const wgc_node *n, char *base, size_t cap);
/* Copies the actual bytes of input 0 to output 0 (nothing when the planner put both at
 * one address): Identity, Reshape, Unsqueeze, Squeeze, Flatten, Dropout. */
wg_status wgc_sym_emit_copy(wgc_emitter *e, wgc_graph *g, wgc_node *n);
/* y = expr of p0[o0], p1[o1], p2[o2] with numpy broadcasting, over y's actual elements in
 * order: one loop that steps every operand's offset by its stride (0 where it
 * broadcasts). For the ops without a kernel of their own here: comparisons, Where, Pow,
 * And/Or, integer math. */
wg_status wgc_sym_broadcast_loop(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *expr);

/* Whether a row-wise node over x (rows: all dims but the last; Softmax, LayerNormalization)
 * splits among threads: the rule of the fixed-shape ops (wgc_split_pays) at the maxima;
 * the rows are then divided by their actual count at run time. */
bool wgc_sym_split_rows(const wgc_emitter *e, const wgc_tensor *x);

#endif
