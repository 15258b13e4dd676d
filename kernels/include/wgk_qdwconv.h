/*
 * wgk_qdwconv.h: depthwise ConvInteger / QLinearConv (one input channel per group, any
 * number of output channels per group), 2-D, any kernel size, row stride and dilation,
 * column stride 1 or 2 and column dilation 1, on i32x4.dot_i16x8_s (q8-dwconv2d.c):
 * integer-exact, the int32 sums wrap as the reference's do.
 *
 * Each input channel is copied, widened to int16 minus the zero point, into a padded
 * plane in the scratch (the padding then contributes 0, as the zero point would). An
 * output at column ow reads columns S ow + kw; a vector of 8 consecutive int16 at column
 * b holds the pairs (b + 2j, b + 2j + 1), j = 0..3, so i32x4.dot_i16x8_s of it with the
 * weight pair (w[kw], w[kw + 1]) gives the two taps kw, kw + 1 of 4 outputs whose first
 * columns are 2 apart: with stride 2, 4 consecutive outputs; with stride 1, 4 even or 4
 * odd ones (interleaved when stored). An odd last tap pairs with a zero weight. So a 3x3
 * filter costs 6 loads, 6 dot products and 6 additions per 4 outputs.
 *
 * The weights are packed at compile time (wgk_q8_dwconv_pack_w): per output channel, its
 * KH rows of ceil(KW / 2) weight pairs minus the zero point, as int32 (low half the even
 * tap). QLinearConv requantizes as the sums leave the registers (as wgk_requantize).
 */
#ifndef WGK_QDWCONV_H
#define WGK_QDWCONV_H

#include <stddef.h>
#include <stdint.h>

#include "wgk_base.h"
#include "wgk_qdeq.h"

typedef struct wgk_q8_dwconv_args {
    int N, C, H, W, M, OH, OW, KH, KW;
    int SH, SW; /* SW 1 or 2 */
    int DH;     /* the column dilation is 1 */
    int PT, PL; /* leading pads */
    const void *x;
    int xdt;        /* 2: uint8, 3: int8 */
    const void *xz; /* x's scalar zero point, NULL: 0 */
    const int32_t *w;    /* wgk_q8_dwconv_pack_w's */
    const int32_t *bias; /* [M] (QLinearConv), NULL: none */
    WGK_Q8_OUTPUT_FIELDS /* y, yq or deq.y (wgk_qdeq.h) */
    void *scratch; /* wgk_q8_dwconv_scratch_size bytes */
    wgk_share share; /* output channels (whole groups) */
} wgk_q8_dwconv_args;

void wgk_q8_dwconv2d(const wgk_q8_dwconv_args *a);

/* At most this many weight pairs per filter (KH x ceil(KW / 2)): the kernel keeps them
 * broadcast on its stack. */
#define WGK_Q8_DW_MAX_TAPS 64

/* Weight pairs per filter row. */
static inline int wgk_q8_dwconv_pairs(int KW)
{
    return (KW + 1) / 2;
}

/* int32 of the packed weights. */
static inline size_t wgk_q8_dwconv_pack_w_size(size_t M, int KH, int KW)
{
    return M * (size_t)KH * (size_t)wgk_q8_dwconv_pairs(KW);
}

/* Outputs per row the kernel computes (whole vectors of 8 with stride 1, of 4 with 2). */
static inline int wgk_q8_dwconv_row_outputs(int OW, int SW)
{
    const int v = SW == 1 ? 8 : 4;
    return (OW + v - 1) / v * v;
}

/* The padded plane: rows every output row reads, columns every computed output reads
 * (pairs past the last tap included), in int16. */
static inline int wgk_q8_dwconv_plane_rows(int OH, int KH, int SH, int DH)
{
    return (OH - 1) * SH + (KH - 1) * DH + 1;
}

static inline int wgk_q8_dwconv_plane_cols(int OW, int KW, int SW)
{
    return (SW * wgk_q8_dwconv_row_outputs(OW, SW) + 2 * wgk_q8_dwconv_pairs(KW) + 8 + 7) / 8 * 8;
}

static inline size_t wgk_q8_dwconv_scratch_size(int OH, int OW, int KH, int KW, int SH, int SW, int DH)
{
    return 2 * (size_t)wgk_q8_dwconv_plane_rows(OH, KH, SH, DH) * (size_t)wgk_q8_dwconv_plane_cols(OW, KW, SW) + 16;
}

/* w [M][1][KH][KW] (dtype wdt) minus its zero point wz (NULL, one value, or M values:
 * wz_per_m) into dst (wgk_q8_dwconv_pack_w_size int32). */
static inline void wgk_q8_dwconv_pack_w(const void *w, int wdt, const void *wz, int wz_per_m, size_t M, int KH,
                                        int KW, int32_t *dst)
{
    const int pairs = wgk_q8_dwconv_pairs(KW);
    for (size_t m = 0; m < M; m++) {
        const int32_t z = wz ? (wdt == 2 ? ((const uint8_t *)wz)[wz_per_m ? m : 0]
                                         : ((const int8_t *)wz)[wz_per_m ? m : 0])
                             : 0;
        for (int kh = 0; kh < KH; kh++)
            for (int k = 0; k < pairs; k++) {
                int32_t v[2] = {0, 0};
                for (int h = 0; h < 2 && 2 * k + h < KW; h++) {
                    const size_t i = (m * (size_t)KH + (size_t)kh) * (size_t)KW + (size_t)(2 * k + h);
                    v[h] = (wdt == 2 ? (int32_t)((const uint8_t *)w)[i] : (int32_t)((const int8_t *)w)[i]) - z;
                }
                dst[(m * (size_t)KH + (size_t)kh) * (size_t)pairs + (size_t)k] =
                    (int32_t)((uint32_t)(uint16_t)(int16_t)v[0] | (uint32_t)(uint16_t)(int16_t)v[1] << 16);
            }
    }
}

#endif
