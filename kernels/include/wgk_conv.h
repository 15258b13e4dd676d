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
 *                          direct loops, SIMD along the output row for strides 1 and 2;
 *                          3x3, 5x5 and 7x7 in SIMD builds: wgk_f32_dwconv2d_KxK_sHxW below.
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
    /* After the clamp (wgk_f32_conv2d_packed and wgk_f32_dwconv2d_KxK_sHxW only; others
     * ignore it): post & WGK_POST_HARDSWISH: y = y * clamp(y / 6 + 1/2, 0, 1); then
     * post & WGK_POST_AFFINE: y = y * post_scale + post_shift. */
    int post;
    float post_scale, post_shift;
    /* A second output, from the final y (wgk_f32_conv2d_packed, _strassen and _fewpix;
     * others ignore it): y2 = clamp(y * y2_affine[m] + y2_affine[M + m], y2_min, y2_max)
     * for output channel m, at y2 + (the offset in y); y2 == y overwrites y. A
     * BatchNormalization (+ Relu) that reads the conv's output, applied while the rows are
     * in L1 instead of in a pass of its own (wgk_conv2d_out2). NULL: none. */
    float *y2;
    const float *y2_affine;
    float y2_min, y2_max;
    /* The share of the output this call computes (wgk_base.h; zeroed: all of it). The
     * kernels a threaded module splits (wgk_split.h) say in their header what its
     * channels and positions are; others take the whole output. The scratch is the
     * calling thread's own. */
    wgk_share share;
} wgk_conv2d_args;

#define WGK_POST_HARDSWISH 1
#define WGK_POST_AFFINE 2

/* planes input planes of H x W at x, each copied into an hp x wp plane at dst (one after
 * the other) with input (ih, iw) at (ih + PT, iw + PL) and zeros elsewhere; input rows and
 * columns past hp, wp are left out (kernels/conv/pad-planes.c). */
void wgk_pad_planes(const float *x, int planes, int H, int W, int PT, int PL, int hp, int wp, float *dst);

/* The same over n floats of y, in place: for the kernels that do not apply it. */
void wgk_f32_post(float *y, size_t n, int post, float scale, float shift);

/* a->y2's n values of output channel m from the final ones at y (a row of a->y;
 * kernels/conv/f32-conv2d-out2.c). */
void wgk_conv2d_out2(const wgk_conv2d_args *a, int m, const float *y, size_t n);

#ifdef __wasm_simd128__
/* The post-ops on one vector (same operations, in the same order, as wgk_f32_post). */
WGK_INLINE v128_t wgk_post4(v128_t v, int post, v128_t scale, v128_t shift)
{
    if (post & WGK_POST_HARDSWISH) {
        const v128_t t = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(1.0f / 6.0f), v), wasm_f32x4_splat(0.5f));
        v = wasm_f32x4_mul(v, wasm_f32x4_pmin(wasm_f32x4_pmax(t, wasm_f32x4_splat(0.0f)), wasm_f32x4_splat(1.0f)));
    }
    if (post & WGK_POST_AFFINE)
        v = wasm_f32x4_add(wasm_f32x4_mul(v, scale), shift);
    return v;
}
#endif

/* Floats of scratch wgk_f32_conv2d_im2col needs: (C/groups)*KH*KW * OH*OW. */
static inline size_t wgk_conv2d_im2col_scratch(int C, int groups, int KH, int KW, int OH, int OW)
{
    return (size_t)(C / groups) * (size_t)KH * (size_t)KW * (size_t)OH * (size_t)OW;
}

void wgk_f32_conv2d_1x1(const wgk_conv2d_args *a);
void wgk_f32_conv2d_im2col(const wgk_conv2d_args *a);
/* The depthwise kernel (groups = C): a->share's channels are whole groups of output
 * channels (M / groups each), its positions every pixel. */
void wgk_f32_dwconv2d(const wgk_conv2d_args *a);

/* Depthwise 3x3, 5x5 and 7x7, strides 1 or 2 each way, no dilation, SIMD128 builds only
 * (kernels/conv/f32-dwconv2d-padded.c): wgk_f32_dwconv2d_KxK_sSHxSW. Each input plane
 * is zero-padded into a->scratch first (wgk_dwconv2d_padded_scratch floats), then two
 * output rows x 16 columns are computed at a time. */
static inline int wgk_dwconv2d_padded_ok(const wgk_conv2d_args *a)
{
    return a->KH == a->KW && (a->KH == 3 || a->KH == 5 || a->KH == 7) && (a->SH == 1 || a->SH == 2) &&
           (a->SW == 1 || a->SW == 2) && a->DH == 1 && a->DW == 1;
}

/* The padded plane: output rows go in pairs, columns in blocks of 16, and a stride-2
 * vector reads one float past its last tap, so it has room for all those reads. */
static inline void wgk_dwconv2d_padded_dims(const wgk_conv2d_args *a, int *hp, int *wp)
{
    const int oh = (a->OH + 1) / 2 * 2, ow = (a->OW + 15) / 16 * 16;
    *hp = (oh - 1) * a->SH + a->KH;
    *wp = (ow - 1) * a->SW + a->KW + (a->SW == 2);
}

/* Scratch floats: the padded plane and a spare output row (an odd last row's partner). */
static inline size_t wgk_dwconv2d_padded_scratch(const wgk_conv2d_args *a)
{
    int hp, wp;
    wgk_dwconv2d_padded_dims(a, &hp, &wp);
    return (size_t)hp * (size_t)wp + (size_t)(a->OW + 15) / 16 * 16;
}

void wgk_f32_dwconv2d_3x3_s1x1(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_3x3_s1x2(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_3x3_s2x1(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_3x3_s2x2(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_5x5_s1x1(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_5x5_s1x2(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_5x5_s2x1(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_5x5_s2x2(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_7x7_s1x1(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_7x7_s1x2(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_7x7_s2x1(const wgk_conv2d_args *a);
void wgk_f32_dwconv2d_7x7_s2x2(const wgk_conv2d_args *a);

#endif
