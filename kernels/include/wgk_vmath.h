/*
 * wgk_vmath.h: transcendental functions and GELU over arrays of float32, SIMD128 in
 * -msimd128 builds (4 lanes; the scalar tail and the --no-simd build evaluate the same
 * polynomials one element at a time). y may equal x. Errors, as kernels/tests/test_vmath.c
 * measures them against double-precision references on every 1009th float of the range
 * (about 10^6 floats per function; SIMD and scalar alike):
 *
 *   wgk_f32_erf        erf x: max 2.3 ulp (bound tested: 3); erf(+-inf) = +-1, NaN
 *                      propagates, erf(-0) = -0, subnormals within 1 ulp.
 *   wgk_f32_exp        e^x: max 1.2 ulp measured (tested: 3) for normal results; +inf
 *                      above 88.73, 0 below -103.98, subnormal results in between; NaN
 *                      propagates.
 *   wgk_f32_gelu       x/2 (1 + erf(x / sqrt 2))  (ONNX Gelu, approximate="none", and the
 *                      decomposed Div/Erf/Add/Mul/Mul chain): x >= 0 max 1.8 ulp (tested:
 *                      4); x < 0 relative error max 4.2e-6 (tested: 2^-16), and -0 past
 *                      x = -4 sqrt 2 where |gelu x| < 2^-24 |x|.
 *   wgk_f32_gelu_tanh  x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (approximate="tanh"),
 *                      as x / (1 + e^(-2u)), u the tanh argument: x >= 0 max 2.1 ulp, x < 0
 *                      relative error max 2.2e-6 (1.1e-5 far out, where u's own rounding
 *                      dominates; tested: 2^-16).
 *   Both GELUs: gelu(+inf) = +inf, gelu(-inf) = NaN (as x/2 (1 + erf) evaluates there),
 *   NaN propagates. All well inside the rtol 1e-4 / atol 1e-5 of the model tests.
 *
 *     wgk_f32_gelu(y, x, n);   // y[i] = gelu(x[i]), i < n
 */
#ifndef WGK_VMATH_H
#define WGK_VMATH_H

#include "wgk_base.h"

void wgk_f32_erf(float *y, const float *x, size_t n);
void wgk_f32_exp(float *y, const float *x, size_t n);
void wgk_f32_gelu(float *y, const float *x, size_t n);
void wgk_f32_gelu_tanh(float *y, const float *x, size_t n);

#endif
