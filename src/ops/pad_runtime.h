/*
 * pad_runtime.h: Pad whose output sizes the module decides (module ABI 2 "Run-time output
 * dims"): pads computed at run time or holding symbolic values, or an input of symbolic
 * dims padded along them. Each such axis of the output is a run-time symbol bounded by
 * the input's size at the maxima plus the largest pads the values' bounds allow
 * (ir/valrange.h); the module computes the sizes, checks each against its bound
 * (WGK_ERR_SIZE_BOUND) and ONNX's rules (WGK_ERR_INDEX: a crop past the size, reflect pads
 * not below it), writes them into wg_dims and pads. The axes input must be constant.
 * Everything else about Pad is pad.c's.
 */
#ifndef WGC_OPS_PAD_RUNTIME_H
#define WGC_OPS_PAD_RUNTIME_H

#include "op.h"

/* Pad's mode attribute as WGK_PAD_* (0 constant, 1 reflect, 2 edge), or an error. */
wg_status wgc_pad_mode(wgc_graph *g, const wgc_node *n, int *mode);
/* The C expression of the fill value's address: constant_value where it lies when computed
 * at run time, else one element placed in the weights (input, attribute or 0). */
wg_status wgc_pad_value_expr(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char **expr);

/* Is n an opset >= 11 Pad whose pads are not plain constants, or whose input has a
 * symbolic dim? */
bool wgc_pad_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape for x's shape as it stands (symbolic dims hidden or not): fixed where
 * both pads of an axis are constant and the axis is fixed (or the pads sum to 0),
 * otherwise a run-time symbol at its bound. */
wg_status wgc_pad_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y);
wg_status wgc_pad_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

#endif
