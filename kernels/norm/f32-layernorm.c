/*
 * f32-layernorm.c: wgk_f32_layernorm and wgk_f32_rmsnorm (wgk_norm.h).
 *
 * One read of the row for its statistics: sum x and sum x^2 accumulated in double
 * (f64x2 lanes in SIMD builds), var = E[x^2] - mean^2. In double that difference is
 * exact to 1e-16 mean^2 / var relative, so no second pass over the row is needed for
 * any data whose mean is within 10^4 standard deviations. Then one pass writes
 * y = ((x - m) - dm) r gamma + beta in float, m = the float nearest the mean and dm the
 * rest of it, so a large mean does not cost precision in x - mean.
 */
#include "wgk_math.h"
#include "wgk_norm.h"

/* sum x[i] and sum x[i]^2 over n floats, in double. */
static void moments(const float *x, int n, double *s1, double *s2)
{
    double a = 0, b = 0;
    int i = 0;
#ifdef __wasm_simd128__
    v128_t sa = wasm_f64x2_splat(0), sb = sa, sc = sa, sd = sa;
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v128_t lo = wasm_f64x2_promote_low_f32x4(v);
        v128_t hi = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
        sa = wasm_f64x2_add(sa, lo);
        sc = wasm_f64x2_add(sc, hi);
        sb = wasm_f64x2_add(sb, wasm_f64x2_mul(lo, lo));
        sd = wasm_f64x2_add(sd, wasm_f64x2_mul(hi, hi));
    }
    sa = wasm_f64x2_add(sa, sc);
    sb = wasm_f64x2_add(sb, sd);
    a = wasm_f64x2_extract_lane(sa, 0) + wasm_f64x2_extract_lane(sa, 1);
    b = wasm_f64x2_extract_lane(sb, 0) + wasm_f64x2_extract_lane(sb, 1);
#endif
    for (; i < n; i++) {
        double v = x[i];
        a += v;
        b += v * v;
    }
    *s1 = a;
    *s2 = b;
}

/* y[i] = ((x[i] - m) - dm) * r * g[i] (+ b[i]) */
static void affine(const float *x, const float *g, const float *b, float *y, int n, float m,
                   float dm, float r)
{
    int i = 0;
#ifdef __wasm_simd128__
    const v128_t vm = wasm_f32x4_splat(m), vd = wasm_f32x4_splat(dm), vr = wasm_f32x4_splat(r);
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_f32x4_sub(wasm_f32x4_sub(wasm_v128_load(x + i), vm), vd);
        v = wasm_f32x4_mul(wasm_f32x4_mul(v, vr), wasm_v128_load(g + i));
        if (b)
            v = wasm_f32x4_add(v, wasm_v128_load(b + i));
        wasm_v128_store(y + i, v);
    }
#endif
    for (; i < n; i++) {
        float v = ((x[i] - m) - dm) * r * g[i];
        y[i] = b ? v + b[i] : v;
    }
}

void wgk_f32_layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                       int n, float eps, float *mean, float *invstd)
{
    for (int o = 0; o < rows; o++) {
        const float *xr = x + (size_t)o * n;
        double s1, s2;
        moments(xr, n, &s1, &s2);
        const double m = s1 / n;
        double v = s2 / n - m * m;
        v = v < 0 ? 0 : v; /* rounding can take a constant row just below 0 */
        const double r = 1.0 / __builtin_sqrt(v + (double)eps);
        const float fm = (float)m;
        if (mean)
            mean[o] = fm;
        if (invstd)
            invstd[o] = (float)r;
        affine(xr, gamma, beta, y + (size_t)o * n, n, fm, (float)(m - (double)fm), (float)r);
    }
}

void wgk_f32_rmsnorm(const float *x, const float *gamma, float *y, int rows, int n, float eps)
{
    for (int o = 0; o < rows; o++) {
        const float *xr = x + (size_t)o * n;
        double s1, s2;
        moments(xr, n, &s1, &s2);
        const double r = 1.0 / __builtin_sqrt(s2 / n + (double)eps);
        affine(xr, gamma, NULL, y + (size_t)o * n, n, 0.0f, 0.0f, (float)r);
    }
}
