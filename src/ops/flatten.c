/* flatten.c: Flatten to 2-D at `axis` (default 1, negative counts from the end). */
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"

static wg_status flatten_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t axis = wgc_attr_int(n, "axis", 1);
    /* axis may equal rank (then the output is [numel, 1]). */
    if (axis < -(int64_t)x->shape.rank || axis > x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d",
                         (long long)axis, x->shape.rank);
    if (axis < 0)
        axis += x->shape.rank;
    wgc_shape y = {.rank = 2, .dims = {1, 1}};
    for (int d = 0; d < x->shape.rank; d++)
        y.dims[d < axis ? 0 : 1] *= x->shape.dims[d];
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

const wgc_op_def wgc_op_flatten = {flatten_infer, wgc_fold_same_bytes, wgc_emit_same_bytes, NULL};
