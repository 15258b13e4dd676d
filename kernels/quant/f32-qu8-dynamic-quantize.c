/*
 * f32-qu8-dynamic-quantize.c: wgk_f32_qu8_dynamic_quantize (wgk_quant.h), ONNX
 * DynamicQuantizeLinear: the range of x widened to include 0 gives the scale and zero
 * point (float32 arithmetic, rounding half to even), then y = sat(rint(x / scale) + zp).
 * SIMD128 for the range and the quantization (f32x4.nearest is rint); the scalar tail
 * and the --no-simd build do the same operations one element at a time, so every
 * element gets the same bits either way.
 */
#include "wgk_quant.h"

static uint8_t quant1(float x, float sc, float zp)
{
    float q = __builtin_rintf(x / sc);
    q = q == q ? q : 0.0f; /* NaN: no defined result; it gives the zero point */
    float v = q + zp;
    v = v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
    return (uint8_t)(int32_t)v;
}

void wgk_f32_qu8_dynamic_quantize(const float *x, size_t n, uint8_t *y, float *scale, uint8_t *zero_point)
{
    float mx = 0.0f, mn = 0.0f;
    size_t i = 0;
#ifdef __wasm_simd128__
    /* pmax(m, v) = m < v ? v : m: a NaN v never replaces m, as in the scalar loop. */
    v128_t vmx = wasm_f32x4_splat(0.0f), vmn = vmx;
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        vmx = wasm_f32x4_pmax(vmx, v);
        vmn = wasm_f32x4_pmin(vmn, v);
    }
    for (int l = 0; l < 4; l++) {
        float a = wasm_f32x4_extract_lane(vmx, 0), b = wasm_f32x4_extract_lane(vmn, 0);
        mx = a > mx ? a : mx;
        mn = b < mn ? b : mn;
        vmx = wasm_i32x4_shuffle(vmx, vmx, 1, 2, 3, 0);
        vmn = wasm_i32x4_shuffle(vmn, vmn, 1, 2, 3, 0);
    }
#endif
    for (; i < n; i++) {
        if (x[i] > mx)
            mx = x[i];
        if (x[i] < mn)
            mn = x[i];
    }
    const float sc = (mx == mn ? 1.0f : mx - mn) / 255.0f;
    float zp = 0.0f - mn / sc;
    zp = zp < 0 ? 0 : zp > 255 ? 255 : zp;
    zp = __builtin_rintf(zp);
    i = 0;
#ifdef __wasm_simd128__
    const v128_t vsc = wasm_f32x4_splat(sc), vzp = wasm_f32x4_splat(zp);
    const v128_t lo = wasm_f32x4_splat(0.0f), hi = wasm_f32x4_splat(255.0f);
    for (; i + 16 <= n; i += 16) {
        v128_t q[4];
        for (int j = 0; j < 4; j++) {
            v128_t v = wasm_f32x4_nearest(wasm_f32x4_div(wasm_v128_load(x + i + 4 * j), vsc));
            v = wasm_v128_and(v, wasm_f32x4_eq(v, v)); /* NaN lanes -> +0 */
            v = wasm_f32x4_add(v, vzp);
            v = wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi);
            q[j] = wasm_i32x4_trunc_sat_f32x4(v);
        }
        v128_t h0 = wasm_i16x8_narrow_i32x4(q[0], q[1]), h1 = wasm_i16x8_narrow_i32x4(q[2], q[3]);
        wasm_v128_store(y + i, wasm_u8x16_narrow_i16x8(h0, h1));
    }
#endif
    for (; i < n; i++)
        y[i] = quant1(x[i], sc, zp);
    *scale = sc;
    *zero_point = (uint8_t)(int32_t)zp;
}
