/*
 * q8-conv2d-fewc.c: wgk_q8_conv_fewc (wgk_qgemm.h), the int8 convolutions whose reduction
 * is short (K = C KH KW taps: a network's 3-channel first layer), with the output pixels
 * in the SIMD lanes as the pointwise kernel has them (q8-pixlanes.h), so the product is
 * already NCHW and the stores are whole vectors: per block of WGK_Q8_FEWC_PIXELS output
 * pixels, each tap k = (c, kh, kw) is gathered as a row over the block's pixels (x minus
 * its zero point; 0 in the padding, as the zero point would contribute), the rows are
 * interleaved by tap pairs, then every 4 output channels take the block's dot products.
 * Rows with column stride 1 or 2 gather 8 pixels per step (a 16-byte load, for stride 2
 * its even bytes); the edges and other strides one pixel at a time. The scalar build
 * runs the same sums; both wrap like int32.
 */
#include "q8-pixlanes.h"
#include "wgk_base.h"
#include "wgk_qgemm.h"

/* Tap (c, kh, kw)'s values at the block's pixels p0 .. p0 + np - 1 into row[0 .. np). */
static void gather_tap(const wgk_q8_conv_fewc_args *a, const uint8_t *x, int32_t z, int c, int kh, int kw,
                       size_t p0, size_t np, int16_t *row)
{
    const uint8_t *xc = x + (size_t)c * a->H * a->W;
    size_t q = 0;
    while (q < np) {
        const size_t p = p0 + q;
        const int oh = (int)(p / (size_t)a->OW), ow0 = (int)(p % (size_t)a->OW);
        const int len = (int)(np - q < (size_t)(a->OW - ow0) ? np - q : (size_t)(a->OW - ow0));
        const int ih = oh * a->SH - a->PT + kh * a->DH;
        int16_t *d = row + q;
        q += (size_t)len;
        if (ih < 0 || ih >= a->H) {
            for (int j = 0; j < len; j++)
                d[j] = 0;
            continue;
        }
        const uint8_t *src = xc + (size_t)ih * a->W;
        const int b = kw * a->DW - a->PL; /* iw = ow SW + b */
        int j = 0;
        for (; j < len && (ow0 + j) * a->SW + b < 0; j++)
            d[j] = 0;
#ifdef __wasm_simd128__
        const v128_t vz = wasm_i16x8_splat((int16_t)z);
        if (a->SW <= 2) /* 8 pixels from one 16-byte load inside the row */
            for (; j + 8 <= len && (ow0 + j) * a->SW + b + 16 <= a->W; j += 8) {
                v128_t v = wasm_v128_load(src + (ow0 + j) * a->SW + b);
                if (a->SW == 2)
                    v = wasm_i8x16_shuffle(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14);
                v = a->xdt == 2 ? wasm_u16x8_extend_low_u8x16(v) : wasm_i16x8_extend_low_i8x16(v);
                wasm_v128_store(d + j, wasm_i16x8_sub(v, vz));
            }
#endif
        for (; j < len; j++) {
            const int iw = (ow0 + j) * a->SW + b;
            d[j] = iw < a->W ? (int16_t)(wgk_qgemm_load8(src, a->xdt, (size_t)iw) - z) : 0;
        }
    }
}

/* The block's tap rows (rows[k][0 .. xs)) interleaved by pairs into xi (pairs past K and
 * pixels past np zero). */
static void interleave(const int16_t *rows, int K, size_t np, size_t xs, int16_t *xi)
{
    const size_t kp = (size_t)(K + 1) / 2;
    for (size_t k = 0; k < kp; k++) {
        const int16_t *r0 = rows + 2 * k * xs, *r1 = 2 * k + 1 < (size_t)K ? r0 + xs : NULL;
        int16_t *d = xi + 2 * k * xs;
        size_t p = 0;
#ifdef __wasm_simd128__
        for (; r1 && p + 8 <= np; p += 8) {
            const v128_t h0 = wasm_v128_load(r0 + p), h1 = wasm_v128_load(r1 + p);
            wasm_v128_store(d + 2 * p, wasm_i16x8_shuffle(h0, h1, 0, 8, 1, 9, 2, 10, 3, 11));
            wasm_v128_store(d + 2 * p + 8, wasm_i16x8_shuffle(h0, h1, 4, 12, 5, 13, 6, 14, 7, 15));
        }
#endif
        for (; p < np; p++) {
            d[2 * p] = r0[p];
            d[2 * p + 1] = r1 ? r1[p] : 0;
        }
        for (; p < xs; p++)
            d[2 * p] = d[2 * p + 1] = 0;
    }
}

void wgk_q8_conv_fewc(const wgk_q8_conv_fewc_args *a)
{
    const int K = a->C * a->KH * a->KW;
    const size_t P = WGK_Q8_FEWC_PIXELS, kp = (size_t)(K + 1) / 2, plane = (size_t)a->OH * a->OW;
    int16_t *xi = (int16_t *)(((uintptr_t)a->scratch + 15) & ~(uintptr_t)15);
    int16_t *rows = xi + 2 * kp * P;
    int32_t *splat = (int32_t *)(rows + 2 * kp * P);
    const int32_t z = a->xz ? wgk_qgemm_load8(a->xz, a->xdt, 0) : 0;
    const wgk_q8_pixlanes j = {.M = a->M, .plane = plane, .cp = kp, .w = a->w, .bias = a->bias, .y = a->y,
                               .yq = a->yq, .deq = &a->deq, .ydt = a->ydt, .zy = a->zy, .sx = a->sx,
                               .sw = a->sw, .sy = a->sy, .sw_per_m = a->sw_per_m};
    for (int n = 0; n < a->N; n++) {
        const uint8_t *x = (const uint8_t *)a->x + (size_t)n * a->C * a->H * a->W;
        for (size_t p0 = 0; p0 < plane; p0 += P) {
            const size_t np = plane - p0 < P ? plane - p0 : P, xs = (np + 7) / 8 * 8;
            for (int k = 0; k < K; k++)
                gather_tap(a, x, z, k / (a->KH * a->KW), k / a->KW % a->KH, k % a->KW, p0, np, rows + (size_t)k * xs);
            interleave(rows, K, np, xs, xi);
            for (int m0 = 0; m0 < a->M; m0 += 4)
                wgk_q8_pixlanes_rows4(&j, xi, xs, n, m0, a->M - m0 < 4 ? a->M - m0 : 4, p0, np, splat);
        }
    }
}
