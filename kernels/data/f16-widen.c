/* f16-widen.c: wgk_f16_widen (wgk_f16.h). SIMD128: 8 halves a step, the bits moved into
 * place and scaled by 2^112 (exact for normals and subnormals alike), exponent 31
 * (infinity, NaN) set to 255 directly; the scalar tail and the scalar build through
 * wgk_cvt_f16_to_f32, the conversion the compiler's folding uses. */
#include "wgk_base.h"
#include "wgk_convert.h"
#include "wgk_f16.h"

#ifdef __wasm_simd128__
/* Four halves (zero-extended into u32 lanes) to float32. */
static v128_t widen4(v128_t h)
{
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
    const v128_t em = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7fff)), 13);
    /* em read as a float is the value times 2^-112 (a float subnormal for a half subnormal,
     * which the multiply makes exact and normal). */
    const v128_t scaled = wasm_f32x4_mul(em, wasm_i32x4_splat(0x77800000)); /* 2^112 */
    const v128_t special = wasm_i32x4_eq(wasm_v128_and(h, wasm_i32x4_splat(0x7c00)), wasm_i32x4_splat(0x7c00));
    const v128_t infnan = wasm_v128_or(em, wasm_i32x4_splat(0x7f800000));
    return wasm_v128_or(sign, wasm_v128_bitselect(infnan, scaled, special));
}
#endif

float wgk_f16_weight(uint16_t h)
{
    return wgk_cvt_f16_to_f32(h) / WGK_F16_WEIGHT_SCALE;
}

void wgk_f16_widen(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    for (; i + 8 <= n; i += 8) {
        const v128_t h = wasm_v128_load(src + i);
        wasm_v128_store(dst + i, widen4(wasm_u32x4_extend_low_u16x8(h)));
        wasm_v128_store(dst + i + 4, widen4(wasm_u32x4_extend_high_u16x8(h)));
    }
#endif
    for (; i < n; i++)
        dst[i] = wgk_cvt_f16_to_f32(src[i]);
}
