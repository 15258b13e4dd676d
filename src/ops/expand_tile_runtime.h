/*
 * expand_tile_runtime.h: Expand whose shape, and Tile whose repeats, are computed at run
 * time (module ABI 2 "Run-time output dims"; Tile's repeats also when they hold symbolic
 * values). The output dims they decide are run-time symbols bounded through the values'
 * bounds (ir/valrange.h): an Expand dim by the larger of the input's dim and the shape
 * value's bound (a fixed input dim other than 1 stays fixed, and the value must be 1 or
 * that dim), a Tile dim by the input's dim times the repeat's bound. The module checks the
 * values (WGK_ERR_INDEX: negative, or not broadcasting) and each size against its bound
 * (WGK_ERR_SIZE_BOUND), writes the sizes into wg_dims and copies. Expand of symbolic
 * values (shape arithmetic) stays affine_gather_sym_infer's; constant parameters affine_gather.c's.
 */
#ifndef WGC_OPS_EXPAND_TILE_RUNTIME_H
#define WGC_OPS_EXPAND_TILE_RUNTIME_H

#include "op.h"

/* Is n an Expand with a shape computed at run time, or a Tile whose repeats are not plain
 * constants? */
bool wgc_expand_tile_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape for x's shape as it stands (symbolic dims hidden or not). */
wg_status wgc_expand_tile_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y);
wg_status wgc_expand_tile_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

#endif
