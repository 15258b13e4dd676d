/*
 * quant.c: QuantizeLinear and DequantizeLinear (opset 10..25), per-tensor and per-axis,
 * float32 scales. uint8 / int8 (and int32 input for DequantizeLinear) run on the kernels
 * (kernels/quant/quant.c) and fold on the host with the same arithmetic; int16 / uint16, the
 * 4- and 2-bit integers, the float8 types and float4e2m1 (opsets 21-25) run as an inline loop
 * with the conversions of kernels/include/wgk_storage.h, as ONNX's reference computes them:
 * integers saturate(rint(x / scale) + zero_point), float8 a (saturating) cast of x / scale,
 * float4 of x / scale + zero_point; DequantizeLinear (x - zero_point) * scale (float8: x *
 * scale). Blocked quantization (block_size) is reported as unsupported. Symbolic dims
 * (ops.def's WGC_SAME_SHAPE): the same code over the run's element count, per-axis
 * parameters only along a fixed axis with fixed dims after it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../kernels/include/wgk_quant.h"
#include "helpers/host_elements.h"
#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "../ir/symdim.h"
#include "sym.h"
#include "versions.h"

typedef struct q_geom {
    int xdt, ydt;       /* dtypes of x and y */
    int qdt;            /* the quantized side's dtype (y for Quantize, x for Dequantize) */
    bool inline_loop;   /* not a kernel type: the inline loop of emit_inline() */
    int zdt;            /* dtype of the zero point (0 when absent) */
    wgk_qaxis ax;
    int axis;           /* per-axis: x's dim the parameters run along */
    int64_t n;
} q_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, q_geom *q)
{
    const bool quant = n->op == WGC_OP_QUANTIZE_LINEAR;
    static const int f32[] = {WG_DT_FLOAT, 0};
    static const int qin[] = {WG_DT_UINT8, WG_DT_INT8, WG_DT_INT32, WG_DT_INT16, WG_DT_UINT16,
                              WG_DT_INT4, WG_DT_UINT4, WG_DT_INT2, WG_DT_UINT2, WG_DT_FLOAT8E4M3FN,
                              WG_DT_FLOAT8E4M3FNUZ, WG_DT_FLOAT8E5M2, WG_DT_FLOAT8E5M2FNUZ,
                              WG_DT_FLOAT4E2M1, 0};
    wg_status st = wgc_check_data_input(g, n, 2, 3, quant ? f32 : qin);
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
        bool known = false;
        for (const int *d = qin; *d; d++)
            known = known || (*d == z->dtype && (!quant || *d != WG_DT_INT32));
        if (!known)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "zero point '%s' has dtype %s; supported: "
                             "uint8, int8, int16, uint16, int4, uint4, int2, uint2, the float8 types, "
                             "float4e2m1%s", z->name, wg_dtype_name(z->dtype), quant ? "" : ", int32");
        if (!quant && z->dtype != x->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "zero point '%s' (%s) and x (%s) differ in dtype",
                             z->name, wg_dtype_name(z->dtype), wg_dtype_name(x->dtype));
        /* A scale of shape [1] with a zero point of shape [] (or the reverse) is one
         * per-tensor parameter: onnxruntime's quantize_static writes such pairs for the
         * biases of QDQ models, and onnxruntime accepts them. */
        const bool both_scalar = wgc_numel(&z->shape) == 1 && z->shape.rank <= 1 &&
                                 wgc_numel(&s->shape) == 1 && s->shape.rank <= 1;
        if (!both_scalar && !wgc_shape_eq(&z->shape, &s->shape))
            return wgc_error(g, n, WG_ERR_INVALID, "zero point '%s' and scale '%s' differ in shape",
                             z->name, s->name);
    }
    if (quant) {
        int64_t od = wgc_attr_int(n, "output_dtype", 0);
        q->ydt = z ? z->dtype : od ? (int)od : WG_DT_UINT8;
        if (z && od && od != z->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "output_dtype %lld differs from the zero point's dtype",
                             (long long)od);
        bool known = false;
        for (const int *d = qin; *d; d++)
            known = known || (*d == q->ydt && *d != WG_DT_INT32);
        if (!known)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output dtype %s is not supported",
                             wg_dtype_name(q->ydt));
        q->qdt = q->ydt;
    } else {
        q->ydt = WG_DT_FLOAT;
        q->qdt = q->xdt;
    }
    q->inline_loop = q->qdt != WG_DT_UINT8 && q->qdt != WG_DT_INT8 && q->qdt != WG_DT_INT32;
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
        q->axis = axis;
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
    if (q.inline_loop)
        return WG_ERR_UNSUPPORTED; /* declined: the inline loop runs in the module */
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
    if (n->op == WGC_OP_DEQUANTIZE_LINEAR && (q.xdt == WG_DT_UINT8 || q.xdt == WG_DT_INT8)) {
        /* where it came from, for a kernel that keeps the bytes (wgc_tensor.from_dq) */
        wgc_tensor *t = &g->tensors[n->outputs[0]];
        t->from_dq = true;
        t->dq_x = n->inputs[0];
        t->dq_scale = n->inputs[1];
        t->dq_zero = n->n_inputs > 2 ? n->inputs[2] : -1;
        t->dq_axis = q.ax.per_axis ? q.axis : -1;
    }
    return WG_OK;
}

/* The C expression reading element `k` of p (dtype dt) as a float: the integers' values,
 * the float storage types decoded. */
static void read_expr(char *buf, size_t cap, const char *p, int dt, const char *k)
{
    switch (dt) {
    case WG_DT_INT16: snprintf(buf, cap, "(float)((const int16_t *)%s)[%s]", p, k); break;
    case WG_DT_UINT16: snprintf(buf, cap, "(float)((const uint16_t *)%s)[%s]", p, k); break;
    case WG_DT_INT4: case WG_DT_INT2: snprintf(buf, cap, "(float)((const int8_t *)%s)[%s]", p, k); break;
    case WG_DT_UINT4: case WG_DT_UINT2: snprintf(buf, cap, "(float)((const uint8_t *)%s)[%s]", p, k); break;
    default: snprintf(buf, cap, "wgk_storage_to_f32(%d, ((const uint8_t *)%s)[%s])", dt, p, k); break;
    }
}

/* x's element count into cnt: the literal, or with symbolic dims their product at run
 * time. Refuses per-axis parameters whose axis or inner dims are symbolic. */
static wg_status count_expr(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const q_geom *q, char *cnt,
                            size_t cap)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!wgc_shape_is_sym(&x->shape)) {
        snprintf(cnt, cap, "%lld", (long long)q->n);
        return WG_OK;
    }
    for (int d = q->axis; q->ax.per_axis && d < x->shape.rank; d++)
        if (wgc_dim_is_sym(&x->shape, d))
            return wgc_sym_refuse(g, n, "per-axis parameters along a symbolic dim or with symbolic dims after it");
    snprintf(cnt, cap, "%s", wgc_sym_numel(e, x));
    return WG_OK;
}

static wg_status emit_inline(wgc_emitter *e, wgc_graph *g, wgc_node *n, const q_geom *q, const char *cnt)
{
    const bool quant = n->op == WGC_OP_QUANTIZE_LINEAR, has_z = wgc_in(g, n, 2) != NULL;
    const int dt = q->qdt;
    const bool is_f8 = dt >= WG_DT_FLOAT8E4M3FN && dt <= WG_DT_FLOAT8E5M2FNUZ;
    const char *x = wgc_ptr(e, g, n->inputs[0]), *y = wgc_ptr(e, g, n->outputs[0]);
    const char *sc = wgc_ptr(e, g, n->inputs[1]);
    char zr[160] = "0.0f", xr[160], jx[64] = "0";
    if (has_z && !is_f8) /* float8 zero points are 0 by the spec */
        read_expr(zr, sizeof zr, wgc_ptr(e, g, n->inputs[2]), dt, "j");
    if (q->ax.per_axis)
        snprintf(jx, sizeof jx, "(i / %d) %% %d", q->ax.inner, q->ax.axis);
    wgc_emit(e, "for (int32_t i = 0; i < %s; i++) {\nconst int32_t j = %s;\n(void)j;\n", cnt, jx);
    if (!quant) {
        read_expr(xr, sizeof xr, x, dt, "i");
        wgc_emit(e, "((float *)%s)[i] = (%s - %s) * ((const float *)%s)[j];\n}\n", y, xr, zr, sc);
        return WG_OK;
    }
    wgc_emit(e, "const float v = ((const float *)%s)[i] / ((const float *)%s)[j];\n", x, sc);
    if (dt == WG_DT_FLOAT4E2M1 || is_f8) {
        wgc_emit(e, "((uint8_t *)%s)[i] = (uint8_t)wgk_f32_to_storage(%d, v + %s, %d, 0);\n}\n", y, dt,
                 dt == WG_DT_FLOAT4E2M1 ? zr : "0.0f", (int)wgc_attr_int(n, "saturate", 1));
        return WG_OK;
    }
    const int lo = dt == WG_DT_INT16 ? -32768 : dt == WG_DT_INT4 ? -8 : dt == WG_DT_INT2 ? -2 : 0;
    const int hi = dt == WG_DT_INT16 ? 32767 : dt == WG_DT_UINT16 ? 65535 : dt == WG_DT_INT4 ? 7
                 : dt == WG_DT_UINT4 ? 15 : dt == WG_DT_INT2 ? 1 : 3;
    const char *ct = dt == WG_DT_INT16 ? "int16_t" : dt == WG_DT_UINT16 ? "uint16_t"
                   : dt == WG_DT_INT4 || dt == WG_DT_INT2 ? "int8_t" : "uint8_t";
    wgc_emit(e, "const float r = wgk__rintf(v);\nfloat t = (r == r ? r : 0.0f) + %s;\n"
                "t = t < %d ? %d : t > %d ? %d : t;\n((%s *)%s)[i] = (%s)t;\n}\n",
             zr, lo, lo, hi, hi, ct, y, ct);
    return WG_OK;
}

static wg_status q_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    q_geom q;
    wg_status st = resolve(g, n, &q);
    char cnt[256];
    if (!st)
        st = wgc_no_residual(g, n);
    if (!st)
        st = count_expr(e, g, n, &q, cnt, sizeof cnt);
    if (st)
        return st;
    if (q.inline_loop) {
        wgc_emit(e, "{\n");
        st = emit_inline(e, g, n, &q, cnt);
        wgc_emit(e, "}\n");
        if (!st && n->op == WGC_OP_DEQUANTIZE_LINEAR)
            wgc_emit_fused_act(e, g, n, n->outputs[0]);
        return st;
    }
    const bool has_z = n->n_inputs > 2 && n->inputs[2] >= 0;
    const char *x = wgc_ptr(e, g, n->inputs[0]), *y = wgc_ptr(e, g, n->outputs[0]);
    const char *sc = wgc_ptr(e, g, n->inputs[1]), *zp = has_z ? wgc_ptr(e, g, n->inputs[2]) : "0";
    if (n->op == WGC_OP_QUANTIZE_LINEAR)
        wgc_emit(e, "wgk_quantize_linear(%s, %s, %d, %s, %s, %s, (wgk_qaxis){%d, %d, %d});\n", x, y,
                 q.ydt, cnt, sc, zp, q.ax.per_axis, q.ax.axis, q.ax.inner);
    else
        wgc_emit(e, "wgk_dequantize_linear(%s, %d, %s, %s, %s, %s, (wgk_qaxis){%d, %d, %d});\n", x,
                 q.xdt, y, cnt, sc, zp, q.ax.per_axis, q.ax.axis, q.ax.inner);
    if (n->op == WGC_OP_DEQUANTIZE_LINEAR)
        wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_quant = {.infer = q_infer, .fold = q_fold, .emit = q_emit, .sym = {.emit = q_emit}};
