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
#include "select_ops.h"

/* The pipeline step (compile.c): sets impl on every live Conv, ConvTranspose, Gemm and
 * MatMul node. */
wg_status wgc_pass_select_kernels(wgc_graph *g, const wgc_pass_options *opt);
/* The same on an explicit target (tests). */
wg_status wgc_select_kernels(wgc_graph *g, const wgc_select_target *t);

#endif
