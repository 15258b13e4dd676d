/*
 * q8-conv1x1-pixlanes.c: wgk_q8_conv1x1 (wgk_qgemm.h), the pointwise (1x1, stride 1, no
 * padding) int8 convolution with output pixels in the SIMD lanes, as QDQ MobileNets and
 * EfficientNets are mostly made of. No im2col and no transposition: in NCHW a pointwise
 * convolution is already the product W[M][C] X[C][HW], so each image's x is only widened
 * (minus its zero point) and interleaved by channel pairs,
 *     xi[c/2][p][c%2] = x[c][p] - xz      (pixels padded to a multiple of 8, channels to
 *                                          even, with zeros)
 * and then, for each group of 4 output channels, i32x4.dot_i16x8_s of one vector of xi
 * (4 pixels x 2 channels) with the broadcast weight pair of each channel gives 4 pixels'
 * sums of 2 products: 8 accumulators cover 4 channels x 8 pixels. The weight pairs are
 * broadcast once per group into the scratch (plain vector loads in the inner loop). For
 * QLinearConv the sums are requantized as they leave the registers (no int32 tensor). The
 * scalar build runs the same sums in plain loops; both wrap like int32, as the ONNX
 * integer ops accumulate.
 */
#include <stdbool.h>

#include "q8-pixlanes.h"
#include "q8-requant.h"
#include "wgk_base.h"
#include "wgk_qgemm.h"

/* xi for one image (see the top). */
static void interleave(const wgk_q8_conv1x1_args *a, const uint8_t *x, int32_t z, int16_t *xi, size_t hwp)
{
    const size_t hw = (size_t)a->HW, cp = (size_t)(a->C + 1) / 2;
    for (size_t k = 0; k < cp; k++) {
        const size_t c0 = 2 * k, c1 = 2 * k + 1;
        const uint8_t *x0 = x + c0 * hw, *x1 = c1 < (size_t)a->C ? x + c1 * hw : NULL;
        int16_t *d = xi + k * hwp * 2;
        size_t p = 0;
#ifdef __wasm_simd128__
        const v128_t vz = wasm_i16x8_splat((int16_t)z);
        for (; x1 && p + 8 <= hw; p += 8) {
            const v128_t b0 = wasm_v128_load64_zero(x0 + p), b1 = wasm_v128_load64_zero(x1 + p);
            const v128_t h0 = wasm_i16x8_sub(a->xdt == 2 ? wasm_u16x8_extend_low_u8x16(b0)
                                                         : wasm_i16x8_extend_low_i8x16(b0), vz);
            const v128_t h1 = wasm_i16x8_sub(a->xdt == 2 ? wasm_u16x8_extend_low_u8x16(b1)
                                                         : wasm_i16x8_extend_low_i8x16(b1), vz);
            wasm_v128_store(d + 2 * p, wasm_i16x8_shuffle(h0, h1, 0, 8, 1, 9, 2, 10, 3, 11));
            wasm_v128_store(d + 2 * p + 8, wasm_i16x8_shuffle(h0, h1, 4, 12, 5, 13, 6, 14, 7, 15));
        }
#endif
        for (; p < hw; p++) {
            d[2 * p] = (int16_t)(wgk_qgemm_load8(x0, a->xdt, p) - z);
            d[2 * p + 1] = x1 ? (int16_t)(wgk_qgemm_load8(x1, a->xdt, p) - z) : 0;
        }
        for (; p < hwp; p++)
            d[2 * p] = d[2 * p + 1] = 0;
    }
}

void wgk_q8_pixlanes_rows4(const wgk_q8_pixlanes *j, const int16_t *xi, size_t xs, int n, int m0, int rows,
                           size_t p0, size_t np, int32_t *splat)
{
    const size_t cp = j->cp;
    wgk_q8_sink k[4];
    for (int r = 0; r < rows; r++)
        k[r] = wgk_q8_sink_of(j->y, j->yq, j->ydt, j->zy, j->sx, j->sw, j->sw_per_m, j->sy, j->deq, m0 + r,
                              ((size_t)n * (size_t)j->M + (size_t)(m0 + r)) * j->plane + p0);
    const int32_t *w = j->w + (size_t)m0 * cp;
    int32_t bias[4] = {0, 0, 0, 0};
    for (int r = 0; r < rows; r++)
        bias[r] = j->bias ? j->bias[m0 + r] : 0;
#ifdef __wasm_simd128__
    for (size_t kk = 0; kk < cp; kk++)
        for (int r = 0; r < 4; r++)
            wasm_v128_store(splat + (kk * 4 + (size_t)r) * 4, wasm_i32x4_splat(r < rows ? w[(size_t)r * cp + kk] : 0));
    for (size_t p = 0; p < np; p += 8) {
        v128_t acc[4][2];
        for (int r = 0; r < 4; r++)
            acc[r][0] = acc[r][1] = wasm_i32x4_splat(bias[r]);
        const int16_t *xp = xi + 2 * p;
        const int32_t *sp = splat;
        for (size_t kk = 0; kk < cp; kk++, xp += 2 * xs, sp += 16) {
            const v128_t x0 = wasm_v128_load(xp), x1 = wasm_v128_load(xp + 8);
            for (int r = 0; r < 4; r++) {
                const v128_t ws = wasm_v128_load(sp + 4 * r);
                acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_dot_i16x8(x0, ws));
                acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_dot_i16x8(x1, ws));
            }
        }
        for (int r = 0; r < rows; r++) {
            if (p + 8 <= np) {
                wgk_q8_sink_store8(&k[r], p, acc[r][0], acc[r][1]);
            } else {
                int32_t t[8];
                wasm_v128_store(t, acc[r][0]);
                wasm_v128_store(t + 4, acc[r][1]);
                for (size_t q = 0; p + q < np; q++)
                    wgk_q8_sink_put(&k[r], p + q, t[q]);
            }
        }
    }
#else
    (void)splat;
    for (int r = 0; r < rows; r++) {
        const int32_t *wr = w + (size_t)r * cp;
        for (size_t p = 0; p < np; p++) {
            uint32_t s = (uint32_t)bias[r];
            for (size_t kk = 0; kk < cp; kk++) {
                const int16_t *xv = xi + (kk * xs + p) * 2;
                const int32_t wv = wr[kk];
                const int32_t w0 = (int16_t)(wv & 0xffff), w1 = (int16_t)((uint32_t)wv >> 16);
                s += (uint32_t)(xv[0] * w0 + xv[1] * w1);
            }
            wgk_q8_sink_put(&k[r], p, (int32_t)s);
        }
    }
#endif
    for (int r = 0; r < rows; r++)
        wgk_q8_sink_done(&k[r]);
}

void wgk_q8_conv1x1(const wgk_q8_conv1x1_args *a)
{
    const size_t hwp = wgk_q8_conv1x1_hwp((size_t)a->HW), cp = (size_t)(a->C + 1) / 2;
    int16_t *xi = a->scratch;
    int32_t *splat = (int32_t *)(xi + cp * hwp * 2);
    const int32_t z = a->xz ? wgk_qgemm_load8(a->xz, a->xdt, 0) : 0;
    const wgk_q8_pixlanes j = {.M = a->M, .plane = (size_t)a->HW, .cp = cp, .w = a->w, .bias = a->bias,
                               .y = a->y, .yq = a->yq, .deq = &a->deq, .ydt = a->ydt, .zy = a->zy, .sx = a->sx,
                               .sw = a->sw, .sy = a->sy, .sw_per_m = a->sw_per_m};
    for (int n = 0; n < a->N; n++) {
        interleave(a, (const uint8_t *)a->x + (size_t)n * a->C * a->HW, z, xi, hwp);
        for (int m0 = 0; m0 < a->M; m0 += 4)
            wgk_q8_pixlanes_rows4(&j, xi, hwp, n, m0, a->M - m0 < 4 ? a->M - m0 : 4, 0, (size_t)a->HW, splat);
    }
}
