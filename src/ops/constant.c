/* constant.c: Constant: value (tensor), value_float(s), value_int(s). sparse_value and
 * value_string(s) are unsupported. Always folded. */
#include <stdlib.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"

static wg_status constant_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 0, 0, 1, 1);
    if (st)
        return st;
    if (n->n_attrs != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "needs exactly one value attribute, has %d",
                         n->n_attrs);
    const wgc_attr *a = &n->attrs[0];
    wgc_shape s = {0};
    int dtype;
    if (!strcmp(a->name, "value") && a->type == WGC_ATTR_TENSOR && a->t) {
        if (!wgc_elem_supported(a->t->dtype))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "value of dtype %s",
                             wg_dtype_name(a->t->dtype));
        dtype = a->t->dtype;
        s = a->t->shape;
    } else if (!strcmp(a->name, "value_float") && a->type == WGC_ATTR_FLOAT) {
        dtype = WG_DT_FLOAT;
    } else if (!strcmp(a->name, "value_int") && a->type == WGC_ATTR_INT) {
        dtype = WG_DT_INT64;
    } else if (!strcmp(a->name, "value_floats") && a->type == WGC_ATTR_FLOATS) {
        dtype = WG_DT_FLOAT;
        s.rank = 1;
        s.dims[0] = (int64_t)a->n;
    } else if (!strcmp(a->name, "value_ints") && a->type == WGC_ATTR_INTS) {
        dtype = WG_DT_INT64;
        s.rank = 1;
        s.dims[0] = (int64_t)a->n;
    } else {
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "attribute '%s' (type %d)", a->name,
                         a->type);
    }
    wgc_set_output(g, n, 0, dtype, &s);
    return WG_OK;
}

static wg_status constant_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_attr *a = &n->attrs[0];
    wgc_tensor *y = wgc_out(g, n, 0);
    int64_t iv = a->i;
    float fv = a->f;
    const void *src;
    if (a->type == WGC_ATTR_TENSOR)
        src = a->t->data;
    else if (a->type == WGC_ATTR_FLOAT)
        src = &fv;
    else if (a->type == WGC_ATTR_INT)
        src = &iv;
    else if (a->type == WGC_ATTR_FLOATS)
        src = a->floats;
    else
        src = a->ints;
    if (!src && wgc_numel(&y->shape) > 0)
        return wgc_error(g, n, WG_ERR_INVALID, "value attribute has no data");
    if (!src)
        src = &iv;
    return wgc_fold_copy(g, n, 0, src);
}

const wgc_op_def wgc_op_constant = {.infer = constant_infer, .fold = constant_fold, .emit = wgc_emit_folded_only};
