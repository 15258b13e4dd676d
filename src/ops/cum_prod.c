/*
 * cum_prod.c: CumProd (opset 26), the running product along an axis, inclusive or
 * `exclusive` (starting from 1), forward or `reverse`; floats and 32/64-bit integers, in the
 * element type (as ONNX's reference), as an inline loop over an [outer][len][inner] view.
 * An axis computed at run time (it decides no shape) gets one loop per axis, the run
 * choosing one; an axis out of range then stops it with WGK_ERR_INDEX.
 */
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"

static const int dts[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_INT32, WG_DT_INT64, WG_DT_UINT32,
                          WG_DT_UINT64, 0};

/* The view along the constant axis, or along axis_override when it is computed at run time. */
static wg_status view(wgc_graph *g, const wgc_node *n, int axis_override, int64_t *outer, int64_t *len,
                      int64_t *inner)
{
    static const int ints[] = {WG_DT_INT32, WG_DT_INT64, 0};
    const wgc_tensor *x = wgc_in(g, n, 0), *a = wgc_in(g, n, 1);
    wg_status st = wgc_check_input(g, n, 1, ints);
    if (st)
        return st;
    if (wgc_numel(&a->shape) != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "axis input '%s' must hold one value", a->name);
    int axis;
    int64_t v = a->data ? wgc_const_int(a, 0) : axis_override;
    if (!wgc_norm_axis(v, x->shape.rank, &axis))
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d", (long long)v,
                         x->shape.rank);
    *outer = *len = *inner = 1;
    for (int d = 0; d < x->shape.rank; d++)
        *(d < axis ? outer : d == axis ? len : inner) *= x->shape.dims[d];
    return WG_OK;
}

static wg_status cum_prod_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 2, 2, dts);
    if (st)
        return st;
    int64_t o, l, i;
    if ((st = view(g, n, 0, &o, &l, &i)))
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

/* The running product over one view's rows (px, py and T declared by the caller). */
static void emit_rows(wgc_emitter *e, const wgc_node *n, int64_t outer, int64_t len, int64_t inner)
{
    const long long L = (long long)len, I = (long long)inner;
    const bool rev = wgc_attr_int(n, "reverse", 0) != 0, ex = wgc_attr_int(n, "exclusive", 0) != 0;
    char kx[48] = "kk";
    if (rev)
        snprintf(kx, sizeof kx, "%lld - 1 - kk", L);
    wgc_emit(e, "for (int32_t o = 0; o < %lld; o++)\nfor (int32_t i = 0; i < %lld; i++) {\n"
                "const T *xr = px + o * %lld + i; T *yr = py + o * %lld + i;\nT acc = 1;\n"
                "for (int32_t kk = 0; kk < %lld; kk++) {\nint32_t k = %s;\n",
             (long long)outer, I, L * I, L * I, L, kx);
    if (ex)
        wgc_emit(e, "T v = xr[k * %lld]; yr[k * %lld] = acc; acc = (T)(acc * v);\n}\n}\n", I, I);
    else
        wgc_emit(e, "acc = (T)(acc * xr[k * %lld]); yr[k * %lld] = acc;\n}\n}\n", I, I);
}

static wg_status cum_prod_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t outer, len, inner;
    bool empty;
    wg_status st = wgc_emit_start(g, n, view(g, n, 0, &outer, &len, &inner), x, &empty);
    if (st || empty)
        return st;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    return wgc_emit_along_axis_input(e, g, n, view, emit_rows);
}

const wgc_op_def wgc_op_cum_prod = {.infer = cum_prod_infer, .emit = cum_prod_emit};
