/* concat.c: Concat along `axis` (negative counts from the end), and the stacking form
 * ConcatFromSequence with new_axis=1 becomes (ops/sequence.c): the node keeps its
 * new_axis attribute, the inputs share one shape, and each is one slab of a new axis of
 * y (at `axis`, counted in y's rank). */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/cache_concat.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

static bool stacks(const wgc_node *n)
{
    return wgc_attr_int(n, "new_axis", 0) != 0;
}

/* Input t's extent along the axis: 1 when stacking (a slab of its own). */
static int64_t along(const wgc_node *n, const wgc_tensor *t, int axis)
{
    return stacks(n) ? 1 : t->shape.dims[axis];
}

static wg_status concat_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, 1 << 20, 1, 1);
    if (st)
        return st;
    const wgc_attr *a = wgc_attr_find(n, "axis");
    if (!a)
        return wgc_error(g, n, WG_ERR_INVALID, "has no axis attribute");
    const bool stack = stacks(n);
    wgc_shape y = {0};
    int dtype = 0, axis = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if ((st = wgc_check_input(g, n, i, wgc_numeric_dtypes)))
            return st;
        const wgc_tensor *t = wgc_in(g, n, i);
        if (i == 0) {
            dtype = t->dtype;
            y = t->shape;
            if (!wgc_norm_axis(a->i, y.rank + stack, &axis))
                return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d",
                                 (long long)a->i, y.rank + stack);
            continue;
        }
        bool ok = t->dtype == dtype && t->shape.rank == y.rank;
        for (int d = 0; ok && d < y.rank; d++)
            ok = (d == axis && !stack) || t->shape.dims[d] == y.dims[d];
        if (!ok) {
            char s1[96], s2[96];
            return wgc_error(g, n, WG_ERR_INVALID,
                             "input %d (%s %s) does not match input 0 (%s %s) off axis %d", i,
                             wg_dtype_name(t->dtype), wgc_shape_str(&t->shape, s1, sizeof s1),
                             wg_dtype_name(dtype),
                             wgc_shape_str(&wgc_in(g, n, 0)->shape, s2, sizeof s2), axis);
        }
        if (!stack)
            y.dims[axis] += t->shape.dims[axis];
    }
    if (stack) {
        if (y.rank + 1 > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "the stacked output would have rank %d", y.rank + 1);
        memmove(y.dims + axis + 1, y.dims + axis, sizeof(int64_t) * (size_t)(y.rank - axis));
        y.dims[axis] = n->n_inputs;
        y.rank++;
    }
    wgc_set_output(g, n, 0, dtype, &y);
    return WG_OK;
}

/* The copy geometry of n's output y: outer = product of dims before the axis; each input
 * contributes a slab of dims[axis] * inner elements per outer step, yrow bytes of y. */
typedef struct concat_geometry {
    int axis;
    int64_t outer, inner;
    size_t es, yrow;
} concat_geometry;

static concat_geometry geometry(wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    concat_geometry c = {.outer = 1, .inner = 1, .es = wg_dtype_size(y->dtype)};
    wgc_norm_axis(wgc_attr_int(n, "axis", 0), y->shape.rank, &c.axis); /* checked by infer */
    for (int d = 0; d < c.axis; d++)
        c.outer *= y->shape.dims[d];
    for (int d = c.axis + 1; d < y->shape.rank; d++)
        c.inner *= y->shape.dims[d];
    c.yrow = (size_t)(y->shape.dims[c.axis] * c.inner) * c.es;
    return c;
}

static wg_status concat_fold(wgc_graph *g, wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    const concat_geometry c = geometry(g, n);
    const int axis = c.axis;
    const int64_t outer = c.outer, inner = c.inner;
    const size_t es = c.es, yrow = c.yrow;
    char *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    size_t at = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        size_t row = (size_t)(along(n, t, axis) * inner) * es;
        for (int64_t o = 0; o < outer && row; o++)
            memcpy(data + (size_t)o * yrow + at, (const char *)t->data + (size_t)o * row, row);
        at += row;
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

static wg_status concat_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const concat_geometry c = geometry(g, n);
    const int axis = c.axis;
    const int64_t outer = c.outer, inner = c.inner;
    const size_t es = c.es, yrow = c.yrow;
    size_t at = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        size_t row = (size_t)(along(n, t, axis) * inner) * es;
        /* Produced in place (the memory plan put it in its slab of y): nothing to copy. */
        if (t->aliased && t->alias_of == n->outputs[0] && t->alias_off == (int64_t)at && outer == 1) {
            at += row;
            continue;
        }
        if (row && outer) {
            const char *px = wgc_ptr(e, g, n->inputs[i]), *py = wgc_ptr(e, g, n->outputs[0]);
            wgc_emit(e, "wgk_copy_rows((char *)%s + %zu, %zu, %s, %zu, %lld, %zu);\n", py, at, yrow,
                     px, row, (long long)outer, row);
        }
        at += row;
    }
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* The run-time total of an earlier Concat in n's body whose inputs have the same sizes
 * along the axis, in order (SSD concatenates its per-class boxes, scores and labels: one
 * total for the three), or -1. Both Concats write it (concat_sym_emit), the same value. */
static int concat_total_sym(wgc_graph *g, const wgc_node *n, int axis)
{
    for (int s = wgc_sym_n_host(g); s < g->n_syms; s++) {
        const wgc_symbol *k = &g->syms[s];
        if (k->derived)
            continue;
        const int pi = g->tensors[k->tensor].producer;
        if (!k->runtime || k->dim != axis || pi < 0 || &g->nodes[pi] == n)
            continue;
        const wgc_node *p = &g->nodes[pi];
        bool same = p->op == WGC_OP_CONCAT && p->region == n->region && p->n_inputs == n->n_inputs;
        for (int i = 0; same && i < n->n_inputs; i++) {
            if ((p->inputs[i] < 0) != (n->inputs[i] < 0))
                same = false;
            else if (n->inputs[i] >= 0) {
                const wgc_shape *a = &g->tensors[p->inputs[i]].shape, *b = &g->tensors[n->inputs[i]].shape;
                wgc_dimx da = wgc_dimx_of(g, a, axis), db = wgc_dimx_of(g, b, axis);
                same = wgc_dimx_eq(&da, &db); /* along the axis only: [k, 4] boxes, [k] scores */
            }
        }
        if (same)
            return s;
    }
    return -1;
}

/* Is dim d of a the same size as of b at every size in range, in different forms: a symbol
 * of one value (the genai builder's head size kv_cache_dim, --dim 16..16) and that size? */
static bool one_size(const wgc_graph *g, const wgc_shape *a, int d, const wgc_shape *b)
{
    const wgc_dimx x = wgc_dimx_of(g, a, d), y = wgc_dimx_of(g, b, d);
    return wgc_dim_one_value(g, a, d) && wgc_dim_one_value(g, b, d) && wgc_dimx_min(g, &x) == wgc_dimx_min(g, &y);
}

static wg_status concat_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    wg_status st;
    int axis;
    if (wgc_attr_int(n, "new_axis", 0))
        return wgc_sym_refuse(g, n, "stacking (ConcatFromSequence's new_axis) of symbolic sizes");
    if ((st = wgc_read_axis(g, n, 0, y.rank, &axis)))
        return st;
    wgc_dimx sum = wgc_dimx_const(0);
    bool summed = true;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *p = wgc_in(g, n, k);
        if (!p)
            continue;
        if (p->symval && (y.rank != 1 || wgc_shape_is_sym(&y)))
            return wgc_sym_refuse(g, n, "symbolic values in other than a 1-D Concat of a fixed length");
        for (int d = 0; d < y.rank; d++)
            if (d != axis && (p->shape.dims[d] != x->shape.dims[d] ||
                              memcmp(p->shape.sym[d], x->shape.sym[d], WGC_MAX_SYMS)) &&
                !one_size(g, &p->shape, d, &x->shape))
                return wgc_sym_refuse(g, n, "its inputs differ in a symbolic dimension");
        summed = summed && wgc_dimx_add_sym(g, n, sum, wgc_dimx_of(g, &p->shape, axis), &sum);
    }
    if (!summed && g->n_syms == WGC_MAX_SYMS)
        return WG_ERR_LIMIT; /* wgc_dimx_add_sym's message */
    for (int d = 0; d < y.rank; d++) {
        bool fixed = false; /* a symbol of one value against that size: the size */
        for (int k = 0; k < n->n_inputs; k++)
            fixed |= wgc_in(g, n, k) && d != axis && !wgc_dim_is_sym(&wgc_in(g, n, k)->shape, d);
        if (!fixed)
            memcpy(y.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
    }
    if (summed) {
        wgc_shape_set_dim(g, &y, axis, sum);
    } else {
        /* sizes that add up to no product or linear sum of the symbols (SSD's per-class
         * detections, each its own TopK's count): the total is a run-time size of the Concat's own,
         * bounded by the sum of the bounds (concat_sym_emit writes it) */
        int sym = concat_total_sym(g, n, axis);
        if (sym < 0 && (st = wgc_sym_add_runtime(g, n, n->outputs[0], axis, y.dims[axis], &sym)))
            return st;
        wgc_shape_set_runtime(&y, axis, sym, y.dims[axis]);
    }
    return wgc_sym_set_out(g, n, 0, &y);
}

static wgc_sym_folds concat_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return false;
    return wgc_sym_has_symval_input(g, n) && !wgc_attr_int(n, "new_axis", 0);
}

static wg_status concat_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status st = wgc_sym_int_values_only(g, n);
    if (st)
        return st;
    (void)count;
    wgc_tensor *y = wgc_out(g, n, 0);
    int64_t at = 0;
    if (y->shape.rank != 1)
        return wgc_sym_refuse(g, n, NULL);
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *p = wgc_in(g, n, k);
        for (int64_t i = 0; p && i < wgc_numel(&p->shape); i++)
            v[at++] = wgc_symval_at(p, i);
    }
    return WG_OK;
}

/* Concat: each input's rows (the dims before the axis) into its slice of y's rows. */
static wg_status concat_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    wgc_cache_pair pair; /* a past and its present: the module may keep the cache (ir/cache_pairs.h) */
    const int cached = wgc_cache_pair_of(g, (int)(n - g->nodes), &pair);
    if (cached >= 0)
        return wgc_emit_cache_concat(e, g, n, &pair, cached);
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, y->shape.rank, &axis);
    if (st)
        return st;
    size_t es = wg_dtype_size(y->dtype);
    char rows[96], ypitch[96];
    snprintf(rows, sizeof rows, "%s", wgc_dims_expr(e, &y->shape, 0, axis));
    snprintf(ypitch, sizeof ypitch, "%s", wgc_dims_expr(e, &y->shape, axis, y->shape.rank));
    wgc_emit(e, "{\n");
    /* a total along the axis that is no sum of the inputs' sizes is a run-time size
     * (concat_sym_infer), written here */
    wgc_dimx sum = wgc_dimx_const(0);
    bool summed = true;
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0)
            summed = summed && wgc_dimx_add_ok(g, sum, wgc_dimx_of(g, &wgc_in(g, n, k)->shape, axis)) &&
                     wgc_dimx_add_sym(g, n, sum, wgc_dimx_of(g, &wgc_in(g, n, k)->shape, axis), &sum);
    const int total = summed ? -1 : wgc_shape_first_sym(&y->shape, axis);
    if (total >= 0) {
        wgc_emit(e, "wg_dims[%d] = (int32_t)(0", total);
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0)
                wgc_emit(e, " + %s", wgc_dims_expr(e, &wgc_in(g, n, k)->shape, axis, axis + 1));
        wgc_emit(e, ");\n");
    }
    wgc_emit(e, "char *py = (char *)%s;\nsize_t at = 0;\n", wgc_ptr(e, g, n->outputs[0]));
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        if (!x)
            continue;
        if (x->symval && k >= 8)
            return wgc_sym_refuse(g, n, "symbolic values in a ninth or later input");
        /* symbolic values (concat_sym_infer lets a 1-D Concat of fixed length take them)
         * are written at their actual values first */
        char src[96];
        snprintf(src, sizeof src, "%s", x->symval ? wgc_sym_operand(e, g, n, k) : wgc_ptr(e, g, n->inputs[k]));
        const char *slab = wgc_dims_expr(e, &x->shape, axis, x->shape.rank);
        wgc_emit(e, "wgk_copy_rows(py + at, (size_t)%s * %zu, %s, (size_t)%s * %zu, (size_t)%s, (size_t)%s * %zu);\n"
                    "at += (size_t)%s * %zu;\n", ypitch, es, src, slab, es, rows, slab, es, slab, es);
    }
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* Concat's bounds of small fixed tensors: element i of y from the input holding it. */
static bool concat_elem_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                               wgc_vrange *out, int64_t count)
{
    int axis = (int)wgc_attr_int(n, "axis", 0);
    if (axis < 0)
        axis += y->shape.rank;
    if (axis < 0 || axis >= y->shape.rank || wgc_attr_int(n, "new_axis", 0))
        return false;
    int64_t inner = 1;
    for (int d = axis + 1; d < y->shape.rank; d++)
        inner *= y->shape.dims[d];
    for (int64_t i = 0; i < count; i++) {
        int64_t outer = i / (inner * y->shape.dims[axis]), c = i / inner % y->shape.dims[axis];
        int64_t in = i % inner;
        for (int k = 0; k < n->n_inputs; k++) {
            const wgc_tensor *x = wgc_in(g, n, k);
            if (!x)
                continue;
            int64_t len = x->shape.dims[axis];
            if (c < len) {
                if (!wgc_vrange_at(g, x, (outer * len + c) * inner + in, &out[i]))
                    return false;
                break;
            }
            c -= len;
        }
    }
    return true;
}

/* Bounds of integer values computed at run time (ir/valrange.h): each element's own where
 * y keeps one per element, else the union of every input's. */
static bool concat_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                              wgc_vrange *out, int64_t count)
{
    if (count > 1)
        return concat_elem_bounds(g, n, y, out, count);
    bool first = true;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *p = wgc_in(g, n, k);
        wgc_vrange a;
        if (!p)
            continue;
        if (!wgc_vrange_union(g, p, &a))
            return false;
        if (first)
            out[0] = a;
        out[0].lo = a.lo < out[0].lo ? a.lo : out[0].lo;
        out[0].hi = a.hi > out[0].hi ? a.hi : out[0].hi;
        first = false;
    }
    return !first;
}

const wgc_op_def wgc_op_concat = {
    .infer = concat_infer,
    .fold = concat_fold,
    .emit = concat_emit,
    .sym = {.infer = concat_sym_infer,
            .emit = concat_sym_emit,
            .foldable = concat_sym_foldable,
            .values = concat_sym_values,
            .bounds = concat_sym_bounds},
};
