/*
 * wgk_conv_strassen.h: 1x1 convolutions (any stride, no padding, one group) by one
 * level of Strassen's algorithm. The conv is the GEMM Y = W X (W: M x K output by input
 * channels, X: K x P input channels by output pixels); split into 2x2 blocks along M, K
 * and P, it takes 7 products of half size instead of 8:
 *
 *   M1 = (W11 + W22)(X11 + X22)   M5 = (W11 + W12) X22      Y11 = M1 + M4 - M5 + M7
 *   M2 = (W21 + W22) X11          M6 = (W21 - W11)(X11 + X12) Y12 = M3 + M5
 *   M3 = W11 (X12 - X22)          M7 = (W12 - W22)(X21 + X22) Y21 = M2 + M4
 *   M4 = W22 (X21 - X11)                                     Y22 = M1 - M2 + M3 + M6
 *
 * 12.5% fewer multiplies, for additions in proportion to K*P (the input sums, packed per
 * block of pixels) and M*P (each product lands in one or two output blocks, through the
 * micro-kernel's second destination). The weight sums are formed while the weight panel
 * is broadcast (wgk_conv_splat_a2), so the weights stay in the layout of
 * wgk_f32_conv2d_packed (wgk_conv_pack_w) and cost no memory: codegen can switch a layer
 * between the two kernels freely.
 *
 * Plain C: the compiler includes this header to check the shape and size the scratch.
 */
#ifndef WGK_CONV_STRASSEN_H
#define WGK_CONV_STRASSEN_H

#include "wgk_conv_packed.h"

/* Whether the layer's shape suits the kernel: 1x1, no padding, one group, M a multiple
 * of 8, C even. Whether it pays is src/select/'s choice (tunables.h, WGC_STRASSEN_*). */
static inline int wgk_conv_strassen_fits(const wgk_conv2d_args *a)
{
    return a->groups == 1 && a->KH == 1 && a->KW == 1 && a->PT == 0 && a->PL == 0 &&
           wgk_conv_span(a->OH, a->SH, 1, 1) <= a->H && wgk_conv_span(a->OW, a->SW, 1, 1) <= a->W &&
           a->M % (2 * WGK_CONV_MR) == 0 && a->C % 2 == 0;
}

/* Output pixels per block of the first half (P/2 rounded up) of the pixels, a multiple of
 * NR: the block's 7 packed input operands (7 x K/2 x columns) stay within about 1.6 MiB
 * of L2 while every weight panel's products sweep them; blocks of equal width. With a
 * 512 KiB L2 (Zen 3) a quarter of that was slower (ResNet-50 v2's Strassen layers) and
 * twice that no faster beyond the noise. */
static inline int wgk_conv_strassen_block_cols(int K, int M, int P)
{
    (void)M;
    const long ph = (P + 1) / 2;
    long nc = 409600L / (7L * (K / 2 > 0 ? K / 2 : 1));
    nc -= nc % WGK_CONV_NR;
    if (nc < WGK_CONV_NR)
        nc = WGK_CONV_NR;
    const long blocks = (ph + nc - 1) / nc, w = (ph + blocks - 1) / blocks;
    return (int)((w + WGK_CONV_NR - 1) / WGK_CONV_NR * WGK_CONV_NR);
}

/* Scratch floats: the 7 packed input operands, the broadcast weight slice and, strided,
 * the input pixels the conv reads (K x P); at least what
 * wgk_f32_conv2d_packed needs, which the kernel falls back to when the output overlaps
 * its input (other than a residual that is the output itself). */
static inline size_t wgk_conv_strassen_scratch(const wgk_conv2d_args *a)
{
    const size_t P = (size_t)a->OH * (size_t)a->OW, K = (size_t)a->C;
    const size_t nc = (size_t)wgk_conv_strassen_block_cols(a->C, a->M, (int)P);
    const size_t strided = a->SH == 1 && a->SW == 1 ? 0 : K * P;
    const size_t need = 7 * (K / 2) * nc + 4 * WGK_CONV_MR * WGK_CONV_KC + strided;
    const size_t packed = wgk_conv_packed_scratch(a);
    return need > packed ? need : packed;
}

/* Whether the output overlaps the input, or a residual other than the output itself: the
 * kernel writes output blocks before it has read every input (and residual) value, so it
 * then runs as wgk_f32_conv2d_packed (and takes that kernel's share, wgk_split.h). */
static inline int wgk_conv_strassen_in_place(const wgk_conv2d_args *a)
{
    const size_t P = (size_t)a->OH * a->OW, xsize = (size_t)a->N * a->C * a->H * a->W;
    const size_t ysize = (size_t)a->N * a->M * P;
    const float *y = a->y;
    return (a->x < y + ysize && y < a->x + xsize) ||
           (a->res && a->res != a->y && a->res < y + ysize && y < a->res + ysize);
}

/* a: wgk_conv_strassen_fits; a->w packed by wgk_conv_pack_w (as for
 * wgk_f32_conv2d_packed); a->scratch of wgk_conv_strassen_scratch(a) floats. Same
 * epilogue (bias, residual, clamp, post-ops) as wgk_f32_conv2d_packed. a->share: the
 * half-size weight rows [m0, m1) (of M / 2, in MR panels; each gives output rows m and
 * m + M/2) and the first half's pixels [p0, p1) (of (OH*OW + 1) / 2, in NR panels; each
 * with its partner in the second half). */
void wgk_f32_conv2d_strassen(const wgk_conv2d_args *a);

#endif
