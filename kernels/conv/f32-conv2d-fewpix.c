/*
 * f32-conv2d-fewpix.c: convolutions on small outputs with the GEMM's operands swapped
 * (wgk_conv_fewpix.h): per k slice, broadcast every group of 4 output pixels' im2col
 * values, then for each pair of 4-row weight panels run the conv micro-kernel over the
 * pixel groups, storing transposed into a channel-major copy of y (scratch); finally the
 * epilogue row by row into y.
 */
#include "wgk_conv_fewpix.h"

#define NR WGK_CONV_NR
#define KC WGK_CONV_KC

/* The im2col source: the input, or its zero-padded copy when the conv pads, with tap
 * offsets kb[k] (k = (c, kh, kw)) and pixel offsets off[p] (p = oh*OW + ow) such that
 * B(k, p) = src[kb[k] + off[p]]. */
static const float *im2col_tables(const wgk_conv2d_args *a, float *pad, int32_t *kb, int32_t *off)
{
    const float *src = a->x;
    int rs = a->W, ps = a->H * a->W;
    if (wgk_conv_packed_pad_floats(a)) {
        const int hp = wgk_conv_span(a->OH, a->SH, a->KH, a->DH), wp = wgk_conv_span(a->OW, a->SW, a->KW, a->DW);
        wgk_pad_planes(a->x, a->C, a->H, a->W, a->PT, a->PL, hp, wp, pad);
        src = pad;
        rs = wp;
        ps = hp * wp;
    }
    int k = 0;
    for (int c = 0; c < a->C; c++)
        for (int kh = 0; kh < a->KH; kh++)
            for (int kw = 0; kw < a->KW; kw++)
                kb[k++] = c * ps + kh * a->DH * rs + kw * a->DW;
    for (int oh = 0, p = 0; oh < a->OH; oh++)
        for (int ow = 0; ow < a->OW; ow++, p++)
            off[p] = oh * a->SH * rs + ow * a->SW;
    return src;
}

/* Pixel group g's broadcast slice: dst[(g*kc + k)*16 + r*4 + l] = B(k0 + k, 4g + r) for
 * every lane l (zero for pixels past P). A last group of `tail` (1 or 2) pixels is stored
 * compact instead, dst[g*kc*16 + r*kc + k] = B(k0 + k, 4g + r), for
 * wgk_f32_conv_ukernel_t_few. */
static void splat_pixels(const float *src, const int32_t *kb, const int32_t *off, int P, int tail, int k0,
                         int kc, float *dst)
{
    const int groups = (P + 3) / 4;
    if (tail) {
        float *d = dst + (size_t)(groups - 1) * kc * 16;
        for (int r = 0; r < tail; r++)
            for (int k = 0; k < kc; k++)
                d[(size_t)r * kc + k] = src[kb[k0 + k] + off[4 * (groups - 1) + r]];
    }
    for (int g = 0; g < groups - (tail > 0); g++) {
        const int p0 = 4 * g, valid = P - p0 < 4 ? P - p0 : 4;
        const int32_t *o = off + p0;
        const int run = valid == 4 && o[1] == o[0] + 1 && o[2] == o[0] + 2 && o[3] == o[0] + 3;
        float *d = dst + (size_t)g * kc * 16;
        for (int k = 0; k < kc; k++, d += 16) {
            const float *s = src + kb[k0 + k];
            float v[4];
#ifdef __wasm_simd128__
            const v128_t u = run ? wasm_v128_load(s + o[0])
                                 : wasm_f32x4_make(s[o[0]], valid > 1 ? s[o[1]] : 0.0f, valid > 2 ? s[o[2]] : 0.0f,
                                                   valid > 3 ? s[o[3]] : 0.0f);
            wasm_v128_store(d, wasm_i32x4_shuffle(u, u, 0, 0, 0, 0));
            wasm_v128_store(d + 4, wasm_i32x4_shuffle(u, u, 1, 1, 1, 1));
            wasm_v128_store(d + 8, wasm_i32x4_shuffle(u, u, 2, 2, 2, 2));
            wasm_v128_store(d + 12, wasm_i32x4_shuffle(u, u, 3, 3, 3, 3));
            (void)v;
#else
            (void)run;
            for (int r = 0; r < 4; r++)
                v[r] = r < valid ? s[o[r]] : 0.0f;
            for (int r = 0; r < 4; r++)
                for (int l = 0; l < 4; l++)
                    d[r * 4 + l] = v[r];
#endif
        }
    }
}

/* y[m][p] = post(clamp(yc[m][p] + bias[m] + res[m][p])), yc rows ldy apart; then y2. */
static void store_output(const wgk_conv2d_args *a, const float *yc, int ldy, int P, int m_lo, int m_hi)
{
    for (int m = m_lo; m < m_hi; m++) {
        const float *src = yc + (size_t)m * ldy, *res = a->res ? a->res + (size_t)m * P : NULL;
        float *yr = a->y + (size_t)m * P;
        const float b = a->bias ? a->bias[m] : 0.0f;
        int p = 0;
#ifdef __wasm_simd128__
        const v128_t bv = wasm_f32x4_splat(b), lo = wasm_f32x4_splat(a->min), hi = wasm_f32x4_splat(a->max);
        for (; p + 4 <= P; p += 4) {
            v128_t v = wasm_f32x4_add(wasm_v128_load(src + p), bv);
            if (res)
                v = wasm_f32x4_add(v, wasm_v128_load(res + p));
            wasm_v128_store(yr + p, wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi));
        }
#endif
        for (; p < P; p++) {
            float v = src[p] + b + (res ? res[p] : 0.0f);
            v = v < a->min ? a->min : v;
            yr[p] = v > a->max ? a->max : v;
        }
        if (a->post)
            wgk_f32_post(yr, (size_t)P, a->post, a->post_scale, a->post_shift);
        if (a->y2)
            wgk_conv2d_out2(a, m, yr, (size_t)P);
    }
}

void wgk_f32_conv2d_fewpix(const wgk_conv2d_args *a)
{
    const int P = a->OH * a->OW, K = a->C * a->KH * a->KW, groups = (P + 3) / 4, ldy = 4 * groups;
    const int panels = (a->M + WGK_CONV_MR - 1) / WGK_CONV_MR; /* 4-row weight panels */
    /* Pixels in a last group of 1 or 2 (0: whole groups, or 3, which the 4-row tile
     * takes with one row wasted). */
    const int tail = P % 4 == 1 || P % 4 == 2 ? P % 4 : 0;
    /* Scratch: channel-major output (8 rows per panel pair, every tile whole),
     * broadcast pixels, a last odd panel paired with zeros, padded input, offsets. */
    float *const yc = a->scratch;
    float *const splat = yc + (size_t)(panels + 1) / 2 * NR * ldy;
    float *const odd = splat + (size_t)groups * KC * 16;
    float *const pad = odd + (size_t)NR * K;
    int32_t *const kb = (int32_t *)(pad + wgk_conv_packed_pad_floats(a));
    int32_t *const off = kb + K;
    /* The share (wgk_conv_fewpix.h): output channels in weight-panel pairs [p_lo, p_hi)
     * of 8 (every output pixel). */
    int m_lo, m_hi;
    wgk_share_m(a->share, a->M, &m_lo, &m_hi);
    const int p_lo = m_lo / 8, p_hi = (m_hi + 7) / 8;
    if (p_lo >= p_hi)
        return;
    const float *src = im2col_tables(a, pad, kb, off);
    if (panels % 2) { /* the last panel and a zero one, side by side like two packed panels */
        const float *last = a->w + (size_t)(panels - 1) * K * WGK_CONV_MR;
        for (size_t i = 0; i < (size_t)K * WGK_CONV_MR; i++) {
            odd[i] = last[i];
            odd[(size_t)K * WGK_CONV_MR + i] = 0.0f;
        }
    }
    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = K - k0 < KC ? K - k0 : KC;
        splat_pixels(src, kb, off, P, tail, k0, kc, splat);
        /* One pair of weight panels' slice (kc x 8, in L1) against every pixel group. */
        for (int n = p_lo; n < p_hi; n++) {
            const float *b = (2 * n + 1 < panels ? a->w + (size_t)2 * n * K * WGK_CONV_MR : odd) +
                             (size_t)k0 * WGK_CONV_MR;
            for (int g = 0; g < groups; g++) {
                const float *ag = splat + (size_t)g * kc * 16;
                float *cg = yc + (size_t)n * NR * ldy + 4 * g;
                if (tail && g == groups - 1) /* 1 or 2 pixels: a quarter or half the work */
                    wgk_f32_conv_ukernel_t_few(tail, kc, ag, b, WGK_CONV_MR, (size_t)K * WGK_CONV_MR, cg, ldy,
                                                     k0 > 0);
                else
                    wgk_f32_conv_ukernel_splat_t(kc, ag, b, WGK_CONV_MR, (size_t)K * WGK_CONV_MR, cg, ldy, k0 > 0);
            }
        }
    }
    store_output(a, yc, ldy, P, 2 * WGK_CONV_MR * p_lo, 2 * WGK_CONV_MR * p_hi < a->M ? 2 * WGK_CONV_MR * p_hi : a->M);
}
