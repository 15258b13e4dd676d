/*
 * gather_scatter_elements.c: GatherElements, ScatterElements and the deprecated Scatter: element-wise index
 * ops along one axis, as inline loops over the indices (any data dtype, int32/int64
 * indices). Negative indices count from the end; an index out of range makes wg_run fail
 * with WGK_ERR_INDEX (constant indices are checked at compile time). ScatterElements
 * reductions none/add/mul/max/min apply duplicates in index order, like the reference.
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"
#include "helpers/sym_code.h"
#include "sym.h"

static bool is_gather(const wgc_node *n)
{
    return n->op == WGC_OP_GATHER_ELEMENTS;
}

static wg_status el_infer(wgc_graph *g, wgc_node *n)
{
    bool ga = is_gather(n);
    wg_status st = wgc_check_gather_scatter_inputs(g, n, ga, wgc_index_dtypes);
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
    const char *close = "o++;\n}\n}\n";
    if (ga) {
        wgc_emit(e, "py[o] = px[%s + (int32_t)k * %lld];\n", off, (long long)axs);
        wgc_emit(e, "%s", close);
        return WG_OK;
    }
    wgc_emit(e, "TD *q = &py[%s + (int32_t)k * %lld];\nTD u = pu[o];\n", off, (long long)axs);
    return wgc_emit_scatter_update(e, g, n, red, close);
}

/* ---- symbolic dims (sym.h) ---- */

static wg_status el_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    switch (n->op) {
    case WGC_OP_SCATTER_ELEMENTS: {
        /* y is data; indices and updates of one shape (symbolic or not; el_sym_emit reads
         * every size at run time) */
        const wgc_tensor *ix = wgc_in(g, n, 1), *u = wgc_in(g, n, 2);
        if (wgc_sym_has_symval_input(g, n) || ix->shape.rank != u->shape.rank)
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        for (int d = 0; d < ix->shape.rank; d++)
            if (ix->shape.dims[d] != u->shape.dims[d] || memcmp(ix->shape.sym[d], u->shape.sym[d], WGC_MAX_SYMS))
                return wgc_sym_refuse(g, n, "indices and updates of different symbolic shapes");
        y = x->shape;
        return wgc_sym_set_out(g, n, 0, &y);
    }
    case WGC_OP_GATHER_ELEMENTS: {
        /* y has the indices' dims (el_sym_emit reads both shapes at run time) */
        const wgc_tensor *ix = wgc_in(g, n, 1);
        if (wgc_sym_has_symval_input(g, n))
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        for (int d = 0; d < ix->shape.rank; d++)
            memcpy(y.sym[d], ix->shape.sym[d], WGC_MAX_SYMS);
        return wgc_sym_set_out(g, n, 0, &y);
    }
    default:
        return wgc_sym_batch_refuse(g, n);
    }
}

/* GatherElements: y[i] = x[i with its axis coordinate replaced by indices[i]], y at the
 * indices' actual dims (x may be larger on the other axes). One flat loop whose multi-index
 * is divided out of the position: BERT's token-type gather is batch x seq elements. */
/* The walk GatherElements and ScatterElements share at the actual sizes: for each element
 * o of the indices ix (pi), `at` is its position in x with the axis coordinate replaced by
 * the index (checked against the axis's actual length: WGK_ERR_INDEX); then `element`.
 * Closes the block the caller opened. */
static void emit_elements_walk(wgc_emitter *e, const wgc_tensor *x, const wgc_tensor *ix, int axis, const char *element)
{
    const int r = x->shape.rank;
    wgc_sym_put_dims(e, &ix->shape, "idims");
    wgc_emit(e, "const int32_t xst[%d] = {", r);
    for (int d = 0; d < r; d++)
        wgc_emit(e, "%s%s", d ? ", " : "", wgc_dims_expr(e, &x->shape, d + 1, r));
    wgc_emit(e, "};\nconst int32_t count = %s, dim = %s;\n", wgc_sym_numel(e, ix), wgc_dims_expr(e, &x->shape, axis, axis + 1));
    wgc_emit(e, "for (int32_t o = 0; o < count; o++) {\n    int32_t rem = o, off = 0;\n"
                "    for (int d = %d; d >= 0; d--) {\n        const int32_t c = rem %% idims[d];\n"
                "        rem /= idims[d];\n        if (d != %d)\n            off += c * xst[d];\n    }\n"
                "    int64_t k = (int64_t)pi[o];\n    if (k < 0)\n        k += dim;\n"
                "    if (k < 0 || k >= dim)\n        return WGK_ERR_INDEX;\n"
                "    const int32_t at = off + (int32_t)k * xst[%d];\n%s}\n}\n", r - 1, axis, axis, element);
}

static wg_status emit_gather_elements(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    const int r = x->shape.rank;
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, r, &axis);
    if (st)
        return st;
    const char *ct = wgc_loop_bits(x->dtype), *it = ix->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    wgc_emit(e, "{\ntypedef %s TD;\nconst %s *pi = (const %s *)%s;\nconst TD *px = (const TD *)%s;\n"
                "TD *py = (TD *)%s;\n", ct, it, it, wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]));
    emit_elements_walk(e, x, ix, axis, "py[o] = px[at];\n");
    return WG_OK;
}

/* ScatterElements at the actual sizes: y = data, then each update written at its index
 * (checked against the axis's actual length) by the reduction's statement; Faster R-CNN's
 * MultiScaleRoIAlign puts each level's pooled rois back in order this way. */
static wg_status emit_scatter_elements(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    const int r = x->shape.rank, red = wgc_scatter_reduction(n);
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, r, &axis);
    if (st)
        return st;
    const char *update = wgc_scatter_statement(red);
    if (!update)
        return wgc_sym_refuse(g, n, "this reduction");
    const char *ct = red == WGC_SCATTER_NONE ? wgc_loop_bits(x->dtype) : wgc_sym_c_type(x->dtype);
    const char *it = ix->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    if (!ct)
        return wgc_sym_refuse(g, n, "this dtype");
    wgc_emit(e, "{\ntypedef %s TD;\nconst %s *pi = (const %s *)%s;\nconst TD *px = (const TD *)%s;\n"
                "const TD *pu = (const TD *)%s;\nTD *py = (TD *)%s;\n", ct, it, it, wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[2]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "if (py != px)\n    memcpy(py, px, (size_t)%s * sizeof(TD));\n", wgc_sym_numel(e, x));
    char element[256];
    snprintf(element, sizeof element, "TD *q = &py[at];\nTD u = pu[o];\n%s", update);
    emit_elements_walk(e, x, ix, axis, element);
    return WG_OK;
}

static wg_status el_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_GATHER_ELEMENTS: return emit_gather_elements(e, g, n);
    case WGC_OP_SCATTER_ELEMENTS: return emit_scatter_elements(e, g, n);
    default: return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
    }
}

const wgc_op_def wgc_op_gather_scatter_elements = {
    .infer = el_infer,
    .fold = el_fold,
    .emit = el_emit,
    .sym = {.infer = el_sym_infer, .emit = el_sym_emit, .bounds = wgc_gather_scatter_bounds},
};
