/*
 * q8-gemm-4x8c2.c: wgk_q8_gemm (wgk_qgemm.h), on panels of 8 columns of int8 weights, k in
 * pairs ("c2"): SIMD128 on i32x4.dot_i16x8_s, a GEMV for 1 to 3 rows and 4 x 8 tiles for
 * more; a scalar loop over the same layout otherwise.
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

/* Whether every column's correction is 0 (B int8 without a zero point, or uint8 with 128),
 * when the row sums are not needed. */
static int corrections_zero(const wgk_q8_gemm_args *g)
{
    const int panels = (g->N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR;
    const size_t stride = wgk_qgemm_panel_bytes((size_t)g->K);
    for (int p = 0; p < panels; p++) {
        const int32_t *c = (const int32_t *)(const void *)(g->b + (size_t)p * stride);
        for (int j = 0; j < WGK_QGEMM_NR; j++)
            if (c[j])
                return 0;
    }
    return 1;
}

/* The sum of a widened row (Kp int16). */
static int32_t row_sum(const int16_t *w, size_t kp)
{
    uint32_t s = 0;
    size_t k = 0;
#ifdef __wasm_simd128__
    const v128_t ones = wasm_i16x8_splat(1);
    v128_t acc = wasm_i32x4_splat(0);
    for (; k + 8 <= kp; k += 8)
        acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(wasm_v128_load(w + k), ones));
    s = (uint32_t)wasm_i32x4_extract_lane(acc, 0) + (uint32_t)wasm_i32x4_extract_lane(acc, 1) +
        (uint32_t)wasm_i32x4_extract_lane(acc, 2) + (uint32_t)wasm_i32x4_extract_lane(acc, 3);
#endif
    for (; k < kp; k++)
        s += (uint32_t)(int32_t)w[k];
    return (int32_t)s;
}

/* sums[m] = the sum of widened row m of work: what a column's correction is multiplied by
 * (0 when every correction is). */
static void row_sums(const wgk_q8_gemm_args *g, size_t kp, int32_t *sums)
{
    const int zero = corrections_zero(g);
    for (int m = 0; m < g->M; m++)
        sums[m] = zero ? 0 : row_sum(g->work + (size_t)m * kp, kp);
}

/* Packed panel p of b: its 8 corrections (*corr) and its Kp x 8 weights (returned); *n0
 * its first column, *cols its columns that lie in the result (WGK_QGEMM_NR but in the last
 * panel). */
static const int8_t *panel(const wgk_q8_gemm_args *g, int p, const int32_t **corr, int *n0, int *cols)
{
    const int8_t *pb = g->b + (size_t)p * wgk_qgemm_panel_bytes((size_t)g->K);
    *corr = (const int32_t *)(const void *)pb;
    *n0 = p * WGK_QGEMM_NR;
    *cols = g->N - *n0 < WGK_QGEMM_NR ? g->N - *n0 : WGK_QGEMM_NR;
    return pb + 32;
}

#ifdef __wasm_simd128__
/* Rows of the tile at row m0 that lie in A: WGK_QGEMM_MR but in the last tile. */
static int tile_rows(const wgk_q8_gemm_args *g, int m0)
{
    return g->M - m0 < WGK_QGEMM_MR ? g->M - m0 : WGK_QGEMM_MR;
}

/* Rows m0..m0+rows-1 of work into a splat area of groups of R rows at s: s[kk*8R + r*8 +
 * 0..7] is the pair A(m0+r, 2kk..2kk+1) four times over; rows from `rows` to R are zero. */
static void splat_group(const int16_t *work, size_t kp, int m0, int rows, int R, int16_t *s)
{
    const size_t pairs = kp / 2, step = 8 * (size_t)R;
    for (int r = 0; r < R; r++) {
        int16_t *d = s + r * 8;
        if (r >= rows) {
            for (size_t kk = 0; kk < pairs; kk++)
                wasm_v128_store(d + kk * step, wasm_i32x4_splat(0));
            continue;
        }
        const int16_t *w = work + (size_t)(m0 + r) * kp;
        size_t kk = 0;
        for (; kk + 4 <= pairs; kk += 4) {
            const v128_t v = wasm_v128_load(w + 2 * kk);
            wasm_v128_store(d + kk * step, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0));
            wasm_v128_store(d + (kk + 1) * step, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1));
            wasm_v128_store(d + (kk + 2) * step, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2));
            wasm_v128_store(d + (kk + 3) * step, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3));
        }
        for (; kk < pairs; kk++)
            wasm_v128_store(d + kk * step, wasm_v128_load32_splat(w + 2 * kk));
    }
}

/* Rows < rows and columns < cols of a 4 x 8 int32 result (acc[i] its row i, sums[i] that
 * row's sum) at c, minus the panel's corrections times the row sums. */
static void store_tile(const v128_t acc[4][2], const int32_t *corr, const int32_t *sums, int32_t *c, int ldc,
                       int rows, int cols)
{
    const v128_t c0 = wasm_v128_load(corr), c1 = wasm_v128_load(corr + 4);
    for (int i = 0; i < rows; i++) {
        const v128_t s = wasm_i32x4_splat(sums[i]);
        const v128_t r0 = wasm_i32x4_sub(acc[i][0], wasm_i32x4_mul(c0, s));
        const v128_t r1 = wasm_i32x4_sub(acc[i][1], wasm_i32x4_mul(c1, s));
        int32_t *cr = c + (size_t)i * ldc;
        if (cols == 8) {
            wasm_v128_store(cr, r0);
            wasm_v128_store(cr + 4, r1);
        } else {
            int32_t t[8];
            wasm_v128_store(t, r0);
            wasm_v128_store(t + 4, r1);
            for (int j = 0; j < cols; j++)
                cr[j] = t[j];
        }
    }
}

/* Rows r[0..3] of work (repeats allowed) times one packed panel's weights pw, with
 * load-splats; stores rows < rows and columns < cols of the 4 x 8 result at c. */
static void tile_loadsplat(const int16_t *const r[4], const int8_t *pw, const int32_t *corr, const int32_t *sums,
                           size_t pairs, int32_t *c, int ldc, int rows, int cols)
{
    v128_t acc[4][2];
    for (int i = 0; i < 4; i++)
        acc[i][0] = acc[i][1] = wasm_i32x4_splat(0);
    for (size_t kk = 0; kk < pairs; kk++) {
        const v128_t b0 = wasm_i16x8_load8x8(pw + kk * 16), b1 = wasm_i16x8_load8x8(pw + kk * 16 + 8);
        for (int i = 0; i < 4; i++) {
            const v128_t av = wasm_v128_load32_splat(r[i] + 2 * kk);
            acc[i][0] = wasm_i32x4_add(acc[i][0], wasm_i32x4_dot_i16x8(av, b0));
            acc[i][1] = wasm_i32x4_add(acc[i][1], wasm_i32x4_dot_i16x8(av, b1));
        }
    }
    store_tile(acc, corr, sums, c, ldc, rows, cols);
}

/* One splatted group of 4 rows (splat_group) times one packed panel's weights b, as int8
 * (wide 0: sign-extended by their loads) or widened to int16 (wide 1: widen_panel; plain
 * loads, which leave the shuffle port to the dot products' adds); stores rows < rows and
 * columns < cols of the 4 x 8 result at c. Two k pairs a step. */
static inline __attribute__((always_inline)) void tile_body(const int16_t *s, const void *b, int wide,
                                                            const int32_t *corr, const int32_t *sums,
                                                            size_t pairs, int32_t *c, int ldc, int rows, int cols)
{
    const uint8_t *pb = b;
    const size_t bstep = wide ? 32 : 16;
    v128_t c00 = wasm_i32x4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
           c30 = c00, c31 = c00;
#define LOADB(B) (wide ? wasm_v128_load(B) : wasm_i16x8_load8x8(B))
#define STEP(S, B)                                                                         \
    do {                                                                                   \
        const v128_t b0 = LOADB(B), b1 = LOADB((B) + bstep / 2);                           \
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
    for (; kk + 2 <= pairs; kk += 2, s += 64, pb += 2 * bstep) {
        STEP(s, pb);
        STEP(s + 32, pb + bstep);
    }
    if (kk < pairs)
        STEP(s, pb);
#undef STEP
#undef LOADB
    const v128_t acc[4][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
    store_tile(acc, corr, sums, c, ldc, rows, cols);
}

static void tile(const int16_t *s, const int8_t *pw, const int32_t *corr, const int32_t *sums, size_t pairs,
                 int32_t *c, int ldc, int rows, int cols)
{
    tile_body(s, pw, 0, corr, sums, pairs, c, ldc, rows, cols);
}

static void tile_wide(const int16_t *s, const int16_t *pw16, const int32_t *corr, const int32_t *sums,
                      size_t pairs, int32_t *c, int ldc, int rows, int cols)
{
    tile_body(s, pw16, 1, corr, sums, pairs, c, ldc, rows, cols);
}

/* A panel's Kp x 8 weights sign-extended to int16 into dst, in the same order. */
static void widen_panel(const int8_t *pw, size_t pairs, int16_t *dst)
{
    for (size_t kk = 0; kk < pairs; kk++) {
        wasm_v128_store(dst + 16 * kk, wasm_i16x8_load8x8(pw + 16 * kk));
        wasm_v128_store(dst + 16 * kk + 8, wasm_i16x8_load8x8(pw + 16 * kk + 8));
    }
}

/* P panels (from panel p0) against R rows splatted as one group of R at s (R and P constants
 * where this is inlined): P streams of weights at once, each pair of rows' broadcast read
 * once for all of them; stores the R x 8P results. */
static inline __attribute__((always_inline)) void gemv_panels(const wgk_q8_gemm_args *g, const int16_t *s,
                                                              const int32_t *sums, size_t pairs, int p0,
                                                              int R, int P)
{
    const size_t step = 8 * (size_t)R;
    const int32_t *corr[4];
    const int8_t *b[4]; /* each panel's next k pair */
    int n0[4], cols[4];
    v128_t acc[4][3][2];
    for (int q = 0; q < P; q++) {
        b[q] = panel(g, p0 + q, &corr[q], &n0[q], &cols[q]);
        for (int r = 0; r < R; r++)
            acc[q][r][0] = acc[q][r][1] = wasm_i32x4_splat(0);
    }
    const int16_t *a = s;
    for (size_t kk = 0; kk < pairs; kk++, a += step) {
        for (int q = 0; q < P; q++) {
            const v128_t b0 = wasm_i16x8_load8x8(b[q]), b1 = wasm_i16x8_load8x8(b[q] + 8);
            b[q] += 16;
            for (int r = 0; r < R; r++) {
                const v128_t av = wasm_v128_load(a + 8 * r);
                acc[q][r][0] = wasm_i32x4_add(acc[q][r][0], wasm_i32x4_dot_i16x8(av, b0));
                acc[q][r][1] = wasm_i32x4_add(acc[q][r][1], wasm_i32x4_dot_i16x8(av, b1));
            }
        }
    }
    for (int q = 0; q < P; q++) {
        v128_t t[4][2];
        for (int r = 0; r < R; r++)
            t[r][0] = acc[q][r][0], t[r][1] = acc[q][r][1];
        store_tile(t, corr[q], sums, g->c + n0[q], g->ldc, R, cols[q]);
    }
}

/* The GEMV: R rows (1 to 3, a constant where it is inlined), splatted as one group of R
 * at s, against the panels P at a time (P memory streams), the last ones one at a time. */
static inline __attribute__((always_inline)) void gemv(const wgk_q8_gemm_args *g, const int16_t *s,
                                                       const int32_t *sums, size_t pairs, int R, int P)
{
    const int panels = (g->N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR;
    int p = 0;
    for (; p + P <= panels; p += P)
        gemv_panels(g, s, sums, pairs, p, R, P);
    for (; p < panels; p++)
        gemv_panels(g, s, sums, pairs, p, R, 1);
}
#endif

void wgk_q8_gemm(const wgk_q8_gemm_args *g)
{
    if (g->M <= 0 || g->N <= 0)
        return;
    widen_a(g, wgk_qgemm_kp((size_t)g->K));
    wgk_q8_gemm_widened(g);
}

#ifdef __wasm_simd128__
/* Every panel against every row with load-splats (no splat area: K too long), panel outer,
 * rows inner: the panel stays in L1 while the rows stream. */
static void gemm_loadsplat(const wgk_q8_gemm_args *g, const int32_t *sums, size_t kp)
{
    const int panels = (g->N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR;
    for (int p = 0; p < panels; p++) {
        const int32_t *corr;
        int n0, cols;
        const int8_t *pw = panel(g, p, &corr, &n0, &cols);
        for (int m0 = 0; m0 < g->M; m0 += WGK_QGEMM_MR) {
            const int rows = tile_rows(g, m0);
            const int16_t *r[4];
            for (int i = 0; i < 4; i++)
                r[i] = g->work + (size_t)(m0 + (i < rows ? i : rows - 1)) * kp;
            tile_loadsplat(r, pw, corr, sums + m0, kp / 2, g->c + (size_t)m0 * g->ldc + n0, g->ldc, rows, cols);
        }
    }
}

/* 4 rows or more: blocks of per 4-row groups, splatted once; per block, each panel (in L1)
 * passes every group of the block (in L2), widened to int16 first when it serves two
 * groups or more. */
static void gemm_groups(const wgk_q8_gemm_args *g, int16_t *splat, const int32_t *sums, size_t kp, int per)
{
    const int panels = (g->N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR;
    const size_t group = 16 * kp, pairs = kp / 2;
    int16_t *wide = splat + (size_t)per * group;
    for (int mb = 0; mb < g->M; mb += 4 * per) {
        const int groups = (g->M - mb + 3) / 4 < per ? (g->M - mb + 3) / 4 : per;
        for (int i = 0; i < groups; i++) {
            const int m0 = mb + 4 * i;
            splat_group(g->work, kp, m0, tile_rows(g, m0), 4, splat + (size_t)i * group);
        }
        for (int p = 0; p < panels; p++) {
            const int32_t *corr;
            int n0, cols;
            const int8_t *pw = panel(g, p, &corr, &n0, &cols);
            if (groups > 1)
                widen_panel(pw, pairs, wide);
            for (int i = 0; i < groups; i++) {
                const int m0 = mb + 4 * i;
                int32_t *c = g->c + (size_t)m0 * g->ldc + n0;
                if (groups > 1)
                    tile_wide(splat + (size_t)i * group, wide, corr, sums + m0, pairs, c, g->ldc, tile_rows(g, m0), cols);
                else
                    tile(splat + (size_t)i * group, pw, corr, sums + m0, pairs, c, g->ldc, tile_rows(g, m0), cols);
            }
        }
    }
}
#else
/* The scalar build: the same sums in plain loops, panel outer, rows inner (the panel, Kp x
 * 8 int8, stays in L1 while the rows stream). */
static void gemm_scalar(const wgk_q8_gemm_args *g, const int32_t *sums, size_t kp)
{
    const int panels = (g->N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR;
    for (int p = 0; p < panels; p++) {
        const int32_t *corr;
        int n0, cols;
        const int8_t *pw = panel(g, p, &corr, &n0, &cols);
        for (int m = 0; m < g->M; m++) {
            const int16_t *w = g->work + (size_t)m * kp;
            int32_t *c = g->c + (size_t)m * g->ldc + n0;
            for (int j = 0; j < cols; j++) {
                uint32_t s = 0; /* wraps like the SIMD lanes */
                for (size_t kk = 0; kk < kp / 2; kk++) {
                    const int8_t *b = pw + kk * 16 + j * 2;
                    s += (uint32_t)((int32_t)w[2 * kk] * b[0] + (int32_t)w[2 * kk + 1] * b[1]);
                }
                c[j] = (int32_t)(s - (uint32_t)corr[j] * (uint32_t)sums[m]);
            }
        }
    }
}
#endif

void wgk_q8_gemm_widened(const wgk_q8_gemm_args *g)
{
    if (g->M <= 0 || g->N <= 0)
        return;
    const size_t kp = wgk_qgemm_kp((size_t)g->K);
    int32_t *sums = (int32_t *)(void *)(g->work + (size_t)g->M * kp);
    row_sums(g, kp, sums);
#ifdef __wasm_simd128__
    const size_t pairs = kp / 2;
    int16_t *splat = g->work + wgk_qgemm_rows_size((size_t)g->M, (size_t)g->K);
    const int per = (int)wgk_qgemm_splat_groups((size_t)g->M, (size_t)g->K);
    if (per == 0) {
        gemm_loadsplat(g, sums, kp);
    } else if (g->M < WGK_QGEMM_MR) {
        splat_group(g->work, kp, 0, g->M, g->M, splat);
        /* one row: four streams of weights; two or three: two, their 8 or 12 accumulators
         * and the weights' 4 vectors filling the registers */
        if (g->M == 1)
            gemv(g, splat, sums, pairs, 1, 4);
        else if (g->M == 2)
            gemv(g, splat, sums, pairs, 2, 2);
        else
            gemv(g, splat, sums, pairs, 3, 2);
    } else {
        gemm_groups(g, splat, sums, kp, per);
    }
#else
    gemm_scalar(g, sums, kp);
#endif
}
