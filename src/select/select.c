/* select.c: the kernel-selection step (select.h): every node's choice, then the model's
 * Winograd budget, computed once, and the Winograd convs' preparation that depends on it. */
#include "select.h"

#include "../ir/symdim.h"

#include "tunables.h"

wg_status wgc_select_kernels(wgc_graph *g, const wgc_select_target *t)
{
    wg_status st = WG_OK;
    size_t transformed = 0; /* bytes of every Winograd conv's transformed filters */
    for (int i = 0; i < g->n_nodes && !st; i++) {
        wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        switch (n->op) {
        case WGC_OP_CONV:
            if (!(st = wgc_select_conv(g, n, t)))
                transformed += wgc_select_conv_transformed_bytes(g, n);
            break;
        case WGC_OP_GEMM:
            wgc_select_gemm(g, n, t);
            break;
        case WGC_OP_MATMUL:
            wgc_select_matmul(g, n, t);
            break;
        case WGC_OP_CONV_TRANSPOSE:
            st = wgc_select_conv_transpose(g, n);
            break;
        default: /* one implementation: nothing to choose */
            break;
        }
    }
    const bool per_run = transformed > WGC_WINOGRAD_KEEP_LIMIT;
    for (int i = 0; i < g->n_nodes && !st; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == WGC_OP_CONV)
            st = wgc_select_conv_prep(g, &g->nodes[i], per_run);
    return st;
}

wg_status wgc_pass_select_kernels(wgc_graph *g, const wgc_pass_options *opt)
{
    const wgc_select_target t = {.simd = opt->simd};
    return wgc_select_kernels(g, &t);
}

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
