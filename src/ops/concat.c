/* concat.c: Concat along `axis` (negative counts from the end), and the stacking form
 * ConcatFromSequence with new_axis=1 becomes (ops/sequence.c): the node keeps its
 * new_axis attribute, the inputs share one shape, and each is one slab of a new axis of
 * y (at `axis`, counted in y's rank). */
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"

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

const wgc_op_def wgc_op_concat = {concat_infer, concat_fold, concat_emit, NULL};
