/*
 * f32-resize.c: applies per-axis resampling tables (see wgk_resize.h). Outputs are
 * written in order; each one sums its taps axis by axis (innermost axis innermost).
 */
#include "wgk_resize.h"

typedef struct ctx {
    const wgk_resize_args *a;
    size_t stride[WGK_RESIZE_MAX_RANK];
    const int32_t *ix[WGK_RESIZE_MAX_RANK]; /* taps of the current output coordinate */
    const float *w[WGK_RESIZE_MAX_RANK];
} ctx;

static float taps(const ctx *c, int d, size_t base)
{
    const wgk_resize_args *a = c->a;
    if (d == a->rank)
        return a->x[base];
    const int32_t *ix = c->ix[d];
    const float *w = c->w[d];
    if (a->K[d] == 1 && w[0] == 1.0f)
        return taps(c, d + 1, base + (size_t)ix[0] * c->stride[d]);
    float s = 0.0f;
    for (int k = 0; k < a->K[d]; k++)
        if (w[k] != 0.0f)
            s += w[k] * taps(c, d + 1, base + (size_t)ix[k] * c->stride[d]);
    return s;
}

void wgk_f32_resize(const wgk_resize_args *a)
{
    ctx c;
    int o[WGK_RESIZE_MAX_RANK];
    size_t total = 1;
    c.a = a;
    for (int d = a->rank - 1; d >= 0; d--) {
        c.stride[d] = d == a->rank - 1 ? 1 : c.stride[d + 1] * (size_t)a->in[d + 1];
        total *= (size_t)a->out[d];
        o[d] = 0;
        c.ix[d] = a->idx + a->off[d];
        c.w[d] = a->w + a->off[d];
    }
    for (size_t i = 0; i < total; i++) {
        int outside = 0;
        for (int d = 0; d < a->rank; d++)
            outside |= c.ix[d][0] < 0;
        a->y[i] = outside ? a->extrapolation : taps(&c, 0, 0);
        /* next output coordinate (odometer, last axis fastest) */
        for (int d = a->rank - 1; d >= 0; d--) {
            if (++o[d] < a->out[d]) {
                c.ix[d] += a->K[d];
                c.w[d] += a->K[d];
                break;
            }
            o[d] = 0;
            c.ix[d] = a->idx + a->off[d];
            c.w[d] = a->w + a->off[d];
        }
    }
}
