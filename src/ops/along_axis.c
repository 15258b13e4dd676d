/*
 * along_axis.c: ops that work along one axis or a trailing block, as inline loops over an
 * [outer][len][inner] view: LogSoftmax, Hardmax, CumSum, LayerNormalization,
 * InstanceNormalization (floats; statistics in double); CumSum's axis may be computed at run
 * time (a loop per axis, chosen by the run). float32 LayerNormalization calls
 * wgk_f32_layernorm (SIMD, statistics in double from one read of each row).
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/inline_loops.h"
#include "helpers/read_axes.h"
#include "helpers/sym_code.h"
#include "sym.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};

/* outer/len/inner of x for node n; a CumSum whose axis is computed at run time takes
 * axis_override instead (one view per possible axis, chosen by the run). */
static wg_status view_at(wgc_graph *g, const wgc_node *n, int axis_override, int64_t *outer, int64_t *len,
                         int64_t *inner)
{
    int64_t axis;
    bool block = false; /* normalise over [axis, rank) */
    switch (n->op) {
    case WGC_OP_LOG_SOFTMAX: case WGC_OP_HARDMAX: axis = wgc_softmax_axis(n, &block); break;
    case WGC_OP_LAYER_NORM: block = true; axis = wgc_attr_int(n, "axis", -1); break;
    case WGC_OP_INSTANCE_NORM: block = true; axis = 2; break;
    case WGC_OP_CUM_SUM: {
        const wgc_tensor *a = wgc_in(g, n, 1);
        if (!a || wgc_numel(&a->shape) != 1 || (a->dtype != WG_DT_INT64 && a->dtype != WG_DT_INT32))
            return wgc_error(g, n, WG_ERR_INVALID, "axis must be one int32 or int64 value");
        axis = a->data ? wgc_const_int(a, 0) : axis_override;
        break;
    }
    default: return wgc_no_case(g, n, "the axis view");
    }
    return wgc_axis_view(g, n, &wgc_in(g, n, 0)->shape, axis, block, false, outer, len, inner);
}

static wg_status view(wgc_graph *g, const wgc_node *n, int64_t *outer, int64_t *len, int64_t *inner)
{
    return view_at(g, n, 0, outer, len, inner);
}

/* CumSum over the rows of one view (px, py and T declared by the caller). */
static void emit_cumsum(wgc_emitter *e, const wgc_node *n, int64_t outer, int64_t len, int64_t inner)
{
    long long L = (long long)len, I = (long long)inner;
    bool rev = wgc_attr_int(n, "reverse", 0) != 0, ex = wgc_attr_int(n, "exclusive", 0) != 0;
    wgc_emit(e, "for (int32_t o = 0; o < %lld; o++)\nfor (int32_t i = 0; i < %lld; i++) {\n",
             (long long)outer, (long long)inner);
    wgc_emit(e, "const T *xr = px + o * %lld + i; T *yr = py + o * %lld + i;\n", L * I, L * I);
    wgc_emit(e, "T acc = 0;\nfor (int32_t kk = 0; kk < %lld; kk++) {\nint32_t k = %s%lld;\n", L,
             rev ? "-1 - kk + " : "kk + 0 * ", L);
    if (ex)
        wgc_emit(e, "T v = xr[k * %lld]; yr[k * %lld] = acc; acc += v;\n}\n", I, I);
    else
        wgc_emit(e, "acc += xr[k * %lld]; yr[k * %lld] = acc;\n}\n", I, I);
    wgc_emit(e, "}\n");
}

static wg_status along_axis_infer(wgc_graph *g, wgc_node *n)
{
    static const int num[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT32, WG_DT_INT64,
                              WG_DT_UINT32, WG_DT_UINT64, 0};
    bool ln = n->op == WGC_OP_LAYER_NORM, in = n->op == WGC_OP_INSTANCE_NORM;
    wg_status st = wgc_check_arity(g, n, 1, ln || in ? 3 : n->op == WGC_OP_CUM_SUM ? 2 : 1, 1, ln ? 3 : 1);
    if (!st)
        st = wgc_check_input(g, n, 0, n->op == WGC_OP_CUM_SUM ? num : floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t o, l, i;
    if ((st = view(g, n, &o, &l, &i)))
        return st;
    if (in && (x->shape.rank < 3 || !wgc_in(g, n, 1) || !wgc_in(g, n, 2)))
        return wgc_error(g, n, WG_ERR_INVALID, "needs X of rank >= 3, scale and B");
    if (ln || in) {
        for (int k = 1; k < n->n_inputs; k++) {
            const wgc_tensor *p = wgc_in(g, n, k);
            if (!p)
                continue;
            if (p->dtype != x->dtype)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "scale/bias dtype %s differs from X",
                                 wg_dtype_name(p->dtype));
            int64_t want = in ? x->shape.dims[1] : l;
            if (wgc_numel(&p->shape) != want)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "scale/bias must have %lld elements",
                                 (long long)want);
        }
    }
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    if (ln) {
        wgc_shape s = x->shape;
        int64_t axis = wgc_attr_int(n, "axis", -1);
        if (axis < 0)
            axis += s.rank;
        for (int d = (int)axis; d < s.rank; d++)
            s.dims[d] = 1;
        for (int k = 1; k < n->n_outputs; k++)
            if (wgc_out(g, n, k))
                wgc_set_output(g, n, k, wgc_attr_int(n, "stash_type", 1) == 11 ? WG_DT_DOUBLE : WG_DT_FLOAT, &s);
    }
    return WG_OK;
}

/* Opens the loop over the outer rows (xr, yr) and computes each row's mean m and variance v
 * in double (InstanceNormalization, LayerNormalization). */
/* The mean m and variance v of each of outer rows of len elements (C text: literals, or
 * reads of wg_dims for an InstanceNormalization over symbolic spatial dims). */
static void emit_row_stats(wgc_emitter *e, const char *outer, const char *len)
{
    wgc_emit(e, "for (int32_t o = 0; o < %s; o++) {\nconst T *xr = px + o * %s; T *yr = py + o * %s;\n",
             outer, len, len);
    wgc_emit(e, "double m = 0, v = 0;\nfor (int32_t k = 0; k < %s; k++) m += xr[k];\nm /= %s;\n", len, len);
    wgc_emit(e, "for (int32_t k = 0; k < %s; k++) v += (xr[k] - m) * (xr[k] - m);\nv /= %s;\n", len, len);
}

static wg_status along_axis_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t outer, len, inner;
    bool empty;
    wg_status st = wgc_emit_start(g, n, view(g, n, &outer, &len, &inner), x, &empty);
    if (st || empty)
        return st;
    const char *ct = wgc_ctype(x->dtype);
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\n", ct,
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    if (n->op == WGC_OP_CUM_SUM)
        return wgc_emit_along_axis_input(e, g, n, view_at, emit_cumsum);
    if (n->op == WGC_OP_INSTANCE_NORM) {
        /* view: outer = N*C blocks of len = spatial */
        int64_t C = x->shape.dims[1];
        char eps[40];
        wgc_dlit(eps, sizeof eps, wgc_attr_float(n, "epsilon", 1e-5f));
        wgc_emit(e, "const T *sc = (const T *)%s, *bi = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[1]),
                 wgc_ptr(e, g, n->inputs[2]));
        /* over symbolic batch or spatial dims too (ops/sym_window.c) */
        char so[96], sl[96];
        snprintf(so, sizeof so, "%s", wgc_size_expr(e, &x->shape, 0, 2));
        snprintf(sl, sizeof sl, "%s", wgc_size_expr(e, &x->shape, 2, x->shape.rank));
        emit_row_stats(e, so, sl);
        wgc_emit(e, "double r = 1.0 / wgk__sqrt(v + %s), s = sc[o %% %lld] * r, b = bi[o %% %lld];\n", eps,
                 (long long)C, (long long)C);
        wgc_emit(e, "for (int32_t k = 0; k < %s; k++) yr[k] = (T)((xr[k] - m) * s + b);\n}\n}\n", sl);
        return WG_OK;
    }
    if (n->op == WGC_OP_LAYER_NORM && x->dtype == WG_DT_FLOAT &&
        (!wgc_out(g, n, 1) || wgc_out(g, n, 1)->dtype == WG_DT_FLOAT) &&
        (!wgc_out(g, n, 2) || wgc_out(g, n, 2)->dtype == WG_DT_FLOAT)) {
        /* float32 with float statistics: the SIMD kernel (kernels/norm/f32-layernorm.c). */
        char eps[40];
        wgc_dlit(eps, sizeof eps, wgc_attr_float(n, "epsilon", 1e-5f));
        const bool has_b = wgc_in(g, n, 2) != NULL;
        if (wgc_split_pays(e, outer, outer * len)) {
            /* Threads: runs of rows, each row normalised as on one thread. */
            wgc_emit_part_range(e, outer, 1);
            wgc_emit(e, "wgk_f32_layernorm(px + (size_t)lo * %lld, (const float *)%s, %s%s, py + (size_t)lo * %lld, "
                        "hi - lo, %lld, (float)%s, %s%s%s, %s%s%s);\n}\n",
                     (long long)len, wgc_ptr(e, g, n->inputs[1]), has_b ? "(const float *)" : "",
                     has_b ? wgc_ptr(e, g, n->inputs[2]) : "0", (long long)len, (long long)len, eps,
                     wgc_out(g, n, 1) ? "(float *)" : "", wgc_out(g, n, 1) ? wgc_ptr(e, g, n->outputs[1]) : "0",
                     wgc_out(g, n, 1) ? " + lo" : "", wgc_out(g, n, 2) ? "(float *)" : "",
                     wgc_out(g, n, 2) ? wgc_ptr(e, g, n->outputs[2]) : "0", wgc_out(g, n, 2) ? " + lo" : "");
            return WG_OK;
        }
        wgc_emit(e, "wgk_f32_layernorm(px, (const float *)%s, %s%s, py, %lld, %lld, (float)%s, %s%s, %s%s);\n}\n",
                 wgc_ptr(e, g, n->inputs[1]), has_b ? "(const float *)" : "",
                 has_b ? wgc_ptr(e, g, n->inputs[2]) : "0", (long long)outer, (long long)len, eps,
                 wgc_out(g, n, 1) ? "(float *)" : "", wgc_out(g, n, 1) ? wgc_ptr(e, g, n->outputs[1]) : "0",
                 wgc_out(g, n, 2) ? "(float *)" : "", wgc_out(g, n, 2) ? wgc_ptr(e, g, n->outputs[2]) : "0");
        return WG_OK;
    }
    if (n->op == WGC_OP_LAYER_NORM) {
        char eps[40];
        wgc_dlit(eps, sizeof eps, wgc_attr_float(n, "epsilon", 1e-5f));
        const wgc_tensor *tm = wgc_out(g, n, 1), *ti = wgc_out(g, n, 2);
        wgc_emit(e, "const T *sc = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[1]));
        if (wgc_in(g, n, 2))
            wgc_emit(e, "const T *bi = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[2]));
        if (tm)
            wgc_emit(e, "%s *pm = (%s *)%s;\n", wgc_ctype(tm->dtype), wgc_ctype(tm->dtype), wgc_ptr(e, g, n->outputs[1]));
        if (ti)
            wgc_emit(e, "%s *pi = (%s *)%s;\n", wgc_ctype(ti->dtype), wgc_ctype(ti->dtype), wgc_ptr(e, g, n->outputs[2]));
        char so[32], sl[32];
        snprintf(so, sizeof so, "%lld", (long long)outer);
        snprintf(sl, sizeof sl, "%lld", (long long)len);
        emit_row_stats(e, so, sl);
        wgc_emit(e, "double r = 1.0 / wgk__sqrt(v + %s);\n", eps);
        if (tm)
            wgc_emit(e, "pm[o] = m;\n");
        if (ti)
            wgc_emit(e, "pi[o] = r;\n");
        wgc_emit(e, "for (int32_t k = 0; k < %lld; k++) yr[k] = (T)((xr[k] - m) * r * sc[k]%s);\n}\n}\n",
                 (long long)len, wgc_in(g, n, 2) ? " + bi[k]" : "");
        return WG_OK;
    }
    wgc_emit(e, "for (int32_t o = 0; o < %lld; o++)\nfor (int32_t i = 0; i < %lld; i++) {\n",
             (long long)outer, (long long)inner);
    wgc_emit(e, "const T *xr = px + o * %lld + i; T *yr = py + o * %lld + i;\n",
             (long long)(len * inner), (long long)(len * inner));
    long long L = (long long)len, I = (long long)inner;
    switch (n->op) {
    case WGC_OP_LOG_SOFTMAX:
        wgc_emit(e, "double mx = -1.0/0.0, s = 0;\nfor (int32_t k = 0; k < %lld; k++) if (xr[k * %lld] > mx) mx = xr[k * %lld];\n", L, I, I);
        wgc_emit(e, "for (int32_t k = 0; k < %lld; k++) s += wgk_exp(xr[k * %lld] - mx);\ns = wgk_log(s);\n", L, I);
        wgc_emit(e, "for (int32_t k = 0; k < %lld; k++) yr[k * %lld] = (T)(xr[k * %lld] - mx - s);\n", L, I, I);
        break;
    case WGC_OP_HARDMAX:
        wgc_emit(e, "int32_t arg = 0;\nfor (int32_t k = 1; k < %lld; k++) if (xr[k * %lld] > xr[arg * %lld]) arg = k;\n", L, I, I);
        wgc_emit(e, "for (int32_t k = 0; k < %lld; k++) yr[k * %lld] = (T)(k == arg);\n", L, I);
        break;
    default: return wgc_no_case(g, n, "the emitter");
    }
    wgc_emit(e, "}\n}\n");
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* LayerNormalization and CumSum keep x's shape, symbolic dims included; LogSoftmax,
 * Hardmax and InstanceNormalization take the per-sample rule (sym_batch.c), and
 * InstanceNormalization the sliding-window one too (sym_window.c). */
static wg_status along_axis_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    wg_status st;
    switch (n->op) {
    case WGC_OP_LAYER_NORM: {
        if (wgc_sym_has_symval_input(g, n))
            return wgc_sym_refuse(g, n, NULL);
        /* the normalised axes are fixed (the kernels take their length as a constant) */
        int axis;
        if ((st = wgc_read_axis(g, n, -1, x->shape.rank, &axis)))
            return st;
        if (wgc_shape_first_sym(&x->shape, x->shape.rank - 1) >= 0)
            return wgc_sym_refuse(g, n, "it normalises over a symbolic axis");
        if (axis != x->shape.rank - 1)
            return wgc_sym_refuse(g, n, "only the last axis");
        for (int i = 1; i < n->n_inputs; i++)
            if (n->inputs[i] >= 0 && wgc_shape_is_sym(&wgc_in(g, n, i)->shape))
                return wgc_sym_refuse(g, n, "symbolic scale or bias");
        for (int i = 1; i < n->n_outputs; i++)
            if (n->outputs[i] >= 0)
                return wgc_sym_refuse(g, n, "its mean and inverse-deviation outputs");
        y = x->shape;
        return wgc_sym_set_out(g, n, 0, &y);
    }
    case WGC_OP_CUM_SUM: {
        /* x's dims, along a constant axis of any size (RoBERTa's position ids) */
        const wgc_tensor *ax = wgc_in(g, n, 1);
        if (wgc_sym_has_symval_input(g, n) || !ax || !ax->data)
            return wgc_sym_refuse(g, n, "an axis that is not a constant");
        y = x->shape;
        return wgc_sym_set_out(g, n, 0, &y);
    }
    default:
        if (wgc_sym_batch_op(g, n))
            return wgc_sym_batch_rule(g, n);
        if (wgc_sym_window_op(g, n)) {
            if ((st = wgc_sym_window_infer(g, n, &y)))
                return st;
            return wgc_sym_set_out(g, n, 0, &y);
        }
        return wgc_sym_batch_refuse(g, n);
    }
}

/* CumSum along a constant axis, its length and the others read at run time; exclusive
 * and reverse as the op's own code (along_axis_emit) does them, in the element type. */
static wg_status sym_emit_cumsum(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const char *ct = wgc_sym_c_type(x->dtype);
    const int r = x->shape.rank;
    int64_t a = wgc_const_int(wgc_in(g, n, 1), 0);
    if (a < 0)
        a += r;
    if (!ct || x->dtype == WG_DT_BOOL || a < 0 || a >= r)
        return wgc_sym_refuse(g, n, "this dtype or axis");
    const bool rev = wgc_attr_int(n, "reverse", 0) != 0, ex = wgc_attr_int(n, "exclusive", 0) != 0;
    wgc_emit(e, "{\nconst %s *px = (const %s *)%s;\n%s *py = (%s *)%s;\n", ct, ct, wgc_ptr(e, g, n->inputs[0]), ct, ct,
             wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "const int32_t outer = %s, len = %s, inner = %s;\n", wgc_dims_expr(e, &x->shape, 0, (int)a),
             wgc_dims_expr(e, &x->shape, (int)a, (int)a + 1), wgc_dims_expr(e, &x->shape, (int)a + 1, r));
    wgc_emit(e, "for (int32_t o = 0; o < outer; o++)\n    for (int32_t i = 0; i < inner; i++) {\n"
                "        %s s = 0;\n        for (int32_t j = 0; j < len; j++) {\n"
                "            const size_t at = ((size_t)o * len + (size_t)(%s)) * inner + i;\n", ct,
             rev ? "len - 1 - j" : "j");
    if (ex)
        wgc_emit(e, "            py[at] = s;\n            s += px[at];\n");
    else
        wgc_emit(e, "            s += px[at];\n            py[at] = s;\n");
    wgc_emit(e, "        }\n    }\n}\n");
    return WG_OK;
}

static wg_status sym_emit_layernorm(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank;
    if (x->dtype != WG_DT_FLOAT || wgc_numel(&wgc_in(g, n, 1)->shape) != x->shape.dims[r - 1] ||
        (wgc_in(g, n, 2) && wgc_numel(&wgc_in(g, n, 2)->shape) != x->shape.dims[r - 1]))
        return wgc_sym_refuse(g, n, "float32 with a scale (and bias) over the last axis only");
    const long long len = (long long)x->shape.dims[r - 1];
    const char *eps = wgc_float(e, wgc_attr_float(n, "epsilon", 1e-5f));
    const char *sc = wgc_ptr(e, g, n->inputs[1]), *bi = n->inputs[2] >= 0 ? wgc_ptr(e, g, n->inputs[2]) : "0";
    if (wgc_sym_split_rows(e, x)) { /* threads: runs of rows, each as on one thread */
        wgc_emit(e, "{\n");
        wgc_emit_part_range_expr(e, wgc_dims_expr(e, &x->shape, 0, r - 1), 1);
        wgc_emit(e, "wgk_f32_layernorm((const float *)%s + (size_t)lo * %lld, %s, %s, (float *)%s + (size_t)lo * %lld, "
                    "hi - lo, %lld, %s, 0, 0);\n}\n", wgc_ptr(e, g, n->inputs[0]), len, sc, bi,
                 wgc_ptr(e, g, n->outputs[0]), len, len, eps);
        return WG_OK;
    }
    wgc_emit(e, "wgk_f32_layernorm(%s, %s, %s, %s, %s, %lld, %s, 0, 0);\n", wgc_ptr(e, g, n->inputs[0]), sc, bi,
             wgc_ptr(e, g, n->outputs[0]), wgc_dims_expr(e, &x->shape, 0, r - 1), len, eps);
    return WG_OK;
}

static wg_status along_axis_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_LAYER_NORM: return sym_emit_layernorm(e, g, n);
    case WGC_OP_CUM_SUM: return sym_emit_cumsum(e, g, n);
    default: return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
    }
}

/* Per sample (WGC_PER_SAMPLE): InstanceNormalization; LogSoftmax and Hardmax along any
 * axis but 0 (before opset 13 they take the rows from dims [axis, rank) flattened, within
 * one sample too). Sliding windows (WGC_WINDOW): InstanceNormalization per channel plane
 * of rank 3 or more. */
static bool along_axis_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    switch (n->op) {
    case WGC_OP_INSTANCE_NORM:
        return wgc_sym_takes_planes(g, n, t);
    case WGC_OP_LOG_SOFTMAX: case WGC_OP_HARDMAX: {
        if (t != WGC_PER_SAMPLE)
            return false;
        const int64_t axis = wgc_attr_int(n, "axis", wgc_softmax_axis_default(n));
        return axis != 0 && axis != -rank;
    }
    default:
        return false;
    }
}

const wgc_op_def wgc_op_along_axis = {
    .infer = along_axis_infer,
    .emit = along_axis_emit,
    .sym = {.infer = along_axis_sym_infer, .emit = along_axis_sym_emit, .takes = along_axis_sym_takes},
};
