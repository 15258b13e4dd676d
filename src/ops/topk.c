/*
 * topk.c: TopK(x, k) along `axis`: the k largest (largest=1) or smallest values and their
 * int64 indices, always sorted (also for sorted=0, which leaves the order open); equal
 * values keep the lower index first. A k computed at run time (opset >= 10) makes the axis
 * of the outputs a run-time symbol bounded by the axis length (ir/symdim.h): the code
 * checks 0 <= k <= len (else WGK_ERR_INDEX) and writes k into wg_dims. Each line keeps a
 * sorted list of its best k indices in scratch and inserts an element only when strictly
 * better than the last, which gives the tie order for free; O(len * k) per line.
 */
#include <stdio.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"
#include "../ir/symdim.h"
#include "sym.h"

/* k, or -1 in *k with *runtime set when it is computed at run time. */
static wg_status get_k(wgc_graph *g, const wgc_node *n, int64_t *k, bool *runtime)
{
    if (n->opset < 10) {
        *runtime = false;
        *k = wgc_attr_int(n, "k", -1);
        return WG_OK;
    }
    return wgc_loop_scalar_input(g, n, 1, "k", -1, k, runtime);
}

/* outer/len/inner around the axis. */
static void geometry(const wgc_shape *s, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = *inner = 1;
    *len = s->dims[axis];
    for (int d = 0; d < s->rank; d++)
        if (d < axis)
            *outer *= s->dims[d];
        else if (d > axis)
            *inner *= s->dims[d];
}

static wg_status topk_infer(wgc_graph *g, wgc_node *n)
{
    static const int dts[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8, WG_DT_INT16,
                              WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32,
                              WG_DT_UINT64, 0};
    static const int idx_types[] = {WG_DT_INT64, 0};
    wg_status st = wgc_check_arity(g, n, n->opset < 10 ? 1 : 2, n->opset < 10 ? 1 : 2, 2, 2);
    if (!st)
        st = wgc_check_input(g, n, 0, dts);
    if (!st && n->opset >= 10)
        st = wgc_check_input(g, n, 1, idx_types);
    int64_t k;
    bool runtime;
    if (!st)
        st = get_k(g, n, &k, &runtime);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int axis;
    if ((st = wgc_read_axis(g, n, -1, x->shape.rank, &axis)))
        return st;
    if (runtime) { /* the outputs' axis is k, at most the axis length */
        int sym;
        int64_t len = x->shape.dims[axis];
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], axis, len, &sym)))
            return st;
        wgc_shape y = x->shape;
        wgc_shape_set_runtime(&y, axis, sym, len);
        wgc_set_output(g, n, 0, x->dtype, &y);
        wgc_set_output(g, n, 1, WG_DT_INT64, &y);
        return WG_OK;
    }
    if (k < 0 || k > x->shape.dims[axis])
        return wgc_error(g, n, WG_ERR_INVALID, "k %lld is out of range for axis %d of size %lld",
                         (long long)k, axis, (long long)x->shape.dims[axis]);
    wgc_shape y = x->shape;
    y.dims[axis] = k;
    wgc_set_output(g, n, 0, x->dtype, &y);
    wgc_set_output(g, n, 1, WG_DT_INT64, &y);
    return WG_OK;
}

static size_t topk_scratch(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = &g->tensors[n->outputs[0]];
    int axis;
    wgc_norm_axis(wgc_attr_int(n, "axis", -1), y->shape.rank, &axis);
    return (size_t)(y->shape.dims[axis] + 1) * sizeof(int32_t);
}

static wg_status topk_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    wg_status st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    int axis;
    wgc_norm_axis(wgc_attr_int(n, "axis", -1), x->shape.rank, &axis);
    int64_t outer, len, inner, kmax = y->shape.dims[axis];
    geometry(&x->shape, axis, &outer, &len, &inner);
    /* the sizes as C (a symbolic input's are read from wg_dims; constants otherwise) */
    char co[96], cl[96], ci[96];
    snprintf(co, sizeof co, "%s", wgc_dims_expr(e, &x->shape, 0, axis));
    snprintf(cl, sizeof cl, "%s", wgc_dims_expr(e, &x->shape, axis, axis + 1));
    snprintf(ci, sizeof ci, "%s", wgc_dims_expr(e, &x->shape, axis + 1, x->shape.rank));
    const wgc_tensor *kt = n->opset >= 10 ? wgc_in(g, n, 1) : NULL;
    const bool runtime = kt && !kt->data;
    int sym = wgc_shape_first_sym(&y->shape, axis);
    if (runtime) {
        /* k from its input, checked against the axis before anything is written */
        wgc_emit(e, "{\nint64_t kv = *(const int64_t *)%s;\n", wgc_ptr(e, g, n->inputs[1]));
        wgc_emit(e, "if (kv < 0 || kv > %s)\n    return WGK_ERR_INDEX;\n", cl);
        if (sym >= 0)
            wgc_emit(e, "wg_dims[%d] = (int32_t)kv;\n", sym);
        wgc_emit(e, "}\n");
    }
    if (outer * inner * kmax == 0)
        return WG_OK;
    /* the C of k: a constant, or the symbol's value */
    char k[32];
    if (runtime && sym >= 0)
        snprintf(k, sizeof k, "wg_dims[%d]", sym);
    else
        snprintf(k, sizeof k, "%lld", (long long)kmax);
    const char *better = wgc_attr_int(n, "largest", 1) ? ">" : "<";
    const char *ct = wgc_ctype(x->dtype);
    int yi = n->outputs[1];
    wgc_emit(e, "{\ntypedef %s T;\nconst int32_t K = %s, OUTER = %s, LEN = %s, INNER = %s;\n", ct, k, co, cl, ci);
    wgc_emit(e, "const T *px = (const T *)%s;\nT *pv = (T *)%s;\nint32_t *best = (int32_t *)%s;\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e));
    if (yi >= 0)
        wgc_emit(e, "int64_t *pi = (int64_t *)%s;\n", wgc_ptr(e, g, yi));
    wgc_emit(e, "for (int32_t o = 0; o < OUTER; o++)\nfor (int32_t c = 0; c < INNER; c++) {\n");
    wgc_emit(e, "const T *line = px + (size_t)o * LEN * INNER + c;\nint32_t n = 0;\n");
    wgc_emit(e, "for (int32_t j = 0; j < LEN; j++) {\nT v = line[j * INNER];\n");
    wgc_emit(e, "if (n == K) { if (K == 0 || !(v %s line[best[n - 1] * INNER])) continue; }\n", better);
    wgc_emit(e, "int32_t p = n < K ? n++ : n - 1;\n");
    wgc_emit(e, "while (p > 0 && v %s line[best[p - 1] * INNER]) { best[p] = best[p - 1]; p--; }\n", better);
    wgc_emit(e, "best[p] = j;\n}\n");
    wgc_emit(e, "for (int32_t j = 0; j < K; j++) {\nint32_t at = (o * K + j) * INNER + c;\n");
    wgc_emit(e, "pv[at] = line[best[j] * INNER];\n");
    if (yi >= 0)
        wgc_emit(e, "pi[at] = best[j];\n");
    wgc_emit(e, "}\n}\n}\n");
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* x's dims but the axis, which is k: a constant over a fixed axis, or k's own run-time
 * symbol (topk_infer) over any axis, checked against its length at run time */
static wg_status topk_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        y0 = wgc_out(g, n, 1); /* its indices alone: the same shape */
    if (!y0)
        return WG_OK;
    wg_status st;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "a k holding symbolic values");
    int axis;
    if ((st = wgc_read_axis(g, n, -1, x->shape.rank, &axis)))
        return st;
    const wgc_tensor *kt = n->opset >= 10 ? wgc_in(g, n, 1) : NULL;
    if (!(kt && !kt->data) && wgc_dim_is_sym(&x->shape, axis))
        return wgc_sym_refuse(g, n, "a constant k over a symbolic axis");
    wgc_shape o = y0->shape;
    for (int d = 0; d < o.rank; d++)
        if (d != axis)
            memcpy(o.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
    if ((st = wgc_sym_set_out(g, n, 0, &o)))
        return st;
    return wgc_sym_set_out(g, n, 1, &o);
}

/* Its k decided at run time: its own emit hook reads its inputs' sizes at run time
 * itself (topk_sym_infer took the shapes), unless they hold symbolic values. */
static bool topk_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && !g->tensors[n->inputs[0]].symval &&
           (n->opset < 10 || !g->tensors[n->inputs[1]].symval);
}

const wgc_op_def wgc_op_topk = {
    .infer = topk_infer,
    .emit = topk_emit,
    .scratch = topk_scratch,
    .sym = {.infer = topk_sym_infer, .takes = topk_sym_takes},
};
