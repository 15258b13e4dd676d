/*
 * reverse_sequence.c: ReverseSequence(x, sequence_lens): for batch b, reverses the first
 * sequence_lens[b] steps along time_axis and copies the rest (batch_axis, time_axis are
 * 0/1). Lengths are read at run time; one outside [0, time] makes wg_run fail with
 * WGK_ERR_INDEX.
 */
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

static wg_status rs_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_two_inputs(g, n, wgc_gen_dtypes, wgc_index_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *l = wgc_in(g, n, 1);
    int64_t ba = wgc_attr_int(n, "batch_axis", 1), ta = wgc_attr_int(n, "time_axis", 0);
    if (x->shape.rank < 2 || (ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
        return wgc_error(g, n, WG_ERR_INVALID, "batch_axis %lld / time_axis %lld for rank %d",
                         (long long)ba, (long long)ta, x->shape.rank);
    if (l->shape.rank != 1 || l->shape.dims[0] != x->shape.dims[ba])
        return wgc_error(g, n, WG_ERR_INVALID, "sequence_lens must have %lld values",
                         (long long)x->shape.dims[ba]);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

static wg_status rs_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *l = wgc_in(g, n, 1);
    wg_status st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    if (wgc_numel(&x->shape) == 0)
        return WG_OK;
    int ba = (int)wgc_attr_int(n, "batch_axis", 1), ta = (int)wgc_attr_int(n, "time_axis", 0);
    int64_t xs[WG_MAX_RANK], dims[3], inner = 1;
    wgc_shape_strides(&x->shape, xs);
    for (int d = 2; d < x->shape.rank; d++)
        inner *= x->shape.dims[d];
    dims[0] = x->shape.dims[0], dims[1] = x->shape.dims[1], dims[2] = inner;
    int64_t T = x->shape.dims[ta];
    const char *ct = wgc_loop_bits(x->dtype), *lt = l->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    wgc_emit(e, "{\nconst %s *pl = (const %s *)%s;\n", lt, lt, wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e, "const %s *px = (const %s *)%s;\n", ct, ct, wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "%s *py = (%s *)%s;\n", ct, ct, wgc_ptr(e, g, n->outputs[0]));
    wgc_loop_for(e, "i", 3, dims);
    wgc_emit(e, "{\nint64_t len = pl[i%d];\nif (len < 0 || len > %lld) return WGK_ERR_INDEX;\n", ba,
             (long long)T);
    wgc_emit(e, "int32_t t = i%d < len ? (int32_t)len - 1 - i%d : i%d;\n", ta, ta, ta);
    /* source: the same position with the time index replaced by t */
    wgc_emit(e, "py[(i0 * %lld + i1) * %lld + i2] = px[%s * %lld + %s * %lld + i2];\n}\n}\n",
             (long long)dims[1], (long long)inner, ta == 0 ? "t" : "i0", (long long)xs[0],
             ta == 1 ? "t" : "i1", (long long)xs[1]);
    return WG_OK;
}

const wgc_op_def wgc_op_reverse_sequence = {.infer = rs_infer, .emit = rs_emit};
