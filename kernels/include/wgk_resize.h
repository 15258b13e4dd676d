/*
 * wgk_resize.h: N-D separable-weight resampling (Resize / Upsample), fp32.
 *
 * The compiler computes, per axis d and output coordinate o, K[d] taps (input index,
 * weight); the kernel only applies them:
 *     y[o] = sum over taps k0..k(r-1) of  prod_d w_d[o_d][k_d] * x[idx_0[o_0][k_0], ...]
 * Table entries of axis d start at off[d] in idx and w; entry (o, k) is off[d] + o*K[d] + k.
 * idx = -1 at k = 0 marks an output coordinate outside the input (tf_crop_and_resize):
 * every output using it is `extrapolation`. Nearest, linear, cubic and antialiased modes
 * differ only in the tables.
 */
#ifndef WGK_RESIZE_H
#define WGK_RESIZE_H

#include "wgk_base.h"

#define WGK_RESIZE_MAX_RANK 8

typedef struct wgk_resize_args {
    int rank;
    int in[WGK_RESIZE_MAX_RANK], out[WGK_RESIZE_MAX_RANK];
    int K[WGK_RESIZE_MAX_RANK], off[WGK_RESIZE_MAX_RANK];
    const int32_t *idx;
    const float *w;
    float extrapolation;
    const float *x;
    float *y;
} wgk_resize_args;

void wgk_f32_resize(const wgk_resize_args *a);

#endif
