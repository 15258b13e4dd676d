/*
 * wgk_pool.h: 2-D max/average pooling and global pooling, NCHW fp32.
 *
 * Window of output (oh, ow): rows oh*SH - PT + kh*DH (kh < KH), columns likewise; the
 * parts outside the image are skipped. OH/OW already include ceil_mode (the compiler
 * computes them). Average divisor: count_include_pad = 0: the elements inside the
 * image; = 1: the elements inside the padded image (image plus PT/PB/PL/PR pads), not
 * counting a ceil_mode overhang past the bottom/right pad. MaxPool of a window with no
 * element inside the image gives -INFINITY.
 */
#ifndef WGK_POOL_H
#define WGK_POOL_H

#include "wgk_base.h"

typedef struct wgk_pool2d_args {
    int NC, H, W;     /* images (batch x channels) and input size */
    int OH, OW;
    int KH, KW, SH, SW, DH, DW;
    int PT, PL, PB, PR;
    int count_include_pad;
    const float *x;
    float *y;
} wgk_pool2d_args;

void wgk_f32_maxpool2d(const wgk_pool2d_args *a);
void wgk_f32_avgpool2d(const wgk_pool2d_args *a); /* dilation must be 1 */

/* y[i] = mean / max of x[i*inner .. i*inner + inner - 1], i < outer (outer = N*C). */
void wgk_f32_global_avgpool(const float *x, float *y, int outer, int inner);
void wgk_f32_global_maxpool(const float *x, float *y, int outer, int inner);

#endif
