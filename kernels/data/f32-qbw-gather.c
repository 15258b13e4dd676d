/*
 * f32-qbw-gather.c: rows of a table quantized block-wise, gathered and dequantized
 * (GatherBlockQuantized; contract in wgk_qweight.h): out = (q - zp) * scale per element, the
 * one float32 product onnxruntime takes, so the results are its bits.
 */
#include "wgk_qweight.h"

/* Element k of a sub-row of packed values (4-bit: two per byte, low nibble first; signed:
 * two's complement nibbles). */
static inline int elem(const uint8_t *p, int bits, int sign, int k)
{
    if (bits == 8)
        return p[k];
    const int v = (p[k >> 1] >> ((k & 1) * 4)) & 15;
    return sign ? (v ^ 8) - 8 : v;
}

/* The sub-rows of one gathered index: dequantized into out. */
static void dequant_rows(const wgk_qbw_gather_args *g, int64_t first, float *out)
{
    const int L = g->len, nblk = (L + g->blk - 1) / g->blk;
    const int rb = g->bits == 8 ? L : (L + 1) / 2, zs = (nblk * g->bits + 7) / 8;
    for (int r = 0; r < g->subrows; r++, out += L) {
        const int64_t row = first + r;
        const uint8_t *p = g->data + row * rb;
        const float *s = g->scales + row * nblk;
        const uint8_t *z = g->zp ? g->zp + row * zs : 0;
        for (int j = 0; j < nblk; j++) {
            const int zp = z ? elem(z, g->bits, g->sign, j) : g->zdefault;
            const float sc = s[j];
            const int k1 = (j + 1) * g->blk < L ? (j + 1) * g->blk : L;
            int k = j * g->blk;
#ifdef __wasm_simd128__
            if (g->bits == 4 && !g->sign) { /* 16 at a time: 8 bytes widened in registers */
                const v128_t zz = wasm_i16x8_splat((int16_t)zp), vs = wasm_f32x4_splat(sc);
                for (; k + 16 <= k1; k += 16) {
                    const v128_t v = wasm_v128_load64_zero(p + k / 2), m = wasm_i8x16_splat(15);
                    const v128_t lo = wasm_v128_and(v, m), hi = wasm_v128_and(wasm_u16x8_shr(v, 4), m);
                    const v128_t x = wasm_i8x16_shuffle(lo, hi, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
                    const v128_t w0 = wasm_i16x8_sub(wasm_u16x8_extend_low_u8x16(x), zz);
                    const v128_t w1 = wasm_i16x8_sub(wasm_u16x8_extend_high_u8x16(x), zz);
                    float *o = out + k;
                    wasm_v128_store(o, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(w0)), vs));
                    wasm_v128_store(o + 4, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(w0)), vs));
                    wasm_v128_store(o + 8, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(w1)), vs));
                    wasm_v128_store(o + 12, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(w1)), vs));
                }
            }
#endif
            for (; k < k1; k++)
                out[k] = (float)(elem(p, g->bits, g->sign, k) - zp) * sc;
        }
    }
}

int wgk_f32_qbw_gather(const wgk_qbw_gather_args *g)
{
    const int64_t per = (int64_t)g->subrows * g->len;
    for (int i = 0; i < g->count; i++) {
        int64_t ix = g->index64 ? ((const int64_t *)g->indices)[i] : ((const int32_t *)g->indices)[i];
        float *out = g->out + i * per;
        if (ix < -(int64_t)g->rows || ix >= g->rows) { /* onnxruntime: zeros */
            for (int64_t e = 0; e < per; e++)
                out[e] = 0.0f;
            continue;
        }
        if (ix < 0)
            ix += g->rows;
        dequant_rows(g, ix * g->subrows, out);
    }
    return 0;
}
