/*
 * q8-pixlanes.h: the product with output pixels in the SIMD lanes that the pointwise
 * (q8-conv1x1-pixlanes.c) and the few-channel (q8-conv2d-fewc.c) int8 convolutions share:
 * for 4 output channels, i32x4.dot_i16x8_s of one vector of xi (4 pixels x 2 channels or
 * taps) with each channel's broadcast weight pair, 8 accumulators for 4 channels x 8
 * pixels, stored through the channels' sinks (q8-requant.h).
 */
#ifndef WGK_Q8_PIXLANES_H
#define WGK_Q8_PIXLANES_H

#include "wgk_qgemm.h"

typedef struct wgk_q8_pixlanes {
    int M;
    size_t plane;        /* output pixels per channel */
    size_t cp;           /* channel (or tap) pairs */
    const int32_t *w;    /* [M][cp] pairs, wgk_q8_conv1x1_pack_w's */
    const int32_t *bias; /* NULL: none */
    int32_t *y;          /* the int32 sums, or: */
    void *yq;            /* QLinearConv's requantized bytes, or: */
    const wgk_q8_deq *deq; /* the float tail (deq->y) */
    int ydt;
    const void *zy;
    const float *sx, *sw, *sy;
    int sw_per_m;
} wgk_q8_pixlanes;

/* Output channels m0 .. m0 + rows - 1 (rows <= 4) of image n at pixels p0 .. p0 + np - 1
 * of their planes, from xi: pair k of pixel q at xi + (k * xs + q) * 2, xs >= np rounded
 * up to 8, zeros from np to there. splat: 64 cp bytes, 16-byte aligned. */
void wgk_q8_pixlanes_rows4(const wgk_q8_pixlanes *j, const int16_t *xi, size_t xs, int n, int m0, int rows,
                           size_t p0, size_t np, int32_t *splat);

#endif
