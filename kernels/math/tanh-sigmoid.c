/* tanh-sigmoid.c: wgk_tanhf and wgk_sigmoidf, evaluated in double from wgk__exp_d. */
#include "math_internal.h"

float wgk_tanhf(float x)
{
    float ax = __builtin_fabsf(x);
    if (x != x)
        return x;
    if (ax < 0x1p-12f) /* tanh x = x - x^3/3: the cubic term is below half an ulp */
        return x;
    if (ax > 9.1f) /* 1 - tanh 9.1 < 2^-25: rounds to 1 */
        return x > 0 ? 1.0f : -1.0f;
    double t = wgk__exp_d(2.0 * (double)ax);
    /* (t - 1) loses at most 2^-12 relative precision in double: far below a float ulp. */
    double r = (t - 1.0) / (t + 1.0);
    return (float)(x < 0 ? -r : r);
}

float wgk_sigmoidf(float x)
{
    if (x != x)
        return x;
    if (x < -200.0f)
        return 0.0f;
    if (x > 200.0f)
        return 1.0f;
    return (float)(1.0 / (1.0 + wgk__exp_d(-(double)x)));
}
