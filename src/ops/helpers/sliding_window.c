/* sliding_window.c: sliding-window geometry for Conv and the pools (see sliding_window.h). */
#include "sliding_window.h"

#include <stdio.h>
#include <string.h>

/* INTS attribute `name` of length rank into out, or dflt everywhere when absent. */
static wg_status ints_attr(wgc_graph *g, const wgc_node *n, const char *name, int rank,
                           size_t want, int64_t dflt, int64_t min, int64_t *out)
{
    size_t cnt = 0;
    const int64_t *v = wgc_attr_ints(n, name, &cnt);
    if (!v) {
        for (size_t i = 0; i < want; i++)
            out[i] = dflt;
        return WG_OK;
    }
    if (cnt != want)
        return wgc_error(g, n, WG_ERR_INVALID, "attribute %s has %zu values, expected %zu for %d spatial dims",
                         name, cnt, want, rank);
    for (size_t i = 0; i < cnt; i++) {
        if (v[i] < min || v[i] > ((int64_t)1 << 30))
            return wgc_error(g, n, WG_ERR_INVALID, "attribute %s[%zu] = %lld is out of range (min %lld)",
                             name, i, (long long)v[i], (long long)min);
        out[i] = v[i];
    }
    return WG_OK;
}

wg_status wgc_window_resolve(wgc_graph *g, const wgc_node *n, const int64_t *in, int rank,
                             const int64_t *kernel, bool allow_ceil, wgc_window *w)
{
    memset(w, 0, sizeof *w);
    w->rank = rank;
    int64_t pads[2 * WG_MAX_RANK];
    size_t kc = 0;
    const int64_t *ks = wgc_attr_ints(n, "kernel_shape", &kc);
    wg_status st;
    if (!ks && !kernel)
        return wgc_error(g, n, WG_ERR_INVALID, "attribute kernel_shape is required");
    if (ks && kc != (size_t)rank)
        return wgc_error(g, n, WG_ERR_INVALID, "kernel_shape has %zu values, expected %d", kc, rank);
    for (int i = 0; i < rank; i++) {
        w->k[i] = kernel ? kernel[i] : ks[i];
        if (ks && kernel && ks[i] != kernel[i])
            return wgc_error(g, n, WG_ERR_INVALID, "kernel_shape[%d] = %lld but the weight has %lld",
                             i, (long long)ks[i], (long long)kernel[i]);
        /* Bounded like strides and dilations (ints_attr), so the extents below cannot
         * overflow whatever the attribute or weight says. */
        if (w->k[i] < 1 || w->k[i] > ((int64_t)1 << 30))
            return wgc_error(g, n, WG_ERR_INVALID, "kernel size %lld in dim %d is out of range",
                             (long long)w->k[i], i);
    }
    if ((st = ints_attr(g, n, "strides", rank, (size_t)rank, 1, 1, w->s)) ||
        (st = ints_attr(g, n, "dilations", rank, (size_t)rank, 1, 1, w->d)) ||
        (st = ints_attr(g, n, "pads", rank, 2 * (size_t)rank, 0, 0, pads)))
        return st;
    const char *ap = wgc_attr_str(n, "auto_pad", "NOTSET");
    bool ceil = allow_ceil && wgc_attr_int(n, "ceil_mode", 0) != 0;
    for (int i = 0; i < rank; i++) {
        if (in[i] < 1)
            return wgc_error(g, n, WG_ERR_INVALID, "input spatial dim %d has size %lld", i, (long long)in[i]);
        const int64_t eff = (w->k[i] - 1) * w->d[i] + 1; /* dilated kernel extent */
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            w->out[i] = (in[i] + w->s[i] - 1) / w->s[i];
            int64_t total = (w->out[i] - 1) * w->s[i] + eff - in[i];
            total = total < 0 ? 0 : total;
            w->pb[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            w->pe[i] = total - w->pb[i];
        } else if (!strcmp(ap, "VALID") || !strcmp(ap, "NOTSET") || !strcmp(ap, "")) {
            bool valid = !strcmp(ap, "VALID");
            w->pb[i] = valid ? 0 : pads[i];
            w->pe[i] = valid ? 0 : pads[rank + i];
            int64_t span = in[i] + w->pb[i] + w->pe[i] - eff;
            if (span < 0)
                return wgc_error(g, n, WG_ERR_INVALID,
                                 "kernel extent %lld is larger than the padded input (%lld + %lld + %lld) in spatial dim %d",
                                 (long long)eff, (long long)in[i], (long long)w->pb[i],
                                 (long long)w->pe[i], i);
            w->out[i] = (ceil ? (span + w->s[i] - 1) / w->s[i] : span / w->s[i]) + 1;
            /* ceil_mode: the last window must start inside the input or the leading pad. */
            if (ceil && (w->out[i] - 1) * w->s[i] >= in[i] + w->pb[i])
                w->out[i]--;
        } else {
            return wgc_error(g, n, WG_ERR_INVALID, "unknown auto_pad '%s'", ap);
        }
        if (w->out[i] < 1)
            return wgc_error(g, n, WG_ERR_INVALID, "output size %lld in spatial dim %d",
                             (long long)w->out[i], i);
    }
    return WG_OK;
}

void wgc_window_set_output(wgc_graph *g, const wgc_node *n, const wgc_window *w, int i, int dtype)
{
    const wgc_shape *x = &wgc_in(g, n, 0)->shape;
    wgc_shape y = {.rank = x->rank, .dims = {x->dims[0], x->dims[1]}};
    for (int d = 0; d < w->rank; d++)
        y.dims[2 + d] = w->out[d];
    wgc_set_output(g, n, i, dtype, &y);
}

void wgc_window_sizes_of(wgc_emitter *e, const wgc_shape *x, const wgc_shape *y, wgc_window_sizes *z)
{
    const int r = x->rank;
    snprintf(z->N, sizeof z->N, "%s", wgc_size_expr(e, x, 0, 1));
    snprintf(z->NC, sizeof z->NC, "%s", wgc_size_expr(e, x, 0, 2));
    snprintf(z->H, sizeof z->H, "%s", r == 3 ? "1" : wgc_size_expr(e, x, 2, 3));
    snprintf(z->W, sizeof z->W, "%s", wgc_size_expr(e, x, r - 1, r));
    snprintf(z->OH, sizeof z->OH, "%s", r == 3 ? "1" : wgc_size_expr(e, y, 2, 3));
    snprintf(z->OW, sizeof z->OW, "%s", wgc_size_expr(e, y, r - 1, r));
    snprintf(z->in_plane, sizeof z->in_plane, "%s", wgc_size_expr(e, x, 2, r));
    snprintf(z->out_plane, sizeof z->out_plane, "%s", wgc_size_expr(e, y, 2, y->rank));
    snprintf(z->numel, sizeof z->numel, "%s", wgc_size_expr(e, y, 0, y->rank));
}
