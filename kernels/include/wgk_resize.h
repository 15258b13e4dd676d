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

/*
 * The same resampling when only the last two axes change (the leading axes are NC
 * planes copied through): the tables of H (ih/wh, OH x KH) and W (iw/ww, OW x KW) in the
 * layout above, no extrapolation marker. Results are bit for bit wgk_f32_resize's: each
 * output coordinate whose axis has K = 1 and weight 1 is a plain copy, any other sums
 * 0 + w*x over its nonzero-weight taps in order. Rows are interpolated along W once per
 * plane and input row (cached in scratch, KH * OW floats) and then combined along H with
 * SIMD128; output rows with the same source row as the previous one are copied.
 * fw > 0 promises KW = 1, every ww = 1 and iw[o] = o / fw (nearest upsampling by an
 * integer factor), which gathers with shuffles; else fw = 0.
 */
typedef struct wgk_resize2d_args {
    int NC, H, W, OH, OW, KH, KW;
    const int32_t *ih, *iw;
    const float *wh, *ww;
    int fw;
    const float *x;
    float *y;
    float *scratch;
} wgk_resize2d_args;

void wgk_f32_resize2d(const wgk_resize2d_args *a);

/*
 * Resampling by a plan whose sizes the module learned at run time (wgk_resize_plan.h):
 * builds the plan's tables in scratch (wgk_resize_planned_scratch bytes at the bounds)
 * and applies them with wgk_f32_resize2d when they suit it, else wgk_f32_resize: the same
 * taps, and so the same floats, as a compile-time plan of those sizes. cap[d] is the most
 * taps axis d was sized for. Returns 0, or WGK_ERR_SIZE_BOUND when an axis needs more.
 */
struct wgk_resize_plan;
int wgk_f32_resize_planned(const struct wgk_resize_plan *p, const int *cap, float extrapolation, const float *x,
                           float *y, void *scratch);

#endif
