/*
 * q8-requant.h: QLinearConv's requantization as the int32 sums leave an int8 kernel's
 * registers (q8-conv1x1-pixlanes.c, q8-conv2d-winograd-f2x3.c), so no int32 tensor is
 * written: sat(rint((double)acc * mult) + zy), the double arithmetic of wgk_requantize
 * (kernels/quant/quant.c), so the bytes are the same as its.
 */
#ifndef WGK_Q8_REQUANT_H
#define WGK_Q8_REQUANT_H

#include <stdbool.h>

#include "wgk_base.h"
#include "wgk_qgemm.h"

/* One sum, saturated to [lo, hi] (the output dtype's range). */
static inline double wgk_q8_requant1(int32_t acc, double mult, double zy, double lo, double hi)
{
    double v = __builtin_rint((double)acc * mult) + zy;
    return v < lo ? lo : v > hi ? hi : v;
}

/* The multiplier of output channel m, as wgk_requantize computes it (float32, in that
 * order). */
static inline double wgk_q8_requant_mult(const float *sx, const float *sw, int sw_per_m, int m, const float *sy)
{
    return (double)(sx[0] * sw[sw_per_m ? m : 0] / sy[0]);
}

/* Where one output channel's finished int32 sums go: y (ConvInteger), or QLinearConv's
 * bytes yq, requantized with the channel's multiplier, zero point and range. */
typedef struct wgk_q8_sink {
    int32_t *y;  /* the channel's plane of y, or NULL */
    uint8_t *yq; /* the channel's plane of yq, or NULL */
    double mult, zy, lo, hi;
    bool u8;
} wgk_q8_sink;

/* Channel m's sink at element `at` of the output: y's, or yq's (dtype ydt, zero point zy,
 * multiplier sx * sw[m or 0] / sy) when yq is given. */
static inline wgk_q8_sink wgk_q8_sink_of(int32_t *y, void *yq, int ydt, const void *zy, const float *sx,
                                         const float *sw, int sw_per_m, const float *sy, int m, size_t at)
{
    wgk_q8_sink k = {0};
    if (!yq) {
        k.y = y + at;
        return k;
    }
    k.yq = (uint8_t *)yq + at;
    k.u8 = ydt == 2;
    k.mult = wgk_q8_requant_mult(sx, sw, sw_per_m, m, sy);
    k.zy = (double)wgk_qgemm_load8(zy, ydt, 0);
    k.lo = k.u8 ? 0.0 : -128.0;
    k.hi = k.u8 ? 255.0 : 127.0;
    return k;
}

/* Element i of the sink's plane: v, or v requantized. */
static inline void wgk_q8_sink_put(const wgk_q8_sink *k, size_t i, int32_t v)
{
    if (k->yq) {
        const int32_t q = (int32_t)wgk_q8_requant1(v, k->mult, k->zy, k->lo, k->hi);
        k->yq[i] = k->u8 ? (uint8_t)q : (uint8_t)(int8_t)q;
    } else {
        k->y[i] = v;
    }
}

#ifdef __wasm_simd128__
/* 8 sums (acc0: the first 4, acc1: the next 4) requantized, in the low 8 bytes. */
static inline v128_t wgk_q8_requant8(v128_t acc0, v128_t acc1, v128_t vm, v128_t vz, v128_t vlo, v128_t vhi, bool u8)
{
    v128_t t[4];
    const v128_t d[4] = {wasm_f64x2_convert_low_i32x4(acc0),
                         wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(acc0, acc0, 2, 3, 0, 1)),
                         wasm_f64x2_convert_low_i32x4(acc1),
                         wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(acc1, acc1, 2, 3, 0, 1))};
    for (int j = 0; j < 4; j++) {
        const v128_t r = wasm_f64x2_add(wasm_f64x2_nearest(wasm_f64x2_mul(d[j], vm)), vz);
        t[j] = wasm_i32x4_trunc_sat_f64x2_zero(wasm_f64x2_pmin(wasm_f64x2_pmax(r, vlo), vhi));
    }
    const v128_t h = wasm_i16x8_narrow_i32x4(wasm_i32x4_shuffle(t[0], t[1], 0, 1, 4, 5),
                                             wasm_i32x4_shuffle(t[2], t[3], 0, 1, 4, 5));
    return u8 ? wasm_u8x16_narrow_i16x8(h, h) : wasm_i8x16_narrow_i16x8(h, h);
}
#endif

#endif
