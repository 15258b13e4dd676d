/*
 * conv_geom.h: a Conv node's geometry, read and checked once (conv_geom.c) for the Conv
 * op (src/ops/conv.c) and the kernel-selection step (src/select/select_conv.c).
 */
#ifndef WGC_OPS_CONV_GEOM_H
#define WGC_OPS_CONV_GEOM_H

#include "../../kernels/include/wgk_conv.h"
#include "../ir/kernels.h"
#include "helpers/sliding_window.h"

/* The lowering family, from the shape alone. */
typedef enum wgc_conv_kind {
    WGC_CONV_DW,     /* depthwise: one input channel per group, groups > 1 */
    WGC_CONV_1X1,    /* 1x1, stride 1, no padding */
    WGC_CONV_IM2COL, /* every other 1-D or 2-D conv */
    WGC_CONV_3D,
} wgc_conv_kind;

/* 1-D convolutions run as 2-D with H = 1; 3-D ones on the direct kernel (wgk_convnd.h). */
typedef struct wgc_conv_geom {
    int64_t N, C, H, W, M, OH, OW, KH, KW, groups;
    wgc_window win; /* 2-D view (1-D: a unit first dim) */
    wgc_window nd;  /* as the model gives it */
    int rank;       /* spatial dims */
    wgc_conv_kind kind;
} wgc_conv_geom;

/* Checks what Conv and ConvTranspose node n share: 2 or 3 float inputs and one output, an
 * input with 1 to 3 spatial dims, a weight of the same rank. The spatial rank into *rank. */
wg_status wgc_conv_check_operands(wgc_graph *g, const wgc_node *n, int *rank);

/* Reads and checks everything of Conv node n; fills c (shapes must be known). Errors
 * name the node. */
wg_status wgc_conv_resolve(wgc_graph *g, const wgc_node *n, wgc_conv_geom *c);

/* The 2-D geometry as the kernels take it (no pointers). */
wgk_conv2d_args wgc_conv_args(const wgc_conv_geom *c);

/* Input channels per group of the filters Winograd kernel k transforms (the phase
 * split's conv has 4 per input channel). */
size_t wgc_conv_prepare_channels(const wgc_conv_geom *c, wgc_kernel k);
/* Floats of Winograd kernel k's transformed filters, all groups (kernels.def's matrices
 * per channel pair, packed as wgk_conv_pack_w packs one matrix). */
size_t wgc_conv_transformed_floats(const wgc_conv_geom *c, wgc_kernel k);

#endif
