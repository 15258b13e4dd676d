/*
 * pad-planes.c: the zero-padded copy of input planes that the im2col of the packed conv
 * and the padded depthwise kernels read (wgk_conv.h), so that their inner loops need no
 * bounds tests.
 */
#include "wgk_conv.h"

/* dst[0 .. n) = 0, in vectors (clang would otherwise call memset once per short row). */
static void zero_run(float *dst, int n)
{
    int q = 0;
#ifdef __wasm_simd128__
    for (; q + 4 <= n; q += 4)
        wasm_v128_store(dst + q, wasm_f32x4_splat(0.0f));
#endif
    for (; q < n; q++)
        dst[q] = 0.0f;
}

/* dst[0 .. n) = src[0 .. n), in vectors. */
static void copy_run(float *dst, const float *src, int n)
{
    int q = 0;
#ifdef __wasm_simd128__
    for (; q + 4 <= n; q += 4)
        wasm_v128_store(dst + q, wasm_v128_load(src + q));
#endif
    for (; q < n; q++)
        dst[q] = src[q];
}

void wgk_pad_planes(const float *x, int planes, int H, int W, int PT, int PL, int hp, int wp, float *dst)
{
    /* Columns [0, l) and [r, wp) of a padded row are zeros, [l, r) input columns. */
    const int l = PL < wp ? PL : wp, r = PL + W < wp ? PL + W : wp;
    for (int c = 0; c < planes; c++)
        for (int row = 0; row < hp; row++, dst += wp) {
            const int ih = row - PT;
            if (ih < 0 || ih >= H) {
                zero_run(dst, wp);
                continue;
            }
            zero_run(dst, l);
            copy_run(dst + l, x + ((size_t)c * H + (size_t)ih) * W + (l - PL), r - l);
            zero_run(dst + r, wp - r);
        }
}
