/*
 * erf.c: wgk_erff. erf x = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), summed in
 * double for |x| < 4 (the largest term there is below 1e6, so cancellation costs at most
 * 6 of double's 16 digits); |erf x| rounds to 1 in float for |x| >= 4.
 */
#include "math_internal.h"

float wgk_erff(float x)
{
    if (x != x)
        return x;
    float ax = __builtin_fabsf(x);
    if (ax >= 4.0f)
        return x > 0 ? 1.0f : -1.0f;
    double d = (double)x, z = d * d;
    double term = d; /* (-1)^n x^(2n+1) / n! */
    double sum = d;
    for (int n = 1; n < 120; n++) {
        term *= -z / (double)n;
        double c = term / (double)(2 * n + 1);
        sum += c;
        if (__builtin_fabs(c) < 1e-17 * __builtin_fabs(sum))
            break;
    }
    return (float)(sum * 1.12837916709551257390); /* 2 / sqrt(pi) */
}
