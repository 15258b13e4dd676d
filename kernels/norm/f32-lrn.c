/* f32-lrn.c: local response normalisation across channels (ONNX LRN). SIMD builds do
 * four positions at a time with the same operations in the same order as the scalar
 * loop (squares summed over the window in channel order, f32x4.sqrt is correctly
 * rounded like f32.sqrt), so both give the same bits for beta = 0.75. */
#include "wgk_math.h"
#include "wgk_norm.h"

/* d^-beta; beta = 0.75 (AlexNet, GoogLeNet): 1 / (sqrt(d) * sqrt(sqrt(d))). */
static float inv_pow(float d, float beta)
{
    return beta == 0.75f ? 1.0f / (wgk_sqrtf(d) * wgk_sqrtf(wgk_sqrtf(d))) : 1.0f / wgk_powf(d, beta);
}

/* One channel c over positions [i0, inner): y = x * (bias + k * sum of squares)^-beta. */
static void lrn_scalar(const float *xn, float *yn, int c, int c0, int c1, int i0, int inner, float k,
                       float beta, float bias)
{
    for (int i = i0; i < inner; i++) {
        float s = 0.0f;
        for (int cc = c0; cc <= c1; cc++) {
            float v = xn[(size_t)cc * inner + i];
            s += v * v;
        }
        yn[(size_t)c * inner + i] = xn[(size_t)c * inner + i] * inv_pow(bias + k * s, beta);
    }
}

#ifdef __wasm_simd128__
/* Positions [0, inner & ~3) of channel c, four at a time; returns where it stopped. */
static int lrn_simd(const float *xn, float *yn, int c, int c0, int c1, int inner, float k,
                    float beta, float bias)
{
    const v128_t kv = wasm_f32x4_splat(k), bv = wasm_f32x4_splat(bias), one = wasm_f32x4_splat(1.0f);
    int i = 0;
    for (; i + 4 <= inner; i += 4) {
        v128_t s = wasm_f32x4_splat(0.0f);
        for (int cc = c0; cc <= c1; cc++) {
            const v128_t v = wasm_v128_load(xn + (size_t)cc * inner + i);
            s = wasm_f32x4_add(s, wasm_f32x4_mul(v, v));
        }
        const v128_t d = wasm_f32x4_add(bv, wasm_f32x4_mul(kv, s));
        v128_t scale;
        if (beta == 0.75f) {
            const v128_t r = wasm_f32x4_sqrt(d);
            scale = wasm_f32x4_div(one, wasm_f32x4_mul(r, wasm_f32x4_sqrt(r)));
        } else {
            float t[4];
            wasm_v128_store(t, d);
            for (int j = 0; j < 4; j++)
                t[j] = inv_pow(t[j], beta);
            scale = wasm_v128_load(t);
        }
        const v128_t x = wasm_v128_load(xn + (size_t)c * inner + i);
        wasm_v128_store(yn + (size_t)c * inner + i, wasm_f32x4_mul(x, scale));
    }
    return i;
}
#endif

void wgk_f32_lrn(const float *x, float *y, int N, int C, int inner, int size, float alpha,
                 float beta, float bias)
{
    const int before = (size - 1) / 2, after = size / 2; /* floor and ceil of (size-1)/2 */
    const float k = alpha / (float)size;
    for (int n = 0; n < N; n++) {
        const float *xn = x + (size_t)n * C * inner;
        float *yn = y + (size_t)n * C * inner;
        for (int c = 0; c < C; c++) {
            const int c0 = c - before < 0 ? 0 : c - before;
            const int c1 = c + after >= C ? C - 1 : c + after;
            int i0 = 0;
#ifdef __wasm_simd128__
            i0 = lrn_simd(xn, yn, c, c0, c1, inner, k, beta, bias);
#endif
            lrn_scalar(xn, yn, c, c0, c1, i0, inner, k, beta, bias);
        }
    }
}
