/*
 * pad.c: Pad. Before opset 11 pads come from the `pads` attribute (`paddings` in opset 1)
 * with a float `value`; from 11 from a pads input, an optional constant_value input
 * (constant, or read at run time) and (opset 18) an optional constant axes input. Modes:
 * constant, reflect, edge ('wrap' is unsupported). Negative pads crop. Constant inputs
 * fold on the host. Pads computed at run time, or a symbolic input padded along a
 * symbolic dim, size the output in the module (the section "sizes decided in the module").
 */
#include <stdio.h>
#include <string.h>

#include "helpers/index_loops.h"
#include "helpers/read_axes.h"
#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/emit_and_fold.h"
#include "sym.h"
#include "../ir/symdim.h"
#include "../ir/valrange.h"

/*
 * Pad whose output sizes the module decides (module ABI 2 "Run-time output
 * dims"): pads computed at run time or holding symbolic values, or an input of symbolic
 * dims padded along them. Each such axis of the output is a run-time symbol bounded by
 * the input's size at the maxima plus the largest pads the values' bounds allow
 * (ir/valrange.h); the module computes the sizes, checks each against its bound
 * (WGK_ERR_SIZE_BOUND) and ONNX's rules (WGK_ERR_INDEX: a crop past the size, reflect pads
 * not below it), writes them into wg_dims and pads. The axes input must be constant.
 * Everything else about Pad is above.
 */
/* Pad's mode attribute as WGK_PAD_* (0 constant, 1 reflect, 2 edge), or an error. */
static wg_status wgc_pad_mode(wgc_graph *g, const wgc_node *n, int *mode);
/* The C expression of the fill value's address: constant_value where it lies when computed
 * at run time, else one element placed in the weights (input, attribute or 0). */
static wg_status wgc_pad_value_expr(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char **expr);

/* Is n an opset >= 11 Pad whose pads are not plain constants, or whose input has a
 * symbolic dim? */
static bool wgc_pad_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape for x's shape as it stands (symbolic dims hidden or not): fixed where
 * both pads of an axis are constant and the axis is fixed (or the pads sum to 0),
 * otherwise a run-time symbol at its bound. */
static wg_status wgc_pad_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y);
static wg_status wgc_pad_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

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
        /* plain constants here: other pads take the run-time path below */
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
    wg_status st = wgc_check_data_input(g, n, 1, n->opset >= 18 ? 4 : n->opset >= 11 ? 3 : 1, wgc_numeric_dtypes);
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

/* symbolic axes padded become run-time sizes ("sizes decided in the module" below) */
static wg_status pad_sym_infer(wgc_graph *g, wgc_node *n)
{
    return wgc_sym_runtime_sizes(g, n, wgc_pad_runtime_shape);
}

/* Sizes decided in the module: its own emit hook reads x's sizes at run time itself
 * ("sizes decided in the module" below). */
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

/* ---- sizes decided in the module ---- */

static wg_status wgc_pad_mode(wgc_graph *g, const wgc_node *n, int *mode)
{
    const char *m = wgc_attr_str(n, "mode", "constant");
    static const char *const names[] = {"constant", "reflect", "edge"};
    for (int k = 0; k < 3; k++)
        if (!strcmp(m, names[k])) {
            *mode = k;
            return WG_OK;
        }
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "mode '%s' (supported: constant, reflect, edge)", m);
}

static wg_status wgc_pad_value_expr(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char **expr)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *cv = wgc_in(g, n, 2);
    if (cv && cv->symval) /* a Cast of shape arithmetic: its value at the maxima only */
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "constant_value '%s' holds symbolic values", cv->name);
    if (cv && !cv->data) {
        *expr = wgc_ptr(e, g, n->inputs[2]);
        return WG_OK;
    }
    char value[8] = {0};
    if (cv)
        memcpy(value, cv->data, wg_dtype_size(x->dtype));
    else
        wgc_elem_set_f(value, x->dtype, 0, wgc_attr_float(n, "value", 0.0f));
    if (wgc_weight(e, value, wg_dtype_size(x->dtype), expr))
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory for the pad value");
    return WG_OK;
}

/* Is pads (input 1) anything but plain constants? */
static bool pads_vary(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *p = n->opset >= 11 && n->n_inputs > 1 && n->inputs[1] >= 0 ? &g->tensors[n->inputs[1]] : NULL;
    return p && (!p->data || p->symval);
}

static bool wgc_pad_is_runtime(const wgc_graph *g, const wgc_node *n)
{
    return n->op == WGC_OP_PAD && (pads_vary(g, n) || wgc_shape_is_sym(&g->tensors[n->inputs[0]].shape));
}

/* One pad of one axis: a constant c, or element `elem` of the pads input, within r. */
typedef struct pad_side {
    bool fixed;
    int64_t c;
    int elem;
    bool bounded;
    wgc_vrange r;
} pad_side;

typedef struct pad_sides {
    pad_side begin[WG_MAX_RANK], end[WG_MAX_RANK];
} pad_sides;

static pad_side side_of(const wgc_graph *g, const wgc_tensor *pt, int64_t i)
{
    pad_side s = {.fixed = true, .elem = (int)i};
    if (pt->data && !pt->symval) {
        s.c = wgc_const_int(pt, i);
        s.r = (wgc_vrange){s.c, s.c};
        s.bounded = true;
        return s;
    }
    s.fixed = false;
    s.bounded = wgc_vrange_at(g, pt, i, &s.r);
    return s;
}

static wg_status read_sides(wgc_graph *g, const wgc_node *n, pad_sides *p)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int rank = x->shape.rank;
    for (int d = 0; d < WG_MAX_RANK; d++)
        p->begin[d] = p->end[d] = (pad_side){.fixed = true, .bounded = true, .elem = -1};
    if (n->opset < 11) {
        size_t c;
        const int64_t *v = wgc_attr_ints(n, n->opset < 2 ? "paddings" : "pads", &c);
        if (!v || c != 2 * (size_t)rank)
            return wgc_error(g, n, WG_ERR_INVALID, "needs %d pads", 2 * rank);
        for (int d = 0; d < rank; d++) {
            p->begin[d].c = v[d], p->end[d].c = v[d + rank];
            p->begin[d].r = (wgc_vrange){v[d], v[d]}, p->end[d].r = (wgc_vrange){v[d + rank], v[d + rank]};
        }
        return WG_OK;
    }
    const wgc_tensor *pt = wgc_in(g, n, 1);
    if (!pt || pt->dtype != WG_DT_INT64 || pt->shape.rank != 1 || wgc_shape_is_sym(&pt->shape))
        return wgc_error(g, n, WG_ERR_INVALID, "pads must be a 1-D int64 tensor of a fixed length");
    int axes[WG_MAX_RANK], n_axes;
    wg_status st = wgc_read_axes(g, n, n->opset >= 18 ? 3 : -1, rank, axes, &n_axes);
    if (st)
        return st;
    if (n_axes < 0) {
        n_axes = rank;
        for (int d = 0; d < rank; d++)
            axes[d] = d;
    }
    if (pt->shape.dims[0] != 2 * n_axes)
        return wgc_error(g, n, WG_ERR_INVALID, "has %lld pads for %d axes (need %d)",
                         (long long)pt->shape.dims[0], n_axes, 2 * n_axes);
    for (int i = 0; i < n_axes; i++) {
        p->begin[axes[i]] = side_of(g, pt, i);
        p->end[axes[i]] = side_of(g, pt, i + n_axes);
    }
    return WG_OK;
}

/* Does axis d of the output have a size of its own (a run-time symbol)? */
static bool axis_varies(const wgc_shape *x, const pad_sides *p, int d)
{
    if (!p->begin[d].fixed || !p->end[d].fixed)
        return true;
    return wgc_dim_is_sym(x, d) && p->begin[d].c + p->end[d].c != 0;
}

/* Pads are kept within +-2^30 (checked in the module too): sums of three stay exact. */
#define PAD_LIMIT ((int64_t)1 << 30)

static wg_status wgc_pad_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *pt = n->opset >= 11 ? wgc_in(g, n, 1) : NULL;
    pad_sides p;
    int mode;
    wg_status st = wgc_pad_mode(g, n, &mode);
    if (!st)
        st = read_sides(g, n, &p);
    if (st)
        return st;
    *y = x->shape;
    for (int d = 0; d < x->shape.rank; d++) {
        const pad_side *b = &p.begin[d], *e = &p.end[d];
        if (!b->bounded || !e->bounded)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "pads input '%s' is computed at run time and nothing bounds its values, which "
                             "decide the size of output dim %d", pt->name, d);
        if (b->r.lo < -PAD_LIMIT || b->r.hi > PAD_LIMIT || e->r.lo < -PAD_LIMIT || e->r.hi > PAD_LIMIT)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "pads of dim %d may reach %lld..%lld, past +-2^30", d,
                             (long long)(b->r.lo < e->r.lo ? b->r.lo : e->r.lo),
                             (long long)(b->r.hi > e->r.hi ? b->r.hi : e->r.hi));
        const int64_t bound = x->shape.dims[d] + b->r.hi + e->r.hi;
        if (!axis_varies(&x->shape, &p, d)) {
            if (bound < 0)
                return wgc_error(g, n, WG_ERR_INVALID, "pads %lld,%lld crop more than dim %d (%lld)",
                                 (long long)b->c, (long long)e->c, d, (long long)x->shape.dims[d]);
            y->dims[d] = bound; /* a fixed axis, or a symbolic one whose pads cancel: x's */
            continue;
        }
        if (b->fixed && e->fixed && b->c + e->c > 0) {
            /* constant pads that grow a symbolic axis: x's size + pads, a size computed
             * from the symbols before any step runs (symdim.h), as a conv's is */
            wgc_dimx out;
            if ((st = wgc_sym_window_dim(g, n, wgc_dimx_of(g, &x->shape, d), b->c + e->c - 1, 1, false, 0, &out)))
                return st;
            wgc_shape_set_dim(g, y, d, out);
            continue;
        }
        int sym;
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], d, bound > 0 ? bound : 0, &sym)))
            return st;
        wgc_shape_set_runtime(y, d, sym, bound > 0 ? bound : 0);
    }
    return WG_OK;
}

/* Pad side s as a C int64 expression. */
static const char *side_expr(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const pad_side *s, char *buf,
                             size_t cap)
{
    if (s->fixed) {
        snprintf(buf, cap, "%lldLL", (long long)s->c);
        return buf;
    }
    return wgc_int_elem_expr(e, g, n->inputs[1], s->elem, buf, cap);
}

/* Per axis: the pads (checked to +-2^30), the size (checked against ONNX's rules and its
 * bound), into the kernel's lists and wg_dims; then the kernel at the actual sizes. */
static wg_status wgc_pad_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    pad_sides p;
    int mode;
    const char *value;
    wg_status st = wgc_pad_mode(g, n, &mode);
    if (!st)
        st = read_sides(g, n, &p);
    if (!st)
        st = wgc_check_i32_numel(g, n, y);
    if (!st)
        st = wgc_pad_value_expr(e, g, n, &value);
    if (st)
        return st;
    const int r = x->shape.rank, cap = r ? r : 1;
    wgc_emit(e, "{\nint32_t xd[%d], pb[%d], pe[%d];\n", cap, cap, cap);
    for (int d = 0; d < r; d++) {
        char bb[160], eb[160];
        wgc_emit(e, "{\nconst int64_t dim = %s, b = %s, e = %s, len = dim + b + e;\n",
                 wgc_dims_expr(e, &x->shape, d, d + 1), side_expr(e, g, n, &p.begin[d], bb, sizeof bb),
                 side_expr(e, g, n, &p.end[d], eb, sizeof eb));
        wgc_emit(e, "if (b < -%lldLL || b > %lldLL || e < -%lldLL || e > %lldLL)\n    return WGK_ERR_SIZE_BOUND;\n"
                    "if (len < 0)\n    return WGK_ERR_INDEX;\n",
                 (long long)PAD_LIMIT, (long long)PAD_LIMIT, (long long)PAD_LIMIT, (long long)PAD_LIMIT);
        if (mode == 1)
            wgc_emit(e, "if ((b > 0 || e > 0) && (b > dim - 1 || e > dim - 1))\n    return WGK_ERR_INDEX;\n");
        else if (mode == 2)
            wgc_emit(e, "if (dim == 0 && (b > 0 || e > 0))\n    return WGK_ERR_INDEX;\n");
        if (axis_varies(&x->shape, &p, d)) {
            wgc_emit(e, "if (len > %lldLL)\n    return WGK_ERR_SIZE_BOUND;\n", (long long)y->shape.dims[d]);
            const int sym = wgc_shape_first_sym(&y->shape, d);
            if (sym >= 0 && g->syms[sym].runtime && !g->syms[sym].derived) /* its own: the Pad decides it */
                wgc_emit(e, "wg_dims[%d] = (int32_t)len;\n", sym);
        }
        wgc_emit(e, "xd[%d] = (int32_t)dim; pb[%d] = (int32_t)b; pe[%d] = (int32_t)e;\n}\n", d, d, d);
    }
    wgc_emit(e, "wgk_pad(%s, %s, %zu, %d, xd, pb, pe, %d, %s);\n}\n", wgc_ptr(e, g, n->outputs[0]),
             wgc_ptr(e, g, n->inputs[0]), wg_dtype_size(x->dtype), r, mode, value);
    return WG_OK;
}
