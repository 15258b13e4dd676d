/*
 * slice_runtime.h: Slice whose starts, ends or steps are computed at run time (module ABI
 * 2 "Run-time output dims"). Each sliced axis's length is then a run-time symbol bounded
 * by the axis (by ceil(axis / |step|) for a constant step); the module clamps the values
 * as ONNX says, writes the lengths into wg_dims and copies the slice. The axes must be
 * constant: they decide which dims are run-time ones. Slices of constant parameters stay
 * affine_gather.c's; symbolic-valued parameters (shape arithmetic) sym_infer.c's.
 */
#ifndef WGC_OPS_SLICE_RUNTIME_H
#define WGC_OPS_SLICE_RUNTIME_H

#include "op.h"

/* Is n an opset >= 10 Slice with a starts, ends or steps input that is neither a constant
 * nor symbolic values? */
bool wgc_slice_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Does n compute its output's sizes in the module: run-time parameters, or constant ones
 * on an axis of symbolic or run-time size (sym_infer.c gave that dim a run-time symbol)?
 * Such a Slice is emitted by wgc_slice_runtime_emit. */
bool wgc_slice_runs_sizes(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape: x's, each sliced axis a run-time symbol at its bound. */
wg_status wgc_slice_runtime_infer(wgc_graph *g, wgc_node *n);
/* With symbolic input dims (sym_infer.c, after the infer hook): y, output 0's shape, takes
 * x's symbolic dims on the axes n does not slice. */
wg_status wgc_slice_runtime_keep_syms(wgc_graph *g, const wgc_node *n, wgc_shape *y);
wg_status wgc_slice_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

#endif
