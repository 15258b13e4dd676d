/*
 * control_flow.c: If, Loop and Scan, and the BodyBegin / BodyElse markers that open their
 * bodies (ir.h wgc_body; the inputs' layout and Scan's axes are in control_flow_layout.c,
 * the code that opens and ends a Loop's or Scan's iterations in control_flow_body.c).
 *
 * A body is ordinary nodes between its markers, inferred, folded, planned and emitted like
 * any others; these hooks only add what runs around them. The whole construct is one step
 * of wg_run_step (generate.c), its C control flow opened by the marker and closed by the
 * node:
 *   If    if (cond) { then nodes; outputs = then outputs } else { else nodes; outputs = ... }
 *         A constant condition folds the If: the branch not taken is removed before it is
 *         inferred, and the If copies (or folds to) the taken branch's outputs.
 *   Loop  v_in = v_initial; for (i = 0; i < M && cond; i++) { body; cond = cond_out;
 *         scan_k[i] = element_k; v_in = v_out } v_final = v_in
 *   Scan  state_in = initial; for (t = 0; t < T; t++) { element_k = input_k[t along its axis,
 *         in its direction]; body; output_k[t] = element_k out; state_in = state_out }
 *         Scan-8 runs that once per batch row (its inputs and outputs have the batch first).
 * Carried values keep one shape through the body (a body that changes it is refused), so
 * every buffer is planned statically. A Loop's scan outputs need their length at compile
 * time: a constant trip count M, or a symbolic one (Shape(x)[0] of a --dim seq: the rows
 * are then seq), and a loop that cannot stop early (constant true condition, or the body
 * passing its condition through); otherwise the Loop is refused. Carried values may have
 * symbolic dims (the body then runs at the actual sizes), and a Scan's scan inputs a
 * symbolic length (the steps counted at run time) and symbolic element dims.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "control_flow.h"
#include "control_flow_body.h"
#include "sym.h"
#include "helpers/emit_and_fold.h"
#include "helpers/index_loops.h"
#include "unroll.h"

/* ---- owners and checks --------------------------------------------------------------- */

/* The BodyElse of the If whose BodyBegin is node begin, or -1. */
static int else_marker(const wgc_graph *g, int begin)
{
    int at;
    return wgc_body_walk(g, begin, &at) < 0 ? -1 : at;
}

static int index_of(const wgc_graph *g, const wgc_node *n)
{
    return (int)(n - g->nodes);
}

/* The If, Loop or Scan a marker belongs to, or NULL (an error already written). */
static wgc_node *owner_of(wgc_graph *g, const wgc_node *marker, wg_status *st)
{
    int e = wgc_body_end(g, index_of(g, marker));
    if (e < 0) {
        *st = wgc_error(g, marker, WG_ERR_INVALID, "internal error: a body marker without its node");
        return NULL;
    }
    *st = WG_OK;
    return &g->nodes[e];
}

/* The node a BodyBegin marker belongs to into *own, and its body layout into *l. */
static wg_status owner_and_layout(wgc_graph *g, const wgc_node *marker, wgc_node **own,
                                  wgc_cf_layout *l)
{
    wg_status st;
    if (!(*own = owner_of(g, marker, &st)))
        return st;
    return wgc_cf_layout_of(g, *own, l);
}

static wg_status need_scalar(wgc_graph *g, const wgc_node *n, int i, int dtype, const char *what)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    if (!t)
        return WG_OK;
    if (t->dtype != dtype || wgc_numel(&t->shape) != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "%s '%s' must be one %s, not %s %s", what, t->name,
                         wg_dtype_name(dtype), wg_dtype_name(t->dtype),
                         wgc_shape_str(&t->shape, (char[64]){0}, 64));
    return WG_OK;
}

/* Two values the construct makes one buffer of (a branch's output and the If's, a carried
 * value and its next value) must agree in dtype and shape. */
static wg_status need_same(wgc_graph *g, const wgc_node *n, const wgc_tensor *a, const wgc_tensor *b,
                           const char *what, int k)
{
    char sa[64], sb[64];
    if (a->dtype == b->dtype && wgc_shape_eq(&a->shape, &b->shape))
        return WG_OK;
    return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                     "%s %d: '%s' is %s %s but '%s' is %s %s; values whose shape changes at run "
                     "time are not supported",
                     what, k, a->name, wg_dtype_name(a->dtype), wgc_shape_str(&a->shape, sa, sizeof sa),
                     b->name, wg_dtype_name(b->dtype), wgc_shape_str(&b->shape, sb, sizeof sb));
}

/* Is symbol s the run-time dim of tensor t (t >= 0) that this construct writes (an If's or
 * a Loop's output, if_infer / loop_infer)? */
static bool owns_sym(const wgc_graph *g, int t, int s)
{
    return t >= 0 && g->syms[s].runtime && g->syms[s].tensor == t;
}

/* A carried value (a Loop's, a Scan's state) and the body's next value for it: as
 * need_same, except that a dim the body decides at run time (a data-dependent op in it)
 * may stand for the carried one; emit_carried_checks compares them every iteration. */
static wg_status need_carried(wgc_graph *g, const wgc_node *n, const wgc_tensor *in, const wgc_tensor *out,
                              const char *what, int k)
{
    bool same = in->dtype == out->dtype && in->shape.rank == out->shape.rank;
    for (int d = 0; same && d < in->shape.rank; d++)
        same = wgc_dim_is_runtime(g, &out->shape, d) ||
               (in->shape.dims[d] == out->shape.dims[d] && !memcmp(in->shape.sym[d], out->shape.sym[d], WGC_MAX_SYMS));
    return same ? WG_OK : need_same(g, n, in, out, what, k);
}

/* The end of an iteration: each next value whose dim the body decided at run time
 * (need_carried) must have its carried value's, or the run stops (before the carry). */
static void emit_carried_checks(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_cf_layout *l)
{
    const int out0 = l->first_body_out + (n->op == WGC_OP_LOOP);
    for (int k = 0; k < l->n_state; k++) {
        const wgc_shape *in = &g->tensors[n->inputs[l->first_carried + k]].shape;
        const wgc_shape *out = &g->tensors[n->inputs[out0 + k]].shape;
        for (int d = 0; d < out->rank; d++)
            if (wgc_dim_is_runtime(g, out, d))
                wgc_emit(e, "if (%s != %s) return WGK_ERR_LOOP_SHAPE; /* carried value %d, dim %d */\n",
                         wgc_dims_expr(e, out, d, d + 1), wgc_dims_expr(e, in, d, d + 1), k, d);
    }
}

/* ---- Scan's axes --------------------------------------------------------------------- */

static wgc_shape drop_dims(const wgc_shape *s, int from, int count)
{
    wgc_shape r = {.rank = s->rank - count};
    for (int d = 0, o = 0; d < s->rank; d++)
        if (d < from || d >= from + count)
            r.dims[o++] = s->dims[d];
    return r;
}

/* ---- BodyBegin ----------------------------------------------------------------------- */

/* An If whose condition is constant: the branch not taken goes (with both markers) before
 * anything in it is inferred, and the If reads only the taken branch's outputs. */
static void fold_branch(wgc_graph *g, wgc_node *begin, wgc_node *iff, bool taken)
{
    const int b = index_of(g, begin), el = else_marker(g, b), e = index_of(g, iff);
    const int from = taken ? el : b + 1, to = taken ? e : el;
    for (int i = from; i < to; i++)
        g->nodes[i].dead = true;
    g->nodes[b].dead = true;
    g->nodes[el].dead = true;
    const int n_out = iff->n_outputs, skip = taken ? 1 + n_out : 1;
    for (int k = 0; k < n_out; k++)
        iff->inputs[skip + k] = -1;
}

static wg_status check_tensor_values(wgc_graph *g, const wgc_node *n, const wgc_node *own);

static wg_status begin_infer(wgc_graph *g, wgc_node *n)
{
    wgc_node *own;
    wgc_cf_layout l;
    wg_status st;
    if (!(own = owner_of(g, n, &st)))
        return st;
    if (wgc_unroll_wanted(g, own))
        return wgc_unroll_begin(g, index_of(g, n), index_of(g, own));
    if (own->op == WGC_OP_SCAN && (st = check_tensor_values(g, n, own)))
        return st;
    if ((st = wgc_cf_layout_of(g, own, &l)))
        return st;
    if (own->op == WGC_OP_IF) {
        const wgc_tensor *c = wgc_in(g, n, 0);
        if ((st = need_scalar(g, own, 0, WG_DT_BOOL, "the condition")))
            return st;
        if (else_marker(g, index_of(g, n)) < 0)
            return wgc_error(g, own, WG_ERR_INVALID, "internal error: no else branch");
        if (c->data)
            fold_branch(g, n, own, ((const uint8_t *)c->data)[0] != 0);
        return WG_OK;
    }
    if (own->op == WGC_OP_LOOP) {
        if ((st = need_scalar(g, own, 0, WG_DT_INT64, "the trip count M")) ||
            (st = need_scalar(g, own, 1, WG_DT_BOOL, "the condition")))
            return st;
        wgc_set_output(g, n, 0, WG_DT_INT64, &(wgc_shape){0});
        wgc_set_output(g, n, 1, WG_DT_BOOL, &(wgc_shape){0});
        for (int k = 0; k < l.n_state; k++) {
            const wgc_tensor *v = wgc_in(g, n, 2 + k);
            if (!v)
                return wgc_error(g, own, WG_ERR_INVALID, "loop-carried value %d has no initial value", k);
            wgc_set_output(g, n, 2 + k, v->dtype, &v->shape);
        }
        return WG_OK;
    }
    int64_t batch, len;
    if ((st = wgc_cf_scan_extent(g, own, &l, &batch, &len)))
        return st;
    for (int k = 0; k < l.n_state; k++) {
        const wgc_tensor *v = wgc_in(g, n, l.first_state + k);
        if (!v)
            return wgc_error(g, own, WG_ERR_INVALID, "state %d has no initial value", k);
        if (l.lens && (v->shape.rank < 1 || v->shape.dims[0] != batch))
            return wgc_error(g, own, WG_ERR_INVALID, "state '%s' does not start with the batch (%lld)",
                             v->name, (long long)batch);
        wgc_shape s = l.lens ? drop_dims(&v->shape, 0, 1) : v->shape;
        wgc_set_output(g, n, k, v->dtype, &s);
    }
    for (int k = 0; k < l.n_scan_in; k++) {
        const wgc_tensor *x = wgc_in(g, n, l.first_state + l.n_state + k);
        int axis, rev;
        if ((st = wgc_cf_scan_axis(g, own, true, k, x->shape.rank, &axis, &rev)))
            return st;
        wgc_shape s = l.lens ? drop_dims(&x->shape, 0, 2) : drop_dims(&x->shape, axis, 1);
        wgc_set_output(g, n, l.n_state + k, x->dtype, &s);
    }
    return WG_OK;
}

static wg_status begin_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_node *own;
    wgc_cf_layout l;
    wg_status st = owner_and_layout(g, n, &own, &l);
    if (st)
        return st;
    switch (own->op) {
    case WGC_OP_IF:
        wgc_emit(e, "if (*(const uint8_t *)%s) { /* If %s */\n", wgc_ptr(e, g, n->inputs[0]), own->name);
        return WG_OK;
    case WGC_OP_LOOP: wgc_cf_emit_loop_begin(e, g, n, own, &l); return WG_OK;
    case WGC_OP_SCAN: return wgc_cf_emit_scan_begin(e, g, n, own, &l);
    default: return wgc_no_case(g, n, "BodyBegin's emit");
    }
}

/* ---- If ------------------------------------------------------------------------------ */

/* Why the branch that marker opens was dropped (wgc_cf_drop_branch), or NULL. */
static const char *branch_failure(const wgc_node *marker)
{
    return wgc_attr_str(marker, "failed", NULL);
}

bool wgc_cf_drop_branch(wgc_graph *g, int i, int *resume)
{
    for (int m = wgc_enclosing_marker(g, i); m >= 0; m = wgc_enclosing_marker(g, m)) {
        const int e = wgc_body_end(g, m);
        if (e < 0 || g->nodes[e].op != WGC_OP_IF)
            continue; /* a Loop or Scan that cannot run: whatever holds it cannot either */
        const int b = wgc_body_begin(g, e), el = else_marker(g, b);
        if (b < 0 || el < 0 || g->nodes[b].dead)
            continue; /* a constant condition: this branch is the one that runs */
        const bool then = m == b;
        if (branch_failure(&g->nodes[then ? el : b]))
            return false; /* both branches invalid */
        wgc_attr *a = wgc_attr_add(g, m, "failed", WGC_ATTR_STRING);
        size_t len = strlen(g->err);
        if (!a || !(a->s = malloc(len + 1)))
            return false;
        memcpy(a->s, g->err, len + 1);
        a->s_len = len;
        g->err[0] = 0;
        const int to = then ? el : e;
        for (int j = m + 1; j < to; j++)
            g->nodes[j].dead = true;
        wgc_node *iff = &g->nodes[e];
        for (int k = 0; k < iff->n_outputs; k++)
            iff->inputs[(then ? 1 : 1 + iff->n_outputs) + k] = -1;
        *resume = to - 1;
        return true;
    }
    return false;
}

/* A dropped branch's code: the status, and why in a comment. */
static void emit_failure(wgc_emitter *e, const char *why)
{
    wgc_emit(e, "/* this branch is invalid for the compiled shapes: ");
    for (const char *p = why; *p; p++) /* no comment end inside the comment */
        wgc_emit(e, "%c", *p == '*' ? '_' : *p);
    wgc_emit(e, " */\nreturn WGK_ERR_BRANCH;\n");
}

/* ---- BodyElse ------------------------------------------------------------------------ */

static wg_status else_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st;
    return owner_of(g, n, &st) ? WG_OK : st;
}

static void emit_branch_output(wgc_emitter *e, wgc_graph *g, const wgc_node *iff, int k, int x);

static wg_status else_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wg_status st;
    wgc_node *iff = owner_of(g, n, &st);
    if (!iff)
        return st;
    const char *why = branch_failure(&g->nodes[wgc_body_begin(g, index_of(g, iff))]);
    if (why)
        emit_failure(e, why);
    else
        for (int k = 0; k < iff->n_outputs; k++)
            if (iff->outputs[k] >= 0 && iff->inputs[1 + k] >= 0) /* -1: an empty optional's */
                emit_branch_output(e, g, iff, k, iff->inputs[1 + k]);
    wgc_emit(e, "} else {\n");
    return WG_OK;
}

/* The branch the If reads output k from: 1 + k (then) or 1 + n + k (else); both when the
 * condition is computed at run time (-1 for a branch folded away). */
static wg_status if_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st;
    wgc_cf_layout l;
    if ((st = wgc_cf_layout_of(g, n, &l)))
        return st;
    for (int k = 0; k < n->n_outputs; k++) {
        const wgc_tensor *t = wgc_in(g, n, 1 + k), *f = wgc_in(g, n, 1 + n->n_outputs + k);
        if (!t && !f)
            return wgc_error(g, n, WG_ERR_INVALID, "internal error: output %d has no branch", k);
        const wgc_tensor *src = t ? t : f;
        wgc_shape y = src->shape;
        if (t && f && (t->dtype != f->dtype || t->shape.rank != f->shape.rank))
            return need_same(g, n, t, f, "output", k);
        /* Dims in which the branches differ (a size one branch decides at run time, or two
         * fixed ones: torchvision's batched_nms returns [0] or its NMS's [K]) are a run-time
         * size of the If's output, bounded by the larger, written by the branch taken. */
        for (int d = 0; t && f && n->outputs[k] >= 0 && d < y.rank; d++)
            if (t->shape.dims[d] != f->shape.dims[d] || memcmp(t->shape.sym[d], f->shape.sym[d], WGC_MAX_SYMS)) {
                const int64_t bound = t->shape.dims[d] > f->shape.dims[d] ? t->shape.dims[d] : f->shape.dims[d];
                int sym;
                if ((st = wgc_sym_add_runtime(g, n, n->outputs[k], d, bound, &sym)))
                    return st;
                wgc_shape_set_runtime(&y, d, sym, bound);
            }
        wgc_set_output(g, n, k, src->dtype, &y);
    }
    return WG_OK;
}

/* Output k of an If from branch value x at the end of its branch: a copy, and for the
 * output's run-time dims (if_infer) their values from x's actual dims, the copy then of
 * x's actual elements. */
static void emit_branch_output(wgc_emitter *e, wgc_graph *g, const wgc_node *iff, int k, int x)
{
    const int y = iff->outputs[k];
    bool own = false;
    for (int s = 0; s < g->n_syms; s++)
        if (owns_sym(g, y, s)) {
            wgc_emit(e, "wg_dims[%d] = %s;\n", s, wgc_dims_expr(e, &g->tensors[x].shape, g->syms[s].dim,
                                                                 g->syms[s].dim + 1));
            own = true;
        }
    if (!own && !wgc_shape_is_sym(&g->tensors[x].shape)) {
        wgc_emit_copy(e, g, x, y);
        return;
    }
    const char *pi = wgc_ptr(e, g, x), *po = wgc_ptr(e, g, y);
    if (strcmp(pi, po))
        wgc_emit(e, "memcpy(%s, %s, (size_t)%s * %zu);\n", po, pi,
                 wgc_dims_expr(e, &g->tensors[x].shape, 0, g->tensors[x].shape.rank),
                 wg_dtype_size(g->tensors[x].dtype));
}

static bool if_folded(const wgc_graph *g, const wgc_node *n)
{
    const int b = wgc_body_begin(g, index_of(g, n));
    return b < 0 || g->nodes[b].dead;
}

/* The taken branch's output k of a folded If. */
static int taken_output(const wgc_node *n, int k)
{
    return n->inputs[1 + k] >= 0 ? n->inputs[1 + k] : n->inputs[1 + n->n_outputs + k];
}

static wg_status cf_fold(wgc_graph *g, wgc_node *n)
{
    if (n->op != WGC_OP_IF || !if_folded(g, n))
        return WG_ERR_UNSUPPORTED;
    for (int k = 0; k < n->n_outputs; k++)
        if (n->outputs[k] >= 0 && !g->tensors[taken_output(n, k)].data)
            return WG_ERR_UNSUPPORTED;
    for (int k = 0; k < n->n_outputs; k++) {
        wg_status st = wgc_fold_copy(g, n, k, g->tensors[taken_output(n, k)].data);
        if (st)
            return wgc_error(g, n, st, "out of memory");
    }
    return WG_OK;
}

static wg_status if_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const bool folded = if_folded(g, n);
    const int el = folded ? -1 : else_marker(g, wgc_body_begin(g, index_of(g, n)));
    const char *why = el >= 0 ? branch_failure(&g->nodes[el]) : NULL;
    if (why) {
        emit_failure(e, why);
        wgc_emit(e, "}\n");
        return WG_OK;
    }
    for (int k = 0; k < n->n_outputs; k++) {
        const int x = folded ? taken_output(n, k) : n->inputs[1 + n->n_outputs + k];
        if (n->outputs[k] >= 0 && x >= 0) /* -1: an empty optional's element */
            emit_branch_output(e, g, n, k, x);
    }
    if (!folded)
        wgc_emit(e, "}\n");
    return WG_OK;
}

/* ---- Loop ---------------------------------------------------------------------------- */

/* t, seen through Identity nodes. */
static int through_identity(const wgc_graph *g, int t)
{
    for (int hops = 0; hops < 64 && t >= 0; hops++) {
        const int p = g->tensors[t].producer;
        if (p < 0 || g->nodes[p].dead || g->nodes[p].op != WGC_OP_IDENTITY)
            break;
        t = g->nodes[p].inputs[0];
    }
    return t;
}

/* The number of iterations of a Loop with scan outputs, which must be known here. */
static wg_status loop_length(wgc_graph *g, const wgc_node *n, const wgc_cf_layout *l, int64_t *len)
{
    wg_status st;
    if (!wgc_in(g, n, 0))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "has scan outputs but no trip count: their length would be known only at "
                         "run time, which is not supported");
    if ((st = wgc_loop_need_const(g, n, 0, "the trip count M (it sets the scan outputs' length)")))
        return st;
    int64_t m = wgc_const_int(wgc_in(g, n, 0), 0);
    if (wgc_in(g, n, 1)) {
        if ((st = wgc_loop_need_const(g, n, 1, "the condition (it decides the scan outputs' length)")))
            return st;
        if (!wgc_const_int(wgc_in(g, n, 1), 0))
            m = 0;
    }
    const int begin = wgc_body_begin(g, index_of(g, n));
    const int cond_out = through_identity(g, n->inputs[l->first_body_out]);
    const wgc_tensor *c = &g->tensors[cond_out];
    const bool passes = begin >= 0 && cond_out == g->nodes[begin].outputs[1];
    if (!passes && !(c->data && wgc_const_int(c, 0)))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "has scan outputs and a body that computes its condition ('%s'): the Loop "
                         "may stop before M iterations, so their length would be known only at run "
                         "time, which is not supported",
                         c->name);
    *len = m < 0 ? 0 : m;
    return WG_OK;
}

static wg_status loop_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st;
    wgc_cf_layout l;
    if ((st = wgc_cf_layout_of(g, n, &l)) || (st = need_scalar(g, n, l.first_body_out, WG_DT_BOOL, "the body's condition")))
        return st;
    for (int k = 0; k < l.n_state; k++) {
        const wgc_tensor *in = wgc_in(g, n, l.first_carried + k), *out = wgc_in(g, n, l.first_body_out + 1 + k);
        if ((st = need_carried(g, n, in, out, "loop-carried value", k)))
            return st;
        wgc_set_output(g, n, k, in->dtype, &in->shape);
    }
    if (!l.n_scan)
        return WG_OK;
    int64_t len;
    if ((st = loop_length(g, n, &l, &len)))
        return st;
    for (int k = 0; k < l.n_scan; k++) {
        const wgc_tensor *x = wgc_in(g, n, l.first_body_out + 1 + l.n_state + k);
        if (x->shape.rank + 1 > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "scan output %d would have rank %d", k, x->shape.rank + 1);
        const uint64_t bytes = (uint64_t)wgc_numel(&x->shape) * wg_dtype_size(x->dtype);
        if (bytes && (uint64_t)len > (UINT64_C(1) << 32) / bytes)
            return wgc_error(g, n, WG_ERR_LIMIT,
                             "trip count M = %lld: scan output %d (%llu bytes an iteration) would take "
                             "more than the 4 GiB a wasm32 memory can hold",
                             (long long)len, k, (unsigned long long)bytes);
        wgc_shape s = {.rank = x->shape.rank + 1, .dims = {len}};
        memcpy(s.dims + 1, x->shape.dims, sizeof(int64_t) * (size_t)x->shape.rank);
        memcpy(s.sym + 1, x->shape.sym, sizeof s.sym[0] * (size_t)x->shape.rank);
        const wgc_tensor *m = wgc_in(g, n, 0);
        if (m->symval && !wgc_in(g, n, 1)) /* M iterations of a symbolic M (seq): M rows */
            wgc_shape_set_dim(g, &s, 0, m->symval[0]);
        else if (m->symval)
            return wgc_sym_refuse(g, n, "scan outputs of a symbolic trip count and a condition input");
        /* A row size the body decides at run time is the output's own run-time dim, set
         * by the first iteration; later ones must give the same (loop_emit). */
        for (int d = 0; d < x->shape.rank; d++) {
            int sym = -1;
            if (wgc_dim_is_runtime(g, &x->shape, d) && n->outputs[l.n_state + k] >= 0 &&
                (st = wgc_sym_add_runtime(g, n, n->outputs[l.n_state + k], d + 1, x->shape.dims[d], &sym)))
                return st;
            if (sym >= 0)
                wgc_shape_set_runtime(&s, d + 1, sym, x->shape.dims[d]);
        }
        wgc_set_output(g, n, l.n_state + k, x->dtype, &s);
    }
    return WG_OK;
}

static wg_status loop_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_cf_layout *l)
{
    const int id = wgc_body_begin(g, index_of(g, n));
    wgc_emit(e, "wg_go%d = *(const uint8_t *)%s != 0;\n", id, wgc_ptr(e, g, n->inputs[l->first_body_out]));
    for (int k = 0; k < l->n_scan; k++) {
        const int y = n->outputs[l->n_state + k], x = n->inputs[l->first_body_out + 1 + l->n_state + k];
        if (y < 0)
            continue;
        const wgc_tensor *xt = &g->tensors[x], *yt = &g->tensors[y];
        /* the length is M (loop_length): a later iteration cannot happen, but the check
         * keeps the write inside the buffer whatever the trip count */
        wgc_emit(e, "if (wg_it%d >= %lld) return WGK_ERR_TRIP_COUNT;\n", id, (long long)yt->shape.dims[0]);
        for (int s = 0; s < g->n_syms; s++)
            if (owns_sym(g, y, s)) {
                const char *row = wgc_dims_expr(e, &xt->shape, g->syms[s].dim - 1, g->syms[s].dim);
                wgc_emit(e, "if (wg_it%d == 0) wg_dims[%d] = %s;\n", id, s, row);
                wgc_emit(e, "else if (wg_dims[%d] != %s) return WGK_ERR_LOOP_SHAPE; /* scan output %d */\n", s,
                         row, k);
            }
        if (wgc_numel(&xt->shape)) {
            /* rows of the actual size, side by side: the layout of y's actual dims */
            const char *row = wgc_dims_expr(e, &xt->shape, 0, xt->shape.rank);
            const size_t es = wg_dtype_size(xt->dtype);
            wgc_emit(e, "memcpy((uint8_t *)%s + wg_it%d * %s * %zu, %s, (size_t)%s * %zu);\n", wgc_ptr(e, g, y), id,
                     row, es, wgc_ptr(e, g, x), row, es);
        }
    }
    emit_carried_checks(e, g, n, l);
    wgc_cf_emit_carry(e, g, n, l);
    wgc_emit(e, "}\n");
    for (int k = 0; k < l->n_state; k++)
        if (n->outputs[k] >= 0)
            wgc_emit_copy(e, g, n->inputs[l->first_carried + k], n->outputs[k]);
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* ---- Scan ---------------------------------------------------------------------------- */

static wg_status scan_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st;
    wgc_cf_layout l;
    int64_t batch, len;
    if ((st = wgc_cf_layout_of(g, n, &l)) || (st = wgc_cf_scan_extent(g, n, &l, &batch, &len)))
        return st;
    for (int k = 0; k < l.n_state; k++) {
        const wgc_tensor *in = wgc_in(g, n, l.first_carried + k), *out = wgc_in(g, n, l.first_body_out + k);
        if ((st = need_carried(g, n, in, out, "state", k)))
            return st;
        wgc_set_output(g, n, k, in->dtype, &wgc_in(g, n, l.first_state + k)->shape);
    }
    for (int k = 0; k < l.n_scan; k++) {
        const wgc_tensor *x = wgc_in(g, n, l.first_body_out + l.n_state + k);
        const int rank = x->shape.rank + 1 + l.lens;
        /* rows of symbolic dims are stored at their actual sizes (emit_slice_copy); rows of a
         * size the body decides could differ from step to step, which a Scan does not check */
        if (wgc_shape_runtime_sym(g, &x->shape) >= 0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "scan output %d ('%s') has a size the body decides at run time; a Scan's "
                             "scan outputs must keep one size per compile (a Loop's may vary by run)",
                             k, x->name);
        if (rank > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "scan output %d would have rank %d", k, rank);
        int axis, rev;
        if ((st = wgc_cf_scan_axis(g, n, false, k, rank, &axis, &rev)))
            return st;
        wgc_shape s = {.rank = rank};
        const wgc_tensor *x0 = wgc_in(g, n, l.first_state + l.n_state);
        int axis0 = 0, rev0;
        if ((st = wgc_cf_scan_axis(g, n, true, 0, x0->shape.rank, &axis0, &rev0)))
            return st;
        for (int d = 0, o = 0; d < rank; d++) {
            if (l.lens && d == 0)
                s.dims[d] = batch;
            else if (d == axis) {
                s.dims[d] = len; /* symbolic as the scan inputs' length is */
                memcpy(s.sym[d], x0->shape.sym[axis0], WGC_MAX_SYMS);
            } else { /* the row's dims, symbolic ones too */
                s.dims[d] = x->shape.dims[o];
                memcpy(s.sym[d], x->shape.sym[o++], WGC_MAX_SYMS);
            }
        }
        wgc_set_output(g, n, l.n_state + k, x->dtype, &s);
    }
    return WG_OK;
}

static wg_status scan_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_cf_layout *l)
{
    const int id = wgc_body_begin(g, index_of(g, n));
    int64_t batch, len;
    wg_status st = wgc_cf_scan_extent(g, n, l, &batch, &len);
    if (st)
        return st;
    for (int k = 0; k < l->n_scan; k++) {
        const int y = n->outputs[l->n_state + k], x = n->inputs[l->first_body_out + l->n_state + k];
        if (y >= 0 && (st = wgc_cf_emit_scan_slice_copy(e, g, n, l, false, k, y, x, id)))
            return st;
    }
    emit_carried_checks(e, g, n, l);
    wgc_cf_emit_carry(e, g, n, l);
    wgc_emit(e, "}\n");
    for (int k = 0; k < l->n_state; k++)
        if (n->outputs[k] >= 0)
            wgc_cf_emit_state_row_copy(e, g, n->outputs[k], n->inputs[l->first_carried + k], id,
                                       true);
    wgc_emit(e, "}\n}\n");
    return WG_OK;
}

/* ---- the hooks ----------------------------------------------------------------------- */

/* Scan's bodies and the Loops that run as loops carry tensors only: a Loop whose initial
 * values include a sequence or optional runs unrolled (unroll.c), and an If carries the
 * element tensors of its sequences and optionals (if_values.c); this refuses the rest (a
 * Scan state, a Loop body that turns a tensor into a sequence). n reads the values. */
static wg_status check_tensor_values(wgc_graph *g, const wgc_node *n, const wgc_node *own)
{
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *t = wgc_in(g, n, k);
        if (t && t->kind != WGC_KIND_TENSOR)
            return wgc_error(g, own, WG_ERR_UNSUPPORTED,
                             "'%s' is a sequence or optional; %s bodies of such values are not "
                             "supported%s", t->name, own->op_type,
                             own->op == WGC_OP_LOOP ? " unless the Loop's initial values are such values"
                                                    : "");
    }
    return WG_OK;
}

static wg_status cf_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st;
    if ((n->op == WGC_OP_LOOP || n->op == WGC_OP_SCAN) && (st = check_tensor_values(g, n, n)))
        return st;
    switch (n->op) {
    case WGC_OP_BODY_BEGIN: return begin_infer(g, n);
    case WGC_OP_BODY_ELSE: return else_infer(g, n);
    case WGC_OP_IF: return (st = wgc_if_flatten(g, n)) ? st : if_infer(g, n);
    case WGC_OP_LOOP: return loop_infer(g, n);
    case WGC_OP_SCAN: return scan_infer(g, n);
    default: return wgc_no_case(g, n, "control_flow.c's infer");
    }
}

static wg_status cf_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_cf_layout l;
    wg_status st;
    switch (n->op) {
    case WGC_OP_BODY_BEGIN: return begin_emit(e, g, n);
    case WGC_OP_BODY_ELSE: return else_emit(e, g, n);
    case WGC_OP_IF: return if_emit(e, g, n);
    case WGC_OP_LOOP: return (st = wgc_cf_layout_of(g, n, &l)) ? st : loop_emit(e, g, n, &l);
    case WGC_OP_SCAN: return (st = wgc_cf_layout_of(g, n, &l)) ? st : scan_emit(e, g, n, &l);
    default: return wgc_no_case(g, n, "control_flow.c's emit");
    }
}

static size_t cf_scratch(const wgc_graph *g, const wgc_node *n)
{
    wgc_cf_layout l;
    if ((n->op != WGC_OP_LOOP && n->op != WGC_OP_SCAN) || wgc_cf_layout_of((wgc_graph *)g, n, &l))
        return 0;
    return wgc_cf_staging_bytes(g, n, &l);
}

/* ---- symbolic dims (sym.h) ---- */

static wg_status cf_sym_infer(wgc_graph *g, wgc_node *n)
{
    if (!wgc_out(g, n, 0))
        return WG_OK;
    if (n->op != WGC_OP_BODY_BEGIN)
        /* If, BodyElse, Loop, Scan: the outputs take the bodies' sizes, and where branches
         * or iterations may differ a run-time size of their own (if_infer, loop_infer) */
        return WG_OK;
    wg_status st;
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
        if ((st = wgc_sym_set_out(g, n, own->op == WGC_OP_SCAN ? i - l.first_state : i, &o)))
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
        if ((st = wgc_sym_set_out(g, n, l.n_state + k, &o)))
            return st;
    }
    return WG_OK;
}

/* Bounds of integer values computed at run time (ir/valrange.h): output k of an If is the
 * taken branch's k-th output, so either branch's bounds (a folded If reads the taken one
 * only; its other inputs are gone). */
static bool cf_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                          wgc_vrange *out, int64_t count)
{
    if (n->op != WGC_OP_IF)
        return false;
    int at = -1;
    for (int j = 0; j < n->n_outputs; j++)
        if (n->outputs[j] >= 0 && &g->tensors[n->outputs[j]] == y)
            at = j;
    bool any = false;
    for (int b = 0; b < 2 && at >= 0; b++) {
        const int i = 1 + b * n->n_outputs + at;
        wgc_vrange a;
        if (i >= n->n_inputs || n->inputs[i] < 0)
            continue;
        if (!wgc_vrange_union(g, &g->tensors[n->inputs[i]], &a))
            return false;
        if (!any)
            out[0] = a;
        out[0].lo = a.lo < out[0].lo ? a.lo : out[0].lo;
        out[0].hi = a.hi > out[0].hi ? a.hi : out[0].hi;
        any = true;
    }
    for (int64_t i = 1; any && i < count; i++)
        out[i] = out[0];
    return any;
}

const wgc_op_def wgc_op_control_flow = {
    .infer = cf_infer,
    .fold = cf_fold,
    .emit = cf_emit,
    .scratch = cf_scratch,
    /* their code reads its sizes at run time itself */
    .sym = {.infer = cf_sym_infer, .emit = cf_emit, .bounds = cf_sym_bounds},
};
