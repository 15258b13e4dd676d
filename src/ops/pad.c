/*
 * pad.c: Pad. Before opset 11 pads come from the `pads` attribute (`paddings` in opset 1)
 * with a float `value`; from 11 from a pads input, an optional constant_value input
 * (constant, or read at run time) and (opset 18) an optional constant axes input. Modes:
 * constant, reflect, edge ('wrap' is unsupported). Negative pads crop. Constant inputs
 * fold on the host. Pads computed at run time, or a symbolic input padded along a
 * symbolic dim, size the output in the module: pad_runtime.c.
 */
#include <stdio.h>
#include <string.h>

#include "helpers/index_loops.h"
#include "helpers/read_axes.h"
#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/emit_and_fold.h"
#include "pad_runtime.h"
#include "sym.h"

typedef struct pad_spec {
    int mode; /* WGK_PAD_* numbering: 0 constant, 1 reflect, 2 edge */
    int64_t begin[WG_MAX_RANK], end[WG_MAX_RANK];
} pad_spec;

static wg_status read_pads(wgc_graph *g, const wgc_node *n, pad_spec *p)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int rank = x->shape.rank;
    wg_status st = wgc_pad_mode(g, n, &p->mode);
    if (st)
        return st;
    int64_t raw[2 * WG_MAX_RANK];
    int64_t cnt;
    int axes[WG_MAX_RANK], n_axes = -1;
    if (n->opset >= 11) {
        static const int i64[] = {WG_DT_INT64, 0};
        st = wgc_check_input(g, n, 1, i64);
        if (st)
            return st;
        const wgc_tensor *pt = wgc_in(g, n, 1);
        /* plain constants here: other pads take pad_runtime.c's path */
        if ((st = wgc_loop_need_const(g, n, 1, "pads")))
            return st;
        cnt = wgc_numel(&pt->shape);
        if (cnt > 2 * WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_INVALID, "%lld pads", (long long)cnt);
        for (int64_t i = 0; i < cnt; i++)
            raw[i] = wgc_const_int(pt, i);
        if ((st = wgc_read_axes(g, n, n->opset >= 18 ? 3 : -1, rank, axes, &n_axes)))
            return st;
    } else {
        size_t c;
        const int64_t *v = wgc_attr_ints(n, n->opset < 2 ? "paddings" : "pads", &c);
        if (!v)
            return wgc_error(g, n, WG_ERR_INVALID, "has no pads attribute");
        if (c > 2 * WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_INVALID, "%zu pads", c);
        cnt = (int64_t)c;
        memcpy(raw, v, c * sizeof *v);
    }
    if (n_axes < 0) {
        n_axes = rank;
        for (int d = 0; d < rank; d++)
            axes[d] = d;
    }
    if (cnt != 2 * n_axes)
        return wgc_error(g, n, WG_ERR_INVALID, "has %lld pads for %d axes (need %d)",
                         (long long)cnt, n_axes, 2 * n_axes);
    memset(p->begin, 0, sizeof p->begin);
    memset(p->end, 0, sizeof p->end);
    for (int i = 0; i < n_axes; i++) {
        p->begin[axes[i]] = raw[i];
        p->end[axes[i]] = raw[i + n_axes];
    }
    for (int d = 0; d < rank; d++) {
        int64_t dim = x->shape.dims[d];
        /* No tensor has 2^40 elements; bounding each pad keeps the sums below exact. */
        const int64_t lim = (int64_t)1 << 40;
        if (p->begin[d] < -lim || p->begin[d] > lim || p->end[d] < -lim || p->end[d] > lim)
            return wgc_error(g, n, WG_ERR_INVALID, "pads %lld,%lld on dim %d are out of range",
                             (long long)p->begin[d], (long long)p->end[d], d);
        if (dim + p->begin[d] + p->end[d] < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "pads %lld,%lld crop more than dim %d (%lld)",
                             (long long)p->begin[d], (long long)p->end[d], d, (long long)dim);
        if (p->mode == 1 && (p->begin[d] > dim - 1 || p->end[d] > dim - 1) &&
            (p->begin[d] > 0 || p->end[d] > 0))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "reflect pads %lld,%lld on dim %d of size %lld (must be < size)",
                             (long long)p->begin[d], (long long)p->end[d], d, (long long)dim);
        if (p->mode == 2 && dim == 0 && (p->begin[d] > 0 || p->end[d] > 0))
            return wgc_error(g, n, WG_ERR_INVALID, "edge padding of the empty dim %d", d);
    }
    return WG_OK;
}

static wg_status pad_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, n->opset >= 18 ? 4 : n->opset >= 11 ? 3 : 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_tensor *cv = wgc_in(g, n, 2);
    if (cv && (!cv->has_shape || cv->dtype != x->dtype || wgc_numel(&cv->shape) != 1))
        return wgc_error(g, n, WG_ERR_INVALID,
                         "constant_value '%s' must be one element of the input dtype %s",
                         cv->name, wg_dtype_name(x->dtype));
    wgc_shape y = x->shape;
    if (wgc_pad_is_runtime(g, n)) {
        if ((st = wgc_pad_runtime_shape(g, n, &y)))
            return st;
    } else {
        pad_spec p;
        if ((st = read_pads(g, n, &p)))
            return st;
        for (int d = 0; d < y.rank; d++)
            y.dims[d] += p.begin[d] + p.end[d];
    }
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

static wg_status pad_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (wgc_pad_is_runtime(g, n))
        return wgc_pad_runtime_emit(e, g, n);
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    pad_spec p;
    wg_status st = read_pads(g, n, &p);
    if (!st)
        st = wgc_check_i32_numel(g, n, y);
    if (st || wgc_numel(&y->shape) == 0)
        return st;
    const char *vexpr;
    if ((st = wgc_pad_value_expr(e, g, n, &vexpr)))
        return st;
    char vbuf[64], ld[160], lb[160], le[160];
    snprintf(vbuf, sizeof vbuf, "%s", vexpr);
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    wgc_emit(e, "wgk_pad(%s, %s, %zu, %d, %s, %s, %s, %d, %s);\n", py, px, wg_dtype_size(x->dtype),
             x->shape.rank, wgc_i32_list(ld, sizeof ld, x->shape.dims, x->shape.rank),
             wgc_i32_list(lb, sizeof lb, p.begin, x->shape.rank),
             wgc_i32_list(le, sizeof le, p.end, x->shape.rank), p.mode, vbuf);
    return WG_OK;
}

/* Folding: each output element reads the source coordinate the kernel would (constant fill
 * outside, edge clamps, reflect mirrors without repeating the border). */
static wg_status pad_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *cv = wgc_in(g, n, 2);
    wgc_tensor *y = wgc_out(g, n, 0);
    if (!wgc_inputs_const(g, n) || wgc_numel(&y->shape) > WGC_FOLD_MAX_NUMEL)
        return WG_ERR_UNSUPPORTED;
    pad_spec p;
    wg_status st = read_pads(g, n, &p);
    if (st)
        return st;
    size_t es = wg_dtype_size(x->dtype);
    char value[8] = {0};
    if (cv)
        memcpy(value, cv->data, es);
    else
        wgc_elem_set_f(value, x->dtype, 0, wgc_attr_float(n, "value", 0.0f));
    char *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int rank = x->shape.rank;
    int64_t xs[WG_MAX_RANK], idx[WG_MAX_RANK] = {0}, o = 0;
    wgc_shape_strides(&x->shape, xs);
    if (wgc_numel(&y->shape) > 0) {
        do {
            int64_t off = 0;
            bool fill = false;
            for (int d = 0; d < rank; d++) {
                int64_t dim = x->shape.dims[d], c = idx[d] - p.begin[d];
                if (c < 0 || c >= dim) {
                    if (p.mode == 0)
                        fill = true;
                    else if (p.mode == 2)
                        c = c < 0 ? 0 : dim - 1;
                    else
                        c = c < 0 ? -c : 2 * (dim - 1) - c;
                }
                off += c * xs[d];
            }
            memcpy(data + o * (int64_t)es, fill ? value : (const char *)x->data + off * (int64_t)es, es);
            o++;
        } while (wgc_index_next(&y->shape, idx));
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* symbolic axes padded become run-time sizes (pad_runtime.c) */
static wg_status pad_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        return WG_OK;
    wgc_shape y = wgc_sym_dims_of(&y0->shape);
    wg_status st;
    if (x->symval)
        return wgc_sym_refuse(g, n, "its input holds symbolic values");
    if ((st = wgc_pad_runtime_shape(g, n, &y)))
        return st;
    return wgc_sym_set_out(g, n, 0, &y);
}

/* Sizes decided in the module: its own emit hook reads x's sizes at run time itself
 * (pad_runtime.c). */
static bool pad_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && wgc_pad_is_runtime(g, n);
}

const wgc_op_def wgc_op_pad = {
    .infer = pad_infer,
    .fold = pad_fold,
    .emit = pad_emit,
    .sym = {.infer = pad_sym_infer, .takes = pad_sym_takes},
};
