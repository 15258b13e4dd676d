/*
 * qconv_geom.h: a ConvInteger or QLinearConv node's geometry and quantization parameters,
 * read and checked once (qconv_geom.c) for the op (src/ops/qconv.c) and the
 * kernel-selection step (src/select/select_qconv.c), which chooses its kernel from them.
 */
#ifndef WGC_OPS_QCONV_GEOM_H
#define WGC_OPS_QCONV_GEOM_H

#include "conv_geom.h"
#include "helpers/qlinear.h"

typedef struct wgc_qconv_geom {
    wgc_q_inputs in; /* a: x, b: w */
    int rank;        /* spatial dims, 1 to 3 */
    int64_t N, C, M, groups, nx, nw, ny, osz;
    wgc_conv_view3 v; /* the spatial geometry, 3 dims (leading ones of size 1) */
    wgc_q_vec vec;    /* b_zp, b_scale: w's per output channel */
    int ydt;
    wgc_shape y;
} wgc_qconv_geom;

/* Reads and checks everything of ConvInteger / QLinearConv node n into q (shapes must be
 * known). Errors name the node. */
wg_status wgc_qconv_resolve(wgc_graph *g, const wgc_node *n, wgc_qconv_geom *q);

/* Whether the weights and their zero points are constants, which the int8 kernels
 * prepare at compile time or once in the module (with one group). */
bool wgc_qconv_const_weights(const wgc_graph *g, const wgc_node *n, const wgc_qconv_geom *q);

/* Kernel 1, stride 1, no padding. */
bool wgc_qconv_pointwise(const wgc_qconv_geom *q);

#endif
