/*
 * reduce.c: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare and
 * ArgMax/ArgMin, every numeric dtype, as inline loops: one loop nest over the kept axes,
 * an inner nest over the reduced ones. Floats accumulate in double, integers in 64 bits.
 * Constant inputs fold on the host with the same loops and accumulators.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/read_axes.h"
#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "../ir/symdim.h"
#include "sym.h"

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
    case WGC_OP_REDUCE_SUM: break; /* the defaults above: acc += v from 0 */
    default: return wgc_no_case(g, n, "the emitter");
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

/* Folding: the loops above run on the host, visiting each output's elements in the same
 * order with the same accumulator types (double, int64, uint64), so sums round alike. */
typedef struct racc {
    wgc_scalar acc;
    double mx;
    int64_t arg, k;
} racc;

/* Adds v to the accumulator of op; false for an op it has no case for. */
static bool reduce_step(wgc_op op, wgc_kind kind, bool f32, bool last, racc *r, wgc_scalar v)
{
    bool fl = kind == WGC_KIND_FLOAT, sgn = kind == WGC_KIND_SIGNED;
    switch (op) {
    case WGC_OP_REDUCE_MAX: case WGC_OP_REDUCE_MIN: {
        bool mx = op == WGC_OP_REDUCE_MAX;
        bool take = fl ? (mx ? v.f > r->acc.f : v.f < r->acc.f) || v.f != v.f
                  : sgn ? (mx ? v.i > r->acc.i : v.i < r->acc.i)
                        : (mx ? v.u > r->acc.u : v.u < r->acc.u);
        if (take)
            r->acc = v;
        break;
    }
    case WGC_OP_REDUCE_PROD:
        if (fl) r->acc.f *= v.f;
        else r->acc.u *= v.u; /* wraps */
        break;
    case WGC_OP_REDUCE_L1:
        if (fl) r->acc.f += v.f < 0 ? -v.f : v.f;
        else r->acc.u += sgn && v.i < 0 ? 0 - v.u : v.u;
        break;
    case WGC_OP_REDUCE_L2: r->acc.f += v.f * v.f; break;
    case WGC_OP_REDUCE_SUM_SQUARE:
        /* v * v is computed in the element type, then added */
        if (fl) r->acc.f += f32 ? (double)(float)(v.f * v.f) : v.f * v.f;
        else r->acc.u += v.u * v.u;
        break;
    case WGC_OP_REDUCE_LOG_SUM_EXP: r->acc.f += exp(v.f - r->mx); break;
    case WGC_OP_ARG_MAX: case WGC_OP_ARG_MIN: {
        bool mx = op == WGC_OP_ARG_MAX;
        bool better = fl ? (mx ? v.f > r->acc.f : v.f < r->acc.f) || (last && v.f == r->acc.f)
                    : sgn ? (mx ? v.i > r->acc.i : v.i < r->acc.i) || (last && v.i == r->acc.i)
                          : (mx ? v.u > r->acc.u : v.u < r->acc.u) || (last && v.u == r->acc.u);
        if (r->k == 0 || better) {
            r->acc = v;
            r->arg = r->k;
        }
        r->k++;
        break;
    }
    case WGC_OP_REDUCE_SUM: case WGC_OP_REDUCE_MEAN: case WGC_OP_REDUCE_LOG_SUM:
        if (fl) r->acc.f += v.f;
        else r->acc.u += v.u;
        break;
    default: return false;
    }
    return true;
}

static wg_status reduce_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    if (!wgc_inputs_const(g, n) || wgc_numel(&x->shape) > WGC_FOLD_MAX_NUMEL)
        return WG_ERR_UNSUPPORTED;
    bool red[WG_MAX_RANK], noop;
    wg_status st = reduced_axes(g, n, red, &noop);
    if (st)
        return st;
    if (noop)
        return wgc_fold_copy(g, n, 0, x->data);
    int rank = x->shape.rank;
    int64_t ny = wgc_numel(&y->shape), nx = wgc_numel(&x->shape), count = 1;
    int64_t ost[WG_MAX_RANK] = {0}, s = 1; /* output stride of each kept input dim */
    for (int d = rank - 1; d >= 0; d--) {
        if (red[d]) {
            count *= x->shape.dims[d];
            continue;
        }
        ost[d] = s;
        s *= x->shape.dims[d];
    }
    wgc_kind kind = wgc_dtype_kind(x->dtype);
    bool fl = kind == WGC_KIND_FLOAT, sgn = kind == WGC_KIND_SIGNED;
    bool last = wgc_attr_int(n, "select_last_index", 0) != 0;
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    racc *acc = calloc((size_t)(ny ? ny : 1), sizeof *acc);
    if (!data || !acc) {
        free(data);
        free(acc);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory folding");
    }
    for (int64_t o = 0; o < ny; o++) {
        racc *r = &acc[o];
        r->mx = -INFINITY;
        switch (n->op) {
        case WGC_OP_REDUCE_MAX:
            if (fl) r->acc.f = -INFINITY; else if (sgn) r->acc.i = INT64_MIN; else r->acc.u = 0;
            break;
        case WGC_OP_REDUCE_MIN:
            if (fl) r->acc.f = INFINITY; else if (sgn) r->acc.i = INT64_MAX; else r->acc.u = UINT64_MAX;
            break;
        case WGC_OP_REDUCE_PROD:
            if (fl) r->acc.f = 1; else r->acc.u = 1;
            break;
        case WGC_OP_REDUCE_SUM: case WGC_OP_REDUCE_MEAN: case WGC_OP_REDUCE_L1: case WGC_OP_REDUCE_L2:
        case WGC_OP_REDUCE_LOG_SUM: case WGC_OP_REDUCE_LOG_SUM_EXP: case WGC_OP_REDUCE_SUM_SQUARE:
        case WGC_OP_ARG_MAX: case WGC_OP_ARG_MIN:
            break; /* zero */
        default:
            free(acc);
            free(data);
            return wgc_no_case(g, n, "the fold");
        }
    }
    /* Row-major over the input visits each output's reduced elements in the emitted order. */
    for (int pass = n->op == WGC_OP_REDUCE_LOG_SUM_EXP ? 0 : 1; pass < 2 && nx > 0; pass++) {
        int64_t idx[WG_MAX_RANK] = {0}, i = 0;
        do {
            int64_t o = 0;
            for (int d = 0; d < rank; d++)
                o += idx[d] * ost[d];
            wgc_scalar v = wgc_scalar_get(x->data, x->dtype, i++);
            if (pass == 0) {
                if (v.f > acc[o].mx || v.f != v.f)
                    acc[o].mx = v.f;
            } else if (!reduce_step(n->op, kind, x->dtype != WG_DT_DOUBLE, last, &acc[o], v)) {
                free(acc);
                free(data);
                return wgc_no_case(g, n, "the fold");
            }
        } while (wgc_index_next(&x->shape, idx));
    }
    for (int64_t o = 0; o < ny; o++) {
        racc *r = &acc[o];
        wgc_scalar out = r->acc;
        switch (n->op) {
        case WGC_OP_REDUCE_MEAN: out.f = r->acc.f / (double)count; break;
        case WGC_OP_REDUCE_L2: out.f = sqrt(r->acc.f); break;
        case WGC_OP_REDUCE_LOG_SUM: out.f = log(r->acc.f); break;
        case WGC_OP_REDUCE_LOG_SUM_EXP:
            out.f = isinf(r->mx) || r->mx != r->mx ? r->mx : r->mx + log(r->acc.f);
            break;
        case WGC_OP_ARG_MAX: case WGC_OP_ARG_MIN: out.i = r->arg; break;
        case WGC_OP_REDUCE_SUM: case WGC_OP_REDUCE_MAX: case WGC_OP_REDUCE_MIN:
        case WGC_OP_REDUCE_PROD: case WGC_OP_REDUCE_L1: case WGC_OP_REDUCE_SUM_SQUARE:
            break; /* the accumulator is the result */
        default:
            free(acc);
            free(data);
            return wgc_no_case(g, n, "the fold");
        }
        wgc_scalar_set(data, y->dtype, o, out);
    }
    free(acc);
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* ReduceMean/ReduceSum with symbolic dims: the run of consecutive axes [*a0, *a1) they
 * reduce (from the attribute or a constant input), or a refusal. */
static wg_status sym_reduce_axes(wgc_graph *g, const wgc_node *n, int *a0, int *a1)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = x->shape.rank;
    size_t cnt = 0;
    const int64_t *ax = wgc_attr_ints(n, "axes", &cnt);
    const wgc_tensor *at = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    if (!ax && at && at->data && !at->symval)
        cnt = (size_t)wgc_numel(&at->shape);
    else if (!ax)
        cnt = 0;
    if (cnt < 1 || cnt > (size_t)r || x->symval || wgc_attr_int(n, "noop_with_empty_axes", 0))
        return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
    bool seen[WG_MAX_RANK] = {false};
    for (size_t i = 0; i < cnt; i++) {
        int64_t a = ax ? ax[i] : wgc_const_int(at, (int64_t)i);
        a = a < 0 ? a + r : a;
        if (a < 0 || a >= r || seen[a])
            return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
        seen[a] = true;
    }
    int lo = 0;
    while (!seen[lo])
        lo++;
    int hi = lo;
    while (hi < r && seen[hi])
        hi++;
    if (hi - lo != (int)cnt)
        return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
    *a0 = lo;
    *a1 = hi;
    return WG_OK;
}

/* The per-sample rule first (sym_batch.c), then ReduceMax/Min over every axis and
 * ReduceMean/Sum over a run of consecutive axes. */
static wg_status reduce_sym_infer(wgc_graph *g, wgc_node *n)
{
    if (wgc_sym_batch_op(g, n))
        return wgc_sym_batch_rule(g, n);
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        return WG_OK;
    wgc_shape y = wgc_sym_dims_of(&y0->shape);
    wg_status st;
    switch (n->op) {
    case WGC_OP_REDUCE_MAX: case WGC_OP_REDUCE_MIN:
        /* over every axis (no axes given): one element whatever the sizes (batched_nms's
         * boxes.max(); SSD's min(topk_candidates, count) over symbolic values);
         * emit_reduce_all loops over the actual count */
        if (wgc_attr_find(n, "axes") ||
            (n->n_inputs > 1 && n->inputs[1] >= 0) || wgc_attr_int(n, "noop_with_empty_axes", 0))
            return wgc_sym_refuse(g, n, "only a reduction over every axis");
        return wgc_sym_set_out(g, n, 0, &y);
    case WGC_OP_REDUCE_MEAN: case WGC_OP_REDUCE_SUM: {
        /* over a run of consecutive axes (symbolic or not), keepdims either way */
        int a0, a1;
        if ((st = sym_reduce_axes(g, n, &a0, &a1)))
            return st;
        bool keep = wgc_attr_int(n, "keepdims", 1) != 0;
        for (int d = 0, o = 0; d < x->shape.rank; d++) {
            const bool reduced = d >= a0 && d < a1;
            if (reduced && !keep)
                continue;
            if (!reduced)
                memcpy(y.sym[o], x->shape.sym[d], WGC_MAX_SYMS);
            o++;
        }
        return wgc_sym_set_out(g, n, 0, &y);
    }
    default:
        return wgc_sym_batch_refuse(g, n);
    }
}

/* ReduceMean / ReduceSum over one axis, every length read at run time: y[o][i] = sum over
 * k of x[o][k][i] (divided by the axis length for the mean), in double. */
static wg_status emit_reduce(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank, a, a1;
    wg_status st = sym_reduce_axes(g, n, &a, &a1);
    if (st)
        return st;
    if (x->dtype != WG_DT_FLOAT)
        return wgc_sym_refuse(g, n, "a dtype other than float32");
    wgc_emit(e, "{\nconst float *px = (const float *)%s;\nfloat *py = (float *)%s;\n"
                "const int32_t outer = %s, len = %s, inner = %s;\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), wgc_dims_expr(e, &x->shape, 0, a),
             wgc_dims_expr(e, &x->shape, a, a1), wgc_dims_expr(e, &x->shape, a1, r));
    wgc_emit(e, "for (int32_t o = 0; o < outer; o++)\n    for (int32_t i = 0; i < inner; i++) {\n"
                "        double s = 0;\n        for (int32_t k = 0; k < len; k++)\n"
                "            s += px[((size_t)o * len + k) * inner + i];\n"
                "        py[(size_t)o * inner + i] = (float)(%s);\n    }\n}\n",
             n->op == WGC_OP_REDUCE_MEAN ? "len ? s / len : 0" : "s");
    return WG_OK;
}

/* ReduceMax / ReduceMin over every axis (reduce_sym_infer): one element from the actual
 * count; of no elements the identity (-inf / +inf, or the type's extreme), as onnxruntime
 * gives. A NaN is kept only where it comes first (the comparison skips it after). */
static wg_status emit_reduce_all(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const char *ct = wgc_sym_c_type(x->dtype);
    const bool max = n->op == WGC_OP_REDUCE_MAX;
    if (!ct || x->dtype == WG_DT_BOOL)
        return wgc_sym_refuse(g, n, "this dtype");
    const char *init = wg_dtype_is_float(x->dtype) ? (max ? "-__builtin_inf()" : "__builtin_inf()")
                     : x->dtype == WG_DT_INT64 ? (max ? "INT64_MIN" : "INT64_MAX")
                     : x->dtype == WG_DT_INT32 ? (max ? "INT32_MIN" : "INT32_MAX") : NULL;
    if (!init)
        return wgc_sym_refuse(g, n, "this dtype");
    wgc_emit(e, "{\n");
    char src[96];
    snprintf(src, sizeof src, "%s", wgc_sym_operand(e, g, n, 0)); /* symbolic values at their actual values */
    wgc_emit(e, "const %s *px = (const %s *)%s;\n%s m = (%s)%s;\n", ct, ct, src, ct, ct, init);
    wgc_emit(e, "for (int32_t i = 0, count = %s; i < count; i++)\n    if (i == 0 || px[i] %s m)\n        m = px[i];\n",
             wgc_sym_numel(e, x), max ? ">" : "<");
    wgc_emit(e, "*(%s *)%s = m;\n}\n", ct, wgc_ptr(e, g, n->outputs[0]));
    return WG_OK;
}

static wg_status reduce_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_REDUCE_MEAN: case WGC_OP_REDUCE_SUM: return emit_reduce(e, g, n);
    case WGC_OP_REDUCE_MAX: case WGC_OP_REDUCE_MIN: return emit_reduce_all(e, g, n);
    default: return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
    }
}

/* ReduceProd of symbolic values: numel from a shape (batched_nms's boxes.numel() == 0). */
static wgc_sym_folds reduce_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return false;
    if (n->op != WGC_OP_REDUCE_PROD)
        return false;
    return n->inputs[0] >= 0 && g->tensors[n->inputs[0]].symval && g->tensors[n->inputs[0]].shape.rank == 1;
}

static wg_status reduce_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status st = wgc_sym_int_values_only(g, n);
    if (st)
        return st;
    if (n->op != WGC_OP_REDUCE_PROD)
        return wgc_sym_refuse(g, n, NULL);
    /* a 1-D value's product, over its one axis (keepdims either way) */
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_dimx p = wgc_dimx_const(1);
    for (int64_t i = 0; i < wgc_numel(&x->shape); i++)
        p = wgc_dimx_mul(p, wgc_symval_at(x, i));
    if (count != 1)
        return wgc_sym_refuse(g, n, NULL);
    v[0] = p;
    return WG_OK;
}

/* Does reduction n leave dim 0 alone (constant axes, none of them 0)? */
static bool reduce_keeps_batch(const wgc_graph *g, const wgc_node *n, int rank)
{
    size_t cnt = 0;
    const int64_t *ax = wgc_attr_ints(n, "axes", &cnt);
    const wgc_tensor *at = n->n_inputs > 1 && n->inputs[1] >= 0 ? &g->tensors[n->inputs[1]] : NULL;
    if (!ax && at) {
        if (!at->data || at->symval)
            return false;
        cnt = (size_t)wgc_numel(&at->shape);
    }
    if (cnt == 0) /* every axis, or none under noop_with_empty_axes */
        return false;
    for (size_t i = 0; i < cnt; i++) {
        const int64_t a = ax ? ax[i] : wgc_const_int(at, (int64_t)i);
        if (a == 0 || a == -rank)
            return false;
    }
    return true;
}

/* Per sample (WGC_PER_SAMPLE): a reduction that leaves dim 0 alone; ArgMax/ArgMin along
 * any axis but 0. */
static bool reduce_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t != WGC_PER_SAMPLE)
        return false;
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    if (is_arg(n->op)) {
        const int64_t axis = wgc_attr_int(n, "axis", 0);
        return axis != 0 && axis != -rank;
    }
    return reduce_keeps_batch(g, n, rank);
}

const wgc_op_def wgc_op_reduce = {
    .infer = reduce_infer,
    .fold = reduce_fold,
    .emit = reduce_emit,
    .sym = {.infer = reduce_sym_infer,
            .emit = reduce_sym_emit,
            .foldable = reduce_sym_foldable,
            .values = reduce_sym_values,
            .takes = reduce_sym_takes},
};
