/*
 * qweight.h: what the ops on weights quantized block-wise share (matmul_nbits.c,
 * gather_block_quantized.c, matmul_bnb4.c; kernels/include/wgk_qweight.h).
 */
#ifndef WGC_OPS_QWEIGHT_H
#define WGC_OPS_QWEIGHT_H

#include <stddef.h>

#include "../op.h"

/* The tensor whose bytes a constant t's are placed as in the module: the first constant of
 * the graph with t's bytes and dtype, t itself when none comes before it. The genai
 * builder's tied embedding gathers from a Reshape of the lm_head's MatMulNBits weights:
 * folded, that is a second constant of the same bytes, which both ops then place once
 * (wgc_ptr places each tensor once). Constants are never written, so sharing is safe. */
int wgc_qweight_canonical(const wgc_graph *g, int t);

/* The address expression (into out[cap]) of the float32 scales t (or absmax) as the kernel
 * reads them. A float16 model's scales (every value a float16 one) stay float16 in the
 * module: the emitter keeps them so in a single-threaded build (codegen/emitter.c); a
 * threaded build's steps do not widen float16 weights, so there the node, which runs on
 * thread 0 alone, widens them itself on its first run (wgk_f16_widen into prepared
 * memory). Errors: WG_ERR_NOMEM, and wgc_prepared's. */
wg_status wgc_qweight_scales(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int t, char *out, size_t cap);

#endif
