/* math_internal.h: double-precision helpers shared by the float math functions. Only
 * for kernels/math; the float functions round their results once, from double. */
#ifndef WGK_MATH_INTERNAL_H
#define WGK_MATH_INTERNAL_H

#include "wgk_math.h"

/* e^x for |x| <= 700, relative error below 1e-15. */
double wgk__exp_d(double x);
/* ln(x) for finite x > 0 (any positive normal double), absolute error below 1e-15 * |ln x| + 1e-16. */
double wgk__log_d(double x);

WGK_INLINE uint64_t wgk__d2u(double d)
{
    uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}

WGK_INLINE double wgk__u2d(uint64_t u)
{
    double d;
    __builtin_memcpy(&d, &u, 8);
    return d;
}

#endif
