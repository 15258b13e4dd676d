/*
 * f32-conv2d-winograd-f2x3.c: 3x3 stride-1 convolution by Winograd F(2x2, 3x3)
 * (wgk_winograd.h): its transforms for the 2x2-tile driver (winograd-out2x2.h: 16 packed B
 * matrices, 16 GEMMs on the packed micro-kernel, output transform with the fused
 * epilogue).
 */
#include "winograd-out2x2.h"

/* V = B^T d B, B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]; d and v row-major 4x4. */
static inline void in_transform(const float *d, float *v)
{
    float t[16];
    for (int j = 0; j < 4; j++) {
        t[j] = d[j] - d[8 + j];
        t[4 + j] = d[4 + j] + d[8 + j];
        t[8 + j] = d[8 + j] - d[4 + j];
        t[12 + j] = d[4 + j] - d[12 + j];
    }
    for (int i = 0; i < 4; i++) {
        const float *r = t + 4 * i;
        v[4 * i] = r[0] - r[2];
        v[4 * i + 1] = r[1] + r[2];
        v[4 * i + 2] = r[2] - r[1];
        v[4 * i + 3] = r[1] - r[3];
    }
}

/* Input tile (4x4 at ih0, iw0 of channel plane x, zeros outside) -> 16 packed B
 * values at dst[xi * vx]. */
static void load_tile(const float *x, int H, int W, int ih0, int iw0, float *dst, size_t vx)
{
    float d[16], v[16];
    if (ih0 >= 0 && iw0 >= 0 && ih0 + 4 <= H && iw0 + 4 <= W) {
        const float *p = x + (size_t)ih0 * W + iw0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                d[4 * i + j] = p[(size_t)i * W + j];
    } else {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                const int ih = ih0 + i, iw = iw0 + j;
                d[4 * i + j] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[(size_t)ih * W + iw] : 0.0f;
            }
    }
    in_transform(d, v);
    for (int xi = 0; xi < 16; xi++)
        dst[xi * vx] = v[xi];
}

#ifdef __wasm_simd128__
/* Four horizontally adjacent tiles at once, lane k = tile k (all 4x10 input values
 * inside the image): the same transform on f32x4, one v128 store per position. */
static void load_tiles4(const float *x, int W, int ih0, int iw0, float *dst, size_t vx)
{
    v128_t d[16], t[16];
    for (int i = 0; i < 4; i++) {
        const float *p = x + (size_t)(ih0 + i) * W + iw0;
        const v128_t l0 = wasm_v128_load(p), l1 = wasm_v128_load(p + 4);
        const v128_t l2 = wasm_v128_load64_zero(p + 8);
        const v128_t r = wasm_i32x4_shuffle(l0, l1, 2, 3, 4, 5), q = wasm_i32x4_shuffle(l1, l2, 2, 3, 4, 5);
        d[4 * i] = wasm_i32x4_shuffle(l0, l1, 0, 2, 4, 6);
        d[4 * i + 1] = wasm_i32x4_shuffle(l0, l1, 1, 3, 5, 7);
        d[4 * i + 2] = wasm_i32x4_shuffle(r, q, 0, 2, 4, 6);
        d[4 * i + 3] = wasm_i32x4_shuffle(r, q, 1, 3, 5, 7);
    }
    for (int j = 0; j < 4; j++) {
        t[j] = wasm_f32x4_sub(d[j], d[8 + j]);
        t[4 + j] = wasm_f32x4_add(d[4 + j], d[8 + j]);
        t[8 + j] = wasm_f32x4_sub(d[8 + j], d[4 + j]);
        t[12 + j] = wasm_f32x4_sub(d[4 + j], d[12 + j]);
    }
    for (int i = 0; i < 4; i++) {
        const v128_t *r = t + 4 * i;
        wasm_v128_store(dst + (4 * i) * vx, wasm_f32x4_sub(r[0], r[2]));
        wasm_v128_store(dst + (4 * i + 1) * vx, wasm_f32x4_add(r[1], r[2]));
        wasm_v128_store(dst + (4 * i + 2) * vx, wasm_f32x4_sub(r[2], r[1]));
        wasm_v128_store(dst + (4 * i + 3) * vx, wasm_f32x4_sub(r[1], r[3]));
    }
}

/* Output transform and epilogue of four adjacent tiles (all 2x8 outputs inside y):
 * s[xi] lane k = tile k; rows interleaved back into 8 contiguous floats. */
static void store_tiles4(const float *mm, size_t mx, float *y, const float *res, int OW, float b,
                         float lo, float hi)
{
    v128_t s[16], r[8];
    for (int xi = 0; xi < 16; xi++)
        s[xi] = wasm_v128_load(mm + xi * mx);
    for (int j = 0; j < 4; j++) {
        r[j] = wasm_f32x4_add(wasm_f32x4_add(s[j], s[4 + j]), s[8 + j]);
        r[4 + j] = wasm_f32x4_sub(wasm_f32x4_sub(s[4 + j], s[8 + j]), s[12 + j]);
    }
    const v128_t bv = wasm_f32x4_splat(b), lv = wasm_f32x4_splat(lo), hv = wasm_f32x4_splat(hi);
    for (int i = 0; i < 2; i++) {
        const v128_t *q = r + 4 * i;
        const v128_t o0 = wasm_f32x4_add(wasm_f32x4_add(q[0], q[1]), q[2]);
        const v128_t o1 = wasm_f32x4_sub(wasm_f32x4_sub(q[1], q[2]), q[3]);
        wgk_winograd_store_row4(o0, o1, y + (size_t)i * OW, res ? res + (size_t)i * OW : NULL, bv, lv, hv);
    }
}
#endif

/* y tile = A^T M A, A^T = [1 1 1 0; 0 1 -1 -1]. */
static void out_tile(const float *s, float *out)
{
    float r[8];
    for (int j = 0; j < 4; j++) {
        r[j] = s[j] + s[4 + j] + s[8 + j];
        r[4 + j] = s[4 + j] - s[8 + j] - s[12 + j];
    }
    out[0] = r[0] + r[1] + r[2];
    out[1] = r[1] - r[2] - r[3];
    out[2] = r[4] + r[5] + r[6];
    out[3] = r[5] - r[6] - r[7];
}

void wgk_f32_conv2d_winograd_f2x3(const wgk_conv2d_args *a)
{
    if (wgk_winograd_per_group(a, wgk_f32_conv2d_winograd_f2x3,
                           wgk_winograd_f2x3_pack_w_size((size_t)(a->M / a->groups), (size_t)(a->C / a->groups))))
        return;
    static const wino2x2 f2 = {16, 2, 4, load_tile, out_tile,
#ifdef __wasm_simd128__
                               load_tiles4, store_tiles4
#endif
    };
    const int tiles = ((a->OH + 1) / 2) * ((a->OW + 1) / 2);
    wgk_winograd_out2x2_run(a, &f2, wgk_winograd_f2x3_block_tiles(a->C, a->M, tiles));
}
