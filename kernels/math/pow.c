/* pow.c: wgk_powf with the C99 special cases; the general case is e^(y ln|x|) in double. */
#include "math_internal.h"

/* 0: y is not an integer, 1: odd integer, 2: even integer. */
static int int_kind(float y)
{
    float ay = __builtin_fabsf(y);
    if (ay >= 16777216.0f) /* 2^24: every float this large is an even integer */
        return 2;
    if (__builtin_truncf(y) != y)
        return 0;
    return ((int32_t)y & 1) ? 1 : 2;
}

float wgk_powf(float x, float y)
{
    const float inf = __builtin_inff();
    if (y == 0.0f || x == 1.0f)
        return 1.0f;
    if (x != x || y != y)
        return __builtin_nanf("");
    float ax = __builtin_fabsf(x);
    if (y == inf || y == -inf) {
        if (ax == 1.0f)
            return 1.0f;
        return (ax < 1.0f) == (y < 0) ? inf : 0.0f;
    }
    int kind = int_kind(y);
    int neg = x < 0 && kind == 1; /* sign of the result */
    if (ax == 0.0f || ax == inf) {
        /* 0^y and inf^y: magnitude 0 or inf, sign from x when y is an odd integer. */
        float mag = (ax == 0.0f) == (y < 0) ? inf : 0.0f;
        int sneg = kind == 1 && __builtin_signbit(x);
        return sneg ? -mag : mag;
    }
    if (x < 0 && kind == 0)
        return __builtin_nanf("");
    double t = (double)y * wgk__log_d((double)ax);
    float r;
    if (t > 200.0)
        r = inf;
    else if (t < -200.0)
        r = 0.0f;
    else
        r = (float)wgk__exp_d(t);
    return neg ? -r : r;
}
