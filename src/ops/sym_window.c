/*
 * sym_window.c: Conv, ConvTranspose, the pools and the per-channel normalisations over
 * symbolic spatial dims (sym.h). An image model exported with dynamic height and width
 * (`--dim h=32..960 --dim w=32..960`) keeps them symbolic through its convolutions: each
 * output size is floor((X + pads - extent) / stride) + 1 of its input's, a monomial where
 * that is one at every size (a 3x3 pad-1 conv keeps h; stride 2 halves 2h), else a
 * derived symbol the module computes from the host's before any step runs (symdim.h
 * wgc_sym_window_dim), so that downstream ops see ordinary symbols and two convs of one
 * geometry agree. The kernels, chosen at the maxima, loop over the actual sizes: the ops'
 * own emit hooks print every size through wgc_size_expr (emit.h).
 */
#include <string.h>

#include "../ir/symdim.h"
#include "conv_transpose.h"
#include "helpers/sliding_window.h"
#include "sym.h"

bool wgc_sym_window_op(const wgc_graph *g, const wgc_node *n)
{
    return n->n_inputs >= 1 && n->inputs[0] >= 0 && wgc_op_takes(g, n, WGC_WINDOW);
}

/* ConvTranspose: stride x the input where that holds at every size (output = s * in + a
 * constant that is 0: kernel = stride unpadded, 4 / 2 / pad 1 ...), else refused. */
static wg_status deconv_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    wgc_deconv_geom c;
    wg_status st = wgc_deconv_geom_of(g, n, &c);
    if (st)
        return st;
    if (wgc_attr_find(n, "output_shape"))
        return wgc_sym_refuse(g, n, "an output_shape attribute over symbolic dims");
    const wgc_shape *x = &wgc_in(g, n, 0)->shape;
    y->dims[1] = c.M;
    for (int i = 0; i < 2; i++) {
        const int d = 2 + i;
        if (!wgc_dim_is_sym(x, d)) {
            y->dims[d] = c.out[i];
            memset(y->sym[d], 0, WGC_MAX_SYMS);
            continue;
        }
        if (c.out[i] != c.s[i] * c.in[i])
            return wgc_sym_refuse(g, n, "an output that is not stride x input over a symbolic dimension");
        wgc_shape_set_dim(g, y, d, wgc_dimx_mul(wgc_dimx_of(g, x, d), wgc_dimx_const(c.s[i])));
    }
    return WG_OK;
}

wg_status wgc_sym_window_infer(wgc_graph *g, wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *t = wgc_in(g, n, k);
        if (t && t->symval)
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        if (t && k > 0 && wgc_shape_is_sym(&t->shape))
            return wgc_sym_refuse(g, n, "a symbolic weight or bias");
    }
    if (wgc_dim_is_sym(&x->shape, 1))
        return wgc_sym_refuse(g, n, "symbolic channels");
    *y = x->shape; /* the batch as it is */
    if (n->op == WGC_OP_BATCH_NORM || n->op == WGC_OP_INSTANCE_NORM || n->op == WGC_OP_LRN)
        return WG_OK;
    if (n->op == WGC_OP_GLOBAL_AVERAGE_POOL || n->op == WGC_OP_GLOBAL_MAX_POOL) {
        for (int d = 2; d < y->rank; d++) {
            y->dims[d] = 1;
            memset(y->sym[d], 0, WGC_MAX_SYMS);
        }
        return WG_OK;
    }
    if (n->op == WGC_OP_CONV_TRANSPOSE)
        return deconv_shape(g, n, y);
    const int sr = x->shape.rank - 2;
    const bool conv = n->op == WGC_OP_CONV;
    const wgc_tensor *w = conv ? wgc_in(g, n, 1) : NULL;
    if (conv && (!w || w->shape.rank != x->shape.rank))
        return wgc_sym_refuse(g, n, NULL);
    wgc_window win;
    wg_status st = wgc_window_resolve(g, n, &x->shape.dims[2], sr, conv ? &w->shape.dims[2] : NULL, !conv, &win);
    if (st)
        return st;
    const char *ap = wgc_attr_str(n, "auto_pad", "NOTSET");
    const bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
    const bool ceil = !conv && wgc_attr_int(n, "ceil_mode", 0) != 0;
    if (conv)
        y->dims[1] = w->shape.dims[0];
    for (int i = 0; i < sr; i++) {
        const int d = 2 + i;
        const wgc_dimx in = wgc_dimx_of(g, &x->shape, d);
        if (!wgc_dim_is_sym(&x->shape, d)) {
            y->dims[d] = win.out[i];
            memset(y->sym[d], 0, WGC_MAX_SYMS);
            continue;
        }
        /* SAME pads depend on the size when the stride is not 1 */
        if (same && win.s[i] != 1)
            return wgc_sym_refuse(g, n, "auto_pad SAME with a stride over a symbolic dimension");
        const int64_t extent = (win.k[i] - 1) * win.d[i] + 1;
        wgc_dimx out;
        if ((st = wgc_sym_window_dim(g, n, in, win.pb[i] + win.pe[i] - extent, win.s[i], ceil, win.pb[i], &out)))
            return st;
        wgc_shape_set_dim(g, y, d, out);
    }
    return WG_OK;
}
