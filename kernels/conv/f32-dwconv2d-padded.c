/*
 * f32-dwconv2d-padded.c: depthwise 3x3, 5x5 and 7x7 (ConvNeXt) convolutions, strides 1 and 2 in each
 * direction, no dilation (wgk_conv.h, wgk_f32_dwconv2d_KxK_sHxW), SIMD128 builds. Each
 * input plane is first copied into a zero-padded plane in the scratch, so that every
 * output is an interior one: no borders, no bounds tests. Two output rows x 16 columns
 * are then computed at once in 8 accumulators; each input row's vectors are loaded once
 * for both output rows (the general kernel, f32-dwconv2d.c, loads every tap's vector for
 * one row and reloads its tap pointer and weight per tap: slow on PP-OCR's 5x5
 * layers). A last odd row is computed into a spare row, the last columns into a local
 * buffer (the padded plane has room for the reads past the row).
 *
 * Each output is bias (+ residual), then the taps in (kh, kw) order, as in
 * f32-dwconv2d.c; taps on the padding add w * 0. Then the clamp and the post-ops
 * (wgk_post4), in registers.
 */
#include "wgk_conv.h"

#ifdef __wasm_simd128__

#define NV 4              /* vectors of outputs per row and block */
#define BW (4 * NV)       /* outputs per row and block */

/* 4 outputs o.. of an input row at p (stride s: p[o*s]). */
WGK_INLINE v128_t tap4(const float *p, int o, const int s)
{
    if (s == 1)
        return wasm_v128_load(p + o);
    return wasm_i32x4_shuffle(wasm_v128_load(p + 2 * o), wasm_v128_load(p + 2 * o + 4), 0, 2, 4, 6);
}

/* acc[r*NV + j] += the K x K taps of output row r (0, 1) and vector j, columns from o:
 * output row r reads padded rows r*SH + kh from p (the first output row's first input
 * row); each of the (SH + K) input rows is loaded once for both output rows. */
WGK_INLINE void block(const float *p, int wp, const v128_t *wv, int o, v128_t *acc, const int K,
                      const int SH, const int SW)
{
    for (int ir = 0; ir < SH + K; ir++) {
        const float *pr = p + (size_t)ir * wp;
        for (int kw = 0; kw < K; kw++) {
            v128_t v[NV];
            for (int j = 0; j < NV; j++)
                v[j] = tap4(pr + kw, o + 4 * j, SW);
            for (int r = 0; r < 2; r++) {
                const int kh = ir - r * SH;
                if (kh < 0 || kh >= K)
                    continue;
                const v128_t w = wv[kh * K + kw];
                for (int j = 0; j < NV; j++)
                    acc[r * NV + j] = wasm_f32x4_add(acc[r * NV + j], wasm_f32x4_mul(w, v[j]));
            }
        }
    }
}

/* Clamp, post-ops and store of one block (2 rows x n <= BW columns from o; the
 * accumulators by value). Not inlined: its constants would otherwise stay live across
 * the tap loops, which already use 14 of the 16 vector registers, and push the
 * accumulators to the stack. */
static __attribute__((noinline)) void store_block(const wgk_conv2d_args *a, v128_t x0, v128_t x1, v128_t x2,
                                                  v128_t x3, v128_t x4, v128_t x5, v128_t x6, v128_t x7,
                                                  float *y0, float *y1, int o, int n)
{
    const v128_t lv = wasm_f32x4_splat(a->min), hv = wasm_f32x4_splat(a->max);
    const v128_t ps = wasm_f32x4_splat(a->post_scale), pt = wasm_f32x4_splat(a->post_shift);
    /* No clamp when there is none to apply (a HardSwish follows: PP-OCR's layers), 2 of
     * the ~9 epilogue operations per vector against 18 (3x3) or 50 (5x5) for the taps. */
    const int clamp = a->min > -__builtin_inff() || a->max < __builtin_inff();
    v128_t acc[2 * NV] = {x0, x1, x2, x3, x4, x5, x6, x7};
    float *const yr[2] = {y0, y1};
    if (clamp)
        for (int j = 0; j < 2 * NV; j++)
            acc[j] = wasm_f32x4_pmin(wasm_f32x4_pmax(acc[j], lv), hv);
    if (a->post == (WGK_POST_HARDSWISH | WGK_POST_AFFINE)) /* one loop per kind: no tests inside */
        for (int j = 0; j < 2 * NV; j++)
            acc[j] = wgk_post4(acc[j], WGK_POST_HARDSWISH | WGK_POST_AFFINE, ps, pt);
    else if (a->post)
        for (int j = 0; j < 2 * NV; j++)
            acc[j] = wgk_post4(acc[j], a->post, ps, pt);
    for (int r = 0; r < 2; r++) {
        if (n == BW) {
            for (int j = 0; j < NV; j++)
                wasm_v128_store(yr[r] + o + 4 * j, acc[r * NV + j]);
            continue;
        }
        float t[BW];
        for (int j = 0; j < NV; j++)
            wasm_v128_store(t + 4 * j, acc[r * NV + j]);
        for (int q = 0; q < n; q++)
            yr[r][o + q] = t[q];
    }
}

/* One plane: output rows two at a time (an odd last row's partner goes to `spare`),
 * columns BW at a time (a last partial block through a local buffer). */
WGK_INLINE void plane(const wgk_conv2d_args *a, const float *pad, int wp, const v128_t *wv, float bias,
                      float *y, const float *res, float *spare, const int K, const int SH, const int SW)
{
    const int OH = a->OH, OW = a->OW;
    const v128_t bv = wasm_f32x4_splat(bias);
    for (int oh = 0; oh < OH; oh += 2) {
        const int two = oh + 1 < OH;
        float *yr[2] = {y + (size_t)oh * OW, two ? y + (size_t)(oh + 1) * OW : spare};
        const float *rr[2] = {res ? res + (size_t)oh * OW : NULL, res && two ? res + (size_t)(oh + 1) * OW : NULL};
        const float *p = pad + (size_t)oh * SH * wp;
        for (int o = 0; o < OW; o += BW) {
            const int n = OW - o < BW ? OW - o : BW;
            v128_t acc[2 * NV];
            for (int r = 0; r < 2; r++)
                for (int j = 0; j < NV; j++) {
                    v128_t v = bv;
                    if (rr[r]) {
                        float t[4] = {0};
                        for (int q = 0; q < 4 && 4 * j + q < n; q++)
                            t[q] = rr[r][o + 4 * j + q];
                        v = wasm_f32x4_add(v, n == BW ? wasm_v128_load(rr[r] + o + 4 * j) : wasm_v128_load(t));
                    }
                    acc[r * NV + j] = v;
                }
            block(p, wp, wv, o, acc, K, SH, SW);
            store_block(a, acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7], yr[0], yr[1], o, n);
        }
    }
}

WGK_INLINE void dwconv(const wgk_conv2d_args *a, const int K, const int SH, const int SW)
{
    const int mult = a->M / a->groups, OHW = a->OH * a->OW;
    int hp, wp;
    wgk_dwconv2d_padded_dims(a, &hp, &wp);
    float *pad = a->scratch, *spare = pad + (size_t)hp * wp;
    /* The share: whole groups of output channels (each pads its input plane once). */
    int m_lo, m_hi;
    wgk_share_m(a->share, a->M, &m_lo, &m_hi);
    for (int n = 0; n < a->N; n++)
        for (int m = m_lo; m < m_hi; m++) {
            const int c = m / mult;
            if (m % mult == 0)
                wgk_pad_planes(a->x + ((size_t)n * a->C + c) * a->H * a->W, 1, a->H, a->W, a->PT, a->PL, hp, wp,
                               pad);
            v128_t wv[49];
            for (int t = 0; t < K * K; t++)
                wv[t] = wasm_f32x4_splat(a->w[(size_t)m * K * K + t]);
            const size_t o = ((size_t)n * a->M + m) * OHW;
            plane(a, pad, wp, wv, a->bias ? a->bias[m] : 0.0f, a->y + o, a->res ? a->res + o : NULL, spare,
                  K, SH, SW);
        }
}

#define DWCONV(K, SH, SW)                                                                  \
    void wgk_f32_dwconv2d_##K##x##K##_s##SH##x##SW(const wgk_conv2d_args *a)                 \
    {                                                                                      \
        dwconv(a, K, SH, SW);                                                              \
    }

/* The KxK kernel at each of the four strides 1x1, 1x2, 2x1 and 2x2. */
#define DWCONV_STRIDES(K) DWCONV(K, 1, 1) DWCONV(K, 1, 2) DWCONV(K, 2, 1) DWCONV(K, 2, 2)

DWCONV_STRIDES(3)
DWCONV_STRIDES(5)
DWCONV_STRIDES(7)

#endif
