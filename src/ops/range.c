/*
 * range.c: Range(start, limit, delta). The output length depends on the values, so all
 * three inputs must be constant; the node then always folds (numpy arange semantics:
 * element i is start + i * delta, count max(ceil((limit - start) / delta), 0)).
 */
#include <math.h>

#include "helpers/emit_and_fold.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

static wg_status range_infer(wgc_graph *g, wgc_node *n)
{
    static const int dts[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, 0};
    static const char *what[] = {"start", "limit", "delta"};
    wg_status st = wgc_check_arity(g, n, 3, 3, 1, 1);
    for (int i = 0; i < 3 && !st; i++)
        st = wgc_check_input(g, n, i, dts);
    for (int i = 0; i < 3 && !st; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (t->dtype != wgc_in(g, n, 0)->dtype || wgc_numel(&t->shape) != 1)
            return wgc_error(g, n, WG_ERR_INVALID, "%s must be a scalar of start's dtype %s", what[i],
                             wg_dtype_name(wgc_in(g, n, 0)->dtype));
        st = wgc_loop_need_const(g, n, i, what[i]);
    }
    if (st)
        return st;
    int dt = wgc_in(g, n, 0)->dtype;
    int64_t count;
    if (wg_dtype_is_float(dt)) {
        double s = wgc_elem_get_f(wgc_in(g, n, 0)->data, dt, 0),
               l = wgc_elem_get_f(wgc_in(g, n, 1)->data, dt, 0),
               d = wgc_elem_get_f(wgc_in(g, n, 2)->data, dt, 0);
        double c = ceil((l - s) / d);
        if (d == 0 || !(c < 1e12))
            return wgc_error(g, n, WG_ERR_INVALID, "range %g..%g step %g has no finite length", s, l, d);
        count = c > 0 ? (int64_t)c : 0;
    } else {
        int64_t s = wgc_const_int(wgc_in(g, n, 0), 0), l = wgc_const_int(wgc_in(g, n, 1), 0),
                d = wgc_const_int(wgc_in(g, n, 2), 0);
        if (d == 0)
            return wgc_error(g, n, WG_ERR_INVALID, "delta is 0");
        /* ceil division with the sign of delta, in a range that cannot overflow */
        double c = ceil(((double)l - (double)s) / (double)d);
        count = c > 0 ? (int64_t)c : 0;
    }
    wgc_shape y = {.rank = 1, .dims = {count}};
    wgc_set_output(g, n, 0, dt, &y);
    return WG_OK;
}

static wg_status range_fold(wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    int dt = y->dtype;
    void *data = wgc_elem_alloc(g, n, dt, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int64_t m = y->shape.dims[0];
    if (wg_dtype_is_float(dt)) {
        double s = wgc_elem_get_f(wgc_in(g, n, 0)->data, dt, 0),
               d = wgc_elem_get_f(wgc_in(g, n, 2)->data, dt, 0);
        for (int64_t i = 0; i < m; i++)
            wgc_elem_set_f(data, dt, i, s + (double)i * d);
    } else {
        int64_t s = wgc_const_int(wgc_in(g, n, 0), 0), d = wgc_const_int(wgc_in(g, n, 2), 0);
        for (int64_t i = 0; i < m; i++)
            wgc_elem_set_i(data, dt, i, s + i * d);
    }
    wgc_tensor_set_const(g, n->outputs[0], dt, &y->shape, data);
    return WG_OK;
}

const wgc_op_def wgc_op_range = {range_infer, range_fold, wgc_emit_folded_only, NULL};
