/*
 * f32-vgelu.c: wgk_f32_gelu (erf form) and wgk_f32_gelu_tanh over arrays (wgk_vmath.h).
 *
 * Erf form: 1 + erf z (z = x / sqrt 2) is taken as 1 + z P(z^2) for |z| < T, 2 - erfc |z|
 * for z >= T and erfc |z| for z <= -T: the negative tail keeps its relative accuracy
 * instead of cancelling in 1 + erf z. erfc |z| is 0 past |z| = 4, so gelu(-inf) is
 * -inf * 0 = NaN, as the ONNX formula gives.
 * Tanh form: x/2 (1 + tanh u) = x / (1 + e^(-2u)); past -2u = 87 the factor is taken as
 * 0 (the exact value is below 1e-37 |x|), which again gives NaN for -inf.
 */
#include "vmath_internal.h"

static float gelu1(float x)
{
    float z = x * 0.70710678f, a = __builtin_fabsf(z), phi2;
    if (!(a >= WGK_ERF_T))
        phi2 = 1.0f + wgk__erf_small(z);
    else
        phi2 = z > 0 ? 2.0f - wgk__erfc_big(a) : wgk__erfc_big(a);
    return (0.5f * x) * phi2;
}

static float gelu_tanh1(float x)
{
    float m = -2.0f * (x * (WGK_GELU_C1 + WGK_GELU_C3 * (x * x)));
    float s = m > 87.0f ? 0.0f : 1.0f / (1.0f + wgk_expf(m));
    return x * s;
}

void wgk_f32_gelu(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v128_t z = wasm_f32x4_mul(v, WGK__V(0.70710678f));
        v128_t a = wasm_f32x4_abs(z);
        /* Each lane takes one of the two forms; a form no lane takes is not computed
         * (most of a transformer's activations are small): the same bits either way. */
        const v128_t use_big = wasm_f32x4_ge(a, WGK__V(WGK_ERF_T));
        v128_t phi2;
        if (!wasm_v128_any_true(use_big)) {
            phi2 = wasm_f32x4_add(WGK__V(1.0f), wgk__erf_small4(z));
        } else {
            v128_t ec = wgk__erfc_big4(a);
            v128_t big = wasm_v128_bitselect(wasm_f32x4_sub(WGK__V(2.0f), ec), ec,
                                             wasm_f32x4_gt(z, WGK__V(0.0f)));
            phi2 = wasm_i32x4_all_true(use_big)
                       ? big
                       : wasm_v128_bitselect(big, wasm_f32x4_add(WGK__V(1.0f), wgk__erf_small4(z)), use_big);
        }
        wasm_v128_store(y + i, wasm_f32x4_mul(wasm_f32x4_mul(WGK__V(0.5f), v), phi2));
    }
#endif
    for (; i < n; i++)
        y[i] = gelu1(x[i]);
}

void wgk_f32_gelu_tanh(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v128_t u = wasm_f32x4_mul(v, WGK__STEP(wasm_f32x4_mul(v, v), WGK__V(WGK_GELU_C3), WGK_GELU_C1));
        v128_t m = wasm_f32x4_mul(WGK__V(-2.0f), u);
        /* wgk_exp4 clamps m to [-87.3, 88]: below, e is tiny and s = 1; above 87, s = 0. */
        v128_t s = wasm_f32x4_div(WGK__V(1.0f), wasm_f32x4_add(WGK__V(1.0f), wgk_exp4(m)));
        s = wasm_v128_andnot(s, wasm_f32x4_gt(m, WGK__V(87.0f)));
        wasm_v128_store(y + i, wasm_f32x4_mul(v, s));
    }
#endif
    for (; i < n; i++)
        y[i] = gelu_tanh1(x[i]);
}
