/*
 * wgk_math.h: scalar math for kernels (no libc in the module).
 *
 * Our own implementations (range reduction + polynomial); results are within about
 * 2 ulp of the correctly rounded float over the whole float range, with IEEE special
 * values (NaN propagates, overflow gives +-inf, underflow gives 0 or a subnormal).
 * Internally some use double arithmetic, which wasm has natively.
 */
#ifndef WGK_MATH_H
#define WGK_MATH_H

#include "wgk_base.h"

float wgk_expf(float x);
float wgk_logf(float x);          /* x < 0: NaN, x == 0: -inf */
float wgk_tanhf(float x);
float wgk_sigmoidf(float x);      /* 1 / (1 + e^-x) */
float wgk_powf(float x, float y); /* C99 pow special cases */
float wgk_erff(float x);         /* within 2.3 ulp (kernels/math/erf.c) */

/* f32.sqrt: correctly rounded. */
static inline float wgk_sqrtf(float x) { return __builtin_sqrtf(x); }
static inline float wgk_fabsf(float x) { return __builtin_fabsf(x); }

/* Double precision (kernels/math/f64.c), relative error around 1e-14; the float versions
 * below round the double result once. */
double wgk_exp(double x);
double wgk_log(double x);
double wgk_sin(double x);
double wgk_cos(double x);
double wgk_tan(double x);
double wgk_asin(double x);
double wgk_acos(double x);
double wgk_atan(double x);
double wgk_sinh(double x);
double wgk_cosh(double x);
double wgk_tanh(double x);
double wgk_asinh(double x);
double wgk_acosh(double x);
double wgk_atanh(double x);
double wgk_pow(double x, double y);
double wgk_erf(double x);
float wgk_sinf(float x);
float wgk_cosf(float x);
float wgk_tanf(float x);
float wgk_asinf(float x);
float wgk_acosf(float x);
float wgk_atanf(float x);
float wgk_sinhf(float x);
float wgk_coshf(float x);
float wgk_asinhf(float x);
float wgk_acoshf(float x);
float wgk_atanhf(float x);

#endif
