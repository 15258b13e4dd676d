/*
 * test_qdq.c: graph-in / graph-out tests of match_qdq.c, the QDQ convolution rewrite.
 *
 * The graph is what onnxruntime's quantize_static writes for one pointwise layer:
 *     y = Q(Conv(DQ(Q(x)), DQ(wq)[, DQ(bq)]))
 * Checks: per-tensor and per-channel weights, with and without a bias, pointwise and 3x3
 * stride 1 (the exact int8 Winograd's), become one QLinearConv reading the quantized x,
 * wq and bq (a float32 bias of zeros dropped), writing y, with the scales and zero points
 * in QLinearConv's order; and the Conv stays float when the pattern does not hold: a bias
 * whose scale is not xs * ws, a grouped Conv, a 3x3 Conv of stride 2 (float32 Winograd
 * beats the int8 im2col path), a Conv output that is also a graph output, a
 * Relu between the Conv and the QuantizeLinear, a float32 bias that is not all zeros.
 */
#include <string.h>

#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

enum { C = 4, M = 4 };

typedef struct layer {
    bool per_channel, bias, zero_float_bias, float_bias, bad_bias_scale, grouped, three_by_three, strided, conv_is_output,
        relu_between;
} layer;

typedef struct built {
    int xq, wq, bq, y, conv_out;
} built;

static const int64_t one[1] = {1};

static int f32(wgc_graph *g, const char *name, float v)
{
    return tg_const(g, name, WG_DT_FLOAT, one, 1, &v);
}

static int u8(wgc_graph *g, const char *name, uint8_t v)
{
    return tg_const(g, name, WG_DT_UINT8, one, 1, &v);
}

static built build(wgc_graph *g, layer l)
{
    built b;
    const int64_t xd[4] = {1, C, 6, 6};
    const float xs = 0.02f, ys = 0.05f;
    int x = tg_input(g, "x", WG_DT_FLOAT, 4, xd);
    int in_q[3] = {x, f32(g, "xs", xs), u8(g, "xz", 128)};
    b.xq = tg_node(g, "QuantizeLinear", in_q, 3, "xq");
    int in_dx[3] = {b.xq, f32(g, "xs", xs), u8(g, "xz", 128)};
    int xf = tg_node(g, "DequantizeLinear", in_dx, 3, "xf");

    const int cg = l.grouped ? C / 2 : C, k = l.three_by_three ? 3 : 1;
    int8_t w[M * C * 9];
    for (int i = 0; i < M * cg * k * k; i++)
        w[i] = (int8_t)((i * 37) % 255 - 127);
    const int64_t wd[4] = {M, cg, k, k}, md[1] = {M};
    b.wq = tg_const(g, "wq", WG_DT_INT8, wd, 4, w);
    float ws[M] = {0.01f, 0.02f, 0.03f, 0.04f};
    int8_t wz[M] = {0};
    int ws_t = l.per_channel ? tg_const(g, "ws", WG_DT_FLOAT, md, 1, ws) : f32(g, "ws", ws[0]);
    int wz_t = tg_const(g, "wz", WG_DT_INT8, l.per_channel ? md : one, 1, wz);
    int in_dw[3] = {b.wq, ws_t, wz_t};
    int wf = tg_node(g, "DequantizeLinear", in_dw, 3, "wf");
    if (l.per_channel)
        wgc_attr_add(g, g->tensors[wf].producer, "axis", WGC_ATTR_INT)->i = 0;

    int in_conv[3] = {xf, wf, -1};
    b.bq = -1;
    if (l.bias) {
        int32_t bq[M] = {100, -200, 300, -400};
        float bs[M];
        for (int c = 0; c < M; c++)
            bs[c] = xs * (l.per_channel ? ws[c] : ws[0]) * (l.bad_bias_scale ? 1.5f : 1.0f);
        b.bq = tg_const(g, "bq", WG_DT_INT32, md, 1, bq);
        int32_t bz[M] = {0};
        int in_db[3] = {b.bq, tg_const(g, "bs", WG_DT_FLOAT, md, 1, bs), tg_const(g, "bz", WG_DT_INT32, md, 1, bz)};
        in_conv[2] = tg_node(g, "DequantizeLinear", in_db, 3, "bf");
        wgc_attr_add(g, g->tensors[in_conv[2]].producer, "axis", WGC_ATTR_INT)->i = 0;
    }
    if (l.zero_float_bias || l.float_bias) {
        const float bf[M] = {0.0f, 0.0f, l.float_bias ? 0.25f : 0.0f, 0.0f};
        in_conv[2] = tg_const(g, "bfloat", WG_DT_FLOAT, md, 1, bf);
    }
    b.conv_out = tg_node(g, "Conv", in_conv, l.bias || l.zero_float_bias || l.float_bias ? 3 : 2, "yf");
    const int conv = g->tensors[b.conv_out].producer;
    wgc_attr *pads = wgc_attr_add(g, conv, "pads", WGC_ATTR_INTS);
    pads->ints = calloc(4, sizeof(int64_t));
    pads->n = 4;
    for (int i = 0; i < 4; i++)
        pads->ints[i] = k / 2;
    if (l.grouped)
        wgc_attr_add(g, conv, "group", WGC_ATTR_INT)->i = 2;
    if (l.strided) {
        wgc_attr *st = wgc_attr_add(g, conv, "strides", WGC_ATTR_INTS);
        st->ints = calloc(2, sizeof(int64_t));
        st->n = 2;
        st->ints[0] = st->ints[1] = 2;
    }
    int in_y[3] = {l.relu_between ? tg_node(g, "Relu", &b.conv_out, 1, "r") : b.conv_out, f32(g, "ys", ys),
                   u8(g, "yz", 120)};
    b.y = tg_node(g, "QuantizeLinear", in_y, 3, "y");
    tg_output(g, b.y);
    if (l.conv_is_output)
        tg_output(g, b.conv_out);
    return b;
}

/* Builds the layer, runs infer and match-qdq; the node writing y. */
static const wgc_node *rewritten(wgc_graph *g, layer l, built *b)
{
    g->opset = 21;
    *b = build(g, l);
    wgc_pass_options o = {.n_shapes = 0};
    CHECK(wgc_pass_infer(g, &o) == WG_OK, "infer: %s", g->err);
    CHECK(wgc_pass_match_qdq(g, &o) == WG_OK, "match-qdq: %s", g->err);
    return &g->nodes[g->tensors[b->y].producer];
}

TEST(qdq_conv_becomes_qlinearconv)
{
    for (int k = 0; k < 8; k++) { /* 4, 5: a float bias of zeros, dropped; 6, 7: 3x3 */
        layer l = {.per_channel = k & 1, .bias = k == 2 || k == 3 || k == 7, .zero_float_bias = k == 4 || k == 5,
                   .three_by_three = k >= 6};
        wgc_graph *g = wgc_graph_new();
        built b;
        const wgc_node *n = rewritten(g, l, &b);
        CHECK(n->op == WGC_OP_QLINEAR_CONV && !strcmp(n->op_type, "QLinearConv"),
              "case %d: y should come from a QLinearConv, not %s", k, n->op_type);
        CHECK(n->n_inputs == (l.bias ? 9 : 8), "case %d: %d inputs", k, n->n_inputs);
        CHECK(n->inputs[0] == b.xq && n->inputs[3] == b.wq, "case %d: reads the quantized x and w", k);
        CHECK(!strcmp(g->tensors[n->inputs[1]].name, "xs") && !strcmp(g->tensors[n->inputs[2]].name, "xz") &&
                  !strcmp(g->tensors[n->inputs[4]].name, "ws") && !strcmp(g->tensors[n->inputs[5]].name, "wz") &&
                  !strcmp(g->tensors[n->inputs[6]].name, "ys") && !strcmp(g->tensors[n->inputs[7]].name, "yz"),
              "case %d: scales and zero points in QLinearConv's order", k);
        CHECK(!l.bias || n->inputs[8] == b.bq, "case %d: the int32 bias", k);
        size_t np = 0;
        CHECK(wgc_attr_ints(n, "pads", &np) && np == 4, "case %d: the Conv's attributes stay", k);
        wgc_graph_free(g);
    }
}

TEST(qdq_conv_outside_the_pattern_stays_float)
{
    const layer cases[] = {
        {.bias = true, .bad_bias_scale = true},
        {.grouped = true},
        {.three_by_three = true, .strided = true},
        {.conv_is_output = true},
        {.relu_between = true},
        {.float_bias = true}, /* QLinearConv's bias is int32: a float one would be rounded */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        wgc_graph *g = wgc_graph_new();
        built b;
        const wgc_node *n = rewritten(g, cases[k], &b);
        CHECK(n->op == WGC_OP_QUANTIZE_LINEAR, "case %zu: y should still come from QuantizeLinear, not %s", k,
              n->op_type);
        CHECK(g->nodes[g->tensors[b.conv_out].producer].op == WGC_OP_CONV, "case %zu: the Conv stays", k);
        wgc_graph_free(g);
    }
}

int main(void)
{
    RUN(qdq_conv_becomes_qlinearconv);
    RUN(qdq_conv_outside_the_pattern_stays_float);
    return test_summary("qdq");
}
