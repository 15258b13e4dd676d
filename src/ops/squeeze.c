/* squeeze.c: Squeeze: removes unit dims at `axes` (attribute < 13, input >= 13), or every
 * unit dim when no axes are given. */
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/read_axes.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

static wg_status squeeze_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 2, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int axes[WG_MAX_RANK], count;
    if ((st = wgc_read_axes(g, n, 1, x->shape.rank, axes, &count)))
        return st;
    bool drop[WG_MAX_RANK] = {false};
    if (count < 0) {
        for (int d = 0; d < x->shape.rank; d++)
            drop[d] = x->shape.dims[d] == 1;
    } else {
        for (int i = 0; i < count; i++) {
            if (x->shape.dims[axes[i]] != 1)
                return wgc_error(g, n, WG_ERR_INVALID, "axis %d has size %lld, not 1", axes[i],
                                 (long long)x->shape.dims[axes[i]]);
            drop[axes[i]] = true;
        }
    }
    wgc_shape y = {0};
    for (int d = 0; d < x->shape.rank; d++)
        if (!drop[d])
            y.dims[y.rank++] = x->shape.dims[d];
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

const wgc_op_def wgc_op_squeeze = WGC_SAME_BYTES_OP_DEF(squeeze_infer, wgc_sym_regroup_rule);
