/*
 * select.h: the kernel-selection step. After the rewriting passes, it decides once how
 * each Conv, ConvTranspose, Gemm and MatMul node runs (node->impl: kernel, weight
 * preparation, first-run kernel, scratch) from the layer's shape, the target and the
 * model's Winograd memory budget; the ops' scratch and emit hooks only read that
 * record. The kernels it chooses from are src/ir/kernels.def, its thresholds
 * src/select/tunables.h, and docs/performance.md tells the policy in a table.
 */
#ifndef WGC_SELECT_H
#define WGC_SELECT_H

#include <stdbool.h>

#include "../passes/passes.h"
#include "../ir/ir.h"

/* What of the target the choice depends on. */
typedef struct wgc_select_target {
    bool simd; /* SIMD128 kernels (also with relaxed SIMD) */
} wgc_select_target;

/* The pipeline step (compile.c): sets impl on every live Conv, ConvTranspose, Gemm and
 * MatMul node. */
wg_status wgc_pass_select_kernels(wgc_graph *g, const wgc_pass_options *opt);
/* The same on an explicit target (tests). */
wg_status wgc_select_kernels(wgc_graph *g, const wgc_select_target *t);

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

/* The input heights and widths an image node may run at (ops/sym_window.c): lo..hi in
 * steps of step for each (fixed dims: one value; a 1-D input: height 1). Kernels'
 * scratch rules are not monotone in the sizes, so a node over symbolic dims plans the
 * largest need among them all; more than 2^22 pairs is an error naming n. */
typedef struct wgc_size_walk {
    int64_t lo[2], hi[2], step[2];
} wgc_size_walk;
wg_status wgc_select_size_walk(wgc_graph *g, const wgc_node *n, wgc_size_walk *w);

#endif
