/* f32-batchnorm.c: BatchNormalization at inference as a per-channel affine map. */
#include "wgk_math.h"
#include "wgk_norm.h"

void wgk_f32_channel_affine(const float *x, const float *scale, const float *shift,
                            const float *res, float *y, int N, int C, int inner, float min,
                            float max)
{
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++) {
            const size_t base = ((size_t)n * C + c) * inner;
            const float a = scale[c], b = shift[c];
            int i = 0;
#ifdef __wasm_simd128__
            const v128_t av = wasm_f32x4_splat(a), bv = wasm_f32x4_splat(b);
            const v128_t lo = wasm_f32x4_splat(min), hi = wasm_f32x4_splat(max);
            for (; i + 4 <= inner; i += 4) {
                v128_t v = wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(x + base + i), av), bv);
                if (res)
                    v = wasm_f32x4_add(v, wasm_v128_load(res + base + i));
                wasm_v128_store(y + base + i, wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi));
            }
#endif
            for (; i < inner; i++) {
                float v = x[base + i] * a + b + (res ? res[base + i] : 0.0f);
                v = v < min ? min : v;
                y[base + i] = v > max ? max : v;
            }
        }
}

void wgk_f32_batchnorm_params(const float *gamma, const float *beta, const float *mean,
                              const float *var, float eps, int C, float *scale, float *shift)
{
    for (int c = 0; c < C; c++) {
        float s = gamma[c] / wgk_sqrtf(var[c] + eps);
        scale[c] = s;
        shift[c] = beta[c] - mean[c] * s;
    }
}
