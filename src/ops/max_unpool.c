/*
 * max_unpool.c: MaxUnpool (every dtype but float16): zero the output, then scatter each
 * x value to its index. As in ONNX's reference, an index is a flat position in the
 * default output shape (N, C, (in - 1) * stride - pads + kernel, ...); a larger
 * output_shape (a constant) holds that block in its leading corner. An index outside the
 * default shape makes the module return WGK_ERR_INDEX.
 */
#include <string.h>

#include "helpers/inline_loops.h"

typedef struct unpool_geom {
    wgc_shape dflt; /* the shape indices refer to */
    wgc_shape out;
} unpool_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, unpool_geom *q)
{
    static const int ix[] = {WG_DT_INT64, 0};
    static const int dts[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_INT8, WG_DT_INT16, WG_DT_INT32, WG_DT_INT64,
                              WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, WG_DT_BOOL, 0};
    wg_status st = wgc_check_data_input(g, n, 2, 3, dts);
    if (!st)
        st = wgc_check_input(g, n, 1, ix);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *ind = wgc_in(g, n, 1), *os = wgc_in(g, n, 2);
    const int r = x->shape.rank, sp = r - 2;
    char a[128], b[128];
    if (r < 3 || !wgc_shape_eq(&x->shape, &ind->shape))
        return wgc_error(g, n, WG_ERR_INVALID, "X %s and I %s must have one shape of rank >= 3",
                         wgc_shape_str(&x->shape, a, sizeof a), wgc_shape_str(&ind->shape, b, sizeof b));
    size_t nk = 0, ns = 0, np = 0;
    const int64_t *k = wgc_attr_ints(n, "kernel_shape", &nk);
    const int64_t *s = wgc_attr_ints(n, "strides", &ns);
    const int64_t *p = wgc_attr_ints(n, "pads", &np);
    if (!k || (int)nk != sp || (s && (int)ns != sp) || (p && (int)np != 2 * sp))
        return wgc_error(g, n, WG_ERR_INVALID, "kernel_shape/strides/pads do not fit %d spatial dims", sp);
    /* Bounded first: the output size arithmetic below must not overflow. */
    const int64_t lim = (int64_t)1 << 30;
    for (int d = 0; d < sp; d++)
        if (k[d] < 1 || k[d] > lim || (s && (s[d] < 1 || s[d] > lim)) ||
            (p && (p[d] < 0 || p[d] > lim || p[sp + d] < 0 || p[sp + d] > lim)))
            return wgc_error(g, n, WG_ERR_INVALID,
                             "kernel_shape %lld / strides %lld / pads %lld,%lld of spatial dim %d "
                             "out of range", (long long)k[d], (long long)(s ? s[d] : 1),
                             (long long)(p ? p[d] : 0), (long long)(p ? p[sp + d] : 0), d);
    q->dflt = x->shape;
    for (int d = 0; d < sp; d++) {
        q->dflt.dims[2 + d] = (x->shape.dims[2 + d] - 1) * (s ? s[d] : 1) - (p ? p[d] + p[sp + d] : 0) + k[d];
        if (q->dflt.dims[2 + d] < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "spatial dim %d of the output is negative", d);
    }
    q->out = q->dflt;
    if (os) {
        if ((st = wgc_check_input(g, n, 2, ix)))
            return st;
        if (!os->data)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output_shape '%s' is computed at run time; only "
                             "constant values are supported", os->name);
        if (os->shape.rank != 1 || os->shape.dims[0] != r)
            return wgc_error(g, n, WG_ERR_INVALID, "output_shape '%s' must hold %d values", os->name, r);
        for (int d = 0; d < r; d++) {
            q->out.dims[d] = wgc_const_int(os, d);
            if (q->out.dims[d] < q->dflt.dims[d] || (d < 2 && q->out.dims[d] != q->dflt.dims[d]))
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output_shape %s is smaller than the default "
                                 "output %s (or changes N or C)", wgc_shape_str(&q->out, a, sizeof a),
                                 wgc_shape_str(&q->dflt, b, sizeof b));
        }
    }
    int64_t cnt;
    if (!wgc_numel_checked(&q->out, &cnt) || cnt >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "output is too large");
    return WG_OK;
}

WGC_INFER_BY_RESOLVE(unpool_infer, unpool_geom, resolve, q.out)

static wg_status unpool_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    unpool_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = q.out.rank;
    const long long total = (long long)wgc_numel(&q.dflt), cnt = (long long)wgc_numel(&x->shape);
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nconst int64_t *pi = (const int64_t *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e, "T *py = (T *)%s;\n__builtin_memset(py, 0, %lld);\n", wgc_ptr(e, g, n->outputs[0]),
             (long long)(wgc_numel(&q.out) * (int64_t)wg_dtype_size(x->dtype)));
    wgc_emit(e, "for (int32_t i = 0; i < %lld; i++) {\nint64_t v = pi[i], o = 0;\n", cnt);
    wgc_emit(e, "if (v < 0 || v >= %lldLL) return WGK_ERR_INDEX;\n", total);
    /* re-linearise the flat default-shape index into the output shape, last dim first */
    int64_t ostride = 1;
    for (int d = r - 1; d >= 0; d--) {
        wgc_emit(e, "o += (v %% %lld) * %lld; v /= %lld;\n", (long long)q.dflt.dims[d], (long long)ostride,
                 (long long)q.dflt.dims[d]);
        ostride *= q.out.dims[d];
    }
    wgc_emit(e, "py[o] = px[i];\n}\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_max_unpool = {.infer = unpool_infer, .emit = unpool_emit};
