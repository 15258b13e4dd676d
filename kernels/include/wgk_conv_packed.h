/*
 * wgk_conv_packed.h: 2-D convolution (NCHW fp32) as a packed GEMM, the fast path for
 * every conv with weights known at compile time that is not depthwise:
 *
 *   Y_g[m, n] = W_g[m, k] x B_g[k, n]      m: output channel, n = oh*OW + ow,
 *                                          k = (c, kh, kw) in ONNX weight order
 *
 * W is packed at compile time in panels of WGK_CONV_MR rows (wgk_conv_pack_w below).
 * B (the activations, or their im2col) is packed at run time, one block of
 * wgk_conv_block_cols() output pixels at a time, into panels of WGK_CONV_NR columns
 * ([panel][k][NR], zero padded) in the scratch buffer, so the micro-kernel reads both
 * operands contiguously (A panel from L1, B block from L2). The im2col is fused into
 * that packing: no full im2col buffer.
 *
 * The micro-kernel is SIMD128 (4x8 tile, kernels/conv-ukernel/f32-conv-ukernel-4x8.c) in
 * -msimd128 builds, f32x4.relaxed_madd
 * under -mrelaxed-simd, and scalar otherwise; the driver is the same.
 *
 * Plain C (no SIMD types): the compiler includes this header to pack weights and size
 * the scratch.
 */
#ifndef WGK_CONV_PACKED_H
#define WGK_CONV_PACKED_H

#include <stddef.h>

#include "wgk_conv.h"

#define WGK_CONV_MR 4
#define WGK_CONV_NR 8

/* Floats of the packed weight of one group: ceil(Mg / MR) panels of MR x Kg. */
static inline size_t wgk_conv_pack_w_group(size_t Mg, size_t Kg)
{
    return (Mg + WGK_CONV_MR - 1) / WGK_CONV_MR * WGK_CONV_MR * Kg;
}

static inline size_t wgk_conv_pack_w_size(size_t M, size_t Kg, size_t groups)
{
    return groups * wgk_conv_pack_w_group(M / groups, Kg);
}

/* One group's matrix A[R][c] (R < rows, c < cols) = src[R*rs + c*cs] into MR-row panels:
 * panel p holds dst[(p*cols + c)*MR + r] = A[p*MR + r][c], rows past `rows` zero. Shared
 * by the conv weights (rows = output channels, read row-major) and the ConvTranspose
 * weights (read transposed, wgk_convnd.h). */
static inline void wgk_pack_panels(const float *src, size_t rows, size_t cols, size_t rs, size_t cs,
                                   float *dst)
{
    const size_t panels = (rows + WGK_CONV_MR - 1) / WGK_CONV_MR;
    for (size_t p = 0; p < panels; p++)
        for (size_t c = 0; c < cols; c++)
            for (size_t r = 0; r < WGK_CONV_MR; r++) {
                const size_t R = p * WGK_CONV_MR + r;
                dst[(p * cols + c) * WGK_CONV_MR + r] = R < rows ? src[R * rs + c * cs] : 0.0f;
            }
}

/* w: ONNX layout [M][Kg] per group (Kg = C/groups*KH*KW). Group g starts at
 * g * wgk_conv_pack_w_group(Mg, Kg); inside it panel p holds
 * dst[(p*Kg + k)*MR + r] = W[g*Mg + p*MR + r][k], rows past Mg zero. */
static inline void wgk_conv_pack_w(const float *w, size_t M, size_t Kg, size_t groups, float *dst)
{
    const size_t mg = M / groups;
    for (size_t g = 0; g < groups; g++)
        wgk_pack_panels(w + g * mg * Kg, mg, Kg, Kg, 1, dst + g * wgk_conv_pack_w_group(mg, Kg));
}

/* Reduction depth per pass over y: a KC x MR weight slice, broadcast 4x
 * (wgk_conv_splat_a), is 32 KiB: stays in the 48 KiB L1 next to the B panel streaming
 * past it. 512 rather than 256 halves the read-modify-write passes over y for deep
 * reductions (faster on ResNet stage 4's 3x3 stride-2 conv, a little on 1x1 convs).
 * With a 32 KiB L1 (Zen 3) 256 was no faster either over ResNet-50 v2's profile (the
 * 56x56 layers a little faster, the 14x14 and 7x7 ones slower from the extra passes). */
#define WGK_CONV_KC 512

/* Output pixels per packed B block, a multiple of NR, never more than the image needs.
 * The micro-kernels sweep one KC-deep slice of the block for every weight panel, so the
 * slice (min(K, KC) x columns, about 256 KiB) is what must stay in L2; the whole block
 * stays under 4 MiB. Sizing by the slice rather than the whole block matters for deep
 * reductions on small images (K = 4608, 7x7 outputs), where whole-block
 * sizing left 8 columns, one tile per slice. */
static inline int wgk_conv_block_cols(int Kg, int OHW)
{
    const long k = Kg > 0 ? Kg : 1;
    long nc = 65536L / (k < WGK_CONV_KC ? k : WGK_CONV_KC);
    if (nc > 1048576L / k)
        nc = 1048576L / k;
    nc -= nc % WGK_CONV_NR;
    if (nc < WGK_CONV_NR)
        nc = WGK_CONV_NR;
    long need = ((long)OHW + WGK_CONV_NR - 1) / WGK_CONV_NR * WGK_CONV_NR;
    /* Up to two blocks: one block of up to twice the slice (512 KiB, still in L2)
     * instead, so every weight panel is streamed and broadcast once, not twice (the
     * second block often a thin tail): faster on SqueezeNet's 512 -> 1000 conv on 13x13
     * and ResNet's 1024 -> 256 convs on 14x14 (paired wasmtime runs). */
    if (need <= 2 * nc && need * (k < WGK_CONV_KC ? k : WGK_CONV_KC) <= 131072L && need * k <= 1048576L)
        nc = need;
    return (int)(nc < need ? nc : need);
}

/* Rows (or columns) of the input the outputs read, counted from -PT (or -PL). */
static inline int wgk_conv_span(int out, int stride, int kernel, int dilation)
{
    return (out - 1) * stride + (kernel - 1) * dilation + 1;
}

/* Floats of the zero-padded copy of one group's input planes that the fused im2col
 * reads when the conv pads (every read is then a plain load, no bounds tests); 0 when
 * every read lies inside the image and x is read in place. */
static inline size_t wgk_conv_packed_pad_floats(const wgk_conv2d_args *a)
{
    const int hp = wgk_conv_span(a->OH, a->SH, a->KH, a->DH), wp = wgk_conv_span(a->OW, a->SW, a->KW, a->DW);
    if (a->PT <= 0 && a->PL <= 0 && hp <= a->H && wp <= a->W)
        return 0;
    return (size_t)(a->C / a->groups) * (size_t)hp * (size_t)wp;
}

/* Scratch floats wgk_f32_conv2d_packed needs: the packed B block; the broadcast weight
 * slice; the padded input (wgk_conv_packed_pad_floats); the im2col offset tables (one
 * int per k, one per block column and three per panel). */
static inline size_t wgk_conv_packed_scratch(const wgk_conv2d_args *a)
{
    const size_t kg = (size_t)(a->C / a->groups) * (size_t)a->KH * (size_t)a->KW;
    const size_t nc = (size_t)wgk_conv_block_cols((int)kg, a->OH * a->OW);
    return kg * nc + 4 * WGK_CONV_MR * WGK_CONV_KC + wgk_conv_packed_pad_floats(a) + kg + nc +
           3 * (nc / WGK_CONV_NR);
}

/* The convolution; a->w packed by wgk_conv_pack_w, a->scratch of
 * wgk_conv_packed_scratch(a) floats; a->gemm and a->w_rowmajor
 * are not used. a->share: each group's output channels [m0, m1) (multiples of
 * WGK_CONV_MR, m1 may be M / groups) and output pixels [p0, p1) (multiples of WGK_CONV_NR,
 * p1 may be OH * OW), computed exactly as in the whole call: a pixel's sums do not depend
 * on where its block starts (wgk_split_conv2d_packed chooses; the channel split has every
 * share pack every B block, 1/M of its multiplies, and left PP-OCRv4 det's 8- to
 * 32-channel layers far from half the time on two threads). */
void wgk_f32_conv2d_packed(const wgk_conv2d_args *a);

/* The micro-kernel: MR rows x ncols columns of C, one MR x NR tile at a time,
 *   c[r*ldc + j] = clamp(sum_k a[k*MR + r] * B(k, j) + bias[r] + res[r*ldr + j], min, max)
 * for r < mr, j < ncols, with B(k, j) = b[(j/NR)*bstride + k*NR + j%NR] (packed panels;
 * the rows past mr and columns past ncols are computed and dropped: a and b must hold
 * full MR / NR rows, zero padded). bias and res may be NULL. With accumulate != 0 the
 * sum is added to what c holds (a later block of k; bias and res are then NULL). */
void wgk_f32_conv_ukernel(int mr, int ncols, int K, const float *a, const float *b, size_t bstride,
                          float *c, int ldc, const float *bias, const float *res, int ldr,
                          float min, float max, int accumulate);

/* The same with a broadcast A panel: dst of wgk_conv_splat_a(a, K, dst) (16 floats per
 * k, each of the 4 weights 4 times). Faster in wasmtime (4 loads instead of 4 lane
 * shuffles); the broadcast costs about as much as one tile, so use it for >= 2 tiles. */
void wgk_conv_splat_a(const float *a, int K, float *dst);
void wgk_f32_conv_ukernel_splat(int mr, int ncols, int K, const float *a, const float *b,
                                size_t bstride, float *c, int ldc, const float *bias,
                                const float *res, int ldr, float min, float max, int accumulate);
/* The same layout from 4 values per k found stride floats apart:
 * dst[k*16 + r*4 + l] = src[k*stride + r] (wgk_conv_splat_a is stride 4; the Winograd
 * few-tile GEMM broadcasts 4 tiles of each channel, stride = tiles per channel). */
void wgk_conv_splat_strided(const float *src, size_t stride, int K, float *dst);

/* wgk_conv_splat_a of a + a2 (a - a2 when negate; a alone when a2 is NULL): the broadcast
 * panel of a sum of two packed weight panels (wgk_conv_strassen.h). */
void wgk_conv_splat_a2(const float *a, const float *a2, int negate, int K, float *dst);

/* A second destination of a tile: c (same ldc as the first) = (accumulate ? c : 0) +- the
 * product, over its first ncols columns; no bias, residual or clamp. */
typedef struct wgk_conv_dst2 {
    float *c;
    int ncols, negate, accumulate;
} wgk_conv_dst2;

/* wgk_f32_conv_ukernel_splat that also writes each tile to d2 (NULL: none), over
 * max(ncols, d2->ncols) columns of B: one product added into two blocks of the output,
 * as Strassen's algorithm needs (kernels/conv/f32-conv2d-strassen.c). */
void wgk_f32_conv_ukernel_splat_dual(int mr, int ncols, int K, const float *a, const float *b,
                                     size_t bstride, float *c, int ldc, const float *bias,
                                     const float *res, int ldr, float min, float max, int accumulate,
                                     const wgk_conv_dst2 *d2);

/* One whole 4x8 tile from a broadcast A panel (wgk_conv_splat_a), stored transposed:
 * c[j*ldc + r] (+)= sum_k A(k, r) * B(k, j), with B(k, j) = b[k*bk + j] for j < 4 and
 * b[k*bk + b1 + j - 4] for j >= 4 (two 4-wide panels side by side, such as two 4-row
 * weight panels of wgk_conv_pack_w: bk = 4, b1 = K*4; b1 = 4, bk = 8 is an 8-wide one);
 * added to what c holds when accumulate. No other epilogue. The GEMMs whose rows are
 * broadcast pixels or Winograd tiles and whose columns are output channels
 * (wgk_f32_conv2d_fewpix, wgk_winograd_gemm on few tiles). */
void wgk_f32_conv_ukernel_splat_t(int K, const float *a, const float *b, size_t bk, size_t b1, float *c, int ldc,
                                  int accumulate);

/* wgk_f32_conv_ukernel_splat_t's tile for only `rows` (1 or 2) rows of A, given
 * compact (x[r*K + k] = A(k, r)), not broadcast: the last, part-filled group of rows when
 * their count is 1 or 2 past a multiple of 4 (a 7x7 output's 49th pixel). A whole tile
 * costs the same as 4 rows: one broadcast line per k, as many multiplies. Here each 4 k
 * of a row are one load, and the reduction runs as interleaved partial sums so that 8
 * multiply-add chains keep the vector units busy. */
void wgk_f32_conv_ukernel_t_few(int rows, int K, const float *x, const float *b, size_t bk, size_t b1, float *c,
                                int ldc, int accumulate);

/* wgk_f32_conv_ukernel_splat on a row-major B, B(k, j) = b[k*ldb + j]: the Winograd
 * kernels' transformed tiles (wgk_winograd_gemm, rows nt floats apart). ncols: a multiple of
 * 4; a last tile of 4 columns reads only those, any other tile all 8 (nothing past ncols
 * is read when ncols is a multiple of NR). */
void wgk_f32_conv_ukernel_splat_rows(int mr, int ncols, int K, const float *a, const float *b,
                                     size_t ldb, float *c, int ldc, const float *bias,
                                     const float *res, int ldr, float min, float max, int accumulate);

#endif
