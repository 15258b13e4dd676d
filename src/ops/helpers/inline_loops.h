/*
 * inline_loops.h: inline loops for the generic ops (elementwise math of every dtype, gathers,
 * reductions). Instead of one kernel per op and dtype, the emitter writes a loop
 * specialised to the shapes into the graph code; scalar math comes from the kernel
 * library (kernels/include/wgk_gen.h: WGK_EXP(x) etc. work for float and double).
 */
#ifndef WGC_OPS_INLINE_LOOPS_H
#define WGC_OPS_INLINE_LOOPS_H

#include "emit_and_fold.h"

/* The C element type of dtype ("float", "int64_t", bool: "uint8_t"); NULL when none. */
const char *wgc_ctype(int dtype);
/* Every dtype the generic loops handle (float16 is computed as float32 by lower_fp16). */
extern const int wgc_gen_dtypes[];
/* A double as a C literal that reads back exactly ("0.5", "(-1.0/0.0)", "(0.0/0.0)"). */
const char *wgc_dlit(char *buf, size_t cap, double v);

/* Emits y = EXPR elementwise with numpy broadcasting of the inputs ins[0..nin-1] (nin <= 4)
 * to y's shape. In EXPR the inputs are the variables a, b, c, d (of their C types), the
 * output type is TY and the type of input 0 is T. */
wg_status wgc_gen_map(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const int *ins, int nin,
                      int y, const char *expr);

/* Emits y[v] = x[base + sum_d v_d * strides[d]] over a view of y with the given dims
 * (rank r <= 2 * WG_MAX_RANK, product = numel(y)); strides may be 0 or negative. */
void wgc_gen_affine(wgc_emitter *e, wgc_graph *g, int x, int y, int r, const int64_t *dims,
                    const int64_t *strides, int64_t base);

/* The [outer][len][inner] view of node n's input 0 along its axis: the constant one, or
 * axis_override when the axis is computed at run time. */
typedef wg_status (*wgc_axis_view_fn)(wgc_graph *g, const wgc_node *n, int axis_override,
                                      int64_t *outer, int64_t *len, int64_t *inner);
/* Emits the loops over one such view (px, py and T declared by the caller). */
typedef void (*wgc_axis_rows_fn)(wgc_emitter *e, const wgc_node *n, int64_t outer, int64_t len,
                                 int64_t inner);

/* For an op along the axis in input 1 (CumSum, CumProd): the rows over the view along a
 * constant axis; along an axis computed at run time (it decides no shape), one case per axis
 * of input 0, the run choosing one (an axis outside [-rank, rank) stops it with
 * WGK_ERR_INDEX). Then closes the caller's block. */
wg_status wgc_emit_along_axis_input(wgc_emitter *e, wgc_graph *g, const wgc_node *n,
                                    wgc_axis_view_fn view, wgc_axis_rows_fn rows);

#endif
