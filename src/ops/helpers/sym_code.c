/*
 * sym_code.c: the C that ops print for nodes of symbolic shapes (helpers/sym_code.h):
 * sizes, strides and operands as expressions of the module's wg_dims[] (wgc_dims_expr).
 */
#include <stdio.h>
#include <string.h>

#include "../../ir/symdim.h"
#include "../sym.h"
#include "sym_code.h"

const char *wgc_sym_numel(wgc_emitter *e, const wgc_tensor *t)
{
    return wgc_dims_expr(e, &t->shape, 0, t->shape.rank);
}

wg_status wgc_sym_emit_copy(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    const char *pi = wgc_ptr(e, g, n->inputs[0]), *po = wgc_ptr(e, g, n->outputs[0]);
    if (strcmp(pi, po))
        wgc_emit(e, "memcpy(%s, %s, (size_t)%s * %zu);\n", po, pi, wgc_sym_numel(e, y),
                 wg_dtype_size(y->dtype));
    return WG_OK;
}

void wgc_sym_put_strides(wgc_emitter *e, const wgc_shape *x, const wgc_shape *y, const char *name)
{
    wgc_emit(e, "const int32_t %s[%d] = {", name, y->rank ? y->rank : 1);
    for (int d = 0; d < y->rank; d++) {
        int dx = d - (y->rank - x->rank);
        bool bcast = dx < 0 || (x->dims[dx] == 1 && !wgc_dim_is_sym(x, dx));
        wgc_emit(e, "%s%s", d ? ", " : "", bcast ? "0" : wgc_dims_expr(e, x, dx + 1, x->rank));
    }
    wgc_emit(e, "%s};\n", y->rank ? "" : "0");
}

void wgc_sym_put_dims(wgc_emitter *e, const wgc_shape *y, const char *name)
{
    wgc_emit(e, "const int32_t %s[%d] = {", name, y->rank ? y->rank : 1);
    for (int d = 0; d < y->rank; d++)
        wgc_emit(e, "%s%s", d ? ", " : "", wgc_dims_expr(e, y, d, d + 1));
    wgc_emit(e, "%s};\n", y->rank ? "" : "1");
}

const char *wgc_sym_operand(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int k)
{
    const wgc_tensor *x = wgc_in(g, n, k);
    if (!x->symval)
        return wgc_ptr(e, g, n->inputs[k]);
    const int64_t count = wgc_numel(&x->shape);
    /* (float symbolic values: a Cast of shape arithmetic, cast.c; integers as floats) */
    const char *ct = x->dtype == WG_DT_INT32 ? "int32_t" : x->dtype == WG_DT_FLOAT ? "float"
                   : x->dtype == WG_DT_DOUBLE ? "double" : "int64_t";
    wgc_emit(e, "const %s symv%d[%lld] = {", ct, k, (long long)(count ? count : 1));
    for (int64_t i = 0; i < count; i++)
        wgc_emit(e, "%s%s", i ? ", " : "", wgc_dimx_expr(e, &x->symval[i]));
    wgc_emit(e, "%s};\n", count ? "" : "0");
    static const char *const names[] = {"symv0", "symv1", "symv2", "symv3", "symv4", "symv5", "symv6", "symv7"};
    if (k >= 8) { /* callers refuse more first: never generate code that runs */
        wgc_emit(e, "#error symbolic operand %d\n", k);
        return "0";
    }
    return names[k];
}

const char *wgc_sym_c_type(int dt)
{
    switch (dt) {
    case WG_DT_FLOAT: return "float";
    case WG_DT_DOUBLE: return "double";
    case WG_DT_INT8: return "int8_t";
    case WG_DT_UINT8: case WG_DT_BOOL: return "uint8_t";
    case WG_DT_INT16: return "int16_t";
    case WG_DT_UINT16: return "uint16_t";
    case WG_DT_INT32: return "int32_t";
    case WG_DT_UINT32: return "uint32_t";
    case WG_DT_INT64: return "int64_t";
    case WG_DT_UINT64: return "uint64_t";
    default: return NULL;
    }
}

wg_status wgc_sym_broadcast_loop(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *expr)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    int r = y->shape.rank ? y->shape.rank : 1;
    const char *ty = wgc_sym_c_type(y->dtype);
    if (!ty || n->n_inputs > 3 || n->act != WGC_ACT_NONE)
        return wgc_sym_refuse(g, n, "this dtype");
    /* Operands of y's own shape or of one element (IsNaN and Where(isnan, 0, softmax) as
     * sdpa exports them): one flat loop, no index stepping. */
    bool flat = true;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        flat &= wgc_numel(&x->shape) == 1 ? !wgc_shape_is_sym(&x->shape)
                                          : wgc_shape_eq(&x->shape, &y->shape) &&
                                                !memcmp(x->shape.sym, y->shape.sym, sizeof x->shape.sym);
    }
    wgc_emit(e, "{\n%s *py = (%s *)%s;\n", ty, ty, wgc_ptr(e, g, n->outputs[0]));
    if (!flat)
        wgc_sym_put_dims(e, &y->shape, "yd");
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        const char *tx = wgc_sym_c_type(x->dtype);
        if (!tx)
            return wgc_sym_refuse(g, n, "this dtype");
        char px[96];
        snprintf(px, sizeof px, "%s", wgc_sym_operand(e, g, n, k));
        wgc_emit(e, "const %s *p%d = (const %s *)%s;\n", tx, k, tx, px);
        if (flat) { /* stride 1, or 0 for a one-element operand */
            wgc_emit(e, "const int32_t s%d = %d;\n", k, wgc_numel(&x->shape) == 1 && wgc_numel(&y->shape) != 1 ? 0 : 1);
        } else {
            char name[8];
            snprintf(name, sizeof name, "s%d", k);
            wgc_sym_put_strides(e, &x->shape, &y->shape, name);
            wgc_emit(e, "int32_t o%d = 0;\n", k);
        }
    }
    if (flat) {
        wgc_emit(e, "for (int32_t i = 0, n = %s; i < n; i++) {\n", wgc_sym_numel(e, y));
        for (int k = 0; k < n->n_inputs; k++)
            wgc_emit(e, "    const int32_t o%d = i * s%d;\n", k, k);
        wgc_emit(e, "    py[i] = %s;\n}\n}\n", expr);
        return WG_OK;
    }
    wgc_emit(e, "int32_t ix[%d] = {0};\nfor (int32_t i = 0, n = %s; i < n; i++) {\n", r, wgc_sym_numel(e, y));
    wgc_emit(e, "    py[i] = %s;\n    for (int d = %d; d >= 0; d--) {\n        ix[d]++;\n", expr, r - 1);
    for (int k = 0; k < n->n_inputs; k++)
        wgc_emit(e, "        o%d += s%d[d];\n", k, k);
    wgc_emit(e, "        if (ix[d] < yd[d])\n            break;\n");
    for (int k = 0; k < n->n_inputs; k++)
        wgc_emit(e, "        o%d -= s%d[d] * yd[d];\n", k, k);
    wgc_emit(e, "        ix[d] = 0;\n    }\n}\n}\n");
    return WG_OK;
}

bool wgc_sym_split_rows(const wgc_emitter *e, const wgc_tensor *x)
{
    const int r = x->shape.rank;
    return r >= 1 && wgc_split_pays(e, wgc_numel(&x->shape) / (x->shape.dims[r - 1] ? x->shape.dims[r - 1] : 1),
                                    wgc_numel(&x->shape));
}

void wgc_sym_strided_begin(wgc_emitter *e, wgc_graph *g, const wgc_node *n, char *base, size_t cap)
{
    snprintf(base, cap, "%s", wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "{\n");
    wgc_sym_put_dims(e, &wgc_out(g, n, 0)->shape, "yd");
}
