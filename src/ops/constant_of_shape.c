/* constant_of_shape.c: ConstantOfShape: a tensor of the shape input filled with the
 * one-element `value` attribute (default float32 0). A constant shape folds (the light
 * model-zoo graphs build their weights this way); symbolic values give symbolic dims
 * (cos_sym_infer); a shape computed at run time gives run-time dims bounded by its values'
 * bounds (ir/valrange.h), which cos_sym_emit computes, checks and fills. */
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

static wg_status cos_infer(wgc_graph *g, wgc_node *n)
{
    static const int i64[] = {WG_DT_INT64, 0};
    wg_status st = wgc_check_data_input(g, n, 1, 1, i64);
    if (st)
        return st;
    const wgc_tensor *s = wgc_in(g, n, 0);
    if (s->shape.rank != 1 || s->shape.dims[0] > WG_MAX_RANK || wgc_shape_is_sym(&s->shape))
        return wgc_error(g, n, WG_ERR_INVALID, "shape input '%s' must be 1-D with at most %d "
                         "entries", s->name, WG_MAX_RANK);
    wgc_shape y = {.rank = (int)s->shape.dims[0]};
    for (int d = 0; d < y.rank; d++) {
        if (!s->data) { /* a run-time size, at most its value's bound */
            wgc_vrange r;
            int sym;
            if (!wgc_vrange_at(g, s, d, &r))
                return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                                 "shape input '%s' is computed at run time and nothing bounds its values, "
                                 "which decide the size of output dim %d", s->name, d);
            if (r.hi >= ((int64_t)1 << 31))
                return wgc_error(g, n, WG_ERR_LIMIT, "output dim %d may reach %lld, past 2^31", d, (long long)r.hi);
            if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], d, r.hi > 0 ? r.hi : 0, &sym)))
                return st;
            wgc_shape_set_runtime(&y, d, sym, r.hi > 0 ? r.hi : 0);
            continue;
        }
        y.dims[d] = wgc_const_int(s, d);
        if (y.dims[d] < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "shape[%d] = %lld is negative", d,
                             (long long)y.dims[d]);
    }
    int dtype = WG_DT_FLOAT;
    const wgc_attr *a = wgc_attr_find(n, "value");
    if (a) {
        if (a->type != WGC_ATTR_TENSOR || !a->t || wgc_numel(&a->t->shape) != 1)
            return wgc_error(g, n, WG_ERR_INVALID, "value must be a one-element tensor");
        if (!wgc_elem_supported(a->t->dtype))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "value of dtype %s",
                             wg_dtype_name(a->t->dtype));
        dtype = a->t->dtype;
    }
    int64_t numel;
    if (!wgc_numel_checked(&y, &numel))
        return wgc_error(g, n, WG_ERR_LIMIT, "shape has too many elements");
    wgc_set_output(g, n, 0, dtype, &y);
    return WG_OK;
}

static wg_status cos_fold(wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    const wgc_attr *a = wgc_attr_find(n, "value");
    char *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    size_t es = wg_dtype_size(y->dtype);
    int64_t count = wgc_numel(&y->shape);
    /* calloc already gave zeros; fill only for a nonzero value. */
    bool zero = true;
    for (size_t b = 0; a && a->t->data && b < es; b++)
        zero = zero && ((const char *)a->t->data)[b] == 0;
    if (!zero && count > 0) {
        memcpy(data, a->t->data, es);
        /* Doubling copy: each memcpy fills twice as many elements as the last. */
        for (int64_t have = 1; have < count;) {
            int64_t take = have < count - have ? have : count - have;
            memcpy(data + (size_t)have * es, data, (size_t)take * es);
            have += take;
        }
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

static wg_status cos_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    wgc_sym_shape_of_values(g, x, &y);
    return wgc_sym_set_out(g, n, 0, &y);
}

static wg_status cos_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0), *shape = wgc_in(g, n, 0);
    if (!shape->data) /* run-time dims (cos_infer): each checked against its bound */
        for (int d = 0; d < y->shape.rank; d++) {
            char vb[160];
            const int sym = wgc_shape_first_sym(&y->shape, d);
            wgc_emit(e, "{\nconst int64_t v = %s;\nif (v < 0)\n    return WGK_ERR_INDEX;\n"
                        "if (v > %lldLL)\n    return WGK_ERR_SIZE_BOUND;\n",
                     wgc_int_elem_expr(e, g, n->inputs[0], d, vb, sizeof vb), (long long)y->shape.dims[d]);
            if (sym >= 0)
                wgc_emit(e, "wg_dims[%d] = (int32_t)v;\n", sym);
            wgc_emit(e, "}\n");
        }
    const wgc_attr *v = wgc_attr_find(n, "value");
    size_t es = wg_dtype_size(y->dtype);
    if (!es || es > 8 || y->dtype == WG_DT_STRING)
        return wgc_sym_refuse(g, n, "this dtype");
    uint64_t bits = 0;
    if (v && v->t && v->t->data)
        memcpy(&bits, v->t->data, es);
    const char *ct = es == 1 ? "uint8_t" : es == 2 ? "uint16_t" : es == 4 ? "uint32_t" : "uint64_t";
    wgc_emit(e, "{\n%s *py = (%s *)%s;\nfor (int32_t i = 0, n = %s; i < n; i++) py[i] = (%s)%lluull;\n}\n",
             ct, ct, wgc_ptr(e, g, n->outputs[0]), wgc_sym_numel(e, y), ct, (unsigned long long)bits);
    return WG_OK;
}

/* Bounds of integer values computed at run time (ir/valrange.h): every element the value
 * attribute's (0 without one). */
static bool cos_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                           wgc_vrange *out, int64_t count)
{
    (void)g, (void)y;
    const wgc_attr *v = wgc_attr_find(n, "value");
    int64_t c = 0;
    if (v && v->t && v->t->data) {
        wgc_tensor t = {.dtype = v->t->dtype, .data = v->t->data};
        c = wgc_const_int(&t, 0);
    }
    for (int64_t i = 0; i < count; i++)
        out[i] = (wgc_vrange){c, c};
    return true;
}

const wgc_op_def wgc_op_constant_of_shape = {
    .infer = cos_infer,
    .fold = cos_fold,
    .emit = wgc_emit_folded_only,
    .sym = {.infer = cos_sym_infer, .emit = cos_sym_emit, .bounds = cos_sym_bounds},
};
