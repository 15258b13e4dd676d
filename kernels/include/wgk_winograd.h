/*
 * wgk_winograd.h: 3x3, stride 1, dilation 1, one-group convolution (NCHW fp32) by
 * Winograd F(2x2, 3x3): each 2x2 output tile costs 16 multiplies per (m, c) pair instead
 * of 36, so the GEMM work drops 2.25x; the transforms are cheap additions.
 *
 *   U = G g G^T  (4x4 per output/input channel pair, at compile time: wgk_wino_pack_w)
 *   V = B^T d B  (4x4 per input channel and tile, at run time, into packed B panels)
 *   M_xi = U_xi x V_xi for each of the 16 positions xi (the packed-GEMM micro-kernel)
 *   y tile = A^T M A (+ bias + residual, clamp)
 *
 * Tiles are processed in blocks of wgk_wino_block_tiles() so V and M of a block stay in
 * L2. Plain C: the compiler includes this header to transform and pack the weights.
 */
#ifndef WGK_WINOGRAD_H
#define WGK_WINOGRAD_H

#include <stddef.h>

#include "wgk_conv_packed.h"

/* Floats of the transformed, packed weight: 16 packed (M x C) matrices. */
static inline size_t wgk_wino_pack_w_size(size_t M, size_t C)
{
    return 16 * wgk_conv_pack_w_group(M, C);
}

/* w: ONNX layout [M][C][3][3]. Matrix xi (= 4*i + j of the 4x4 U) starts at
 * xi * wgk_conv_pack_w_group(M, C), packed like wgk_conv_pack_w (MR-row panels).
 * tmp: 16 * M * C floats of work space. */
static inline void wgk_wino_pack_w(const float *w, size_t M, size_t C, float *tmp, float *dst)
{
    static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    for (size_t m = 0; m < M; m++)
        for (size_t c = 0; c < C; c++) {
            const float *g = w + (m * C + c) * 9;
            double t[4][3]; /* G g */
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 3; j++)
                    t[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    tmp[((size_t)(4 * i + j) * M + m) * C + c] =
                        (float)(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
        }
    for (size_t xi = 0; xi < 16; xi++)
        wgk_conv_pack_w(tmp + xi * M * C, M, C, 1, dst + xi * wgk_conv_pack_w_group(M, C));
}

/* Tiles per block: V (16 x C x NT) and M (16 x M x NT) in about 1 MiB. */
static inline int wgk_wino_block_tiles(int C, int M, int tiles)
{
    long nt = 16384L / (C + M > 0 ? C + M : 1);
    nt -= nt % WGK_CONV_NR;
    if (nt < WGK_CONV_NR)
        nt = WGK_CONV_NR;
    long need = ((long)tiles + WGK_CONV_NR - 1) / WGK_CONV_NR * WGK_CONV_NR;
    return (int)(nt < need ? nt : need);
}

/* Scratch floats wgk_f32_conv2d_winograd needs. */
static inline size_t wgk_wino_scratch(int C, int M, int OH, int OW)
{
    const int tiles = ((OH + 1) / 2) * ((OW + 1) / 2);
    return (size_t)16 * (size_t)(C + M) * (size_t)wgk_wino_block_tiles(C, M, tiles);
}

/* a: KH = KW = 3, SH = SW = DH = DW = 1, groups = 1 (any padding); a->w packed by
 * wgk_wino_pack_w; a->scratch of wgk_wino_scratch floats. */
void wgk_f32_conv2d_winograd(const wgk_conv2d_args *a);

#endif
