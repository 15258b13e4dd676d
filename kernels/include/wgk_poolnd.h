/*
 * wgk_poolnd.h: max / average pooling over up to 3 spatial dims, NC[D][H]W fp32, with
 * MaxPool's optional Indices output. 1-D and 2-D problems pass size-1 leading dims.
 * Geometry as in wgk_pool.h (pb/pe: pads before/after; out includes ceil_mode).
 * Indices (int64, may be NULL): the flat index into x of each maximum, including the
 * image offset (n*C + c) * D*H*W; storage_order 1 numbers the spatial position
 * column-major (first spatial dim fastest). The first maximum in window order wins.
 */
#ifndef WGK_POOLND_H
#define WGK_POOLND_H

#include "wgk_base.h"

typedef struct wgk_poolnd_args {
    int NC;
    int in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
    int count_include_pad;
    int storage_order;
    const float *x;
    float *y;
    int64_t *indices;
} wgk_poolnd_args;

void wgk_f32_maxpool3d(const wgk_poolnd_args *a);
void wgk_f32_avgpool3d(const wgk_poolnd_args *a);

#endif
