/*
 * affine_gather.c: data movement as one affine gather each (helpers/inline_loops.c: y[v] = x[base + v . strides]):
 * Expand, Tile, DepthToSpace, SpaceToDepth; and Size (always folded). Constant
 * inputs fold through the same view on the host (fold_map.c). Slice (slice.c) plans its
 * own view and shares the rest (affine_gather.h).
 * Shape-giving inputs here are constant, but for an Expand or Tile with a run-time shape
 * or repeats: the section "sizes decided in the module" (the end of this file).
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/index_loops.h"
#include "helpers/inline_loops.h"
#include "helpers/sym_code.h"
#include "affine_gather.h"
#include "sym.h"
#include "../common/dtype.h"
#include "helpers/emit_and_fold.h"

/*
 * Expand whose shape, and Tile whose repeats, are computed at run time (module ABI 2
 * "Run-time output dims"; a Tile of symbolic repeats runs this code too, its sizes
 * products of symbols, tile_sym_rule). The
 * output dims they decide are run-time symbols bounded through the values'
 * bounds (ir/valrange.h): an Expand dim by the larger of the input's dim and the shape
 * value's bound (a fixed input dim other than 1 stays fixed, and the value must be 1 or
 * that dim), a Tile dim by the input's dim times the repeat's bound. The module checks the
 * values (WGK_ERR_INDEX: negative, or not broadcasting) and each size against its bound
 * (WGK_ERR_SIZE_BOUND), writes the sizes into wg_dims and copies. Expand of symbolic
 * values (shape arithmetic) stays affine_gather_sym_infer's; constant parameters plan's.
 */
/* Is n an Expand with a shape, or a Tile with repeats, computed at run time? */
static bool wgc_expand_tile_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape for x's shape as it stands (symbolic dims hidden or not). */
static wg_status wgc_expand_tile_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y);
static wg_status wgc_expand_tile_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

/* Optional input i, when present, must be a constant integer tensor. */
wg_status wgc_affine_need_const(wgc_graph *g, const wgc_node *n, int i, const char *what)
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

int wgc_affine_view_begin(const wgc_tensor *x, wgc_affine_view *v, int64_t *xs)
{
    wgc_shape_strides(&x->shape, xs);
    memset(v, 0, sizeof *v);
    return x->shape.rank;
}

wg_status wgc_affine_fold_by(wgc_graph *g, wgc_node *n, wgc_affine_plan plan_of)
{
    wgc_affine_view v;
    wg_status st = plan_of(g, n, &v);
    return st ? st : wgc_affine_fold(g, n, &v);
}

wg_status wgc_affine_emit_by(wgc_emitter *e, wgc_graph *g, wgc_node *n, wgc_affine_plan plan_of)
{
    wgc_affine_view v;
    wg_status st = plan_of(g, n, &v);
    return st ? st : wgc_affine_emit(e, g, n, &v);
}

/* Expand's shape at the maxima where x and the shape values do not broadcast: each such
 * dim whose value is symbolic (shape arithmetic) and at least x's takes the value's size.
 * The sizes at the maxima prove nothing there (a causal [1, 1, seq, seq] mask expanded to
 * [batch, 1, seq, past + seq], which broadcasts where seq is 1 or past is 0):
 * expand_sym_rule decides with the symbols. Fixed sizes that differ are invalid. */
static wg_status expand_at_maxima(wgc_graph *g, const wgc_node *n, const wgc_shape *want,
                                  wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    const int r = want->rank > x->shape.rank ? want->rank : x->shape.rank;
    *y = (wgc_shape){.rank = r};
    for (int d = 0; d < r; d++) {
        const int xd = d - (r - x->shape.rank), sd = d - (r - want->rank);
        const int64_t a = xd >= 0 ? x->shape.dims[xd] : 1, b = sd >= 0 ? want->dims[sd] : 1;
        const wgc_dimx v = sd >= 0 ? wgc_symval_at(s, sd) : wgc_dimx_const(1);
        if (a == b || b == 1 || a == 1)
            y->dims[d] = a == 1 ? b : a;
        else if (!s->symval || wgc_dimx_is_const(&v))
            return wgc_error(g, n, WG_ERR_INVALID, "shape does not broadcast");
        else if (b > a)
            y->dims[d] = b;
        else
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "shape value %d (symbolic, %lld at the maxima) may be neither 1 nor "
                             "input dim %d (%lld at the maxima): the compiler cannot prove that "
                             "they broadcast", sd, (long long)b, xd, (long long)a);
    }
    return WG_OK;
}

/* The affine view of each op here (Slice's: slice.c). */
static wg_status plan(wgc_graph *g, const wgc_node *n, wgc_affine_view *v)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t xs[WG_MAX_RANK];
    const int rank = wgc_affine_view_begin(x, v, xs);
    wg_status st;
    switch (n->op) {
    case WGC_OP_EXPAND: {
        if (!wgc_in(g, n, 1))
            return wgc_error(g, n, WG_ERR_INVALID, "the 'shape' input is missing");
        if ((st = wgc_affine_need_const(g, n, 1, "shape")))
            return st;
        const wgc_tensor *s = wgc_in(g, n, 1);
        wgc_shape want = {0};
        want.rank = (int)wgc_numel(&s->shape);
        if (want.rank > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "rank %d", want.rank);
        for (int d = 0; d < want.rank; d++)
            want.dims[d] = wgc_const_int(s, d);
        if (!wgc_broadcast(&x->shape, &want, &v->y) && (st = expand_at_maxima(g, n, &want, &v->y)))
            return st;
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
        if ((st = wgc_affine_need_const(g, n, 1, "repeats")))
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

wg_status wgc_affine_infer(wgc_graph *g, wgc_node *n, const wgc_affine_view *v)
{
    wgc_set_output(g, n, 0, wgc_in(g, n, 0)->dtype, &v->y);
    return WG_OK;
}

/* the same affine view the module runs, evaluated on the host */
wg_status wgc_affine_fold(wgc_graph *g, wgc_node *n, const wgc_affine_view *v)
{
    return wgc_fold_affine(g, n, v->r, v->dims, v->st, v->base);
}

wg_status wgc_affine_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_affine_view *v)
{
    wg_status st = wgc_check_i32_numel(g, n, wgc_out(g, n, 0));
    if (!st)
        st = wgc_check_i32_numel(g, n, wgc_in(g, n, 0));
    if (st)
        return st;
    wgc_gen_affine(e, g, n->inputs[0], n->outputs[0], v->r, v->dims, v->st, v->base);
    return WG_OK;
}

static wg_status affine_gather_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, n->op == WGC_OP_SIZE ? 1 : n->op == WGC_OP_EXPAND || n->op == WGC_OP_TILE ? 2 : 1, wgc_gen_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (n->op == WGC_OP_SIZE) {
        wgc_shape s = {0};
        wgc_set_output(g, n, 0, WG_DT_INT64, &s);
        return WG_OK;
    }
    if (wgc_expand_tile_is_runtime(g, n)) {
        wgc_shape y;
        if ((st = wgc_expand_tile_runtime_shape(g, n, &y)))
            return st;
        wgc_set_output(g, n, 0, x->dtype, &y);
        return WG_OK;
    }
    wgc_affine_view v;
    if ((st = plan(g, n, &v)))
        return st;
    return wgc_affine_infer(g, n, &v);
}

static wg_status affine_gather_fold(wgc_graph *g, wgc_node *n)
{
    if (n->op != WGC_OP_SIZE)
        return wgc_affine_fold_by(g, n, plan);
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
    if (wgc_expand_tile_is_runtime(g, n))
        return wgc_expand_tile_runtime_emit(e, g, n);
    return wgc_affine_emit_by(e, g, n, plan);
}

/* ---- symbolic dims (sym.h) ---- */

/* Expand of symbolic shape values that do not broadcast against x's dims as symbols
 * (expand_at_maxima): a dim where x's size is at most the value's at every size in range
 * takes the value's, and the module checks that x's is 1 or that value
 * (affine_gather_sym_emit, WGK_ERR_INDEX otherwise): the causal mask of onnxruntime-genai's
 * float16 decoders, [1, 1, seq, seq] to [batch, 1, seq, past + seq], which is seq = 1 or
 * past = 0 at every step. Where nothing proves x's size at most the value's, refused. */
static wg_status expand_sym_rule(wgc_graph *g, wgc_node *n, const wgc_shape *s, wgc_shape *y)
{
    const wgc_shape *x = &wgc_in(g, n, 0)->shape;
    const int r = s->rank > x->rank ? s->rank : x->rank;
    for (int d = 0; d < r; d++) {
        const int xd = d - (r - x->rank), sd = d - (r - s->rank);
        const wgc_shape xs = {.rank = 1, .dims = {xd >= 0 ? x->dims[xd] : 1}};
        const wgc_shape ss = {.rank = 1, .dims = {sd >= 0 ? s->dims[sd] : 1}};
        wgc_shape xs1 = xs, ss1 = ss, o;
        if (xd >= 0)
            memcpy(xs1.sym[0], x->sym[xd], WGC_MAX_SYMS);
        if (sd >= 0)
            memcpy(ss1.sym[0], s->sym[sd], WGC_MAX_SYMS);
        if (wgc_broadcast(&xs1, &ss1, &o)) {
            memcpy(y->sym[d], o.sym[0], WGC_MAX_SYMS);
            continue;
        }
        wgc_dimx a = wgc_dimx_of(g, &xs1, 0);
        const wgc_dimx b = wgc_dimx_of(g, &ss1, 0);
        a.c = -a.c;
        if (wgc_dimx_sum_min(g, b, a) < 0 || y->dims[d] != ss.dims[0])
            return wgc_sym_refuse(g, n, "the shape broadcasts a symbolic dimension against "
                                        "another size");
        memcpy(y->sym[d], ss1.sym[0], WGC_MAX_SYMS);
    }
    return wgc_sym_set_out(g, n, 0, y);
}

/* Tile of constant or symbolic repeats (shape arithmetic: Whisper's decoder tiles its
 * [1, seq] positions by [batch, 1]) over x's symbolic dims: each output dim is x's
 * times its repeat, a product of monomials; wgc_expand_tile_runtime_emit computes the
 * sizes at run time as it does for repeats computed there, and decides no symbol. */
static wg_status tile_sym_rule(wgc_graph *g, wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *rp = wgc_in(g, n, 1);
    if (x->symval)
        return wgc_sym_refuse(g, n, "its input holds symbolic values");
    if (rp->dtype != WG_DT_INT64 || wgc_numel(&rp->shape) != x->shape.rank ||
        y->rank != x->shape.rank)
        return wgc_sym_refuse(g, n, NULL); /* (its infer hook refused such repeats) */
    for (int d = 0; d < y->rank; d++) {
        const wgc_dimx p = wgc_dimx_mul(wgc_dimx_of(g, &x->shape, d), wgc_symval_at(rp, d));
        if (p.c < 0)
            return wgc_sym_refuse(g, n, "a negative repeat");
        wgc_shape_set_dim(g, y, d, p);
    }
    return wgc_sym_set_out(g, n, 0, y);
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
    case WGC_OP_TILE:
        if (!wgc_expand_tile_is_runtime(g, n))
            return tile_sym_rule(g, n, &y);
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
            return expand_sym_rule(g, n, &s, &y);
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

/* Expand: y (dense at its actual dims) = x read with element strides, stride 0 where x
 * broadcasts. Tile: the code of repeats computed at run time (tile_sym_rule). */
static wg_status affine_gather_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (n->op == WGC_OP_TILE)
        return wgc_expand_tile_runtime_emit(e, g, n);
    if (n->op != WGC_OP_EXPAND)
        return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    int r = y->shape.rank;
    char base[160];
    wgc_sym_strided_begin(e, g, n, base, sizeof base);
    /* the dims expand_sym_rule gave the shape's size, not x's: x's must be 1 there (stride
     * 0) or that size, checked */
    const int lead = r - x->shape.rank; /* output dim d is x's d - lead */
    bool checked[WG_MAX_RANK] = {false}, any = false;
    for (int d = lead; d < r; d++) {
        const wgc_dimx a = wgc_dimx_of(g, &x->shape, d - lead), b = wgc_dimx_of(g, &y->shape, d);
        checked[d] = !wgc_dimx_eq(&a, &b) &&
                     (wgc_dim_is_sym(&x->shape, d - lead) || x->shape.dims[d - lead] != 1);
        any |= checked[d];
    }
    wgc_sym_put_strides(e, &x->shape, &y->shape, any ? "xs0" : "xs");
    if (any) {
        wgc_emit(e, "int32_t xs[%d];\nmemcpy(xs, xs0, sizeof xs);\n", r);
        for (int d = lead; d < r; d++)
            if (checked[d])
                wgc_emit(e, "{\nconst int32_t xd = %s;\nif (xd != 1 && xd != yd[%d])\n"
                            "    return WGK_ERR_INDEX;\nif (xd == 1)\n    xs[%d] = 0;\n}\n",
                         wgc_dims_expr(e, &x->shape, d - lead, d - lead + 1), d, d);
    }
    wgc_emit(e, "wgk_copy_strided(%s, %s, %zu, %d, yd, xs);\n}\n", wgc_ptr(e, g, n->outputs[0]), base,
             wg_dtype_size(x->dtype), r ? r : 1);
    return WG_OK;
}

/* Expand and Tile decide their sizes at run time where their own emit hooks read them
 * (the section "sizes decided in the module"); DepthToSpace and SpaceToDepth are per sample. */
static bool affine_gather_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    switch (t) {
    case WGC_DATA_DEPENDENT:
        if (n->op == WGC_OP_EXPAND || n->op == WGC_OP_TILE) /* read x's sizes at run time themselves */
            return wgc_expand_tile_is_runtime(g, n);
        return false;
    case WGC_PER_SAMPLE:
        return n->op == WGC_OP_DEPTH_TO_SPACE || n->op == WGC_OP_SPACE_TO_DEPTH;
    default:
        return false;
    }
}

/* Bounds of integer values computed at run time (ir/valrange.h): Expand and Tile give any
 * of input 0's values. */
static bool affine_gather_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                                     wgc_vrange *out, int64_t count)
{
    return (n->op == WGC_OP_EXPAND || n->op == WGC_OP_TILE) &&
           wgc_vrange_of_input0(g, n, y, out, count);
}

const wgc_op_def wgc_op_affine_gather = {
    .infer = affine_gather_infer,
    .fold = affine_gather_fold,
    .emit = affine_gather_emit,
    .sym = {.infer = affine_gather_sym_infer,
            .emit = affine_gather_sym_emit,
            .takes = affine_gather_sym_takes,
            .bounds = affine_gather_sym_bounds},
};

/* ---- sizes decided in the module ---- */

static bool wgc_expand_tile_is_runtime(const wgc_graph *g, const wgc_node *n)
{
    if ((n->op != WGC_OP_EXPAND && n->op != WGC_OP_TILE) || n->n_inputs < 2 || n->inputs[1] < 0)
        return false;
    return !g->tensors[n->inputs[1]].data;
}

/* The parameter (shape or repeats): an int64 vector of a fixed length. */
static wg_status check_param(wgc_graph *g, const wgc_node *n, const wgc_tensor *p)
{
    const int rank = wgc_in(g, n, 0)->shape.rank;
    if (p->dtype != WG_DT_INT64 || p->shape.rank != 1 || wgc_shape_is_sym(&p->shape))
        return wgc_error(g, n, WG_ERR_INVALID, "%s input '%s' must be a 1-D int64 tensor of a fixed length",
                         n->op == WGC_OP_EXPAND ? "shape" : "repeats", p->name);
    if (n->op == WGC_OP_TILE && p->shape.dims[0] != rank)
        return wgc_error(g, n, WG_ERR_INVALID, "repeats has %lld values for rank %d", (long long)p->shape.dims[0], rank);
    if (n->op == WGC_OP_EXPAND && p->shape.dims[0] > WG_MAX_RANK)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "rank %lld", (long long)p->shape.dims[0]);
    return WG_OK;
}

/* Output dim d's input dim (-1: none, Expand adding a leading dim). */
static int x_dim(const wgc_node *n, int out_rank, int x_rank, int d)
{
    return n->op == WGC_OP_TILE ? d : d - (out_rank - x_rank);
}

/* Does output dim d keep x's size? Expand: a fixed input dim other than 1, and a symbolic
 * one (the value must then be 1 or its size: a symbolic dim of size 1 is not broadcast to
 * a larger value, the run stops with WGK_ERR_INDEX instead). */
static bool dim_fixed(const wgc_node *n, const wgc_shape *x, int xd)
{
    return n->op == WGC_OP_EXPAND && xd >= 0 && (wgc_dim_is_sym(x, xd) || x->dims[xd] != 1);
}

/* Sizes are kept below 2^31 at their bounds (int32 in the module) */
#define SIZE_LIMIT ((int64_t)1 << 31)

static wg_status wgc_expand_tile_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *p = wgc_in(g, n, 1);
    wg_status st = check_param(g, n, p);
    if (st)
        return st;
    const int count = (int)p->shape.dims[0];
    const int r = n->op == WGC_OP_TILE || count < x->shape.rank ? x->shape.rank : count;
    memset(y, 0, sizeof *y);
    y->rank = r;
    for (int d = 0; d < r; d++) {
        const int xd = x_dim(n, r, x->shape.rank, d), k = n->op == WGC_OP_TILE ? d : d - (r - count);
        const int64_t xmax = xd >= 0 ? x->shape.dims[xd] : 1;
        if (k < 0) { /* Expand: a dim of x's the shape does not reach keeps its size */
            memcpy(y->sym[d], x->shape.sym[xd], WGC_MAX_SYMS);
            y->dims[d] = xmax;
            continue;
        }
        wgc_vrange v;
        if (!wgc_vrange_at(g, p, k, &v))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "%s input '%s' is computed at run time and nothing bounds its values, which decide "
                             "the size of output dim %d", n->op == WGC_OP_EXPAND ? "shape" : "repeats", p->name, d);
        if (dim_fixed(n, &x->shape, xd)) {
            memcpy(y->sym[d], x->shape.sym[xd], WGC_MAX_SYMS);
            y->dims[d] = xmax; /* the value must be 1 or x's size: checked in the module */
            continue;
        }
        int64_t hi = v.hi < 0 ? 0 : v.hi, bound;
        if (n->op == WGC_OP_EXPAND)
            bound = hi > xmax ? hi : xmax;
        else if (__builtin_mul_overflow(hi, xmax, &bound))
            bound = SIZE_LIMIT;
        if (bound >= SIZE_LIMIT)
            return wgc_error(g, n, WG_ERR_LIMIT, "output dim %d may reach %lld, past 2^31", d, (long long)bound);
        int sym;
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], d, bound, &sym)))
            return st;
        wgc_shape_set_runtime(y, d, sym, bound);
    }
    return WG_OK;
}

/* Per output dim: the value, checked; the size, checked against its bound, into yd and
 * wg_dims; x's size and stride at run time. Expand is then one strided copy (stride 0
 * where x broadcasts); Tile reads each element's source by the coordinates modulo x's. */
static wg_status wgc_expand_tile_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *p = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    wg_status st = check_param(g, n, p);
    if (!st)
        st = wgc_check_i32_numel(g, n, y);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    const int r = y->shape.rank, count = (int)p->shape.dims[0], cap = r ? r : 1;
    wgc_emit(e, "{\nint32_t yd[%d], xd[%d], xs[%d];\n", cap, cap, cap);
    for (int d = 0; d < r; d++) {
        const int xd = x_dim(n, r, x->shape.rank, d), k = n->op == WGC_OP_TILE ? d : d - (r - count);
        char vb[160];
        wgc_emit(e, "{\nconst int64_t xdim = %s, v = %s;\nint64_t len;\n",
                 xd >= 0 ? wgc_dims_expr(e, &x->shape, xd, xd + 1) : "1",
                 k >= 0 ? wgc_int_elem_expr(e, g, n->inputs[1], k, vb, sizeof vb) : "1");
        if (n->op == WGC_OP_TILE)
            wgc_emit(e, "if (v < 0 || v > %lldLL)\n    return WGK_ERR_INDEX;\nlen = xdim * v;\n", (long long)SIZE_LIMIT);
        else if (dim_fixed(n, &x->shape, xd))
            wgc_emit(e, "if (v != 1 && v != xdim)\n    return WGK_ERR_INDEX;\nlen = xdim;\n");
        else /* x's dim is 1, or there is none */
            wgc_emit(e, "if (v < 0)\n    return WGK_ERR_INDEX;\nlen = v;\n");
        const int sym = wgc_shape_first_sym(&y->shape, d);
        if (k >= 0 && !dim_fixed(n, &x->shape, xd)) {
            wgc_emit(e, "if (len > %lldLL)\n    return WGK_ERR_SIZE_BOUND;\n", (long long)y->shape.dims[d]);
            /* (a Tile of symbolic repeats decides no symbol: tile_sym_rule's products) */
            if (sym >= 0 && wgc_expand_tile_is_runtime(g, n))
                wgc_emit(e, "wg_dims[%d] = (int32_t)len;\n", sym);
        }
        wgc_emit(e, "yd[%d] = (int32_t)len; xd[%d] = (int32_t)xdim; xs[%d] = %s;\n}\n", d, d, d,
                 xd < 0 ? "0" : wgc_dims_expr(e, &x->shape, xd + 1, x->shape.rank));
    }
    const size_t es = wg_dtype_size(x->dtype);
    if (n->op == WGC_OP_EXPAND) {
        wgc_emit(e, "for (int d = 0; d < %d; d++)\n    if (xd[d] == 1)\n        xs[d] = 0;\n", r);
        wgc_emit(e, "wgk_copy_strided(%s, %s, %zu, %d, yd, xs);\n}\n", wgc_ptr(e, g, n->outputs[0]),
                 wgc_ptr(e, g, n->inputs[0]), es, cap);
        return WG_OK;
    }
    wgc_emit(e, "typedef %s TD;\nconst TD *px = (const TD *)%s;\nTD *py = (TD *)%s;\nint32_t total = 1;\n"
                "for (int d = 0; d < %d; d++)\n    total *= yd[d];\n"
                "for (int32_t o = 0; o < total; o++) {\n    int32_t rem = o, off = 0;\n"
                "    for (int d = %d; d >= 0; d--) {\n        const int32_t c = rem %% yd[d];\n"
                "        rem /= yd[d];\n        off += c %% xd[d] * xs[d];\n    }\n    py[o] = px[off];\n}\n}\n",
             wgc_loop_bits(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), r, r - 1);
    return WG_OK;
}
