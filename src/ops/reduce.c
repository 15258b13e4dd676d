/*
 * reduce.c: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare and
 * ArgMax/ArgMin, every numeric dtype, as inline loops: one loop nest over the kept axes,
 * an inner nest over the reduced ones. Floats accumulate in double, integers in 64 bits.
 */
#include <stdio.h>
#include <string.h>

#include "axes.h"
#include "gen.h"

static bool is_arg(wgc_op op) { return op == WGC_OP_ARG_MAX || op == WGC_OP_ARG_MIN; }

/* Reduced axes into red[rank] (true = reduced); *noop when the op is the identity. */
static wg_status reduced_axes(wgc_graph *g, const wgc_node *n, bool *red, bool *noop)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int rank = x->shape.rank, axes[WG_MAX_RANK], count = -1;
    *noop = false;
    memset(red, 0, sizeof(bool) * WG_MAX_RANK);
    if (is_arg(n->op)) {
        int64_t a = wgc_attr_int(n, "axis", 0);
        if (a < -rank || a >= rank || rank == 0)
            return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d",
                             (long long)a, rank);
        red[a < 0 ? a + rank : a] = true;
        return WG_OK;
    }
    bool from_input = n->opset >= 18 || (n->op == WGC_OP_REDUCE_SUM && n->opset >= 13);
    wg_status st = wgc_read_axes(g, n, from_input && n->n_inputs > 1 ? 1 : -1, rank, axes, &count);
    if (st)
        return st;
    if (count <= 0) {
        if (count == 0 && wgc_attr_int(n, "noop_with_empty_axes", 0)) {
            *noop = true;
            return WG_OK;
        }
        if (count < 0 && from_input && wgc_attr_int(n, "noop_with_empty_axes", 0)) {
            *noop = true;
            return WG_OK;
        }
        for (int d = 0; d < rank; d++)
            red[d] = true;
        return WG_OK;
    }
    for (int k = 0; k < count; k++)
        red[axes[k]] = true;
    return WG_OK;
}

static wg_status reduce_infer(wgc_graph *g, wgc_node *n)
{
    static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};
    static const int numeric[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8,
                                  WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8,
                                  WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
    bool float_only = n->op == WGC_OP_REDUCE_L2 || n->op == WGC_OP_REDUCE_LOG_SUM ||
                      n->op == WGC_OP_REDUCE_LOG_SUM_EXP || n->op == WGC_OP_REDUCE_MEAN;
    wg_status st = wgc_check_arity(g, n, 1, 2, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, float_only ? floats : numeric);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    bool red[WG_MAX_RANK], noop;
    if ((st = reduced_axes(g, n, red, &noop)))
        return st;
    bool keep = wgc_attr_int(n, "keepdims", 1) != 0;
    wgc_shape y = {0};
    for (int d = 0; d < x->shape.rank; d++) {
        if (noop || !red[d])
            y.dims[y.rank++] = x->shape.dims[d];
        else if (keep)
            y.dims[y.rank++] = 1;
    }
    wgc_set_output(g, n, 0, is_arg(n->op) ? WG_DT_INT64 : x->dtype, &y);
    return WG_OK;
}

static wg_status reduce_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    bool red[WG_MAX_RANK], noop;
    wg_status st = reduced_axes(g, n, red, &noop);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    if (noop)
        return wgc_gen_map(e, g, n, n->inputs, 1, n->outputs[0], "a");
    if (wgc_numel(&y->shape) == 0)
        return WG_OK;
    bool fl = wg_dtype_is_float(x->dtype);
    bool sgn = x->dtype == WG_DT_INT8 || x->dtype == WG_DT_INT16 || x->dtype == WG_DT_INT32 ||
               x->dtype == WG_DT_INT64;
    const char *acc_t = fl ? "double" : sgn ? "int64_t" : "uint64_t";
    const char *init = "0", *step = "acc += v", *fin = "acc";
    char cnt[32];
    int64_t count = 1, strides[WG_MAX_RANK];
    int rank = x->shape.rank;
    for (int d = 0; d < rank; d++)
        if (red[d])
            count *= x->shape.dims[d];
    snprintf(cnt, sizeof cnt, "%lld", (long long)count);
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= x->shape.dims[d];
    }
    char mean_fin[64];
    switch (n->op) {
    case WGC_OP_REDUCE_MEAN: snprintf(mean_fin, sizeof mean_fin, "acc / %s", cnt); fin = mean_fin; break;
    case WGC_OP_REDUCE_MAX:
        init = fl ? "-1.0/0.0" : sgn ? "INT64_MIN" : "0";
        step = "if (v > acc || v != v) acc = v";
        break;
    case WGC_OP_REDUCE_MIN:
        init = fl ? "1.0/0.0" : sgn ? "INT64_MAX" : "UINT64_MAX";
        step = "if (v < acc || v != v) acc = v";
        break;
    case WGC_OP_REDUCE_PROD: init = "1"; step = "acc *= v"; break;
    case WGC_OP_REDUCE_L1: step = fl ? "acc += v < 0 ? -v : v" : "acc += v < 0 ? 0 - v : v"; break;
    case WGC_OP_REDUCE_L2: step = "acc += (double)v * v"; fin = "wgk__sqrt(acc)"; break;
    case WGC_OP_REDUCE_SUM_SQUARE: step = "acc += v * v"; break;
    case WGC_OP_REDUCE_LOG_SUM: fin = "wgk_log(acc)"; break;
    case WGC_OP_REDUCE_LOG_SUM_EXP:
        /* max-shifted: first pass finds the max (mx), second sums exp(v - mx) */
        init = "0";
        step = "acc += wgk_exp((double)v - mx)";
        fin = "mx == -1.0/0.0 || mx == 1.0/0.0 || mx != mx ? mx : mx + wgk_log(acc)";
        break;
    case WGC_OP_ARG_MAX: case WGC_OP_ARG_MIN: {
        bool last = wgc_attr_int(n, "select_last_index", 0) != 0;
        const char *cmp = n->op == WGC_OP_ARG_MAX ? ">" : "<";
        static char buf[160];
        snprintf(buf, sizeof buf, "if (k == 0 || v %s acc%s) { acc = v; arg = k; } k++", cmp,
                 last ? " || v == acc" : "");
        step = buf;
        fin = "arg";
        acc_t = fl ? "double" : sgn ? "int64_t" : "uint64_t";
        break;
    }
    default: break;
    }
    char off[600];
    size_t len = (size_t)snprintf(off, sizeof off, "0");
    for (int d = 0; d < rank; d++)
        len += (size_t)snprintf(off + len, sizeof off - len, " + i%d * %lld", d, (long long)strides[d]);
    wgc_emit(e, "{\ntypedef %s T;\ntypedef %s TY;\nconst T *px = (const T *)%s;\n", wgc_ctype(x->dtype),
             wgc_ctype(y->dtype), wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "TY *py = (TY *)%s;\nint32_t o = 0;\n", wgc_ptr(e, g, n->outputs[0]));
    for (int d = 0; d < rank; d++)
        if (!red[d])
            wgc_emit(e, "for (int32_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)x->shape.dims[d], d);
    wgc_emit(e, "{\n%s acc = %s; int64_t arg = 0, k = 0; (void)arg; (void)k;\n", acc_t, init);
    if (n->op == WGC_OP_REDUCE_LOG_SUM_EXP) {
        wgc_emit(e, "double mx = -1.0/0.0;\n");
        for (int d = 0; d < rank; d++)
            if (red[d])
                wgc_emit(e, "for (int32_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)x->shape.dims[d], d);
        wgc_emit(e, "{ double v = px[%s]; if (v > mx || v != v) mx = v; }\n", off);
    }
    for (int d = 0; d < rank; d++)
        if (red[d])
            wgc_emit(e, "for (int32_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)x->shape.dims[d], d);
    wgc_emit(e, "{ T v = px[%s]; %s; }\n", off, step);
    wgc_emit(e, "py[o++] = (TY)(%s);\n}\n}\n", fin);
    return WG_OK;
}

const wgc_op_def wgc_op_reduce = {reduce_infer, NULL, reduce_emit, NULL};
