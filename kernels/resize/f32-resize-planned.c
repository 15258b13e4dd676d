/*
 * f32-resize-planned.c: Resize tables built in the module from a plan of run-time sizes
 * (wgk_resize.h, wgk_resize_plan.h), then applied by the table kernels.
 */
#include "wgk_resize.h"
#include "wgk_resize_plan.h"
#include "wgk_status.h"

int wgk_f32_resize_planned(const wgk_resize_plan *p, const int *cap, float extrapolation, const float *x,
                           float *y, void *scratch)
{
    const int r = p->rank;
    size_t entries = 0, maxcap = 1;
    for (int d = 0; d < r; d++) {
        const int nt = wgk_resize_tap_count(p, d);
        if (nt > cap[d])
            return WGK_ERR_SIZE_BOUND;
        entries += (size_t)p->out[d] * (size_t)nt;
        maxcap = (size_t)cap[d] > maxcap ? (size_t)cap[d] : maxcap;
    }
    /* the layout of wgk_resize_planned_scratch, at the actual sizes */
    double *tw = scratch;
    int32_t *idx = (int32_t *)(tw + maxcap);
    float *w = (float *)(idx + entries);
    int32_t *ti = (int32_t *)(w + entries);
    float *cache = (float *)(ti + maxcap);
    int K[WGK_RESIZE_PLAN_MAX_RANK], off[WGK_RESIZE_PLAN_MAX_RANK];
    wgk_resize_plan_tables(p, idx, w, K, off, ti, tw);
    if (wgk_resize_plan_fits_2d(p, K, off, idx, w)) {
        int nc = 1;
        for (int d = 0; d < r - 2; d++)
            nc *= (int)p->in[d];
        wgk_f32_resize2d(&(const wgk_resize2d_args){
            .NC = nc, .H = (int)p->in[r - 2], .W = (int)p->in[r - 1], .OH = (int)p->out[r - 2],
            .OW = (int)p->out[r - 1], .KH = K[r - 2], .KW = K[r - 1], .ih = idx + off[r - 2],
            .iw = idx + off[r - 1], .wh = w + off[r - 2], .ww = w + off[r - 1],
            .fw = wgk_resize_plan_nearest_factor(p, K, off, idx, w), .x = x, .y = y, .scratch = cache});
        return 0;
    }
    wgk_resize_args a = {.rank = r, .idx = idx, .w = w, .extrapolation = extrapolation, .x = x, .y = y};
    for (int d = 0; d < r; d++) {
        a.in[d] = (int)p->in[d];
        a.out[d] = (int)p->out[d];
        a.K[d] = K[d];
        a.off[d] = off[d];
    }
    wgk_f32_resize(&a);
    return 0;
}
