/*
 * nonzero.c: NonZero. The output length depends on the values, so the input must be
 * constant and the node always folds: int64 [rank, count] of the indices of the nonzero
 * elements in row-major order.
 */
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/index_loops.h"

static wg_status nonzero_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_numeric_dtypes);
    if (!st)
        st = wgc_loop_need_const(g, n, 0, "data");
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t m = wgc_numel(&x->shape), count = 0;
    for (int64_t i = 0; i < m; i++)
        count += wgc_elem_get_f(x->data, x->dtype, i) != 0;
    /* a scalar counts as rank 1 (the reference runs np.nonzero on it) */
    wgc_shape y = {.rank = 2, .dims = {x->shape.rank ? x->shape.rank : 1, count}};
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

const wgc_op_def wgc_op_nonzero = {nonzero_infer, nonzero_fold, wgc_emit_folded_only, NULL};
