/*
 * test_vmath.c: the array math kernels (wgk_vmath.h) against double-precision references
 * (wgk_erf, wgk_exp from kernels/math/f64.c, relative error ~1e-14; erfc by its continued
 * fraction here), in ulps of the float-rounded reference:
 *   erf   over every 1009th float of [0, 4] (|x| >= 4 rounds to 1) and their negatives,
 *         within 3 ulp; special values exactly;
 *   exp   over every 1009th float of [-104, 104] of both signs, within 3 ulp (in the
 *         subnormals: of 2^-149), overflow to inf, underflow to 0;
 *   gelu  (both forms) over every 1009th float of [-1e30, 1e30]: within 4 ulp for x >= 0;
 *         for x < 0 relative error below 2^-16 (the erf form: erfc = e^Q loses |Q| 2^-24
 *         relative to Q's rounding, up to 18 of them at z = -4; the tanh form: u's
 *         rounding, |2u| 2^-24), or, past z = -4 where the erf form gives -0 (|gelu x| <
 *         1e-8 |x|), absolute error below 2^-24 |x|; exact special values.
 * The maxima measured are logged (wgk_vmath.h quotes them); -DSTRIDE=N changes the step.
 * Array lengths 1..11 and an unaligned start exercise the scalar tails.
 */
#include "wgk_convert.h"
#include "wgk_math.h"
#include "wgk_vmath.h"
#include "wgkt.h"

#ifndef STRIDE
#define STRIDE 1009u /* -DSTRIDE=1u: every float (hours on wasmtime) */
#endif
#define BATCH 4096
static float X[BATCH + 8], Y[BATCH + 8];

/* The spacing of floats at |f| (f finite): ulp(f). */
static double ulp_of(float f)
{
    uint32_t u = wgk__bits_f32(__builtin_fabsf(f));
    if (u >= 0x7f000000u)
        return (double)wgk__f32_bits(0x7f7fffffu) - (double)wgk__f32_bits(0x7f7ffffeu);
    return (double)wgk__f32_bits(u + 1) - (double)wgk__f32_bits(u);
}

/* |got - want| in ulps of want rounded to float. */
static double ulp_err(float got, double want)
{
    double d = (double)got - want;
    return (d < 0 ? -d : d) / ulp_of((float)want);
}

/* erfc a, a >= 0, for the GELU references: 1 - erf below 2, the continued fraction
 * erfc a = e^(-a^2) / sqrt(pi) / (a + 1/2 / (a + 1 / (a + 3/2 / (a + ...)))) above. */
static double ref_erfc(double a)
{
    if (a < 2.0)
        return 1.0 - wgk_erf(a);
    if (a > 27.0)
        return 0.0;
    double f = a;
    for (int k = 120; k >= 1; k--)
        f = a + (k * 0.5) / f;
    return wgk_exp(-a * a) / (f * 1.77245385090551602730);
}

static double ref_gelu(double x)
{
    double z = x * 0.70710678118654752440;
    double phi2 = z > 0 ? 2.0 - ref_erfc(z) : ref_erfc(-z);
    return 0.5 * x * phi2;
}

static double ref_gelu_tanh(double x)
{
    double m = -2.0 * 0.79788456080286535588 * (x + 0.044715 * x * x * x);
    return x / (1.0 + wgk_exp(m));
}

typedef void (*vfn)(float *, const float *, size_t);

/* Runs fn over X[0..n) into Y. */
static void apply(vfn fn, size_t n) { fn(Y, X, n); }

static double max_err;
static float worst_x;

static void note(double e, float x)
{
    if (e > max_err) {
        max_err = e;
        worst_x = x;
    }
}

static void log_max(const char *what)
{
    wgkt_log(what);
    wgkt_log(": max error ");
    wgkt_log_float((float)max_err);
    wgkt_log(" ulp at x = ");
    wgkt_log_float(worst_x);
    wgkt_log("\n");
}

/* Calls check(x, y) for fn over the floats with bits lo..hi (step STRIDE), both signs. */
static void sweep(vfn fn, uint32_t lo, uint32_t hi, void (*check)(float, float))
{
    size_t k = 0;
    for (uint64_t u = lo;; u += STRIDE) {
        int last = u > hi;
        if (!last) {
            X[k++] = wgk__f32_bits((uint32_t)u);
            X[k++] = -wgk__f32_bits((uint32_t)u);
        }
        if (k + 2 > BATCH || (last && k)) {
            apply(fn, k);
            for (size_t i = 0; i < k; i++)
                check(X[i], Y[i]);
            k = 0;
        }
        if (last)
            break;
    }
}

static int erf_bad;
static void check_erf(float x, float y)
{
    double e = ulp_err(y, wgk_erf((double)x));
    note(e, x);
    if (e > 3.0 && erf_bad++ < 5) {
        WGKT_CHECK(0, "erf within 3 ulp");
        wgkt_log("  x = ");
        wgkt_log_float(x);
        wgkt_log(" got ");
        wgkt_log_float(y);
        wgkt_log("\n");
    }
}

static int exp_bad;
static void check_exp(float x, float y)
{
    double want = wgk_exp((double)x);
    double e;
    if (want > 3.4028235677973366e38)
        e = y > 3.4028235e38f ? 0 : 1e9;
    else
        e = ulp_err(y, want);
    note(e, x);
    if (e > 3.0 && exp_bad++ < 5) {
        WGKT_CHECK(0, "exp within 3 ulp");
        wgkt_log("  x = ");
        wgkt_log_float(x);
        wgkt_log(" got ");
        wgkt_log_float(y);
        wgkt_log("\n");
    }
}

static double (*gelu_ref)(double);
static double max_rel;
static int gelu_bad;
/* x >= 0: within 4 ulp. Everywhere: relative error below 2^-16, or (x < 0, the far tail
 * where the erf form returns -0 past z = -4) absolute error below 2^-24 |x|. */
static void check_gelu(float x, float y)
{
    double want = gelu_ref((double)x);
    double d = (double)y - want, aw = want < 0 ? -want : want, ax = x < 0 ? -(double)x : (double)x;
    d = d < 0 ? -d : d;
    int ok = d <= aw * (1.0 / 65536.0) || (x < 0 && d <= ax * (1.0 / 16777216.0)) ||
             d <= 0x1p-149; /* subnormal results: one ulp of 2^-149 */
    if (x >= 0) {
        double e = ulp_err(y, want);
        note(e, x);
        ok &= e <= 4.0;
    } else if (aw > 1e-30 && x > -5.65685f && d / aw > max_rel) {
        max_rel = d / aw;
    }
    if (!ok && gelu_bad++ < 5) {
        WGKT_CHECK(0, "gelu: 4 ulp for x >= 0, else 2^-16 relative or 2^-24 |x| absolute");
        wgkt_log("  x = ");
        wgkt_log_float(x);
        wgkt_log(" got ");
        wgkt_log_float(y);
        wgkt_log(" want ");
        wgkt_log_float((float)want);
        wgkt_log("\n");
    }
}

/* fn on one value, through the SIMD body (4 copies) and the tail (length 1). */
static void one(vfn fn, float x, float *vec, float *tail)
{
    float in[5] = {x, x, x, x, x}, out[5];
    fn(out, in, 4);
    *vec = out[0];
    fn(out + 4, in + 4, 1);
    *tail = out[4];
}

static int same(float a, float b) /* bitwise, NaN with NaN */
{
    return (a != a && b != b) || wgk__bits_f32(a) == wgk__bits_f32(b);
}

static void specials(void)
{
    const float inf = INFINITY, nan = NAN;
    struct { vfn fn; float x, want; const char *what; } cases[] = {
        {wgk_f32_erf, nan, nan, "erf(NaN) = NaN"},
        {wgk_f32_erf, inf, 1.0f, "erf(inf) = 1"},
        {wgk_f32_erf, -inf, -1.0f, "erf(-inf) = -1"},
        {wgk_f32_erf, 0.0f, 0.0f, "erf(0) = 0"},
        {wgk_f32_erf, -0.0f, -0.0f, "erf(-0) = -0"},
        {wgk_f32_erf, 1e30f, 1.0f, "erf(1e30) = 1"},
        {wgk_f32_erf, -3.4028235e38f, -1.0f, "erf(-FLT_MAX) = -1"},
        {wgk_f32_exp, nan, nan, "exp(NaN) = NaN"},
        {wgk_f32_exp, inf, inf, "exp(inf) = inf"},
        {wgk_f32_exp, -inf, 0.0f, "exp(-inf) = 0"},
        {wgk_f32_exp, 89.0f, inf, "exp(89) = inf"},
        {wgk_f32_exp, -110.0f, 0.0f, "exp(-110) = 0"},
        {wgk_f32_exp, 0.0f, 1.0f, "exp(0) = 1"},
        {wgk_f32_gelu, nan, nan, "gelu(NaN) = NaN"},
        {wgk_f32_gelu, inf, inf, "gelu(inf) = inf"},
        {wgk_f32_gelu, -inf, nan, "gelu(-inf) = NaN"},
        {wgk_f32_gelu, 0.0f, 0.0f, "gelu(0) = 0"},
        {wgk_f32_gelu, 1e30f, 1e30f, "gelu(1e30) = 1e30"},
        {wgk_f32_gelu_tanh, nan, nan, "gelu_tanh(NaN) = NaN"},
        {wgk_f32_gelu_tanh, inf, inf, "gelu_tanh(inf) = inf"},
        {wgk_f32_gelu_tanh, -inf, nan, "gelu_tanh(-inf) = NaN"},
        {wgk_f32_gelu_tanh, 0.0f, 0.0f, "gelu_tanh(0) = 0"},
        {wgk_f32_gelu_tanh, 1e30f, 1e30f, "gelu_tanh(1e30) = 1e30"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float v, t;
        one(cases[i].fn, cases[i].x, &v, &t);
        WGKT_CHECK(same(v, cases[i].want), cases[i].what);
        WGKT_CHECK(same(t, cases[i].want), cases[i].what);
    }
    /* Far negative GELU: the exact value underflows; ours is +-0 or a tiny number. */
    float v, t;
    one(wgk_f32_gelu, -1e30f, &v, &t);
    WGKT_CHECK(v <= 0 && v > -1e-30f && t <= 0 && t > -1e-30f, "gelu(-1e30) ~ 0");
    one(wgk_f32_gelu_tanh, -1e30f, &v, &t);
    WGKT_CHECK(v <= 0 && v > -1e-30f && t <= 0 && t > -1e-30f, "gelu_tanh(-1e30) ~ 0");
    /* Subnormal erf: x P(x^2) = 1.128 x, rounded once. */
    one(wgk_f32_erf, wgk__f32_bits(0x00000100u), &v, &t);
    WGKT_CHECK(ulp_err(v, wgk_erf((double)wgk__f32_bits(0x00000100u))) <= 1.0,
               "erf of a subnormal");
}

/* Every length 1..11 at an odd offset gives the same values as one long call. */
static void tails(void)
{
    static float in[16], ref[16], out[16];
    uint32_t s = 77;
    vfn fns[] = {wgk_f32_erf, wgk_f32_exp, wgk_f32_gelu, wgk_f32_gelu_tanh};
    for (int f = 0; f < 4; f++)
        for (size_t n = 1; n <= 11; n++) {
            for (size_t i = 0; i < 16; i++)
                in[i] = 3.0f * wgkt_rand(&s);
            for (size_t i = 0; i < n; i++) {
                fns[f](ref + i, in + 1 + i, 1);
                out[1 + i] = 12345.0f;
            }
            out[1 + n] = 999.0f;
            fns[f](out + 1, in + 1, n);
            int ok = out[1 + n] == 999.0f;
            for (size_t i = 0; i < n; i++)
                ok &= wgkt_close(out[1 + i], ref[i], 4e-7f, 0.0f);
            WGKT_CHECK(ok, "length 1..11 at an odd offset: same values, nothing past n written");
        }
}

static void run(void)
{
    specials();
    tails();
    max_err = 0;
    sweep(wgk_f32_erf, 0, 0x40800000u /* 4.0 */, check_erf);
    log_max("erf");
    max_err = 0;
    sweep(wgk_f32_exp, 0, 0x42b20000u /* 89.0 */, check_exp);
    sweep(wgk_f32_exp, 0x42b20000u, 0x42d00000u /* 104.0 */, check_exp);
    log_max("exp");
    gelu_ref = ref_gelu;
    max_err = max_rel = 0;
    sweep(wgk_f32_gelu, 0, 0x42000000u /* 32 */, check_gelu);
    sweep(wgk_f32_gelu, 0x42000000u, 0x7149f2cau /* 1e30 */, check_gelu);
    log_max("gelu (x >= 0)");
    wgkt_log("gelu (-4 sqrt 2 < x < 0): max relative error where |gelu x| > 1e-30: ");
    wgkt_log_float((float)max_rel);
    wgkt_log("\n");
    gelu_ref = ref_gelu_tanh;
    max_err = max_rel = 0;
    sweep(wgk_f32_gelu_tanh, 0, 0x42000000u, check_gelu);
    sweep(wgk_f32_gelu_tanh, 0x42000000u, 0x7149f2cau, check_gelu);
    log_max("gelu_tanh (x >= 0)");
    wgkt_log("gelu_tanh (-4 sqrt 2 < x < 0): max relative error where |gelu x| > 1e-30: ");
    wgkt_log_float((float)max_rel);
    wgkt_log("\n");
}

WGKT_MAIN("vmath", run)
