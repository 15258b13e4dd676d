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

/* Rows m0 .. m0 + rows - 1 of one image: sums over the channel pairs plus bias, stored
 * as int32 in y, or requantized into yq when the args ask for it. */
static void rows4(const wgk_q8_conv1x1_args *a, const int16_t *xi, size_t hwp, int m0, int rows, int32_t *y,
                  uint8_t *yq, int32_t *splat)
{
    const size_t hw = (size_t)a->HW, cp = (size_t)(a->C + 1) / 2;
    const bool u8 = a->ydt == 2;
    const double zy = yq ? (double)wgk_qgemm_load8(a->zy, a->ydt, 0) : 0.0;
    const double lo = u8 ? 0.0 : -128.0, hi = u8 ? 255.0 : 127.0;
    double mult[4] = {0, 0, 0, 0};
    for (int r = 0; yq && r < rows; r++)
        mult[r] = wgk_q8_requant_mult(a->sx, a->sw, a->sw_per_m, m0 + r, a->sy);
    const int32_t *w = a->w + (size_t)m0 * cp;
    int32_t bias[4] = {0, 0, 0, 0};
    for (int r = 0; r < rows; r++)
        bias[r] = a->bias ? a->bias[m0 + r] : 0;
#ifdef __wasm_simd128__
    for (size_t k = 0; k < cp; k++)
        for (int r = 0; r < 4; r++)
            wasm_v128_store(splat + (k * 4 + (size_t)r) * 4, wasm_i32x4_splat(r < rows ? w[(size_t)r * cp + k] : 0));
    const v128_t vm[4] = {wasm_f64x2_splat(mult[0]), wasm_f64x2_splat(mult[1]), wasm_f64x2_splat(mult[2]),
                          wasm_f64x2_splat(mult[3])};
    const v128_t vz = wasm_f64x2_splat(zy), vlo = wasm_f64x2_splat(lo), vhi = wasm_f64x2_splat(hi);
    for (size_t p = 0; p < hwp; p += 8) {
        v128_t acc[4][2];
        for (int r = 0; r < 4; r++)
            acc[r][0] = acc[r][1] = wasm_i32x4_splat(bias[r]);
        const int16_t *xp = xi + 2 * p;
        const int32_t *sp = splat;
        for (size_t k = 0; k < cp; k++, xp += 2 * hwp, sp += 16) {
            const v128_t x0 = wasm_v128_load(xp), x1 = wasm_v128_load(xp + 8);
            for (int r = 0; r < 4; r++) {
                const v128_t ws = wasm_v128_load(sp + 4 * r);
                acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_dot_i16x8(x0, ws));
                acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_dot_i16x8(x1, ws));
            }
        }
        for (int r = 0; yq && r < rows; r++) {
            uint8_t *yr = yq + (size_t)(m0 + r) * hw + p;
            const v128_t b = wgk_q8_requant8(acc[r][0], acc[r][1], vm[r], vz, vlo, vhi, u8);
            if (p + 8 <= hw) {
                wasm_v128_store64_lane(yr, b, 0);
            } else {
                uint8_t t[16];
                wasm_v128_store(t, b);
                for (size_t q = 0; p + q < hw; q++)
                    yr[q] = t[q];
            }
        }
        for (int r = 0; !yq && r < rows; r++) {
            int32_t *yr = y + (size_t)(m0 + r) * hw + p;
            if (p + 8 <= hw) {
                wasm_v128_store(yr, acc[r][0]);
                wasm_v128_store(yr + 4, acc[r][1]);
            } else {
                int32_t t[8];
                wasm_v128_store(t, acc[r][0]);
                wasm_v128_store(t + 4, acc[r][1]);
                for (size_t q = 0; p + q < hw; q++)
                    yr[q] = t[q];
            }
        }
    }
#else
    (void)splat;
    for (int r = 0; r < rows; r++) {
        const int32_t *wr = w + (size_t)r * cp;
        int32_t *yr = yq ? NULL : y + (size_t)(m0 + r) * hw;
        for (size_t p = 0; p < hw; p++) {
            uint32_t s = (uint32_t)bias[r];
            for (size_t k = 0; k < cp; k++) {
                const int16_t *xv = xi + (k * hwp + p) * 2;
                const int32_t wv = wr[k];
                const int32_t w0 = (int16_t)(wv & 0xffff), w1 = (int16_t)((uint32_t)wv >> 16);
                s += (uint32_t)(xv[0] * w0 + xv[1] * w1);
            }
            if (yq) {
                const int32_t v = (int32_t)wgk_q8_requant1((int32_t)s, mult[r], zy, lo, hi);
                yq[(size_t)(m0 + r) * hw + p] = u8 ? (uint8_t)v : (uint8_t)(int8_t)v;
            } else {
                yr[p] = (int32_t)s;
            }
        }
    }
#endif
}

void wgk_q8_conv1x1(const wgk_q8_conv1x1_args *a)
{
    const size_t hwp = wgk_q8_conv1x1_hwp((size_t)a->HW), cp = (size_t)(a->C + 1) / 2;
    int16_t *xi = a->scratch;
    int32_t *splat = (int32_t *)(xi + cp * hwp * 2);
    const int32_t z = a->xz ? wgk_qgemm_load8(a->xz, a->xdt, 0) : 0;
    for (int n = 0; n < a->N; n++) {
        interleave(a, (const uint8_t *)a->x + (size_t)n * a->C * a->HW, z, xi, hwp);
        int32_t *y = a->yq ? NULL : a->y + (size_t)n * a->M * a->HW;
        uint8_t *yq = a->yq ? (uint8_t *)a->yq + (size_t)n * a->M * a->HW : NULL;
        for (int m0 = 0; m0 < a->M; m0 += 4)
            rows4(a, xi, hwp, m0, a->M - m0 < 4 ? a->M - m0 : 4, y, yq, splat);
    }
}
