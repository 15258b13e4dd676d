/*
 * f32-conv2d-winograd-f2x3s2.c: 3x3 stride-2 convolution by a Winograd-style algorithm on
 * the input's even and odd phases (wgk_winograd.h, "stride 2"). Per dimension a 2-output
 * tile reads a 5-wide window d0..d4 and
 *   y0 = w0 d0 + w1 d1 + w2 d2,   y1 = w0 d2 + w1 d3 + w2 d4:
 * the middle tap meets the odd window points alone (w1 d1, w1 d3), the outer taps are
 * F(2,2) on (d0, d2, d4) with the filter (w0, w2). So 5 products instead of 6:
 *   t = (d1, d3, d0 - d2, d2, d4 - d2),  f = (w1, w1, w0, w0 + w2, w2),
 *   y0 = p0 + p2 + p3,  y1 = p1 + p3 + p4   (p = t * f),
 * and in 2-D 25 instead of 36 per 2x2 tile and (m, c) pair (0.69x), exact in its
 * arithmetic (no fractions). The transforms for the 2x2-tile driver (winograd-out2x2.h).
 */
#include "winograd-out2x2.h"

#define NPOS 25

/* The 1-D input transform of 5 window values. */
#define T5(d0, d1, d2, d3, d4, o, os, SUB)                                                              \
    do {                                                                                                \
        (o)[0] = (d1);                                                                                  \
        (o)[os] = (d3);                                                                                 \
        (o)[2 * (os)] = SUB((d0), (d2));                                                                \
        (o)[3 * (os)] = (d2);                                                                           \
        (o)[4 * (os)] = SUB((d4), (d2));                                                                \
    } while (0)

#define FSUB(a, b) ((a) - (b))

/* One tile's 5x5 window (rows ih0.., columns iw0.. of plane x, zeros outside) -> its 25
 * transformed values at dst[xi * vx], xi = 5*i + j. */
static void load_tile(const float *x, int H, int W, int ih0, int iw0, float *dst, size_t vx)
{
    float d[25], t[25];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            const int ih = ih0 + i, iw = iw0 + j;
            d[5 * i + j] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[(size_t)ih * W + iw] : 0.0f;
        }
    for (int j = 0; j < 5; j++) /* columns: rows of t = B^T d */
        T5(d[j], d[5 + j], d[10 + j], d[15 + j], d[20 + j], t + j, 5, FSUB);
    for (int i = 0; i < 5; i++) { /* rows: (B^T d) B */
        const float *r = t + 5 * i;
        float v[5];
        T5(r[0], r[1], r[2], r[3], r[4], v, 1, FSUB);
        for (int j = 0; j < 5; j++)
            dst[(5 * i + j) * vx] = v[j];
    }
}

#ifdef __wasm_simd128__
#define VSUB wasm_f32x4_sub

/* Four horizontally adjacent tiles at once, lane k = tile k (all 5x17 input values
 * inside the image): column q of tile k is input column iw0 + 4k + q. */
static void load_tiles4(const float *x, int W, int ih0, int iw0, float *dst, size_t vx)
{
    v128_t d[25], t[25];
    for (int i = 0; i < 5; i++) {
        const float *p = x + (size_t)(ih0 + i) * W + iw0;
        const v128_t l0 = wasm_v128_load(p), l1 = wasm_v128_load(p + 4), l2 = wasm_v128_load(p + 8),
                     l3 = wasm_v128_load(p + 12), l4 = wasm_v128_load32_zero(p + 16);
        /* Transpose l0..l3 (tile k's first 4 columns in l_k), then column 4 = column 0 of
         * the next tile. */
        const v128_t a0 = wasm_i32x4_shuffle(l0, l1, 0, 4, 1, 5), a1 = wasm_i32x4_shuffle(l2, l3, 0, 4, 1, 5);
        const v128_t a2 = wasm_i32x4_shuffle(l0, l1, 2, 6, 3, 7), a3 = wasm_i32x4_shuffle(l2, l3, 2, 6, 3, 7);
        d[5 * i] = wasm_i32x4_shuffle(a0, a1, 0, 1, 4, 5);
        d[5 * i + 1] = wasm_i32x4_shuffle(a0, a1, 2, 3, 6, 7);
        d[5 * i + 2] = wasm_i32x4_shuffle(a2, a3, 0, 1, 4, 5);
        d[5 * i + 3] = wasm_i32x4_shuffle(a2, a3, 2, 3, 6, 7);
        d[5 * i + 4] = wasm_i32x4_shuffle(wasm_i32x4_shuffle(l1, l2, 0, 4, 0, 4), wasm_i32x4_shuffle(l3, l4, 0, 4, 0, 4),
                                          0, 1, 4, 5);
    }
    for (int j = 0; j < 5; j++)
        T5(d[j], d[5 + j], d[10 + j], d[15 + j], d[20 + j], t + j, 5, VSUB);
    for (int i = 0; i < 5; i++) {
        const v128_t *r = t + 5 * i;
        v128_t v[5];
        T5(r[0], r[1], r[2], r[3], r[4], v, 1, VSUB);
        for (int j = 0; j < 5; j++)
            wasm_v128_store(dst + (5 * i + j) * vx, v[j]);
    }
}

/* Output transform and epilogue of four adjacent tiles (all 2x8 outputs inside y):
 * s[xi] lane k = tile k; rows interleaved back into 8 contiguous floats. */
static void store_tiles4(const float *mm, size_t mx, float *y, const float *res, int OW, float b, float lo,
                         float hi)
{
    v128_t s[25], r[10];
    for (int xi = 0; xi < NPOS; xi++)
        s[xi] = wasm_v128_load(mm + xi * mx);
    for (int j = 0; j < 5; j++) {
        const v128_t m = s[15 + j];
        r[j] = wasm_f32x4_add(wasm_f32x4_add(s[j], s[10 + j]), m);
        r[5 + j] = wasm_f32x4_add(wasm_f32x4_add(s[5 + j], m), s[20 + j]);
    }
    const v128_t bv = wasm_f32x4_splat(b), lv = wasm_f32x4_splat(lo), hv = wasm_f32x4_splat(hi);
    for (int i = 0; i < 2; i++) {
        const v128_t *q = r + 5 * i;
        const v128_t o0 = wasm_f32x4_add(wasm_f32x4_add(q[0], q[2]), q[3]);
        const v128_t o1 = wasm_f32x4_add(wasm_f32x4_add(q[1], q[3]), q[4]);
        wgk_winograd_store_row4(o0, o1, y + (size_t)i * OW, res ? res + (size_t)i * OW : NULL, bv, lv, hv);
    }
}
#endif

/* y tile = A^T M A, A^T = [1 0 1 1 0; 0 1 0 1 1]. */
static void out_tile(const float *s, float *out)
{
    float r[10];
    for (int j = 0; j < 5; j++) {
        r[j] = s[j] + s[10 + j] + s[15 + j];
        r[5 + j] = s[5 + j] + s[15 + j] + s[20 + j];
    }
    out[0] = r[0] + r[2] + r[3];
    out[1] = r[1] + r[3] + r[4];
    out[2] = r[5] + r[7] + r[8];
    out[3] = r[6] + r[8] + r[9];
}

void wgk_f32_conv2d_winograd_f2x3s2(const wgk_conv2d_args *a)
{
    if (wgk_winograd_per_group(a, wgk_f32_conv2d_winograd_f2x3s2,
                           wgk_winograd_f2x3s2_pack_w_size((size_t)(a->M / a->groups), (size_t)(a->C / a->groups))))
        return;
    static const wino2x2 s2 = {NPOS, 4, 5, load_tile, out_tile,
#ifdef __wasm_simd128__
                               load_tiles4, store_tiles4
#endif
    };
    const int tiles = ((a->OH + 1) / 2) * ((a->OW + 1) / 2);
    wgk_winograd_out2x2_run(a, &s2, wgk_winograd_f2x3s2_block_tiles(a->C, a->M, tiles));
}
