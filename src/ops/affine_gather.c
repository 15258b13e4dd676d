/*
 * affine_gather.c: data movement as one affine gather each (helpers/inline_loops.c: y[v] = x[base + v . strides]):
 * Expand, Tile, Slice, DepthToSpace, SpaceToDepth; and Size (always folded). Constant
 * inputs fold through the same view on the host (fold_map.c).
 * Shape-giving inputs here are constant: a Slice with run-time starts, ends or steps is
 * the run-time section's (below), an Expand or Tile with a run-time shape or repeats
 * expand_tile_runtime.c's.
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/inline_loops.h"
#include "helpers/sym_code.h"
#include "expand_tile_runtime.h"
#include "sym.h"
#include "../common/dtype.h"
#include "helpers/emit_and_fold.h"

/*
 * Slice whose starts, ends or steps are computed at run time (module ABI
 * 2 "Run-time output dims"). Each sliced axis's length is then a run-time symbol bounded
 * by the axis (by ceil(axis / |step|) for a constant step); the module clamps the values
 * as ONNX says, writes the lengths into wg_dims and copies the slice. The axes must be
 * constant: they decide which dims are run-time ones. Slices of constant parameters stay
 * affine_gather.c's; symbolic-valued parameters (shape arithmetic) slice_rule's.
 */
/* Is n an opset >= 10 Slice with a starts, ends or steps input that is neither a constant
 * nor symbolic values? */
static bool wgc_slice_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Does n compute its output's sizes in the module: run-time parameters, or constant ones
 * on an axis of symbolic or run-time size (affine_gather_sym_infer gave that dim a run-time symbol)?
 * Such a Slice is emitted by wgc_slice_runtime_emit. */
static bool wgc_slice_runs_sizes(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape: x's, each sliced axis a run-time symbol at its bound. */
static wg_status wgc_slice_runtime_infer(wgc_graph *g, wgc_node *n);
/* With symbolic input dims (affine_gather_sym_infer, after the infer hook): y, output 0's shape, takes
 * x's symbolic dims on the axes n does not slice. */
static wg_status wgc_slice_runtime_keep_syms(wgc_graph *g, const wgc_node *n, wgc_shape *y);
static wg_status wgc_slice_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

/* Optional input i, when present, must be a constant integer tensor. */
static wg_status need_const(wgc_graph *g, const wgc_node *n, int i, const char *what)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    if (!t)
        return WG_OK;
    if (t->dtype != WG_DT_INT64 && t->dtype != WG_DT_INT32)
        return wgc_error(g, n, WG_ERR_INVALID, "%s input '%s' must be int64", what, t->name);
    if (!t->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "%s input '%s' is computed at run time; only constant values are supported",
                         what, t->name);
    return WG_OK;
}

/* The affine view of each op: dims/strides of a view of y (rank r), base offset. */
typedef struct view {
    int r;
    int64_t dims[2 * WG_MAX_RANK], st[2 * WG_MAX_RANK], base;
    wgc_shape y;
} view;

static wg_status plan(wgc_graph *g, const wgc_node *n, view *v)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int rank = x->shape.rank;
    int64_t xs[WG_MAX_RANK];
    wgc_shape_strides(&x->shape, xs);
    wg_status st;
    memset(v, 0, sizeof *v);
    switch (n->op) {
    case WGC_OP_EXPAND: {
        if (!wgc_in(g, n, 1))
            return wgc_error(g, n, WG_ERR_INVALID, "the 'shape' input is missing");
        if ((st = need_const(g, n, 1, "shape")))
            return st;
        const wgc_tensor *s = wgc_in(g, n, 1);
        wgc_shape want = {0};
        want.rank = (int)wgc_numel(&s->shape);
        if (want.rank > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "rank %d", want.rank);
        for (int d = 0; d < want.rank; d++)
            want.dims[d] = wgc_const_int(s, d);
        if (!wgc_broadcast(&x->shape, &want, &v->y))
            return wgc_error(g, n, WG_ERR_INVALID, "shape does not broadcast");
        v->r = v->y.rank;
        for (int d = 0; d < v->r; d++) {
            int xd = d - (v->r - rank);
            v->dims[d] = v->y.dims[d];
            v->st[d] = (xd < 0 || x->shape.dims[xd] == 1) ? 0 : xs[xd];
        }
        return WG_OK;
    }
    case WGC_OP_TILE: {
        if (!wgc_in(g, n, 1))
            return wgc_error(g, n, WG_ERR_INVALID, "the 'repeats' input is missing");
        if ((st = need_const(g, n, 1, "repeats")))
            return st;
        const wgc_tensor *rp = wgc_in(g, n, 1);
        if (wgc_numel(&rp->shape) != rank)
            return wgc_error(g, n, WG_ERR_INVALID, "repeats has %lld values for rank %d",
                             (long long)wgc_numel(&rp->shape), rank);
        v->y.rank = rank;
        for (int d = 0; d < rank; d++) {
            int64_t k = wgc_const_int(rp, d);
            if (k < 0)
                return wgc_error(g, n, WG_ERR_INVALID, "negative repeat");
            /* No tensor has 2^40 elements: refuse before the product can overflow. */
            if (x->shape.dims[d] && k > (((int64_t)1 << 40) / x->shape.dims[d]))
                return wgc_error(g, n, WG_ERR_LIMIT, "repeats[%d] = %lld makes dim %d too large",
                                 d, (long long)k, d);
            v->y.dims[d] = k * x->shape.dims[d];
            v->dims[v->r] = k, v->st[v->r++] = 0;
            v->dims[v->r] = x->shape.dims[d], v->st[v->r++] = xs[d];
        }
        return WG_OK;
    }
    case WGC_OP_SLICE: {
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
                if ((st = need_const(g, n, i, what[i - 1])))
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
    case WGC_OP_DEPTH_TO_SPACE: case WGC_OP_SPACE_TO_DEPTH: {
        int64_t b = wgc_attr_int(n, "blocksize", 0);
        if (rank != 4 || b <= 0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "only 4-D input with blocksize > 0");
        /* b*b must divide C (DepthToSpace) or b divide H and W (SpaceToDepth), and no
         * valid tensor has 2^40 elements: a larger b only overflows the products below. */
        if (b > ((int64_t)1 << 20)) {
            char sb[128];
            return wgc_error(g, n, WG_ERR_INVALID, "blocksize %lld is too large for input %s",
                             (long long)b, wgc_shape_str(&x->shape, sb, sizeof sb));
        }
        int64_t N = x->shape.dims[0], C = x->shape.dims[1], H = x->shape.dims[2], W = x->shape.dims[3];
        v->y.rank = 4;
        v->r = 6;
        if (n->op == WGC_OP_DEPTH_TO_SPACE) {
            if (C % (b * b))
                return wgc_error(g, n, WG_ERR_INVALID, "channels %lld not divisible by blocksize^2",
                                 (long long)C);
            int64_t c = C / (b * b);
            bool crd = !strcmp(wgc_attr_str(n, "mode", "DCR"), "CRD");
            v->y.dims[0] = N, v->y.dims[1] = c, v->y.dims[2] = H * b, v->y.dims[3] = W * b;
            /* y[n][c][h][b1][w][b2] = x[n][ch(b1,b2,c)][h][w] */
            int64_t cs = H * W;
            int64_t st_c = crd ? b * b * cs : cs, st_b1 = crd ? b * cs : b * c * cs,
                    st_b2 = crd ? cs : c * cs;
            int64_t dims[6] = {N, c, H, b, W, b}, sts[6] = {C * cs, st_c, W, st_b1, 1, st_b2};
            memcpy(v->dims, dims, sizeof dims);
            memcpy(v->st, sts, sizeof sts);
        } else {
            if (H % b || W % b)
                return wgc_error(g, n, WG_ERR_INVALID, "H, W not divisible by blocksize");
            int64_t h = H / b, w = W / b;
            v->y.dims[0] = N, v->y.dims[1] = C * b * b, v->y.dims[2] = h, v->y.dims[3] = w;
            /* DCR: y[n][b1][b2][c][h][w] = x[n][c][h*b+b1][w*b+b2]; CRD (mode since
             * SpaceToDepth-28): y[n][c][b1][b2][h][w] */
            const char *mode = wgc_attr_str(n, "mode", "DCR");
            bool crd = !strcmp(mode, "CRD");
            if (!crd && strcmp(mode, "DCR"))
                return wgc_error(g, n, WG_ERR_INVALID, "mode '%s' (want DCR or CRD)", mode);
            int64_t dcr_dims[6] = {N, b, b, C, h, w}, dcr_sts[6] = {C * H * W, W, 1, H * W, b * W, b};
            int64_t crd_dims[6] = {N, C, b, b, h, w}, crd_sts[6] = {C * H * W, H * W, W, 1, b * W, b};
            const int64_t *dims = crd ? crd_dims : dcr_dims, *sts = crd ? crd_sts : dcr_sts;
            memcpy(v->dims, dims, sizeof dcr_dims);
            memcpy(v->st, sts, sizeof dcr_sts);
        }
        return WG_OK;
    }
    default: return wgc_no_case(g, n, "the affine view");
    }
}

static wg_status affine_gather_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, n->op == WGC_OP_SLICE ? 5 : n->op == WGC_OP_SIZE ? 1 : n->op == WGC_OP_EXPAND || n->op == WGC_OP_TILE ? 2 : 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_gen_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (n->op == WGC_OP_SIZE) {
        wgc_shape s = {0};
        wgc_set_output(g, n, 0, WG_DT_INT64, &s);
        return WG_OK;
    }
    if (wgc_slice_is_runtime(g, n))
        return wgc_slice_runtime_infer(g, n);
    if (wgc_expand_tile_is_runtime(g, n)) {
        wgc_shape y;
        if ((st = wgc_expand_tile_runtime_shape(g, n, &y)))
            return st;
        wgc_set_output(g, n, 0, x->dtype, &y);
        return WG_OK;
    }
    view v;
    if ((st = plan(g, n, &v)))
        return st;
    wgc_set_output(g, n, 0, x->dtype, &v.y);
    return WG_OK;
}

static wg_status affine_gather_fold(wgc_graph *g, wgc_node *n)
{
    if (n->op != WGC_OP_SIZE) {
        /* the same affine view the module runs, evaluated on the host */
        view v;
        wg_status st = plan(g, n, &v);
        if (st)
            return st;
        return wgc_fold_affine(g, n, v.r, v.dims, v.st, v.base);
    }
    wgc_tensor *y = wgc_out(g, n, 0);
    int64_t *data = wgc_elem_alloc(g, n, WG_DT_INT64, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    data[0] = wgc_numel(&wgc_in(g, n, 0)->shape);
    wgc_tensor_set_const(g, n->outputs[0], WG_DT_INT64, &y->shape, data);
    return WG_OK;
}

static wg_status affine_gather_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (n->op == WGC_OP_SIZE) {
        wgc_emit(e, "*(int64_t *)%s = %lldLL;\n", wgc_ptr(e, g, n->outputs[0]),
                 (long long)wgc_numel(&wgc_in(g, n, 0)->shape));
        return WG_OK;
    }
    if (wgc_slice_runs_sizes(g, n))
        return wgc_slice_runtime_emit(e, g, n);
    if (wgc_expand_tile_is_runtime(g, n))
        return wgc_expand_tile_runtime_emit(e, g, n);
    view v;
    wg_status st = plan(g, n, &v);
    if (!st)
        st = wgc_check_i32_numel(g, n, wgc_out(g, n, 0));
    if (!st)
        st = wgc_check_i32_numel(g, n, wgc_in(g, n, 0));
    if (st)
        return st;
    wgc_gen_affine(e, g, n->inputs[0], n->outputs[0], v.r, v.dims, v.st, v.base);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* Slice: each sliced axis keeps its symbolic size when taken whole, or becomes its end
 * when that is symbolic with start 0 and step 1 (positions[:, :seq]). */
static wg_status slice_rule(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *st = wgc_in(g, n, 1), *en = wgc_in(g, n, 2);
    const wgc_tensor *ax = wgc_in(g, n, 3), *sp = wgc_in(g, n, 4);
    if (!st || !en || (sp && sp->symval) || (ax && ax->symval) || st->symval)
        return wgc_sym_refuse(g, n, "only its ends may be symbolic");
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
        wgc_dimx e = wgc_symval_at(en, i);
        const wgc_dimx xa = wgc_dimx_of(g, &x->shape, (int)a);
        bool whole = s0 == 0 && step == 1 &&
                     ((wgc_dimx_is_const(&e) && e.c >= x->shape.dims[a]) || wgc_dimx_eq(&e, &xa));
        if (whole)
            continue; /* y's dim a keeps x's, symbolic or not */
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

static wg_status affine_gather_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    wgc_tensor *y0 = wgc_sym_out0(g, n, &y);
    if (!y0)
        return WG_OK;
    wg_status st;
    switch (n->op) {
    case WGC_OP_SLICE:
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
    case WGC_OP_TILE:
        if (!wgc_expand_tile_is_runtime(g, n))
            return wgc_sym_refuse(g, n, NULL);
        /* fallthrough */
    case WGC_OP_EXPAND: {
        wgc_shape s, o;
        if (x->symval)
            return wgc_sym_refuse(g, n, "its input holds symbolic values");
        if (wgc_expand_tile_is_runtime(g, n)) { /* sizes decided in the module */
            if ((st = wgc_expand_tile_runtime_shape(g, n, &o)))
                return st;
            return wgc_sym_set_out(g, n, 0, &o);
        }
        wgc_sym_shape_of_values(g, wgc_in(g, n, 1), &s);
        if (!wgc_broadcast(&x->shape, &s, &o))
            return wgc_sym_refuse(g, n, "the shape broadcasts a symbolic dimension against a fixed one");
        return wgc_sym_set_out(g, n, 0, &o);
    }
    case WGC_OP_DEPTH_TO_SPACE: case WGC_OP_SPACE_TO_DEPTH:
        /* per sample (WGC_PER_SAMPLE): over a symbolic batch only */
        if (wgc_sym_batch_op(g, n))
            return wgc_sym_batch_rule(g, n);
        return wgc_sym_batch_refuse(g, n);
    default:
        return wgc_sym_batch_refuse(g, n);
    }
}

/* y (dense at its actual dims) = x read with element strides: Slice (constant starts and
 * steps) and Expand (stride 0 where x broadcasts). */
static wg_status emit_strided(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    int r = y->shape.rank;
    char base[160];
    snprintf(base, sizeof base, "%s", wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "{\n");
    wgc_sym_put_dims(e, &y->shape, "yd");
    if (n->op == WGC_OP_EXPAND) {
        wgc_sym_put_strides(e, &x->shape, &y->shape, "xs");
        wgc_emit(e, "wgk_copy_strided(%s, %s, %zu, %d, yd, xs);\n}\n", wgc_ptr(e, g, n->outputs[0]), base,
                 wg_dtype_size(x->dtype), r ? r : 1);
        return WG_OK;
    }
    const wgc_tensor *st = wgc_in(g, n, 1), *ax = wgc_in(g, n, 3), *sp = wgc_in(g, n, 4);
    int64_t start[WG_MAX_RANK] = {0}, step[WG_MAX_RANK];
    for (int d = 0; d < r; d++)
        step[d] = 1;
    for (int64_t i = 0; i < wgc_numel(&st->shape); i++) {
        int64_t a = ax ? wgc_const_int(ax, i) : i;
        a = a < 0 ? a + r : a;
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
        if (start[d])
            wgc_emit(e, " + %lld * %s", (long long)start[d], wgc_dims_expr(e, &x->shape, d + 1, r));
    wgc_emit(e, ") * %zu;\nwgk_copy_strided(%s, px, %zu, %d, yd, xs);\n}\n", wg_dtype_size(x->dtype),
             wgc_ptr(e, g, n->outputs[0]), wg_dtype_size(x->dtype), r);
    return WG_OK;
}

static wg_status affine_gather_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (n->op == WGC_OP_SLICE || n->op == WGC_OP_EXPAND)
        return emit_strided(e, g, n);
    return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
}

static wgc_sym_folds affine_gather_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    if (n->op != WGC_OP_SLICE || !wgc_inputs_const(g, n))
        return false;
    return n->inputs[0] >= 0 && g->tensors[n->inputs[0]].symval; /* the values are symbolic */
}

static wg_status affine_gather_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status status = wgc_sym_int_values_only(g, n);
    if (status)
        return status;
    if (n->op != WGC_OP_SLICE)
        return wgc_sym_refuse(g, n, NULL);
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

/* Slice, Expand and Tile decide their sizes at run time where their own emit hooks read
 * them (the run-time files above); DepthToSpace and SpaceToDepth are per sample. */
static bool affine_gather_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    switch (t) {
    case WGC_DATA_DEPENDENT:
        if (n->op == WGC_OP_SLICE) /* reads x's sizes at run time itself (wgc_slice_runtime_emit) */
            return wgc_slice_runs_sizes(g, n);
        if (n->op == WGC_OP_EXPAND || n->op == WGC_OP_TILE) /* the same (expand_tile_runtime.c) */
            return wgc_expand_tile_is_runtime(g, n);
        return false;
    case WGC_PER_SAMPLE:
        return n->op == WGC_OP_DEPTH_TO_SPACE || n->op == WGC_OP_SPACE_TO_DEPTH;
    default:
        return false;
    }
}

/* Bounds of integer values computed at run time (ir/valrange.h): Slice, Expand and Tile
 * give any of input 0's values. */
static bool affine_gather_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                                     wgc_vrange *out, int64_t count)
{
    return (n->op == WGC_OP_SLICE || n->op == WGC_OP_EXPAND || n->op == WGC_OP_TILE) &&
           wgc_vrange_of_input0(g, n, y, out, count);
}

const wgc_op_def wgc_op_affine_gather = {
    .infer = affine_gather_infer,
    .fold = affine_gather_fold,
    .emit = affine_gather_emit,
    .sym = {.infer = affine_gather_sym_infer,
            .emit = affine_gather_sym_emit,
            .foldable = affine_gather_sym_foldable,
            .values = affine_gather_sym_values,
            .takes = affine_gather_sym_takes,
            .bounds = affine_gather_sym_bounds},
};

/* ---- sizes decided in the module ---- */

enum { STARTS = 1, ENDS = 2, AXES = 3, STEPS = 4 };

static bool runtime_input(const wgc_graph *g, const wgc_node *n, int i)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return false;
    const wgc_tensor *t = &g->tensors[n->inputs[i]];
    return !t->data && !t->symval;
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

/* Per entry, the ONNX clamping of affine_gather.c's plan, in the module: the length goes
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
