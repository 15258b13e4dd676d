/*
 * affine_gather.h: the affine view (affine_gather.c) that Slice (slice.c) shares with
 * Expand, Tile, DepthToSpace and SpaceToDepth: y, of rank r, read as
 * y[v] = x[base + v . strides] over a view of r dims (helpers/inline_loops.c), which folds
 * through the same view on the host (helpers/fold_map.c).
 */
#ifndef WGC_OPS_AFFINE_GATHER_H
#define WGC_OPS_AFFINE_GATHER_H

#include "op.h"

/* The affine view of an op: dims/strides of a view of y (rank r), base offset; y, output
 * 0's shape. */
typedef struct wgc_affine_view {
    int r;
    int64_t dims[2 * WG_MAX_RANK], st[2 * WG_MAX_RANK], base;
    wgc_shape y;
} wgc_affine_view;

/* Optional input i, when present, must be a constant integer tensor. */
wg_status wgc_affine_need_const(wgc_graph *g, const wgc_node *n, int i, const char *what);
/* The hooks of an op of input 0 x, given n's view v: output 0 (x's dtype, v->y); its fold
 * on the host; its gather in the module. */
/* The start of a view over input x: v zeroed, x's strides into xs; returns x's rank. */
int wgc_affine_view_begin(const wgc_tensor *x, wgc_affine_view *v, int64_t *xs);
/* An op's view of node n (affine_gather.c's plan, slice.c's slice_plan). */
typedef wg_status (*wgc_affine_plan)(wgc_graph *g, const wgc_node *n, wgc_affine_view *v);
/* The fold and emit hooks over the view plan_of gives. */
wg_status wgc_affine_fold_by(wgc_graph *g, wgc_node *n, wgc_affine_plan plan_of);
wg_status wgc_affine_emit_by(wgc_emitter *e, wgc_graph *g, wgc_node *n, wgc_affine_plan plan_of);
wg_status wgc_affine_infer(wgc_graph *g, wgc_node *n, const wgc_affine_view *v);
wg_status wgc_affine_fold(wgc_graph *g, wgc_node *n, const wgc_affine_view *v);
wg_status wgc_affine_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_affine_view *v);

#endif
