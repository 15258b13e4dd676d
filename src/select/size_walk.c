/* size_walk.c: the input sizes an image node may run at (size_walk.h). */
#include "size_walk.h"

#include "../ir/symdim.h"

/* The values dimension d of x may take: [*lo, *hi] in steps of *step. */
static void dim_values(const wgc_graph *g, const wgc_shape *x, int d, int64_t *lo, int64_t *hi, int64_t *step)
{
    *lo = *hi = x->dims[d];
    *step = 1;
    if (!wgc_dim_is_sym(x, d))
        return;
    const wgc_dimx v = wgc_dimx_of(g, x, d);
    *lo = wgc_dimx_min(g, &v);
    *hi = wgc_dimx_max(g, &v);
    *step = v.c > 0 ? v.c : 1; /* c * symbol (sym_window.c takes no other) */
}

wg_status wgc_select_size_walk(wgc_graph *g, const wgc_node *n, wgc_size_walk *w)
{
    const wgc_shape *x = &wgc_in(g, n, 0)->shape;
    w->lo[0] = w->hi[0] = w->step[0] = 1;
    if (x->rank >= 4)
        dim_values(g, x, 2, &w->lo[0], &w->hi[0], &w->step[0]);
    dim_values(g, x, x->rank - 1, &w->lo[1], &w->hi[1], &w->step[1]);
    const int64_t most = (int64_t)1 << 22;
    if ((w->hi[0] - w->lo[0]) / w->step[0] + 1 > most / ((w->hi[1] - w->lo[1]) / w->step[1] + 1))
        return wgc_error(g, n, WG_ERR_LIMIT, "its input may take more than %lld heights x widths (%lld..%lld x "
                         "%lld..%lld), too many to plan its scratch for: narrow the --dim ranges",
                         (long long)most, (long long)w->lo[0], (long long)w->hi[0], (long long)w->lo[1],
                         (long long)w->hi[1]);
    return WG_OK;
}
