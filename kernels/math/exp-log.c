/*
 * exp-log.c: double-precision e^x and ln(x) (range reduction + polynomial), and the float
 * functions wgk_expf / wgk_logf built on them.
 *
 * exp: x = k ln2 + r with |r| <= ln2/2 (ln2 split in two so k*LN2_HI is exact), e^r by its
 * Taylor series to degree 13 (truncation < 5e-18), then scaled by 2^k through the exponent
 * bits. log: x = 2^e m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s), s = (m-1)/(m+1),
 * |s| <= 0.172, odd series to s^23.
 */
#include "math_internal.h"

#define LN2_HI 6.93147180369123816490e-01 /* low 32 bits zero: k * LN2_HI is exact */
#define LN2_LO 1.90821492927058770002e-10
#define INV_LN2 1.44269504088896338700e+00

double wgk__exp_d(double x)
{
    double k = __builtin_rint(x * INV_LN2);
    double r = (x - k * LN2_HI) - k * LN2_LO;
    /* Taylor coefficients 1/n!, evaluated by Horner from degree 13 down. */
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    /* 2^k in two halves so that k down to -1074*2 and up to 1023*2 stay representable. */
    int ki = (int)k;
    int k1 = ki / 2, k2 = ki - k1;
    double s1 = wgk__u2d((uint64_t)(k1 + 1023) << 52);
    double s2 = wgk__u2d((uint64_t)(k2 + 1023) << 52);
    return p * s1 * s2;
}

double wgk__log_d(double x)
{
    uint64_t u = wgk__d2u(x);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e == -1023) { /* subnormal double: normalise */
        x *= 18014398509481984.0; /* 2^54 */
        u = wgk__d2u(x);
        e = (int)((u >> 52) & 0x7ff) - 1023 - 54;
    }
    double m = wgk__u2d((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull); /* [1, 2) */
    if (m > 1.41421356237309504880) {
        m *= 0.5;
        e++;
    }
    double f = m - 1.0; /* exact */
    double s = f / (2.0 + f);
    double z = s * s;
    double p = 1.0 / 23.0;
    p = p * z + 1.0 / 21.0;
    p = p * z + 1.0 / 19.0;
    p = p * z + 1.0 / 17.0;
    p = p * z + 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z + 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z + 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z + 1.0 / 3.0;
    /* ln m = 2s + 2s z p, written so the big term 2s is added last. */
    double lm = 2.0 * s + 2.0 * s * z * p;
    return (double)e * LN2_HI + ((double)e * LN2_LO + lm);
}

float wgk_expf(float x)
{
    if (x != x)
        return x;
    if (x > 89.0f)
        return __builtin_inff();
    if (x < -104.0f)
        return 0.0f;
    return (float)wgk__exp_d((double)x);
}

float wgk_logf(float x)
{
    if (x != x)
        return x;
    if (x < 0.0f)
        return __builtin_nanf("");
    if (x == 0.0f)
        return -__builtin_inff();
    if (x == __builtin_inff())
        return x;
    return (float)wgk__log_d((double)x);
}
