/*
 * gather_scatter_elements.c: GatherElements, ScatterElements and the deprecated Scatter: element-wise index
 * ops along one axis, as inline loops over the indices (any data dtype, int32/int64
 * indices). Negative indices count from the end; an index out of range makes wg_run fail
 * with WGK_ERR_INDEX (constant indices are checked at compile time). ScatterElements
 * reductions none/add/mul/max/min apply duplicates in index order, like the reference.
 */
#include <stdio.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

static const int idx_types[] = {WG_DT_INT64, WG_DT_INT32, 0};

static bool is_gather(const wgc_node *n)
{
    return n->op == WGC_OP_GATHER_ELEMENTS;
}

static wg_status el_infer(wgc_graph *g, wgc_node *n)
{
    bool ga = is_gather(n);
    wg_status st = wgc_check_arity(g, n, ga ? 2 : 3, ga ? 2 : 3, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_gen_dtypes);
    if (!st)
        st = wgc_check_input(g, n, 1, idx_types);
    if (!st && !ga)
        st = wgc_check_input(g, n, 2, wgc_gen_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    char b1[128], b2[128];
    if (x->shape.rank < 1 || ix->shape.rank != x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "data %s and indices %s must have the same rank >= 1",
                         wgc_shape_str(&x->shape, b1, sizeof b1), wgc_shape_str(&ix->shape, b2, sizeof b2));
    int axis;
    if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &axis)))
        return st;
    for (int d = 0; d < x->shape.rank; d++)
        if (d != axis && ix->shape.dims[d] > x->shape.dims[d])
            return wgc_error(g, n, WG_ERR_INVALID, "indices %s exceed data %s along axis %d",
                             wgc_shape_str(&ix->shape, b1, sizeof b1),
                             wgc_shape_str(&x->shape, b2, sizeof b2), d);
    if (!ga) {
        const wgc_tensor *u = wgc_in(g, n, 2);
        if (u->dtype != x->dtype || !wgc_shape_eq(&u->shape, &ix->shape))
            return wgc_error(g, n, WG_ERR_INVALID, "updates (%s %s) must match indices' shape %s and data's dtype %s",
                             wg_dtype_name(u->dtype), wgc_shape_str(&u->shape, b1, sizeof b1),
                             wgc_shape_str(&ix->shape, b2, sizeof b2), wg_dtype_name(x->dtype));
        int red = wgc_scatter_reduction(n);
        if (red == WGC_SCATTER_BAD)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "reduction '%s'", wgc_attr_str(n, "reduction", ""));
        if (red != WGC_SCATTER_NONE && x->dtype == WG_DT_BOOL)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "reduction '%s' on bool data",
                             wgc_attr_str(n, "reduction", ""));
    }
    if ((st = wgc_check_const_indices(g, n, ix, axis, x->shape.dims[axis])))
        return st;
    wgc_set_output(g, n, 0, x->dtype, ga ? &ix->shape : &x->shape);
    return WG_OK;
}

static wg_status el_fold(wgc_graph *g, wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return WG_ERR_UNSUPPORTED;
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1), *u = wgc_in(g, n, 2);
    wgc_tensor *y = wgc_out(g, n, 0);
    int axis;
    wgc_norm_axis(wgc_attr_int(n, "axis", 0), x->shape.rank, &axis);
    int red = is_gather(n) ? WGC_SCATTER_NONE : wgc_scatter_reduction(n);
    size_t es = wg_dtype_size(x->dtype);
    int64_t xs[WG_MAX_RANK], idx[WG_MAX_RANK] = {0}, m = wgc_numel(&ix->shape),
                             dim = x->shape.dims[axis];
    wgc_shape_strides(&x->shape, xs);
    char *out = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!out)
        return WG_ERR_NOMEM;
    if (!is_gather(n))
        memcpy(out, x->data, (size_t)wgc_numel(&x->shape) * es);
    bool fl = wg_dtype_is_float(x->dtype);
    for (int64_t o = 0; o < m; o++, wgc_index_next(&ix->shape, idx)) {
        int64_t k = wgc_const_int(ix, o); /* range-checked by infer */
        if (k < 0)
            k += dim;
        int64_t off = k * xs[axis];
        for (int d = 0; d < x->shape.rank; d++)
            if (d != axis)
                off += idx[d] * xs[d];
        if (is_gather(n)) {
            memcpy(out + o * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
            continue;
        }
        if (red == WGC_SCATTER_NONE) {
            memcpy(out + off * (int64_t)es, (const char *)u->data + o * (int64_t)es, es);
        } else if (fl) {
            double p = wgc_elem_get_f(out, x->dtype, off), q = wgc_elem_get_f(u->data, x->dtype, o);
            double r = red == WGC_SCATTER_ADD ? p + q : red == WGC_SCATTER_MUL ? p * q : red == WGC_SCATTER_MAX ? (q > p ? q : p) : (q < p ? q : p);
            wgc_elem_set_f(out, x->dtype, off, r);
        } else {
            int64_t p = wgc_elem_get_i(out, x->dtype, off), q = wgc_elem_get_i(u->data, x->dtype, o);
            int64_t r = red == WGC_SCATTER_ADD ? (int64_t)((uint64_t)p + (uint64_t)q)
                        : red == WGC_SCATTER_MUL ? (int64_t)((uint64_t)p * (uint64_t)q)
                        : red == WGC_SCATTER_MAX ? (q > p ? q : p) : (q < p ? q : p);
            wgc_elem_set_i(out, x->dtype, off, r);
        }
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, out);
    return WG_OK;
}

static wg_status el_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    bool ga = is_gather(n);
    int red = ga ? WGC_SCATTER_NONE : wgc_scatter_reduction(n);
    wg_status st = wgc_check_i32_numel(g, n, x);
    if (!st)
        st = wgc_check_i32_numel(g, n, ix);
    if (st)
        return st;
    if (!ga)
        wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
    if (wgc_numel(&ix->shape) == 0)
        return WG_OK;
    int axis;
    wgc_norm_axis(wgc_attr_int(n, "axis", 0), x->shape.rank, &axis);
    int64_t xs[WG_MAX_RANK], dim = x->shape.dims[axis], axs;
    wgc_shape_strides(&x->shape, xs);
    axs = xs[axis];
    xs[axis] = 0;
    const char *ct = red == WGC_SCATTER_NONE ? wgc_loop_bits(x->dtype) : wgc_ctype(x->dtype);
    const char *it = ix->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    char off[600];
    wgc_loop_offset(off, sizeof off, "i", x->shape.rank, xs, 0);
    wgc_emit(e, "{\ntypedef %s TD;\nconst %s *pi = (const %s *)%s;\n", ct, it, it, wgc_ptr(e, g, n->inputs[1]));
    if (ga)
        wgc_emit(e, "const TD *px = (const TD *)%s;\n", wgc_ptr(e, g, n->inputs[0]));
    else
        wgc_emit(e, "const TD *pu = (const TD *)%s;\n", wgc_ptr(e, g, n->inputs[2]));
    wgc_emit(e, "TD *py = (TD *)%s;\nint32_t o = 0;\n", wgc_ptr(e, g, n->outputs[0]));
    wgc_loop_for(e, "i", ix->shape.rank, ix->shape.dims);
    wgc_emit(e, "{\nint64_t k = (int64_t)pi[o];\nif (k < 0) k += %lld;\n"
                "if (k < 0 || k >= %lld) return WGK_ERR_INDEX;\n",
             (long long)dim, (long long)dim);
    if (ga) {
        wgc_emit(e, "py[o] = px[%s + (int32_t)k * %lld];\n", off, (long long)axs);
    } else {
        wgc_emit(e, "TD *q = &py[%s + (int32_t)k * %lld];\nTD u = pu[o];\n", off, (long long)axs);
        const char *update = wgc_scatter_statement(red);
        if (!update)
            return wgc_no_case(g, n, "the scatter reduction");
        wgc_emit(e, "%s", update);
    }
    wgc_emit(e, "o++;\n}\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_gather_scatter_elements = {el_infer, el_fold, el_emit, NULL};
