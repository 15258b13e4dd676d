/*
 * quant.c: QuantizeLinear and DequantizeLinear (opset 10..21), per-tensor and per-axis,
 * uint8 / int8 (and int32 input for DequantizeLinear), float32 scales. Blocked
 * quantization (block_size) and the float8 / int4 / 16-bit types are reported as
 * unsupported. Constant inputs fold on the host with the same arithmetic as the
 * kernels (kernels/quant/quant.c).
 */
#include <math.h>
#include <string.h>

#include "../../kernels/include/wgk_quant.h"
#include "elem.h"
#include "epilogue.h"
#include "lower.h"
#include "versions.h"

typedef struct q_geom {
    int xdt, ydt;       /* dtypes of x and y */
    int zdt;            /* dtype of the zero point (0 when absent) */
    wgk_qaxis ax;
    int64_t n;
} q_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, q_geom *q)
{
    const bool quant = n->op == WGC_OP_QUANTIZE_LINEAR;
    static const int f32[] = {WG_DT_FLOAT, 0};
    static const int qin[] = {WG_DT_UINT8, WG_DT_INT8, WG_DT_INT32, 0};
    wg_status st = wgc_check_arity(g, n, 2, 3, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, quant ? f32 : qin);
    if (!st)
        st = wgc_check_input(g, n, 1, f32);
    if (st)
        return st;
    memset(q, 0, sizeof *q);
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1), *z = wgc_in(g, n, 2);
    /* Version 23 lets QuantizeLinear divide in another `precision` and DequantizeLinear
     * write another `output_dtype` than the scale's; we compute in the scale's float32. */
    const char *prec = quant ? "precision" : "output_dtype";
    int64_t pdt = wgc_op_version(n) >= 23 ? wgc_attr_int(n, prec, 0) : 0;
    if (pdt != 0 && pdt != WG_DT_FLOAT)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s %lld (only the scale's float32)", prec,
                         (long long)pdt);
    if (wgc_attr_int(n, "block_size", 0) != 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "blocked quantization (block_size) is not supported");
    q->xdt = x->dtype;
    q->n = wgc_numel(&x->shape);
    if (q->n >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    if (z) {
        if (!z->has_shape)
            return wgc_error(g, n, WG_ERR_INVALID, "zero point '%s' has no known shape", z->name);
        q->zdt = z->dtype;
        if (z->dtype != WG_DT_UINT8 && z->dtype != WG_DT_INT8 && (quant || z->dtype != WG_DT_INT32))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "zero point '%s' has dtype %s; supported: "
                             "uint8, int8%s", z->name, wg_dtype_name(z->dtype), quant ? "" : ", int32");
        if (!quant && z->dtype != x->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "zero point '%s' (%s) and x (%s) differ in dtype",
                             z->name, wg_dtype_name(z->dtype), wg_dtype_name(x->dtype));
        if (!wgc_shape_eq(&z->shape, &s->shape))
            return wgc_error(g, n, WG_ERR_INVALID, "zero point '%s' and scale '%s' differ in shape",
                             z->name, s->name);
    }
    if (quant) {
        int64_t od = wgc_attr_int(n, "output_dtype", 0);
        q->ydt = z ? z->dtype : od ? (int)od : WG_DT_UINT8;
        if (z && od && od != z->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "output_dtype %lld differs from the zero point's dtype",
                             (long long)od);
        if (q->ydt != WG_DT_UINT8 && q->ydt != WG_DT_INT8)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output dtype %s is not supported (uint8, int8)",
                             wg_dtype_name(q->ydt));
    } else {
        q->ydt = WG_DT_FLOAT;
    }
    if (wgc_numel(&s->shape) == 1 && s->shape.rank <= 1) {
        q->ax.per_axis = 0;
    } else if (s->shape.rank == 1) {
        int axis;
        if (!wgc_norm_axis(wgc_attr_int(n, "axis", 1), x->shape.rank, &axis))
            return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d",
                             (long long)wgc_attr_int(n, "axis", 1), x->shape.rank);
        if (s->shape.dims[0] != x->shape.dims[axis])
            return wgc_error(g, n, WG_ERR_INVALID, "scale '%s' has %lld values but axis %d has %lld",
                             s->name, (long long)s->shape.dims[0], axis, (long long)x->shape.dims[axis]);
        int64_t inner = 1;
        for (int d = axis + 1; d < x->shape.rank; d++)
            inner *= x->shape.dims[d];
        q->ax = (wgk_qaxis){1, (int)x->shape.dims[axis], (int)(inner ? inner : 1)};
    } else {
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "scale '%s' of rank %d is not supported "
                         "(scalar or 1-D per-axis)", s->name, s->shape.rank);
    }
    return WG_OK;
}

static wg_status q_infer(wgc_graph *g, wgc_node *n)
{
    q_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    wgc_set_output(g, n, 0, q.ydt, &wgc_in(g, n, 0)->shape);
    return WG_OK;
}

static size_t param(wgk_qaxis ax, int64_t i)
{
    return ax.per_axis ? (size_t)((i / ax.inner) % ax.axis) : 0;
}

static wg_status q_fold(wgc_graph *g, wgc_node *n)
{
    q_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1), *z = wgc_in(g, n, 2);
    wgc_tensor *y = wgc_out(g, n, 0);
    void *out = wgc_elem_alloc(g, n, q.ydt, &y->shape);
    if (!out)
        return WG_ERR_NOMEM;
    const float *sc = s->data;
    for (int64_t i = 0; i < q.n; i++) {
        const size_t j = param(q.ax, i);
        const int64_t zp = z ? wgc_elem_get_i(z->data, z->dtype, (int64_t)j) : 0;
        if (n->op == WGC_OP_QUANTIZE_LINEAR) {
            const float r = rintf(((const float *)x->data)[i] / sc[j]);
            double v = (double)zp + (r == r ? (double)r : 0.0);
            const double lo = q.ydt == WG_DT_UINT8 ? 0 : -128, hi = q.ydt == WG_DT_UINT8 ? 255 : 127;
            v = v < lo ? lo : v > hi ? hi : v;
            wgc_elem_set_i(out, q.ydt, i, (int64_t)v);
        } else {
            const int64_t d = wgc_elem_get_i(x->data, x->dtype, i) - zp;
            ((float *)out)[i] = (float)d * sc[j];
        }
    }
    wgc_tensor_set_const(g, n->outputs[0], q.ydt, &y->shape, out);
    return WG_OK;
}

static wg_status q_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    q_geom q;
    wg_status st = resolve(g, n, &q);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    const bool has_z = n->n_inputs > 2 && n->inputs[2] >= 0;
    const char *x = wgc_ptr(e, g, n->inputs[0]), *y = wgc_ptr(e, g, n->outputs[0]);
    const char *sc = wgc_ptr(e, g, n->inputs[1]), *zp = has_z ? wgc_ptr(e, g, n->inputs[2]) : "0";
    if (n->op == WGC_OP_QUANTIZE_LINEAR)
        wgc_emit(e, "wgk_quantize_linear(%s, %s, %d, %lld, %s, %s, (wgk_qaxis){%d, %d, %d});\n", x, y,
                 q.ydt, (long long)q.n, sc, zp, q.ax.per_axis, q.ax.axis, q.ax.inner);
    else
        wgc_emit(e, "wgk_dequantize_linear(%s, %d, %s, %lld, %s, %s, (wgk_qaxis){%d, %d, %d});\n", x,
                 q.xdt, y, (long long)q.n, sc, zp, q.ax.per_axis, q.ax.axis, q.ax.inner);
    if (n->op == WGC_OP_DEQUANTIZE_LINEAR)
        wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_quant = {q_infer, q_fold, q_emit, NULL};
