/*
 * f32-qu8-dynamic-quantize.c: wgk_f32_qu8_dynamic_quantize (wgk_quant.h), ONNX
 * DynamicQuantizeLinear: the range of x widened to include 0 gives the scale and zero
 * point (float32 arithmetic, rounding half to even), then y = sat(rint(x / scale) + zp).
 * SIMD128 for the range; the quantization is QuantizeLinear's (wgk_q8_quantize_run), and
 * the scalar tails and the --no-simd build do the same operations one element at a time,
 * so every element gets the same bits either way. The _ranged form takes the range from
 * the kernels that wrote x (wgk_qdeq.h: the minima and maxima of each thread's share,
 * each starting from 0), so x is read once.
 */
#include "wgk_quant.h"

/* The scale and zero point of the range [mn, mx] (0 inside it), then x quantized. */
static void quantize(const float *x, size_t n, float mn, float mx, uint8_t *y, float *scale, uint8_t *zero_point)
{
    const float sc = (mx == mn ? 1.0f : mx - mn) / 255.0f;
    float zp = 0.0f - mn / sc;
    zp = zp < 0 ? 0 : zp > 255 ? 255 : zp;
    zp = __builtin_rintf(zp);
    wgk_q8_quantize_run(x, y, 2, n, sc, (int32_t)zp); /* QuantizeLinear's own arithmetic */
    *scale = sc;
    *zero_point = (uint8_t)(int32_t)zp;
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
    quantize(x, n, mn, mx, y, scale, zero_point);
}

void wgk_f32_qu8_dynamic_quantize_ranged(const float *x, size_t n, const float *ranges, int nranges, uint8_t *y,
                                         float *scale, uint8_t *zero_point)
{
    float mx = 0.0f, mn = 0.0f;
    for (int r = 0; r < nranges; r++) {
        mn = ranges[2 * r] < mn ? ranges[2 * r] : mn;
        mx = ranges[2 * r + 1] > mx ? ranges[2 * r + 1] : mx;
    }
    quantize(x, n, mn, mx, y, scale, zero_point);
}
