/*
 * wgk_winograd.h: 3x3, stride 1, dilation 1, one-group convolution (NCHW fp32) by
 * Winograd F(2x2, 3x3): each 2x2 output tile costs 16 multiplies per (m, c) pair instead
 * of 36, so the GEMM work drops 2.25x; the transforms are cheap additions.
 *
 *   U = G g G^T  (4x4 per output/input channel pair, once, when the module first needs it:
 *                 wgk_winograd_f2x3_prepare_w)
 *   V = B^T d B  (4x4 per input channel and tile, at run time, into packed B panels)
 *   M_xi = U_xi x V_xi for each of the 16 positions xi (the packed-GEMM micro-kernel)
 *   y tile = A^T M A (+ bias + residual, clamp)
 *
 * Tiles are processed in blocks of wgk_winograd_f2x3_block_tiles() so V and M of a block stay in
 * L2. Plain C: the compiler includes this header to size the transformed weights and
 * the scratch (which of these kernels a layer runs is src/select/'s choice).
 *
 * The transform runs in the module rather than in the compiler so that the module file
 * holds the 9-float filters, not the 16 (F(2x2)) or 36 (F(4x4)) transformed ones: that
 * keeps ResNet-50 v2's module at 97.5 MiB instead of 151.6 MiB. The transformed filters
 * live in zero-initialised linear memory outside the file (src/codegen/generate.c).
 */
#ifndef WGK_WINOGRAD_H
#define WGK_WINOGRAD_H

#include <stddef.h>

#include "wgk_conv_packed.h"

/* Floats of the transformed, packed weight: 16 packed (M x C) matrices. */
static inline size_t wgk_winograd_f2x3_pack_w_size(size_t M, size_t C)
{
    return 16 * wgk_conv_pack_w_group(M, C);
}

/* Transforms the filters w (packed by wgk_conv_pack_w(w_onnx, M, C*9, 1, w): the layout
 * of wgk_f32_conv2d_packed, which a module runs the layer on before the transform) and
 * packs them into dst
 * (wgk_winograd_f2x3_pack_w_size(M, C) floats, rows past M written as zeros). Matrix xi (= 4*i + j
 * of the 4x4 U) starts at xi * wgk_conv_pack_w_group(M, C), packed like wgk_conv_pack_w
 * (MR-row panels). Computed in float32. Modules call it once per conv, on its first Winograd run
 * (kernels/conv/f32-conv2d-winograd-prepare.c). */
void wgk_winograd_f2x3_prepare_w(const float *w, int M, int C, float *dst);

/* Tiles per block of the Winograd kernels: V (npos x C x NT) and M (npos x M x NT) in
 * budget floats, whole NR panels, never more than the image needs. */
static inline int wgk_winograd_tiles_in(long budget, int npos, int C, int M, int tiles)
{
    long nt = budget / npos / (C + M > 0 ? C + M : 1);
    nt -= nt % WGK_CONV_NR;
    if (nt < WGK_CONV_NR)
        nt = WGK_CONV_NR;
    long need = ((long)tiles + WGK_CONV_NR - 1) / WGK_CONV_NR * WGK_CONV_NR;
    return (int)(nt < need ? nt : need);
}

/* Tiles per block: V (16 x C x NT) and M (16 x M x NT) in about 1 MiB. */
static inline int wgk_winograd_f2x3_block_tiles(int C, int M, int tiles)
{
    return wgk_winograd_tiles_in(16 * 16384L, 16, C, M, tiles);
}

/* Floats added to the distance between the per-position matrices of V and M: without
 * it that distance is often a multiple of 4 KiB, so the 16 (36) streams the transforms
 * read and write fall into the same few L1 sets and evict each other. */
#define WGK_WINOGRAD_SKEW 16

/* Scratch floats wgk_f32_conv2d_winograd_f2x3 needs. */
static inline size_t wgk_winograd_f2x3_scratch(int C, int M, int OH, int OW)
{
    const int tiles = ((OH + 1) / 2) * ((OW + 1) / 2);
    /* + the broadcast weight panel (wgk_conv_splat_a) or up to 4 groups of broadcast
     * tiles (wgk_winograd_gemm on few tiles) */
    return (size_t)16 * ((size_t)(C + M) * (size_t)wgk_winograd_f2x3_block_tiles(C, M, tiles) + 2 * WGK_WINOGRAD_SKEW) +
           (size_t)64 * (size_t)C;
}

/* a: KH = KW = 3, SH = SW = DH = DW = 1, any padding and groups; a->w prepared by
 * wgk_winograd_f2x3_prepare_w, one group after the other (each wgk_winograd_f2x3_pack_w_size(M/groups,
 * C/groups) floats, from the packed filters of group g, at w + g *
 * wgk_conv_pack_w_group(M/groups, C/groups*9)); a->scratch of
 * wgk_winograd_f2x3_scratch(C/groups, M/groups, ...) floats. a->share of every Winograd
 * kernel: each group's output channels [m0, m1) (multiples of 8, m1 may be M / groups) and
 * output tiles [p0, p1) in row-major order (whole blocks, or NR panels:
 * wgk_split_winograd). */
void wgk_f32_conv2d_winograd_f2x3(const wgk_conv2d_args *a);

/* Grouped convolutions (AlexNet's 3x3 layers): runs kernel, a one-group Winograd
 * kernel, once per image and group on that group's channels; wgroup: floats of one
 * group's prepared weight. Returns 0 (nothing done) when a->groups == 1. */
int wgk_winograd_per_group(const wgk_conv2d_args *a, void (*kernel)(const wgk_conv2d_args *),
                       size_t wgroup);

/* The multiplication step of every Winograd kernel: for each of the npos transform
 * positions xi, Mo[xi] (M x nt, stride mx) = U[xi] (packed weights at w + xi*wx, M x C)
 * x V[xi] (C x ncols at V + xi*vx, row c at c*nt: channel c's transformed tiles), on the
 * conv micro-kernels; ncols a multiple of 4, at most nt (a multiple of NR); As: scratch
 * for one broadcast weight panel or up to 4 groups of broadcast tiles (64*C floats).
 *
 * V[xi] is row-major rather than in NR-column panels so that an input transform, which
 * writes one tile's npos values to the npos matrices, writes the same npos pages for
 * every tile of a channel and for the next channels: with 4 KiB pages (V8's linear
 * memory) panels C*NR floats apart made most of its stores first-level TLB misses. */
void wgk_winograd_gemm(const float *w, size_t wx, int npos, int M, int C, const float *V, size_t vx,
                   float *Mo, size_t mx, int nt, int ncols, float *As);
/* The same for output channels [m0, m1) only (a share: wgk_split.h), each element
 * computed exactly as wgk_winograd_gemm computes it: m0, and m1 unless it is M, multiples
 * of 2 * WGK_CONV_MR. */
void wgk_winograd_gemm_rows(const float *w, size_t wx, int npos, int M, int m0, int m1, int C, const float *V,
                            size_t vx, float *Mo, size_t mx, int nt, int ncols, float *As);

/* ---- Winograd F(4x4, 3x3): 6x6 input tiles, 4x4 output tiles, 36 GEMMs of M x C:
 * 4x fewer multiplies than direct (F(2x2): 2.25x) for a 36/9 larger weight. Points
 * 0, +-1, +-2 (and infinity):
 *   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0;
 *          0 4 0 -5 0 1]
 *   G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
 *   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
 * U = G g G^T is computed in float32 (wgk_winograd_f4x3_prepare_w). */

static inline size_t wgk_winograd_f4x3_pack_w_size(size_t M, size_t C)
{
    return 36 * wgk_conv_pack_w_group(M, C);
}

/* Like wgk_winograd_f2x3_prepare_w, 36 matrices (xi = 6*i + j) into wgk_winograd_f4x3_pack_w_size(M, C)
 * floats. */
void wgk_winograd_f4x3_prepare_w(const float *w, int M, int C, float *dst);

/* Tiles per block: V (36 x C x NT) and M (36 x M x NT) in about 2 MiB (the weight
 * panels are streamed once per block; 1 MiB blocks made ResNet-50 slower). */
static inline int wgk_winograd_f4x3_block_tiles(int C, int M, int tiles)
{
    return wgk_winograd_tiles_in(36 * 14563L, 36, C, M, tiles);
}

/* The zero-padded rows of one input plane that a block of the 6x6-tile kernels reads:
 * every tile of the block is then read in place, none needs a bounds test. Width: the
 * tile columns' span; rows: the span of the tile rows a block of nt tiles can touch. */
static inline int wgk_winograd_tile6_pad_width(int OW, int m)
{
    return m * ((OW + m - 1) / m - 1) + 6;
}

static inline size_t wgk_winograd_tile6_pad_floats(int C, int M, int OH, int OW, int m)
{
    const int TW = (OW + m - 1) / m, tiles = ((OH + m - 1) / m) * TW;
    const int nt = wgk_winograd_f4x3_block_tiles(C, M, tiles);
    return (size_t)(m * (nt / TW + 2) + 6) * (size_t)wgk_winograd_tile6_pad_width(OW, m);
}

/* Scratch floats of the 6x6-tile kernels for m x m output tiles (m = 4: F(4x4, 3x3),
 * m = 2: F(2x2, 5x5)). */
static inline size_t wgk_winograd_tile6_scratch(int C, int M, int OH, int OW, int m)
{
    const int tiles = ((OH + m - 1) / m) * ((OW + m - 1) / m);
    return (size_t)36 * ((size_t)(C + M) * (size_t)wgk_winograd_f4x3_block_tiles(C, M, tiles) + 2 * WGK_WINOGRAD_SKEW) +
           (size_t)64 * (size_t)C + wgk_winograd_tile6_pad_floats(C, M, OH, OW, m);
}

static inline size_t wgk_winograd_f4x3_scratch(int C, int M, int OH, int OW)
{
    return wgk_winograd_tile6_scratch(C, M, OH, OW, 4);
}

/* a as for wgk_f32_conv2d_winograd_f2x3; a->w prepared by wgk_winograd_f4x3_prepare_w (per group);
 * a->scratch of wgk_winograd_f4x3_scratch(C/groups, M/groups, ...) floats. */
void wgk_f32_conv2d_winograd_f4x3(const wgk_conv2d_args *a);

/* ---- Winograd F(2x2, 5x5): the same 6x6 input tiles, points and B^T as F(4x4, 3x3),
 * 2x2 output tiles: 36 multiplies per tile and (m, c) pair instead of 100 (2.8x fewer),
 * for a 36/25 larger weight (AlexNet's 5x5 layer).
 *   G   = [1/4 0 0 0 0; -1/6 -1/6 -1/6 -1/6 -1/6; -1/6 1/6 -1/6 1/6 -1/6;
 *          1/24 1/12 1/6 1/3 2/3; 1/24 -1/12 1/6 -1/3 2/3; 0 0 0 0 1]
 *   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 1]
 * (G[j][k] = a_j^k / prod_{l != j} (a_j - a_l) for the finite points a_j.) The weight has
 * the F(4x4) layout and size (wgk_winograd_f4x3_pack_w_size). */
void wgk_winograd_f2x5_prepare_w(const float *w, int M, int C, float *dst);

static inline size_t wgk_winograd_f2x5_scratch(int C, int M, int OH, int OW)
{
    return wgk_winograd_tile6_scratch(C, M, OH, OW, 2);
}

/* a: KH = KW = 5, SH = SW = DH = DW = 1, any padding and groups; a->w prepared by
 * wgk_winograd_f2x5_prepare_w (per group); a->scratch of wgk_winograd_f2x5_scratch(C/groups,
 * M/groups, ...) floats. */
void wgk_f32_conv2d_winograd_f2x5(const wgk_conv2d_args *a);

/* ---- Winograd F(3x3, 4x4): the same 6x6 input tiles, points and B^T, 3x3 output
 * tiles: 36 multiplies per tile and (m, c) pair instead of 144 (4x fewer), a 36/16
 * larger weight. It serves the phase split below (4x4 kernels are rare in models).
 *   G   = [1/4 0 0 0; -1/6 -1/6 -1/6 -1/6; -1/6 1/6 -1/6 1/6; 1/24 1/12 1/6 1/3;
 *          1/24 -1/12 1/6 -1/3; 0 0 0 1]
 *   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 1]
 * The weight has the F(4x4) layout and size (wgk_winograd_f4x3_pack_w_size). */
void wgk_winograd_f3x4_prepare_w(const float *w, int M, int C, float *dst);

static inline size_t wgk_winograd_f3x4_scratch(int C, int M, int OH, int OW)
{
    return wgk_winograd_tile6_scratch(C, M, OH, OW, 3);
}

/* a: KH = KW = 4, SH = SW = DH = DW = 1, any padding and groups; a->w prepared by
 * wgk_winograd_f3x4_prepare_w (per group); a->scratch of wgk_winograd_f3x4_scratch(C/groups,
 * M/groups, ...) floats. */
void wgk_f32_conv2d_winograd_f3x4(const wgk_conv2d_args *a);

/* ---- Stride-2 convs with 7x7 or 8x8 filters as one stride-1 4x4 conv on the input's
 * four phases (kernels/conv/f32-conv2d-phases.c; ResNet's 7x7 stride-2 first layer).
 * With xp the zero-padded input and x_pq[i][j] = xp[2i + p][2j + q]:
 *   y[o][v] = sum_{p,q} sum_{i,j < 4} w[2i + p][2j + q] x_pq[o + i][v + j]
 * (taps past the filter are zero), a 4x4 stride-1 conv with 4C input channels (channel
 * (2p + q)*C + c) on (OH + 3) x (OW + 3) phase planes, which F(3x3, 4x4) does with 16
 * multiplies per output and input channel instead of the direct conv's 49: 36/9 per
 * phase channel. */
static inline int wgk_conv_phases_ok(const wgk_conv2d_args *a)
{
    return a->groups == 1 && a->SH == 2 && a->SW == 2 && a->DH == 1 && a->DW == 1 && a->KH == a->KW &&
           (a->KH == 7 || a->KH == 8);
}

/* The stride-1 conv on the phase planes (pointers unset). */
static inline wgk_conv2d_args wgk_conv_phases_geom(const wgk_conv2d_args *a)
{
    return (wgk_conv2d_args){.N = 1, .C = 4 * a->C, .H = a->OH + 3, .W = a->OW + 3, .M = a->M, .OH = a->OH,
                             .OW = a->OW, .KH = 4, .KW = 4, .SH = 1, .SW = 1, .DH = 1, .DW = 1, .groups = 1};
}

/* The 4x4 filters of the phase conv from the ONNX ones (w[M][C][K][K], K = 7 or 8):
 * dst[m][(2p + q)*C + c][i][j] = w[m][c][2i + p][2j + q], zero past K. Compile time. */
static inline void wgk_conv_phases_weights(const float *w, int M, int C, int K, float *dst)
{
    for (int m = 0; m < M; m++)
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++)
                for (int c = 0; c < C; c++)
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 4; j++) {
                            const int kh = 2 * i + p, kw = 2 * j + q;
                            dst[((((size_t)m * 4 + 2 * p + q) * C + c) * 4 + i) * 4 + j] =
                                kh < K && kw < K ? w[(((size_t)m * C + c) * K + kh) * K + kw] : 0.0f;
                        }
}

/* Scratch floats: one image's phase planes, then the F(3x3, 4x4) kernel's scratch. */
static inline size_t wgk_conv_phases_scratch(const wgk_conv2d_args *a)
{
    const wgk_conv2d_args p = wgk_conv_phases_geom(a);
    return (size_t)p.C * (size_t)p.H * (size_t)p.W + wgk_winograd_f3x4_scratch(p.C, p.M, p.OH, p.OW);
}

/* a: wgk_conv_phases_ok; a->w: the phase conv's filters (wgk_conv_phases_weights, packed
 * by wgk_conv_pack_w) prepared by wgk_winograd_f3x4_prepare_w(w, M, 4C, ...); a->scratch of
 * wgk_conv_phases_scratch(a) floats. Same epilogue as the Winograd kernels (bias,
 * residual, clamp). */
void wgk_f32_conv2d_phases(const wgk_conv2d_args *a);

/* ---- 3x3 stride 2 (kernels/conv/f32-conv2d-winograd-f2x3s2.c): 2x2 output tiles on 5x5
 * input windows, 25 GEMMs of M x C (0.69x the direct multiplies), a 25/9 larger weight.
 * Per dimension, on the window d0..d4 and the filter (w0, w1, w2):
 *   B^T = [0 1 0 0 0; 0 0 0 1 0; 1 0 -1 0 0; 0 0 1 0 0; 0 0 -1 0 1]
 *   G   = [0 1 0; 0 1 0; 1 0 0; 1 0 1; 0 0 1]
 *   A^T = [1 0 1 1 0; 0 1 0 1 1] */

static inline size_t wgk_winograd_f2x3s2_pack_w_size(size_t M, size_t C)
{
    return 25 * wgk_conv_pack_w_group(M, C);
}

/* Like wgk_winograd_f2x3_prepare_w, 25 matrices (xi = 5*i + j) into wgk_winograd_f2x3s2_pack_w_size(M, C)
 * floats. */
void wgk_winograd_f2x3s2_prepare_w(const float *w, int M, int C, float *dst);

/* Tiles per block: V (25 x C x NT) and M (25 x M x NT) in about 1 MiB. */
static inline int wgk_winograd_f2x3s2_block_tiles(int C, int M, int tiles)
{
    return wgk_winograd_tiles_in(16 * 16384L, 25, C, M, tiles);
}

static inline size_t wgk_winograd_f2x3s2_scratch(int C, int M, int OH, int OW)
{
    const int tiles = ((OH + 1) / 2) * ((OW + 1) / 2);
    return (size_t)25 * ((size_t)(C + M) * (size_t)wgk_winograd_f2x3s2_block_tiles(C, M, tiles) + 2 * WGK_WINOGRAD_SKEW) +
           (size_t)64 * (size_t)C;
}

/* a: KH = KW = 3, SH = SW = 2, DH = DW = 1, any padding and groups; a->w prepared by
 * wgk_winograd_f2x3s2_prepare_w (per group); a->scratch of wgk_winograd_f2x3s2_scratch(C/groups,
 * M/groups, ...) floats. */
void wgk_f32_conv2d_winograd_f2x3s2(const wgk_conv2d_args *a);

#endif
