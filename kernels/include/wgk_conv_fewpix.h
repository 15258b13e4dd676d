/*
 * wgk_conv_fewpix.h: convolutions on small outputs (ResNet stage 4: 7x7) as the GEMM
 * with its operands swapped, Y^T (pixels x M) = X^T (pixels x K) W^T (K x M).
 *
 * wgk_f32_conv2d_packed broadcasts each weight panel (4 output channels x a k slice) once
 * and reuses it over every 8-pixel tile: on 49 pixels that is 6.5 tiles, and the
 * broadcast costs about one more. Here the pixels are the broadcast operand instead
 * (4 pixels x the k slice, for every pixel group, once per slice: cheap, the image is
 * small) and the weights the streamed one, in 8-channel panels packed at compile time
 * (wgk_conv_fewpix_pack_w): each weight panel slice stays in L1 while the pixel groups
 * pass it, and every weight is read from memory once. The micro-kernel writes Y^T into
 * scratch; a last pass transposes it into y with the epilogue (bias, residual, clamp,
 * post-ops).
 *
 * Plain C: the compiler includes this header to choose the kernel, pack the weights and
 * size the scratch.
 */
#ifndef WGK_CONV_FEWPIX_H
#define WGK_CONV_FEWPIX_H

#include "wgk_conv_packed.h"

/* Whether to use the kernel: one group, few output pixels, enough channels. */
static inline int wgk_conv_fewpix_ok(const wgk_conv2d_args *a)
{
    const long P = (long)a->OH * a->OW, K = (long)(a->C / (a->groups > 0 ? a->groups : 1)) * a->KH * a->KW;
    return a->groups == 1 && a->N == 1 && P >= 16 && P <= 64 && a->M >= 64 && K >= 256;
}

/* Floats of the packed weight: ceil(M / NR) panels of K x NR. */
static inline size_t wgk_conv_fewpix_pack_w_size(size_t M, size_t K)
{
    return (M + WGK_CONV_NR - 1) / WGK_CONV_NR * WGK_CONV_NR * K;
}

/* w: ONNX layout [M][K] (K = C*KH*KW); panel n holds dst[(n*K + k)*NR + j] = w[n*NR + j][k],
 * channels past M zero. */
static inline void wgk_conv_fewpix_pack_w(const float *w, size_t M, size_t K, float *dst)
{
    const size_t panels = (M + WGK_CONV_NR - 1) / WGK_CONV_NR;
    for (size_t n = 0; n < panels; n++)
        for (size_t k = 0; k < K; k++)
            for (size_t j = 0; j < WGK_CONV_NR; j++) {
                const size_t m = n * WGK_CONV_NR + j;
                dst[(n * K + k) * WGK_CONV_NR + j] = m < M ? w[m * K + k] : 0.0f;
            }
}

/* Scratch floats: Y^T (P rounded up to 4 x M rounded up to NR), the broadcast pixel
 * groups of one k slice (ceil(P/4) x KC x 16), the zero-padded input when the conv pads,
 * the tap and pixel offset tables. */
static inline size_t wgk_conv_fewpix_scratch(const wgk_conv2d_args *a)
{
    const size_t P = (size_t)a->OH * (size_t)a->OW, K = (size_t)a->C * (size_t)a->KH * (size_t)a->KW;
    const size_t mp = ((size_t)a->M + WGK_CONV_NR - 1) / WGK_CONV_NR * WGK_CONV_NR, groups = (P + 3) / 4;
    return 4 * groups * mp + groups * WGK_CONV_KC * 16 + wgk_conv_packed_pad_floats(a) + K + P;
}

/* a: wgk_conv_fewpix_ok(a); a->w packed by wgk_conv_fewpix_pack_w; a->scratch of
 * wgk_conv_fewpix_scratch(a) floats. Epilogue as wgk_f32_conv2d_packed. */
void wgk_f32_conv2d_fewpix(const wgk_conv2d_args *a);

#endif
