/*
 * f32-conv2d-fewpix.c: convolutions on small outputs with the GEMM's operands swapped
 * (wgk_conv_fewpix.h): per k slice, broadcast every group of 4 output pixels' im2col
 * values, then for each 8-channel weight panel run the conv micro-kernel over the pixel
 * groups into Y^T (scratch); finally transpose Y^T into y with the epilogue.
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
 * every lane l (zero for pixels past P). */
static void splat_pixels(const float *src, const int32_t *kb, const int32_t *off, int P, int k0, int kc,
                         float *dst)
{
    const int groups = (P + 3) / 4;
    for (int g = 0; g < groups; g++) {
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

/* y[m][p] = post(clamp(yt[p][m] + bias[m] + res[m][p])): the transpose and the epilogue;
 * 4x4 blocks in SIMD builds. */
static void store_output(const wgk_conv2d_args *a, const float *yt, int mp, int P)
{
    const int M = a->M;
    int m0 = 0;
#ifdef __wasm_simd128__
    const v128_t lo = wasm_f32x4_splat(a->min), hi = wasm_f32x4_splat(a->max);
    const v128_t ps = wasm_f32x4_splat(a->post_scale), pt = wasm_f32x4_splat(a->post_shift);
    for (; m0 + 4 <= M; m0 += 4) {
        int p0 = 0;
        for (; p0 + 4 <= P; p0 += 4) {
            const float *t = yt + (size_t)p0 * mp + m0;
            const v128_t r0 = wasm_v128_load(t), r1 = wasm_v128_load(t + mp);
            const v128_t r2 = wasm_v128_load(t + 2 * mp), r3 = wasm_v128_load(t + 3 * mp);
            const v128_t u0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), u1 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
            const v128_t u2 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7), u3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
            v128_t c[4] = {wasm_i32x4_shuffle(u0, u1, 0, 1, 4, 5), wasm_i32x4_shuffle(u0, u1, 2, 3, 6, 7),
                           wasm_i32x4_shuffle(u2, u3, 0, 1, 4, 5), wasm_i32x4_shuffle(u2, u3, 2, 3, 6, 7)};
            for (int j = 0; j < 4; j++) {
                const size_t o = (size_t)(m0 + j) * P + p0;
                v128_t v = c[j];
                if (a->bias)
                    v = wasm_f32x4_add(v, wasm_f32x4_splat(a->bias[m0 + j]));
                if (a->res)
                    v = wasm_f32x4_add(v, wasm_v128_load(a->res + o));
                v = wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi);
                wasm_v128_store(a->y + o, wgk_post4(v, a->post, ps, pt));
            }
        }
        for (int j = 0; j < 4 && p0 < P; j++) { /* the last pixels of these 4 channels */
            float *yr = a->y + (size_t)(m0 + j) * P;
            for (int p = p0; p < P; p++) {
                float v = yt[(size_t)p * mp + m0 + j] + (a->bias ? a->bias[m0 + j] : 0.0f) +
                          (a->res ? a->res[(size_t)(m0 + j) * P + p] : 0.0f);
                v = v < a->min ? a->min : v;
                yr[p] = v > a->max ? a->max : v;
            }
            if (a->post)
                wgk_f32_post(yr + p0, (size_t)(P - p0), a->post, a->post_scale, a->post_shift);
        }
    }
#endif
    for (int m = m0; m < M; m++) {
        float *yr = a->y + (size_t)m * P;
        for (int p = 0; p < P; p++) {
            float v = yt[(size_t)p * mp + m] + (a->bias ? a->bias[m] : 0.0f) + (a->res ? a->res[(size_t)m * P + p] : 0.0f);
            v = v < a->min ? a->min : v;
            yr[p] = v > a->max ? a->max : v;
        }
        if (a->post)
            wgk_f32_post(yr, (size_t)P, a->post, a->post_scale, a->post_shift);
    }
}

void wgk_f32_conv2d_fewpix(const wgk_conv2d_args *a)
{
    const int P = a->OH * a->OW, K = a->C * a->KH * a->KW, groups = (P + 3) / 4;
    const int mp = (a->M + NR - 1) / NR * NR;
    const float inf = __builtin_inff();
    /* Scratch: Y^T (4*groups rows, so every tile is whole), broadcast pixels, padded
     * input, offset tables. */
    float *const yt = a->scratch;
    float *const splat = yt + (size_t)4 * groups * mp;
    float *const pad = splat + (size_t)groups * KC * 16;
    int32_t *const kb = (int32_t *)(pad + wgk_conv_packed_pad_floats(a));
    int32_t *const off = kb + K;
    const float *src = im2col_tables(a, pad, kb, off);
    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = K - k0 < KC ? K - k0 : KC;
        splat_pixels(src, kb, off, P, k0, kc, splat);
        /* One weight panel slice (kc x NR, in L1) against every pixel group. */
        for (int n = 0; n < mp / NR; n++) {
            const float *b = a->w + ((size_t)n * K + k0) * NR;
            for (int g = 0; g < groups; g++)
                wgk_f32_conv_ukernel_splat(WGK_CONV_MR, NR, kc, splat + (size_t)g * kc * 16, b, 0,
                                           yt + (size_t)4 * g * mp + (size_t)n * NR, mp, NULL, NULL, 0, -inf, inf,
                                           k0 > 0);
        }
    }
    store_output(a, yt, mp, P);
}
