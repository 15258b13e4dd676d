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
float wgk_erff(float x);

/* f32.sqrt: correctly rounded. */
static inline float wgk_sqrtf(float x) { return __builtin_sqrtf(x); }
static inline float wgk_fabsf(float x) { return __builtin_fabsf(x); }

#endif
