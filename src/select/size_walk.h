/*
 * size_walk.h: the input sizes an image node over symbolic dims may run at, for the
 * scratch rules of the conv and ConvTranspose choices (select_conv.c, select_deconv.c).
 */
#ifndef WGC_SELECT_SIZE_WALK_H
#define WGC_SELECT_SIZE_WALK_H

#include "../ir/ir.h"

/* The input heights and widths an image node may run at (ops/sym_window.c): lo..hi in
 * steps of step for each (fixed dims: one value; a 1-D input: height 1). Kernels'
 * scratch rules are not monotone in the sizes, so a node over symbolic dims plans the
 * largest need among them all; more than 2^22 pairs is an error naming n. */
typedef struct wgc_size_walk {
    int64_t lo[2], hi[2], step[2];
} wgc_size_walk;
wg_status wgc_select_size_walk(wgc_graph *g, const wgc_node *n, wgc_size_walk *w);

#endif
