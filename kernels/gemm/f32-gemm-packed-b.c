/*
 * f32-gemm-packed-b.c: GEMM with a constant B packed in column panels (wgk_pack_b) and a
 * row-major A (contract in wgk_gemm.h, wgk_f32_gemm_pb). For each block of rows of A
 * (up to 256 KiB, kept in L2) every K x 8 panel of B is read once, in order; a fully
 * connected layer (M = 1) therefore streams its weights from memory exactly once, where
 * the row-major kernel would jump a whole row of B per k.
 *
 * SIMD128: A is read 4 k at a time with one vector load per row and lane broadcasts
 * (no load-splats, which are slow in Cranelift); B with two loads per k. A GEMV reads
 * four panels at once (row1_x4): more memory streams, and independent accumulators.
 *
 * float16 panels (bh): a GEMV widens them in registers (row1_h, row1_x4_h: the same sums
 * in the same order as on float32 panels); four rows or more widen each panel once per
 * row block (panel_f32) and run the float32 paths on it. One-byte panels (bq, a
 * DequantizeLinear's uint8 / int8 weights with the columns' scales and zero points in
 * each panel's head, wgk_pack.h) likewise: each weight (q - zp) * scale in float32, the
 * value the folded DequantizeLinear had, in registers (row1_q, row1_x4_q) or once per
 * row block into the panel buffer.
 */
#include "gemm_epilogue.h"
#include "wgk_conv_packed.h"
#include "wgk_f16.h"
#include "wgk_vmath.h"

/* Where panel_f32 widens a float16 panel: the end of the broadcast buffer (the broadcast
 * rows take the rest, splat_groups). */
static float *panel_buffer(const wgk_gemm_args *g)
{
    float *const splat = g->splat ? g->splat : wgk_gemm_splat_buffer();
    return splat + WGK_GEMM_SPLAT_FLOATS - (size_t)g->K * WGK_GEMM_NR;
}

/* Panel p's weights: float32 or float16 ones, or the bytes of a one-byte panel (past its
 * head of scales and zero points). */
static const void *panel_at(const wgk_gemm_args *g, int p)
{
    const ptrdiff_t at = (ptrdiff_t)p * g->K * WGK_GEMM_NR;
    if (g->bq)
        return g->bq + (ptrdiff_t)p * (ptrdiff_t)wgk_pack_b_q8_stride((size_t)g->K, g->bq_head != 0) +
               (g->bq_head ? 0 : (ptrdiff_t)WGK_GEMM_Q8_HEAD);
    return g->bh ? (const void *)(g->bh + at) : (const void *)(g->b + at);
}

/* The 8 columns' scales and zero points of the one-byte panel whose bytes start at q: the
 * head all panels share (g->bq_head), or the panel's own just before its bytes (wgk_pack.h). */
#define Q8_HEAD(q) (g->bq_head ? g->bq_head : (const wgk_q8_panel_head *)((const int8_t *)(q) - WGK_GEMM_Q8_HEAD))
#define Q8_SCALES(q) (Q8_HEAD(q)->scale)
#define Q8_ZEROS(q) (Q8_HEAD(q)->zero)

#ifdef __wasm_simd128__
/* The 8 weights of one k of a one-byte panel, (q - zp) * scale in float32: the difference
 * in int16 (exact), then converted (exact) and multiplied by the column's scale, as
 * DequantizeLinear rounds it. z: the zero points, s0, s1: the scales. */
static inline void q8x8_dequant(const int8_t *q, v128_t z, v128_t s0, v128_t s1, v128_t *lo, v128_t *hi)
{
    const v128_t d = wasm_i16x8_sub(wasm_i16x8_load8x8(q), z);
    *lo = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(d)), s0);
    *hi = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(d)), s1);
}
#endif

/* Panel p of B as float32: in place, or (float16 and one-byte panels) widened into
 * panel_buffer. */
static const float *panel_f32(const wgk_gemm_args *g, int p)
{
    const void *at = panel_at(g, p);
    if (!g->bh && !g->bq)
        return at;
    float *buf = panel_buffer(g);
    const uint16_t *h = at;
    const int8_t *q = at;
#ifdef __wasm_simd128__
    const v128_t z = g->bq ? wasm_v128_load(Q8_ZEROS(q)) : wasm_i16x8_splat(0);
    const v128_t s0 = g->bq ? wasm_v128_load(Q8_SCALES(q)) : z, s1 = g->bq ? wasm_v128_load(Q8_SCALES(q) + 4) : z;
    for (int k = 0; k < g->K; k++) {
        v128_t lo, hi;
        if (g->bq)
            q8x8_dequant(q + 8 * k, z, s0, s1, &lo, &hi);
        else
            wgk_f16x8_widen_weights(wasm_v128_load(h + 8 * k), &lo, &hi);
        wasm_v128_store(buf + 8 * k, lo);
        wasm_v128_store(buf + 8 * k + 4, hi);
    }
#else
    for (int i = 0; i < g->K * WGK_GEMM_NR; i++)
        buf[i] = g->bq ? (float)(q[i] - Q8_ZEROS(q)[i % WGK_GEMM_NR]) * Q8_SCALES(q)[i % WGK_GEMM_NR]
                       : wgk_f16_weight(h[i]);
#endif
    return buf;
}

/* The fused activation (g->act) on rows m0..m1-1 of C, just computed (in L1 or L2). */
static void act_rows(const wgk_gemm_args *g, int m0, int m1)
{
    if (g->act == WGK_GEMM_ACT_NONE)
        return;
    for (int m = m0; m < m1; m++) {
        float *c = g->c + (ptrdiff_t)m * g->ldc;
        if (g->act == WGK_GEMM_ACT_GELU)
            wgk_f32_gelu(c, c, (size_t)g->N);
        else
            wgk_f32_gelu_tanh(c, c, (size_t)g->N);
    }
}

/* Rows of A per block: the block (rows x K floats) stays in L2 while the panels pass. */
static int block_rows(int K)
{
    int mb = 32768 / (K > 0 ? K : 1);
    mb -= mb % 4;
    return mb < 4 ? 4 : mb;
}

#if defined(__wasm_simd128__)

#define MADD WGK_MADD

#define LANE(v, l) wasm_i32x4_shuffle((v), (v), l, l, l, l)

/* Stores the 8 columns n.. of row m (fewer at the right edge). */
static void store_row(const wgk_gemm_args *g, int m, int n, v128_t x, v128_t y, v128_t alpha,
                      v128_t lo, v128_t hi)
{
    float *c = g->c + (ptrdiff_t)m * g->ldc + n;
    if (n + 8 <= g->N) {
        wasm_v128_store(c, wgk_gemm_epilogue4(g, m, n, x, alpha, lo, hi));
        wasm_v128_store(c + 4, wgk_gemm_epilogue4(g, m, n + 4, y, alpha, lo, hi));
        return;
    }
    float t[8];
    wasm_v128_store(t, x);
    wasm_v128_store(t + 4, y);
    for (int j = 0; n + j < g->N; j++)
        c[j] = wgk_gemm_epilogue1(g, m, n + j, t[j]);
}

/* The 8 weights of one k of panel i (0-3 in a GEMV row function) at p as two f32x4: float32
 * panels (loaded), float16 ones (widened in registers, wgk_f16.h), one-byte ones
 * (dequantized with the panel's parameters, which PARAMS_Q8 loaded into registers). */
#define WEIGHTS_F32(p, w0, w1, i) ((w0) = wasm_v128_load(p), (w1) = wasm_v128_load((p) + 4))
#define WEIGHTS_F16(p, w0, w1, i) wgk_f16x8_widen_weights(wasm_v128_load(p), &(w0), &(w1))
/* float16 ones without the widening's multiply by 2^102 (wgk_f16.h): the weights times
 * 2^-102, normal floats or zeros, for a row of A scaled by 2^102 (few_rows). */
#define WEIGHTS_F16_SCALED(p, w0, w1, i) wgk_f16x8_widen_weights_scaled(wasm_v128_load(p), &(w0), &(w1))
#define WEIGHTS_Q8(p, w0, w1, i) q8x8_dequant(p, qz##i, qs##i##a, qs##i##b, &(w0), &(w1))
/* What a panel's weights need besides themselves, for panel i whose weights start at p:
 * nothing, or the one-byte panels' zero points and scales. */
#define PARAMS_NONE(i, p)
#define PARAMS_Q8(i, p)                                                                         \
    const v128_t qz##i = wasm_v128_load(Q8_ZEROS(p)), qs##i##a = wasm_v128_load(Q8_SCALES(p)), \
                 qs##i##b = wasm_v128_load(Q8_SCALES(p) + 4)

/* One k of the GEMV (s: A's value broadcast, o: the k's offset in the panels) for panel i
 * at p, accumulating into x, y: three statements, for GEMV_STEP1 (one panel at b) and
 * GEMV_STEP4 (four at b0..b3, into x0, y0 .. x3, y3). */
#define GEMV_PANEL(WEIGHTS, s, o, p, i, x, y)                                                   \
    WEIGHTS((p) + (o), w0, w1, i);                                                              \
    x = MADD(x, s, w0);                                                                         \
    y = MADD(y, s, w1)
#define GEMV_STEP1(WEIGHTS, s, o)                                                               \
    do {                                                                                        \
        GEMV_PANEL(WEIGHTS, s, o, b, 0, x0, y0);                                                \
    } while (0)
#define GEMV_STEP4(WEIGHTS, s, o)                                                               \
    do {                                                                                        \
        GEMV_PANEL(WEIGHTS, s, o, b0, 0, x0, y0);                                               \
        GEMV_PANEL(WEIGHTS, s, o, b1, 1, x1, y1);                                               \
        GEMV_PANEL(WEIGHTS, s, o, b2, 2, x2, y2);                                               \
        GEMV_PANEL(WEIGHTS, s, o, b3, 3, x3, y3);                                               \
    } while (0)

/* The GEMV's two functions for panels of element type T read through WEIGHTS:
 *
 * NAME1, one row against one panel: one accumulator pair, k in order, so that every column
 * sums in the same order as in NAME4 and rows4 (equal columns stay bit-equal, which a
 * softmax over huge equal logits would otherwise amplify).
 *
 * NAME4, one row against four panels n[0..3] at once (a GEMV: each panel is read once and
 * the row's few floats stay in L1). Four panels far apart in memory are four sequential
 * streams: the hardware prefetchers keep more lines in flight for four than for one, so
 * four streams read faster (docs/performance.md). */
#define GEMV_ROWS(NAME1, NAME4, T, WEIGHTS, PARAMS)                                                              \
    static void NAME1(const wgk_gemm_args *g, const float *a, int m, int n, const void *bv, v128_t alpha,        \
                      v128_t lo, v128_t hi)                                                                      \
    {                                                                                                            \
        const int K = g->K;                                                                                      \
        const T *b = bv;                                                                                         \
        PARAMS(0, b);                                                                                            \
        v128_t x0 = wasm_f32x4_splat(0.0f), y0 = x0, w0, w1;                                                     \
        int k = 0;                                                                                               \
        for (; k + 4 <= K; k += 4, b += 32) {                                                                    \
            const v128_t av = wasm_v128_load(a + k);                                                             \
            GEMV_STEP1(WEIGHTS, LANE(av, 0), 0);                                                                 \
            GEMV_STEP1(WEIGHTS, LANE(av, 1), 8);                                                                 \
            GEMV_STEP1(WEIGHTS, LANE(av, 2), 16);                                                                \
            GEMV_STEP1(WEIGHTS, LANE(av, 3), 24);                                                                \
        }                                                                                                        \
        for (; k < K; k++, b += 8)                                                                               \
            GEMV_STEP1(WEIGHTS, wasm_v128_load32_splat(a + k), 0);                                               \
        store_row(g, m, n, x0, y0, alpha, lo, hi);                                                               \
    }                                                                                                            \
                                                                                                                 \
    static void NAME4(const wgk_gemm_args *g, const float *a, int m, const int *n, const void *const *bp,        \
                      v128_t alpha, v128_t lo, v128_t hi)                                                        \
    {                                                                                                            \
        const int K = g->K;                                                                                      \
        const T *b0 = bp[0], *b1 = bp[1], *b2 = bp[2], *b3 = bp[3];                                              \
        PARAMS(0, b0);                                                                                           \
        PARAMS(1, b1);                                                                                           \
        PARAMS(2, b2);                                                                                           \
        PARAMS(3, b3);                                                                                           \
        v128_t x0 = wasm_f32x4_splat(0.0f), y0 = x0, x1 = x0, y1 = x0, x2 = x0, y2 = x0, x3 = x0,                \
               y3 = x0, w0, w1;                                                                                  \
        int k = 0;                                                                                               \
        for (; k + 4 <= K; k += 4, b0 += 32, b1 += 32, b2 += 32, b3 += 32) {                                     \
            const v128_t av = wasm_v128_load(a + k);                                                             \
            GEMV_STEP4(WEIGHTS, LANE(av, 0), 0);                                                                 \
            GEMV_STEP4(WEIGHTS, LANE(av, 1), 8);                                                                 \
            GEMV_STEP4(WEIGHTS, LANE(av, 2), 16);                                                                \
            GEMV_STEP4(WEIGHTS, LANE(av, 3), 24);                                                                \
        }                                                                                                        \
        for (; k < K; k++, b0 += 8, b1 += 8, b2 += 8, b3 += 8)                                                   \
            GEMV_STEP4(WEIGHTS, wasm_v128_load32_splat(a + k), 0);                                               \
        store_row(g, m, n[0], x0, y0, alpha, lo, hi);                                                            \
        store_row(g, m, n[1], x1, y1, alpha, lo, hi);                                                            \
        store_row(g, m, n[2], x2, y2, alpha, lo, hi);                                                            \
        store_row(g, m, n[3], x3, y3, alpha, lo, hi);                                                            \
    }

GEMV_ROWS(row1, row1_x4, float, WEIGHTS_F32, PARAMS_NONE)
GEMV_ROWS(row1_h, row1_x4_h, uint16_t, WEIGHTS_F16, PARAMS_NONE)
GEMV_ROWS(row1_hs, row1_x4_hs, uint16_t, WEIGHTS_F16_SCALED, PARAMS_NONE)
GEMV_ROWS(row1_q, row1_x4_q, int8_t, WEIGHTS_Q8, PARAMS_Q8)

/* Row m of A times 2^102 into dst, when that stays finite and exact (every finite |a| below
 * 2^24): then each product with a weight times 2^-102 (WEIGHTS_F16_SCALED) is the product
 * with the weight, bit for bit, one multiply per weight fewer. 0 when it does not. */
static int scale_row(const wgk_gemm_args *g, int m, float *dst)
{
    const float *a = g->a + (ptrdiff_t)m * g->a_m;
    for (int k = 0; k < g->K; k++) {
        if (__builtin_fabsf(a[k]) >= 0x1p24f && __builtin_fabsf(a[k]) != __builtin_inff())
            return 0;
        dst[k] = a[k] * 0x1p102f;
    }
    return 1;
}

/* Rows of A fewer than 4 (a GEMV, or two or three): the panels in four interleaved
 * streams (row1_x4: quarter q of the panels is read alongside the others), the last
 * few alone; float16 panels likewise (row1_x4_h, row1_h, or on a scaled row row1_x4_hs,
 * row1_hs), and one-byte ones (row1_x4_q, row1_q). */
static void few_rows(const wgk_gemm_args *g, v128_t alpha, v128_t lo, v128_t hi)
{
    typedef void (*row1_fn)(const wgk_gemm_args *, const float *, int, int, const void *, v128_t, v128_t, v128_t);
    typedef void (*row4_fn)(const wgk_gemm_args *, const float *, int, const int *, const void *const *, v128_t,
                            v128_t, v128_t);
    const int panels = (g->N + WGK_GEMM_NR - 1) / WGK_GEMM_NR, q = panels / 4;
    float *const scaled = g->bh ? (g->splat ? g->splat : wgk_gemm_splat_buffer()) : NULL;
    for (int m = 0; m < g->M; m++) {
        const int pre = scaled && scale_row(g, m, scaled);
        const float *a = pre ? scaled : g->a + (ptrdiff_t)m * g->a_m;
        const row1_fn one = pre ? row1_hs : g->bh ? row1_h : g->bq ? row1_q : row1;
        const row4_fn four = pre ? row1_x4_hs : g->bh ? row1_x4_h : g->bq ? row1_x4_q : row1_x4;
        for (int i = 0; i < q; i++) {
            int n[4];
            const void *bp[4];
            for (int s = 0; s < 4; s++) {
                n[s] = (s * q + i) * WGK_GEMM_NR;
                bp[s] = panel_at(g, s * q + i);
            }
            four(g, a, m, n, bp, alpha, lo, hi);
        }
        for (int p = 4 * q; p < panels; p++)
            one(g, a, m, p * WGK_GEMM_NR, panel_at(g, p), alpha, lo, hi);
        act_rows(g, m, m + 1);
    }
}

/* Four rows against one panel: 8 accumulators, B loads shared by the rows. */
static void rows4(const wgk_gemm_args *g, int m, int n, const float *b, v128_t alpha, v128_t lo,
                  v128_t hi)
{
    const int K = g->K;
    const ptrdiff_t lda = g->a_m;
    const float *a0 = g->a + (ptrdiff_t)m * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    v128_t x0 = wasm_f32x4_splat(0.0f), y0 = x0, x1 = x0, y1 = x0, x2 = x0, y2 = x0, x3 = x0,
           y3 = x0;
#define STEP(l, bk)                                                                        \
    do {                                                                                   \
        const v128_t b0 = wasm_v128_load(bk), b1 = wasm_v128_load((bk) + 4);               \
        v128_t s = LANE(v0, l);                                                            \
        x0 = MADD(x0, s, b0);                                                              \
        y0 = MADD(y0, s, b1);                                                              \
        s = LANE(v1, l);                                                                   \
        x1 = MADD(x1, s, b0);                                                              \
        y1 = MADD(y1, s, b1);                                                              \
        s = LANE(v2, l);                                                                   \
        x2 = MADD(x2, s, b0);                                                              \
        y2 = MADD(y2, s, b1);                                                              \
        s = LANE(v3, l);                                                                   \
        x3 = MADD(x3, s, b0);                                                              \
        y3 = MADD(y3, s, b1);                                                              \
    } while (0)
    int k = 0;
    for (; k + 4 <= K; k += 4, b += 32) {
        const v128_t v0 = wasm_v128_load(a0 + k), v1 = wasm_v128_load(a1 + k);
        const v128_t v2 = wasm_v128_load(a2 + k), v3 = wasm_v128_load(a3 + k);
        STEP(0, b);
        STEP(1, b + 8);
        STEP(2, b + 16);
        STEP(3, b + 24);
    }
    for (; k < K; k++, b += 8) {
        const v128_t v0 = wasm_v128_load32_splat(a0 + k), v1 = wasm_v128_load32_splat(a1 + k);
        const v128_t v2 = wasm_v128_load32_splat(a2 + k), v3 = wasm_v128_load32_splat(a3 + k);
        STEP(0, b);
    }
#undef STEP
    store_row(g, m, n, x0, y0, alpha, lo, hi);
    store_row(g, m + 1, n, x1, y1, alpha, lo, hi);
    store_row(g, m + 2, n, x2, y2, alpha, lo, hi);
    store_row(g, m + 3, n, x3, y3, alpha, lo, hi);
}

/* Broadcast rows of A for the splat path: 1 MiB, 4-row groups of K x 16 floats, g->splat
 * or else wgk_gemm_splat_buffer(). */
#define SPLAT_FLOATS WGK_GEMM_SPLAT_FLOATS

/* Rows m..m+3 of A (zeros past M) as wgk_conv_splat_a lays out a weight panel:
 * dst[(k*4 + r)*4 + l] = A(m + r, k). */
static void splat_rows(const wgk_gemm_args *g, int m, float *dst)
{
    for (int r = 0; r < 4; r++) {
        const float *a = g->a + (ptrdiff_t)(m + r) * g->a_m;
        for (int k = 0; k < g->K; k++)
            wasm_v128_store(dst + (k * 4 + r) * 4, wasm_f32x4_splat(m + r < g->M ? a[k] : 0.0f));
    }
}

/* The epilogue (alpha, beta * bias, residual, clamp) on rows m..m+mr-1, columns n..n+nc-1
 * of C, which hold the plain products. */
static void epilogue_tile(const wgk_gemm_args *g, int m, int mr, int n, int nc, v128_t alpha, v128_t lo,
                          v128_t hi)
{
    for (int r = 0; r < mr; r++) {
        float *c = g->c + (ptrdiff_t)(m + r) * g->ldc + n;
        int j = 0;
        for (; j + 4 <= nc; j += 4)
            wasm_v128_store(c + j, wgk_gemm_epilogue4(g, m + r, n + j, wasm_v128_load(c + j), alpha, lo, hi));
        for (; j < nc; j++)
            c[j] = wgk_gemm_epilogue1(g, m + r, n + j, c[j]);
    }
}

/* The bytes of B above which it is taken to stream from memory (beyond L3) at each row
 * block rather than stay in cache. */
#define GEMM_B_CACHED_BYTES (32u << 20)

/* Four or more rows: each 4-row group of A broadcast once (splat_rows), then per panel of
 * B (in L1) every group through the conv micro-kernel, 4 loads per k where rows4 spends
 * 4 lane shuffles on the vector ALU ports the multiplies need (faster on PP-OCRv4 rec's
 * 40 x 120 x 6625 classifier). Returns 0 when a 4-row group of the reduction does
 * not fit the buffer twice (rows4 then). */
static int splat_groups(const wgk_gemm_args *g, v128_t alpha, v128_t lo, v128_t hi)
{
    const int M = g->M, N = g->N, K = g->K, kk = K > 0 ? K : 1;
    /* float16 and one-byte panels are widened into the buffer's end (panel_buffer) */
    const int room = SPLAT_FLOATS - (g->bh || g->bq ? WGK_GEMM_NR * K : 0);
    const int fit = room / (16 * kk), block = WGK_GEMM_SPLAT_BLOCK_FLOATS / (16 * kk);
    if (fit < 2)
        return 0;
    /* 4-row groups per row block: what L2 holds, or, where B is larger than the last
     * level cache holds (a tied lm_head: 113 MB), every group the buffer holds, so that
     * B streams from memory fewer times (each row block reads all of it). */
    const int streams = (size_t)K * (size_t)N * 4 > GEMM_B_CACHED_BYTES;
    const int per = streams ? fit : block >= 2 ? block : 2;
    const int plain = g->alpha == 1.0f && !g->bias && !g->res && g->min == -__builtin_inff() &&
                      g->max == __builtin_inff();
    float *const a_splat = g->splat ? g->splat : wgk_gemm_splat_buffer();
    for (int m0 = 0; m0 < M; m0 += 4 * per) {
        const int groups = (M - m0 + 3) / 4 < per ? (M - m0 + 3) / 4 : per;
        for (int i = 0; i < groups; i++)
            splat_rows(g, m0 + 4 * i, a_splat + (size_t)i * 16 * K);
        for (int n = 0; n < N; n += WGK_GEMM_NR) {
            const float *b = panel_f32(g, n / WGK_GEMM_NR);
            const int nc = N - n < WGK_GEMM_NR ? N - n : WGK_GEMM_NR;
            for (int i = 0; i < groups; i++) {
                const int m = m0 + 4 * i, mr = M - m < 4 ? M - m : 4;
                wgk_f32_conv_ukernel_splat(mr, nc, K, a_splat + (size_t)i * 16 * K, b, (size_t)K * WGK_GEMM_NR,
                                           g->c + (ptrdiff_t)m * g->ldc + n, g->ldc, NULL, NULL, 0,
                                           -__builtin_inff(), __builtin_inff(), 0);
                if (!plain)
                    epilogue_tile(g, m, mr, n, nc, alpha, lo, hi);
            }
        }
        act_rows(g, m0, m0 + 4 * groups < M ? m0 + 4 * groups : M);
    }
    return 1;
}

void wgk_f32_gemm_pb(const wgk_gemm_args *g)
{
    const int M = g->M, N = g->N, K = g->K;
    const v128_t alpha = wasm_f32x4_splat(g->alpha);
    const v128_t lo = wasm_f32x4_splat(g->min), hi = wasm_f32x4_splat(g->max);
    if (M < 4) {
        few_rows(g, alpha, lo, hi);
        return;
    }
    if (splat_groups(g, alpha, lo, hi))
        return;
    const int mb = block_rows(K);
    for (int m0 = 0; m0 < M; m0 += mb) {
        const int me = M - m0 < mb ? M : m0 + mb;
        for (int n = 0; n < N; n += WGK_GEMM_NR) {
            const float *b = panel_f32(g, n / WGK_GEMM_NR);
            int m = m0;
            for (; m + 4 <= me; m += 4)
                rows4(g, m, n, b, alpha, lo, hi);
            for (; m < me; m++)
                row1(g, g->a + (ptrdiff_t)m * g->a_m, m, n, b, alpha, lo, hi);
        }
        act_rows(g, m0, me);
    }
}

#else

void wgk_f32_gemm_pb(const wgk_gemm_args *g)
{
    const int M = g->M, N = g->N, K = g->K;
    const int mb = block_rows(K);
    for (int m0 = 0; m0 < M; m0 += mb) {
        const int me = M - m0 < mb ? M : m0 + mb;
        for (int n = 0; n < N; n += WGK_GEMM_NR) {
            const float *bp = panel_f32(g, n / WGK_GEMM_NR);
            for (int m = m0; m < me; m++) {
                const float *a = g->a + (ptrdiff_t)m * g->a_m;
                float acc[WGK_GEMM_NR] = {0};
                const float *b = bp;
                for (int k = 0; k < K; k++, b += WGK_GEMM_NR)
                    for (int j = 0; j < WGK_GEMM_NR; j++)
                        acc[j] += a[k] * b[j];
                for (int j = 0; j < WGK_GEMM_NR && n + j < N; j++)
                    g->c[(ptrdiff_t)m * g->ldc + n + j] = wgk_gemm_epilogue1(g, m, n + j, acc[j]);
            }
        }
        act_rows(g, m0, me);
    }
}

#endif

