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
#include "wgk_qdeq.h"
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

/* Where one output channel's finished int32 sums go: y (ConvInteger), QLinearConv's
 * bytes yq requantized with the channel's multiplier, zero point and range, or the float
 * tail of a dynamically quantized conv (yf, wgk_qdeq.h) with its running range. */
typedef struct wgk_q8_sink {
    int32_t *y;  /* the channel's plane of y, or NULL */
    uint8_t *yq; /* the channel's plane of yq, or NULL */
    double mult, zy, lo, hi;
    bool u8;
    float *yf;        /* the channel's plane of the float y, or NULL */
    const float *res; /* the channel's plane of the residual, or NULL */
    float fs, fb, flo, fhi;
    bool fbias, fclamp;
    float *range; /* merged into by wgk_q8_sink_done, or NULL */
    float mn, mx;
#ifdef __wasm_simd128__
    v128_t vmn, vmx;
#endif
} wgk_q8_sink;

/* Channel m's sink at element `at` of the output: yf's when deq->y is given, else y's,
 * or yq's (dtype ydt, zero point zy, multiplier sx * sw[m or 0] / sy) when yq is given. */
static inline wgk_q8_sink wgk_q8_sink_of(int32_t *y, void *yq, int ydt, const void *zy, const float *sx,
                                         const float *sw, int sw_per_m, const float *sy, const wgk_q8_deq *deq,
                                         int m, size_t at)
{
    wgk_q8_sink k = {0};
    if (deq && deq->y) {
        k.yf = deq->y + at;
        k.res = deq->res ? deq->res + at : NULL;
        k.fs = deq->scale[deq->scale_per_m ? m : 0];
        k.fbias = deq->bias != NULL;
        k.fb = deq->bias ? deq->bias[m] : 0.0f;
        k.fclamp = deq->clamp != 0;
        k.flo = deq->lo;
        k.fhi = deq->hi;
        k.range = deq->range;
#ifdef __wasm_simd128__
        k.vmn = k.vmx = wasm_f32x4_splat(0.0f);
#endif
        return k;
    }
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

/* The float tail of one sum (wgk_qdeq.h's wgk_q8_deq1), its range kept. */
static inline float wgk_q8_sink_f1(wgk_q8_sink *k, size_t i, int32_t acc)
{
    float v = (float)acc * k->fs;
    if (k->fbias)
        v = v + k->fb;
    if (k->fclamp) {
        v = v < k->flo ? k->flo : v;
        v = v > k->fhi ? k->fhi : v;
    }
    if (k->res)
        v = v + k->res[i];
    k->mn = v < k->mn ? v : k->mn; /* NaN never replaces, as DynamicQuantizeLinear's scan */
    k->mx = v > k->mx ? v : k->mx;
    return v;
}

/* Element i of the sink's plane: v, v requantized, or v's float tail. */
static inline void wgk_q8_sink_put(wgk_q8_sink *k, size_t i, int32_t v)
{
    if (k->yf) {
        k->yf[i] = wgk_q8_sink_f1(k, i, v);
    } else if (k->yq) {
        const int32_t q = (int32_t)wgk_q8_requant1(v, k->mult, k->zy, k->lo, k->hi);
        k->yq[i] = k->u8 ? (uint8_t)q : (uint8_t)(int8_t)q;
    } else {
        k->y[i] = v;
    }
}

/* The channel's range merged into the shared one (after its last put or store). */
static inline void wgk_q8_sink_done(wgk_q8_sink *k)
{
    if (!k->range)
        return;
    float mn = k->mn, mx = k->mx;
#ifdef __wasm_simd128__
    float l[4], h[4];
    wasm_v128_store(l, k->vmn);
    wasm_v128_store(h, k->vmx);
    for (int j = 0; j < 4; j++) {
        mn = l[j] < mn ? l[j] : mn;
        mx = h[j] > mx ? h[j] : mx;
    }
#endif
    k->range[0] = mn < k->range[0] ? mn : k->range[0];
    k->range[1] = mx > k->range[1] ? mx : k->range[1];
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
/* 4 sums' float tail (wgk_q8_sink_f1 in the lanes), res: the residual's 4 values. */
static inline v128_t wgk_q8_sink_f4(wgk_q8_sink *k, v128_t acc, const float *res)
{
    v128_t v = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc), wasm_f32x4_splat(k->fs));
    if (k->fbias)
        v = wasm_f32x4_add(v, wasm_f32x4_splat(k->fb));
    if (k->fclamp) /* pmax(v, lo) = v < lo ? lo : v, pmin(v, hi) = hi < v ? hi : v */
        v = wasm_f32x4_pmin(wasm_f32x4_pmax(v, wasm_f32x4_splat(k->flo)), wasm_f32x4_splat(k->fhi));
    if (res)
        v = wasm_f32x4_add(v, wasm_v128_load(res));
    k->vmn = wasm_f32x4_pmin(k->vmn, v); /* v < vmn ? v : vmn: NaN lanes never replace */
    k->vmx = wasm_f32x4_pmax(k->vmx, v);
    return v;
}

/* 8 sums (o0: the first 4, o1: the next 4) into elements at .. at + 7 of the sink's plane. */
static inline void wgk_q8_sink_store8(wgk_q8_sink *k, size_t at, v128_t o0, v128_t o1)
{
    if (k->yf) {
        wasm_v128_store(k->yf + at, wgk_q8_sink_f4(k, o0, k->res ? k->res + at : NULL));
        wasm_v128_store(k->yf + at + 4, wgk_q8_sink_f4(k, o1, k->res ? k->res + at + 4 : NULL));
    } else if (k->yq) {
        wasm_v128_store64_lane(k->yq + at, wgk_q8_requant8(o0, o1, wasm_f64x2_splat(k->mult), wasm_f64x2_splat(k->zy),
                                                           wasm_f64x2_splat(k->lo), wasm_f64x2_splat(k->hi), k->u8), 0);
    } else {
        wasm_v128_store(k->y + at, o0);
        wasm_v128_store(k->y + at + 4, o1);
    }
}
#endif

#endif
