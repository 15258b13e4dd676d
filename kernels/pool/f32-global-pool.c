/* f32-global-pool.c: GlobalAveragePool / GlobalMaxPool over the contiguous spatial block. */
#include "wgk_pool.h"

void wgk_f32_global_avgpool(const float *x, float *y, int outer, int inner)
{
    for (int i = 0; i < outer; i++) {
        const float *p = x + (size_t)i * inner;
        int k = 0;
        float s = 0.0f;
#ifdef __wasm_simd128__
        v128_t acc = wasm_f32x4_splat(0.0f);
        for (; k + 4 <= inner; k += 4)
            acc = wasm_f32x4_add(acc, wasm_v128_load(p + k));
        s = (wasm_f32x4_extract_lane(acc, 0) + wasm_f32x4_extract_lane(acc, 1)) +
            (wasm_f32x4_extract_lane(acc, 2) + wasm_f32x4_extract_lane(acc, 3));
#endif
        for (; k < inner; k++)
            s += p[k];
        y[i] = s / (float)inner;
    }
}

void wgk_f32_global_maxpool(const float *x, float *y, int outer, int inner)
{
    for (int i = 0; i < outer; i++) {
        const float *p = x + (size_t)i * inner;
        float m = -__builtin_inff();
        for (int k = 0; k < inner; k++)
            m = p[k] > m || p[k] != p[k] ? p[k] : m;
        y[i] = m;
    }
}
