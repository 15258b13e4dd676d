/*
 * sym_infer.c: symbolic dimensions through the ops (compile --dim; symdim.h).
 *
 * The op's own infer hook runs first, at the symbols' maxima: it checks attributes and
 * dtypes and gives every output its size at the maxima. wgc_sym_infer then gives the
 * outputs their symbolic dimensions by the op's rule below, or refuses the node, naming
 * it and the symbol: an op without a rule here never sees a symbolic dimension, so none
 * computes a wrong size. wgc_sym_fold does the same for the folded shape arithmetic
 * (Shape -> Gather -> Unsqueeze -> Concat -> Reshape ...): values that depend on symbols
 * are carried as monomials (wgc_tensor.symval) next to their values at the maxima.
 */
#include "sym.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/read_axes.h"
#include "control_flow.h"
#include "expand_tile_runtime.h"
#include "pad_runtime.h"
#include "range.h"
#include "resize_runtime.h"
#include "slice_runtime.h"

static bool has_symval_input(const wgc_graph *g, const wgc_node *n, int *which)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].symval) {
            *which = k;
            return true;
        }
    return false;
}

static bool has_sym_input(const wgc_graph *g, const wgc_node *n, int *which)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && wgc_shape_is_sym(&g->tensors[n->inputs[k]].shape)) {
            *which = k;
            return true;
        }
    return false;
}

bool wgc_sym_node(const wgc_graph *g, const wgc_node *n)
{
    int k;
    if (has_sym_input(g, n, &k) || has_symval_input(g, n, &k))
        return true;
    for (int i = 0; i < n->n_outputs; i++)
        if (n->outputs[i] >= 0 && wgc_shape_is_sym(&g->tensors[n->outputs[i]].shape))
            return true;
    return false;
}

/* The first symbol input k depends on (-1: none). */
static int sym_index_of_input(const wgc_graph *g, const wgc_node *n, int k)
{
    const wgc_tensor *x = wgc_in((wgc_graph *)g, n, k);
    int s = wgc_shape_first_sym(&x->shape, -1);
    if (s < 0 && x->symval)
        for (int64_t i = 0; s < 0 && i < wgc_numel(&x->shape); i++)
            for (int j = 0; j < WGC_MAX_SYMS && s < 0; j++)
                if (x->symval[i].p[j])
                    s = j;
    return s;
}

wg_status wgc_sym_refuse(wgc_graph *g, const wgc_node *n, const char *why)
{
    int k = 0;
    if (!has_sym_input(g, n, &k))
        has_symval_input(g, n, &k);
    const wgc_tensor *x = k < n->n_inputs ? wgc_in(g, n, k) : NULL;
    int s = x ? sym_index_of_input(g, n, k) : -1;
    if (s >= 0 && g->syms[s].derived && g->syms[g->syms[s].from].unit == s)
        s = g->syms[s].from; /* a multiple's unit: the host's symbol itself */
    if (s >= 0 && g->syms[s].derived)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "input '%s' has a dimension that a sliding window computes from symbolic dimension "
                         "'%s' (--dim), which this op does not support%s%s; fix the dimension with --shape",
                         x->name, g->syms[g->syms[s].from].name, why ? ": " : " yet", why ? why : "");
    if (s >= 0 && g->syms[s].runtime)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "input '%s' has a data-dependent size (dimension %d of '%s', known only at "
                         "run time), which this op does not support%s%s",
                         x->name, g->syms[s].dim, g->tensors[g->syms[s].tensor].name,
                         why ? ": " : " yet", why ? why : "");
    return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                     "input '%s' depends on symbolic dimension '%s' (--dim), which this op does "
                     "not support%s%s; fix the dimension with --shape",
                     x ? x->name : "?", s >= 0 ? g->syms[s].name : "?", why ? ": " : " yet", why ? why : "");
}

/* The ops whose outputs have the same shape as input 0. */
static bool same_shape_op(wgc_op op)
{
    switch (op) {
    case WGC_OP_CAST: case WGC_OP_ERF: case WGC_OP_TANH: case WGC_OP_SQRT: case WGC_OP_RELU:
    case WGC_OP_SIGMOID: case WGC_OP_NEG: case WGC_OP_EXP: case WGC_OP_SOFTMAX:
    case WGC_OP_LAYER_NORM: case WGC_OP_IDENTITY: case WGC_OP_GELU: case WGC_OP_RECIPROCAL:
    case WGC_OP_ABS: case WGC_OP_NOT:
        return true;
    default:
        return false;
    }
}

bool wgc_sym_runs_at_maxima(const wgc_graph *g, const wgc_node *n)
{
    extern const wgc_op_def wgc_op_elementwise_unary;
    if (wgc_op_hooks(n->op) != &wgc_op_elementwise_unary && n->op != WGC_OP_CLIP)
        return false;
    for (int k = 1; k < n->n_inputs; k++) /* Clip's bounds: scalars of fixed size */
        if (n->inputs[k] >= 0 && (wgc_shape_is_sym(&g->tensors[n->inputs[k]].shape) ||
                                  g->tensors[n->inputs[k]].symval))
            return false;
    return n->n_outputs == 1 && n->inputs[0] >= 0 && !g->tensors[n->inputs[0]].symval;
}

bool wgc_sym_binary_op(wgc_op op)
{
    switch (op) {
    case WGC_OP_ADD: case WGC_OP_SUB: case WGC_OP_MUL: case WGC_OP_DIV: case WGC_OP_POW:
    case WGC_OP_EQUAL: case WGC_OP_WHERE: case WGC_OP_AND: case WGC_OP_OR: case WGC_OP_LESS:
    case WGC_OP_GREATER: case WGC_OP_LESS_OR_EQUAL: case WGC_OP_GREATER_OR_EQUAL: case WGC_OP_XOR:
    case WGC_OP_MAX: case WGC_OP_MIN: case WGC_OP_IS_NAN: case WGC_OP_NOT: case WGC_OP_MOD:
        return true;
    default:
        return false;
    }
}

/* The symbolic output shape computed by a rule must agree with the op's own at the maxima. */
static wg_status set_out(wgc_graph *g, const wgc_node *n, int i, const wgc_shape *s)
{
    wgc_tensor *y = wgc_out(g, n, i);
    char a[128], b[128];
    if (!y)
        return WG_OK;
    if (s->rank != y->shape.rank || memcmp(s->dims, y->shape.dims, sizeof(int64_t) * (size_t)s->rank))
        return wgc_error(g, n, WG_ERR_INVALID,
                         "symbolic shape %s of output '%s' disagrees with %s at the maxima "
                         "(internal error)", wgc_shape_str(s, a, sizeof a), y->name,
                         wgc_shape_str(&y->shape, b, sizeof b));
    y->shape = *s;
    return WG_OK;
}

static wgc_shape with_dims(const wgc_shape *s)
{
    wgc_shape r = *s;
    memset(r.sym, 0, sizeof r.sym);
    return r;
}

/* Reshape, Unsqueeze, Squeeze, Flatten of a symbolic tensor: the dims of the output at the
 * maxima are matched to the input's in order, each symbolic input dim with one output dim
 * of its size; fixed dims regroup freely between them. Refused when a symbolic dim would
 * merge with or split from another. */
static wg_status regroup(wgc_graph *g, const wgc_node *n, const wgc_shape *x, wgc_shape *y)
{
    int j = 0;
    for (int d = 0; d < x->rank; d++) {
        if (!wgc_dim_is_sym(x, d))
            continue;
        /* the fixed product before d in x must be matched by y's before its slot */
        int64_t px = 1, py = 1;
        for (int i = 0; i < d; i++)
            px *= x->dims[i];
        int slot = -1;
        for (int i = 0; i < y->rank; i++) {
            if (py == px && y->dims[i] == x->dims[d] && i >= j) {
                slot = i;
                break;
            }
            py *= y->dims[i];
        }
        if (slot < 0)
            return wgc_sym_refuse(g, n, "the reshape merges or splits a symbolic dimension");
        memcpy(y->sym[slot], x->sym[d], WGC_MAX_SYMS);
        j = slot + 1;
    }
    return WG_OK;
}

/* Reshape whose shape input holds symbolic values: its entries, 0 copying the input dim
 * and -1 the rest of the element count (an exact monomial quotient). */
static wg_status reshape_symval(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    wgc_dimx total = wgc_dimx_const(1), known = wgc_dimx_const(1);
    for (int d = 0; d < x->shape.rank; d++)
        total = wgc_dimx_mul(total, wgc_dimx_of(g, &x->shape, d));
    int infer_at = -1;
    bool allowzero = wgc_attr_int(n, "allowzero", 0) != 0;
    for (int i = 0; i < y->rank; i++) {
        wgc_dimx v = wgc_symval_at(s, i);
        if (wgc_dimx_is_const(&v) && v.c == 0 && !allowzero)
            v = wgc_dimx_of(g, &x->shape, i);
        if (wgc_dimx_is_const(&v) && v.c == -1) {
            infer_at = i;
            continue;
        }
        wgc_shape_set_dim(g, y, i, v);
        known = wgc_dimx_mul(known, v);
    }
    if (infer_at >= 0) {
        wgc_dimx q;
        if (!wgc_dimx_div(total, known, &q))
            return wgc_sym_refuse(g, n, "the -1 of its shape is not a product of the symbols");
        wgc_shape_set_dim(g, y, infer_at, q);
    } else {
        wgc_dimx q;
        if (!wgc_dimx_div(total, known, &q) || !wgc_dimx_eq(&q, &(wgc_dimx){.c = 1}))
            return wgc_sym_refuse(g, n, "its shape does not hold the input's element count at every size");
    }
    return WG_OK;
}

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
             * slice_runtime.c computes by ONNX's clamping. A slice's length never shrinks
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

/* A shape given by a (symbolic) 1-D value tensor. */
static void shape_of_values(const wgc_graph *g, const wgc_tensor *v, wgc_shape *s)
{
    s->rank = (int)wgc_numel(&v->shape);
    for (int i = 0; i < s->rank; i++)
        wgc_shape_set_dim(g, s, i, wgc_symval_at(v, i));
}

wg_status wgc_sym_reduce_axes(wgc_graph *g, const wgc_node *n, int *a0, int *a1)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = x->shape.rank;
    size_t cnt = 0;
    const int64_t *ax = wgc_attr_ints(n, "axes", &cnt);
    const wgc_tensor *at = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    if (!ax && at && at->data && !at->symval)
        cnt = (size_t)wgc_numel(&at->shape);
    else if (!ax)
        cnt = 0;
    if (cnt < 1 || cnt > (size_t)r || x->symval || wgc_attr_int(n, "noop_with_empty_axes", 0))
        return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
    bool seen[WG_MAX_RANK] = {false};
    for (size_t i = 0; i < cnt; i++) {
        int64_t a = ax ? ax[i] : wgc_const_int(at, (int64_t)i);
        a = a < 0 ? a + r : a;
        if (a < 0 || a >= r || seen[a])
            return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
        seen[a] = true;
    }
    int lo = 0;
    while (!seen[lo])
        lo++;
    int hi = lo;
    while (hi < r && seen[hi])
        hi++;
    if (hi - lo != (int)cnt)
        return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
    *a0 = lo;
    *a1 = hi;
    return WG_OK;
}

/* Unique over a symbolic input: Y keeps x's dims but the axis (the unique count, its own
 * run-time symbol from unique.c; flattened: [count]), indices and counts are [count], the
 * inverse indices one per slice: x's axis length, or its element count. */
static wg_status unique_rule(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int k, axis = -1;
    if (has_symval_input(g, n, &k))
        return wgc_sym_refuse(g, n, "an input holding symbolic values");
    const wgc_attr *ax = wgc_attr_find(n, "axis");
    if (ax)
        axis = (int)(ax->i < 0 ? ax->i + x->shape.rank : ax->i);
    wg_status st;
    wgc_tensor *y = wgc_out(g, n, 0), *inv = n->n_outputs > 2 ? wgc_out(g, n, 2) : NULL;
    if (y && axis >= 0) {
        wgc_shape o = y->shape;
        for (int d = 0; d < o.rank; d++)
            if (d != axis)
                memcpy(o.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
        if ((st = set_out(g, n, 0, &o)))
            return st;
    }
    if (inv) {
        wgc_shape o = inv->shape;
        wgc_dimx len = wgc_dimx_const(1);
        for (int d = axis < 0 ? 0 : axis; d < (axis < 0 ? x->shape.rank : axis + 1); d++)
            len = wgc_dimx_mul(len, wgc_dimx_of(g, &x->shape, d));
        wgc_shape_set_dim(g, &o, 0, len);
        if ((st = set_out(g, n, 2, &o)))
            return st;
    }
    return WG_OK;
}

/* The run-time total of an earlier Concat in n's body whose inputs have the same sizes
 * along the axis, in order (SSD concatenates its per-class boxes, scores and labels: one
 * total for the three), or -1. Both Concats write it (sym_emit.c), the same value. */
static int concat_total_sym(wgc_graph *g, const wgc_node *n, int axis)
{
    for (int s = wgc_sym_n_host(g); s < g->n_syms; s++) {
        const wgc_symbol *k = &g->syms[s];
        if (k->derived)
            continue;
        const int pi = g->tensors[k->tensor].producer;
        if (!k->runtime || k->dim != axis || pi < 0 || &g->nodes[pi] == n)
            continue;
        const wgc_node *p = &g->nodes[pi];
        bool same = p->op == WGC_OP_CONCAT && p->region == n->region && p->n_inputs == n->n_inputs;
        for (int i = 0; same && i < n->n_inputs; i++) {
            if ((p->inputs[i] < 0) != (n->inputs[i] < 0))
                same = false;
            else if (n->inputs[i] >= 0) {
                const wgc_shape *a = &g->tensors[p->inputs[i]].shape, *b = &g->tensors[n->inputs[i]].shape;
                wgc_dimx da = wgc_dimx_of(g, a, axis), db = wgc_dimx_of(g, b, axis);
                same = wgc_dimx_eq(&da, &db); /* along the axis only: [k, 4] boxes, [k] scores */
            }
        }
        if (same)
            return s;
    }
    return -1;
}

/* Is tensor t a graph output or read by a live node? */
static bool tensor_read(const wgc_graph *g, int t)
{
    if (g->tensors[t].is_output)
        return true;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; !g->nodes[i].dead && k < g->nodes[i].n_inputs; k++)
            if (g->nodes[i].inputs[k] == t)
                return true;
    return false;
}

static wg_status runtime_rule(wgc_graph *g, wgc_node *n)
{
    if (n->op == WGC_OP_UNIQUE) /* any of its outputs may be the one read */
        return unique_rule(g, n);
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0 && n->op == WGC_OP_TOP_K)
        y0 = wgc_out(g, n, 1); /* its indices alone: the same shape */
    if (!y0)
        return WG_OK;
    wgc_shape y = with_dims(&y0->shape);
    wg_status st;
    int k;
    if (n->op == WGC_OP_DROPOUT) { /* inference: the input itself (remove_identity.c) */
        if (n->n_outputs > 1 && n->outputs[1] >= 0 && tensor_read(g, n->outputs[1]))
            return wgc_sym_refuse(g, n, "its mask output, read by the graph");
        y = x->shape;
        return set_out(g, n, 0, &y);
    }
    if (same_shape_op(n->op) || wgc_sym_runs_at_maxima(g, n)) {
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, NULL);
        if (n->op == WGC_OP_SOFTMAX || n->op == WGC_OP_LAYER_NORM) {
            /* the normalised axes are fixed (the kernels take their length as a constant) */
            int axis;
            if ((st = wgc_read_axis(g, n, n->op == WGC_OP_SOFTMAX && n->opset < 13 ? 1 : -1,
                                    x->shape.rank, &axis)))
                return st;
            if (wgc_shape_first_sym(&x->shape, x->shape.rank - 1) >= 0 && n->op == WGC_OP_LAYER_NORM)
                return wgc_sym_refuse(g, n, "it normalises over a symbolic axis");
            if (n->op == WGC_OP_SOFTMAX && axis != x->shape.rank - 1 && n->opset >= 13)
                return wgc_sym_refuse(g, n, "only the last axis");
            if (n->op == WGC_OP_LAYER_NORM && axis != x->shape.rank - 1)
                return wgc_sym_refuse(g, n, "only the last axis");
            /* before opset 13: the rows are dims [0, axis) flattened, each of dims
             * [axis, rank), of a length read at run time like the last axis's (sym_emit.c
             * emit_softmax) */
            for (int i = 1; i < n->n_inputs; i++)
                if (n->inputs[i] >= 0 && wgc_shape_is_sym(&wgc_in(g, n, i)->shape))
                    return wgc_sym_refuse(g, n, "symbolic scale or bias");
            for (int i = 1; i < n->n_outputs; i++)
                if (n->outputs[i] >= 0)
                    return wgc_sym_refuse(g, n, "its mean and inverse-deviation outputs");
        }
        y = x->shape;
        return set_out(g, n, 0, &y);
    }
    if (wgc_sym_batch_op(g, n)) {
        for (int i = 0; i < n->n_outputs; i++) {
            if (n->outputs[i] < 0)
                continue;
            wgc_shape o = with_dims(&wgc_out(g, n, i)->shape);
            if ((st = wgc_sym_batch_infer(g, n, &o, i)) || (st = set_out(g, n, i, &o)))
                return st;
        }
        return WG_OK;
    }
    if (wgc_sym_window_op(g, n)) {
        if ((st = wgc_sym_window_infer(g, n, &y)))
            return st;
        return set_out(g, n, 0, &y);
    }
    if (wgc_sym_binary_op(n->op)) {
        /* an operand holding symbolic values is written at its actual values where the
         * node runs (sym_emit.c operand) */
        wgc_shape b = x->shape;
        for (int i = 1; i < n->n_inputs; i++)
            if (!wgc_broadcast(&b, &wgc_in(g, n, i)->shape, &b))
                return wgc_sym_refuse(g, n, "its operands broadcast a symbolic dimension against a "
                                            "fixed one or another symbol");
        return set_out(g, n, 0, &b);
    }
    switch (n->op) {
    case WGC_OP_NON_ZERO:
        /* [rank, count]: the count is its own run-time symbol (nonzero.c, bounded at the
         * maxima), whatever the input's sizes; the code reads them at run time */
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        return WG_OK;
    case WGC_OP_NON_MAX_SUPPRESSION: {
        /* [count, 3], count its own run-time symbol (nms.c); boxes [B, N, 4] and scores
         * [B, C, N] must agree at every size, not only at the maxima */
        const wgc_tensor *sc = wgc_in(g, n, 1);
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        if (memcmp(x->shape.sym[0], sc->shape.sym[0], WGC_MAX_SYMS) ||
            memcmp(x->shape.sym[1], sc->shape.sym[2], WGC_MAX_SYMS) || wgc_dim_is_sym(&x->shape, 2))
            return wgc_sym_refuse(g, n, "boxes and scores whose batch or box counts are different symbols");
        return WG_OK;
    }
    case WGC_OP_COMPRESS: {
        /* a run-time condition only (a constant one over a symbolic axis would keep
         * positions the axis may not have): the kept length is its own run-time symbol
         * (compress.c), the other dims are x's */
        const wgc_tensor *c = wgc_in(g, n, 1);
        if (c->data || c->symval)
            return wgc_sym_refuse(g, n, "a constant condition");
        wgc_shape o = y0->shape;
        if (wgc_attr_find(n, "axis")) {
            int axis;
            if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &axis)))
                return st;
            for (int d = 0; d < o.rank; d++)
                if (d != axis)
                    memcpy(o.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
        }
        return set_out(g, n, 0, &o);
    }
    case WGC_OP_TOP_K: {
        /* x's dims but the axis, which is k: a constant over a fixed axis, or k's own
         * run-time symbol (topk.c) over any axis, checked against its length at run time */
        if (has_symval_input(g, n, &k))
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
        if ((st = set_out(g, n, 0, &o)))
            return st;
        return set_out(g, n, 1, &o);
    }
    case WGC_OP_MATMUL: {
        const wgc_tensor *b = wgc_in(g, n, 1);
        if (x->shape.rank < 2 || b->shape.rank < 2)
            return wgc_sym_refuse(g, n, "1-D operands");
        int ra = x->shape.rank, rb = b->shape.rank;
        wgc_shape ba = {.rank = ra - 2}, bb = {.rank = rb - 2}, bo;
        for (int d = 0; d < ra - 2; d++) {
            ba.dims[d] = x->shape.dims[d];
            memcpy(ba.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
        }
        for (int d = 0; d < rb - 2; d++) {
            bb.dims[d] = b->shape.dims[d];
            memcpy(bb.sym[d], b->shape.sym[d], WGC_MAX_SYMS);
        }
        if (!wgc_broadcast(&ba, &bb, &bo))
            return wgc_sym_refuse(g, n, "its batch dimensions broadcast a symbolic one");
        if (memcmp(x->shape.sym[ra - 1], b->shape.sym[rb - 2], WGC_MAX_SYMS))
            return wgc_sym_refuse(g, n, "the shared dimension K is symbolic in one operand only");
        if (rb > 2 && wgc_shape_is_sym(&bb) && ra != rb)
            return wgc_sym_refuse(g, n, "a symbolic batch of B");
        for (int d = 0; d < bo.rank; d++)
            memcpy(y.sym[d], bo.sym[d], WGC_MAX_SYMS);
        memcpy(y.sym[y.rank - 2], x->shape.sym[ra - 2], WGC_MAX_SYMS);
        memcpy(y.sym[y.rank - 1], b->shape.sym[rb - 1], WGC_MAX_SYMS);
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_GEMM: {
        /* A [M, K] with M symbolic (transA 0), B and C fixed: y [M, N] */
        if (wgc_attr_int(n, "transA", 0) || x->shape.rank != 2 || wgc_dim_is_sym(&x->shape, 1))
            return wgc_sym_refuse(g, n, "only a symbolic M of an untransposed A");
        for (int i = 1; i < n->n_inputs; i++)
            if (n->inputs[i] >= 0 && (wgc_shape_is_sym(&wgc_in(g, n, i)->shape) || wgc_in(g, n, i)->symval))
                return wgc_sym_refuse(g, n, "a symbolic B or C");
        memcpy(y.sym[0], x->shape.sym[0], WGC_MAX_SYMS);
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_TRANSPOSE: {
        size_t cnt;
        const int64_t *perm = wgc_attr_ints(n, "perm", &cnt);
        for (int d = 0; d < y.rank; d++) {
            int p = perm ? (int)perm[d] : y.rank - 1 - d;
            memcpy(y.sym[d], x->shape.sym[p], WGC_MAX_SYMS);
        }
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_RESHAPE: {
        /* a shape input, constant or symbolic: its -1 is what is left of the symbolic
         * element count, and a shape that holds it only at the maxima is refused */
        const wgc_tensor *s = wgc_in(g, n, 1);
        if (s && s->data) {
            if ((st = reshape_symval(g, n, &y)))
                return st;
        } else if ((st = regroup(g, n, &x->shape, &y))) {
            return st;
        }
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_FLATTEN: {
        /* [prod(dims before axis), prod(the rest)]: products of symbols are dims too (the
         * padding masks of transformers' masking_utils flatten [batch, seq]) */
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, "symbolic values");
        int64_t a = wgc_attr_int(n, "axis", 1);
        if (a < 0)
            a += x->shape.rank;
        wgc_dimx p[2] = {wgc_dimx_const(1), wgc_dimx_const(1)};
        for (int d = 0; d < x->shape.rank; d++)
            p[d >= a] = wgc_dimx_mul(p[d >= a], wgc_dimx_of(g, &x->shape, d));
        wgc_shape_set_dim(g, &y, 0, p[0]);
        wgc_shape_set_dim(g, &y, 1, p[1]);
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_UNSQUEEZE: case WGC_OP_SQUEEZE:
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, "symbolic axes");
        /* regroup refuses a squeezed symbolic dim: its size may be other than 1 */
        if ((st = regroup(g, n, &x->shape, &y)))
            return st;
        return set_out(g, n, 0, &y);
    case WGC_OP_GATHER: {
        const wgc_tensor *ix = wgc_in(g, n, 1);
        int axis;
        if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &axis)))
            return st;
        /* along a symbolic axis too: the code checks the indices against its actual length */
        int r = 0;
        for (int d = 0; d < axis; d++, r++)
            memcpy(y.sym[r], x->shape.sym[d], WGC_MAX_SYMS);
        for (int d = 0; d < ix->shape.rank; d++, r++)
            memcpy(y.sym[r], ix->shape.sym[d], WGC_MAX_SYMS);
        for (int d = axis + 1; d < x->shape.rank; d++, r++)
            memcpy(y.sym[r], x->shape.sym[d], WGC_MAX_SYMS);
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_SLICE:
        if (wgc_slice_is_runtime(g, n)) {
            /* its infer hook gave the sliced axes their run-time symbols; x's elsewhere */
            wgc_shape o = y0->shape;
            if ((st = wgc_slice_runtime_keep_syms(g, n, &o)))
                return st;
            return set_out(g, n, 0, &o);
        }
        if (n->opset < 10)
            return wgc_sym_refuse(g, n, "Slice before opset 10");
        if ((st = slice_rule(g, n, &y)))
            return st;
        return set_out(g, n, 0, &y);
    case WGC_OP_ROI_ALIGN: {
        /* rois [R, 4] and batch_indices [R] of one symbolic or run-time count (a detector's
         * proposals); the feature map fixed: y is [R, C, oh, ow] (roi_align.c loops over R) */
        const wgc_tensor *r = wgc_in(g, n, 1), *b = wgc_in(g, n, 2);
        if (has_symval_input(g, n, &k) || wgc_shape_is_sym(&x->shape) || wgc_dim_is_sym(&r->shape, 1) ||
            r->shape.dims[0] != b->shape.dims[0] || memcmp(r->shape.sym[0], b->shape.sym[0], WGC_MAX_SYMS))
            return wgc_sym_refuse(g, n, "only rois and batch indices of one symbolic count over a fixed feature map");
        memcpy(y.sym[0], r->shape.sym[0], WGC_MAX_SYMS);
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_PAD: /* symbolic axes padded become run-time sizes (pad_runtime.c) */
        if (x->symval)
            return wgc_sym_refuse(g, n, "its input holds symbolic values");
        if ((st = wgc_pad_runtime_shape(g, n, &y)))
            return st;
        return set_out(g, n, 0, &y);
    case WGC_OP_RESIZE: case WGC_OP_UPSAMPLE: /* sizes from the actual dims (resize_runtime.c) */
        if (x->symval)
            return wgc_sym_refuse(g, n, "its input holds symbolic values");
        if ((st = wgc_resize_runtime_shape(g, n, &y)))
            return st;
        return set_out(g, n, 0, &y);
    case WGC_OP_CONSTANT_OF_SHAPE:
        shape_of_values(g, x, &y);
        return set_out(g, n, 0, &y);
    case WGC_OP_SPLIT: {
        /* along a fixed axis (GPT-2's qkv split): every part keeps x's other dims */
        int a;
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, "symbolic values");
        if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &a)))
            return st;
        if (wgc_dim_is_sym(&x->shape, a))
            return wgc_sym_refuse(g, n, "a split along a symbolic axis");
        for (int i = 0; i < n->n_outputs; i++) {
            const wgc_tensor *yi = wgc_out(g, n, i);
            if (!yi)
                continue;
            wgc_shape o = with_dims(&yi->shape);
            for (int d = 0; d < o.rank; d++)
                if (d != a)
                    memcpy(o.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
            if ((st = set_out(g, n, i, &o)))
                return st;
        }
        return WG_OK;
    }
    case WGC_OP_CUM_SUM: {
        /* x's dims, along a constant axis of any size (RoBERTa's position ids) */
        const wgc_tensor *ax = wgc_in(g, n, 1);
        if (has_symval_input(g, n, &k) || !ax || !ax->data)
            return wgc_sym_refuse(g, n, "an axis that is not a constant");
        y = x->shape;
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_BODY_BEGIN: {
        /* a Loop's or Scan's body inputs take the initial values' shapes, symbolic dims
         * included (an If's branches read no initial values) */
        const int e = wgc_body_end(g, (int)(n - g->nodes));
        const wgc_node *own = e >= 0 ? &g->nodes[e] : NULL;
        wgc_cf_layout l;
        if (own && own->op == WGC_OP_SCAN && (st = wgc_cf_layout_of(g, own, &l)))
            return st;
        /* the carried values first (a Scan's scan inputs, after them, below) */
        const int n_checked = own && own->op == WGC_OP_SCAN ? l.first_state + l.n_state : n->n_inputs;
        for (int i = own && own->op == WGC_OP_LOOP ? 2 : 0; own && own->op != WGC_OP_IF && i < n_checked; i++) {
            const wgc_tensor *v = n->inputs[i] >= 0 ? &g->tensors[n->inputs[i]] : NULL;
            if (!v || !wgc_shape_is_sym(&v->shape))
                continue;
            /* a carried value of symbolic dims (a state [batch, h]): the body's input takes
             * them, so the body runs at the actual sizes */
            if (wgc_shape_runtime_sym(g, &v->shape) >= 0 || (own->op == WGC_OP_SCAN && l.lens))
                return wgc_sym_refuse(g, own, "a Loop's or Scan's initial value of a run-time size, or a "
                                              "Scan-8's of symbolic dims");
            wgc_shape o = v->shape;
            if ((st = set_out(g, n, own->op == WGC_OP_SCAN ? i - l.first_state : i, &o)))
                return st;
        }
        /* a Scan's scan elements: the inputs' dims but the scan axis, symbolic ones too */
        for (int k = 0; own && own->op == WGC_OP_SCAN && !l.lens && k < l.n_scan_in; k++) {
            const wgc_tensor *x = &g->tensors[n->inputs[n_checked + k]];
            const wgc_tensor *el = wgc_out(g, n, l.n_state + k);
            if (!el || !wgc_shape_is_sym(&x->shape))
                continue;
            int axis;
            if ((st = wgc_cf_scan_input_axis(g, own, k, x->shape.rank, &axis)))
                return st;
            wgc_shape o = el->shape;
            for (int d = 0, j = 0; d < x->shape.rank; d++)
                if (d != axis)
                    memcpy(o.sym[j++], x->shape.sym[d], WGC_MAX_SYMS);
            if ((st = set_out(g, n, l.n_state + k, &o)))
                return st;
        }
        return WG_OK;
    }
    case WGC_OP_IF: case WGC_OP_BODY_ELSE: case WGC_OP_LOOP: case WGC_OP_SCAN:
        /* the outputs take the bodies' sizes, and where branches or iterations may differ
         * a run-time size of their own (control_flow.c: if_infer, loop_infer) */
        return WG_OK;
    case WGC_OP_REDUCE_MAX: case WGC_OP_REDUCE_MIN:
        /* over every axis (no axes given): one element whatever the sizes (batched_nms's
         * boxes.max(); SSD's min(topk_candidates, count) over symbolic values); sym_emit.c
         * loops over the actual count */
        if (wgc_attr_find(n, "axes") ||
            (n->n_inputs > 1 && n->inputs[1] >= 0) || wgc_attr_int(n, "noop_with_empty_axes", 0))
            return wgc_sym_refuse(g, n, "only a reduction over every axis");
        return set_out(g, n, 0, &y);
    case WGC_OP_REDUCE_MEAN: case WGC_OP_REDUCE_SUM: {
        /* over a run of consecutive axes (symbolic or not), keepdims either way */
        int a0, a1;
        if ((st = wgc_sym_reduce_axes(g, n, &a0, &a1)))
            return st;
        bool keep = wgc_attr_int(n, "keepdims", 1) != 0;
        for (int d = 0, o = 0; d < x->shape.rank; d++) {
            const bool reduced = d >= a0 && d < a1;
            if (reduced && !keep)
                continue;
            if (!reduced)
                memcpy(y.sym[o], x->shape.sym[d], WGC_MAX_SYMS);
            o++;
        }
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_CONCAT: {
        int axis;
        if (wgc_attr_int(n, "new_axis", 0))
            return wgc_sym_refuse(g, n, "stacking (ConcatFromSequence's new_axis) of symbolic sizes");
        if ((st = wgc_read_axis(g, n, 0, y.rank, &axis)))
            return st;
        wgc_dimx sum = wgc_dimx_const(0);
        bool summed = true;
        for (int k = 0; k < n->n_inputs; k++) {
            const wgc_tensor *p = wgc_in(g, n, k);
            if (!p)
                continue;
            if (p->symval && (y.rank != 1 || wgc_shape_is_sym(&y)))
                return wgc_sym_refuse(g, n, "symbolic values in other than a 1-D Concat of a fixed length");
            for (int d = 0; d < y.rank; d++)
                if (d != axis && (p->shape.dims[d] != x->shape.dims[d] ||
                                  memcmp(p->shape.sym[d], x->shape.sym[d], WGC_MAX_SYMS)))
                    return wgc_sym_refuse(g, n, "its inputs differ in a symbolic dimension");
            summed = summed && wgc_dimx_add(sum, wgc_dimx_of(g, &p->shape, axis), &sum);
        }
        for (int d = 0; d < y.rank; d++)
            memcpy(y.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
        if (summed) {
            wgc_shape_set_dim(g, &y, axis, sum);
        } else {
            /* sizes that add up to no product of symbols (SSD's per-class detections, each
             * its own TopK's count): the total is a run-time size of the Concat's own,
             * bounded by the sum of the bounds (sym_emit.c writes it) */
            int sym = concat_total_sym(g, n, axis);
            if (sym < 0 && (st = wgc_sym_add_runtime(g, n, n->outputs[0], axis, y.dims[axis], &sym)))
                return st;
            wgc_shape_set_runtime(&y, axis, sym, y.dims[axis]);
        }
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_RANGE: {
        const wgc_tensor *lim = wgc_in(g, n, 1), *d = wgc_in(g, n, 2);
        if (wgc_range_is_runtime(g, n))
            return WG_OK; /* a length decided in the module (range.c's infer gave it) */
        if (x->symval || d->symval || !x->data || !d->data || !lim->data)
            return wgc_sym_refuse(g, n, "only a symbolic limit");
        wgc_dimx l = wgc_symval_at(lim, 0);
        int64_t s0 = wgc_const_int(x, 0), step = wgc_const_int(d, 0);
        if (s0 != 0 || step != 1 || l.c < 1)
            return wgc_sym_refuse(g, n, "a symbolic limit needs start 0 and delta 1");
        wgc_shape_set_dim(g, &y, 0, l);
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_SCATTER_ELEMENTS: {
        /* y is data; indices and updates of one shape (symbolic or not; sym_emit.c reads
         * every size at run time) */
        const wgc_tensor *ix = wgc_in(g, n, 1), *u = wgc_in(g, n, 2);
        if (has_symval_input(g, n, &k) || ix->shape.rank != u->shape.rank)
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        for (int d = 0; d < ix->shape.rank; d++)
            if (ix->shape.dims[d] != u->shape.dims[d] || memcmp(ix->shape.sym[d], u->shape.sym[d], WGC_MAX_SYMS))
                return wgc_sym_refuse(g, n, "indices and updates of different symbolic shapes");
        y = x->shape;
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_GATHER_ELEMENTS: {
        /* y has the indices' dims (sym_emit.c reads both shapes at run time) */
        const wgc_tensor *ix = wgc_in(g, n, 1);
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        for (int d = 0; d < ix->shape.rank; d++)
            memcpy(y.sym[d], ix->shape.sym[d], WGC_MAX_SYMS);
        return set_out(g, n, 0, &y);
    }
    case WGC_OP_GATHER_ND: {
        /* indices [..., m] of symbolic or run-time leading dims over data whose sliced-off
         * dims may be symbolic too: y = indices' leading dims + data's dims past the tuple
         * (gather_scatter_nd.c reads the sizes at run time); fixed tuples and batch dims */
        const wgc_tensor *ix = wgc_in(g, n, 1);
        const int q = ix->shape.rank, b = (int)wgc_attr_int(n, "batch_dims", 0);
        if (has_symval_input(g, n, &k))
            return wgc_sym_refuse(g, n, "an input holding symbolic values");
        if (q < 1 || wgc_dim_is_sym(&ix->shape, q - 1))
            return wgc_sym_refuse(g, n, "a symbolic index-tuple length");
        for (int d = 0; d < b && d < q && d < x->shape.rank; d++)
            if (wgc_dim_is_sym(&ix->shape, d) || wgc_dim_is_sym(&x->shape, d))
                return wgc_sym_refuse(g, n, "symbolic batch dims");
        const int m = (int)ix->shape.dims[q - 1];
        int r = 0;
        for (int d = 0; d < q - 1; d++, r++)
            memcpy(y.sym[r], ix->shape.sym[d], WGC_MAX_SYMS);
        for (int d = b + m; d < x->shape.rank; d++, r++)
            memcpy(y.sym[r], x->shape.sym[d], WGC_MAX_SYMS);
        return set_out(g, n, 0, &y);
    }
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
            return set_out(g, n, 0, &o);
        }
        shape_of_values(g, wgc_in(g, n, 1), &s);
        if (!wgc_broadcast(&x->shape, &s, &o))
            return wgc_sym_refuse(g, n, "the shape broadcasts a symbolic dimension against a fixed one");
        return set_out(g, n, 0, &o);
    }
    default:
        return wgc_sym_batch_refuse(g, n);
    }
}

/* Is every element of Equal(a, b) over symbolic values decided for all sizes in range?
 * Two equal expressions are; so are an expression and a constant outside its range
 * (Equal(batch, -1) in TorchScript's expand(batch, -1)). Then the constant folded at the
 * maxima is the answer at every size; otherwise the Equal runs (sym_emit.c). */
static bool equal_decided(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = &g->tensors[n->inputs[0]], *b = &g->tensors[n->inputs[1]];
    const wgc_tensor *y = &g->tensors[n->outputs[0]];
    int64_t na = wgc_numel(&a->shape), nb = wgc_numel(&b->shape), count = wgc_numel(&y->shape);
    if ((na != count && na != 1) || (nb != count && nb != 1))
        return false;
    for (int64_t i = 0; i < count; i++) {
        wgc_dimx p = wgc_symval_at(a, na == 1 ? 0 : i), q = wgc_symval_at(b, nb == 1 ? 0 : i);
        bool decided = wgc_dimx_eq(&p, &q) ||
                       (wgc_dimx_is_const(&q) && (q.c < wgc_dimx_min(g, &p) || q.c > wgc_dimx_max(g, &p))) ||
                       (wgc_dimx_is_const(&p) && (p.c < wgc_dimx_min(g, &q) || p.c > wgc_dimx_max(g, &q)));
        if (!decided)
            return false;
    }
    return true;
}

/* Does every element of Add, Sub, Mul or Div over symbolic values come out a product of
 * the symbols? One that does not (seq + 1, seq / 2) makes the node run in the module
 * instead, its values bounded by ir/valrange.c: what the sizes it decides are planned for. */
static bool arithmetic_folds(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = &g->tensors[n->inputs[0]], *b = &g->tensors[n->inputs[1]];
    const int64_t na = wgc_numel(&a->shape), nb = wgc_numel(&b->shape), count = na > nb ? na : nb;
    if ((na != count && na != 1) || (nb != count && nb != 1))
        return true; /* not elementwise over vectors: fold_values refuses it, naming the node */
    /* float symbolic values (a Cast of shape arithmetic) fold while they stay whole numbers;
     * times a fraction (a mean's 1 / len) they are computed where the node runs */
    for (int k = 0; k < 2 && wg_dtype_is_float(a->dtype); k++) {
        const wgc_tensor *t = k ? b : a;
        for (int64_t i = 0; !t->symval && i < (k ? nb : na); i++) {
            const double f = wgc_elem_get_f(t->data, t->dtype, i);
            if (f != (double)(int64_t)f)
                return false;
        }
    }
    for (int64_t i = 0; i < count; i++) {
        wgc_dimx p = wgc_symval_at(a, na == 1 ? 0 : i), q = wgc_symval_at(b, nb == 1 ? 0 : i), r;
        if (n->op == WGC_OP_SUB)
            q.c = -q.c;
        if ((n->op == WGC_OP_DIV && !wgc_dimx_div(p, q, &r)) ||
            ((n->op == WGC_OP_ADD || n->op == WGC_OP_SUB) && !wgc_dimx_add(p, q, &r)))
            return false;
    }
    return true;
}

bool wgc_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    if (n->op == WGC_OP_SHAPE)
        return true;
    if (!wgc_inputs_const(g, n) || !wgc_op_hooks(n->op)->fold)
        return false;
    switch (n->op) {
    case WGC_OP_IDENTITY: case WGC_OP_UNSQUEEZE: case WGC_OP_SQUEEZE: case WGC_OP_RESHAPE:
    case WGC_OP_FLATTEN: case WGC_OP_CAST: case WGC_OP_GATHER: case WGC_OP_SLICE:
        return n->inputs[0] >= 0 && g->tensors[n->inputs[0]].symval; /* the values are symbolic */
    case WGC_OP_CONCAT: {
        int k;
        return has_symval_input(g, n, &k) && !wgc_attr_int(n, "new_axis", 0);
    }
    case WGC_OP_MUL: case WGC_OP_DIV: case WGC_OP_ADD: case WGC_OP_SUB: {
        int k;
        return has_symval_input(g, n, &k) && arithmetic_folds(g, n);
    }
    case WGC_OP_EQUAL: {
        int k;
        return has_symval_input(g, n, &k) && equal_decided(g, n);
    }
    case WGC_OP_REDUCE_PROD: /* numel from a shape: batched_nms's boxes.numel() == 0 */
        return n->inputs[0] >= 0 && g->tensors[n->inputs[0]].symval && g->tensors[n->inputs[0]].shape.rank == 1;
    case WGC_OP_WHERE: /* a constant condition choosing among symbolic values */
        return !g->tensors[n->inputs[0]].symval &&
               (g->tensors[n->inputs[1]].symval || g->tensors[n->inputs[2]].symval);
    default:
        return false;
    }
}

wg_status wgc_sym_infer(wgc_graph *g, wgc_node *n)
{
    int k;
    /* no symbolic input: the op's own shapes stand (a data-dependent op's run-time
     * symbols are its own, set by its infer hook) */
    if (!has_sym_input(g, n, &k) && !has_symval_input(g, n, &k))
        return WG_OK;
    if (wgc_sym_foldable(g, n))
        return WG_OK; /* shape arithmetic: wgc_sym_fold gives the values */
    return runtime_rule(g, n);
}

/* ---- folding shape arithmetic ------------------------------------------------------ */

static wg_status fold_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_tensor *b = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    switch (n->op) {
    case WGC_OP_SHAPE: {
        int64_t s = wgc_attr_int(n, "start", 0);
        if (s < 0)
            s += x->shape.rank;
        s = s < 0 ? 0 : s;
        for (int64_t i = 0; i < count; i++)
            v[i] = wgc_dimx_of(g, &x->shape, (int)(s + i));
        return WG_OK;
    }
    case WGC_OP_IDENTITY: case WGC_OP_UNSQUEEZE: case WGC_OP_SQUEEZE: case WGC_OP_RESHAPE:
    case WGC_OP_FLATTEN:
        for (int64_t i = 0; i < count; i++)
            v[i] = wgc_symval_at(x, i);
        return WG_OK;
    case WGC_OP_CAST:
        /* to float or double too (an old exporter's Upsample scales: a ratio of two such
         * casts, which folds where it is constant at every size, below) */
        if (y->dtype != WG_DT_INT64 && y->dtype != WG_DT_INT32 && y->dtype != WG_DT_FLOAT &&
            y->dtype != WG_DT_DOUBLE)
            return wgc_sym_refuse(g, n, "a cast of symbolic values to a type other than an integer or float");
        for (int64_t i = 0; i < count; i++)
            v[i] = wgc_symval_at(x, i);
        return WG_OK;
    case WGC_OP_GATHER: {
        if (x->shape.rank != 1)
            return wgc_sym_refuse(g, n, NULL);
        int64_t dim = x->shape.dims[0];
        for (int64_t i = 0; i < count; i++) {
            int64_t j = wgc_const_int(b, i);
            if (b->symval)
                return wgc_sym_refuse(g, n, "symbolic indices");
            v[i] = wgc_symval_at(x, j < 0 ? j + dim : j);
        }
        return WG_OK;
    }
    case WGC_OP_CONCAT: {
        int64_t at = 0;
        if (y->shape.rank != 1)
            return wgc_sym_refuse(g, n, NULL);
        for (int k = 0; k < n->n_inputs; k++) {
            const wgc_tensor *p = wgc_in(g, n, k);
            for (int64_t i = 0; p && i < wgc_numel(&p->shape); i++)
                v[at++] = wgc_symval_at(p, i);
        }
        return WG_OK;
    }
    case WGC_OP_SLICE: {
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
    case WGC_OP_MUL: case WGC_OP_DIV: case WGC_OP_ADD: case WGC_OP_SUB: {
        int64_t na = wgc_numel(&x->shape), nb = wgc_numel(&b->shape);
        if ((na != count && na != 1) || (nb != count && nb != 1))
            return wgc_sym_refuse(g, n, NULL);
        for (int64_t i = 0; i < count; i++) {
            wgc_dimx p = wgc_symval_at(x, na == 1 ? 0 : i), q = wgc_symval_at(b, nb == 1 ? 0 : i);
            bool ok = true;
            if (n->op == WGC_OP_MUL)
                v[i] = wgc_dimx_mul(p, q);
            else if (n->op == WGC_OP_DIV)
                ok = wgc_dimx_div(p, q, &v[i]);
            else {
                if (n->op == WGC_OP_SUB)
                    q.c = -q.c;
                ok = wgc_dimx_add(p, q, &v[i]);
            }
            if (!ok)
                return wgc_sym_refuse(g, n, "the result is not a product of the symbols");
        }
        return WG_OK;
    }
    case WGC_OP_REDUCE_PROD: {
        /* a 1-D value's product, over its one axis (keepdims either way) */
        wgc_dimx p = wgc_dimx_const(1);
        for (int64_t i = 0; i < wgc_numel(&x->shape); i++)
            p = wgc_dimx_mul(p, wgc_symval_at(x, i));
        if (count != 1)
            return wgc_sym_refuse(g, n, NULL);
        v[0] = p;
        return WG_OK;
    }
    case WGC_OP_WHERE: {
        const wgc_tensor *c = x, *f = wgc_in(g, n, 2);
        int64_t nc = wgc_numel(&c->shape), nt = wgc_numel(&b->shape), nf = wgc_numel(&f->shape);
        if ((nc != count && nc != 1) || (nt != count && nt != 1) || (nf != count && nf != 1))
            return wgc_sym_refuse(g, n, NULL);
        for (int64_t i = 0; i < count; i++)
            v[i] = wgc_const_int(c, nc == 1 ? 0 : i) ? wgc_symval_at(b, nt == 1 ? 0 : i)
                                                     : wgc_symval_at(f, nf == 1 ? 0 : i);
        return WG_OK;
    }
    default:
        return wgc_sym_refuse(g, n, NULL);
    }
}

wg_status wgc_sym_fold(wgc_graph *g, wgc_node *n)
{
    if (n->op == WGC_OP_EQUAL)
        return WG_OK; /* decided at every size (equal_decided): the folded constant stands */
    wgc_tensor *y = wgc_out(g, n, 0);
    if (!y || !y->data || n->n_outputs != 1)
        return wgc_sym_refuse(g, n, NULL);
    const bool fl = y->dtype == WG_DT_FLOAT || y->dtype == WG_DT_DOUBLE;
    if (y->dtype != WG_DT_INT64 && y->dtype != WG_DT_INT32 && !fl)
        return wgc_sym_refuse(g, n, "symbolic values of a non-integer type");
    if (fl && n->op != WGC_OP_CAST && n->op != WGC_OP_MUL && n->op != WGC_OP_DIV && n->op != WGC_OP_ADD &&
        n->op != WGC_OP_SUB && n->op != WGC_OP_IDENTITY)
        return wgc_sym_refuse(g, n, "float symbolic values (a Cast of shape arithmetic) other than their arithmetic");
    int64_t count = wgc_numel(&y->shape);
    wgc_dimx *v = malloc(sizeof *v * (size_t)(count ? count : 1));
    if (!v)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    wg_status st = fold_values(g, n, v, count);
    for (int64_t i = 0; !st && i < count; i++)
        if (fl ? (double)wgc_dimx_max(g, &v[i]) != wgc_elem_get_f(y->data, y->dtype, i)
               : wgc_dimx_max(g, &v[i]) != wgc_const_int(y, i))
            st = wgc_error(g, n, WG_ERR_INVALID, "symbolic value %lld disagrees with the folded one "
                           "(internal error)", (long long)i);
    if (!st) {
        wgc_shape s = y->shape;
        st = wgc_tensor_set_symval(g, n->outputs[0], y->dtype, &s, v);
    }
    free(v);
    return st;
}
