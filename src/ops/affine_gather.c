/*
 * affine_gather.c: data movement as one affine gather each (helpers/inline_loops.c: y[v] = x[base + v . strides]):
 * Expand, Tile, Slice, DepthToSpace, SpaceToDepth; and Size (always folded). Constant
 * inputs fold through the same view on the host (fold_map.c).
 * Shape-giving inputs here are constant: a Slice with run-time starts, ends or steps is
 * slice_runtime.c's, an Expand or Tile with a run-time shape or repeats
 * expand_tile_runtime.c's.
 */
#include <stdio.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/inline_loops.h"
#include "expand_tile_runtime.h"
#include "slice_runtime.h"

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

const wgc_op_def wgc_op_affine_gather = {affine_gather_infer, affine_gather_fold, affine_gather_emit, NULL};
