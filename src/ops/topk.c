/*
 * topk.c: TopK(x, k) along `axis`: the k largest (largest=1) or smallest values and their
 * int64 indices, always sorted (also for sorted=0, which leaves the order open); equal
 * values keep the lower index first. k must be constant. Each line keeps a sorted list of
 * its best k indices in scratch and inserts an element only when strictly better than the
 * last, which gives the tie order for free; O(len * k) per line.
 */
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

static wg_status get_k(wgc_graph *g, const wgc_node *n, int64_t *k)
{
    if (n->opset < 10) {
        *k = wgc_attr_int(n, "k", -1);
        return WG_OK;
    }
    return wgc_loop_const_scalar(g, n, 1, "k", k);
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
    if (!st)
        st = get_k(g, n, &k);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int axis;
    if ((st = wgc_read_axis(g, n, -1, x->shape.rank, &axis)))
        return st;
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
    int64_t outer, len, inner, k = y->shape.dims[axis];
    geometry(&x->shape, axis, &outer, &len, &inner);
    if (outer * inner * k == 0)
        return WG_OK;
    const char *better = wgc_attr_int(n, "largest", 1) ? ">" : "<";
    const char *ct = wgc_ctype(x->dtype);
    int yi = n->outputs[1];
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\n", ct, wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "T *pv = (T *)%s;\nint32_t *best = (int32_t *)%s;\n", wgc_ptr(e, g, n->outputs[0]),
             wgc_scratch(e));
    if (yi >= 0)
        wgc_emit(e, "int64_t *pi = (int64_t *)%s;\n", wgc_ptr(e, g, yi));
    wgc_emit(e, "for (int32_t o = 0; o < %lld; o++)\nfor (int32_t c = 0; c < %lld; c++) {\n",
             (long long)outer, (long long)inner);
    wgc_emit(e, "const T *line = px + o * %lld + c;\nint32_t n = 0;\n", (long long)(len * inner));
    wgc_emit(e, "for (int32_t j = 0; j < %lld; j++) {\nT v = line[j * %lld];\n", (long long)len,
             (long long)inner);
    wgc_emit(e, "if (n == %lld && !(v %s line[best[n - 1] * %lld])) continue;\n", (long long)k, better,
             (long long)inner);
    wgc_emit(e, "int32_t p = n < %lld ? n++ : n - 1;\n", (long long)k);
    wgc_emit(e, "while (p > 0 && v %s line[best[p - 1] * %lld]) { best[p] = best[p - 1]; p--; }\n",
             better, (long long)inner);
    wgc_emit(e, "best[p] = j;\n}\n");
    wgc_emit(e, "for (int32_t j = 0; j < %lld; j++) {\nint32_t at = o * %lld + j * %lld + c;\n",
             (long long)k, (long long)(k * inner), (long long)inner);
    wgc_emit(e, "pv[at] = line[best[j] * %lld];\n", (long long)inner);
    if (yi >= 0)
        wgc_emit(e, "pi[at] = best[j];\n");
    wgc_emit(e, "}\n}\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_topk = {topk_infer, NULL, topk_emit, topk_scratch};
