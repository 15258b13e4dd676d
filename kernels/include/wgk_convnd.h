/*
 * wgk_convnd.h: direct (loop) convolution and transposed convolution over up to 3
 * spatial dims, NC[D][H]W fp32. 1-D and 2-D problems pass size-1 leading spatial dims
 * (in = out = k = s = d = 1, p = 0). Slow but exact; the 2-D Conv fast paths are in
 * wgk_conv.h.
 *
 * Conv:           y[n, m, o] = sum_{c in group(m), k} x[n, c, o*s - p + k*d] * w[m, c', k]
 *                 w: [M][C/groups][KD][KH][KW]; epilogue y = clamp(y + bias + res, min, max)
 * ConvTranspose:  y[n, m, i*s - p + k*d] += x[n, c, i] * w[c, m', k]
 *                 w: [C][M/groups][KD][KH][KW]; y = bias, then the scatter; min/max, res
 *                 applied after.
 *
 * The fast 2-D ConvTranspose (wgk_f32_deconv2d, kernels/conv/f32-deconv2d.c) is a packed
 * GEMM per image and group into column tiles, then col2im:
 *   cols[(m', kh, kw)][ih*W + iw] = sum_c w[c, m', kh, kw] * x[c, ih, iw]
 *   y[m, ih*SH - PT + kh*DH, iw*SW - PL + kw*DW] += cols[...]
 * on the conv micro-kernels of wgk_conv_packed.h, with the weight packed as the
 * [M*KH*KW][C/groups] matrix (wgk_deconv2d_pack_w).
 */
#ifndef WGK_CONVND_H
#define WGK_CONVND_H

#include "wgk_base.h"
#include "wgk_conv_packed.h"

typedef struct wgk_convnd_args {
    int N, C, M, groups;
    int in[3], out[3], k[3], s[3], d[3], p[3]; /* p: padding before */
    const float *x, *w;
    const float *bias; /* [M] or NULL */
    const float *res;  /* like y, or NULL */
    float *y;
    float min, max;
} wgk_convnd_args;

void wgk_f32_conv3d_direct(const wgk_convnd_args *a);
void wgk_f32_deconv3d_direct(const wgk_convnd_args *a);

typedef struct wgk_deconv2d_args {
    int N, C, H, W; /* input */
    int M, OH, OW;  /* output channels and size */
    int KH, KW, SH, SW, DH, DW;
    int PT, PL;     /* padding before (top, left); the rest only shows in OH/OW */
    int groups;
    const float *x;
    const float *w;     /* packed by wgk_deconv2d_pack_w, or ONNX layout when w_onnx */
    int w_onnx;         /* 1: w is [C][M/groups][KH][KW], packed into scratch per call */
    const float *bias;  /* [M] or NULL */
    const float *res;   /* [N][M][OH][OW] or NULL */
    float *y;
    float *scratch;     /* wgk_deconv2d_scratch floats */
    float min, max;     /* y = clamp(deconv + bias + res, min, max) */
    wgk_share share;    /* the share of the output this call computes (wgk_base.h): weight
                         * rows (m', kh, kw) and input pixels, in its store form (below) */
} wgk_deconv2d_args;

/* Whether every output pixel gets exactly one tap (kernel = stride, undilated, unpadded,
 * output exactly H*SH x W*SW: the 2x2 stride-2 upsamplers of segmentation and detection
 * heads): the GEMM tile is then stored into y with its epilogue, each weight row (m', kh,
 * kw) writing pixels no other row writes, so threads can split the rows. Otherwise taps
 * overlap and are accumulated (col2im) into a y that starts as the bias. */
static inline int wgk_deconv2d_stores(int H, int W, int OH, int OW, int KH, int KW, int SH, int SW,
                                      int DH, int DW, int PT, int PL)
{
    return KH == SH && KW == SW && DH == 1 && DW == 1 && PT == 0 && PL == 0 && OH == H * SH &&
           OW == W * SW;
}

/* Columns of the GEMM output tile the col2im reads back while it is in L1. */
#define WGK_DECONV_SUB 256

/* Floats of the packed weight: per group a [Mg*KH*KW][C/groups] matrix in MR-row panels. */
static inline size_t wgk_deconv2d_pack_w_size(size_t C, size_t M, size_t KHW, size_t groups)
{
    return wgk_conv_pack_w_size(M * KHW, C / groups, groups);
}

/* w: ONNX layout [C][Mg][KHW] (KHW = KH*KW). Group g, panel p of the packed matrix holds
 * dst[(p*Cg + c)*MR + r] = w[g*Cg + c][R / KHW][R % KHW] with R = p*MR + r (zero for
 * R >= Mg*KHW): the wgk_conv_pack_w layout of A_g[R][c]. */
static inline void wgk_deconv2d_pack_w(const float *w, size_t C, size_t M, size_t KHW,
                                       size_t groups, float *dst)
{
    const size_t cg = C / groups, rows = M / groups * KHW;
    for (size_t g = 0; g < groups; g++)
        wgk_pack_panels(w + g * cg * rows, rows, cg, 1, rows,
                        dst + g * wgk_conv_pack_w_group(rows, cg));
}

/* Scratch floats wgk_f32_deconv2d needs: the packed weight when w_onnx, a packed B block
 * of the input, the broadcast weight panel and the column tile. */
static inline size_t wgk_deconv2d_scratch(int C, int M, int KH, int KW, int groups, int H, int W,
                                          int w_onnx)
{
    const int cg = C / groups;
    size_t n = (size_t)cg * (size_t)wgk_conv_block_cols(cg, H * W) +
               4 * WGK_CONV_MR * (size_t)cg + WGK_CONV_MR * WGK_DECONV_SUB;
    if (w_onnx)
        n += wgk_deconv2d_pack_w_size((size_t)C, (size_t)M, (size_t)KH * (size_t)KW,
                                      (size_t)groups);
    return n;
}

/* The 2-D transposed convolution (any kernel, stride, dilation, padding, group; output
 * padding through OH/OW). a->share, in the store form only: weight rows in whole MR-row
 * panels and input pixels in runs of WGK_DECONV_SUB. */
void wgk_f32_deconv2d(const wgk_deconv2d_args *a);

#endif
