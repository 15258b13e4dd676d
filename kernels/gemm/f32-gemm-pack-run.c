/*
 * f32-gemm-pack-run.c: GEMM of two run-time matrices (a MatMul whose B is an activation:
 * attention's Q K^T and P V, batched over heads by the caller). B is packed into column
 * panels (wgk_pack_b's layout) in the caller's scratch, then the packed-B kernel runs on
 * them: its broadcast micro-kernel instead of the row-major kernel's load-splats, which
 * Cranelift turns into a GPR load, movd and vpbroadcastd per row and k. Packing reads B
 * once (K x N floats, against M x K x N multiply-adds). Contract in wgk_gemm.h.
 */
#include "wgk_gemm.h"

/* dst = B in column panels of WGK_GEMM_NR (zeros past N), B(k, n) = b[k*ldb + n]. */
static void pack_rows(const float *b, int ldb, int K, int N, float *dst)
{
    const int full = N / WGK_GEMM_NR;
    for (int p = 0; p < full; p++) {
        const float *src = b + (ptrdiff_t)p * WGK_GEMM_NR;
        float *d = dst + (ptrdiff_t)p * K * WGK_GEMM_NR;
        for (int k = 0; k < K; k++, src += ldb, d += WGK_GEMM_NR) {
#if defined(__wasm_simd128__)
            wasm_v128_store(d, wasm_v128_load(src));
            wasm_v128_store(d + 4, wasm_v128_load(src + 4));
#else
            for (int j = 0; j < WGK_GEMM_NR; j++)
                d[j] = src[j];
#endif
        }
    }
    if (full * WGK_GEMM_NR < N) {
        const int n0 = full * WGK_GEMM_NR;
        float *d = dst + (ptrdiff_t)full * K * WGK_GEMM_NR;
        for (int k = 0; k < K; k++, d += WGK_GEMM_NR)
            for (int j = 0; j < WGK_GEMM_NR; j++)
                d[j] = n0 + j < N ? b[(ptrdiff_t)k * ldb + n0 + j] : 0.0f;
    }
}

void wgk_f32_gemm_pack_run(const wgk_gemm_args *g, float *packed)
{
    pack_rows(g->b, g->ldb, g->K, g->N, packed);
    wgk_gemm_args p = *g;
    p.b = packed;
    wgk_f32_gemm_pb(&p);
}
