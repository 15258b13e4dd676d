/* unsqueeze.c: Unsqueeze: inserts unit dims at `axes` (attribute < 13, input >= 13). */
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/read_axes.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

static wg_status unsqueeze_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 2, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    /* Axes count against the output rank, which depends on how many there are. */
    int64_t n_axes = 0;
    const wgc_tensor *at = wgc_in(g, n, 1);
    if (at)
        n_axes = at->has_shape ? wgc_numel(&at->shape) : 0;
    else {
        size_t cnt = 0;
        wgc_attr_ints(n, "axes", &cnt);
        n_axes = (int64_t)cnt;
    }
    if (n_axes <= 0 || x->shape.rank + n_axes > WG_MAX_RANK)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "needs 1..%d axes for an input of rank %d",
                         WG_MAX_RANK - x->shape.rank, x->shape.rank);
    int rank = x->shape.rank + (int)n_axes;
    int axes[WG_MAX_RANK], count;
    if ((st = wgc_read_axes(g, n, 1, rank, axes, &count)))
        return st;
    bool unit[WG_MAX_RANK] = {false};
    for (int i = 0; i < count; i++)
        unit[axes[i]] = true;
    wgc_shape y = {.rank = rank};
    for (int d = 0, k = 0; d < rank; d++)
        y.dims[d] = unit[d] ? 1 : x->shape.dims[k++];
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

const wgc_op_def wgc_op_unsqueeze = WGC_SAME_BYTES_OP_DEF(unsqueeze_infer, wgc_sym_regroup_rule);
