/*
 * expand_gradient.c: replaces each Gradient node (ai.onnx.preview.training) by ordinary
 * ONNX nodes that compute d y / d xs[i] by reverse-mode differentiation.
 *
 * Runs after shape inference, so every forward tensor has its shape. For one Gradient
 * node: the forward nodes on a path from some xs to y are found (a forward walk marks
 * what depends on xs, a backward walk from y keeps what y needs); then, walking those
 * nodes backwards from a seed of ones shaped like y, each node adds the gradient of its
 * inputs, summed with Add when a tensor feeds several nodes. A gradient computed in a
 * broadcast shape is brought back to its input's shape by ReduceSum (keepdims) over the
 * broadcast axes and a Reshape. The new nodes are inferred (and folded when constant) as
 * they are made, then moved to where the Gradient node stands, which is marked dead; an
 * Identity writes each result into the Gradient's output tensor. Forward nodes that were
 * folded still describe the computation and are differentiated like the others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ops/arity.h"
#include "../ops/op.h"
#include "passes.h"

typedef struct ctx {
    wgc_graph *g;
    int gnode;   /* the Gradient node (stays put while new nodes are appended) */
    int counter; /* suffix for fresh names */
    int *grad;   /* per forward tensor: its gradient tensor, -1 for none yet */
} ctx;

static bool node_name_used(const wgc_graph *g, const char *name)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].name, name))
            return true;
    return false;
}

/* A name "<gradient node>/<tag>_<k>" that no tensor and no node has. */
static void fresh_name(ctx *c, const char *tag, char *buf, size_t len)
{
    const char *base = c->g->nodes[c->gnode].name;
    do
        snprintf(buf, len, "%s/%s_%d", base, tag, c->counter++);
    while (wgc_tensor_find(c->g, buf) >= 0 || node_name_used(c->g, buf));
}

/* Appends node op_type(ins) writing tensor `out` (a fresh tensor when out < 0), infers
 * it and folds it when its inputs are constant, as passes/infer.c does. */
static wg_status add_node(ctx *c, const char *op_type, const int *ins, int n_in, int out,
                          int *result)
{
    wgc_graph *g = c->g;
    char name[256];
    if (out < 0) {
        fresh_name(c, "d", name, sizeof name);
        if ((out = wgc_tensor_add(g, name)) < 0)
            return wgc_error(g, &g->nodes[c->gnode], WG_ERR_NOMEM, "out of memory adding a tensor");
    }
    fresh_name(c, op_type, name, sizeof name);
    int k = wgc_node_add(g, name, op_type, "", ins, n_in, &out, 1);
    if (k < 0)
        return wgc_error(g, &g->nodes[c->gnode], WG_ERR_NOMEM, "out of memory adding node %s",
                         name);
    wgc_node *n = &g->nodes[k];
    /* Opset 13 semantics for what we build (ReduceSum takes its axes as an input). */
    if (n->opset < 13)
        n->opset = 13;
    g->tensors[out].producer = k;
    wg_status st = wgc_check_required(g, n);
    if (!st)
        st = wgc_op_hooks(n->op)->infer(g, n);
    if (st)
        return st;
    const wgc_op_def *op = wgc_op_hooks(n->op);
    if (op->fold && wgc_inputs_const(g, n) && (st = wgc_run_fold(g, n)))
        return st;
    *result = out;
    return WG_OK;
}

static wg_status node1(ctx *c, const char *op_type, int a, int *result)
{
    return add_node(c, op_type, &a, 1, -1, result);
}

static wg_status node2(ctx *c, const char *op_type, int a, int b, int *result)
{
    int ins[2] = {a, b};
    return add_node(c, op_type, ins, 2, -1, result);
}

/* A new constant tensor of dtype (float or double) and shape, every element v. */
static wg_status const_fill(ctx *c, int dtype, const wgc_shape *shape, double v, int *result)
{
    wgc_graph *g = c->g;
    char name[256];
    int64_t count = wgc_numel(shape);
    size_t esz = wg_dtype_size(dtype);
    void *data = malloc((size_t)(count ? count : 1) * esz);
    fresh_name(c, "const", name, sizeof name);
    int t = data ? wgc_tensor_add(g, name) : -1;
    if (t < 0) {
        free(data);
        return wgc_error(g, &g->nodes[c->gnode], WG_ERR_NOMEM, "out of memory adding a constant");
    }
    for (int64_t i = 0; i < count; i++)
        if (dtype == WG_DT_DOUBLE)
            ((double *)data)[i] = v;
        else
            ((float *)data)[i] = (float)v;
    wgc_tensor_set_const(g, t, dtype, shape, data);
    *result = t;
    return WG_OK;
}

/* A new 1-D int64 constant holding vals[0..count). */
static wg_status const_ints(ctx *c, const int64_t *vals, int count, int *result)
{
    wgc_graph *g = c->g;
    char name[256];
    int64_t *data = malloc(sizeof(int64_t) * (size_t)(count ? count : 1));
    fresh_name(c, "const", name, sizeof name);
    int t = data ? wgc_tensor_add(g, name) : -1;
    if (t < 0) {
        free(data);
        return wgc_error(g, &g->nodes[c->gnode], WG_ERR_NOMEM, "out of memory adding a constant");
    }
    if (count)
        memcpy(data, vals, sizeof(int64_t) * (size_t)count);
    wgc_shape s = {.rank = 1, .dims = {count}};
    wgc_tensor_set_const(g, t, WG_DT_INT64, &s, data);
    *result = t;
    return WG_OK;
}

/* A scalar constant of t's dtype. */
static wg_status scalar_like(ctx *c, int t, double v, int *result)
{
    wgc_shape s = {.rank = 0};
    return const_fill(c, c->g->tensors[t].dtype, &s, v, result);
}

/* Sums gradient gt (shaped like the broadcast result) down to shape `to`. */
static wg_status unbroadcast(ctx *c, int gt, const wgc_shape *to_shape, int *result)
{
    wgc_graph *g = c->g;
    wgc_shape from = g->tensors[gt].shape, to = *to_shape;
    wg_status st;
    if (wgc_shape_eq(&from, &to)) {
        *result = gt;
        return WG_OK;
    }
    char a[128], b[128];
    if (to.rank > from.rank)
        return wgc_error(g, &g->nodes[c->gnode], WG_ERR_INVALID,
                         "cannot sum a gradient of shape %s down to shape %s",
                         wgc_shape_str(&from, a, sizeof a), wgc_shape_str(&to, b, sizeof b));
    int64_t axes[WG_MAX_RANK];
    int n_axes = 0, off = from.rank - to.rank;
    for (int i = 0; i < from.rank; i++)
        if (i < off || (to.dims[i - off] == 1 && from.dims[i] != 1))
            axes[n_axes++] = i;
    int cur = gt, t;
    if (n_axes) {
        if ((st = const_ints(c, axes, n_axes, &t)) || (st = node2(c, "ReduceSum", cur, t, &cur)))
            return st;
    }
    if (!wgc_shape_eq(&g->tensors[cur].shape, &to)) {
        if ((st = const_ints(c, to.dims, to.rank, &t)) || (st = node2(c, "Reshape", cur, t, &cur)))
            return st;
    }
    *result = cur;
    return WG_OK;
}

/* grad[x] += contribution (contribution already has x's shape). */
static wg_status accumulate(ctx *c, int x, int contribution)
{
    if (c->grad[x] < 0) {
        c->grad[x] = contribution;
        return WG_OK;
    }
    return node2(c, "Add", c->grad[x], contribution, &c->grad[x]);
}

/* Unbroadcasts contribution to x's shape and accumulates it. */
static wg_status give(ctx *c, int x, int contribution)
{
    wgc_shape s = c->g->tensors[x].shape;
    int t;
    wg_status st = unbroadcast(c, contribution, &s, &t);
    return st ? st : accumulate(c, x, t);
}

static bool differentiable(wgc_op op)
{
    switch (op) {
    case WGC_OP_ADD: case WGC_OP_SUB: case WGC_OP_MUL: case WGC_OP_DIV: case WGC_OP_NEG:
    case WGC_OP_IDENTITY: case WGC_OP_RELU: case WGC_OP_SIGMOID: case WGC_OP_TANH:
    case WGC_OP_EXP: case WGC_OP_LOG: case WGC_OP_SQRT: case WGC_OP_MATMUL:
        return true;
    default:
        return false;
    }
}

/* Adds the gradients of forward node f's inputs given gy, the gradient of its output.
 * reach[t]: tensor t depends on some xs (only those inputs get a gradient). */
static wg_status backward(ctx *c, int f, int gy, const bool *reach)
{
    wgc_graph *g = c->g;
    /* Copies: adding nodes moves g->nodes. */
    wgc_op op = g->nodes[f].op;
    int a = g->nodes[f].inputs[0];
    int b = g->nodes[f].n_inputs > 1 ? g->nodes[f].inputs[1] : -1;
    int y = g->nodes[f].outputs[0];
    bool ra = reach[a], rb = b >= 0 && reach[b];
    int t, u, k;
    wg_status st = WG_OK;
    switch (op) {
    case WGC_OP_ADD:
        if (ra && (st = give(c, a, gy)))
            return st;
        if (rb)
            st = give(c, b, gy);
        return st;
    case WGC_OP_SUB:
        if (ra && (st = give(c, a, gy)))
            return st;
        if (rb && !(st = node1(c, "Neg", gy, &t)))
            st = give(c, b, t);
        return st;
    case WGC_OP_MUL:
        if (ra && ((st = node2(c, "Mul", gy, b, &t)) || (st = give(c, a, t))))
            return st;
        if (rb && !(st = node2(c, "Mul", gy, a, &t)))
            st = give(c, b, t);
        return st;
    case WGC_OP_DIV: /* y = a / b: da = gy / b, db = -gy * y / b */
        if (ra && ((st = node2(c, "Div", gy, b, &t)) || (st = give(c, a, t))))
            return st;
        if (rb && !(st = node2(c, "Mul", gy, y, &t)) && !(st = node2(c, "Div", t, b, &t)) &&
            !(st = node1(c, "Neg", t, &t)))
            st = give(c, b, t);
        return st;
    case WGC_OP_NEG:
        return (st = node1(c, "Neg", gy, &t)) ? st : give(c, a, t);
    case WGC_OP_IDENTITY:
        return give(c, a, gy);
    case WGC_OP_RELU: /* Sign(y) is 1 where x > 0 and 0 elsewhere */
        if ((st = node1(c, "Sign", y, &t)) || (st = node2(c, "Mul", gy, t, &t)))
            return st;
        return give(c, a, t);
    case WGC_OP_SIGMOID: /* gy * y * (1 - y) */
    case WGC_OP_TANH:    /* gy * (1 - y * y) */
        if ((st = scalar_like(c, y, 1.0, &k)))
            return st;
        if (op == WGC_OP_SIGMOID) {
            if ((st = node2(c, "Sub", k, y, &t)) || (st = node2(c, "Mul", y, t, &t)))
                return st;
        } else if ((st = node2(c, "Mul", y, y, &t)) || (st = node2(c, "Sub", k, t, &t))) {
            return st;
        }
        return (st = node2(c, "Mul", gy, t, &t)) ? st : give(c, a, t);
    case WGC_OP_EXP:
        return (st = node2(c, "Mul", gy, y, &t)) ? st : give(c, a, t);
    case WGC_OP_LOG:
        return (st = node2(c, "Div", gy, a, &t)) ? st : give(c, a, t);
    case WGC_OP_SQRT: /* gy * 0.5 / y */
        if ((st = scalar_like(c, y, 0.5, &k)) || (st = node2(c, "Mul", gy, k, &t)) ||
            (st = node2(c, "Div", t, y, &t)))
            return st;
        return give(c, a, t);
    case WGC_OP_MATMUL: /* y = A B: dA = gy B^T, dB = A^T gy (2-D, checked before) */
        if (ra && ((st = node1(c, "Transpose", b, &u)) || (st = node2(c, "MatMul", gy, u, &t)) ||
                   (st = give(c, a, t))))
            return st;
        if (rb && !(st = node1(c, "Transpose", a, &u)) && !(st = node2(c, "MatMul", u, gy, &t)))
            st = give(c, b, t);
        return st;
    default:
        return wgc_error(g, &g->nodes[f], WG_ERR_UNSUPPORTED, "Gradient through '%s' is not supported",
                         g->nodes[f].op_type);
    }
}

/* A node the differentiation may walk: live, or folded (dead with constant outputs). */
static bool usable(const wgc_graph *g, const wgc_node *n)
{
    if (n->op == WGC_OP_GRADIENT)
        return false;
    if (!n->dead)
        return true;
    for (int k = 0; k < n->n_outputs; k++)
        if (n->outputs[k] >= 0 && !g->tensors[n->outputs[k]].data)
            return false;
    return true;
}

/* Expands Gradient node gi; on success its replacement stands at gi.. and *next is the
 * index after the (now dead) Gradient node. */
static wg_status expand_one(wgc_graph *g, int gi, int *next)
{
    const wgc_node *gn = &g->nodes[gi];
    const wgc_attr *xa = wgc_attr_find(gn, "xs");
    const char *yname = wgc_attr_str(gn, "y", NULL);
    int n_fwd = g->n_tensors, n_nodes = g->n_nodes, first_new = g->n_nodes;
    ctx c = {.g = g, .gnode = gi};
    bool *reach = calloc((size_t)n_fwd, sizeof *reach);
    bool *need = calloc((size_t)n_fwd, sizeof *need);
    bool *on_path = calloc((size_t)n_nodes, sizeof *on_path);
    int *xs = NULL;
    int n_xs = 0, y = -1;
    wg_status st = WG_OK;
    c.grad = malloc(sizeof(int) * (size_t)n_fwd);
    if (!reach || !need || !on_path || !c.grad) {
        st = wgc_error(g, gn, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    /* infer (gradient.c) checked the attributes and that every xs names a tensor. */
    if (!xa || xa->type != WGC_ATTR_STRINGS || !yname || (size_t)gn->n_outputs != xa->n) {
        st = wgc_error(g, gn, WG_ERR_INVALID, "needs attributes xs (one per output) and y");
        goto fail;
    }
    n_xs = (int)xa->n;
    if (!(xs = malloc(sizeof(int) * (size_t)n_xs))) {
        st = wgc_error(g, gn, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < n_xs; i++)
        if ((xs[i] = wgc_tensor_find(g, xa->strings[i])) < 0) {
            st = wgc_error(g, gn, WG_ERR_INVALID, "xs[%d] '%s' is no tensor", i, xa->strings[i]);
            goto fail;
        }
    if ((y = wgc_tensor_find(g, yname)) < 0 || !g->tensors[y].has_shape) {
        st = wgc_error(g, gn, WG_ERR_INVALID, "y '%s' is no tensor with a known shape", yname);
        goto fail;
    }
    for (int t = 0; t < n_fwd; t++)
        c.grad[t] = -1;
    for (int i = 0; i < n_xs; i++)
        reach[xs[i]] = true;
    /* Forward: what depends on xs. Backward: which of those y needs. */
    for (int i = 0; i < n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        bool any = false;
        if (!usable(g, n))
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            any |= n->inputs[k] >= 0 && reach[n->inputs[k]];
        for (int k = 0; any && k < n->n_outputs; k++)
            if (n->outputs[k] >= 0)
                reach[n->outputs[k]] = true;
    }
    need[y] = reach[y];
    for (int i = n_nodes - 1; i >= 0; i--) {
        const wgc_node *n = &g->nodes[i];
        bool wanted = false;
        if (!usable(g, n))
            continue;
        for (int k = 0; k < n->n_outputs; k++)
            wanted |= n->outputs[k] >= 0 && need[n->outputs[k]];
        if (!wanted)
            continue;
        on_path[i] = true;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && reach[n->inputs[k]])
                need[n->inputs[k]] = true;
    }
    /* Refuse before building anything. */
    for (int i = 0; i < n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        if (!on_path[i])
            continue;
        if (i > gi) {
            st = wgc_error(g, gn, WG_ERR_UNSUPPORTED,
                           "y '%s' is computed by node '%s', which comes after the Gradient node",
                           yname, n->name);
            goto fail;
        }
        if (!differentiable(n->op)) {
            st = wgc_error(g, n, WG_ERR_UNSUPPORTED,
                           "Gradient through '%s' is not supported (on the path from xs to y "
                           "'%s' of Gradient node '%s')",
                           n->op_type, yname, gn->name);
            goto fail;
        }
        if (n->op == WGC_OP_MATMUL &&
            (wgc_in(g, n, 0)->shape.rank != 2 || wgc_in(g, n, 1)->shape.rank != 2)) {
            st = wgc_error(g, n, WG_ERR_UNSUPPORTED,
                           "Gradient through MatMul is supported for 2-D inputs only, not rank "
                           "%d x %d", wgc_in(g, n, 0)->shape.rank, wgc_in(g, n, 1)->shape.rank);
            goto fail;
        }
    }
    int dt = g->tensors[y].dtype;
    if (reach[y] && dt != WG_DT_FLOAT && dt != WG_DT_DOUBLE) {
        st = wgc_error(g, gn, WG_ERR_UNSUPPORTED, "y '%s' has dtype %s; only float and double "
                       "are differentiated", yname, wg_dtype_name(dt));
        goto fail;
    }
    if (reach[y]) {
        wgc_shape ys = g->tensors[y].shape;
        if ((st = const_fill(&c, dt, &ys, 1.0, &c.grad[y])))
            goto fail;
    }
    for (int i = gi - 1; i >= 0; i--) {
        if (!on_path[i])
            continue;
        int gy = c.grad[g->nodes[i].outputs[0]];
        if (gy >= 0 && (st = backward(&c, i, gy, reach)))
            goto fail;
    }
    /* Results into the Gradient's own output tensors (zeros where y ignores x). */
    for (int i = 0; i < n_xs; i++) {
        int out = g->nodes[gi].outputs[i], r = c.grad[xs[i]], unused;
        if (out < 0)
            continue;
        if (r < 0) {
            wgc_shape xsh = g->tensors[xs[i]].shape;
            if ((st = const_fill(&c, g->tensors[xs[i]].dtype, &xsh, 0.0, &r)))
                goto fail;
        }
        if ((st = add_node(&c, "Identity", &r, 1, out, &unused)))
            goto fail;
    }
    g->nodes[gi].dead = true;
    if ((st = wgc_graph_move_tail(g, gi, first_new)))
        goto fail;
    *next = gi + (g->n_nodes - first_new) + 1;
fail:
    free(reach);
    free(need);
    free(on_path);
    free(c.grad);
    free(xs);
    return st;
}

wg_status wgc_pass_expand_gradient(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    for (int i = 0; i < g->n_nodes;) {
        if (g->nodes[i].dead || g->nodes[i].op != WGC_OP_GRADIENT) {
            i++;
            continue;
        }
        wg_status st = expand_one(g, i, &i);
        if (st)
            return st;
    }
    return WG_OK;
}
