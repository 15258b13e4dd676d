/*
 * conv_geom.h: a Conv node's geometry, read and checked once (conv_geom.c) for the Conv
 * op (src/ops/conv.c) and the kernel-selection step (src/select/select_conv.c); and what
 * the convolution ops share (Conv, ConvTranspose, ConvInteger / QLinearConv): the output
 * shape and the 3-dim view of the N-d kernels.
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

/* A convolution's output shape: [N, M, out[0..r)]. */
wgc_shape wgc_conv_output_shape(int64_t N, int64_t M, int r, const int64_t *out);

/* A convolution's spatial geometry in the 3-dim view of the N-d kernels (wgk_convnd.h,
 * wgk_s32_conv3d_direct, wgk_q8_conv): the spatial dims last-aligned, the leading ones of
 * size 1 without padding. */
typedef struct wgc_conv_view3 {
    int64_t in[3], out[3], k[3], s[3], d[3], p[3];
} wgc_conv_view3;

/* The view of r (1 to 3) spatial dims: input sizes in, output sizes out, window k, strides
 * s, dilations d, leading pads pb. */
wgc_conv_view3 wgc_conv_view3_of(int r, const int64_t *in, const int64_t *out, const int64_t *k,
                                 const int64_t *s, const int64_t *d, const int64_t *pb);

/* The view as the kernels' argument fields, ".in = {..}, .out = {..}, .k = {..}, .s = {..},
 * .d = {..}, .p = {..}", into buf (WGC_CONV_VIEW3_TEXT bytes hold any). */
#define WGC_CONV_VIEW3_TEXT 512
const char *wgc_conv_view3_text(const wgc_conv_view3 *v, char *buf, size_t cap);

/* Emits kernel(&(const wgk_convnd_args){...}) for node n (wgk_f32_conv3d_direct,
 * wgk_f32_deconv3d_direct): the geometry, inputs x, w and the optional bias, n's residual
 * and its fused activation's range. */
void wgc_emit_convnd_call(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *kernel,
                          int64_t N, int64_t C, int64_t M, int64_t groups,
                          const wgc_conv_view3 *v);

#endif
