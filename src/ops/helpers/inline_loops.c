/* inline_loops.c: inline loops for the generic ops (see inline_loops.h). */
#include "inline_loops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const int wgc_gen_dtypes[] = {WG_DT_FLOAT,  WG_DT_DOUBLE, WG_DT_INT8,   WG_DT_INT16,
                              WG_DT_INT32,  WG_DT_INT64,  WG_DT_UINT8,  WG_DT_UINT16,
                              WG_DT_UINT32, WG_DT_UINT64, WG_DT_BOOL,   WG_DT_FLOAT16, 0};

const char *wgc_ctype(int dtype)
{
    switch (dtype) {
    case WG_DT_FLOAT: return "float";
    case WG_DT_DOUBLE: return "double";
    case WG_DT_INT8: return "int8_t";
    case WG_DT_INT16: return "int16_t";
    case WG_DT_INT32: return "int32_t";
    case WG_DT_INT64: return "int64_t";
    case WG_DT_UINT8: return "uint8_t";
    case WG_DT_UINT16: return "uint16_t";
    case WG_DT_UINT32: return "uint32_t";
    case WG_DT_UINT64: return "uint64_t";
    case WG_DT_BOOL: return "uint8_t";
    default: return NULL;
    }
}

const char *wgc_dlit(char *buf, size_t cap, double v)
{
    if (isnan(v))
        snprintf(buf, cap, "(0.0/0.0)");
    else if (isinf(v))
        snprintf(buf, cap, v < 0 ? "(-1.0/0.0)" : "(1.0/0.0)");
    else
        snprintf(buf, cap, "%.17g", v);
    if (!strpbrk(buf, ".e(n") && strlen(buf) + 2 < cap)
        strcat(buf, ".0");
    return buf;
}

static void open_loops(wgc_emitter *e, int r, const int64_t *dims)
{
    for (int d = 0; d < r; d++)
        wgc_emit(e, "for (int32_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)dims[d], d);
}

/* "i0 * 12 + i1 * 3" (or "0") into buf. */
static const char *offset_expr(char *buf, size_t cap, int r, const int64_t *st, int64_t base)
{
    size_t len = (size_t)snprintf(buf, cap, "%lld", (long long)base);
    for (int d = 0; d < r && len < cap; d++)
        if (st[d])
            len += (size_t)snprintf(buf + len, cap - len, " + i%d * %lld", d, (long long)st[d]);
    return buf;
}

wg_status wgc_gen_map(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const int *ins, int nin,
                      int y, const char *expr)
{
    const wgc_tensor *ty = &g->tensors[y];
    static const char names[] = "abcd";
    const char *cy = wgc_ctype(ty->dtype);
    if (!cy)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "dtype %s at run time", wg_dtype_name(ty->dtype));
    wg_status st = wgc_check_i32_numel(g, n, ty);
    if (st)
        return st;
    if (wgc_numel(&ty->shape) == 0)
        return WG_OK;
    int r = ty->shape.rank;
    wgc_emit(e, "{\n");
    wgc_emit(e, "typedef %s TY;\n", cy);
    for (int k = 0; k < nin; k++) {
        const wgc_tensor *x = &g->tensors[ins[k]];
        const char *cx = wgc_ctype(x->dtype);
        if (!cx) {
            wgc_emit(e, "}\n");
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "dtype %s at run time",
                             wg_dtype_name(x->dtype));
        }
        if (k == 0)
            wgc_emit(e, "typedef %s T;\n", cx);
        wgc_emit(e, "const %s *p%c = (const %s *)%s;\n", cx, names[k], cx, wgc_ptr(e, g, ins[k]));
    }
    wgc_emit(e, "TY *py = (TY *)%s;\nint32_t o = 0;\n", wgc_ptr(e, g, y));
    open_loops(e, r, ty->shape.dims);
    wgc_emit(e, "{\n");
    for (int k = 0; k < nin; k++) {
        const wgc_tensor *x = &g->tensors[ins[k]];
        int64_t strides[WG_MAX_RANK] = {0}, s = 1;
        for (int d = x->shape.rank - 1; d >= 0; d--) {
            int dd = d + r - x->shape.rank;
            strides[dd] = x->shape.dims[d] == 1 ? 0 : s;
            s *= x->shape.dims[d];
        }
        char off[400];
        wgc_emit(e, "%s %c = p%c[%s];\n", wgc_ctype(x->dtype), names[k], names[k],
                 offset_expr(off, sizeof off, r, strides, 0));
    }
    wgc_emit(e, "py[o++] = (TY)(%s);\n}\n}\n", expr);
    return WG_OK;
}

void wgc_gen_affine(wgc_emitter *e, wgc_graph *g, int x, int y, int r, const int64_t *dims,
                    const int64_t *strides, int64_t base)
{
    const wgc_tensor *ty = &g->tensors[y];
    if (wgc_numel(&ty->shape) == 0)
        return;
    size_t es = wg_dtype_size(ty->dtype);
    const char *ct = es == 1 ? "uint8_t" : es == 2 ? "uint16_t" : es == 4 ? "uint32_t" : "uint64_t";
    char off[600];
    wgc_emit(e, "{\nconst %s *px = (const %s *)%s;\n", ct, ct, wgc_ptr(e, g, x));
    wgc_emit(e, "%s *py = (%s *)%s;\nint32_t o = 0;\n", ct, ct, wgc_ptr(e, g, y));
    open_loops(e, r, dims);
    wgc_emit(e, "py[o++] = px[%s];\n}\n", offset_expr(off, sizeof off, r, strides, base));
}

wg_status wgc_emit_along_axis_input(wgc_emitter *e, wgc_graph *g, const wgc_node *n,
                                    wgc_axis_view_fn view, wgc_axis_rows_fn rows)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *a = wgc_in(g, n, 1);
    int64_t outer, len, inner;
    wg_status st;
    if (a->data) {
        if ((st = view(g, n, 0, &outer, &len, &inner)))
            return st;
        rows(e, n, outer, len, inner);
        wgc_emit(e, "}\n");
        return WG_OK;
    }
    const int rank = x->shape.rank;
    wgc_emit(e, "int64_t ax = (int64_t)*(const %s *)%s;\nif (ax < 0) ax += %d;\nswitch (ax) {\n",
             a->dtype == WG_DT_INT64 ? "int64_t" : "int32_t", wgc_ptr(e, g, n->inputs[1]), rank);
    for (int d = 0; d < rank; d++) {
        if ((st = view(g, n, d, &outer, &len, &inner)))
            return st;
        wgc_emit(e, "case %d: {\n", d);
        rows(e, n, outer, len, inner);
        wgc_emit(e, "break;\n}\n");
    }
    wgc_emit(e, "default: return WGK_ERR_INDEX;\n}\n}\n");
    return WG_OK;
}
