/*
 * f64.c: double-precision elementary functions for the module (no libc), and the float
 * versions of the trigonometric/hyperbolic ones, which round the double result once.
 *
 * Accuracy target: relative error around 1e-14 over normal arguments (the ONNX tests
 * compare with rtol 1e-3, and float results round once from these). Trigonometric range
 * reduction is a three-part Cody-Waite reduction by pi/2, exact enough for |x| < 2^20.
 */
#include "math_internal.h"

#define PI 3.14159265358979323846
#define PIO2 1.57079632679489661923

WGK_INLINE int isnan_d(double x) { return x != x; }

double wgk_exp(double x)
{
    if (isnan_d(x))
        return x;
    if (x > 709.78)
        return __builtin_inf();
    if (x < -745.2)
        return 0.0;
    if (x < -700) /* subnormal results: scale in two steps */
        return wgk__exp_d(x + 100) * 3.7200759760208361e-44; /* e^-100 */
    return wgk__exp_d(x);
}

double wgk_log(double x)
{
    if (isnan_d(x) || x < 0)
        return x < 0 ? __builtin_nan("") : x;
    if (x == 0)
        return -__builtin_inf();
    if (x == __builtin_inf())
        return x;
    if (x < 2.2250738585072014e-308) /* subnormal */
        return wgk__log_d(x * 18014398509481984.0) - 37.429947750237046; /* 2^54, 54 ln 2 */
    return wgk__log_d(x);
}

/* ln(1 + x) without losing the digits of small x. */
static double log1p_d(double x)
{
    double u = 1.0 + x;
    if (u == 1.0)
        return x;
    return wgk_log(u) * x / (u - 1.0);
}

/* sin and cos of |r| <= pi/4 by their Taylor series. */
static double sin_poly(double r)
{
    double r2 = r * r, term = r, sum = r;
    for (int k = 1; k < 11; k++) {
        term *= -r2 / (double)((2 * k) * (2 * k + 1));
        sum += term;
    }
    return sum;
}

static double cos_poly(double r)
{
    double r2 = r * r, term = 1, sum = 1;
    for (int k = 1; k < 11; k++) {
        term *= -r2 / (double)((2 * k - 1) * (2 * k));
        sum += term;
    }
    return sum;
}

/* x = k * pi/2 + r with |r| <= ~pi/4; returns k mod 4. */
static int reduce_pio2(double x, double *r)
{
    double k = __builtin_rint(x * 0.63661977236758134308);
    *r = ((x - k * 1.5707963267341256e+00) - k * 6.0771005065061922e-11) - k * 2.0222662487959506e-21;
    return (int)((int64_t)k & 3);
}

double wgk_sin(double x)
{
    if (isnan_d(x) || __builtin_fabs(x) == __builtin_inf())
        return __builtin_nan("");
    double r;
    switch (reduce_pio2(x, &r)) {
    case 0: return sin_poly(r);
    case 1: return cos_poly(r);
    case 2: return -sin_poly(r);
    default: return -cos_poly(r);
    }
}

double wgk_cos(double x)
{
    if (isnan_d(x) || __builtin_fabs(x) == __builtin_inf())
        return __builtin_nan("");
    double r;
    switch (reduce_pio2(x, &r)) {
    case 0: return cos_poly(r);
    case 1: return -sin_poly(r);
    case 2: return -cos_poly(r);
    default: return sin_poly(r);
    }
}

double wgk_tan(double x)
{
    if (isnan_d(x) || __builtin_fabs(x) == __builtin_inf())
        return __builtin_nan("");
    double r;
    int q = reduce_pio2(x, &r);
    double s = sin_poly(r), c = cos_poly(r);
    return (q & 1) ? -c / s : s / c;
}

/* atan of 0 <= t <= tan(pi/8) by its series (t^2 <= 0.1716). */
static double atan_series(double t)
{
    double t2 = t * t, p = t, sum = t;
    for (int k = 1; k < 24; k++) {
        p *= -t2;
        sum += p / (double)(2 * k + 1);
    }
    return sum;
}

double wgk_atan(double x)
{
    if (isnan_d(x))
        return x;
    double a = __builtin_fabs(x), r;
    if (a == __builtin_inf())
        r = PIO2;
    else if (a > 1) {
        double b = 1 / a;
        r = b > 0.41421356237309503 ? PIO2 - (PI / 4 + atan_series((b - 1) / (b + 1)))
                                    : PIO2 - atan_series(b);
    } else if (a > 0.41421356237309503) {
        r = PI / 4 + atan_series((a - 1) / (a + 1));
    } else {
        r = atan_series(a);
    }
    return x < 0 ? -r : r;
}

double wgk_asin(double x)
{
    double a = __builtin_fabs(x);
    if (isnan_d(x) || a > 1)
        return __builtin_nan("");
    if (a == 1)
        return x < 0 ? -PIO2 : PIO2;
    return wgk_atan(x / __builtin_sqrt((1 - x) * (1 + x)));
}

double wgk_acos(double x)
{
    if (isnan_d(x) || __builtin_fabs(x) > 1)
        return __builtin_nan("");
    if (x == -1)
        return PI;
    return 2 * wgk_atan(__builtin_sqrt((1 - x) / (1 + x)));
}

double wgk_sinh(double x)
{
    double a = __builtin_fabs(x);
    if (isnan_d(x))
        return x;
    if (a < 0.5) {
        double x2 = x * x, term = x, sum = x;
        for (int k = 1; k < 10; k++) {
            term *= x2 / (double)((2 * k) * (2 * k + 1));
            sum += term;
        }
        return sum;
    }
    if (a > 710)
        return x < 0 ? -__builtin_inf() : __builtin_inf();
    double e = wgk_exp(a * 0.5); /* e^a = e * e avoids overflow near 710 */
    double r = 0.5 * e * e - 0.5 / (e * e);
    if (a > 700)
        r = 0.5 * e * e;
    return x < 0 ? -r : r;
}

double wgk_cosh(double x)
{
    double a = __builtin_fabs(x);
    if (isnan_d(x))
        return x;
    if (a > 710)
        return __builtin_inf();
    double e = wgk_exp(a * 0.5);
    return 0.5 * e * e + 0.5 / (e * e);
}

double wgk_tanh(double x)
{
    double a = __builtin_fabs(x), r;
    if (isnan_d(x))
        return x;
    if (a < 0.5)
        r = wgk_sinh(a) / wgk_cosh(a);
    else if (a > 40)
        r = 1;
    else
        r = 1 - 2 / (wgk_exp(2 * a) + 1);
    return x < 0 ? -r : r;
}

double wgk_asinh(double x)
{
    double a = __builtin_fabs(x), r;
    if (isnan_d(x) || a == __builtin_inf())
        return x;
    if (a > 1e150)
        r = wgk_log(a) + 0.69314718055994531;
    else
        r = log1p_d(a + a * a / (1 + __builtin_sqrt(1 + a * a)));
    return x < 0 ? -r : r;
}

double wgk_acosh(double x)
{
    if (isnan_d(x) || x < 1)
        return __builtin_nan("");
    if (x > 1e150)
        return wgk_log(x) + 0.69314718055994531;
    double t = x - 1;
    return log1p_d(t + __builtin_sqrt(t * (t + 2)));
}

double wgk_atanh(double x)
{
    double a = __builtin_fabs(x);
    if (isnan_d(x) || a > 1)
        return __builtin_nan("");
    if (a == 1)
        return x < 0 ? -__builtin_inf() : __builtin_inf();
    double r = 0.5 * log1p_d(2 * a / (1 - a));
    return x < 0 ? -r : r;
}

static int is_int_d(double y) { return __builtin_trunc(y) == y; }
static int is_odd_d(double y) { return is_int_d(y) && __builtin_fabs(y) < 9007199254740992.0 && ((int64_t)y & 1); }

double wgk_pow(double x, double y)
{
    if (y == 0 || x == 1)
        return 1;
    if (isnan_d(x) || isnan_d(y))
        return __builtin_nan("");
    double inf = __builtin_inf();
    if (__builtin_fabs(y) == inf) {
        double a = __builtin_fabs(x);
        if (a == 1)
            return 1;
        return (a > 1) == (y > 0) ? inf : 0;
    }
    if (x == 0) {
        int odd = is_odd_d(y);
        if (y < 0)
            return odd ? __builtin_copysign(inf, x) : inf;
        return odd ? x : 0;
    }
    if (__builtin_fabs(x) == inf) {
        int odd = is_odd_d(y);
        double r = y < 0 ? 0 : inf;
        return (x < 0 && odd) ? -r : r;
    }
    double sign = 1;
    if (x < 0) {
        if (!is_int_d(y))
            return __builtin_nan("");
        if (is_odd_d(y))
            sign = -1;
        x = -x;
    }
    /* Small integer powers exactly by repeated squaring (common in models: x^2, x^3). */
    if (is_int_d(y) && __builtin_fabs(y) <= 64) {
        int64_t n = (int64_t)__builtin_fabs(y);
        double r = 1, b = x;
        while (n) {
            if (n & 1)
                r *= b;
            b *= b;
            n >>= 1;
        }
        return sign * (y < 0 ? 1 / r : r);
    }
    return sign * wgk_exp(y * wgk_log(x));
}

/* erf: series below 2.5, continued fraction of erfc above. */
double wgk_erf(double x)
{
    double a = __builtin_fabs(x), r;
    if (isnan_d(x))
        return x;
    if (a < 2.5) {
        double x2 = a * a, term = a, sum = a;
        for (int n = 1; n < 60; n++) {
            term *= -x2 / n;
            sum += term / (2 * n + 1);
        }
        r = sum * 1.12837916709551257390;
    } else if (a > 6) {
        r = 1;
    } else {
        double f = a;
        for (int k = 80; k >= 1; k--)
            f = a + (k * 0.5) / f;
        r = 1 - wgk_exp(-a * a) / (f * 1.77245385090551602730);
    }
    return x < 0 ? -r : r;
}

float wgk_sinf(float x) { return (float)wgk_sin(x); }
float wgk_cosf(float x) { return (float)wgk_cos(x); }
float wgk_tanf(float x) { return (float)wgk_tan(x); }
float wgk_asinf(float x) { return (float)wgk_asin(x); }
float wgk_acosf(float x) { return (float)wgk_acos(x); }
float wgk_atanf(float x) { return (float)wgk_atan(x); }
float wgk_sinhf(float x) { return (float)wgk_sinh(x); }
float wgk_coshf(float x) { return (float)wgk_cosh(x); }
float wgk_asinhf(float x) { return (float)wgk_asinh(x); }
float wgk_acoshf(float x) { return (float)wgk_acosh(x); }
float wgk_atanhf(float x) { return (float)wgk_atanh(x); }
