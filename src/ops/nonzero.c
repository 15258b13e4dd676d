/*
 * nonzero.c: NonZero: int64 [rank, count] of the indices of the nonzero elements in
 * row-major order. A constant input folds. A run-time input (of fixed, symbolic or
 * data-dependent shape) gives a data-dependent count: a run-time symbol bounded by the element count (ir/symdim.h),
 * which the code writes into wg_dims after counting, then writes the indices densely at
 * that count (row d at d * count).
 */
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/index_loops.h"
#include "helpers/inline_loops.h"
#include "../ir/symdim.h"
#include "sym.h"

/* The run-time count symbol of an earlier live NonZero of n's input, or -1. */
static int same_count(const wgc_graph *g, const wgc_node *n)
{
    for (const wgc_node *o = g->nodes; o < n; o++) {
        if (o->dead || o->op != WGC_OP_NON_ZERO || o->inputs[0] != n->inputs[0] || o->outputs[0] < 0)
            continue;
        const wgc_shape *s = &g->tensors[o->outputs[0]].shape;
        if (s->rank == 2 && wgc_dim_is_runtime(g, s, 1))
            return wgc_shape_first_sym(s, 1);
    }
    return -1;
}

static wg_status nonzero_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t m = wgc_numel(&x->shape), count = 0;
    /* a scalar counts as rank 1 (the reference runs np.nonzero on it) */
    wgc_shape y = {.rank = 2, .dims = {x->shape.rank ? x->shape.rank : 1, 0}};
    if (!x->data) {
        /* NonZero of a tensor another NonZero already counted shares its count: torch
         * exports boxes[keep], scores[keep], labels[keep] as three NonZero(keep), whose
         * results must broadcast together (batched_nms adds them) */
        int sym = same_count(g, n);
        if (sym < 0 && (st = wgc_sym_add_runtime(g, n, n->outputs[0], 1, m, &sym)))
            return st;
        wgc_shape_set_runtime(&y, 1, sym, m);
        wgc_set_output(g, n, 0, WG_DT_INT64, &y);
        return WG_OK;
    }
    for (int64_t i = 0; i < m; i++)
        count += wgc_elem_get_f(x->data, x->dtype, i) != 0;
    y.dims[1] = count;
    wgc_set_output(g, n, 0, WG_DT_INT64, &y);
    return WG_OK;
}

static wg_status nonzero_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    int64_t *data = wgc_elem_alloc(g, n, WG_DT_INT64, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int64_t m = wgc_numel(&x->shape), count = y->shape.dims[1], idx[WG_MAX_RANK] = {0}, c = 0;
    for (int64_t i = 0; i < m; i++, wgc_index_next(&x->shape, idx)) {
        if (wgc_elem_get_f(x->data, x->dtype, i) == 0)
            continue;
        for (int d = 0; d < x->shape.rank; d++)
            data[d * count + c] = idx[d];
        c++;
    }
    wgc_tensor_set_const(g, n->outputs[0], WG_DT_INT64, &y->shape, data);
    return WG_OK;
}

/* The C test "element i of px is nonzero": float16 by its bits, so that -0 is zero. */
static const char *nonzero_test(int dtype)
{
    return dtype == WG_DT_FLOAT16 ? "(px[i] & 0x7fff) != 0" : "px[i] != 0";
}

static wg_status nonzero_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    int sym = -1; /* the run-time symbol of the count (dim 1 is that symbol alone) */
    for (int k = 0; k < g->n_syms; k++)
        if (y->shape.sym[1][k])
            sym = k;
    if (sym < 0 && y->shape.dims[1] == 0 && !x->data)
        return WG_OK; /* no elements: nothing to write */
    if (sym < 0)
        return wgc_emit_folded_only(e, g, n);
    const char *ct = x->dtype == WG_DT_FLOAT16 ? "uint16_t" : wgc_ctype(x->dtype);
    if (!ct)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "NonZero of %s at run time", wg_dtype_name(x->dtype));
    int r = x->shape.rank ? x->shape.rank : 1;
    /* sizes as C expressions: an input of symbolic or data-dependent dims runs at its
     * actual sizes (read from wg_dims), its count bounded by the element count at the maxima */
    wgc_emit(e, "{\nconst %s *px = (const %s *)%s;\nint64_t *py = (int64_t *)%s;\nint32_t count = 0;\n", ct, ct,
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "const int32_t m = %s;\n", wgc_dims_expr(e, &x->shape, 0, x->shape.rank));
    wgc_emit(e, "for (int32_t i = 0; i < m; i++)\n    count += %s;\nwg_dims[%d] = count;\n", nonzero_test(x->dtype),
             sym);
    wgc_emit(e, "int32_t ix[%d] = {0}, c = 0;\nfor (int32_t i = 0; i < m; i++) {\n", r);
    wgc_emit(e, "    if (%s) {\n        for (int d = 0; d < %d; d++)\n            py[(size_t)d * count + c] = ix[d];\n"
                "        c++;\n    }\n", nonzero_test(x->dtype), r);
    /* the next index, row-major */
    for (int d = x->shape.rank - 1; d >= 0; d--)
        wgc_emit(e, "    if (++ix[%d] < %s) continue;\n    ix[%d] = 0;\n", d, wgc_dims_expr(e, &x->shape, d, d + 1), d);
    wgc_emit(e, "}\n}\n");
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* [rank, count]: the count is its own run-time symbol (nonzero_infer, bounded at the
 * maxima), whatever the input's sizes; the code reads them at run time */
static wg_status nonzero_sym_infer(wgc_graph *g, wgc_node *n)
{
    if (!wgc_out(g, n, 0))
        return WG_OK;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "an input holding symbolic values");
    return WG_OK;
}

/* Its count decided at run time: its own emit hook reads its input's sizes at run time
 * itself (nonzero_sym_infer took the shapes), unless that input holds symbolic values. */
static bool nonzero_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && !g->tensors[n->inputs[0]].symval;
}

const wgc_op_def wgc_op_nonzero = {
    .infer = nonzero_infer,
    .fold = nonzero_fold,
    .emit = nonzero_emit,
    .sym = {.infer = nonzero_sym_infer, .takes = nonzero_sym_takes},
};
