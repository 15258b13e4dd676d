/*
 * q8-gemm-4x8c2.c: wgk_q8_gemm (wgk_qgemm.h), 4 rows x 8 columns per tile, k in pairs
 * ("c2"): SIMD128 on i32x4.dot_i16x8_s, a scalar loop over the same layout otherwise.
 */
#include "wgk_base.h"
#include "wgk_qgemm.h"

/* work[m][0..Kp) = A(m, k) - za(m), 0 past K. */
static void widen_a(const wgk_q8_gemm_args *g, size_t kp)
{
    for (int m = 0; m < g->M; m++) {
        const int32_t z = g->za ? wgk_qgemm_load8(g->za, g->adt, g->za_period ? (size_t)(m % g->za_period) : 0) : 0;
        int16_t *w = g->work + (size_t)m * kp;
        size_t k = 0;
#ifdef __wasm_simd128__
        const uint8_t *ar = (const uint8_t *)g->a + (size_t)m * g->lda;
        const v128_t vz = wasm_i16x8_splat((int16_t)z);
        for (; k + 16 <= (size_t)g->K; k += 16) {
            v128_t v = wasm_v128_load(ar + k);
            v128_t lo = g->adt == 2 ? wasm_u16x8_extend_low_u8x16(v) : wasm_i16x8_extend_low_i8x16(v);
            v128_t hi = g->adt == 2 ? wasm_u16x8_extend_high_u8x16(v) : wasm_i16x8_extend_high_i8x16(v);
            wasm_v128_store(w + k, wasm_i16x8_sub(lo, vz));
            wasm_v128_store(w + k + 8, wasm_i16x8_sub(hi, vz));
        }
#endif
        for (; k < (size_t)g->K; k++)
            w[k] = (int16_t)(wgk_qgemm_load8(g->a, g->adt, (size_t)m * g->lda + k) - z);
        for (; k < kp; k++)
            w[k] = 0;
    }
}

#ifdef __wasm_simd128__
/* Rows r[0..3] of work (repeats allowed) times one packed panel; stores rows < rows
 * and columns < cols of the 4 x 8 result at c. */
static void tile(const int16_t *const r[4], const int16_t *pb, size_t pairs, int32_t *c,
                 int ldc, int rows, int cols)
{
    v128_t acc[4][2];
    for (int i = 0; i < 4; i++)
        acc[i][0] = acc[i][1] = wasm_i32x4_splat(0);
    for (size_t kk = 0; kk < pairs; kk++) {
        const v128_t b0 = wasm_v128_load(pb + kk * 16), b1 = wasm_v128_load(pb + kk * 16 + 8);
        for (int i = 0; i < 4; i++) {
            const v128_t av = wasm_v128_load32_splat(r[i] + 2 * kk);
            acc[i][0] = wasm_i32x4_add(acc[i][0], wasm_i32x4_dot_i16x8(av, b0));
            acc[i][1] = wasm_i32x4_add(acc[i][1], wasm_i32x4_dot_i16x8(av, b1));
        }
    }
    for (int i = 0; i < rows; i++) {
        int32_t *cr = c + (size_t)i * ldc;
        if (cols == 8) {
            wasm_v128_store(cr, acc[i][0]);
            wasm_v128_store(cr + 4, acc[i][1]);
        } else {
            int32_t t[8];
            wasm_v128_store(t, acc[i][0]);
            wasm_v128_store(t + 4, acc[i][1]);
            for (int j = 0; j < cols; j++)
                cr[j] = t[j];
        }
    }
}
#endif

void wgk_q8_gemm(const wgk_q8_gemm_args *g)
{
    if (g->M <= 0 || g->N <= 0)
        return;
    widen_a(g, wgk_qgemm_kp((size_t)g->K));
    wgk_q8_gemm_widened(g);
}

void wgk_q8_gemm_widened(const wgk_q8_gemm_args *g)
{
    if (g->M <= 0 || g->N <= 0)
        return;
    const size_t kp = wgk_qgemm_kp((size_t)g->K), pairs = kp / 2;
    const int panels = (g->N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR;
    /* Panel outer, rows inner: the panel (Kp x 8 int16) stays in L1 while the rows stream. */
    for (int p = 0; p < panels; p++) {
        const int16_t *pb = g->b + (size_t)p * kp * WGK_QGEMM_NR;
        const int n0 = p * WGK_QGEMM_NR;
        const int cols = g->N - n0 < WGK_QGEMM_NR ? g->N - n0 : WGK_QGEMM_NR;
        for (int m0 = 0; m0 < g->M; m0 += WGK_QGEMM_MR) {
            const int rows = g->M - m0 < WGK_QGEMM_MR ? g->M - m0 : WGK_QGEMM_MR;
            int32_t *c = g->c + (size_t)m0 * g->ldc + n0;
#ifdef __wasm_simd128__
            const int16_t *r[4];
            for (int i = 0; i < 4; i++)
                r[i] = g->work + (size_t)(m0 + (i < rows ? i : rows - 1)) * kp;
            tile(r, pb, pairs, c, g->ldc, rows, cols);
#else
            for (int i = 0; i < rows; i++) {
                const int16_t *w = g->work + (size_t)(m0 + i) * kp;
                for (int j = 0; j < cols; j++) {
                    uint32_t s = 0; /* wraps like the SIMD lanes */
                    for (size_t kk = 0; kk < pairs; kk++) {
                        const int16_t *b = pb + kk * 16 + j * 2;
                        s += (uint32_t)((int32_t)w[2 * kk] * b[0] + (int32_t)w[2 * kk + 1] * b[1]);
                    }
                    c[(size_t)i * g->ldc + j] = (int32_t)s;
                }
            }
#endif
        }
    }
}
