/*
 * tensor_scatter.c: TensorScatter (opset 24), the KV-cache update: present = past_cache with
 * `update` written along `axis` (default -2, never the batch axis 0) from write_indices[b]
 * (default 0) for each batch b; mode "circular" wraps the position modulo the cache length,
 * "linear" requires it to fit (a run-time write index outside the cache stops the run with
 * WGK_ERR_INDEX). Any element type; an inline copy loop.
 */
#include <stdio.h>
#include <string.h>

#include "cast.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"

typedef struct ts_geom {
    int64_t outer, B, per_b, seq, max, inner; /* outer = prefix positions, per_b = outer / B */
    bool circular;
} ts_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, ts_geom *q)
{
    wg_status st = wgc_check_data_input(g, n, 2, 3, wgc_cast_dtypes);
    if (st)
        return st;
    const wgc_tensor *p = wgc_in(g, n, 0), *u = wgc_in(g, n, 1), *wi = wgc_in(g, n, 2);
    const int r = p->shape.rank;
    int axis;
    int64_t a = wgc_attr_int(n, "axis", -2);
    if (!wgc_norm_axis(a, r, &axis) || axis == 0)
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld for rank %d (not the batch axis 0)", (long long)a, r);
    bool ok = u->dtype == p->dtype && u->shape.rank == r;
    for (int d = 0; ok && d < r; d++)
        ok = d == axis ? u->shape.dims[d] <= p->shape.dims[d] : u->shape.dims[d] == p->shape.dims[d];
    if (!ok) {
        char a1[128], a2[128];
        return wgc_error(g, n, WG_ERR_INVALID, "update %s %s must match past_cache %s %s but for a shorter axis %d",
                         wg_dtype_name(u->dtype), wgc_shape_str(&u->shape, a1, sizeof a1),
                         wg_dtype_name(p->dtype), wgc_shape_str(&p->shape, a2, sizeof a2), axis);
    }
    const char *mode = wgc_attr_str(n, "mode", "linear");
    q->circular = !strcmp(mode, "circular");
    if (!q->circular && strcmp(mode, "linear"))
        return wgc_error(g, n, WG_ERR_INVALID, "mode '%s' (linear or circular)", mode);
    q->B = p->shape.dims[0];
    q->outer = q->inner = 1;
    for (int d = 0; d < r; d++) {
        if (d < axis)
            q->outer *= p->shape.dims[d];
        else if (d > axis)
            q->inner *= p->shape.dims[d];
    }
    q->per_b = q->B ? q->outer / q->B : 0;
    q->seq = u->shape.dims[axis];
    q->max = p->shape.dims[axis];
    if (wi) {
        static const int i64[] = {WG_DT_INT64, 0};
        if ((st = wgc_check_input(g, n, 2, i64)))
            return st;
        if (wi->shape.rank != 1 || wi->shape.dims[0] != q->B)
            return wgc_error(g, n, WG_ERR_INVALID, "write_indices must be a vector of the batch size %lld",
                             (long long)q->B);
    }
    if (wgc_numel(&p->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "past_cache has 2^31 or more elements");
    return WG_OK;
}

WGC_INFER_BY_RESOLVE(tensor_scatter_infer, ts_geom, resolve, wgc_in(g, n, 0)->shape)

static wg_status tensor_scatter_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    ts_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *p = wgc_in(g, n, 0);
    wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
    if (wgc_numel(&wgc_in(g, n, 1)->shape) == 0)
        return WG_OK;
    const long long es = (long long)wg_dtype_size(p->dtype), row = (long long)q.inner * es;
    wgc_emit(e, "{\nconst uint8_t *pu = (const uint8_t *)%s;\nuint8_t *py = (uint8_t *)%s;\n",
             wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->outputs[0]));
    if (wgc_in(g, n, 2))
        wgc_emit(e, "const int64_t *pw = (const int64_t *)%s;\n", wgc_ptr(e, g, n->inputs[2]));
    else
        wgc_emit(e, "static const int64_t pw[1] = {0};\n");
    /* prefix position o belongs to batch o / per_b */
    char bx[48] = "0";
    if (wgc_in(g, n, 2))
        snprintf(bx, sizeof bx, "o / %lld", (long long)(q.per_b ? q.per_b : 1));
    wgc_emit(e, "for (int32_t o = 0; o < %lld; o++) {\nconst int64_t w0 = pw[%s];\n"
                "for (int32_t s = 0; s < %lld; s++) {\nint64_t at = w0 + s;\n",
             (long long)q.outer, bx, (long long)q.seq);
    if (q.circular)
        wgc_emit(e, "at %%= %lld;\nif (at < 0) at += %lld;\n", (long long)q.max, (long long)q.max);
    else
        wgc_emit(e, "if (at < 0 || at >= %lld) return WGK_ERR_INDEX;\n", (long long)q.max);
    wgc_emit(e, "__builtin_memcpy(py + ((int64_t)o * %lld + at) * %lld, pu + ((int64_t)o * %lld + s) * %lld, %lld);\n}\n}\n}\n",
             (long long)q.max, row, (long long)q.seq, row, row);
    return WG_OK;
}

const wgc_op_def wgc_op_tensor_scatter = {.infer = tensor_scatter_infer, .emit = tensor_scatter_emit};
