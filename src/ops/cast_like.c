/*
 * cast_like.c: CastLike(input, target_type): Cast to the dtype of the second input (whose
 * values are not read). float16 targets compute as float32 (see passes/lower_fp16.c).
 */
#include "elem.h"
#include "lower.h"

static wg_status cast_like_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 2, 2, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_numeric_dtypes);
    if (!st)
        st = wgc_check_input(g, n, 1, wgc_numeric_dtypes);
    if (st)
        return st;
    int to = wgc_in(g, n, 1)->dtype;
    if (to == WG_DT_FLOAT16)
        to = WG_DT_FLOAT;
    wgc_set_output(g, n, 0, to, &wgc_in(g, n, 0)->shape);
    return WG_OK;
}

static wg_status cast_like_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data)
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int64_t count = wgc_numel(&y->shape);
    /* Through double from float sources (and uint64 to float), else exactly through int64. */
    for (int64_t i = 0; i < count; i++) {
        if (wg_dtype_is_float(x->dtype) || (x->dtype == WG_DT_UINT64 && wg_dtype_is_float(y->dtype)))
            wgc_elem_set_f(data, y->dtype, i, wgc_elem_get_f(x->data, x->dtype, i));
        else
            wgc_elem_set_i(data, y->dtype, i, wgc_elem_get_i(x->data, x->dtype, i));
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

static wg_status cast_like_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    if (x->dtype == y->dtype) {
        wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
        return WG_OK;
    }
    size_t count = (size_t)wgc_numel(&y->shape);
    if (count == 0)
        return WG_OK;
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    wgc_emit(e, "wgk_cast(%s, %d, %s, %d, %zu);\n", py, y->dtype, px, x->dtype, count);
    return WG_OK;
}

const wgc_op_def wgc_op_cast_like = {cast_like_infer, cast_like_fold, cast_like_emit, NULL};
