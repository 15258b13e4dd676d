/*
 * test_transformer_passes.c: graph-in / graph-out tests of the transformer rewrites.
 *
 * Checks: the erf GELU as torch exports it (both places of the 0.5, Div by sqrt 2 or Mul
 * by 1/sqrt 2; sqrt 2 rounded to float16 in a float16 model) and GPT-2's tanh GELU become one Gelu node (approximate "tanh" for the
 * latter) and their chains die; a chain with a wrong constant or an intermediate that is
 * a graph output stays; MatMul with a constant matrix takes its bias Add and then a Gelu
 * or a residual Add computed before it, but not a residual computed after it, nor a bias
 * Add on a MatMul whose B is computed at run time; a Gemm takes a Gelu through a Reshape
 * (not with transA).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

static int scalar(wgc_graph *g, const char *name, float v)
{
    const int64_t one[1] = {1};
    return tg_const(g, name, WG_DT_FLOAT, one, 1, &v);
}

static wgc_pass_options opts(void)
{
    wgc_pass_options o = {.n_shapes = 0};
    return o;
}

/* Mul(Mul(x, Add(Erf(Div(x, sqrt2)), 1)), 0.5); half_first: Mul(Mul(x, 0.5), Add(...));
 * mul_form: Erf(Mul(x, 1/sqrt2)). Returns the chain's output. */
static int erf_gelu(wgc_graph *g, int x, bool half_first, bool mul_form, float sqrt2)
{
    int in_d[2] = {x, mul_form ? scalar(g, "rs2", 0.70710678f) : scalar(g, "s2", sqrt2)};
    int d = tg_node(g, mul_form ? "Mul" : "Div", in_d, 2, "d");
    int e = tg_node(g, "Erf", &d, 1, "e");
    int in_a[2] = {scalar(g, "one", 1.0f), e};
    int a = tg_node(g, "Add", in_a, 2, "a");
    if (half_first) {
        int in_h[2] = {scalar(g, "half", 0.5f), x};
        int h = tg_node(g, "Mul", in_h, 2, "h");
        int in_m[2] = {a, h};
        return tg_node(g, "Mul", in_m, 2, "y");
    }
    int in_m[2] = {x, a};
    int m = tg_node(g, "Mul", in_m, 2, "m");
    int in_y[2] = {m, scalar(g, "half", 0.5f)};
    return tg_node(g, "Mul", in_y, 2, "y");
}

static const wgc_node *producer(const wgc_graph *g, int t)
{
    return &g->nodes[g->tensors[t].producer];
}

static int live_nodes(const wgc_graph *g)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead;
    return n;
}

TEST(erf_gelu_forms_become_one_gelu)
{
    for (int form = 0; form < 3; form++) {
        wgc_graph *g = wgc_graph_new();
        g->opset = 17;
        const int64_t xd[2] = {3, 8};
        int x = tg_input(g, "x", WG_DT_FLOAT, 2, xd);
        int y = erf_gelu(g, x, form == 1, form == 2, 1.41421354f);
        tg_output(g, y);
        wgc_pass_options o = opts();
        CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
        CHECK(wgc_pass_match_gelu(g, &o) == WG_OK, "%s", g->err);
        const wgc_node *n = producer(g, y);
        CHECK(n->op == WGC_OP_GELU && n->n_inputs == 1 && n->inputs[0] == x,
              "form %d: the chain should be Gelu(x), its end is %s", form, n->op_type);
        CHECK(!strcmp(wgc_attr_str(n, "approximate", "none"), "none"), "form %d: erf GELU, no approximation", form);
        CHECK(live_nodes(g) == 1, "form %d: the chain's other nodes die (%d live)", form, live_nodes(g));
        wgc_graph_free(g);
    }
}

TEST(erf_gelu_with_other_constant_or_shared_step_stays)
{
    for (int c = 0; c < 2; c++) {
        wgc_graph *g = wgc_graph_new();
        g->opset = 17;
        const int64_t xd[2] = {3, 8};
        int x = tg_input(g, "x", WG_DT_FLOAT, 2, xd);
        int y = erf_gelu(g, x, false, false, c == 0 ? 1.5f : 1.41421354f);
        tg_output(g, y);
        if (c == 1)
            tg_output(g, wgc_tensor_find(g, "e")); /* the Erf result is read elsewhere too */
        wgc_pass_options o = opts();
        CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
        CHECK(wgc_pass_match_gelu(g, &o) == WG_OK, "%s", g->err);
        CHECK(producer(g, y)->op == WGC_OP_MUL && live_nodes(g) == 5, "case %d: the chain must stay (%d live)", c,
              live_nodes(g));
        wgc_graph_free(g);
    }
}

/* A float16 model's GELU divides by sqrt 2 rounded to float16 (1.4140625): matched in a
 * graph lower_fp16 widened (g->fp16_weights), not in a float32 one. */
TEST(erf_gelu_with_float16_constant_only_in_float16_models)
{
    for (int fp16 = 0; fp16 < 2; fp16++) {
        wgc_graph *g = wgc_graph_new();
        g->opset = 17;
        g->fp16_weights = fp16;
        const int64_t xd[2] = {3, 8};
        int x = tg_input(g, "x", WG_DT_FLOAT, 2, xd);
        int y = erf_gelu(g, x, false, false, 1.4140625f);
        tg_output(g, y);
        wgc_pass_options o = opts();
        CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
        CHECK(wgc_pass_match_gelu(g, &o) == WG_OK, "%s", g->err);
        CHECK((producer(g, y)->op == WGC_OP_GELU) == (fp16 == 1), "float16 model %d: Gelu %s", fp16,
              fp16 ? "expected" : "not expected");
        wgc_graph_free(g);
    }
}

/* GPT-2's gelu_new as exported: Mul(Mul(x, 0.5), Add(Tanh(Mul(Add(x, Mul(Pow(x, 3),
 * 0.044715)), sqrt(2/pi))), 1)). */
TEST(tanh_gelu_becomes_gelu_tanh)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 18;
    const int64_t xd[3] = {1, 4, 8};
    int x = tg_input(g, "x", WG_DT_FLOAT, 3, xd);
    int in_h[2] = {x, scalar(g, "half", 0.5f)};
    int h = tg_node(g, "Mul", in_h, 2, "h");
    int in_p[2] = {x, scalar(g, "three", 3.0f)};
    int p = tg_node(g, "Pow", in_p, 2, "p");
    int in_q[2] = {p, scalar(g, "c", 0.044715f)};
    int q = tg_node(g, "Mul", in_q, 2, "q");
    int in_u[2] = {x, q};
    int u = tg_node(g, "Add", in_u, 2, "u");
    int in_s[2] = {u, scalar(g, "k", 0.7978845834732056f)};
    int s = tg_node(g, "Mul", in_s, 2, "s");
    int t = tg_node(g, "Tanh", &s, 1, "t");
    int in_a[2] = {t, scalar(g, "one", 1.0f)};
    int a = tg_node(g, "Add", in_a, 2, "a");
    int in_y[2] = {h, a};
    int y = tg_node(g, "Mul", in_y, 2, "y");
    tg_output(g, y);
    wgc_pass_options o = opts();
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_match_gelu(g, &o) == WG_OK, "%s", g->err);
    const wgc_node *n = producer(g, y);
    CHECK(n->op == WGC_OP_GELU && n->inputs[0] == x, "the chain should be Gelu(x), its end is %s", n->op_type);
    CHECK(!strcmp(wgc_attr_str(n, "approximate", "none"), "tanh"), "approximate should be tanh");
    CHECK(live_nodes(g) == 1, "the chain's other nodes die (%d live)", live_nodes(g));
    wgc_graph_free(g);
}

/* x [1,4,8] -> MatMul(W [8,6]) -> Add(b [6]) -> tail: 0 Gelu, 1 Add(r) with r computed
 * before the MatMul, 2 Add(r) with r computed after it, 3 B computed at run time. */
static wgc_graph *linear(int tail, int *y, int *r)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 20;
    const int64_t xd[3] = {1, 4, 8}, wd[2] = {8, 6}, bd[1] = {6}, rd[3] = {1, 4, 6};
    float w[48], b[6];
    for (int i = 0; i < 48; i++)
        w[i] = (float)(i % 7) * 0.1f - 0.3f;
    for (int i = 0; i < 6; i++)
        b[i] = 0.05f * (float)i;
    int x = tg_input(g, "x", WG_DT_FLOAT, 3, xd);
    int rin = tg_input(g, "rin", WG_DT_FLOAT, 3, rd);
    *r = tail == 1 ? tg_node(g, "Relu", &rin, 1, "r") : -1;
    int in_mm[2] = {x, tail == 3 ? tg_input(g, "w", WG_DT_FLOAT, 2, wd) : tg_const(g, "w", WG_DT_FLOAT, wd, 2, w)};
    int m = tg_node(g, "MatMul", in_mm, 2, "m");
    int in_b[2] = {tg_const(g, "b", WG_DT_FLOAT, bd, 1, b), m};
    int a = tg_node(g, "Add", in_b, 2, "a");
    if (tail == 0) {
        *y = tg_node(g, "Gelu", &a, 1, "y");
    } else {
        if (tail == 2)
            *r = tg_node(g, "Relu", &rin, 1, "r");
        int in_r[2] = {a, *r >= 0 ? *r : rin};
        *y = tg_node(g, "Add", in_r, 2, "y");
    }
    tg_output(g, *y);
    return g;
}

TEST(matmul_takes_bias_then_gelu_or_earlier_residual)
{
    for (int tail = 0; tail < 4; tail++) {
        int y, r;
        wgc_graph *g = linear(tail, &y, &r);
        wgc_pass_options o = opts();
        CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
        CHECK(wgc_pass_fuse_matmul_epilogue(g, &o) == WG_OK, "%s", g->err);
        const wgc_node *mm = NULL;
        for (int i = 0; i < g->n_nodes; i++)
            if (g->nodes[i].op == WGC_OP_MATMUL)
                mm = &g->nodes[i];
        const int b = wgc_tensor_find(g, "b");
        if (tail == 3) {
            CHECK(mm->bias < 0 && producer(g, y)->op == WGC_OP_ADD, "run-time B: nothing fuses");
        } else if (tail == 2) {
            CHECK(mm->bias == b && mm->residual < 0 && producer(g, y)->op == WGC_OP_ADD,
                  "a residual computed after the MatMul: only the bias fuses");
        } else {
            CHECK(mm->bias == b && mm->outputs[0] == y, "tail %d: the MatMul writes y with its bias", tail);
            CHECK(tail == 0 ? mm->act == WGC_ACT_GELU : mm->residual == r, "tail %d: %s fuses", tail,
                  tail == 0 ? "the Gelu" : "the residual");
            CHECK(live_nodes(g) == 1 + (tail == 1), "tail %d: the Adds and Gelu die (%d live)", tail, live_nodes(g));
        }
        wgc_graph_free(g);
    }
}

/* GPT-2's dynamo export: Gemm(x, W) -> Reshape -> Gelu(tanh): the Gemm applies the GELU
 * and the Reshape writes the Gelu's output; with transA nothing fuses. */
TEST(gemm_takes_gelu_through_reshape)
{
    for (int trans_a = 0; trans_a < 2; trans_a++) {
        wgc_graph *g = wgc_graph_new();
        g->opset = 20;
        const int64_t xd[2] = {4, 8}, wd[2] = {8, 6}, sd[1] = {3};
        const int64_t shape[3] = {1, 4, 6};
        float w[48];
        for (int i = 0; i < 48; i++)
            w[i] = (float)(i % 5) * 0.1f - 0.2f;
        int in_g[2] = {tg_input(g, "x", WG_DT_FLOAT, 2, trans_a ? (const int64_t[]){8, 4} : xd),
                       tg_const(g, "w", WG_DT_FLOAT, wd, 2, w)};
        int gm = tg_node(g, "Gemm", in_g, 2, "gm");
        if (trans_a)
            wgc_attr_add(g, 0, "transA", WGC_ATTR_INT)->i = 1;
        int in_r[2] = {gm, tg_const(g, "shape", WG_DT_INT64, sd, 1, shape)};
        int r = tg_node(g, "Reshape", in_r, 2, "r");
        int y = tg_node(g, "Gelu", &r, 1, "y");
        wgc_attr *a = wgc_attr_add(g, 2, "approximate", WGC_ATTR_STRING);
        a->s = strdup("tanh");
        a->s_len = 4;
        tg_output(g, y);
        wgc_pass_options o = opts();
        CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
        CHECK(wgc_pass_fuse_matmul_epilogue(g, &o) == WG_OK, "%s", g->err);
        if (trans_a) {
            CHECK(g->nodes[0].act == WGC_ACT_NONE && !g->nodes[2].dead, "transA: the Gelu stays");
        } else {
            CHECK(g->nodes[0].act == WGC_ACT_GELU_TANH, "the Gemm applies the tanh GELU");
            CHECK(g->nodes[2].dead && producer(g, y)->op == WGC_OP_RESHAPE && producer(g, y)->inputs[0] == gm,
                  "the Reshape of the Gemm's output writes y");
        }
        wgc_graph_free(g);
    }
}

int main(void)
{
    RUN(erf_gelu_forms_become_one_gelu);
    RUN(erf_gelu_with_other_constant_or_shared_step_stays);
    RUN(erf_gelu_with_float16_constant_only_in_float16_models);
    RUN(tanh_gelu_becomes_gelu_tanh);
    RUN(matmul_takes_bias_then_gelu_or_earlier_residual);
    RUN(gemm_takes_gelu_through_reshape);
    return test_summary("transformer passes");
}
