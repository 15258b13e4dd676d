/*
 * wgk_f16.h: float16 weights widened to float32 when a module first runs the step that
 * reads them. The compiler stores a float32 weight whose every value is a float16 value
 * (a float16 model's weights, after src/passes/lower_fp16.c) as float16 in the weights
 * segment, and the module widens it into the prepared-weights region (docs/abi.md), so
 * the file holds half the bytes and the kernels still read float32. Exact: every float16
 * value, subnormals, infinities and NaN payloads included, is a float32 value.
 *
 *     wgk_f16_widen(W(0), P(0), n);   // once, on the first run
 */
#ifndef WGK_F16_H
#define WGK_F16_H

#include <stddef.h>
#include <stdint.h>

/* dst[i] = src[i] as float32, i < n. src 2-byte and dst 4-byte aligned. */
void wgk_f16_widen(const uint16_t *src, float *dst, size_t n);

/* Weights a kernel widens as it reads them (the packed-B GEMM's float16 panels) are stored
 * as halves of the weight times WGK_F16_WEIGHT_SCALE (2^10): the float16 subnormals of the
 * weights become normal halves, and the widening never multiplies a subnormal float (x86
 * takes a slow microcode assist on each). So such a weight's values must be float16
 * values within +-WGK_F16_WEIGHT_MAX; the stored halves are then exact and finite. */
#define WGK_F16_WEIGHT_SCALE 1024.0f
#define WGK_F16_WEIGHT_MAX (65504.0f / WGK_F16_WEIGHT_SCALE)

/* One stored half (a weight times WGK_F16_WEIGHT_SCALE) back to the weight. */
float wgk_f16_weight(uint16_t h);

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

/* Eight stored halves (weights times WGK_F16_WEIGHT_SCALE, zero or normal) to the float32
 * weights, in registers: lanes 0-3 in *lo, 4-7 in *hi. Each half, sign-extended, is
 * shifted so that its exponent and mantissa land in a float's (the sign in the float's
 * sign, its copies masked off); read as a float, a normal one, that is the half times
 * 2^-112, and the multiply by 2^102 gives the weight, exactly. */
static inline void wgk_f16x8_widen_weights(v128_t h, v128_t *lo, v128_t *hi)
{
    const v128_t keep = wasm_i32x4_splat((int32_t)0x8FFFE000), scale = wasm_i32x4_splat(0x72800000); /* 2^102 */
    *lo = wasm_f32x4_mul(wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_low_i16x8(h), 13), keep), scale);
    *hi = wasm_f32x4_mul(wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_high_i16x8(h), 13), keep), scale);
}

/* wgk_f16x8_widen_weights without the multiply: the weights times 2^-102, every one a normal
 * float or zero (a stored half is zero or normal), for a product with a value times 2^102. */
static inline void wgk_f16x8_widen_weights_scaled(v128_t h, v128_t *lo, v128_t *hi)
{
    const v128_t keep = wasm_i32x4_splat((int32_t)0x8FFFE000);
    *lo = wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_low_i16x8(h), 13), keep);
    *hi = wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_high_i16x8(h), 13), keep);
}
#endif

#endif
