/*
 * vmath_internal.h: the polynomials behind wgk_vmath.h, in a SIMD128 form (4 lanes) and a
 * scalar form with the same coefficients and evaluation order. Only for kernels/math.
 *
 * erf (fitted for this project by weighted least squares on Chebyshev nodes, the
 * coefficients rounded to float, the float evaluation then measured):
 *   |x| <  T = 0.875:  erf x = x P(x^2), P of degree 5 (fit error 2e-8 relative)
 *   |x| >= T:          erfc |x| = e^Q(|x|) for |x| <= 4, Q of degree 9 in |x| fitted to
 *                      ln erfc (relative error of erfc 3e-6, so erf = 1 - erfc is within
 *                      1.2 ulp); erfc 4 = 1.5e-8 already rounds 1 - erfc to 1.
 */
#ifndef WGK_VMATH_INTERNAL_H
#define WGK_VMATH_INTERNAL_H

#include "wgk_math.h"
#include "wgk_vmath.h"

#define WGK_ERF_T 0.875f

/* P and Q, lowest degree first. */
static const float wgk__erf_p[6] = {1.128379107e+00f, -3.761254847e-01f, 1.128244102e-01f,
                                    -2.679094858e-02f, 5.031424575e-03f, -6.199344643e-04f};
static const float wgk__erfc_q[10] = {2.610927622e-04f, -1.129964352e+00f, -6.323548555e-01f,
                                      -1.094916984e-01f, 2.601232193e-02f, -4.575458355e-03f,
                                      5.429760204e-04f, -3.619704512e-05f, 6.085923019e-07f,
                                      4.660596531e-08f};

/* sqrt(2/pi) and sqrt(2/pi) * 0.044715: the tanh GELU's argument u = x (C1 + C3 x^2). */
#define WGK_GELU_C1 0.7978845608f
#define WGK_GELU_C3 0.03567740814f

/* ---- scalar ---- */

/* c[0] + t c[1] + ... + t^(n-1) c[n-1] by Horner's rule, from the highest degree down:
 * one multiply and one add a step, the order the SIMD form (wgk__horner4) keeps. */
WGK_INLINE float wgk__horner(const float *c, int n, float t)
{
    float p = c[n - 1];
#pragma clang loop unroll(full) /* constant coefficients: a straight chain from -O1 on */
    for (int i = n - 2; i >= 0; i--)
        p = p * t + c[i];
    return p;
}

/* x P(x^2): erf x for |x| < T. */
WGK_INLINE float wgk__erf_small(float x)
{
    return x * wgk__horner(wgk__erf_p, 6, x * x);
}

/* erfc a for T <= a; 0 above 4 (erfc 4 = 1.5e-8), NaN for NaN. */
WGK_INLINE float wgk__erfc_big(float a)
{
    if (a > 4.0f)
        return 0.0f;
    return wgk_expf(wgk__horner(wgk__erfc_q, 10, a));
}

#ifdef __wasm_simd128__
/* ---- SIMD128 ---- */

#define WGK__V(c) wasm_f32x4_splat(c)
#define WGK__STEP(p, t, c) wasm_f32x4_add(wasm_f32x4_mul((p), (t)), WGK__V(c))

/* wgk__horner on four lanes. */
WGK_INLINE v128_t wgk__horner4(const float *c, int n, v128_t t)
{
    v128_t p = WGK__V(c[n - 1]);
#pragma clang loop unroll(full) /* constant coefficients: a straight chain from -O1 on */
    for (int i = n - 2; i >= 0; i--)
        p = WGK__STEP(p, t, c[i]);
    return p;
}

WGK_INLINE v128_t wgk__erf_small4(v128_t x)
{
    return wasm_f32x4_mul(x, wgk__horner4(wgk__erf_p, 6, wasm_f32x4_mul(x, x)));
}

/* erfc a for lanes T <= a (other lanes: garbage the caller discards); 0 above 4. */
WGK_INLINE v128_t wgk__erfc_big4(v128_t a)
{
    /* pmin(a, 4) keeps a NaN lane NaN (pmin(x, y) = y < x ? y : x). */
    const v128_t q = wgk__horner4(wgk__erfc_q, 10, wasm_f32x4_pmin(a, WGK__V(4.0f)));
    /* q is in [-18, -1.4] here: wgk_exp4's clamps are never reached. */
    return wasm_v128_andnot(wgk_exp4(q), wasm_f32x4_gt(a, WGK__V(4.0f)));
}

/* e^x over the whole float range: e^r from wgk_exp4_reduced, then 2^k as two factors
 * 2^k1 2^k2 (k1 = k >> 1), each a normal float for every k in [-150, 128], so that the
 * last multiply rounds once into the subnormals or overflows to inf. */
WGK_INLINE v128_t wgk__exp4_full(v128_t x)
{
    x = wasm_f32x4_pmin(wasm_f32x4_pmax(x, WGK__V(-104.0f)), WGK__V(89.0f));
    v128_t k;
    const v128_t p = wgk_exp4_reduced(x, &k);
    const v128_t ki = wasm_i32x4_trunc_sat_f32x4(k); /* a NaN k gives 0; p is NaN then */
    const v128_t k1 = wasm_i32x4_shr(ki, 1), k2 = wasm_i32x4_sub(ki, k1);
    const v128_t bias = wasm_i32x4_splat(127);
    const v128_t s1 = wasm_i32x4_shl(wasm_i32x4_add(k1, bias), 23);
    const v128_t s2 = wasm_i32x4_shl(wasm_i32x4_add(k2, bias), 23);
    return wasm_f32x4_mul(wasm_f32x4_mul(p, s1), s2);
}
#endif

#endif
