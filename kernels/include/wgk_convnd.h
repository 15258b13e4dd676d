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
 */
#ifndef WGK_CONVND_H
#define WGK_CONVND_H

#include "wgk_base.h"

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

#endif
