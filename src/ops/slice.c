/*
 * slice.c: Slice (starts, ends and axes attributes before opset 10; from 10 inputs, with
 * optional axes and steps). Constant parameters make it one affine gather, the view
 * machinery it shares with Expand, Tile and the others (affine_gather.c, affine_gather.h):
 * slice_plan turns ONNX's clamping into the view, which folds on the host too. Here too:
 * its symbolic dims (symbolic ends, shape arithmetic: "symbolic dims") and the Slice
 * whose starts, ends or steps are computed at run time, or that slices an axis of
 * symbolic size ("sizes decided in the module").
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/sym_code.h"
#include "affine_gather.h"
#include "sym.h"
#include "../common/dtype.h"
#include "helpers/emit_and_fold.h"

/*
 * Slice whose starts, ends or steps are computed at run time (module ABI
 * 2 "Run-time output dims"). Each sliced axis's length is then a run-time symbol bounded
 * by the axis (by ceil(axis / |step|) for a constant step); the module clamps the values
 * as ONNX says, writes the lengths into wg_dims and copies the slice. The axes must be
 * constant: they decide which dims are run-time ones. Slices of constant parameters stay
 * slice_plan's; symbolic-valued parameters (shape arithmetic) slice_rule's.
 */
/* Is n an opset >= 10 Slice with a starts, ends or steps input that is neither a constant
 * nor symbolic values? */
static bool wgc_slice_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Does n compute its output's sizes in the module: run-time parameters, or constant ones
 * on an axis of symbolic or run-time size (slice_sym_infer gave that dim a run-time symbol)?
 * Such a Slice is emitted by wgc_slice_runtime_emit. */
static bool wgc_slice_runs_sizes(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape: x's, each sliced axis a run-time symbol at its bound. */
static wg_status wgc_slice_runtime_infer(wgc_graph *g, wgc_node *n);
/* With symbolic input dims (slice_sym_infer, after the infer hook): y, output 0's shape, takes
 * x's symbolic dims on the axes n does not slice. */
static wg_status wgc_slice_runtime_keep_syms(wgc_graph *g, const wgc_node *n, wgc_shape *y);
static wg_status wgc_slice_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

/* The affine view of a Slice of constant parameters: ONNX's clamping, per entry. */
static wg_status slice_plan(wgc_graph *g, const wgc_node *n, wgc_affine_view *v)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t xs[WG_MAX_RANK];
    const int rank = wgc_affine_view_begin(x, v, xs);
    wg_status st;
    int64_t start[WG_MAX_RANK], step[WG_MAX_RANK];
    v->y = x->shape;
    for (int d = 0; d < rank; d++)
        start[d] = 0, step[d] = 1;
    int64_t m;
    const int64_t *sa = NULL, *ea = NULL, *aa = NULL;
    const wgc_tensor *ts = NULL, *te = NULL, *ta = NULL, *tp = NULL;
    if (n->opset < 10) {
        size_t c1, c2, c3 = 0;
        sa = wgc_attr_ints(n, "starts", &c1);
        ea = wgc_attr_ints(n, "ends", &c2);
        aa = wgc_attr_ints(n, "axes", &c3);
        if (!sa || !ea || c1 != c2 || (aa && c3 != c1))
            return wgc_error(g, n, WG_ERR_INVALID, "bad starts/ends/axes");
        m = (int64_t)c1;
    } else {
        static const char *what[] = {"starts", "ends", "axes", "steps"};
        for (int i = 1; i < n->n_inputs && i < 5; i++)
            if ((st = wgc_affine_need_const(g, n, i, what[i - 1])))
                return st;
        ts = wgc_in(g, n, 1), te = wgc_in(g, n, 2);
        ta = wgc_in(g, n, 3), tp = wgc_in(g, n, 4);
        if (!ts || !te)
            return wgc_error(g, n, WG_ERR_INVALID, "starts and ends are required");
        m = wgc_numel(&ts->shape);
        if (wgc_numel(&te->shape) != m || (ta && wgc_numel(&ta->shape) != m) ||
            (tp && wgc_numel(&tp->shape) != m))
            return wgc_error(g, n, WG_ERR_INVALID, "starts/ends/axes/steps differ in length");
    }
    bool seen[WG_MAX_RANK] = {0};
    for (int64_t k = 0; k < m; k++) {
        int64_t a = ta ? wgc_const_int(ta, k) : aa ? aa[k] : k;
        int ax;
        if (!wgc_norm_axis(a, rank, &ax) || seen[ax])
            return wgc_error(g, n, WG_ERR_INVALID, "bad axis %lld", (long long)a);
        seen[ax] = true;
        int64_t s = ts ? wgc_const_int(ts, k) : sa[k], e = te ? wgc_const_int(te, k) : ea[k];
        int64_t p = tp ? wgc_const_int(tp, k) : 1, dim = x->shape.dims[ax];
        if (p == 0)
            return wgc_error(g, n, WG_ERR_INVALID, "step 0");
        /* A step past the dim gives at most one element either way; clamping it keeps
         * the length and stride arithmetic below from overflowing (and -INT64_MIN). */
        if (p > dim + 1)
            p = dim + 1;
        else if (p < -(dim + 1))
            p = -(dim + 1);
        if (s < 0) s += dim;
        if (e < 0) e += dim;
        if (p > 0) {
            s = s < 0 ? 0 : s > dim ? dim : s;
            e = e < 0 ? 0 : e > dim ? dim : e;
        } else {
            s = s < 0 ? -1 : s > dim - 1 ? dim - 1 : s;
            e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
        }
        int64_t len = p > 0 ? (e > s ? (e - s + p - 1) / p : 0) : (s > e ? (s - e + (-p) - 1) / (-p) : 0);
        v->y.dims[ax] = len;
        start[ax] = len ? s : 0;
        step[ax] = p;
    }
    v->r = rank;
    for (int d = 0; d < rank; d++) {
        v->dims[d] = v->y.dims[d];
        v->st[d] = step[d] * xs[d];
        v->base += start[d] * xs[d];
    }
    return WG_OK;
}

static wg_status slice_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 5, wgc_gen_dtypes);
    if (st)
        return st;
    if (wgc_slice_is_runtime(g, n))
        return wgc_slice_runtime_infer(g, n);
    wgc_affine_view v;
    if ((st = slice_plan(g, n, &v)))
        return st;
    return wgc_affine_infer(g, n, &v);
}

static wg_status slice_fold(wgc_graph *g, wgc_node *n)
{
    return wgc_affine_fold_by(g, n, slice_plan);
}

static wg_status slice_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (wgc_slice_runs_sizes(g, n))
        return wgc_slice_runtime_emit(e, g, n);
    return wgc_affine_emit_by(e, g, n, slice_plan);
}

/* ---- symbolic dims (sym.h) ---- */

/* Does entry i take the last k elements of its axis (*axis): a symbolic start -k (*k, a
 * monomial or a sum symbol: `bias[:, :, -seq:, :]`, T5's relative position bias), step 1
 * and a constant end at or past the axis at the maxima? slice_rule then gives the axis
 * length k. The test reads no symbolic dim of x, which the infer hook does not see (it
 * runs at the maxima): the infer hook and the symbolic rule decide alike. */
static bool takes_last_k(const wgc_graph *g, const wgc_node *n, int64_t i, int *axis,
                         wgc_dimx *k)
{
    wgc_graph *gm = (wgc_graph *)g; /* (wgc_in reads only) */
    const wgc_tensor *x = wgc_in(gm, n, 0), *st = wgc_in(gm, n, 1), *en = wgc_in(gm, n, 2);
    const wgc_tensor *ax = wgc_in(gm, n, 3), *sp = wgc_in(gm, n, 4);
    const int64_t m = st ? wgc_numel(&st->shape) : 0;
    if (n->opset < 10 || !st || !st->symval || !en || !en->data || en->symval || i >= m ||
        wgc_numel(&en->shape) != m ||
        (ax && (!ax->data || ax->symval || wgc_numel(&ax->shape) != m)) ||
        (sp && (!sp->data || sp->symval || wgc_numel(&sp->shape) != m ||
                wgc_const_int(sp, i) != 1)))
        return false;
    if (!wgc_norm_axis(ax ? wgc_const_int(ax, i) : i, x->shape.rank, axis))
        return false;
    const wgc_dimx s = wgc_symval_at(st, i);
    if (wgc_dimx_is_const(&s) || s.c >= 0 || s.c == INT64_MIN ||
        wgc_const_int(en, i) < x->shape.dims[*axis])
        return false;
    *k = s;
    k->c = -s.c;
    return true;
}

/* Are the symbolic starts of n all ones slice_rule takes (takes_last_k)? */
static bool starts_from_end(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *st = wgc_in((wgc_graph *)g, n, 1);
    int a;
    wgc_dimx k;
    for (int64_t i = 0; i < wgc_numel(&st->shape); i++) {
        const wgc_dimx s = wgc_symval_at(st, i);
        if (!wgc_dimx_is_const(&s) && !takes_last_k(g, n, i, &a, &k))
            return false;
    }
    return true;
}

/* Slice: each sliced axis keeps its symbolic size when taken whole, or becomes its end
 * when that is symbolic with start 0 and step 1 and never past the axis (positions[:, :seq],
 * mask[:, :seq] of a past + seq axis), or k when it takes the last k elements (a start
 * -k, takes_last_k) and k is 1 or more and never past the axis (the last seq rows of a
 * past + seq axis; -0 would start at 0 and take the whole axis, k only where k is the
 * axis), a run-time size where k may pass the axis. */
static wg_status slice_rule(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *st = wgc_in(g, n, 1), *en = wgc_in(g, n, 2);
    const wgc_tensor *ax = wgc_in(g, n, 3), *sp = wgc_in(g, n, 4);
    if (!st || !en || (sp && sp->symval) || (ax && ax->symval) ||
        (st->symval && !starts_from_end(g, n)))
        return wgc_sym_refuse(g, n, "only its ends, or starts from the end, may be symbolic");
    bool sliced[WG_MAX_RANK] = {false};
    int64_t m = wgc_numel(&st->shape);
    for (int64_t i = 0; i < m; i++) {
        int64_t a = ax ? wgc_const_int(ax, i) : i;
        if (a < 0)
            a += x->shape.rank;
        if (a < 0 || a >= x->shape.rank)
            return wgc_sym_refuse(g, n, "an axis is out of range");
        sliced[a] = true;
        int64_t s0 = wgc_const_int(st, i), step = sp ? wgc_const_int(sp, i) : 1;
        wgc_dimx e = wgc_symval_at(en, i), k;
        const wgc_dimx xa = wgc_dimx_of(g, &x->shape, (int)a);
        int ka;
        if (takes_last_k(g, n, i, &ka, &k)) {
            if (wgc_dimx_eq(&k, &xa))
                continue; /* the whole axis, at every size */
            if (wgc_dimx_min(g, &k) < 1)
                return wgc_sym_refuse(g, n, "a start from the end, -k, where k may be 0 (the "
                                            "whole axis, not k elements)");
            const wgc_dimx s = wgc_symval_at(st, i);
            if (wgc_dimx_sum_min(g, xa, s) >= 0) {
                memset(y->sym[a], 0, WGC_MAX_SYMS);
                wgc_shape_set_dim(g, y, (int)a, k);
                continue;
            }
            /* k may pass the axis: min(k, axis) elements, a run-time size of the Slice's own
             * (the run-time section), at most the length at the maxima */
            int sym;
            wg_status status =
                wgc_sym_add_runtime(g, n, n->outputs[0], (int)a, y->dims[a], &sym);
            if (status)
                return status;
            wgc_shape_set_runtime(y, (int)a, sym, y->dims[a]);
            continue;
        }
        bool whole = s0 == 0 && step == 1 &&
                     ((wgc_dimx_is_const(&e) && e.c >= x->shape.dims[a]) || wgc_dimx_eq(&e, &xa));
        if (whole)
            continue; /* y's dim a keeps x's, symbolic or not */
        wgc_dimx neg_e = e;
        neg_e.c = -neg_e.c;
        if (wgc_dim_is_sym(&x->shape, a) && en->symval && s0 == 0 && step == 1 && !wgc_dimx_is_const(&e) &&
            wgc_dimx_min(g, &e) >= 0 && wgc_dimx_sum_min(g, xa, neg_e) >= 0) {
            /* a symbolic end never past the axis (mask[:, :seq] of a past + seq axis): the end */
            memset(y->sym[a], 0, WGC_MAX_SYMS);
            wgc_shape_set_dim(g, y, (int)a, e);
            continue;
        }
        if (wgc_dim_is_sym(&x->shape, a) && (!en->symval || (s0 >= 0 && step > 0))) {
            /* constant bounds on a symbolic axis (detections[:300]), or a symbolic end
             * from a start of 0 or more: a run-time size of the Slice's own, which
             * the run-time section computes by ONNX's clamping. A slice's length never shrinks
             * as its axis or its end grows, so the length at the maxima bounds it */
            int sym;
            wg_status st = wgc_sym_add_runtime(g, n, n->outputs[0], (int)a, y->dims[a], &sym);
            if (st)
                return st;
            wgc_shape_set_runtime(y, (int)a, sym, y->dims[a]);
            continue;
        }
        if (wgc_dim_is_sym(&x->shape, a))
            return wgc_sym_refuse(g, n, "a symbolic axis is sliced at symbolic bounds");
        if (wgc_dimx_is_const(&e))
            continue; /* a fixed slice of a fixed axis: the op's size */
        if (s0 != 0 || step != 1 || wgc_dimx_max(g, &e) > x->shape.dims[a] || e.c < 1)
            return wgc_sym_refuse(g, n, "a symbolic end needs start 0, step 1 and to fit the axis");
        wgc_shape_set_dim(g, y, (int)a, e);
    }
    for (int d = 0; d < x->shape.rank; d++)
        if (!sliced[d] || !wgc_dim_is_sym(y, d))
            if (wgc_dim_is_sym(&x->shape, d))
                memcpy(y->sym[d], x->shape.sym[d], WGC_MAX_SYMS);
    return WG_OK;
}

static wg_status slice_sym_infer(wgc_graph *g, wgc_node *n)
{
    wgc_shape y;
    wgc_tensor *y0 = wgc_sym_out0(g, n, &y);
    if (!y0)
        return WG_OK;
    wg_status st;
    if (wgc_slice_is_runtime(g, n)) {
        /* its infer hook gave the sliced axes their run-time symbols; x's elsewhere */
        wgc_shape o = y0->shape;
        if ((st = wgc_slice_runtime_keep_syms(g, n, &o)))
            return st;
        return wgc_sym_set_out(g, n, 0, &o);
    }
    if (n->opset < 10)
        return wgc_sym_refuse(g, n, "Slice before opset 10");
    if ((st = slice_rule(g, n, &y)))
        return st;
    return wgc_sym_set_out(g, n, 0, &y);
}

/* y (dense at its actual dims) = x read with element strides (constant starts and steps). */
static wg_status slice_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    int r = y->shape.rank;
    char base[160];
    wgc_sym_strided_begin(e, g, n, base, sizeof base);
    const wgc_tensor *st = wgc_in(g, n, 1), *ax = wgc_in(g, n, 3), *sp = wgc_in(g, n, 4);
    int64_t start[WG_MAX_RANK] = {0}, step[WG_MAX_RANK];
    bool last_k[WG_MAX_RANK] = {false}; /* starts at x's dim + the (negative) symbolic start */
    wgc_dimx from_end[WG_MAX_RANK];
    for (int d = 0; d < r; d++)
        step[d] = 1;
    for (int64_t i = 0; i < wgc_numel(&st->shape); i++) {
        int64_t a = ax ? wgc_const_int(ax, i) : i;
        a = a < 0 ? a + r : a;
        int ka;
        wgc_dimx k;
        if (takes_last_k(g, n, i, &ka, &k)) {
            last_k[a] = true;
            from_end[a] = wgc_symval_at(st, i);
            continue;
        }
        int64_t s0 = wgc_const_int(st, i), dim = x->shape.dims[a];
        step[a] = sp ? wgc_const_int(sp, i) : 1;
        if (step[a] != 1 && wgc_dim_is_sym(&y->shape, (int)a))
            return wgc_sym_refuse(g, n, "a step other than 1 on a symbolic axis");
        if (wgc_dim_is_sym(&x->shape, (int)a) && s0 != 0)
            return wgc_sym_refuse(g, n, "a start other than 0 on a symbolic axis");
        s0 = s0 < 0 ? s0 + dim : s0;
        start[a] = s0 < 0 ? 0 : s0 > dim - (step[a] < 0) ? dim - (step[a] < 0) : s0;
    }
    wgc_emit(e, "const int32_t xs[%d] = {", r);
    for (int d = 0; d < r; d++)
        wgc_emit(e, "%s%lld * %s", d ? ", " : "", (long long)step[d], wgc_dims_expr(e, &x->shape, d + 1, r));
    wgc_emit(e, "};\nconst char *px = (const char *)%s + (0", base);
    for (int d = 0; d < r; d++)
        if (last_k[d])
            wgc_emit(e, " + (%s + %s) * %s", wgc_dims_expr(e, &x->shape, d, d + 1),
                     wgc_dimx_expr(e, &from_end[d]), wgc_dims_expr(e, &x->shape, d + 1, r));
        else if (start[d])
            wgc_emit(e, " + %lld * %s", (long long)start[d], wgc_dims_expr(e, &x->shape, d + 1, r));
    wgc_emit(e, ") * %zu;\nwgk_copy_strided(%s, px, %zu, %d, yd, xs);\n}\n", wg_dtype_size(x->dtype),
             wgc_ptr(e, g, n->outputs[0]), wg_dtype_size(x->dtype), r);
    return WG_OK;
}

static wg_status slice_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status status = wgc_sym_int_values_only(g, n);
    if (status)
        return status;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_tensor *b = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    /* a 1-D slice with fixed bounds: the values from the folded result's positions */
    const wgc_tensor *st = wgc_in(g, n, 1), *sp = wgc_in(g, n, 4);
    int64_t s0, step = 1;
    if (n->n_inputs < 2) { /* before opset 10: starts, ends, axes as attributes */
        size_t cnt = 0;
        const int64_t *sa = wgc_attr_ints(n, "starts", &cnt);
        if (x->shape.rank != 1 || !sa || cnt != 1)
            return wgc_sym_refuse(g, n, NULL);
        s0 = sa[0];
    } else {
        if (x->shape.rank != 1 || !st || st->symval || (b && b->symval) || (sp && sp->symval))
            return wgc_sym_refuse(g, n, NULL);
        s0 = wgc_const_int(st, 0);
        step = sp ? wgc_const_int(sp, 0) : 1;
    }
    int64_t dim = x->shape.dims[0];
    if (s0 < 0)
        s0 += dim;
    s0 = s0 < 0 ? 0 : s0 > dim ? dim : s0;
    if (step != 1)
        return wgc_sym_refuse(g, n, "a step other than 1");
    for (int64_t i = 0; i < count; i++)
        v[i] = wgc_symval_at(x, s0 + i);
    return WG_OK;
}

/* A Slice decides its sizes at run time where its own emit hook reads them (the section
 * "sizes decided in the module", wgc_slice_runtime_emit). */
static bool slice_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && wgc_slice_runs_sizes(g, n);
}

/* Bounds of integer values computed at run time (ir/valrange.h): any of input 0's values. */
static bool slice_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, wgc_vrange *out,
                             int64_t count)
{
    return wgc_vrange_of_input0(g, n, y, out, count);
}

const wgc_op_def wgc_op_slice = {
    .infer = slice_infer,
    .fold = slice_fold,
    .emit = slice_emit,
    .sym = {.infer = slice_sym_infer,
            .emit = slice_sym_emit,
            .foldable = wgc_sym_passes_values,
            .values = slice_sym_values,
            .takes = slice_sym_takes,
            .bounds = slice_sym_bounds},
};

/* ---- sizes decided in the module ---- */

enum { STARTS = 1, ENDS = 2, AXES = 3, STEPS = 4 };

static bool runtime_input(const wgc_graph *g, const wgc_node *n, int i)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return false;
    const wgc_tensor *t = &g->tensors[n->inputs[i]];
    /* symbolic starts or steps (x[:, seq - 1:]; the symbolic rule takes only ends, and
     * starts from the end) are read at run time too, at their actual values */
    if (t->symval && i == STARTS)
        return !starts_from_end(g, n);
    return (!t->data && !t->symval) || (t->symval && i == STEPS);
}

static bool wgc_slice_is_runtime(const wgc_graph *g, const wgc_node *n)
{
    return n->op == WGC_OP_SLICE && n->opset >= 10 &&
           (runtime_input(g, n, STARTS) || runtime_input(g, n, ENDS) || runtime_input(g, n, STEPS));
}

/* Is dim d of n's output a run-time size n decides? */
static bool owns_dim(const wgc_graph *g, const wgc_node *n, int d)
{
    const int y = n->outputs[0];
    for (int k = wgc_sym_n_host(g); k < g->n_syms; k++)
        if (g->syms[k].runtime && g->syms[k].tensor == y && g->syms[k].dim == d &&
            g->tensors[y].shape.sym[d][k])
            return true;
    return false;
}

static bool wgc_slice_runs_sizes(const wgc_graph *g, const wgc_node *n)
{
    if (wgc_slice_is_runtime(g, n))
        return true;
    if (n->op != WGC_OP_SLICE || n->opset < 10 || n->outputs[0] < 0)
        return false;
    for (int d = 0; d < g->tensors[n->outputs[0]].shape.rank; d++)
        if (owns_dim(g, n, d))
            return true;
    return false;
}

/* The sliced axes in entry order (axis[i] for entry i) and the constant steps (0: a
 * run-time one); the one place the parameters' shapes and the axes are checked. */
typedef struct slices {
    int64_t m;
    int axis[WG_MAX_RANK];
    int64_t step[WG_MAX_RANK];
} slices;

static wg_status read_slices(wgc_graph *g, const wgc_node *n, slices *s)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ts = wgc_in(g, n, STARTS), *te = wgc_in(g, n, ENDS);
    const wgc_tensor *ta = wgc_in(g, n, AXES), *tp = wgc_in(g, n, STEPS);
    if (!ts || !te)
        return wgc_error(g, n, WG_ERR_INVALID, "starts and ends are required");
    const wgc_tensor *params[] = {ts, te, ta, tp};
    for (int i = 0; i < 4; i++) {
        const wgc_tensor *t = params[i];
        if (!t)
            continue;
        if (t->dtype != WG_DT_INT64 && t->dtype != WG_DT_INT32)
            return wgc_error(g, n, WG_ERR_INVALID, "input '%s' must be int32 or int64", t->name);
        if (t->shape.rank != 1 || wgc_shape_is_sym(&t->shape))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "input '%s' of a Slice computed at run time must be 1-D of a fixed length",
                             t->name);
    }
    if (ta && (!ta->data || ta->symval))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "axes input '%s' is computed at run time; with run-time starts, ends or steps "
                         "only constant axes are supported (they decide which dims vary)", ta->name);
    if (x->symval)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a run-time Slice of symbolic values (shape arithmetic)");
    s->m = ts->shape.dims[0];
    if (te->shape.dims[0] != s->m || (ta && ta->shape.dims[0] != s->m) || (tp && tp->shape.dims[0] != s->m))
        return wgc_error(g, n, WG_ERR_INVALID, "starts/ends/axes/steps differ in length");
    if (s->m > x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "%lld slices of a rank-%d input", (long long)s->m,
                         x->shape.rank);
    bool seen[WG_MAX_RANK] = {false};
    for (int64_t i = 0; i < s->m; i++) {
        int64_t a = ta ? wgc_const_int(ta, i) : i;
        int ax;
        if (!wgc_norm_axis(a, x->shape.rank, &ax) || seen[ax])
            return wgc_error(g, n, WG_ERR_INVALID, "bad or repeated axis %lld", (long long)a);
        seen[ax] = true;
        s->axis[i] = ax;
        s->step[i] = !tp ? 1 : tp->data && !tp->symval ? wgc_const_int(tp, i) : 0;
        if (tp && tp->data && !tp->symval && s->step[i] == 0)
            return wgc_error(g, n, WG_ERR_INVALID, "step 0");
    }
    return WG_OK;
}

static wg_status wgc_slice_runtime_infer(wgc_graph *g, wgc_node *n)
{
    slices s;
    wg_status st = read_slices(g, n, &s);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y = x->shape;
    for (int64_t i = 0; i < s.m; i++) {
        const int a = s.axis[i];
        const int64_t dim = x->shape.dims[a], p = s.step[i] < 0 ? -s.step[i] : s.step[i];
        /* at most ceil(dim / |step|) elements; a run-time step may be 1 */
        const int64_t bound = p > 1 ? (dim + p - 1) / p : dim;
        int sym;
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], a, bound, &sym)))
            return st;
        wgc_shape_set_runtime(&y, a, sym, bound);
    }
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

static wg_status wgc_slice_runtime_keep_syms(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    slices s;
    wg_status st = read_slices(g, n, &s);
    if (st)
        return st;
    bool sliced[WG_MAX_RANK] = {false};
    for (int64_t i = 0; i < s.m; i++)
        sliced[s.axis[i]] = true;
    const wgc_tensor *x = wgc_in(g, n, 0);
    for (int d = 0; d < x->shape.rank; d++)
        if (!sliced[d])
            memcpy(y->sym[d], x->shape.sym[d], WGC_MAX_SYMS);
    return WG_OK;
}

/* Element i of parameter input k as a C int64 expression. */
static const char *param(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int k, int64_t i, char *buf, size_t cap)
{
    return wgc_int_elem_expr(e, g, n->inputs[k], i, buf, cap);
}

/* Per entry, the ONNX clamping of slice_plan, in the module: the length goes
 * into y's dims and wg_dims, the start into the offset, step x stride into the strides.
 * A step of 0 returns WGK_ERR_INDEX (a parameter value out of range). */
static wg_status wgc_slice_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    slices s;
    wg_status st = read_slices(g, n, &s);
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    const int r = x->shape.rank;
    wgc_emit(e, "{\nint32_t yd[%d], xs[%d];\nint64_t off = 0;\n", r, r);
    for (int d = 0; d < r; d++)
        wgc_emit(e, "yd[%d] = %s; xs[%d] = %s;\n", d, wgc_dims_expr(e, &x->shape, d, d + 1), d,
                 wgc_dims_expr(e, &x->shape, d + 1, r));
    for (int64_t i = 0; i < s.m; i++) {
        const int a = s.axis[i];
        char sb[128], eb[128], pb[128];
        wgc_emit(e, "{\nconst int64_t dim = yd[%d];\nint64_t s0 = %s, e0 = %s, p0 = %s;\n", a,
                 param(e, g, n, STARTS, i, sb, sizeof sb), param(e, g, n, ENDS, i, eb, sizeof eb),
                 wgc_in(g, n, STEPS) ? param(e, g, n, STEPS, i, pb, sizeof pb) : "1");
        /* a step past the dim takes at most one element either way: clamped, the products
         * below stay in range */
        wgc_emit(e, "if (p0 == 0)\n    return WGK_ERR_INDEX;\n"
                    "if (p0 > dim + 1) p0 = dim + 1;\nif (p0 < -(dim + 1)) p0 = -(dim + 1);\n"
                    "if (s0 < 0) s0 += dim;\nif (e0 < 0) e0 += dim;\n"
                    "if (p0 > 0) {\n    s0 = s0 < 0 ? 0 : s0 > dim ? dim : s0;\n    e0 = e0 < 0 ? 0 : e0 > dim ? dim : e0;\n"
                    "} else {\n    s0 = s0 < 0 ? -1 : s0 > dim - 1 ? dim - 1 : s0;\n"
                    "    e0 = e0 < -1 ? -1 : e0 > dim - 1 ? dim - 1 : e0;\n}\n"
                    "const int64_t len = p0 > 0 ? (e0 > s0 ? (e0 - s0 + p0 - 1) / p0 : 0) : (s0 > e0 ? (s0 - e0 - p0 - 1) / -p0 : 0);\n");
        wgc_emit(e, "yd[%d] = (int32_t)len;\n", a);
        const int sym = wgc_shape_first_sym(&y->shape, a);
        if (sym >= 0 && owns_dim(g, n, a)) /* (a symbolic size kept from x is the host's) */
            wgc_emit(e, "wg_dims[%d] = (int32_t)len;\n", sym);
        wgc_emit(e, "off += (len ? s0 : 0) * xs[%d];\nxs[%d] = (int32_t)(p0 * xs[%d]);\n}\n", a, a, a);
    }
    const size_t es = wg_dtype_size(x->dtype);
    wgc_emit(e, "wgk_copy_strided(%s, (const char *)%s + off * %zu, %zu, %d, yd, xs);\n}\n",
             wgc_ptr(e, g, n->outputs[0]), wgc_ptr(e, g, n->inputs[0]), es, es, r);
    return WG_OK;
}
