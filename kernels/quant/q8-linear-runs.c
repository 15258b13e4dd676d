/*
 * q8-linear-runs.c: QuantizeLinear and DequantizeLinear over a run of elements sharing one
 * scale and zero point, for uint8 / int8 (wgk_quant.h: wgk_q8_quantize_run,
 * wgk_q8_dequantize_run). QDQ models run one of them around nearly every layer, so they
 * are SIMD128 loops; the scalar tail and the --no-simd build do the same float32
 * operations one element at a time, so every element gets the same bits either way, and
 * the same bits as the reference loops in quant.c:
 *   quantize:   q = rint(x / s) (NaN -> 0), v = q + zp clamped to the dtype's range.
 *               Adding zp in float32 is exact while |q| < 2^24, and beyond that the sum
 *               saturates whatever its rounding.
 *   dequantize: (float)(x - zp) * s; the difference and its conversion are exact.
 */
#include <stdbool.h>

#include "wgk_quant.h"

/* Element i of a uint8 or int8 run, from a value already clamped to the dtype's range. */
static void store_q8(void *y, size_t i, int32_t v, bool u8)
{
    if (u8)
        ((uint8_t *)y)[i] = (uint8_t)v;
    else
        ((int8_t *)y)[i] = (int8_t)v;
}

#ifdef __wasm_simd128__
/* Sixteen clamped int32 lanes (q[0] first) narrowed to 16 bytes and stored; the values
 * are in range already, so the saturating narrows only pack. */
static void store_q8x16(uint8_t *dst, const v128_t q[4], bool u8)
{
    const v128_t h0 = wasm_i16x8_narrow_i32x4(q[0], q[1]), h1 = wasm_i16x8_narrow_i32x4(q[2], q[3]);
    wasm_v128_store(dst, u8 ? wasm_u8x16_narrow_i16x8(h0, h1) : wasm_i8x16_narrow_i16x8(h0, h1));
}
#endif

static float quant1(float x, float s, float zp, float lo, float hi)
{
    float q = __builtin_rintf(x / s);
    q = q == q ? q : 0.0f; /* NaN: no defined result; it gives the zero point */
    float v = q + zp;
    return v < lo ? lo : v > hi ? hi : v;
}

void wgk_q8_quantize_run(const float *x, void *y, int ydt, size_t n, float s, int32_t zp)
{
    const bool u8 = ydt == 2;
    const float z = (float)zp, lo = u8 ? 0.0f : -128.0f, hi = u8 ? 255.0f : 127.0f;
    size_t i = 0;
#ifdef __wasm_simd128__
    /* rint by the float adder: for |q| <= 2^21, q + 1.5 * 2^23 lies in [2^23, 2^24), where
     * floats are the integers, so the sum is q rounded half to even, and its bits minus
     * those of 1.5 * 2^23 are rint(q) as an int32. q beyond +-2^21 saturates either way
     * (|zp| <= 255), so it is clamped there first; the saturating narrows then clamp to
     * the dtype's range. */
    const v128_t vs = wasm_f32x4_splat(s), vmag = wasm_f32x4_splat(12582912.0f);
    const v128_t vlo = wasm_f32x4_splat(-2097152.0f), vhi = wasm_f32x4_splat(2097152.0f);
    const v128_t vbias = wasm_i32x4_splat(0x4B400000 - zp);
    for (; i + 16 <= n; i += 16) {
        v128_t q[4];
        for (int j = 0; j < 4; j++) {
            v128_t v = wasm_f32x4_div(wasm_v128_load(x + i + 4 * j), vs);
            v = wasm_v128_and(v, wasm_f32x4_eq(v, v)); /* NaN lanes -> +0 */
            v = wasm_f32x4_pmin(wasm_f32x4_pmax(v, vlo), vhi);
            q[j] = wasm_i32x4_sub(wasm_f32x4_add(v, vmag), vbias);
        }
        const v128_t h0 = wasm_i16x8_narrow_i32x4(q[0], q[1]), h1 = wasm_i16x8_narrow_i32x4(q[2], q[3]);
        wasm_v128_store((uint8_t *)y + i, u8 ? wasm_u8x16_narrow_i16x8(h0, h1) : wasm_i8x16_narrow_i16x8(h0, h1));
    }
#endif
    for (; i < n; i++) {
        store_q8(y, i, (int32_t)quant1(x[i], s, z, lo, hi), u8);
    }
}

void wgk_q8_dequantize_run(const void *x, int xdt, float *y, size_t n, float s, int32_t zp)
{
    const bool u8 = xdt == 2;
    size_t i = 0;
#ifdef __wasm_simd128__
    const v128_t vs = wasm_f32x4_splat(s), vz = wasm_i32x4_splat(zp);
    for (; i + 16 <= n; i += 16) {
        const v128_t b = wasm_v128_load((const uint8_t *)x + i);
        const v128_t h0 = u8 ? wasm_u16x8_extend_low_u8x16(b) : wasm_i16x8_extend_low_i8x16(b);
        const v128_t h1 = u8 ? wasm_u16x8_extend_high_u8x16(b) : wasm_i16x8_extend_high_i8x16(b);
        const v128_t w[4] = {wasm_i32x4_extend_low_i16x8(h0), wasm_i32x4_extend_high_i16x8(h0),
                             wasm_i32x4_extend_low_i16x8(h1), wasm_i32x4_extend_high_i16x8(h1)};
        for (int j = 0; j < 4; j++)
            wasm_v128_store(y + i + 4 * j,
                            wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_sub(w[j], vz)), vs));
    }
#endif
    for (; i < n; i++) {
        const int32_t v = u8 ? ((const uint8_t *)x)[i] : ((const int8_t *)x)[i];
        y[i] = (float)(v - zp) * s;
    }
}

/* QLinear requantization of int32 sums: sat(rint((double)acc * (double)mult) + zy), the
 * reference's double arithmetic, two lanes at a time (f64x2: the product of an int32 and
 * a float32 is exact in neither float32 nor int32). */
void wgk_q8_requantize_run(const int32_t *acc, void *y, int ydt, size_t n, float mult, int32_t zy)
{
    const bool u8 = ydt == 2;
    const double m = (double)mult, z = (double)zy, lo = u8 ? 0.0 : -128.0, hi = u8 ? 255.0 : 127.0;
    size_t i = 0;
#ifdef __wasm_simd128__
    const v128_t vm = wasm_f64x2_splat(m), vz = wasm_f64x2_splat(z);
    const v128_t vlo = wasm_f64x2_splat(lo), vhi = wasm_f64x2_splat(hi);
    for (; i + 16 <= n; i += 16) {
        v128_t q[4];
        for (int j = 0; j < 4; j++) {
            const v128_t a = wasm_v128_load(acc + i + 4 * j);
            v128_t d0 = wasm_f64x2_convert_low_i32x4(a);
            v128_t d1 = wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(a, a, 2, 3, 0, 1));
            d0 = wasm_f64x2_pmin(wasm_f64x2_pmax(wasm_f64x2_add(wasm_f64x2_nearest(wasm_f64x2_mul(d0, vm)), vz), vlo), vhi);
            d1 = wasm_f64x2_pmin(wasm_f64x2_pmax(wasm_f64x2_add(wasm_f64x2_nearest(wasm_f64x2_mul(d1, vm)), vz), vlo), vhi);
            const v128_t t0 = wasm_i32x4_trunc_sat_f64x2_zero(d0), t1 = wasm_i32x4_trunc_sat_f64x2_zero(d1);
            q[j] = wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5);
        }
        store_q8x16((uint8_t *)y + i, q, u8);
    }
#endif
    for (; i < n; i++) {
        double v = __builtin_rint((double)acc[i] * m) + z;
        v = v < lo ? lo : v > hi ? hi : v;
        store_q8(y, i, (int32_t)v, u8);
    }
}
