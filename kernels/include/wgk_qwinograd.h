/*
 * wgk_qwinograd.h: ConvInteger / QLinearConv of 3x3 filters, stride 1, any dilation, one
 * group, by an exact integer Winograd F(2x2, 3x3) (q8-conv2d-winograd-f2x3.c): 16
 * multiplies per 2x2 output tile and (output, input) channel pair instead of 36, on
 * i32x4.dot_i16x8_s, and the same int32 results as the direct sums, bit for bit.
 *
 * Why it is exact. With the zero points subtracted, inputs d and weights g lie in
 * [-255, 255]. Winograd's filter transform G has halves; G' = 2G = [[2,0,0],[1,1,1],
 * [1,-1,1],[0,0,2]] is integer, and so are B and A, so
 *
 *   U = G' g G'^T  (4x4 per channel pair, |U| <= 9 x 255 = 2295: int16)
 *   V = B^T d B    (4x4 per input channel and tile, |V| <= 4 x 255 = 1020: int16)
 *   A^T (sum_c U (.) V) A = 4 y   exactly,
 *
 * where every step is a ring operation (+, -, x), so int32 arithmetic that wraps gives
 * 4y modulo 2^32, which is 4y itself while |4y| < 2^31. With |y| <= 9 x 255 x 255 per
 * input channel, that holds for up to 917 channels: the reduction runs in blocks of at
 * most WGK_Q8_WINO_BLOCK_PAIRS channel pairs (896 channels), each block's 4y divided
 * by 4 exactly (an arithmetic shift) and the blocks' y summed in int32 that wraps, as
 * the direct sums wrap. Bias (QLinearConv's int32 bias) is added last, as the reference
 * adds it to the sums.
 *
 * Dilation d (DH, DW): a dilated conv is DH x DW interleaved undilated ones, one per
 * residue class (a, b) of the output rows and columns, each over the input rows and
 * columns of its residue. The kernel's tiles cover each class's output grid in 2x2 tiles
 * of that class: a tile at output (oh0, ow0) holds (oh0 + u DH, ow0 + v DW), u, v in
 * {0, 1}, from input rows oh0 - PT + s DH and columns ow0 - PL + t DW, s, t in 0..3.
 * Tiles are numbered class by class (a outer, b inner), then row by row.
 *
 * Layouts. The transformed filters (wgk_q8_winograd_f2x3_prepare_w, once, into memory
 * outside the module file: int16 pairs are 32 bytes per channel pair against the 9 of
 * the int8 filters) are u[xi][Mp][cp] int32, xi = 4i + j the position in the 4x4 tile,
 * Mp = M rounded up to 4 (rows past M zero), cp = ceil(C / 2) channel pairs, each int32
 * holding channel 2k in its low half and 2k + 1 in its high half (0 past C).
 * Per block of tiles the kernel writes V of every channel pair in groups of 8 tiles
 * (V[xi][tile group][pair][8 tiles x 2 channels] int16), and for each 4 output channels
 * and position xi broadcasts their filter pairs into an L1 buffer; the micro-kernel
 * then multiplies 4 channels x 8 tiles (tiles in the lanes) with plain vector loads.
 * The output transform reads 4 tiles at a time, tiles in the lanes, and stores 8
 * contiguous outputs per row where 4 tiles lie side by side (dilation 1 in W).
 *
 *     int32_t *u = ... 4 * wgk_q8_winograd_f2x3_weights_size(M, C) bytes;
 *     wgk_q8_winograd_f2x3_prepare_w(w, 3, &wz, 0, M, C, u);   // once
 *     wgk_q8_conv2d_winograd_f2x3(&(wgk_q8_winograd_args){.N = 1, .C = C, ..., .u = u,
 *                                  .y = y, .scratch = s});
 */
#ifndef WGK_QWINOGRAD_H
#define WGK_QWINOGRAD_H

#include <stddef.h>
#include <stdint.h>

#include "wgk_base.h"
#include "wgk_qdeq.h"

/* Channel pairs per block of the reduction: 896 channels, under the 917 at which 4y of
 * full-range operands could leave int32 (see the top). */
#define WGK_Q8_WINO_BLOCK_PAIRS 448
/* Bytes of V per block of tiles (4 bytes per position, tile and channel pair): in L2,
 * which every 4 output channels read again. */
#define WGK_Q8_WINO_V_BYTES (1L << 20)
/* At most this many tiles per block (the output transform's buffers grow with it). */
#define WGK_Q8_WINO_MAX_TILES 512

typedef struct wgk_q8_winograd_args {
    int N, C, H, W, M, OH, OW;
    int DH, DW; /* dilations (1 for the stride-2 kernel) */
    int PT, PL; /* leading pads (trailing ones follow from OH, OW) */
    const void *x;
    int xdt;        /* 2: uint8, 3: int8 (ONNX codes) */
    const void *xz; /* x's scalar zero point, NULL: 0 */
    const int32_t *u;    /* the prepare function's transformed filters */
    const int32_t *bias; /* [M] int32 (QLinearConv), NULL: none */
    WGK_Q8_OUTPUT_FIELDS /* y, yq or deq.y (wgk_qdeq.h) */
    void *scratch; /* the kernel's scratch size in bytes, 16-byte aligned */
    wgk_share share; /* output channels (in whole 4s but at M) and tiles of every image */
} wgk_q8_winograd_args;

/* Stride 1, any dilation (F(2x2,3x3): 16 positions). */
void wgk_q8_conv2d_winograd_f2x3(const wgk_q8_winograd_args *a);

/* Stride 2, undilated: per dimension a 2-output tile reads 5 inputs d0..d4, and with
 * t = (d1, d3, d0 - d2, d2, d4 - d2), f = (w1, w1, w0, w0 + w2, w2), p = t * f:
 * y0 = p0 + p2 + p3 = w0 d0 + w1 d1 + w2 d2, y1 = p1 + p3 + p4 = w0 d2 + w1 d3 + w2 d4.
 * 25 products per 2x2 tile instead of 36 (the float kernel's transform,
 * f32-conv2d-winograd-f2x3s2.c), integer as it stands: |U|, |V| <= 4 x 255 = 1020 (int16),
 * and no division, so any number of channels is exact (the reduction still runs in the
 * blocks above). */
void wgk_q8_conv2d_winograd_f2x3s2(const wgk_q8_winograd_args *a);

/* Transform the filters w [M][C][3][3] (dtype wdt, 2 or 3) minus their zero point wz
 * (NULL, one value, or M values: wz_per_m) into u (the kernel's weights size int32:
 * every element written). */
void wgk_q8_winograd_f2x3_prepare_w(const void *w, int wdt, const void *wz, int wz_per_m, int M, int C,
                                    int32_t *u);
void wgk_q8_winograd_f2x3s2_prepare_w(const void *w, int wdt, const void *wz, int wz_per_m, int M, int C,
                                      int32_t *u);

/* int32 of the transformed filters: npos positions x M rounded up to 4 x channel pairs. */
static inline size_t wgk_q8_winograd_weights_n(size_t M, size_t C, int npos)
{
    return (size_t)npos * ((M + 3) / 4 * 4) * ((C + 1) / 2);
}

static inline size_t wgk_q8_winograd_f2x3_weights_size(size_t M, size_t C)
{
    return wgk_q8_winograd_weights_n(M, C, 16);
}

static inline size_t wgk_q8_winograd_f2x3s2_weights_size(size_t M, size_t C)
{
    return wgk_q8_winograd_weights_n(M, C, 25);
}

/* Output rows or columns of residue class r of n outputs with dilation d. */
static inline int wgk_q8_winograd_class_size(int n, int d, int r)
{
    return (n - r + d - 1) / d;
}

/* Tiles over an OH x OW output with dilations DH, DW (every class's grid in 2x2 tiles);
 * the stride-2 kernel's are those of DH = DW = 1. */
static inline int wgk_q8_winograd_tiles(int OH, int OW, int DH, int DW)
{
    int t = 0;
    for (int a = 0; a < DH && a < OH; a++)
        for (int b = 0; b < DW && b < OW; b++)
            t += (wgk_q8_winograd_class_size(OH, DH, a) + 1) / 2 * ((wgk_q8_winograd_class_size(OW, DW, b) + 1) / 2);
    return t;
}

/* Tiles per block: V of all C channels at npos positions within WGK_Q8_WINO_V_BYTES,
 * whole groups of 8, never more than the image's tiles need. */
static inline int wgk_q8_winograd_block_tiles(int C, int tiles, int npos)
{
    const long pairs = (C + 1) / 2;
    long nt = WGK_Q8_WINO_V_BYTES / (4L * npos * (pairs > 0 ? pairs : 1));
    nt = nt > WGK_Q8_WINO_MAX_TILES ? WGK_Q8_WINO_MAX_TILES : nt;
    nt -= nt % 8;
    nt = nt < 8 ? 8 : nt;
    const long need = ((long)tiles + 7) / 8 * 8;
    return (int)(nt < need ? nt : need);
}

/* Channel pairs per block of the reduction: the pairs in equal blocks of at most
 * WGK_Q8_WINO_BLOCK_PAIRS. */
static inline int wgk_q8_winograd_block_pairs(int C)
{
    const int cp = (C + 1) / 2, blocks = (cp + WGK_Q8_WINO_BLOCK_PAIRS - 1) / WGK_Q8_WINO_BLOCK_PAIRS;
    return blocks > 1 ? (cp + blocks - 1) / blocks : cp;
}

/* The SIMD build gathers tiles from a copy of the image padded with its zero point, one
 * plane per channel: every row a tile reads, each with WGK_Q8_WINO_FRONT bytes of slack,
 * the columns tiles read, and WGK_Q8_WINO_BACK bytes of slack, so that 8 tiles'
 * whole-vector loads never leave it. Stride 1: OH + 3 DH rows of OW + 3 DW columns;
 * stride 2: 2 OH + 3 rows of 2 OW + 3. */
#define WGK_Q8_WINO_FRONT 32
#define WGK_Q8_WINO_BACK 64
static inline size_t wgk_q8_winograd_pad_row(int cols)
{
    return ((size_t)WGK_Q8_WINO_FRONT + (size_t)cols + WGK_Q8_WINO_BACK + 15) / 16 * 16;
}

/* The scratch: tile origins, V, the broadcast filters of 4 channels, the npos products
 * of 4 channels, the partial sums of 4 channels over earlier reduction blocks, and the
 * padded image (rows x cols a plane; a copy per thread). */
static inline size_t wgk_q8_winograd_scratch_n(int C, int tiles, int npos, int rows, int cols)
{
    const size_t nt = (size_t)wgk_q8_winograd_block_tiles(C, tiles, npos);
    const size_t cp = (size_t)(C + 1) / 2, bp = (size_t)wgk_q8_winograd_block_pairs(C);
    return 8 * nt + 4 * (size_t)npos * (cp + 1) * nt + 64 * bp + 16 * (size_t)npos * nt + 64 * nt +
           (size_t)C * (size_t)rows * wgk_q8_winograd_pad_row(cols) + 16 * 6;
}

static inline size_t wgk_q8_winograd_f2x3_scratch_size(int C, int OH, int OW, int DH, int DW)
{
    return wgk_q8_winograd_scratch_n(C, wgk_q8_winograd_tiles(OH, OW, DH, DW), 16, OH + 3 * DH, OW + 3 * DW);
}

static inline size_t wgk_q8_winograd_f2x3s2_scratch_size(int C, int OH, int OW)
{
    return wgk_q8_winograd_scratch_n(C, wgk_q8_winograd_tiles(OH, OW, 1, 1), 25, 2 * OH + 3, 2 * OW + 3);
}

#endif
