/*
 * wgk_conv.h: 2-D convolution, NCHW fp32, with a fused epilogue
 *   y = clamp(conv(x, w) + bias[m] + res, min, max)     (res: same shape as y, or NULL)
 *
 * Three kernels; codegen picks one per layer:
 *   wgk_f32_conv2d_1x1     1x1 kernel, stride 1, no padding: per image and group one GEMM
 *                          Y[m, hw] = W[m, c] x X[c, hw] straight on the NCHW input.
 *   wgk_f32_conv2d_im2col  anything else: im2col of each image and group into scratch
 *                          (wgk_conv2d_im2col_scratch floats), then the same GEMM.
 *   wgk_f32_dwconv2d       depthwise (one input channel per group, any multiplier):
 *                          direct loops, SIMD along the output row when stride is 1.
 * The GEMM kernels take w packed by wgk_pack_conv (wgk_pack.h, done at compile time; or
 * in ONNX layout with w_rowmajor = 1 when the weight is computed at run time) and
 * the GEMM function in `gemm` (wgk_f32_gemm_4x8__wasmsimd or wgk_f32_gemm_4x4__scalar).
 * The depthwise kernel takes w in ONNX layout [M][1][KH][KW].
 */
#ifndef WGK_CONV_H
#define WGK_CONV_H

#include "wgk_base.h"
#include "wgk_gemm.h"

typedef struct wgk_conv2d_args {
    int N, C, H, W;   /* input */
    int M, OH, OW;    /* output channels and size */
    int KH, KW;       /* kernel */
    int SH, SW;       /* strides */
    int DH, DW;       /* dilations */
    int PT, PL;       /* padding before (top, left); padding after only shows in OH/OW */
    int groups;
    const float *x;
    const float *w;
    const float *bias; /* [M] or NULL */
    const float *res;  /* [N][M][OH][OW] or NULL */
    float *y;
    float *scratch;    /* im2col only */
    float min, max;    /* no activation: -INFINITY, INFINITY; relu: 0, INFINITY */
    wgk_gemm_fn gemm;  /* GEMM kernels only */
    int w_rowmajor;    /* GEMM kernels: 1 when w is in ONNX layout (a weight that is not
                        * constant at compile time), 0 when packed by wgk_pack_conv */
} wgk_conv2d_args;

/* Floats of scratch wgk_f32_conv2d_im2col needs: (C/groups)*KH*KW * OH*OW. */
static inline size_t wgk_conv2d_im2col_scratch(int C, int groups, int KH, int KW, int OH, int OW)
{
    return (size_t)(C / groups) * (size_t)KH * (size_t)KW * (size_t)OH * (size_t)OW;
}

void wgk_f32_conv2d_1x1(const wgk_conv2d_args *a);
void wgk_f32_conv2d_im2col(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d(const wgk_conv2d_args *a);

#endif
