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

#ifdef __wasm_simd128__
/* y = sat(rint(x / s) + zp) for x within the range s was made from (|x / s| <= 255 (1 +
 * 2^-22)), with a multiply by r = fl(1 / s) instead of the division where that provably
 * rounds the same: t = fl(x r) is within |x / s| 3 2^-24 < 2^-13 of fl(x / s) (r normal),
 * so when t lies more than 2^-12 from every half-integer, both round to the same integer.
 * A group of 16 with a lane closer (about 1 in 128 groups), a NaN or an infinity takes
 * the division (wgk_q8_quantize_run), as does the tail. */
static size_t quantize_in_range(const float *x, size_t n, float s, int32_t zp, uint8_t *y)
{
    const float r = 1.0f / s;
    if (!(r >= 0x1p-126f && r <= 0x1p126f)) /* not a normal positive float */
        return 0;
    const v128_t vr = wasm_f32x4_splat(r), vmag = wasm_f32x4_splat(12582912.0f);
    const v128_t vfar = wasm_f32x4_splat(0.5f - 0x1p-12f), vbias = wasm_i32x4_splat(0x4B400000 - zp);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        v128_t q[4], ok = wasm_i32x4_splat(-1);
        for (int j = 0; j < 4; j++) {
            const v128_t t = wasm_f32x4_mul(wasm_v128_load(x + i + 4 * j), vr);
            const v128_t f = wasm_f32x4_add(t, vmag); /* rint(t) + 1.5 * 2^23 */
            const v128_t d = wasm_f32x4_abs(wasm_f32x4_sub(t, wasm_f32x4_sub(f, vmag)));
            ok = wasm_v128_and(ok, wasm_f32x4_lt(d, vfar));
            q[j] = wasm_i32x4_sub(f, vbias);
        }
        if (!wasm_i32x4_all_true(ok)) {
            wgk_q8_quantize_run(x + i, y + i, 2, 16, s, zp);
            continue;
        }
        const v128_t h0 = wasm_i16x8_narrow_i32x4(q[0], q[1]), h1 = wasm_i16x8_narrow_i32x4(q[2], q[3]);
        wasm_v128_store(y + i, wasm_u8x16_narrow_i16x8(h0, h1));
    }
    return i;
}
#endif

/* The scale and zero point of the range [mn, mx] (0 inside it), then x quantized. */
static void quantize(const float *x, size_t n, float mn, float mx, uint8_t *y, float *scale, uint8_t *zero_point)
{
    const float sc = (mx == mn ? 1.0f : mx - mn) / 255.0f;
    float zp = 0.0f - mn / sc;
    zp = zp < 0 ? 0 : zp > 255 ? 255 : zp;
    zp = __builtin_rintf(zp);
    size_t i = 0;
#ifdef __wasm_simd128__
    i = quantize_in_range(x, n, sc, (int32_t)zp, y);
#endif
    wgk_q8_quantize_run(x + i, y + i, 2, n - i, sc, (int32_t)zp); /* QuantizeLinear's own arithmetic */
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
