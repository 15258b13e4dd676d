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

/* Rows of the tile at row m0 that lie in A: WGK_QGEMM_MR but in the last tile. */
static int tile_rows(const wgk_q8_gemm_args *g, int m0)
{
    return g->M - m0 < WGK_QGEMM_MR ? g->M - m0 : WGK_QGEMM_MR;
}

/* Packed panel p of b (Kp x 8 int16); *n0 its first column, *cols its columns that lie in
 * the result (WGK_QGEMM_NR but in the last panel). */
static const int16_t *panel(const wgk_q8_gemm_args *g, size_t kp, int p, int *n0, int *cols)
{
    *n0 = p * WGK_QGEMM_NR;
    *cols = g->N - *n0 < WGK_QGEMM_NR ? g->N - *n0 : WGK_QGEMM_NR;
    return g->b + (size_t)p * kp * WGK_QGEMM_NR;
}

#ifdef __wasm_simd128__
/* Rows m0..m0+rows-1 of work into the splat area at s: s[kk*32 + r*8 + 0..7] is the pair
 * A(m0+r, 2kk..2kk+1) four times over; rows past `rows` are zero. */
static void splat_group(const int16_t *work, size_t kp, int m0, int rows, int16_t *s)
{
    const size_t pairs = kp / 2;
    for (int r = 0; r < 4; r++) {
        int16_t *d = s + r * 8;
        if (r >= rows) {
            for (size_t kk = 0; kk < pairs; kk++)
                wasm_v128_store(d + kk * 32, wasm_i32x4_splat(0));
            continue;
        }
        const int16_t *w = work + (size_t)(m0 + r) * kp;
        size_t kk = 0;
        for (; kk + 4 <= pairs; kk += 4) {
            const v128_t v = wasm_v128_load(w + 2 * kk);
            wasm_v128_store(d + kk * 32, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0));
            wasm_v128_store(d + kk * 32 + 32, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1));
            wasm_v128_store(d + kk * 32 + 64, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2));
            wasm_v128_store(d + kk * 32 + 96, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3));
        }
        for (; kk < pairs; kk++)
            wasm_v128_store(d + kk * 32, wasm_v128_load32_splat(w + 2 * kk));
    }
}

/* Rows < rows and columns < cols of a 4 x 8 int32 result (acc[i] its row i) at c. */
static void store_tile(const v128_t acc[4][2], int32_t *c, int ldc, int rows, int cols)
{
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

/* Rows r[0..3] of work (repeats allowed) times one packed panel, with load-splats; stores
 * rows < rows and columns < cols of the 4 x 8 result at c. */
static void tile_loadsplat(const int16_t *const r[4], const int16_t *pb, size_t pairs, int32_t *c,
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
    store_tile(acc, c, ldc, rows, cols);
}

/* One splatted group (splat_group) times one packed panel; stores rows < rows and
 * columns < cols of the 4 x 8 result at c. Plain vector loads only, two k pairs a step. */
static void tile(const int16_t *s, const int16_t *pb, size_t pairs, int32_t *c, int ldc, int rows,
                 int cols)
{
    v128_t c00 = wasm_i32x4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
           c30 = c00, c31 = c00;
#define STEP(S, B)                                                                         \
    do {                                                                                   \
        const v128_t b0 = wasm_v128_load(B), b1 = wasm_v128_load((B) + 8);                 \
        v128_t a = wasm_v128_load(S);                                                      \
        c00 = wasm_i32x4_add(c00, wasm_i32x4_dot_i16x8(a, b0));                            \
        c01 = wasm_i32x4_add(c01, wasm_i32x4_dot_i16x8(a, b1));                            \
        a = wasm_v128_load((S) + 8);                                                       \
        c10 = wasm_i32x4_add(c10, wasm_i32x4_dot_i16x8(a, b0));                            \
        c11 = wasm_i32x4_add(c11, wasm_i32x4_dot_i16x8(a, b1));                            \
        a = wasm_v128_load((S) + 16);                                                      \
        c20 = wasm_i32x4_add(c20, wasm_i32x4_dot_i16x8(a, b0));                            \
        c21 = wasm_i32x4_add(c21, wasm_i32x4_dot_i16x8(a, b1));                            \
        a = wasm_v128_load((S) + 24);                                                      \
        c30 = wasm_i32x4_add(c30, wasm_i32x4_dot_i16x8(a, b0));                            \
        c31 = wasm_i32x4_add(c31, wasm_i32x4_dot_i16x8(a, b1));                            \
    } while (0)
    size_t kk = 0;
    for (; kk + 2 <= pairs; kk += 2, s += 64, pb += 32) {
        STEP(s, pb);
        STEP(s + 32, pb + 16);
    }
    if (kk < pairs)
        STEP(s, pb);
#undef STEP
    const v128_t acc[4][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
    store_tile(acc, c, ldc, rows, cols);
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
#ifdef __wasm_simd128__
    /* Blocks of 4-row groups, splatted once; per block, each panel (Kp x 8 int16, in L1)
     * passes every group of the block (in L2). */
    const size_t group = 16 * kp;
    int16_t *splat = g->work + ((size_t)g->M * kp + 7) / 8 * 8;
    const int per = (int)wgk_qgemm_splat_groups((size_t)g->M, (size_t)g->K);
    if (per == 0) {
        /* Panel outer, rows inner: the panel stays in L1 while the rows stream. */
        for (int p = 0; p < panels; p++) {
            int n0, cols;
            const int16_t *pb = panel(g, kp, p, &n0, &cols);
            for (int m0 = 0; m0 < g->M; m0 += WGK_QGEMM_MR) {
                const int rows = tile_rows(g, m0);
                const int16_t *r[4];
                for (int i = 0; i < 4; i++)
                    r[i] = g->work + (size_t)(m0 + (i < rows ? i : rows - 1)) * kp;
                tile_loadsplat(r, pb, pairs, g->c + (size_t)m0 * g->ldc + n0, g->ldc, rows, cols);
            }
        }
        return;
    }
    for (int mb = 0; mb < g->M; mb += 4 * per) {
        const int groups = (g->M - mb + 3) / 4 < per ? (g->M - mb + 3) / 4 : per;
        for (int i = 0; i < groups; i++) {
            const int m0 = mb + 4 * i;
            splat_group(g->work, kp, m0, tile_rows(g, m0), splat + (size_t)i * group);
        }
        for (int p = 0; p < panels; p++) {
            int n0, cols;
            const int16_t *pb = panel(g, kp, p, &n0, &cols);
            for (int i = 0; i < groups; i++) {
                const int m0 = mb + 4 * i;
                tile(splat + (size_t)i * group, pb, pairs, g->c + (size_t)m0 * g->ldc + n0, g->ldc,
                     tile_rows(g, m0), cols);
            }
        }
    }
#else
    /* Panel outer, rows inner: the panel (Kp x 8 int16) stays in L1 while the rows stream. */
    for (int p = 0; p < panels; p++) {
        int n0, cols;
        const int16_t *pb = panel(g, kp, p, &n0, &cols);
        for (int m0 = 0; m0 < g->M; m0 += WGK_QGEMM_MR) {
            const int rows = tile_rows(g, m0);
            int32_t *c = g->c + (size_t)m0 * g->ldc + n0;
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
        }
    }
#endif
}
