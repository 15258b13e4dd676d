/* f32-gemm-4x4-scalar.c: portable GEMM (4x4 register tile), contract in wgk_gemm.h. */
#include "gemm_epilogue.h"

void wgk_f32_gemm_4x4__scalar(const wgk_gemm_args *g)
{
    const int M = g->M, N = g->N, K = g->K;
    for (int m0 = 0; m0 < M; m0 += WGK_GEMM_MR) {
        const float *ap = g->a + (ptrdiff_t)(m0 / WGK_GEMM_MR) * g->a_panel;
        /* Rows past M repeat row M-1 (never out of bounds); their results are dropped. */
        ptrdiff_t off[WGK_GEMM_MR];
        for (int r = 0; r < WGK_GEMM_MR; r++)
            off[r] = (ptrdiff_t)(m0 + r < M ? r : M - 1 - m0) * g->a_m;
        int rows = M - m0 < WGK_GEMM_MR ? M - m0 : WGK_GEMM_MR;
        int n0 = 0;
        for (; n0 + 4 <= N; n0 += 4) {
            float acc[WGK_GEMM_MR][4] = {{0}};
            const float *a = ap;
            const float *b = g->b + n0;
            for (int k = 0; k < K; k++) {
                for (int r = 0; r < WGK_GEMM_MR; r++) {
                    float s = a[off[r]];
                    acc[r][0] += s * b[0];
                    acc[r][1] += s * b[1];
                    acc[r][2] += s * b[2];
                    acc[r][3] += s * b[3];
                }
                a += g->a_k;
                b += g->ldb;
            }
            for (int r = 0; r < rows; r++)
                for (int j = 0; j < 4; j++)
                    g->c[(ptrdiff_t)(m0 + r) * g->ldc + n0 + j] = wgk_gemm_epilogue1(g, m0 + r, n0 + j, acc[r][j]);
        }
        for (; n0 < N; n0++) {
            float acc[WGK_GEMM_MR] = {0};
            const float *a = ap;
            const float *b = g->b + n0;
            for (int k = 0; k < K; k++) {
                for (int r = 0; r < WGK_GEMM_MR; r++)
                    acc[r] += a[off[r]] * b[0];
                a += g->a_k;
                b += g->ldb;
            }
            for (int r = 0; r < rows; r++)
                g->c[(ptrdiff_t)(m0 + r) * g->ldc + n0] = wgk_gemm_epilogue1(g, m0 + r, n0, acc[r]);
        }
    }
}
