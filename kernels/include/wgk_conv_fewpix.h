/*
 * wgk_conv_fewpix.h: convolutions on small outputs (ResNet stage 4: 7x7) as the GEMM
 * with its operands swapped, Y^T (pixels x M) = X^T (pixels x K) W^T (K x M).
 *
 * wgk_f32_conv2d_packed broadcasts each weight panel (4 output channels x a k slice) once
 * and reuses it over every 8-pixel tile: on 49 pixels that is 6.5 tiles, and the
 * broadcast costs about one more. Here the pixels are the broadcast operand instead
 * (4 pixels x the k slice, for every pixel group, once per slice: cheap, the image is
 * small) and the weights the streamed one, two of wgk_conv_pack_w's 4-row panels side by
 * side as 8 columns (the same weight as wgk_f32_conv2d_packed's, so codegen switches the
 * kernel only): each pair's slice stays in L1 while the pixel groups pass it, and every
 * weight is read from memory once. The micro-kernel stores its tiles transposed
 * (wgk_f32_conv_ukernel_splat_t) into a channel-major copy of y in scratch; a last pass
 * applies the epilogue (bias, residual, clamp, post-ops) row by row into y.
 *
 * Plain C: the compiler includes this header to check the shape and size the scratch.
 */
#ifndef WGK_CONV_FEWPIX_H
#define WGK_CONV_FEWPIX_H

#include "wgk_conv_packed.h"

/* Whether the layer's shape suits the kernel: one group, one image. On which layers it
 * pays (few output pixels, enough channels) is src/select/'s choice (WGC_FEWPIX_*). */
static inline int wgk_conv_fewpix_fits(const wgk_conv2d_args *a)
{
    return a->groups == 1 && a->N == 1;
}

/* Scratch floats: the channel-major output (M rounded up to 8, x P rounded up to 4), the
 * broadcast pixel groups of one k slice (ceil(P/4) x KC x 16), a last weight panel paired
 * with zeros when M rounds up to an odd number of 4-row panels (8 x K), the zero-padded
 * input when the conv pads, the tap and pixel offset tables. */
static inline size_t wgk_conv_fewpix_scratch(const wgk_conv2d_args *a)
{
    const size_t P = (size_t)a->OH * (size_t)a->OW, K = (size_t)a->C * (size_t)a->KH * (size_t)a->KW;
    const size_t mp = ((size_t)a->M + WGK_CONV_NR - 1) / WGK_CONV_NR * WGK_CONV_NR, groups = (P + 3) / 4;
    return mp * 4 * groups + groups * WGK_CONV_KC * 16 + WGK_CONV_NR * K + wgk_conv_packed_pad_floats(a) + K + P;
}

/* a: one group, one image; a->w packed by wgk_conv_pack_w (as for wgk_f32_conv2d_packed);
 * a->scratch of wgk_conv_fewpix_scratch(a) floats. Epilogue as wgk_f32_conv2d_packed.
 * a->share: output channels in pairs of weight panels (m0 a multiple of 8, m1 one or M),
 * every pixel. */
void wgk_f32_conv2d_fewpix(const wgk_conv2d_args *a);

#endif
