/*
 * test_passes.c: graph-in / graph-out tests of the passes and the memory planner.
 *
 * Checks: --shape overrides and the dynamic-dimension error; BatchNormalization folded
 * into a Conv gives the same numbers as applying it after; Conv -> Add -> Relu fuses into
 * one epilogue only when the residual is computed before the Conv; Identity removal keeps
 * graph outputs; dead branches go; and the planner never gives two tensors that are alive
 * at the same time overlapping bytes (on hand-made and random graphs), while tensors with
 * disjoint lifetimes do share memory; subnormal Conv weights become zeros of their sign
 * while other readers of the same constant keep the exact values; a BatchNormalization
 * after a Conv's residual Add moves into the Conv only when it is the sole reader.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/passes/passes.h"
#include "../../src/plan/plan.h"
#include "../test.h"
#include "graph_build.h"

static int constant(wgc_graph *g, const char *name, int rank, const int64_t *dims, float (*fill)(int64_t))
{
    int t = wgc_tensor_add(g, name);
    wgc_shape s = {.rank = rank};
    for (int d = 0; d < rank; d++)
        s.dims[d] = dims[d];
    int64_t n = wgc_numel(&s);
    float *v = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        v[i] = fill(i);
    wgc_tensor_set_const(g, t, WG_DT_FLOAT, &s, v);
    return t;
}

static float fill_w(int64_t i) { return (float)((i * 7) % 11) / 11.0f - 0.4f; }
static float fill_b(int64_t i) { return 0.1f * (float)i - 0.2f; }
static float fill_scale(int64_t i) { return 0.5f + 0.25f * (float)i; }
static float fill_var(int64_t i) { return 1.0f + 0.5f * (float)i; }

static wgc_pass_options opts(void)
{
    wgc_pass_options o = {.n_shapes = 0};
    return o;
}

TEST(shape_override_and_dynamic_error)
{
    wgc_graph *g = wgc_graph_new();
    int64_t dims[2] = {-1, 4};
    int x = tg_input(g, "x", WG_DT_FLOAT, 2, dims);
    tg_output(g, tg_node(g, "Relu", &x, 1, "y"));
    wgc_pass_options o = opts();
    CHECK(wgc_pass_infer(g, &o) == WG_ERR_INVALID, "a dynamic dim without --shape must fail");
    CHECK(strstr(g->err, "--shape x=") != NULL, "message should say how to fix it: %s", g->err);
    o.shapes[0].name = "x";
    o.shapes[0].shape = (wgc_dims_spec){.rank = 2, .dims = {3, 4}};
    o.n_shapes = 1;
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    const wgc_tensor *y = &g->tensors[g->outputs[0]];
    CHECK(y->shape.rank == 2 && y->shape.dims[0] == 3 && y->shape.dims[1] == 4, "y is %lldx%lld",
          (long long)y->shape.dims[0], (long long)y->shape.dims[1]);
    o.shapes[0].shape = (wgc_dims_spec){.rank = 2, .dims = {3, 5}};
    CHECK(wgc_pass_infer(g, &o) == WG_ERR_INVALID, "--shape contradicting a fixed dim must fail");
    wgc_graph_free(g);
}

/* y = BN(Conv(x)) before and after folding, evaluated by hand at one output element. */
TEST(batchnorm_folds_into_conv)
{
    wgc_graph *g = wgc_graph_new();
    int64_t xd[4] = {1, 2, 3, 3}, wd[4] = {3, 2, 1, 1}, cd[1] = {3};
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, xd);
    int w = constant(g, "w", 4, wd, fill_w);
    int b = constant(g, "b", 1, cd, fill_b);
    int in_conv[3] = {x, w, b};
    int c = tg_node(g, "Conv", in_conv, 3, "c");
    int s = constant(g, "scale", 1, cd, fill_scale), be = constant(g, "beta", 1, cd, fill_b),
        m = constant(g, "mean", 1, cd, fill_b), v = constant(g, "var", 1, cd, fill_var);
    int in_bn[5] = {c, s, be, m, v};
    int y = tg_node(g, "BatchNormalization", in_bn, 5, "y");
    tg_output(g, y);
    wgc_pass_options o = opts();
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fold_batchnorm(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->nodes[1].dead, "the BatchNormalization node should be gone");
    const wgc_node *cv = &g->nodes[0];
    CHECK(cv->outputs[0] == y, "the Conv should now write the BN's output");
    const float *W = g->tensors[cv->inputs[1]].data, *B = g->tensors[cv->inputs[2]].data;
    for (int co = 0; co < 3; co++) {
        double a = fill_scale(co) / sqrt(fill_var(co) + 1e-5);
        for (int ci = 0; ci < 2; ci++) {
            double want = fill_w(co * 2 + ci) * a;
            CHECK(fabs(W[co * 2 + ci] - want) < 1e-6, "W'[%d,%d] = %g, want %g", co, ci, W[co * 2 + ci], want);
        }
        double want_b = (fill_b(co) - fill_b(co)) * a + fill_b(co);
        CHECK(fabs(B[co] - want_b) < 1e-6, "b'[%d] = %g, want %g", co, B[co], want_b);
    }
    wgc_graph_free(g);
}

static float fill_two(int64_t i) { (void)i; return 2.0f; }

/* y = Sub(Add(Mul(Conv(x), 2), t[1,3,1,1]), 0.5): Mul by a scalar, Add per channel and Sub
 * fold into W' = 2 W, b' = 2 b + t - 0.5. A per-pixel constant ([1,1,3,3]) must not fold. */
TEST(scale_and_shift_fold_into_conv)
{
    wgc_graph *g = wgc_graph_new();
    int64_t xd[4] = {1, 2, 3, 3}, wd[4] = {3, 2, 1, 1}, cd[1] = {3}, one[1] = {1},
            chan[4] = {1, 3, 1, 1}, pix[4] = {1, 1, 3, 3};
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, xd);
    int in_conv[3] = {x, constant(g, "w", 4, wd, fill_w), constant(g, "b", 1, cd, fill_b)};
    int c = tg_node(g, "Conv", in_conv, 3, "c");
    int in_mul[2] = {constant(g, "two", 1, one, fill_two), c}; /* constant first */
    int m = tg_node(g, "Mul", in_mul, 2, "m");
    int in_add[2] = {m, constant(g, "t", 4, chan, fill_b)};
    int a = tg_node(g, "Add", in_add, 2, "a");
    int in_sub[2] = {a, constant(g, "half", 0, one, fill_scale)};
    int y = tg_node(g, "Sub", in_sub, 2, "y");
    int in_px[2] = {y, constant(g, "p", 4, pix, fill_b)};
    tg_output(g, tg_node(g, "Mul", in_px, 2, "z"));
    wgc_pass_options o = opts();
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fold_batchnorm(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->nodes[1].dead && g->nodes[2].dead && g->nodes[3].dead, "Mul, Add and Sub should be gone");
    CHECK(!g->nodes[4].dead, "a per-pixel Mul must stay");
    const wgc_node *cv = &g->nodes[0];
    CHECK(cv->outputs[0] == y, "the Conv should now write the Sub's output");
    const float *W = g->tensors[cv->inputs[1]].data, *B = g->tensors[cv->inputs[2]].data;
    for (int co = 0; co < 3; co++) {
        for (int ci = 0; ci < 2; ci++)
            CHECK(fabs(W[co * 2 + ci] - 2.0 * fill_w(co * 2 + ci)) < 1e-6, "W'[%d,%d] = %g", co, ci,
                  W[co * 2 + ci]);
        double want_b = 2.0 * fill_b(co) + fill_b(co) - fill_scale(0);
        CHECK(fabs(B[co] - want_b) < 1e-6, "b'[%d] = %g, want %g", co, B[co], want_b);
    }
    wgc_graph_free(g);
}

static float fill_3(int64_t i) { (void)i; return 3.0f; }
static float fill_6(int64_t i) { (void)i; return 6.0f; }
static float fill_0(int64_t i) { (void)i; return 0.0f; }

/* Both exporter forms of hard-swish become one HardSwish node; a chain whose Add result
 * is also a graph output stays as it is. */
TEST(decomposed_hardswish_becomes_one_node)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13; /* Clip with min and max inputs */
    int64_t xd[2] = {2, 5}, one[1] = {1};
    int x = tg_input(g, "x", WG_DT_FLOAT, 2, xd);
    int c3 = constant(g, "three", 1, one, fill_3), c6 = constant(g, "six", 1, one, fill_6),
        c0 = constant(g, "zero", 1, one, fill_0);
    /* Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6) */
    int in_add[2] = {x, c3};
    int a = tg_node(g, "Add", in_add, 2, "a");
    int in_clip[3] = {a, c0, c6};
    int c = tg_node(g, "Clip", in_clip, 3, "c");
    int in_mul[2] = {c, x};
    int m = tg_node(g, "Mul", in_mul, 2, "m");
    int in_div[2] = {m, c6};
    tg_output(g, tg_node(g, "Div", in_div, 2, "y1"));
    /* Mul(x, Div(Clip(Add(3, x), 0, 6), 6)) */
    int in_add2[2] = {c3, x};
    int a2 = tg_node(g, "Add", in_add2, 2, "a2");
    int in_clip2[3] = {a2, c0, c6};
    int c2 = tg_node(g, "Clip", in_clip2, 3, "c2");
    int in_div2[2] = {c2, c6};
    int d2 = tg_node(g, "Div", in_div2, 2, "d2");
    int in_mul2[2] = {x, d2};
    tg_output(g, tg_node(g, "Mul", in_mul2, 2, "y2"));
    /* the same with the Add result also an output: no match */
    int a3 = tg_node(g, "Add", in_add, 2, "a3");
    tg_output(g, a3);
    int in_clip3[3] = {a3, c0, c6};
    int in_div3[2] = {tg_node(g, "Clip", in_clip3, 3, "c3"), c6};
    int in_mul3[2] = {x, tg_node(g, "Div", in_div3, 2, "d3")};
    tg_output(g, tg_node(g, "Mul", in_mul3, 2, "y3"));
    wgc_pass_options o = opts();
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_match_hardswish(g, &o) == WG_OK, "%s", g->err);
    const wgc_node *n1 = &g->nodes[3], *n2 = &g->nodes[7], *n3 = &g->nodes[11];
    CHECK(n1->op == WGC_OP_HARD_SWISH && n1->n_inputs == 1 && n1->inputs[0] == x,
          "Div(Mul(x, Clip(Add(x,3),0,6)),6) should be HardSwish(x), is %s", n1->op_type);
    CHECK(g->nodes[0].dead && g->nodes[1].dead && g->nodes[2].dead, "its Add, Clip and Mul die");
    CHECK(n2->op == WGC_OP_HARD_SWISH && n2->inputs[0] == x, "Mul(x, Div(...)) should be HardSwish(x), is %s",
          n2->op_type);
    CHECK(n3->op == WGC_OP_MUL && !g->nodes[8].dead, "a chain with a shared Add must stay");
    wgc_graph_free(g);
}

/* A Dropout (inference) whose mask output nobody reads goes, like SqueezeNet 1.1's;
 * one whose mask is a graph output stays. */
TEST(dropout_with_unread_mask_is_removed)
{
    wgc_pass_options o = opts();
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int64_t d[1] = {8};
    int x = tg_input(g, "x", WG_DT_FLOAT, 1, d);
    int outs[2] = {wgc_tensor_add(g, "d"), wgc_tensor_add(g, "d_mask")};
    int n = wgc_node_add(g, "drop", "Dropout", "", &x, 1, outs, 2);
    g->tensors[outs[0]].producer = g->tensors[outs[1]].producer = n;
    tg_output(g, tg_node(g, "Relu", &outs[0], 1, "y"));
    int outs2[2] = {wgc_tensor_add(g, "e"), wgc_tensor_add(g, "e_mask")};
    int n2 = wgc_node_add(g, "drop2", "Dropout", "", &x, 1, outs2, 2);
    g->tensors[outs2[0]].producer = g->tensors[outs2[1]].producer = n2;
    tg_output(g, outs2[0]);
    tg_output(g, outs2[1]);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_remove_identity(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->nodes[n].dead, "the Dropout with an unread mask should be removed");
    CHECK(g->nodes[1].inputs[0] == x, "Relu should read x directly");
    CHECK(!g->nodes[n2].dead, "a Dropout whose mask is a graph output must stay");
    wgc_graph_free(g);
}

static wgc_graph *residual_graph(bool residual_first)
{
    wgc_graph *g = wgc_graph_new();
    int64_t xd[4] = {1, 2, 4, 4}, wd[4] = {2, 2, 1, 1};
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, xd);
    int w = constant(g, "w", 4, wd, fill_w);
    int r = -1;
    if (residual_first)
        r = tg_node(g, "Relu", &x, 1, "r");
    int in_conv[2] = {x, w};
    int c = tg_node(g, "Conv", in_conv, 2, "c");
    if (!residual_first)
        r = tg_node(g, "Sigmoid", &x, 1, "r");
    int in_add[2] = {r, c};
    int a = tg_node(g, "Add", in_add, 2, "a");
    tg_output(g, tg_node(g, "Relu", &a, 1, "y"));
    return g;
}

TEST(residual_and_relu_fuse_into_conv)
{
    wgc_pass_options o = opts();
    wgc_graph *g = residual_graph(true);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_epilogue(g, &o) == WG_OK, "%s", g->err);
    const wgc_node *cv = &g->nodes[1];
    CHECK(cv->residual == wgc_tensor_find(g, "r"), "residual should be r");
    CHECK(cv->act == WGC_ACT_RELU && cv->act_min == 0 && isinf(cv->act_max), "act should be relu");
    CHECK(cv->outputs[0] == g->outputs[0], "the Conv should write the graph output");
    CHECK(g->nodes[2].dead && g->nodes[3].dead, "Add and Relu should be gone");
    wgc_graph_free(g);

    /* The residual is computed after the Conv: fusing would read it before it exists. */
    g = residual_graph(false);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_epilogue(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->nodes[0].residual < 0, "a residual produced later must not be fused");
    CHECK(!g->nodes[2].dead, "the Add must stay");
    wgc_graph_free(g);
}

/* x -> Conv -> Add(x) -> BatchNormalization -> Relu -> graph output; with second_reader,
 * the Add's result is also a graph output. */
static wgc_graph *residual_bn_graph(bool second_reader)
{
    wgc_graph *g = wgc_graph_new();
    int64_t xd[4] = {1, 3, 2, 2}, wd[4] = {3, 3, 1, 1}, cd[1] = {3};
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, xd);
    int in_conv[2] = {x, constant(g, "w", 4, wd, fill_w)};
    int a = tg_node(g, "Add", (int[]){tg_node(g, "Conv", in_conv, 2, "c"), x}, 2, "a");
    int in_bn[5] = {a, constant(g, "scale", 1, cd, fill_scale), constant(g, "beta", 1, cd, fill_b),
                    constant(g, "mean", 1, cd, fill_b), constant(g, "var", 1, cd, fill_var)};
    int y = tg_node(g, "Relu", (int[]){tg_node(g, "BatchNormalization", in_bn, 5, "bn")}, 1, "y");
    tg_output(g, y);
    if (second_reader)
        tg_output(g, a);
    return g;
}

/* fuse-epilogue then fuse-bn-output: the Conv takes the residual, then the
 * BatchNormalization and its Relu, whose affine is the BN's scale and shift. */
TEST(batchnorm_after_residual_moves_into_conv)
{
    wgc_pass_options o = opts();
    wgc_graph *g = residual_bn_graph(false);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_epilogue(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_bn_output(g, &o) == WG_OK, "%s", g->err);
    const wgc_node *cv = &g->nodes[0];
    CHECK(cv->residual == g->inputs[0], "the Conv should take the residual");
    CHECK(cv->aux_affine >= 0 && g->nodes[2].dead, "the BatchNormalization should move into the Conv");
    CHECK(cv->outputs[0] == g->outputs[0], "the Conv should write the graph output");
    CHECK(cv->aux_min == 0.0f && isinf(cv->aux_max), "the BN's Relu should become the clamp");
    const float *ab = g->tensors[cv->aux_affine].data;
    for (int c = 0; c < 3; c++) {
        const double a = fill_scale(c) / sqrt(fill_var(c) + 1e-5);
        CHECK(fabs(ab[c] - a) < 1e-6 && fabs(ab[3 + c] - (fill_b(c) - fill_b(c) * a)) < 1e-6,
              "channel %d: scale %g shift %g", c, ab[c], ab[3 + c]);
    }
    wgc_graph_free(g);

    /* The Conv's output has another reader: the BatchNormalization stays a node. */
    g = residual_bn_graph(true);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_epilogue(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_bn_output(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->nodes[0].aux_affine < 0 && !g->nodes[2].dead, "a BN that is not the only reader must stay");
    wgc_graph_free(g);
}

static float fill_three(int64_t i) { (void)i; return 3.0f; }

/* Conv -> HardSwish -> Mul(k1) -> Sub(k2), with k1 of shape kdims (rank kr). */
static wgc_graph *post_graph(int kr, const int64_t *kdims)
{
    wgc_graph *g = wgc_graph_new();
    int64_t xd[4] = {1, 2, 4, 4}, wd[4] = {2, 2, 1, 1}, one[1] = {1};
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, xd);
    int in_conv[2] = {x, constant(g, "w", 4, wd, fill_w)};
    int h = tg_node(g, "HardSwish", (int[]){tg_node(g, "Conv", in_conv, 2, "c")}, 1, "h");
    int m = tg_node(g, "Mul", (int[]){constant(g, "k1", kr, kdims, fill_scale), h}, 2, "m");
    tg_output(g, tg_node(g, "Sub", (int[]){m, constant(g, "k2", 1, one, fill_three)}, 2, "y"));
    return g;
}

TEST(hardswish_and_scalar_affine_fuse_into_conv)
{
    wgc_pass_options o = opts();
    int64_t one[1] = {1};
    wgc_graph *g = post_graph(1, one);
    g->opset = 14;
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_epilogue(g, &o) == WG_OK, "%s", g->err);
    const wgc_node *cv = &g->nodes[0];
    CHECK(cv->act == WGC_ACT_HARDSWISH, "HardSwish should be the Conv's activation");
    CHECK(cv->post_affine && cv->post_scale == 0.5f && cv->post_shift == -3.0f,
          "Mul 0.5 (constant first) then Sub 3 should become * 0.5 + -3 (got %g, %g)", cv->post_scale,
          cv->post_shift);
    CHECK(cv->outputs[0] == g->outputs[0], "the Conv should write the graph output");
    CHECK(g->nodes[1].dead && g->nodes[2].dead && g->nodes[3].dead, "HardSwish, Mul and Sub should be gone");
    wgc_graph_free(g);

    /* A per-channel Mul is not a scalar affine: HardSwish fuses, Mul and Sub stay. */
    int64_t ch[3] = {2, 1, 1};
    g = post_graph(3, ch);
    g->opset = 14;
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_fuse_epilogue(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->nodes[0].act == WGC_ACT_HARDSWISH && !g->nodes[0].post_affine, "only the HardSwish should fuse");
    CHECK(!g->nodes[2].dead && !g->nodes[3].dead, "the per-channel Mul and the Sub must stay");
    wgc_graph_free(g);
}

/* Every third value subnormal (both signs), the rest normal. */
static float fill_subnormal(int64_t i)
{
    if (i % 3)
        return fill_w(i);
    return (i % 2 ? -1.0f : 1.0f) * 1e-40f * (float)(i + 1);
}

TEST(subnormal_mac_weights_flush_to_zero_elsewhere_kept)
{
    wgc_pass_options o = opts();
    wgc_graph *g = wgc_graph_new();
    int64_t xd[4] = {1, 2, 5, 5}, wd[4] = {3, 2, 3, 3}, bd[1] = {3};
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, xd);
    int w = constant(g, "w", 4, wd, fill_subnormal);
    int b = constant(g, "b", 1, bd, fill_subnormal);
    int c = tg_node(g, "Conv", (int[]){x, w, b}, 3, "c");
    /* The same subnormal bias also feeds an Add, which must keep the exact values. */
    tg_output(g, tg_node(g, "Add", (int[]){c, b}, 2, "y"));
    /* A second Conv on the same weights shares the first one's flushed copy. */
    tg_output(g, tg_node(g, "Conv", (int[]){x, w}, 2, "c2"));
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_flush_denormals(g, &o) == WG_OK, "%s", g->err);
    const wgc_node *cv = &g->nodes[0];
    int nsub = 0, nsame = 0, nzero = 0;
    for (int i = 1; i <= 2; i++) {
        const wgc_tensor *t = &g->tensors[cv->inputs[i]], *orig = &g->tensors[i == 1 ? w : b];
        CHECK(cv->inputs[i] != (i == 1 ? w : b), "Conv input %d should be a flushed copy", i);
        const float *v = t->data, *u = orig->data;
        for (int64_t k = 0; k < wgc_numel(&t->shape); k++) {
            if (k % 3) {
                nsame += v[k] == u[k];
                continue;
            }
            nzero += v[k] == 0.0f && signbit(v[k]) == signbit(u[k]);
            nsub += u[k] != 0.0f && fabsf(u[k]) < 1.17549435e-38f;
        }
    }
    CHECK(nsub == 18 + 1 && nzero == nsub, "each subnormal should become a zero of its sign (%d of %d)", nzero, nsub);
    CHECK(nsame == 36 + 2, "normal weights must be unchanged (%d)", nsame);
    CHECK(g->nodes[1].inputs[1] == b, "the Add must still read the exact bias");
    CHECK(g->nodes[2].inputs[1] == cv->inputs[1], "both Convs should read one flushed weight");
    wgc_graph_free(g);
}

TEST(identity_removal_keeps_outputs_and_dead_code_goes)
{
    wgc_pass_options o = opts();
    wgc_graph *g = wgc_graph_new();
    int64_t d[1] = {8};
    int x = tg_input(g, "x", WG_DT_FLOAT, 1, d);
    int i1 = tg_node(g, "Identity", &x, 1, "i1");
    int r = tg_node(g, "Relu", &i1, 1, "r");
    int unused = tg_node(g, "Sigmoid", &r, 1, "unused");
    (void)unused;
    int y = tg_node(g, "Identity", &r, 1, "y");
    tg_output(g, y);
    int c = tg_node(g, "Cast", &r, 1, "c"); /* float -> float: forwarded */
    wgc_attr_add(g, 4, "to", WGC_ATTR_INT)->i = WG_DT_FLOAT;
    int t = tg_node(g, "Tanh", &c, 1, "t");
    tg_output(g, t);
    int kept = tg_node(g, "Identity", &x, 1, "kept"); /* a graph input named as an output */
    tg_output(g, kept);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_remove_identity(g, &o) == WG_OK, "%s", g->err);
    CHECK(wgc_pass_remove_dead(g, &o) == WG_OK, "%s", g->err);
    CHECK(g->nodes[0].dead, "the inner Identity should be removed");
    CHECK(g->nodes[1].inputs[0] == x, "Relu should read x directly");
    CHECK(g->nodes[1].outputs[0] == y && g->tensors[y].producer == 1,
          "Relu should write the graph output y that the Identity named");
    CHECK(g->nodes[2].dead, "the unused Sigmoid should be removed");
    CHECK(g->nodes[3].dead, "the Identity that named y should go: its input's producer writes y");
    CHECK(g->nodes[4].dead && g->nodes[5].inputs[0] == y, "the float -> float Cast should go, Tanh reading y");
    CHECK(!g->nodes[6].dead, "an Identity from a graph input to a graph output must stay (a copy)");
    wgc_graph_free(g);
}

/* Whether tensor a lives inside tensor b (a Concat input placed in its output). */
static bool inside(const wgc_graph *g, int a, int b)
{
    while (g->tensors[a].aliased) {
        a = g->tensors[a].alias_of;
        if (a == b)
            return true;
    }
    return false;
}

/* Every pair of tensors alive at the same step must not overlap in the arena, except a
 * Concat input placed inside the Concat's output. */
static int plan_violations(wgc_graph *g, const wgc_plan *p)
{
    int nt = g->n_tensors, nn = g->n_nodes, bad = 0;
    int *first = malloc(sizeof(int) * (size_t)nt), *last = malloc(sizeof(int) * (size_t)nt);
    for (int t = 0; t < nt; t++)
        first[t] = g->tensors[t].is_input ? -1 : nn + 1, last[t] = g->tensors[t].is_input ? nn : -1;
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_outputs; k++)
            first[n->outputs[k]] = first[n->outputs[k]] < i ? first[n->outputs[k]] : i;
        for (int k = 0; k < n->n_inputs; k++)
            last[n->inputs[k]] = last[n->inputs[k]] > i ? last[n->inputs[k]] : i;
        for (int k = 0; k < n->n_outputs; k++)
            last[n->outputs[k]] = last[n->outputs[k]] > i ? last[n->outputs[k]] : i;
    }
    for (int k = 0; k < g->n_outputs; k++)
        last[g->outputs[k]] = nn;
    for (int a = 0; a < nt; a++)
        for (int b = a + 1; b < nt; b++) {
            const wgc_tensor *x = &g->tensors[a], *y = &g->tensors[b];
            if (x->addr < 0 || y->addr < 0 || x->data || y->data || inside(g, a, b) || inside(g, b, a))
                continue;
            if (first[a] > last[b] || first[b] > last[a])
                continue;
            int64_t xe = x->addr + wgc_numel(&x->shape) * 4, ye = y->addr + wgc_numel(&y->shape) * 4;
            if (x->addr < ye && y->addr < xe)
                bad++;
            if (xe > p->arena_bytes || ye > p->arena_bytes)
                bad++;
        }
    free(first);
    free(last);
    return bad;
}

TEST(concat_inputs_are_produced_in_place)
{
    wgc_pass_options o = opts();
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int64_t d[4] = {1, 3, 4, 4};
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, d);
    int a = tg_node(g, "Relu", &x, 1, "a");
    int b = tg_node(g, "Sigmoid", &x, 1, "b");
    int c = tg_node(g, "Concat", (int[]){a, b, a}, 3, "c"); /* a read twice: it is copied */
    wgc_attr_add(g, g->n_nodes - 1, "axis", WGC_ATTR_INT)->i = 1;
    int h = tg_node(g, "Neg", &x, 1, "h");
    int e = tg_node(g, "Tanh", &x, 1, "e");
    int f = tg_node(g, "Concat", (int[]){e, h}, 2, "f"); /* h's producer runs before e's */
    wgc_attr_add(g, g->n_nodes - 1, "axis", WGC_ATTR_INT)->i = 1;
    tg_output(g, tg_node(g, "Relu", &c, 1, "y"));
    tg_output(g, tg_node(g, "Relu", &f, 1, "z"));
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    wgc_plan plan;
    CHECK(wgc_plan_memory(g, &plan) == WG_OK, "%s", g->err);
    const wgc_tensor *ta = &g->tensors[a], *tb = &g->tensors[b], *tc = &g->tensors[c];
    CHECK(!ta->aliased, "an input the Concat reads twice must keep its own buffer");
    CHECK(tb->aliased && tb->alias_of == c && tb->alias_off == 48 * 4 && tb->addr == tc->addr + 48 * 4,
          "b should be written straight into its slab of c");
    CHECK(g->tensors[e].aliased && g->tensors[e].addr == g->tensors[f].addr, "e should be f's first slab");
    CHECK(!g->tensors[h].aliased, "h, produced before the slab in front of it, must be copied");
    CHECK(plan_violations(g, &plan) == 0, "live tensors overlap");
    wgc_plan_free(&plan);
    wgc_graph_free(g);
}

TEST(planner_reuses_memory_without_overlap)
{
    wgc_pass_options o = opts();
    wgc_graph *g = wgc_graph_new();
    int64_t d[1] = {256}; /* 1 KiB tensors */
    int t = tg_input(g, "x", WG_DT_FLOAT, 1, d);
    char name[16];
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "t%d", i);
        t = tg_node(g, "Relu", &t, 1, name);
    }
    tg_output(g, t);
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
    wgc_plan p;
    CHECK(wgc_plan_memory(g, &p) == WG_OK, "%s", g->err);
    CHECK(plan_violations(g, &p) == 0, "live tensors overlap");
    /* x and y pinned, plus two alternating intermediates: 4 KiB, not 12. */
    CHECK(p.arena_bytes == 4 * 1024, "a chain of 10 ops should need 4 KiB, got %lld", (long long)p.arena_bytes);
    wgc_plan_free(&p);
    wgc_graph_free(g);
}

TEST(planner_random_graphs)
{
    wgc_pass_options o = opts();
    uint32_t seed = 12345;
    for (int round = 0; round < 50; round++) {
        wgc_graph *g = wgc_graph_new();
        int64_t d[1] = {64};
        int ts[64];
        int n = 0;
        ts[n++] = tg_input(g, "x", WG_DT_FLOAT, 1, d);
        char name[16];
        int count = 5 + round % 40;
        for (int i = 0; i < count; i++) {
            seed = seed * 1103515245u + 12345u;
            int a = ts[(seed >> 8) % (unsigned)n];
            seed = seed * 1103515245u + 12345u;
            int b = ts[(seed >> 8) % (unsigned)n];
            int in[2] = {a, b};
            snprintf(name, sizeof name, "t%d", i);
            ts[n++] = tg_node(g, "Add", in, 2, name);
        }
        tg_output(g, ts[n - 1]);
        tg_output(g, ts[n / 2]);
        CHECK(wgc_pass_infer(g, &o) == WG_OK, "%s", g->err);
        CHECK(wgc_pass_remove_dead(g, &o) == WG_OK, "%s", g->err);
        wgc_plan p;
        CHECK(wgc_plan_memory(g, &p) == WG_OK, "%s", g->err);
        CHECK(plan_violations(g, &p) == 0, "round %d: live tensors overlap", round);
        wgc_plan_free(&p);
        wgc_graph_free(g);
    }
}

int main(void)
{
    RUN(shape_override_and_dynamic_error);
    RUN(batchnorm_folds_into_conv);
    RUN(scale_and_shift_fold_into_conv);
    RUN(decomposed_hardswish_becomes_one_node);
    RUN(dropout_with_unread_mask_is_removed);
    RUN(residual_and_relu_fuse_into_conv);
    RUN(hardswish_and_scalar_affine_fuse_into_conv);
    RUN(batchnorm_after_residual_moves_into_conv);
    RUN(subnormal_mac_weights_flush_to_zero_elsewhere_kept);
    RUN(concat_inputs_are_produced_in_place);
    RUN(identity_removal_keeps_outputs_and_dead_code_goes);
    RUN(planner_reuses_memory_without_overlap);
    RUN(planner_random_graphs);
    return test_summary("passes");
}
