/* qconv_geom.c: a ConvInteger or QLinearConv node's geometry (qconv_geom.h). */
#include <string.h>

#include "helpers/sliding_window.h"
#include "qconv_geom.h"

wg_status wgc_qconv_resolve(wgc_graph *g, const wgc_node *n, wgc_qconv_geom *q)
{
    memset(q, 0, sizeof *q);
    wg_status st = wgc_q_inputs_check(g, n, n->op == WGC_OP_QLINEAR_CONV, 9, &q->in);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, q->in.a), *w = wgc_in(g, n, q->in.b);
    const int r = q->rank = x->shape.rank - 2;
    if (r < 1 || r > 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s with a rank-%d input is not supported", n->op_type,
                         x->shape.rank);
    if (w->shape.rank != x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "weight '%s' has rank %d, expected %d", w->name, w->shape.rank,
                         x->shape.rank);
    q->N = x->shape.dims[0];
    q->C = x->shape.dims[1];
    q->M = w->shape.dims[0];
    q->groups = wgc_attr_int(n, "group", 1);
    if (q->groups < 1 || q->C % q->groups || q->M % q->groups || q->M < 1 || w->shape.dims[1] * q->groups != q->C)
        return wgc_error(g, n, WG_ERR_INVALID, "group = %lld does not fit input channels %lld and weight '%s'",
                         (long long)q->groups, (long long)q->C, w->name);
    wgc_window win;
    if ((st = wgc_window_resolve(g, n, &x->shape.dims[2], r, &w->shape.dims[2], false, &win)))
        return st;
    q->y = wgc_conv_output_shape(q->N, q->M, r, win.out);
    q->v = wgc_conv_view3_of(r, &x->shape.dims[2], win.out, win.k, win.s, win.d, win.pb);
    q->osz = q->v.out[0] * q->v.out[1] * q->v.out[2];
    q->nx = wgc_numel(&x->shape);
    q->nw = wgc_numel(&w->shape);
    q->ny = q->N * q->M * q->osz;
    static const char *const names[2] = {"x", "w"};
    const wgc_q_per per[2] = {{0, NULL}, {q->M, "output channel"}};
    if ((st = wgc_q_params_check(g, n, &q->in, names, per, &q->vec, &q->ydt)))
        return st;
    if (n->qdeq)
        q->ydt = WG_DT_FLOAT; /* the float tail's output (fuse_qconv_epilogue.c) */
    if (q->in.qlinear) {
        static const int i32[] = {WG_DT_INT32, 0};
        const wgc_tensor *b = wgc_in(g, n, 8);
        if (b && ((st = wgc_check_input(g, n, 8, i32)) || b->shape.rank != 1 || b->shape.dims[0] != q->M))
            return st ? st
                      : wgc_error(g, n, WG_ERR_INVALID, "bias '%s' must be int32 [%lld]", b->name, (long long)q->M);
    }
    if (q->nx >= ((int64_t)1 << 29) || q->nw >= ((int64_t)1 << 29) || q->ny >= ((int64_t)1 << 29))
        return wgc_error(g, n, WG_ERR_LIMIT, "%s is too large for the 32-bit kernels", n->op_type);
    return WG_OK;
}

bool wgc_qconv_const_weights(const wgc_graph *g, const wgc_node *n, const wgc_qconv_geom *q)
{
    const wgc_tensor *w = wgc_in((wgc_graph *)g, n, q->in.b), *wz = wgc_in((wgc_graph *)g, n, q->in.bz);
    return w->data && (!wz || wz->data);
}

bool wgc_qconv_pointwise(const wgc_qconv_geom *q)
{
    for (int i = 0; i < 3; i++)
        if (q->v.k[i] != 1 || q->v.s[i] != 1 || q->v.p[i] != 0)
            return false;
    return true;
}
