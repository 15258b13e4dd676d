/* flatten.c: Flatten to 2-D at `axis` (default 1, negative counts from the end). */
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

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

/* ---- symbolic dims (sym.h) ---- */

static wg_status flatten_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    /* [prod(dims before axis), prod(the rest)]: products of symbols are dims too (the
     * padding masks of transformers' masking_utils flatten [batch, seq]) */
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "symbolic values");
    int64_t a = wgc_attr_int(n, "axis", 1);
    if (a < 0)
        a += x->shape.rank;
    wgc_dimx p[2] = {wgc_dimx_const(1), wgc_dimx_const(1)};
    for (int d = 0; d < x->shape.rank; d++)
        p[d >= a] = wgc_dimx_mul(p[d >= a], wgc_dimx_of(g, &x->shape, d));
    wgc_shape_set_dim(g, &y, 0, p[0]);
    wgc_shape_set_dim(g, &y, 1, p[1]);
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_flatten = WGC_SAME_BYTES_OP_DEF(flatten_infer, flatten_sym_infer);
