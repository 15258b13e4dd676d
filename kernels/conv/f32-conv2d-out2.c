/*
 * f32-conv2d-out2.c: the conv kernels' second output (wgk_conv.h, wgk_conv2d_args.y2): a
 * fused BatchNormalization's per-channel affine and clamp applied to a stretch of y while
 * it is still in L1, for the packed, Strassen and few-pixel kernels.
 */
#include "wgk_conv.h"

void wgk_conv2d_out2(const wgk_conv2d_args *a, int m, const float *y, size_t n)
{
    float *z = a->y2 + (y - a->y);
    const float sc = a->y2_affine[m], sh = a->y2_affine[a->M + m];
    size_t i = 0;
#ifdef __wasm_simd128__
    const v128_t s = wasm_f32x4_splat(sc), t = wasm_f32x4_splat(sh);
    const v128_t lo = wasm_f32x4_splat(a->y2_min), hi = wasm_f32x4_splat(a->y2_max);
    for (; i + 4 <= n; i += 4) {
        const v128_t v = wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(y + i), s), t);
        wasm_v128_store(z + i, wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi));
    }
#endif
    for (; i < n; i++) {
        float v = y[i] * sc + sh;
        v = v < a->y2_min ? a->y2_min : v;
        z[i] = v > a->y2_max ? a->y2_max : v;
    }
}
