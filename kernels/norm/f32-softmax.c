/*
 * f32-softmax.c: numerically stable softmax (subtract the max) along one axis.
 *
 * SIMD128 builds vectorise along the axis when it is the innermost one (inner == 1: the
 * usual case, e.g. over a vocabulary) and across `inner` otherwise, with wgk_exp4
 * (wgk_base.h); its input clamp at -87.3 only turns e^-100 into 1e-38, which no sum
 * notices. NaN stays NaN, as in the scalar path.
 *
 * Terms more than 64 below the maximum are exactly 0 (their true share is under e^-64,
 * 1.6e-28): otherwise e^-87 and its product with 1/sum are subnormal, and x86 computes
 * with subnormal operands in microcode assists, which made a softmax whose logits spread
 * widely several times slower in V8.
 */
#include "wgk_math.h"
#include "wgk_norm.h"

#define ZERO_BELOW (-64.0f)

/* e^d, or 0 when d < ZERO_BELOW (NaN stays NaN). */
static inline float exp_or_zero(float d)
{
    return d < ZERO_BELOW ? 0.0f : wgk_expf(d);
}

#if defined(__wasm_simd128__)

WGK_INLINE v128_t exp4_or_zero(v128_t d)
{
    return wasm_v128_andnot(wgk_exp4(d), wasm_f32x4_lt(d, wasm_f32x4_splat(ZERO_BELOW)));
}

WGK_INLINE float hmax(v128_t v)
{
    v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    return wasm_f32x4_extract_lane(v, 0);
}

WGK_INLINE float hsum(v128_t v)
{
    v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    return wasm_f32x4_extract_lane(v, 0);
}

/* One contiguous row of n values. */
static void row(const float *x, float *y, int n)
{
    v128_t mv = wasm_f32x4_splat(-__builtin_inff());
    int i = 0;
    for (; i + 4 <= n; i += 4)
        mv = wasm_f32x4_pmax(mv, wasm_v128_load(x + i));
    float m = hmax(mv);
    for (; i < n; i++)
        m = x[i] > m ? x[i] : m;
    const v128_t m4 = wasm_f32x4_splat(m);
    v128_t sv = wasm_f32x4_splat(0.0f);
    for (i = 0; i + 4 <= n; i += 4) {
        const v128_t e = exp4_or_zero(wasm_f32x4_sub(wasm_v128_load(x + i), m4));
        wasm_v128_store(y + i, e);
        sv = wasm_f32x4_add(sv, e);
    }
    float s = hsum(sv);
    for (; i < n; i++) {
        y[i] = exp_or_zero(x[i] - m);
        s += y[i];
    }
    const float r = 1.0f / s;
    const v128_t r4 = wasm_f32x4_splat(r);
    for (i = 0; i + 4 <= n; i += 4)
        wasm_v128_store(y + i, wasm_f32x4_mul(wasm_v128_load(y + i), r4));
    for (; i < n; i++)
        y[i] *= r;
}

/* Four adjacent columns j..j+3 of an [n][inner] block, at once. */
static void columns4(const float *x, float *y, int n, int inner)
{
    v128_t m = wasm_f32x4_splat(-__builtin_inff());
    for (int i = 0; i < n; i++)
        m = wasm_f32x4_pmax(m, wasm_v128_load(x + (size_t)i * inner));
    v128_t s = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < n; i++) {
        const v128_t e = exp4_or_zero(wasm_f32x4_sub(wasm_v128_load(x + (size_t)i * inner), m));
        wasm_v128_store(y + (size_t)i * inner, e);
        s = wasm_f32x4_add(s, e);
    }
    const v128_t r = wasm_f32x4_div(wasm_f32x4_splat(1.0f), s);
    for (int i = 0; i < n; i++)
        wasm_v128_store(y + (size_t)i * inner, wasm_f32x4_mul(wasm_v128_load(y + (size_t)i * inner), r));
}

#endif

/* Column j of an [n][inner] block (stride inner), scalar. */
static void column(const float *xp, float *yp, int n, int inner)
{
    float m = -__builtin_inff();
    for (int i = 0; i < n; i++)
        m = xp[(size_t)i * inner] > m ? xp[(size_t)i * inner] : m;
    /* All -inf: exp(-inf - -inf) would be NaN; every output is then NaN like the
     * reference runtimes, so no special case. */
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        float e = exp_or_zero(xp[(size_t)i * inner] - m);
        yp[(size_t)i * inner] = e;
        s += e;
    }
    const float r = 1.0f / s;
    for (int i = 0; i < n; i++)
        yp[(size_t)i * inner] *= r;
}

void wgk_f32_softmax(const float *x, float *y, int outer, int n, int inner)
{
    for (int o = 0; o < outer; o++) {
        const float *xo = x + (size_t)o * n * inner;
        float *yo = y + (size_t)o * n * inner;
        int j = 0;
#if defined(__wasm_simd128__)
        if (inner == 1) {
            row(xo, yo, n);
            continue;
        }
        for (; j + 4 <= inner; j += 4)
            columns4(xo + j, yo + j, n, inner);
#endif
        for (; j < inner; j++)
            column(xo + j, yo + j, n, inner);
    }
}
