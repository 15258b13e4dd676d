/*
 * test_gradient.c: the Gradient expansion pass (passes/expand_gradient.c).
 *
 * Checks: y = (a + b) * a with a[2,3], b[3] (broadcast) gives the hand-derived
 * dy/da = 2a + b and dy/db[j] = sum_i a[i][j]; every supported forward op (Add, Sub, Mul,
 * Div, Neg, Identity, Relu, Sigmoid, Tanh, Exp, Log, Sqrt, 2-D MatMul) matches central
 * finite differences of sum(y); an x that y does not depend on gets zeros; with graph
 * inputs (nothing folds) the new nodes stand where the Gradient node was, in topological
 * order, with producer indices that match; an op outside the list is a clear
 * WG_ERR_UNSUPPORTED naming it. Values come from constant folding: with constant a and b
 * every new node folds (MatMul, which has no fold hook, is computed by the test), so no
 * module needs to run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ops/op.h"
#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

static char *dup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

/* A float tensor: a graph input when data is NULL, else a constant copy of data. */
static int tensor(wgc_graph *g, const char *name, int rank, const int64_t *dims, const float *data)
{
    int t = wgc_tensor_add(g, name);
    wgc_shape s = {.rank = rank};
    for (int d = 0; d < rank; d++)
        s.dims[d] = dims[d];
    if (data) {
        size_t n = (size_t)wgc_numel(&s);
        float *v = malloc(sizeof(float) * (n ? n : 1));
        memcpy(v, data, sizeof(float) * n);
        wgc_tensor_set_const(g, t, WG_DT_FLOAT, &s, v);
        return t;
    }
    wgc_tensor *x = &g->tensors[t];
    x->dtype = WG_DT_FLOAT;
    x->is_input = true;
    x->shape = s;
    x->has_shape = true;
    g->inputs = realloc(g->inputs, sizeof(int) * (size_t)(g->n_inputs + 1));
    g->inputs[g->n_inputs++] = t;
    return t;
}

static int op2(wgc_graph *g, const char *type, int a, int b, const char *out_name)
{
    int in[2] = {a, b};
    int out = wgc_tensor_add(g, out_name);
    int n = wgc_node_add(g, out_name, type, "", in, b < 0 ? 1 : 2, &out, 1);
    g->tensors[out].producer = n;
    return out;
}

static int op1(wgc_graph *g, const char *type, int a, const char *out_name)
{
    return op2(g, type, a, -1, out_name);
}

/* Gradient(xs = names, y = yname) with outputs "d_<x>"; returns the node index. */
static int gradient(wgc_graph *g, const char *const *names, int n, const char *yname)
{
    int in[4], out[4];
    char buf[64];
    for (int i = 0; i < n; i++) {
        in[i] = wgc_tensor_find(g, names[i]);
        snprintf(buf, sizeof buf, "d_%s", names[i]);
        out[i] = wgc_tensor_add(g, buf);
    }
    int k = wgc_node_add(g, "grad", "Gradient", "ai.onnx.preview.training", in, n, out, n);
    for (int i = 0; i < n; i++) {
        g->tensors[out[i]].producer = k;
        tg_output(g, out[i]);
    }
    wgc_attr *xs = wgc_attr_add(g, k, "xs", WGC_ATTR_STRINGS);
    xs->n = (size_t)n;
    xs->strings = calloc((size_t)n, sizeof(char *));
    for (int i = 0; i < n; i++)
        xs->strings[i] = dup(names[i]);
    xs->s = dup(names[0]);
    xs->s_len = strlen(names[0]);
    wgc_attr *ya = wgc_attr_add(g, k, "y", WGC_ATTR_STRING);
    ya->s = dup(yname);
    ya->s_len = strlen(yname);
    return k;
}

/* MatMul does not fold, so this computes 2-D float MatMul nodes by hand and runs the
 * fold hooks of the rest, in node order, until every value is a constant. */
static void evaluate(wgc_graph *g)
{
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        bool constant = true;
        for (int k = 0; k < n->n_inputs; k++)
            constant &= n->inputs[k] < 0 || g->tensors[n->inputs[k]].data != NULL;
        if (n->dead || !constant)
            continue;
        if (n->op != WGC_OP_MATMUL) {
            const wgc_op_def *op = wgc_op_hooks(n->op);
            if (op->fold && op->fold(g, n) == WG_OK)
                n->dead = true;
            continue;
        }
        const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1);
        int64_t m = x->shape.dims[0], kk = x->shape.dims[1], nn = w->shape.dims[1];
        float *y = calloc((size_t)(m * nn), sizeof(float));
        for (int64_t r = 0; r < m; r++)
            for (int64_t c = 0; c < nn; c++)
                for (int64_t j = 0; j < kk; j++)
                    y[r * nn + c] += ((float *)x->data)[r * kk + j] * ((float *)w->data)[j * nn + c];
        wgc_shape s = {.rank = 2, .dims = {m, nn}};
        wgc_tensor_set_const(g, n->outputs[0], WG_DT_FLOAT, &s, y);
        n->dead = true;
    }
}

static wg_status run_passes(wgc_graph *g, bool expand)
{
    wgc_pass_options o = {.n_shapes = 0};
    wg_status st = wgc_pass_infer(g, &o);
    if (!st && expand)
        st = wgc_pass_expand_gradient(g, &o);
    if (!st)
        evaluate(g);
    return st;
}

/* A test program: builds y from a and b (constants when data given) plus a Gradient
 * node on xs = {a, b}. */
typedef struct prog {
    const char *name;
    int ra, rb;
    int64_t da[2], db[2];
    int (*build)(wgc_graph *g, int a, int b); /* returns y */
} prog;

static int build_broadcast(wgc_graph *g, int a, int b)
{
    return op2(g, "Mul", op2(g, "Add", a, b, "s"), a, "y");
}

/* Every elementwise op on the list, with broadcasting between a[2,3] and b[3]. */
static int build_elementwise(wgc_graph *g, int a, int b)
{
    int s = op2(g, "Sub", a, b, "s");
    int r = op1(g, "Relu", op1(g, "Identity", s, "s_id"), "r");
    int e = op1(g, "Exp", op1(g, "Tanh", a, "th"), "e");
    int q = op1(g, "Sqrt", e, "q");
    int l = op1(g, "Log", op1(g, "Sigmoid", b, "sg"), "l");
    int d = op2(g, "Div", op1(g, "Neg", l, "nl"), e, "d");
    return op2(g, "Add", op2(g, "Mul", r, q, "rq"), d, "y");
}

static int build_matmul(wgc_graph *g, int a, int b)
{
    return op1(g, "Tanh", op2(g, "MatMul", a, b, "mm"), "y");
}

static wgc_graph *make(const prog *p, const float *a, const float *b, bool with_gradient)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int ta = tensor(g, "a", p->ra, p->da, a);
    int tb = tensor(g, "b", p->rb, p->db, b);
    int y = p->build(g, ta, tb);
    tg_output(g, y);
    if (with_gradient) {
        const char *xs[2] = {"a", "b"};
        gradient(g, xs, 2, "y");
    }
    return g;
}

static int64_t numel(int r, const int64_t *d)
{
    int64_t n = 1;
    for (int i = 0; i < r; i++)
        n *= d[i];
    return n;
}

/* sum(y) with a and b constant, by folding. */
static double forward_sum(const prog *p, const float *a, const float *b)
{
    wgc_graph *g = make(p, a, b, false);
    double s = NAN;
    if (!run_passes(g, false)) {
        const wgc_tensor *y = &g->tensors[g->outputs[0]];
        if (y->data) {
            s = 0;
            for (int64_t i = 0; i < wgc_numel(&y->shape); i++)
                s += ((const float *)y->data)[i];
        }
    }
    wgc_graph_free(g);
    return s;
}

/* Compares the folded gradients against central differences of sum(y). */
static void check_fd(const prog *p, const float *a0, const float *b0)
{
    int64_t na = numel(p->ra, p->da), nb = numel(p->rb, p->db);
    wgc_graph *g = make(p, a0, b0, true);
    wg_status st = run_passes(g, true);
    CHECK(st == WG_OK, "%s: %s", p->name, g->err);
    if (st) {
        wgc_graph_free(g);
        return;
    }
    const wgc_tensor *ga = &g->tensors[wgc_tensor_find(g, "d_a")];
    const wgc_tensor *gb = &g->tensors[wgc_tensor_find(g, "d_b")];
    CHECK(ga->data && gb->data, "%s: gradients of constants must fold", p->name);
    CHECK(wgc_numel(&ga->shape) == na && wgc_numel(&gb->shape) == nb, "%s: gradient sizes",
          p->name);
    if (!ga->data || !gb->data) {
        wgc_graph_free(g);
        return;
    }
    float a[16], b[16];
    const float eps = 1e-2f;
    for (int which = 0; which < 2; which++) {
        int64_t n = which ? nb : na;
        const float *got = which ? gb->data : ga->data;
        for (int64_t i = 0; i < n; i++) {
            memcpy(a, a0, sizeof(float) * (size_t)na);
            memcpy(b, b0, sizeof(float) * (size_t)nb);
            float *x = which ? b : a;
            x[i] += eps;
            double up = forward_sum(p, a, b);
            x[i] -= 2 * eps;
            double down = forward_sum(p, a, b);
            double want = (up - down) / (2 * eps);
            CHECK(fabs(got[i] - want) <= 1e-2 * (1 + fabs(want)), "%s: d%c[%lld] = %g, finite "
                  "differences say %g", p->name, which ? 'b' : 'a', (long long)i, got[i], want);
        }
    }
    wgc_graph_free(g);
}

static const float A6[6] = {0.5f, -1.25f, 2.0f, 1.5f, 0.75f, -0.3f};
static const float B3[3] = {0.25f, -0.5f, 1.1f};

TEST(broadcast_matches_hand_values)
{
    prog p = {"broadcast", 2, 1, {2, 3}, {3}, build_broadcast};
    wgc_graph *g = make(&p, A6, B3, true);
    wg_status st = run_passes(g, true);
    CHECK(st == WG_OK, "%s", g->err);
    const wgc_tensor *ga = &g->tensors[wgc_tensor_find(g, "d_a")];
    const wgc_tensor *gb = &g->tensors[wgc_tensor_find(g, "d_b")];
    CHECK(!st && ga->data && gb->data, "gradients of constants must fold");
    if (!st && ga->data && gb->data) {
        CHECK(ga->shape.rank == 2 && ga->shape.dims[0] == 2 && ga->shape.dims[1] == 3,
              "d_a must be 2x3, is rank %d", ga->shape.rank);
        CHECK(gb->shape.rank == 1 && gb->shape.dims[0] == 3, "d_b must be [3], is rank %d",
              gb->shape.rank);
        for (int i = 0; i < 6; i++) {
            float want = 2 * A6[i] + B3[i % 3];
            CHECK(fabsf(((float *)ga->data)[i] - want) < 1e-5f, "d_a[%d] = %g, want 2a+b = %g", i,
                  ((float *)ga->data)[i], want);
        }
        for (int j = 0; j < 3; j++) {
            float want = A6[j] + A6[3 + j];
            CHECK(fabsf(((float *)gb->data)[j] - want) < 1e-5f, "d_b[%d] = %g, want sum_i a = %g",
                  j, ((float *)gb->data)[j], want);
        }
    }
    wgc_graph_free(g);
}

TEST(every_op_matches_finite_differences)
{
    prog bc = {"broadcast", 2, 1, {2, 3}, {3}, build_broadcast};
    check_fd(&bc, A6, B3);
    prog el = {"elementwise", 2, 1, {2, 3}, {3}, build_elementwise};
    check_fd(&el, A6, B3);
    static const float M[12] = {0.1f, -0.2f, 0.3f, 0.05f, 0.4f, -0.1f,
                                0.2f, 0.15f, -0.3f, 0.25f, 0.1f, -0.05f};
    prog mm = {"matmul", 2, 2, {2, 3}, {3, 4}, build_matmul};
    check_fd(&mm, A6, M);
}

TEST(unused_x_gets_zeros)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int64_t d3[1] = {3};
    int a = tensor(g, "a", 1, d3, NULL);
    tensor(g, "c", 1, d3, NULL);
    tg_output(g, op1(g, "Exp", a, "y"));
    const char *xs[2] = {"a", "c"};
    gradient(g, xs, 2, "y");
    wg_status st = run_passes(g, true);
    CHECK(st == WG_OK, "%s", g->err);
    const wgc_tensor *gc = &g->tensors[wgc_tensor_find(g, "d_c")];
    CHECK(gc->data && gc->dtype == WG_DT_FLOAT && wgc_numel(&gc->shape) == 3,
          "d_c must be a constant float[3]");
    for (int i = 0; gc->data && i < 3; i++)
        CHECK(((float *)gc->data)[i] == 0.0f, "d_c[%d] = %g, want 0", i, ((float *)gc->data)[i]);
    wgc_graph_free(g);
}

TEST(new_nodes_stand_in_order_with_fixed_producers)
{
    /* Inputs, not constants: nothing folds. A node after the Gradient reads its output,
     * so the inserted block must go before it. */
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int64_t d23[2] = {2, 3}, d3[1] = {3};
    int a = tensor(g, "a", 2, d23, NULL);
    int b = tensor(g, "b", 1, d3, NULL);
    tg_output(g, build_broadcast(g, a, b));
    const char *xs[2] = {"a", "b"};
    int gi = gradient(g, xs, 2, "y");
    int after = op1(g, "Neg", wgc_tensor_find(g, "d_b"), "after");
    tg_output(g, after);
    int before = g->n_nodes;
    wg_status st = run_passes(g, true);
    CHECK(st == WG_OK, "%s", g->err);
    CHECK(g->n_nodes > before, "no nodes were added");
    int grad_at = -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == WGC_OP_GRADIENT)
            grad_at = i;
    CHECK(grad_at > gi && g->nodes[grad_at].dead, "the Gradient node must be dead, after its "
          "expansion (at %d, was %d)", grad_at, gi);
    CHECK(!strcmp(g->nodes[g->n_nodes - 1].name, "after"), "the node after Gradient stays last");
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_outputs; k++)
            CHECK(g->tensors[n->outputs[k]].producer == i, "node %d '%s': producer of '%s' is %d",
                  i, n->name, g->tensors[n->outputs[k]].name, g->tensors[n->outputs[k]].producer);
        CHECK(n->op != WGC_OP_COUNT, "node '%s' has unknown op %s", n->name, n->op_type);
        for (int k = 0; k < n->n_inputs; k++) {
            int p = g->tensors[n->inputs[k]].producer;
            CHECK(p < i, "node %d '%s' reads '%s' written later by node %d", i, n->name,
                  g->tensors[n->inputs[k]].name, p);
        }
        for (int j = 0; j < i; j++)
            CHECK(strcmp(g->nodes[j].name, n->name), "two nodes are named '%s'", n->name);
    }
    const wgc_tensor *gb = &g->tensors[wgc_tensor_find(g, "d_b")];
    CHECK(gb->has_shape && gb->shape.rank == 1 && gb->shape.dims[0] == 3, "d_b must be [3]");
    CHECK(!gb->data, "d_b of graph inputs must not be constant");
    wgc_graph_free(g);
}

TEST(unsupported_op_is_named)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int64_t d3[1] = {3};
    int a = tensor(g, "a", 1, d3, NULL);
    tg_output(g, op1(g, "Exp", op1(g, "Abs", a, "abs_out"), "y"));
    const char *xs[1] = {"a"};
    gradient(g, xs, 1, "y");
    wg_status st = run_passes(g, true);
    CHECK(st == WG_ERR_UNSUPPORTED, "status %d, want WG_ERR_UNSUPPORTED", (int)st);
    CHECK(strstr(g->err, "Gradient through 'Abs' is not supported") &&
          strstr(g->err, "abs_out"), "message: %s", g->err);
    wgc_graph_free(g);
}

int main(void)
{
    RUN(broadcast_matches_hand_values);
    RUN(every_op_matches_finite_differences);
    RUN(unused_x_gets_zeros);
    RUN(new_nodes_stand_in_order_with_fixed_producers);
    RUN(unsupported_op_is_named);
    return test_summary("gradient");
}
