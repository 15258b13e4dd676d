/*
 * onehot.c: OneHot(indices, depth, values): y has indices' dims with `depth` inserted at
 * `axis`; y = values[1] where the (wrapped, for negative) index equals the position along
 * axis, values[0] elsewhere. depth must be constant (it sets the shape); indices of any
 * numeric dtype are truncated to integers, like the reference.
 */
#include <math.h>
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

static wg_status onehot_infer(wgc_graph *g, wgc_node *n)
{
    static const int num[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8, WG_DT_INT16,
                              WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32,
                              WG_DT_UINT64, 0};
    wg_status st = wgc_check_data_input(g, n, 3, 3, num);
    if (!st)
        st = wgc_check_input(g, n, 1, num);
    if (!st)
        st = wgc_check_input(g, n, 2, wgc_gen_dtypes);
    if (!st)
        st = wgc_loop_need_const(g, n, 1, "depth");
    if (st)
        return st;
    const wgc_tensor *ix = wgc_in(g, n, 0), *dp = wgc_in(g, n, 1), *v = wgc_in(g, n, 2);
    if (wgc_numel(&dp->shape) != 1 || wgc_numel(&v->shape) != 2)
        return wgc_error(g, n, WG_ERR_INVALID, "depth must hold one value and values two");
    double depth = wgc_elem_get_f(dp->data, dp->dtype, 0);
    if (!(depth >= 1 && depth < 1e9))
        return wgc_error(g, n, WG_ERR_INVALID, "depth %g", depth);
    int r = ix->shape.rank + 1, axis;
    if (r > WG_MAX_RANK)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output rank %d", r);
    int64_t a = wgc_attr_int(n, "axis", -1);
    if (!wgc_norm_axis(a, r, &axis))
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d", (long long)a, r);
    wgc_shape y = {.rank = r, .dims = {0}};
    for (int d = 0, k = 0; d < r; d++)
        y.dims[d] = d == axis ? (int64_t)depth : ix->shape.dims[k++];
    wgc_set_output(g, n, 0, v->dtype, &y);
    return WG_OK;
}

static wg_status onehot_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *ix = wgc_in(g, n, 0), *v = wgc_in(g, n, 2);
    const wgc_tensor *y = wgc_out(g, n, 0);
    wg_status st = wgc_check_i32_numel(g, n, y);
    if (st)
        return st;
    if (wgc_numel(&y->shape) == 0)
        return WG_OK;
    int r = y->shape.rank, axis;
    wgc_norm_axis(wgc_attr_int(n, "axis", -1), r, &axis);
    int64_t depth = y->shape.dims[axis], is[WG_MAX_RANK], st_i[WG_MAX_RANK] = {0};
    wgc_shape_strides(&ix->shape, is);
    for (int d = 0, k = 0; d < r; d++)
        if (d != axis)
            st_i[d] = is[k++];
    char off[600];
    const char *cv = wgc_loop_bits(v->dtype), *ci = wgc_ctype(ix->dtype);
    wgc_emit(e, "{\nconst %s *pi = (const %s *)%s;\n", ci, ci, wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "const %s *pv = (const %s *)%s;\n", cv, cv, wgc_ptr(e, g, n->inputs[2]));
    wgc_emit(e, "%s *py = (%s *)%s;\nint32_t o = 0;\n", cv, cv, wgc_ptr(e, g, n->outputs[0]));
    wgc_loop_for(e, "i", r, y->shape.dims);
    wgc_emit(e, "{\nint64_t k = (int64_t)pi[%s];\nif (k < 0) k += %lld;\npy[o++] = pv[k == i%d];\n}\n}\n",
             wgc_loop_offset(off, sizeof off, "i", r, st_i, 0), (long long)depth, axis);
    return WG_OK;
}

const wgc_op_def wgc_op_onehot = {.infer = onehot_infer, .emit = onehot_emit};
