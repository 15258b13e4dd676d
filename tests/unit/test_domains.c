/*
 * test_domains.c: operators by domain (ops.def's WG_OP_IN rows, src/ops/registry.c) and the
 * contrib operators that expand into ONNX ones (src/ops/helpers/expand_node.c).
 *
 * Checks: a (domain, op type) finds its op only in its own domain ("Gelu" is ONNX's in "",
 * "ai.onnx" or NULL, onnxruntime's in com.microsoft; FastGelu only in com.microsoft;
 * SimplifiedLayerNormalization only in the default domain, as onnxruntime registers it; the
 * compiler's markers never); every op's name finds it back in its domain; an op of the wrong
 * domain is found elsewhere (the hint of the unsupported-operator message); messages about
 * a node outside the default domain name the domain; a contrib node's unknown attribute is
 * refused naming it and the schema's. Expansion, on graphs built by code and inferred: BiasGelu
 * becomes Add then Gelu (the Gelu named as the node, writing its output), FastGelu a tanh Gelu,
 * QuickGelu a Swish with alpha 1.702 by default, SkipLayerNormalization with a bias Add, Add and
 * LayerNormalization (epsilon 1e-12 by default) whose sum is output 3; the contrib node is dead
 * and every output has the input's shape. Attention becomes MatMul, Add, Split and a com.microsoft
 * MultiHeadAttention named as the node, its present a Concat of the key's and value's.
 */
#include <string.h>

#include "../../src/ops/op.h"
#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

TEST(lookup_by_domain)
{
    CHECK(wgc_op_lookup("", "Gelu") == WGC_OP_GELU && wgc_op_lookup("ai.onnx", "Gelu") == WGC_OP_GELU &&
              wgc_op_lookup(NULL, "Gelu") == WGC_OP_GELU, "ONNX's Gelu");
    CHECK(wgc_op_lookup("com.microsoft", "Gelu") == WGC_OP_MS_GELU, "com.microsoft's Gelu");
    CHECK(wgc_op_lookup("com.microsoft", "FastGelu") == WGC_OP_FAST_GELU &&
              wgc_op_lookup("", "FastGelu") == WGC_OP_COUNT, "FastGelu in com.microsoft only");
    CHECK(wgc_op_lookup("", "SimplifiedLayerNormalization") == WGC_OP_SIMPLIFIED_LAYER_NORM &&
              wgc_op_lookup("com.microsoft", "SimplifiedLayerNormalization") == WGC_OP_COUNT,
          "SimplifiedLayerNormalization in the default domain only");
    CHECK(wgc_op_lookup("ai.onnx.preview.training", "Gradient") == WGC_OP_GRADIENT &&
              wgc_op_lookup("", "Gradient") == WGC_OP_COUNT, "Gradient in the training domain only");
    CHECK(wgc_op_lookup("", "BodyBegin") == WGC_OP_COUNT, "a marker looked up");
    CHECK(wgc_op_lookup("com.microsoft", "Relu") == WGC_OP_COUNT, "Relu in com.microsoft");
    CHECK(wgc_op_elsewhere("com.microsoft", "Relu") == WGC_OP_RELU &&
              wgc_op_elsewhere("", "FastGelu") == WGC_OP_FAST_GELU &&
              wgc_op_elsewhere("com.microsoft", "MatMulNBits") == WGC_OP_COUNT, "ops of other domains");
    for (int op = 0; op < WGC_OP_COUNT; op++) {
        if (op == WGC_OP_BODY_BEGIN || op == WGC_OP_BODY_ELSE || op == WGC_OP_UNROLL_STEP)
            continue;
        const char *d = wgc_domain_name(wgc_op_domain((wgc_op)op));
        const char *name = wgc_op_name((wgc_op)op);
        CHECK(wgc_op_lookup(d, name) == (wgc_op)op, "%s in '%s'", name, d);
    }
}

TEST(messages_name_the_domain)
{
    wgc_graph *g = wgc_graph_new();
    int x = wgc_tensor_add(g, "x"), y = wgc_tensor_add(g, "y");
    int k = wgc_node_add(g, "fg", "FastGelu", "com.microsoft", &x, 1, &y, 1);
    wgc_error(g, &g->nodes[k], WG_ERR_INVALID, "boom");
    CHECK(!strcmp(g->err, "node 'fg' (FastGelu, domain com.microsoft): boom"), "'%s'", g->err);
    wgc_attr *a = wgc_attr_add(g, k, "foo", WGC_ATTR_INT);
    (void)a;
    static const char *const none[] = {NULL}, *const alpha[] = {"alpha", "beta", NULL};
    wg_status st = wgc_check_attr_names(g, &g->nodes[k], none);
    CHECK(st == WG_ERR_INVALID &&
              strstr(g->err, "unknown attribute 'foo' (the schema has no attributes)"),
          "'%s'", g->err);
    st = wgc_check_attr_names(g, &g->nodes[k], alpha);
    CHECK(st == WG_ERR_INVALID && strstr(g->err, "unknown attribute 'foo' (the schema has alpha, beta)"),
          "'%s'", g->err);
    k = wgc_node_add(g, "r", "Relu", "ai.onnx", &x, 1, &y, 1);
    wgc_error(g, &g->nodes[k], WG_ERR_INVALID, "boom");
    CHECK(!strcmp(g->err, "node 'r' (Relu): boom"), "'%s'", g->err);
    wgc_graph_free(g);
}

/* A graph x [2, 3, 4] -> node (op_type of domain, inputs x and the constants given by
 * n_const, 4 values each) -> n_out outputs, inferred; *st its status. */
static wgc_graph *infer_contrib(const char *op_type, int n_const, int n_out, wg_status *st)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 21;
    const int64_t dims[3] = {2, 3, 4}, four[1] = {4};
    const float vals[4] = {0.5f, -1, 2, 0.25f};
    int in[5] = {tg_input(g, "x", WG_DT_FLOAT, 3, dims)}, out[4] = {-1, -1, -1, -1};
    if (!strncmp(op_type, "Skip", 4))
        in[1] = in[0];
    for (int i = 0; i < n_const; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        in[!strncmp(op_type, "Skip", 4) ? 2 + i : 1 + i] = tg_const(g, name, WG_DT_FLOAT, four, 1, vals);
    }
    const int n_in = 1 + n_const + (!strncmp(op_type, "Skip", 4));
    for (int i = 0; i < n_out; i++) {
        char name[16];
        snprintf(name, sizeof name, "y%d", i);
        out[i] = wgc_tensor_add(g, name);
        tg_output(g, out[i]);
    }
    int k = wgc_node_add(g, "node", op_type, "com.microsoft", in, n_in, out, n_out);
    g->nodes[k].opset = 1;
    for (int i = 0; i < n_out; i++)
        g->tensors[out[i]].producer = k;
    wgc_pass_options o = {.n_shapes = 0};
    *st = wgc_pass_infer(g, &o);
    return g;
}

/* The live node producing the tensor named out, or NULL. */
static const wgc_node *producer(wgc_graph *g, const char *out)
{
    int t = wgc_tensor_find(g, out), p = t >= 0 ? g->tensors[t].producer : -1;
    return p >= 0 && !g->nodes[p].dead ? &g->nodes[p] : NULL;
}

TEST(gelus_expand)
{
    wg_status st;
    wgc_graph *g = infer_contrib("BiasGelu", 1, 1, &st);
    const wgc_node *n = producer(g, "y0");
    CHECK(st == WG_OK, "BiasGelu: %s", g->err);
    CHECK(g->nodes[0].dead && n && n->op == WGC_OP_GELU && !strcmp(n->name, "node") && !n->domain[0],
          "BiasGelu's output from a Gelu named 'node'");
    const wgc_node *add = n ? producer(g, g->tensors[n->inputs[0]].name) : NULL;
    CHECK(add && add->op == WGC_OP_ADD && !strcmp(add->name, "node/bias"), "its input from an Add 'node/bias'");
    CHECK(n && !strcmp(wgc_attr_str(n, "approximate", "none"), "none"), "the erf form");
    wgc_graph_free(g);

    g = infer_contrib("FastGelu", 0, 1, &st);
    n = producer(g, "y0");
    CHECK(st == WG_OK && n && n->op == WGC_OP_GELU &&
              !strcmp(wgc_attr_str(n, "approximate", "none"), "tanh") &&
              n->inputs[0] == wgc_tensor_find(g, "x"),
          "FastGelu is Gelu(x, tanh): %s", g->err);
    wgc_graph_free(g);

    g = infer_contrib("QuickGelu", 0, 1, &st);
    n = producer(g, "y0");
    CHECK(st == WG_OK && n && n->op == WGC_OP_SWISH && wgc_attr_float(n, "alpha", 0) == 1.702f,
          "QuickGelu is Swish(alpha 1.702): %s", g->err);
    wgc_graph_free(g);
}

TEST(skip_layer_norm_expands)
{
    wg_status st;
    /* input, skip, gamma, beta, bias; outputs y, mean, inv_std_var, sum */
    wgc_graph *g = infer_contrib("SkipLayerNormalization", 3, 4, &st);
    CHECK(st == WG_OK, "SkipLayerNormalization: %s", g->err);
    const wgc_node *ln = producer(g, "y0"), *sum = producer(g, "y3");
    CHECK(ln && ln->op == WGC_OP_LAYER_NORM && !strcmp(ln->name, "node") &&
              wgc_attr_float(ln, "epsilon", 0) == 1e-12f,
          "a LayerNormalization 'node' of epsilon 1e-12");
    CHECK(ln && producer(g, "y1") == ln && producer(g, "y2") == ln, "mean and inv_std_var from it");
    CHECK(sum && sum->op == WGC_OP_ADD && !strcmp(sum->name, "node/bias") && ln &&
              ln->inputs[0] == sum->outputs[0],
          "its input the sum with the bias, output 3");
    const wgc_node *skip = sum ? producer(g, g->tensors[sum->inputs[0]].name) : NULL;
    CHECK(skip && skip->op == WGC_OP_ADD && !strcmp(skip->name, "node/skip"), "after input + skip");
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "y%d", i);
        const wgc_tensor *y = &g->tensors[wgc_tensor_find(g, name)];
        const int64_t last = i == 1 || i == 2 ? 1 : 4; /* mean and inv_std_var: one a row */
        CHECK(y->has_shape && y->shape.rank == 3 && y->shape.dims[2] == last, "%s's shape", name);
    }
    wgc_graph_free(g);
}

TEST(attention_expands)
{
    /* Attention of x [2, 3, 8], weights [8, 24], bias [24], 2 heads of 4, past [2, 2, 2, 1, 4] */
    wgc_graph *g = wgc_graph_new();
    g->opset = 21;
    static float w[8 * 24], b[24];
    const int64_t xd[3] = {2, 3, 8}, wd[2] = {8, 24}, bd[1] = {24}, pd[5] = {2, 2, 2, 1, 4};
    const int in[5] = {tg_input(g, "x", WG_DT_FLOAT, 3, xd), tg_const(g, "w", WG_DT_FLOAT, wd, 2, w),
                       tg_const(g, "b", WG_DT_FLOAT, bd, 1, b), -1, tg_input(g, "past", WG_DT_FLOAT, 5, pd)};
    const int out[2] = {wgc_tensor_add(g, "y"), wgc_tensor_add(g, "present")};
    for (int i = 0; i < 2; i++)
        tg_output(g, out[i]);
    const int k = wgc_node_add(g, "node", "Attention", "com.microsoft", in, 5, out, 2);
    g->nodes[k].opset = 1;
    wgc_attr_add(g, k, "num_heads", WGC_ATTR_INT)->i = 2;
    wgc_attr_add(g, k, "unidirectional", WGC_ATTR_INT)->i = 1;
    for (int i = 0; i < 2; i++)
        g->tensors[out[i]].producer = k;
    wgc_pass_options o = {.n_shapes = 0};
    wg_status st = wgc_pass_infer(g, &o);
    CHECK(st == WG_OK, "Attention: %s", g->err);
    const wgc_node *mha = producer(g, "y"), *cat = producer(g, "present");
    CHECK(g->nodes[k].dead && mha && mha->op == WGC_OP_MULTI_HEAD_ATTENTION && !strcmp(mha->name, "node") &&
              !strcmp(mha->domain, "com.microsoft") && wgc_attr_int(mha, "unidirectional", 0) == 1,
          "output 0 from a com.microsoft MultiHeadAttention 'node', unidirectional");
    const wgc_node *split = mha ? producer(g, g->tensors[mha->inputs[0]].name) : NULL;
    const wgc_node *mm = split ? producer(g, g->tensors[split->inputs[0]].name) : NULL;
    CHECK(split && split->op == WGC_OP_SPLIT && mm && mm->op == WGC_OP_ADD,
          "its Q from a Split of the biased projection");
    CHECK(cat && cat->op == WGC_OP_CONCAT && !strcmp(cat->name, "node/present"), "present from a Concat");
    const wgc_tensor *y = &g->tensors[out[0]], *p = &g->tensors[out[1]];
    CHECK(y->shape.rank == 3 && y->shape.dims[2] == 8, "y [2, 3, 8]");
    CHECK(p->shape.rank == 5 && p->shape.dims[0] == 2 && p->shape.dims[3] == 4 && p->shape.dims[4] == 4,
          "present [2, 2, 2, 1 + 3, 4]");
    wgc_graph_free(g);
}

int main(void)
{
    RUN(lookup_by_domain);
    RUN(messages_name_the_domain);
    RUN(gelus_expand);
    RUN(skip_layer_norm_expands);
    RUN(attention_expands);
    return test_summary("domains");
}
