/*
 * activation.c: Relu, LeakyRelu, Sigmoid, Tanh and Clip over contiguous float32, and the
 * conv post-ops (HardSwish, scalar affine) for the conv kernels that do not fuse them.
 *
 * The SIMD128 sigmoid and tanh use a 4-lane e^x: x = k ln2 + r (|r| <= ln2/2, ln2 split
 * so k * LN2_HI is exact), e^r by its Taylor series to degree 7 (truncation below
 * 2^-27), scaled by 2^k through the exponent bits; k is kept in [-126, 0] by only ever
 * evaluating e^-|x| with |x| <= 87. Error is a few ulp. The scalar tails call the
 * wgk_math functions.
 */
#include "wgk_conv.h"
#include "wgk_eltwise.h"
#include "wgk_math.h"

void wgk_f32_relu(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    v128_t zero = wasm_f32x4_splat(0.0f);
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(y + i, wasm_f32x4_pmax(wasm_v128_load(x + i), zero));
#endif
    for (; i < n; i++)
        y[i] = x[i] < 0.0f ? 0.0f : x[i]; /* NaN stays NaN, like max(x, 0) */
}

void wgk_f32_leaky_relu(float *y, const float *x, size_t n, float alpha)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    v128_t va = wasm_f32x4_splat(alpha), zero = wasm_f32x4_splat(0.0f);
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v128_t neg = wasm_f32x4_lt(v, zero);
        wasm_v128_store(y + i, wasm_v128_bitselect(wasm_f32x4_mul(v, va), v, neg));
    }
#endif
    for (; i < n; i++)
        y[i] = x[i] < 0.0f ? x[i] * alpha : x[i];
}

void wgk_f32_clip(float *y, const float *x, size_t n, float lo, float hi)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    /* pmax(v, lo) = v < lo ? lo : v, so a NaN v stays NaN (likewise pmin). */
    v128_t vlo = wasm_f32x4_splat(lo), vhi = wasm_f32x4_splat(hi);
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v = wasm_f32x4_pmax(v, vlo);
        v = wasm_f32x4_pmin(v, vhi);
        wasm_v128_store(y + i, v);
    }
#endif
    for (; i < n; i++) {
        float v = x[i];
        v = v < lo ? lo : v;
        y[i] = v > hi ? hi : v;
    }
}

#ifdef __wasm_simd128__
/* e^-a for lanes a in [0, 87] (callers clamp). */
WGK_INLINE v128_t exp_neg(v128_t a)
{
    return wgk_exp4(wasm_f32x4_neg(a));
}
#endif

void wgk_f32_sigmoid(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    /* e = e^-|x|; sigmoid = 1/(1+e) for x >= 0, e/(1+e) for x < 0 (no overflow). */
    v128_t one = wasm_f32x4_splat(1.0f), lim = wasm_f32x4_splat(87.0f);
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v128_t a = wasm_f32x4_abs(v);
        /* e^-|x| underflows past 87: take it as 0 (the result is then below 2^-125). */
        v128_t e = wasm_v128_andnot(exp_neg(wasm_f32x4_pmin(lim, a)), wasm_f32x4_gt(a, lim));
        v128_t d = wasm_f32x4_add(one, e);
        v128_t pos = wasm_f32x4_div(one, d), neg = wasm_f32x4_div(e, d);
        v128_t r = wasm_v128_bitselect(neg, pos, wasm_f32x4_lt(v, wasm_f32x4_splat(0.0f)));
        /* NaN lanes: pmin(lim, NaN) gave lim; put the NaN back. */
        r = wasm_v128_bitselect(v, r, wasm_f32x4_ne(v, v));
        wasm_v128_store(y + i, r);
    }
#endif
    for (; i < n; i++)
        y[i] = wgk_sigmoidf(x[i]);
}

void wgk_f32_tanh(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    /* |x| >= 0.5: 1 - 2/(1 + e^2|x|) = (1 - e)/(1 + e) with e = e^-2|x|.
     * |x| < 0.5: the odd Taylor series to x^17 (next term below 1e-9 relative). */
    v128_t one = wasm_f32x4_splat(1.0f), lim = wasm_f32x4_splat(43.0f);
    v128_t signbit = wasm_i32x4_splat((int32_t)0x80000000u);
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v128_t a = wasm_f32x4_abs(v);
        v128_t e = exp_neg(wasm_f32x4_add(wasm_f32x4_pmin(lim, a), wasm_f32x4_pmin(lim, a)));
        v128_t big = wasm_f32x4_div(wasm_f32x4_sub(one, e), wasm_f32x4_add(one, e));
        v128_t z = wasm_f32x4_mul(a, a);
        v128_t p = wasm_f32x4_splat(6404582.0f / 10854718875.0f);
        p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(-929569.0f / 638512875.0f));
        p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(21844.0f / 6081075.0f));
        p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(-1382.0f / 155925.0f));
        p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(62.0f / 2835.0f));
        p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(-17.0f / 315.0f));
        p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(2.0f / 15.0f));
        p = wasm_f32x4_add(wasm_f32x4_mul(p, z), wasm_f32x4_splat(-1.0f / 3.0f));
        v128_t small = wasm_f32x4_add(a, wasm_f32x4_mul(wasm_f32x4_mul(p, z), a));
        v128_t r = wasm_v128_bitselect(small, big, wasm_f32x4_lt(a, wasm_f32x4_splat(0.5f)));
        r = wasm_v128_or(r, wasm_v128_and(v, signbit)); /* tanh is odd */
        r = wasm_v128_bitselect(v, r, wasm_f32x4_ne(v, v));
        wasm_v128_store(y + i, r);
    }
#endif
    for (; i < n; i++)
        y[i] = wgk_tanhf(x[i]);
}

/* The conv post-ops (wgk_conv.h): HardSwish as ONNX defines it (alpha 1/6, beta 1/2),
 * then y * scale + shift; the clamp keeps NaN, like the HardSwish operator's loop. */
void wgk_f32_post(float *y, size_t n, int post, float scale, float shift)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    const v128_t s = wasm_f32x4_splat(scale), t = wasm_f32x4_splat(shift);
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(y + i, wgk_post4(wasm_v128_load(y + i), post, s, t));
#endif
    for (; i < n; i++) {
        float v = y[i];
        if (post & WGK_POST_HARDSWISH) {
            const float u = 1.0f / 6.0f * v + 0.5f;
            v = v * (u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u);
        }
        if (post & WGK_POST_AFFINE)
            v = v * scale + shift;
        y[i] = v;
    }
}
