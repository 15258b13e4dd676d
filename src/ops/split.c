/*
 * split.c: Split along one axis into parts given by `split` (an attribute before opset 13,
 * a constant input from 13), by `num_outputs` (opset 18; the last part may be smaller) or
 * equal parts. Each output is one affine copy (helpers/inline_loops.c); constant inputs fold.
 */
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"
#include "sym.h"

/* Axis and the length of every output along it. */
static wg_status parts(wgc_graph *g, const wgc_node *n, int *axis, int64_t *len)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t a = wgc_attr_int(n, "axis", 0);
    if (!wgc_norm_axis(a, x->shape.rank, axis))
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d", (long long)a,
                         x->shape.rank);
    int64_t dim = x->shape.dims[*axis], total = 0;
    int m = n->n_outputs;
    size_t cnt = 0;
    const int64_t *sa = wgc_attr_ints(n, "split", &cnt);
    const wgc_tensor *si = wgc_in(g, n, 1);
    if (si) {
        wg_status st = wgc_loop_need_const(g, n, 1, "split");
        if (st)
            return st;
        if (wgc_numel(&si->shape) != m)
            return wgc_error(g, n, WG_ERR_INVALID, "split has %lld values for %d outputs",
                             (long long)wgc_numel(&si->shape), m);
        for (int k = 0; k < m; k++)
            len[k] = wgc_const_int(si, k);
    } else if (sa) {
        if ((int64_t)cnt != m)
            return wgc_error(g, n, WG_ERR_INVALID, "split has %zu values for %d outputs", cnt, m);
        for (int k = 0; k < m; k++)
            len[k] = sa[k];
    } else {
        int64_t parts = wgc_attr_int(n, "num_outputs", m);
        if (parts != m)
            return wgc_error(g, n, WG_ERR_INVALID, "num_outputs %lld but %d outputs", (long long)parts, m);
        /* Equal parts; with num_outputs (opset 18) the last may be smaller. */
        int64_t each = n->opset >= 18 ? (dim + m - 1) / m : dim / m;
        if (n->opset < 18 && dim % m)
            return wgc_error(g, n, WG_ERR_INVALID, "axis size %lld does not split into %d equal parts",
                             (long long)dim, m);
        for (int k = 0; k < m; k++) {
            int64_t left = dim - (int64_t)k * each;
            len[k] = left < each ? (left < 0 ? 0 : left) : each;
        }
    }
    for (int k = 0; k < m; k++) {
        if (len[k] < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "negative split %lld", (long long)len[k]);
        if (len[k] > dim) /* also keeps the sum from overflowing */
            return wgc_error(g, n, WG_ERR_INVALID, "split %lld is larger than axis %d (%lld)",
                             (long long)len[k], *axis, (long long)dim);
        total += len[k];
    }
    if (total != dim)
        return wgc_error(g, n, WG_ERR_INVALID, "split sums to %lld, axis %d has %lld", (long long)total,
                         *axis, (long long)dim);
    return WG_OK;
}

static wg_status split_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, 2, 1, 64);
    if (!st)
        st = wgc_check_data_and_index(g, n, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t len[64];
    int axis;
    if ((st = parts(g, n, &axis, len)))
        return st;
    for (int k = 0; k < n->n_outputs; k++) {
        wgc_shape s = x->shape;
        s.dims[axis] = len[k];
        wgc_set_output(g, n, k, x->dtype, &s);
    }
    return WG_OK;
}

static wg_status split_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data)
        return WG_ERR_UNSUPPORTED;
    int64_t len[64];
    int axis;
    wg_status st = parts(g, n, &axis, len);
    if (st)
        return st;
    int64_t outer = 1, inner = wg_dtype_size(x->dtype), dim = x->shape.dims[axis], at = 0;
    for (int d = 0; d < axis; d++)
        outer *= x->shape.dims[d];
    for (int d = axis + 1; d < x->shape.rank; d++)
        inner *= x->shape.dims[d];
    for (int k = 0; k < n->n_outputs; k++) {
        wgc_tensor *y = wgc_out(g, n, k);
        if (y) {
            char *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
            if (!data)
                return WG_ERR_NOMEM;
            for (int64_t o = 0; o < outer; o++)
                memcpy(data + o * len[k] * inner, (const char *)x->data + (o * dim + at) * inner,
                       (size_t)(len[k] * inner));
            wgc_tensor_set_const(g, n->outputs[k], y->dtype, &y->shape, data);
        }
        at += len[k];
    }
    return WG_OK;
}

static wg_status split_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t len[64], xs[WG_MAX_RANK], at = 0;
    int axis;
    wg_status st = parts(g, n, &axis, len);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    wgc_shape_strides(&x->shape, xs);
    for (int k = 0; k < n->n_outputs; k++) {
        const wgc_tensor *y = wgc_out(g, n, k);
        if (y)
            wgc_gen_affine(e, g, n->inputs[0], n->outputs[k], x->shape.rank, y->shape.dims, xs,
                           at * xs[axis]);
        at += len[k];
    }
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* along a fixed axis (GPT-2's qkv split): every part keeps x's other dims */
static wg_status split_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!wgc_out(g, n, 0))
        return WG_OK;
    wg_status st;
    int a;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "symbolic values");
    if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &a)))
        return st;
    if (wgc_dim_is_sym(&x->shape, a))
        return wgc_sym_refuse(g, n, "a split along a symbolic axis");
    for (int i = 0; i < n->n_outputs; i++) {
        const wgc_tensor *yi = wgc_out(g, n, i);
        if (!yi)
            continue;
        wgc_shape o = wgc_sym_dims_of(&yi->shape);
        for (int d = 0; d < o.rank; d++)
            if (d != a)
                memcpy(o.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
        if ((st = wgc_sym_set_out(g, n, i, &o)))
            return st;
    }
    return WG_OK;
}

/* Split along a fixed axis: each part's rows (the dims before the axis, counted at run
 * time) from its slice of x's rows. */
static wg_status split_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = x->shape.rank;
    int a;
    wg_status st = wgc_read_axis(g, n, 0, r, &a);
    if (st)
        return st;
    const size_t es = wg_dtype_size(x->dtype);
    wgc_emit(e, "{\nconst size_t rows = (size_t)%s, inner = (size_t)%s;\n", wgc_dims_expr(e, &x->shape, 0, a),
             wgc_dims_expr(e, &x->shape, a + 1, r));
    int64_t at = 0;
    for (int i = 0; i < n->n_outputs; i++) {
        const wgc_tensor *yi = wgc_out(g, n, i);
        const int64_t len = yi ? yi->shape.dims[a] : 0;
        if (yi && len)
            wgc_emit(e, "wgk_copy_rows(%s, %lld * inner * %zu, (const char *)%s + %lld * inner * %zu, "
                        "%lld * inner * %zu, rows, %lld * inner * %zu);\n", wgc_ptr(e, g, n->outputs[i]),
                     (long long)len, es, wgc_ptr(e, g, n->inputs[0]), (long long)at, es,
                     (long long)x->shape.dims[a], es, (long long)len, es);
        at += len;
    }
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_split = {
    .infer = split_infer,
    .fold = split_fold,
    .emit = split_emit,
    /* bounds: every output any of input 0's values */
    .sym = {.infer = split_sym_infer, .emit = split_sym_emit, .bounds = wgc_vrange_of_input0},
};
