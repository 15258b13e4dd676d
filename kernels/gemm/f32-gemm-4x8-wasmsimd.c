/*
 * f32-gemm-4x8-wasmsimd.c: SIMD128 GEMM, 4 rows x 8 columns of C per register tile
 * (8 f32x4 accumulators, 2 B loads and 1 A splat per k: fits the 16 xmm registers
 * wasm engines use on x86). Contract in wgk_gemm.h.
 */
#include "gemm_epilogue.h"
#include "wgk_ukernel_4x8.h"

#ifdef __wasm_simd128__

/* Columns of B per cache block: about 512 KiB of B stays in L2 while every A panel
 * sweeps it. */
static int block_cols(int K)
{
    int nc = 131072 / (K > 0 ? K : 1);
    nc &= ~7;
    return nc < 32 ? 32 : nc;
}

void wgk_f32_gemm_4x8__wasmsimd(const wgk_gemm_args *g)
{
    const int M = g->M, N = g->N, K = g->K;
    const ptrdiff_t ak = g->a_k, ldb = g->ldb, ldc = g->ldc;
    const v128_t alpha = wasm_f32x4_splat(g->alpha);
    const v128_t lo = wasm_f32x4_splat(g->min), hi = wasm_f32x4_splat(g->max);
    const int nc = block_cols(K);
    for (int nb = 0; nb < N; nb += nc) {
        const int ne = N - nb < nc ? N : nb + nc;
        for (int m0 = 0; m0 < M; m0 += WGK_GEMM_MR) {
            const float *ap = g->a + (ptrdiff_t)(m0 / WGK_GEMM_MR) * g->a_panel;
            /* Rows past M repeat row M-1 (never out of bounds); their results are dropped. */
            const ptrdiff_t o1 = (ptrdiff_t)(m0 + 1 < M ? 1 : M - 1 - m0) * g->a_m;
            const ptrdiff_t o2 = (ptrdiff_t)(m0 + 2 < M ? 2 : M - 1 - m0) * g->a_m;
            const ptrdiff_t o3 = (ptrdiff_t)(m0 + 3 < M ? 3 : M - 1 - m0) * g->a_m;
            const int rows = M - m0 < WGK_GEMM_MR ? M - m0 : WGK_GEMM_MR;
            float *c0 = g->c + (ptrdiff_t)m0 * ldc;
            int n = nb;
            for (; n + 8 <= ne; n += 8) {
                const v128_t zero = wasm_f32x4_splat(0);
                v128_t xs[4] = {zero, zero, zero, zero}, ys[4] = {zero, zero, zero, zero};
                if (g->a_m == 1 && rows == WGK_GEMM_MR) {
                    /* The 4 rows of a k are adjacent (packed or transposed A): the shared
                     * loop of load and lane broadcasts (wgk_ukernel_4x8.h). */
                    wgk_f32_ukernel_4x8_loop(K, ap, ak, g->b + n, ldb, xs, ys);
                } else {
                    v128_t x0 = zero, y0 = zero, x1 = zero, y1 = zero, x2 = zero, y2 = zero, x3 = zero, y3 = zero;
                    const float *a = ap;
                    const float *b = g->b + n;
                    for (int k = 0; k < K; k++) {
                        const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
                        v128_t s = wasm_v128_load32_splat(a);
                        x0 = wasm_f32x4_add(x0, wasm_f32x4_mul(s, b0));
                        y0 = wasm_f32x4_add(y0, wasm_f32x4_mul(s, b1));
                        s = wasm_v128_load32_splat(a + o1);
                        x1 = wasm_f32x4_add(x1, wasm_f32x4_mul(s, b0));
                        y1 = wasm_f32x4_add(y1, wasm_f32x4_mul(s, b1));
                        s = wasm_v128_load32_splat(a + o2);
                        x2 = wasm_f32x4_add(x2, wasm_f32x4_mul(s, b0));
                        y2 = wasm_f32x4_add(y2, wasm_f32x4_mul(s, b1));
                        s = wasm_v128_load32_splat(a + o3);
                        x3 = wasm_f32x4_add(x3, wasm_f32x4_mul(s, b0));
                        y3 = wasm_f32x4_add(y3, wasm_f32x4_mul(s, b1));
                        a += ak;
                        b += ldb;
                    }
                    xs[0] = x0, xs[1] = x1, xs[2] = x2, xs[3] = x3;
                    ys[0] = y0, ys[1] = y1, ys[2] = y2, ys[3] = y3;
                }
                for (int r = 0; r < rows; r++) {
                    float *c = c0 + r * ldc + n;
                    wasm_v128_store(c, wgk_gemm_epilogue4(g, m0 + r, n, xs[r], alpha, lo, hi));
                    wasm_v128_store(c + 4, wgk_gemm_epilogue4(g, m0 + r, n + 4, ys[r], alpha, lo, hi));
                }
            }
            for (; n + 4 <= ne; n += 4) {
                v128_t x0 = wasm_f32x4_splat(0), x1 = x0, x2 = x0, x3 = x0;
                const float *a = ap;
                const float *b = g->b + n;
                for (int k = 0; k < K; k++) {
                    const v128_t b0 = wasm_v128_load(b);
                    x0 = wasm_f32x4_add(x0, wasm_f32x4_mul(wasm_v128_load32_splat(a), b0));
                    x1 = wasm_f32x4_add(x1, wasm_f32x4_mul(wasm_v128_load32_splat(a + o1), b0));
                    x2 = wasm_f32x4_add(x2, wasm_f32x4_mul(wasm_v128_load32_splat(a + o2), b0));
                    x3 = wasm_f32x4_add(x3, wasm_f32x4_mul(wasm_v128_load32_splat(a + o3), b0));
                    a += ak;
                    b += ldb;
                }
                const v128_t xs[4] = {x0, x1, x2, x3};
                for (int r = 0; r < rows; r++)
                    wasm_v128_store(c0 + r * ldc + n, wgk_gemm_epilogue4(g, m0 + r, n, xs[r], alpha, lo, hi));
            }
            for (; n < ne; n++) {
                /* Last 1..3 columns. */
                float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                const float *a = ap;
                const float *b = g->b + n;
                for (int k = 0; k < K; k++) {
                    const float bv = *b;
                    s0 += a[0] * bv;
                    s1 += a[o1] * bv;
                    s2 += a[o2] * bv;
                    s3 += a[o3] * bv;
                    a += ak;
                    b += ldb;
                }
                const float ss[4] = {s0, s1, s2, s3};
                for (int r = 0; r < rows; r++)
                    c0[r * ldc + n] = wgk_gemm_epilogue1(g, m0 + r, n, ss[r]);
            }
        }
    }
}

#endif
