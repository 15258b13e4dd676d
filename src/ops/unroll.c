/*
 * unroll.c: a Loop whose carried values include sequences or optionals, and SequenceMap,
 * run unrolled at compile time (the UnrollStep marker is this file's).
 *
 * A sequence's element count and shapes are fixed at compile time (src/ir/values.c), but a
 * body may change them on every iteration (SequenceInsert), and SequenceMap's body sees
 * elements of different shapes. Such a body is copied once per iteration instead: when the
 * walk of passes/infer.c reaches its BodyBegin, the construct (BodyBegin, body, Loop or
 * SequenceMap) becomes a template that never runs nor changes (dead), and a copy of the body
 * for iteration 0 is inserted after it, its inputs bound to the iteration's values (the
 * iteration number as a constant, the condition and carried values; SequenceMap's elements
 * at that position), then an UnrollStep node. The walk infers the copy, then the step, which
 * decides whether another iteration runs: it inserts the next copy and step after itself,
 * or gives the construct's outputs their final values (a sequence or optional its element
 * list, a tensor through an Identity). Each step dies once inferred; only the copies run.
 *
 * A step's inputs are the body outputs of the iteration before it (Loop: condition, carried
 * values, scan elements; SequenceMap: its outputs' elements), then the scan or output
 * elements of the earlier iterations, iteration-major; its attributes are "owner" (the
 * template's Loop or SequenceMap: every insertion is after the walk's node, so that index
 * never moves) and "iteration". A Loop so run needs its trip count and condition at compile time, and its
 * body's condition after each iteration; its scan outputs stack the iterations' elements
 * (an Unsqueeze of each and a Concat), which must share a shape. More than MAX_ITERATIONS
 * iterations or MAX_COPIED copied nodes are refused. Copies are named "<name>@<iteration>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_flow_layout.h"
#include "helpers/index_loops.h"
#include "unroll.h"

#define MAX_ITERATIONS 4096   /* a sequence's element limit (sequence.c) */
#define MAX_COPIED (1 << 18) /* body nodes copied for one construct */

typedef struct copy_ctx {
    int *map;   /* template tensor -> its value in this iteration, -1: itself (outer value) */
    int n_map;
    int *region; /* template region -> the copy's, 0: not met yet */
    int n_region;
} copy_ctx;

static int lookup(const copy_ctx *c, int t)
{
    return t >= 0 && t < c->n_map && c->map[t] >= 0 ? c->map[t] : t;
}

static int *dup_ints(const int *v, int n)
{
    int *d = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (d && n)
        memcpy(d, v, sizeof(int) * (size_t)n);
    return d;
}

/* The region a copied node (or nested body) takes for template region r. */
static int copy_region(wgc_graph *g, copy_ctx *c, int r)
{
    if (r <= 0 || r >= c->n_region)
        return r;
    if (!c->region[r])
        c->region[r] = ++g->n_regions;
    return c->region[r];
}

/* A deep copy of attribute a into node n (a nested body's values mapped, its region new). */
static bool copy_attr(wgc_graph *g, copy_ctx *c, int n, const wgc_attr *src)
{
    const wgc_attr a = *src;
    wgc_attr *d = wgc_attr_copy(g, n, &a);
    if (!d)
        return false;
    if (a.body) {
        if (!(d->body = calloc(1, sizeof *d->body)))
            return false;
        d->body->region = copy_region(g, c, a.body->region);
        d->body->n_inputs = a.body->n_inputs;
        d->body->n_outputs = a.body->n_outputs;
        if (!(d->body->inputs = dup_ints(a.body->inputs, a.body->n_inputs)) ||
            !(d->body->outputs = dup_ints(a.body->outputs, a.body->n_outputs)))
            return false;
        for (int k = 0; k < a.body->n_inputs; k++)
            d->body->inputs[k] = lookup(c, d->body->inputs[k]);
        for (int k = 0; k < a.body->n_outputs; k++)
            d->body->outputs[k] = lookup(c, d->body->outputs[k]);
    }
    return true;
}

/* Appends a copy of template node i for the suffix (every output a new tensor); a node of
 * the unrolled body (region) goes to the construct's region (to). */
static wg_status copy_node(wgc_graph *g, copy_ctx *c, int i, int region, int to, const char *suffix)
{
    char name[600];
    const wgc_node *src = &g->nodes[i];
    int *ins = dup_ints(src->inputs, src->n_inputs), *outs = dup_ints(src->outputs, src->n_outputs);
    if (!ins || !outs)
        goto nomem;
    for (int k = 0; k < src->n_inputs; k++)
        ins[k] = lookup(c, ins[k]);
    for (int k = 0; k < g->nodes[i].n_outputs; k++) {
        int t = outs[k];
        if (t < 0)
            continue;
        int y = wgc_tensor_add_derived(g, g->tensors[t].name, suffix);
        if (y < 0)
            goto nomem;
        c->map[t] = outs[k] = y;
    }
    src = &g->nodes[i];
    snprintf(name, sizeof name, "%s%s", src->name, suffix);
    int m = wgc_node_add(g, name, src->op_type, src->domain, ins, src->n_inputs, outs,
                         src->n_outputs);
    if (m < 0)
        goto nomem;
    src = &g->nodes[i];
    g->nodes[m].op = src->op;
    g->nodes[m].opset = src->opset;
    g->nodes[m].region = src->region == region ? to : copy_region(g, c, src->region);
    for (int k = 0; k < g->nodes[m].n_outputs; k++)
        if (outs[k] >= 0)
            g->tensors[outs[k]].producer = m;
    for (int a = 0; a < g->nodes[i].n_attrs; a++)
        if (!copy_attr(g, c, m, &g->nodes[i].attrs[a]))
            goto nomem;
    free(ins);
    free(outs);
    return WG_OK;
nomem:
    free(ins);
    free(outs);
    return wgc_error(g, &g->nodes[i], WG_ERR_NOMEM, "out of memory unrolling its body");
}

/* The template's parts: its BodyBegin, the owner's body. */
static int template_begin(const wgc_graph *g, int owner)
{
    return wgc_body_begin(g, owner);
}

static int body_outputs_at(const wgc_graph *g, int owner)
{
    const wgc_node *o = &g->nodes[owner];
    const wgc_body *b = wgc_attr_body(o, "body");
    if (o->op == WGC_OP_LOOP) /* ... body outputs, v_in [body inputs - 2] */
        return o->n_inputs - b->n_outputs - (b->n_inputs - 2);
    return o->n_inputs - o->n_outputs;
}

static wg_status add_int_attr(wgc_graph *g, int n, const char *name, int64_t v)
{
    wgc_attr *a = wgc_attr_add(g, n, name, WGC_ATTR_INT);
    if (!a)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory unrolling a body");
    a->i = v;
    return WG_OK;
}

/* A new constant scalar named "<base><suffix>". */
static int const_scalar(wgc_graph *g, const char *base, const char *suffix, int dtype, int64_t v)
{
    int t = wgc_tensor_add_derived(g, base, suffix);
    void *d = malloc(8);
    if (t < 0 || !d) {
        free(d);
        return -1;
    }
    if (dtype == WG_DT_BOOL)
        *(uint8_t *)d = v != 0;
    else
        *(int64_t *)d = v;
    wgc_shape scalar = {0};
    wgc_tensor_set_const(g, t, dtype, &scalar, d);
    return t;
}

/* Inserts iteration it at index at: the body copied with its inputs bound to bind[] (one per
 * body input), then a step whose inputs are the copy's body outputs and carry[n_carry]. */
static wg_status add_iteration(wgc_graph *g, int at, int owner, int it, const int *bind,
                               const int *carry, int n_carry)
{
    const int b = template_begin(g, owner);
    const wgc_body *body = wgc_attr_body(&g->nodes[owner], "body");
    const int region = body->region, n_out = body->n_outputs, first_out = body_outputs_at(g, owner);
    char suffix[32];
    snprintf(suffix, sizeof suffix, "@%d", it);
    if ((int64_t)(it + 1) * (owner - b - 1) > MAX_COPIED)
        return wgc_error(g, &g->nodes[owner], WG_ERR_LIMIT,
                         "unrolling it at compile time would copy its body of %d nodes %d times, "
                         "more than %d nodes", owner - b - 1, it + 1, MAX_COPIED);
    copy_ctx c = {.n_map = g->n_tensors, .n_region = g->n_regions + 1};
    c.map = malloc(sizeof(int) * (size_t)c.n_map);
    c.region = calloc((size_t)c.n_region, sizeof(int));
    int *ins = malloc(sizeof(int) * (size_t)(n_out + n_carry + 1));
    wg_status st = WG_OK;
    if (!c.map || !c.region || !ins) {
        st = wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory unrolling its body");
        goto done;
    }
    for (int t = 0; t < c.n_map; t++)
        c.map[t] = -1;
    for (int k = 0; k < body->n_inputs; k++)
        c.map[body->inputs[k]] = bind[k];
    const int from = g->n_nodes, o_region = g->nodes[owner].region;
    for (int i = b + 1; i < owner && !st; i++)
        st = copy_node(g, &c, i, region, o_region, suffix);
    if (st)
        goto done;
    for (int k = 0; k < n_out; k++)
        ins[k] = lookup(&c, g->nodes[owner].inputs[first_out + k]);
    if (n_carry)
        memcpy(ins + n_out, carry, sizeof(int) * (size_t)n_carry);
    char name[600];
    snprintf(name, sizeof name, "%s/step%d", g->nodes[owner].name, it);
    int s = wgc_node_add(g, name, "UnrollStep", "wasmgraph", ins, n_out + n_carry, NULL, 0);
    if (s < 0) {
        st = wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory unrolling its body");
        goto done;
    }
    g->nodes[s].op = WGC_OP_UNROLL_STEP;
    g->nodes[s].region = o_region;
    if ((st = add_int_attr(g, s, "owner", owner)) || (st = add_int_attr(g, s, "iteration", it)))
        goto done;
    st = wgc_graph_move_tail(g, at, from);
done:
    free(c.map);
    free(c.region);
    free(ins);
    return st;
}

/* Output y of the construct takes value f: a sequence's or optional's elements, or a
 * tensor's copy (an Identity appended to the nodes). */
static wg_status give_output(wgc_graph *g, int owner, int y, int f)
{
    if (y < 0)
        return WG_OK;
    const wgc_tensor *v = &g->tensors[f];
    if (v->kind != WGC_KIND_TENSOR) {
        int *elems = dup_ints(v->elems, v->n_elems);
        if (!elems)
            return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
        wg_status st = wgc_value_set(g, y, v->kind, v->dtype, elems, v->n_elems, v->present);
        free(elems);
        return st;
    }
    int m = wgc_node_add(g, g->tensors[y].name, "Identity", "", &f, 1, &y, 1);
    if (m < 0)
        return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    g->nodes[m].region = g->nodes[owner].region;
    g->nodes[m].opset = g->nodes[owner].opset;
    g->tensors[y].producer = m;
    return WG_OK;
}

static const char *const why_const =
    "its carried values include sequences or optionals, so it runs unrolled at compile time:";

/* Scan output y of the unrolled Loop: its count elements elems[j * stride] stacked along a
 * new axis 0 (an Unsqueeze of each, then a Concat, appended to the nodes). */
static wg_status stack_scan(wgc_graph *g, int owner, int k, int y, const int *elems, int count,
                            int stride)
{
    const wgc_node *o = &g->nodes[owner];
    if (!count)
        return wgc_error(g, o, WG_ERR_UNSUPPORTED,
                         "%s it runs no iteration, so the shape of scan output %d is not known",
                         why_const, k);
    const wgc_tensor *e0 = &g->tensors[elems[0]];
    char a[128], b[128];
    for (int j = 0; j < count; j++) {
        const wgc_tensor *e = &g->tensors[elems[j * stride]];
        if (e->kind != WGC_KIND_TENSOR)
            return wgc_error(g, o, WG_ERR_UNSUPPORTED,
                             "scan output %d ('%s') is a sequence or optional, which a scan output "
                             "cannot be", k, e->name);
        if (e->dtype != e0->dtype || !wgc_shape_eq(&e->shape, &e0->shape))
            return wgc_error(g, o, WG_ERR_INVALID,
                             "scan output %d is %s %s at iteration 0 but %s %s at iteration %d", k,
                             wg_dtype_name(e0->dtype), wgc_shape_str(&e0->shape, a, sizeof a),
                             wg_dtype_name(e->dtype), wgc_shape_str(&e->shape, b, sizeof b), j);
    }
    if (e0->shape.rank + 1 > WG_MAX_RANK)
        return wgc_error(g, o, WG_ERR_UNSUPPORTED, "scan output %d would have rank %d", k,
                         e0->shape.rank + 1);
    int64_t *zero = calloc(1, sizeof *zero);
    int axes = zero ? wgc_tensor_add_derived(g, g->tensors[y].name, "/axes") : -1;
    int *parts = malloc(sizeof(int) * (size_t)count);
    wg_status st = WG_OK;
    if (axes < 0 || !parts) {
        free(zero);
        st = wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
        goto done;
    }
    wgc_tensor_set_const(g, axes, WG_DT_INT64, &(wgc_shape){.rank = 1, .dims = {1}}, zero);
    const int region = g->nodes[owner].region;
    for (int j = 0; j < count && !st; j++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "@%d", j);
        const int ins[2] = {elems[j * stride], axes};
        int u = wgc_tensor_add_derived(g, g->tensors[y].name, suffix);
        int m = u < 0 ? -1 : wgc_node_add(g, g->tensors[u].name, "Unsqueeze", "", ins, 2, &u, 1);
        if (m < 0) {
            st = wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
            break;
        }
        g->nodes[m].opset = 13; /* axes as an input */
        g->nodes[m].region = region;
        g->tensors[u].producer = m;
        parts[j] = u;
    }
    int m = st ? -1 : wgc_node_add(g, g->tensors[y].name, "Concat", "", parts, count, &y, 1);
    wgc_attr *ax = m < 0 ? NULL : wgc_attr_add(g, m, "axis", WGC_ATTR_INT);
    if (!st && !ax) {
        st = wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    } else if (!st) {
        ax->i = 0;
        g->nodes[m].opset = 13;
        g->nodes[m].region = region;
        g->tensors[y].producer = m;
    }
done:
    free(parts);
    return st;
}

/* The Loop's outputs: its carried values final[] (at index at: their copies), then its scan
 * outputs, iteration j's element k at scans[j * K + k] (count iterations). */
static wg_status finish_loop(wgc_graph *g, int at, int owner, const int *final, const int *scans,
                             int count)
{
    const int from = g->n_nodes;
    wgc_cf_layout l;
    wg_status st = wgc_cf_layout_of(g, &g->nodes[owner], &l);
    for (int k = 0; k < l.n_state && !st; k++)
        st = give_output(g, owner, g->nodes[owner].outputs[k], final[k]);
    for (int k = 0; k < l.n_scan && !st; k++) {
        const int y = g->nodes[owner].outputs[l.n_state + k];
        if (y >= 0)
            st = stack_scan(g, owner, k, y, scans + k, count, l.n_scan);
    }
    return st ? st : wgc_graph_move_tail(g, at, from);
}

/* SequenceMap's outputs: output k the sequence of elems[j * n_out + k], j < count. */
static wg_status finish_map(wgc_graph *g, int owner, const int *elems, int count)
{
    const int n_out = g->nodes[owner].n_outputs;
    int *list = malloc(sizeof(int) * (size_t)(count ? count : 1));
    if (!list)
        return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    wg_status st = WG_OK;
    for (int k = 0; k < n_out && !st; k++) {
        for (int j = 0; j < count && !st; j++) {
            const wgc_tensor *e = &g->tensors[list[j] = elems[j * n_out + k]];
            if (e->kind != WGC_KIND_TENSOR)
                st = wgc_error(g, &g->nodes[owner], WG_ERR_UNSUPPORTED,
                               "body output %d ('%s') is a sequence or optional; a sequence of "
                               "such values is not supported", k, e->name);
            else if (e->dtype != g->tensors[list[0]].dtype)
                st = wgc_error(g, &g->nodes[owner], WG_ERR_INVALID,
                               "body output %d is %s at element 0 but %s at element %d", k,
                               wg_dtype_name(g->tensors[list[0]].dtype), wg_dtype_name(e->dtype),
                               j);
        }
        const int y = g->nodes[owner].outputs[k];
        if (!st && y >= 0)
            st = wgc_value_set(g, y, WGC_KIND_SEQUENCE, g->tensors[list[0]].dtype, list, count, -1);
    }
    free(list);
    return st;
}

/* ---- Loop ---------------------------------------------------------------------------- */


bool wgc_unroll_wanted(const wgc_graph *g, const wgc_node *owner)
{
    if (owner->op == WGC_OP_SEQUENCE_MAP)
        return true;
    const wgc_body *b = owner->op == WGC_OP_LOOP ? wgc_attr_body(owner, "body") : NULL;
    if (!b)
        return false;
    for (int k = 2; k < b->n_inputs && k < owner->n_inputs; k++)
        if (owner->inputs[k] >= 0 && g->tensors[owner->inputs[k]].kind != WGC_KIND_TENSOR)
            return true;
    return false;
}

/* Loop iteration it's body inputs: the iteration, the condition, the carried values. */
static wg_status loop_iteration(wgc_graph *g, int at, int owner, int it, int cond,
                                const int *carried, const int *scans, int n_scans)
{
    const wgc_body *body = wgc_attr_body(&g->nodes[owner], "body");
    const int n = body->n_inputs;
    int *bind = malloc(sizeof(int) * (size_t)n);
    if (!bind)
        return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    char suffix[32];
    snprintf(suffix, sizeof suffix, "@%d", it);
    bind[0] = const_scalar(g, g->tensors[body->inputs[0]].name, suffix, WG_DT_INT64, it);
    bind[1] = cond;
    for (int k = 2; k < n; k++)
        bind[k] = carried[k - 2];
    wg_status st = bind[0] < 0 ? wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory")
                               : add_iteration(g, at, owner, it, bind, scans, n_scans);
    free(bind);
    return st;
}

static wg_status loop_begin(wgc_graph *g, int owner)
{
    wgc_cf_layout l;
    wg_status st = wgc_cf_layout_of(g, &g->nodes[owner], &l);
    if (st)
        return st;
    int64_t m = -1, go = 1;
    char what[256];
    if (g->nodes[owner].inputs[0] >= 0) {
        snprintf(what, sizeof what, "%s the trip count M", why_const);
        if ((st = wgc_loop_const_scalar(g, &g->nodes[owner], 0, what, &m)))
            return st;
    }
    int cond = g->nodes[owner].inputs[1];
    if (cond >= 0) {
        snprintf(what, sizeof what, "%s the condition", why_const);
        if ((st = wgc_loop_const_scalar(g, &g->nodes[owner], 1, what, &go)))
            return st;
    } else if ((cond = const_scalar(g, g->nodes[owner].name, "/cond", WG_DT_BOOL, 1)) < 0) {
        return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    }
    int *carried = dup_ints(g->nodes[owner].inputs + 2, l.n_state);
    if (!carried)
        return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    for (int k = 0; k < l.n_state && !st; k++)
        if (carried[k] < 0)
            st = wgc_error(g, &g->nodes[owner], WG_ERR_INVALID,
                           "loop-carried value %d has no initial value", k);
    if (!st)
        st = m == 0 || !go ? finish_loop(g, owner + 1, owner, carried, NULL, 0)
                           : loop_iteration(g, owner + 1, owner, 0, cond, carried, NULL, 0);
    free(carried);
    return st;
}

/* After iteration it: the body's condition, carried values and scan elements at in[0],
 * in[1..N], in[N+1..N+K], then the scan elements of the iterations before (it * K). */
static wg_status loop_step(wgc_graph *g, int s, int owner, int it)
{
    const wgc_tensor *c = wgc_in(g, &g->nodes[s], 0);
    if (c->kind != WGC_KIND_TENSOR || c->dtype != WG_DT_BOOL || wgc_numel(&c->shape) != 1)
        return wgc_error(g, &g->nodes[owner], WG_ERR_INVALID,
                         "the body's condition '%s' must be one bool", c->name);
    if (!c->data) {
        const int gi = wgc_upstream_input(g, g->nodes[s].inputs[0], 0);
        char from[300] = "";
        if (gi >= 0) /* "'NAME' is computed at run time": the CLI suggests --const NAME */
            snprintf(from, sizeof from, " from graph input '%s', and '%s' is computed at run time",
                     g->tensors[gi].name, g->tensors[gi].name);
        return wgc_error(g, &g->nodes[owner], WG_ERR_UNSUPPORTED,
                         "%s the body's condition '%s' is computed at run time (iteration %d)%s, "
                         "so whether another iteration follows is not known",
                         why_const, c->name, it, from);
    }
    int64_t m = -1;
    if (g->nodes[owner].inputs[0] >= 0)
        m = wgc_const_int(wgc_in(g, &g->nodes[owner], 0), 0);
    const bool more = ((const uint8_t *)c->data)[0] && (m < 0 || it + 1 < m);
    wgc_cf_layout l;
    wg_status st = wgc_cf_layout_of(g, &g->nodes[owner], &l);
    if (st)
        return st;
    const int cond = g->nodes[s].inputs[0], n = g->nodes[s].n_inputs, K = l.n_scan;
    /* the scan elements so far, iteration-major: the earlier ones, then this iteration's */
    int *carried = dup_ints(g->nodes[s].inputs + 1, l.n_state);
    int *scans = malloc(sizeof(int) * (size_t)((it + 1) * K + 1));
    if (!carried || !scans) {
        free(carried);
        free(scans);
        return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    }
    memcpy(scans, g->nodes[s].inputs + 1 + l.n_state + K, sizeof(int) * (size_t)(it * K));
    memcpy(scans + it * K, g->nodes[s].inputs + 1 + l.n_state, sizeof(int) * (size_t)K);
    if (n != 1 + l.n_state + K + it * K)
        st = wgc_error(g, &g->nodes[s], WG_ERR_INVALID, "internal error: %d inputs", n);
    else if (more && it + 1 >= MAX_ITERATIONS)
        st = wgc_error(g, &g->nodes[owner], WG_ERR_LIMIT, "%s it would run more than %d iterations",
                       why_const, MAX_ITERATIONS);
    else if (more)
        st = loop_iteration(g, s + 1, owner, it + 1, cond, carried, scans, (it + 1) * K);
    else
        st = finish_loop(g, s + 1, owner, carried, scans, it + 1);
    free(carried);
    free(scans);
    return st;
}

/* ---- SequenceMap --------------------------------------------------------------------- */

/* The element count of SequenceMap's sequences (input 0 is one; the others sequences of as
 * many elements, or tensors given to every iteration). */
static wg_status map_count(wgc_graph *g, int owner, int *count)
{
    const wgc_node *o = &g->nodes[owner];
    const int n_in = wgc_attr_body(o, "body")->n_inputs;
    if (wgc_in_kind(g, o, 0) != WGC_KIND_SEQUENCE)
        return wgc_error(g, o, WG_ERR_INVALID, "input 0 must be a sequence");
    *count = wgc_in(g, o, 0)->n_elems;
    for (int k = 1; k < n_in; k++) {
        const wgc_tensor *x = wgc_in(g, o, k);
        if (!x)
            return wgc_error(g, o, WG_ERR_INVALID, "input %d is missing", k);
        if (x->kind == WGC_KIND_OPTIONAL)
            return wgc_error(g, o, WG_ERR_INVALID, "input %d must be a sequence or a tensor", k);
        if (x->kind == WGC_KIND_SEQUENCE && x->n_elems != *count)
            return wgc_error(g, o, WG_ERR_INVALID, "input %d has %d elements, input 0 %d", k,
                             x->n_elems, *count);
    }
    if (!*count) /* the outputs' element types come from the body, which then never runs */
        return wgc_error(g, o, WG_ERR_UNSUPPORTED,
                         "maps an empty sequence, which is not supported");
    return WG_OK;
}

/* SequenceMap iteration it: body input k is element it of input k, or input k itself. */
static wg_status map_iteration(wgc_graph *g, int at, int owner, int it, const int *carry,
                               int n_carry)
{
    const wgc_node *o = &g->nodes[owner];
    const int n_in = wgc_attr_body(o, "body")->n_inputs;
    int *bind = malloc(sizeof(int) * (size_t)n_in);
    if (!bind)
        return wgc_error(g, o, WG_ERR_NOMEM, "out of memory");
    for (int k = 0; k < n_in; k++) {
        const wgc_tensor *x = wgc_in(g, o, k);
        bind[k] = x->kind == WGC_KIND_SEQUENCE ? x->elems[it] : o->inputs[k];
    }
    wg_status st = add_iteration(g, at, owner, it, bind, carry, n_carry);
    free(bind);
    return st;
}

static wg_status map_step(wgc_graph *g, int s, int owner, int it)
{
    int count;
    wg_status st = map_count(g, owner, &count);
    if (st)
        return st;
    const int n_out = g->nodes[owner].n_outputs, n = g->nodes[s].n_inputs;
    /* the elements so far, iteration-major: the earlier ones, then this iteration's */
    int *all = malloc(sizeof(int) * (size_t)n);
    if (!all)
        return wgc_error(g, &g->nodes[owner], WG_ERR_NOMEM, "out of memory");
    memcpy(all, g->nodes[s].inputs + n_out, sizeof(int) * (size_t)(n - n_out));
    memcpy(all + n - n_out, g->nodes[s].inputs, sizeof(int) * (size_t)n_out);
    if (it + 1 < count)
        st = map_iteration(g, s + 1, owner, it + 1, all, n);
    else
        st = finish_map(g, owner, all, count);
    free(all);
    return st;
}

/* ---- the hooks ----------------------------------------------------------------------- */

wg_status wgc_unroll_begin(wgc_graph *g, int begin, int owner)
{
    wg_status st;
    /* the template: it never runs, and its marker has no values of its own to give */
    for (int i = begin; i <= owner; i++)
        g->nodes[i].dead = true;
    if ((st = wgc_node_set_outputs(g, &g->nodes[begin], NULL, 0)))
        return st;
    if (g->nodes[owner].op == WGC_OP_LOOP)
        return loop_begin(g, owner);
    int count;
    if ((st = map_count(g, owner, &count)))
        return st;
    return map_iteration(g, owner + 1, owner, 0, NULL, 0);
}

static wg_status unroll_infer(wgc_graph *g, wgc_node *n)
{
    if (n->op != WGC_OP_UNROLL_STEP) /* SequenceMap's BodyBegin unrolls it (wgc_unroll_begin) */
        return wgc_error(g, n, WG_ERR_INVALID,
                         "internal error: a SequenceMap that was not unrolled");
    const int s = (int)(n - g->nodes), owner = (int)wgc_attr_int(n, "owner", -1);
    const int it = (int)wgc_attr_int(n, "iteration", -1);
    if (owner < 0 || owner >= s || it < 0)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "internal error: an UnrollStep without its construct");
    n->dead = true;
    if (g->nodes[owner].op == WGC_OP_LOOP)
        return loop_step(g, s, owner, it);
    return map_step(g, s, owner, it);
}

const wgc_op_def wgc_op_unroll = {.infer = unroll_infer};
