/*
 * select_ops.h: the per-op choices of the kernel-selection step (select.h), which
 * select.c calls for each node: Conv (select_conv.c), Gemm and MatMul (select_gemm.c),
 * ConvTranspose (select_deconv.c), ConvInteger and QLinearConv (select_qconv.c), and the
 * target they choose for.
 */
#ifndef WGC_SELECT_OPS_H
#define WGC_SELECT_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "../ir/ir.h"

/* What of the target the choice depends on. */
typedef struct wgc_select_target {
    bool simd; /* SIMD128 kernels (also with relaxed SIMD) */
} wgc_select_target;

/* Per op (select_conv.c, select_gemm.c). wgc_select_conv leaves a Winograd conv's
 * preparation to wgc_select_conv_prep, which needs per_run: whether the whole model's
 * transformed filters (wgc_select_conv_transformed_bytes of every node) exceed
 * WGC_WINOGRAD_KEEP_LIMIT. */
wg_status wgc_select_conv(wgc_graph *g, wgc_node *n, const wgc_select_target *t);
size_t wgc_select_conv_transformed_bytes(wgc_graph *g, const wgc_node *n);
wg_status wgc_select_conv_prep(wgc_graph *g, wgc_node *n, bool per_run);
void wgc_select_gemm(wgc_graph *g, wgc_node *n, const wgc_select_target *t);
void wgc_select_matmul(wgc_graph *g, wgc_node *n, const wgc_select_target *t);
wg_status wgc_select_conv_transpose(wgc_graph *g, wgc_node *n);
/* ConvInteger and QLinearConv (select_qconv.c). wgc_select_qconv_preps decides, once every
 * node has its kernel, which int8 Winograd convs keep their transformed filters (in what
 * the float ones' `used` bytes leave of WGC_WINOGRAD_KEEP_LIMIT) and which transform them
 * on every run. */
wg_status wgc_select_qconv(wgc_graph *g, wgc_node *n, const wgc_select_target *t);
size_t wgc_select_qconv_transformed_bytes(wgc_graph *g, const wgc_node *n);
wg_status wgc_select_qconv_preps(wgc_graph *g, size_t used);

#endif
