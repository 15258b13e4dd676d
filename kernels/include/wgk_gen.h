/*
 * wgk_gen.h: type-generic scalar math for the loops the compiler writes inline into the
 * graph code (src/ops/gen.c). WGK_X(v) dispatches on float or double with C11 _Generic,
 * so one expression serves both element types.
 */
#ifndef WGK_GEN_H
#define WGK_GEN_H

#include "wgk_math.h"

WGK_INLINE float wgk__floorf(float x) { return __builtin_floorf(x); }
WGK_INLINE double wgk__floor(double x) { return __builtin_floor(x); }
WGK_INLINE float wgk__ceilf(float x) { return __builtin_ceilf(x); }
WGK_INLINE double wgk__ceil(double x) { return __builtin_ceil(x); }
WGK_INLINE float wgk__rintf(float x) { return __builtin_rintf(x); } /* half to even */
WGK_INLINE double wgk__rint(double x) { return __builtin_rint(x); }
WGK_INLINE float wgk__truncf(float x) { return __builtin_truncf(x); }
WGK_INLINE double wgk__trunc(double x) { return __builtin_trunc(x); }
WGK_INLINE double wgk__sqrt(double x) { return __builtin_sqrt(x); }
WGK_INLINE double wgk__fabs(double x) { return __builtin_fabs(x); }
WGK_INLINE float wgk__expf(float x) { return (float)wgk_exp(x); }
WGK_INLINE float wgk__logf(float x) { return (float)wgk_log(x); }
WGK_INLINE float wgk__erff(float x) { return wgk_erff(x); } /* polynomial, 2.3 ulp: kernels/math/erf.c */
WGK_INLINE float wgk__tanhf(float x) { return (float)wgk_tanh(x); }
/* C fmod semantics (sign of the dividend), computed in double. */
WGK_INLINE double wgk__fmod(double a, double b)
{
    if (b != b || a != a || b == 0 || __builtin_fabs(a) == __builtin_inf())
        return __builtin_nan("");
    if (__builtin_fabs(b) == __builtin_inf())
        return a;
    double r = a - b * __builtin_trunc(a / b);
    if (__builtin_fabs(r) >= __builtin_fabs(b))
        r = 0;
    return r;
}

/* Floored modulo (Mod-28 with fmod = 0 on floats): the result has the divisor's sign, a
 * zero result included; an infinite divisor of the other sign is returned as it is. */
WGK_INLINE double wgk__floormod(double a, double b)
{
    double r = wgk__fmod(a, b);
    if (r != r)
        return r;
    if (r == 0)
        return __builtin_copysign(0.0, b);
    return (r < 0) != (b < 0) ? r + b : r;
}

#define WGK_G1(x, f, d) _Generic((x), float: f, default: d)(x)
#define WGK_FLOOR(x) WGK_G1(x, wgk__floorf, wgk__floor)
#define WGK_CEIL(x) WGK_G1(x, wgk__ceilf, wgk__ceil)
#define WGK_RINT(x) WGK_G1(x, wgk__rintf, wgk__rint)
#define WGK_TRUNC(x) WGK_G1(x, wgk__truncf, wgk__trunc)
#define WGK_SQRT(x) WGK_G1(x, wgk_sqrtf, wgk__sqrt)
#define WGK_FABS(x) WGK_G1(x, wgk_fabsf, wgk__fabs)
#define WGK_EXP(x) WGK_G1(x, wgk__expf, wgk_exp)
#define WGK_LOG(x) WGK_G1(x, wgk__logf, wgk_log)
#define WGK_ERF(x) WGK_G1(x, wgk__erff, wgk_erf)
#define WGK_TANH(x) WGK_G1(x, wgk__tanhf, wgk_tanh)
#define WGK_SIN(x) WGK_G1(x, wgk_sinf, wgk_sin)
#define WGK_COS(x) WGK_G1(x, wgk_cosf, wgk_cos)
#define WGK_TAN(x) WGK_G1(x, wgk_tanf, wgk_tan)
#define WGK_ASIN(x) WGK_G1(x, wgk_asinf, wgk_asin)
#define WGK_ACOS(x) WGK_G1(x, wgk_acosf, wgk_acos)
#define WGK_ATAN(x) WGK_G1(x, wgk_atanf, wgk_atan)
#define WGK_SINH(x) WGK_G1(x, wgk_sinhf, wgk_sinh)
#define WGK_COSH(x) WGK_G1(x, wgk_coshf, wgk_cosh)
#define WGK_ASINH(x) WGK_G1(x, wgk_asinhf, wgk_asinh)
#define WGK_ACOSH(x) WGK_G1(x, wgk_acoshf, wgk_acosh)
#define WGK_ATANH(x) WGK_G1(x, wgk_atanhf, wgk_atanh)

#endif
