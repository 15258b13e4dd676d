/*
 * test_math.c: wgk_math functions against reference values from Python's math module
 * (math_ref.h, float32-rounded), within 2 ulp; special values (NaN, inf, zero, subnormal)
 * and the C99 pow special cases exactly.
 */
#include "wgk.h"
#include "wgkt.h"

#include "math_ref.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Distance in units in the last place, over the ordered integer image of the floats;
 * 0 for two NaNs, huge for NaN against a number. */
static uint32_t ulp_dist(float a, float b)
{
    if (a != a || b != b)
        return (a != a && b != b) ? 0 : 0xffffffffu;
    int32_t ia, ib;
    __builtin_memcpy(&ia, &a, 4);
    __builtin_memcpy(&ib, &b, 4);
    ia = ia < 0 ? (int32_t)0x80000000 - ia : ia;
    ib = ib < 0 ? (int32_t)0x80000000 - ib : ib;
    int64_t d = (int64_t)ia - (int64_t)ib;
    return (uint32_t)(d < 0 ? -d : d);
}

static void check_ulp(float got, float want, uint32_t max_ulp, const char *what, float x)
{
    uint32_t d = ulp_dist(got, want);
    WGKT_CHECK(d <= max_ulp, what);
    if (d > max_ulp) {
        wgkt_log("  x = ");
        wgkt_log_float(x);
        wgkt_log(" got ");
        wgkt_log_float(got);
        wgkt_log(" want ");
        wgkt_log_float(want);
        wgkt_log(" ulp ");
        wgkt_log_int(d);
        wgkt_log("\n");
    }
}

static void unary_table(float (*fn)(float), const float (*tab)[2], size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        check_ulp(fn(tab[i][0]), tab[i][1], 2, what, tab[i][0]);
}

static void run(void)
{
    unary_table(wgk_expf, ref_exp, COUNT(ref_exp), "expf within 2 ulp");
    unary_table(wgk_logf, ref_log, COUNT(ref_log), "logf within 2 ulp");
    unary_table(wgk_tanhf, ref_tanh, COUNT(ref_tanh), "tanhf within 2 ulp");
    unary_table(wgk_sigmoidf, ref_sigmoid, COUNT(ref_sigmoid), "sigmoidf within 2 ulp");
    unary_table(wgk_erff, ref_erf, COUNT(ref_erf), "erff within 2 ulp");
    for (size_t i = 0; i < COUNT(ref_pow); i++) {
        float got = wgk_powf(ref_pow[i][0], ref_pow[i][1]);
        check_ulp(got, ref_pow[i][2], 2, "powf within 2 ulp", ref_pow[i][0]);
    }

    /* Special values. */
    WGKT_CHECK(wgk_expf(NAN) != wgk_expf(NAN), "exp(NaN) is NaN");
    WGKT_CHECK(wgk_expf(INFINITY) == INFINITY, "exp(inf) = inf");
    WGKT_CHECK(wgk_expf(-INFINITY) == 0.0f, "exp(-inf) = 0");
    WGKT_CHECK(wgk_logf(-1.0f) != wgk_logf(-1.0f), "log(-1) is NaN");
    WGKT_CHECK(wgk_logf(0.0f) == -INFINITY, "log(0) = -inf");
    WGKT_CHECK(wgk_logf(-0.0f) == -INFINITY, "log(-0) = -inf");
    WGKT_CHECK(wgk_logf(INFINITY) == INFINITY, "log(inf) = inf");
    WGKT_CHECK(wgk_logf(1.0f) == 0.0f, "log(1) = 0 exactly");
    WGKT_CHECK(wgk_tanhf(INFINITY) == 1.0f && wgk_tanhf(-INFINITY) == -1.0f, "tanh(+-inf)");
    WGKT_CHECK(wgk_tanhf(NAN) != wgk_tanhf(NAN), "tanh(NaN) is NaN");
    WGKT_CHECK(wgk_sigmoidf(INFINITY) == 1.0f && wgk_sigmoidf(-INFINITY) == 0.0f,
               "sigmoid(+-inf)");
    WGKT_CHECK(wgk_erff(INFINITY) == 1.0f && wgk_erff(-INFINITY) == -1.0f, "erf(+-inf)");
    WGKT_CHECK(wgk_powf(NAN, 0.0f) == 1.0f, "pow(NaN, 0) = 1");
    WGKT_CHECK(wgk_powf(1.0f, NAN) == 1.0f, "pow(1, NaN) = 1");
    WGKT_CHECK(wgk_powf(-8.0f, 1.0f / 3.0f) != wgk_powf(-8.0f, 1.0f / 3.0f),
               "pow(negative, non-integer) is NaN");
    WGKT_CHECK(wgk_powf(-2.0f, 3.0f) == -8.0f, "pow(-2, 3) = -8");
    WGKT_CHECK(wgk_powf(2.0f, 10.0f) == 1024.0f, "pow(2, 10) = 1024 exactly");
    WGKT_CHECK(wgk_sqrtf(2.0f) == 0x1.6a09e6p+0f, "sqrt(2) correctly rounded");
}

WGKT_MAIN("math", run)
