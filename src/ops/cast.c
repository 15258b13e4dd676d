/* cast.c: Cast between numeric dtypes (float16 and bool included). `saturate` only
 * matters for float8 types, which we do not support, so it is ignored. */
#include "helpers/host_elements.h"
#include "cast.h"
#include "helpers/emit_and_fold.h"

static wg_status cast_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_attr *to = wgc_attr_find(n, "to");
    if (!to)
        return wgc_error(g, n, WG_ERR_INVALID, "has no 'to' attribute");
    if (to->i > INT32_MAX || !wgc_elem_supported((int)to->i))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "cast to dtype %lld (%s)", (long long)to->i,
                         to->i > INT32_MAX ? "unknown" : wg_dtype_name((int)to->i));
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, (int)to->i, &x->shape);
    return WG_OK;
}

wg_status wgc_cast_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data)
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int64_t count = wgc_numel(&y->shape);
    /* Through double from float sources, through int64 from integer ones (exact). */
    for (int64_t i = 0; i < count; i++) {
        if (wg_dtype_is_float(x->dtype))
            wgc_elem_set_f(data, y->dtype, i, wgc_elem_get_f(x->data, x->dtype, i));
        else if (x->dtype == WG_DT_UINT64 && wg_dtype_is_float(y->dtype))
            wgc_elem_set_f(data, y->dtype, i, wgc_elem_get_f(x->data, x->dtype, i));
        else
            wgc_elem_set_i(data, y->dtype, i, wgc_elem_get_i(x->data, x->dtype, i));
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

wg_status wgc_cast_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
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

const wgc_op_def wgc_op_cast = {cast_infer, wgc_cast_fold, wgc_cast_emit, NULL};
