/*
 * f32-bnb4-gemm.c: the product of float32 rows with weights quantized to 4-bit codes of a
 * 16-value codebook, FP4 or NF4, scaled by a block's absmax (MatMulBnb4; contract in
 * wgk_qweight.h). The codes stay 4-bit in the module and become floats in registers.
 */
#include "wgk_qweight.h"

/* The codebooks (bitsandbytes' formats, as onnxruntime dequantizes them): FP4, a sign bit
 * and 3 bits of the magnitudes {0, 0.0625, 8, 12, 4, 6, 2, 3} / 12; NF4, the 16 quantiles
 * of the normal distribution of QLoRA (arXiv 2305.14314), scaled to [-1, 1]. */
const float wgk_bnb4_codebook[2][16] = {
    {0.0f, 0.0625f / 12, 8.0f / 12, 12.0f / 12, 4.0f / 12, 6.0f / 12, 2.0f / 12, 3.0f / 12, -0.0f, -0.0625f / 12,
     -8.0f / 12, -12.0f / 12, -4.0f / 12, -6.0f / 12, -2.0f / 12, -3.0f / 12},
    {-1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f, -0.28444138169288635f,
     -0.18477343022823334f, -0.09105003625154495f, 0.0f, 0.07958029955625534f, 0.16093020141124725f,
     0.24611230194568634f, 0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f, 0.7229568362236023f,
     1.0f},
};

/* Code i of the flattened weights (two per byte, the even one in the high nibble). */
static inline int code_at(const uint8_t *b, int64_t i)
{
    return i & 1 ? b[i >> 1] & 15 : b[i >> 1] >> 4;
}

/* Any shape: element by element, each block's products summed then scaled. */
static void gemm_any(const wgk_bnb4_args *g, const float *book)
{
    for (int m = 0; m < g->M; m++) {
        const float *a = g->a + (ptrdiff_t)m * g->lda;
        for (int n = 0; n < g->N; n++) {
            float acc = 0.0f, x = 0.0f;
            int64_t i = (int64_t)n * g->K, blk = i / g->blk;
            for (int k = 0; k < g->K; k++, i++) {
                if (i / g->blk != blk) {
                    acc += x * g->absmax[blk];
                    x = 0.0f;
                    blk = i / g->blk;
                }
                x += a[k] * book[code_at(g->b, i)];
            }
            g->c[(ptrdiff_t)m * g->ldc + n] = acc + x * g->absmax[blk];
        }
    }
}

#ifdef __wasm_simd128__

#define MADD WGK_MADD

/* 16 codes (8 bytes at p, k order) as four f32x4 of their values: the codebook's bytes in
 * four planes, each looked up by i8x16.swizzle, then interleaved back into floats. */
WGK_INLINE void lookup16(const uint8_t *p, const v128_t plane[4], v128_t f[4])
{
    const v128_t v = wasm_v128_load64_zero(p), m = wasm_i8x16_splat(15);
    const v128_t hi = wasm_v128_and(wasm_u16x8_shr(v, 4), m), lo = wasm_v128_and(v, m);
    const v128_t c = wasm_i8x16_shuffle(hi, lo, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const v128_t b0 = wasm_i8x16_swizzle(plane[0], c), b1 = wasm_i8x16_swizzle(plane[1], c);
    const v128_t b2 = wasm_i8x16_swizzle(plane[2], c), b3 = wasm_i8x16_swizzle(plane[3], c);
    const v128_t l01 = wasm_i8x16_shuffle(b0, b1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const v128_t l23 = wasm_i8x16_shuffle(b2, b3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const v128_t h01 = wasm_i8x16_shuffle(b0, b1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const v128_t h23 = wasm_i8x16_shuffle(b2, b3, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    f[0] = wasm_i16x8_shuffle(l01, l23, 0, 8, 1, 9, 2, 10, 3, 11);
    f[1] = wasm_i16x8_shuffle(l01, l23, 4, 12, 5, 13, 6, 14, 7, 15);
    f[2] = wasm_i16x8_shuffle(h01, h23, 0, 8, 1, 9, 2, 10, 3, 11);
    f[3] = wasm_i16x8_shuffle(h01, h23, 4, 12, 5, 13, 6, 14, 7, 15);
}

/* K a multiple of the block (a multiple of 16): each column's codes are whole blocks of
 * their own; rows one at a time against 4 columns. */
static void gemm_blocks(const wgk_bnb4_args *g, const float *book)
{
    v128_t plane[4];
    {
        uint8_t bytes[4][16];
        for (int v = 0; v < 16; v++) {
            union { float f; uint32_t u; } x = {book[v]};
            for (int p = 0; p < 4; p++)
                bytes[p][v] = (uint8_t)(x.u >> (8 * p));
        }
        for (int p = 0; p < 4; p++)
            plane[p] = wasm_v128_load(bytes[p]);
    }
    const int nblk = g->K / g->blk, cb = g->K / 2;
    for (int m = 0; m < g->M; m++) {
        const float *a = g->a + (ptrdiff_t)m * g->lda;
        for (int n0 = 0; n0 < g->N; n0 += 4) {
            const int nc = g->N - n0 < 4 ? g->N - n0 : 4;
            v128_t t[4];
            const uint8_t *b[4];
            const float *am[4];
#pragma clang loop unroll(full)
            for (int j = 0; j < 4; j++) {
                const int n = n0 + (j < nc ? j : nc - 1);
                t[j] = wasm_f32x4_splat(0.0f);
                b[j] = g->b + (ptrdiff_t)n * cb;
                am[j] = g->absmax + (ptrdiff_t)n * nblk;
            }
            for (int jb = 0; jb < nblk; jb++) {
                v128_t x[4];
#pragma clang loop unroll(full)
                for (int j = 0; j < 4; j++)
                    x[j] = wasm_f32x4_splat(0.0f);
                for (int k = jb * g->blk; k < (jb + 1) * g->blk; k += 16) {
                    const v128_t a0 = wasm_v128_load(a + k), a1 = wasm_v128_load(a + k + 4);
                    const v128_t a2 = wasm_v128_load(a + k + 8), a3 = wasm_v128_load(a + k + 12);
#pragma clang loop unroll(full)
                    for (int j = 0; j < 4; j++) {
                        v128_t f[4];
                        lookup16(b[j] + k / 2, plane, f);
                        x[j] = MADD(x[j], a0, f[0]);
                        x[j] = MADD(x[j], a1, f[1]);
                        x[j] = MADD(x[j], a2, f[2]);
                        x[j] = MADD(x[j], a3, f[3]);
                    }
                }
#pragma clang loop unroll(full)
                for (int j = 0; j < 4; j++)
                    t[j] = MADD(t[j], x[j], wasm_f32x4_splat(am[j][jb]));
            }
            for (int j = 0; j < nc; j++) {
                v128_t v = wasm_f32x4_add(t[j], wasm_i32x4_shuffle(t[j], t[j], 2, 3, 0, 1));
                v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
                g->c[(ptrdiff_t)m * g->ldc + n0 + j] = wasm_f32x4_extract_lane(v, 0);
            }
        }
    }
}

void wgk_f32_bnb4_gemm(const wgk_bnb4_args *g)
{
    const float *book = wgk_bnb4_codebook[g->quant_type ? 1 : 0];
    if (g->M <= 0 || g->N <= 0)
        return;
    if (g->K % g->blk == 0)
        gemm_blocks(g, book);
    else
        gemm_any(g, book);
}

#else

void wgk_f32_bnb4_gemm(const wgk_bnb4_args *g)
{
    if (g->M > 0 && g->N > 0)
        gemm_any(g, wgk_bnb4_codebook[g->quant_type ? 1 : 0]);
}

#endif
