/*
 * bit_cast.c: BitCast (opset 26): the input's bytes reinterpreted as the `to` dtype of the
 * same width, shape unchanged (a copy, or nothing once the planner aliases it). The 4- and
 * 2-bit types are refused (they are unpacked in memory, so their bits are not the file's),
 * and so is a bool destination (only 0 and 1 are bools).
 */
#include "cast.h"
#include "helpers/emit_and_fold.h"

static bool bit_castable(int dt)
{
    return wgc_cast_supported(dt) && !wg_dtype_packed_bits(dt);
}

static wg_status bit_cast_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_cast_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_attr *to = wgc_attr_find(n, "to");
    if (!to)
        return wgc_error(g, n, WG_ERR_INVALID, "has no 'to' attribute");
    const int dt = to->i > 0 && to->i <= INT32_MAX ? (int)to->i : 0;
    if (!bit_castable(x->dtype) || !bit_castable(dt) || dt == WG_DT_BOOL)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "bit cast from %s to dtype %lld (%s)",
                         wg_dtype_name(x->dtype), (long long)to->i, wg_dtype_name(dt));
    if (wg_dtype_size(dt) != wg_dtype_size(x->dtype))
        return wgc_error(g, n, WG_ERR_INVALID, "%s and %s differ in width", wg_dtype_name(x->dtype),
                         wg_dtype_name(dt));
    wgc_set_output(g, n, 0, dt, &x->shape);
    return WG_OK;
}

static wg_status bit_cast_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data)
        return WG_ERR_UNSUPPORTED;
    return wgc_fold_copy(g, n, 0, x->data);
}

static wg_status bit_cast_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_bit_cast = {.infer = bit_cast_infer, .fold = bit_cast_fold, .emit = bit_cast_emit};
