/*
 * test_arity.c: the required input/output table (src/ops/arity.c) and its check in shape
 * inference.
 *
 * Checks: every op in ir/ops.def has an entry; counts that changed between opsets follow
 * the node's opset (Reshape-1 vs 5, Unsqueeze-11 vs 13, Gemm-9 vs 11, TopK-1 vs 10);
 * inference refuses, with a message naming the node and the input, an Expand without its
 * shape (found by fuzzing: it dereferenced NULL), a Slice whose `ends` is an empty name,
 * and a TopK without its indices output; a complete node still passes the check.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/ops/arity.h"
#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

/* A graph with one node of type op (inputs as given, -1 = empty) and n_out outputs;
 * runs inference and returns its status, the message in msg. */
static wg_status infer_one(const char *op, int opset, int n_in, const int *which, int n_out,
                           char *msg, size_t len)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = opset;
    const int64_t dims[2] = {2, 3};
    int x = tg_input(g, "x", WG_DT_FLOAT, 2, dims);
    int in[4], out[3];
    for (int i = 0; i < n_in; i++)
        in[i] = which[i] < 0 ? -1 : x;
    for (int i = 0; i < n_out; i++) {
        char name[16];
        snprintf(name, sizeof name, "y%d", i);
        out[i] = wgc_tensor_add(g, name);
    }
    int n = wgc_node_add(g, "the_node", op, "", in, n_in, out, n_out);
    for (int i = 0; i < n_out; i++)
        g->tensors[out[i]].producer = n;
    wgc_pass_options o = {.n_shapes = 0};
    wg_status st = wgc_pass_infer(g, &o);
    snprintf(msg, len, "%s", g->err);
    wgc_graph_free(g);
    return st;
}

TEST(every_op_has_an_entry)
{
    for (int op = 0; op < WGC_OP_COUNT; op++) {
        int in = -1, out = -1;
        CHECK(wgc_op_arity((wgc_op)op, 21, &in, &out), "%s has no arity entry",
              wgc_op_name((wgc_op)op));
        CHECK(in >= 0 && in <= 8 && out >= 0 && out <= 3, "%s: %d inputs, %d outputs",
              wgc_op_name((wgc_op)op), in, out);
    }
    int in, out;
    CHECK(!wgc_op_arity(WGC_OP_COUNT, 13, &in, &out), "WGC_OP_COUNT must be unknown");
}

TEST(counts_follow_the_opset)
{
    int in, out;
    wgc_op_arity(WGC_OP_RESHAPE, 1, &in, &out);
    CHECK(in == 1, "Reshape-1 needs %d", in);
    wgc_op_arity(WGC_OP_RESHAPE, 5, &in, &out);
    CHECK(in == 2, "Reshape-5 needs %d", in);
    wgc_op_arity(WGC_OP_UNSQUEEZE, 11, &in, &out);
    CHECK(in == 1, "Unsqueeze-11 needs %d", in);
    wgc_op_arity(WGC_OP_UNSQUEEZE, 13, &in, &out);
    CHECK(in == 2, "Unsqueeze-13 needs %d", in);
    wgc_op_arity(WGC_OP_GEMM, 9, &in, &out);
    CHECK(in == 3, "Gemm-9 needs %d", in);
    wgc_op_arity(WGC_OP_GEMM, 11, &in, &out);
    CHECK(in == 2, "Gemm-11 needs %d", in);
    wgc_op_arity(WGC_OP_TOP_K, 1, &in, &out);
    CHECK(in == 1 && out == 2, "TopK-1 needs %d in, %d out", in, out);
    wgc_op_arity(WGC_OP_TOP_K, 10, &in, &out);
    CHECK(in == 2, "TopK-10 needs %d", in);
    wgc_op_arity(WGC_OP_CONSTANT, 13, &in, &out);
    CHECK(in == 0 && out == 1, "Constant needs %d in, %d out", in, out);
}

TEST(missing_inputs_are_refused_with_the_node_name)
{
    char msg[1024];
    const int one[1] = {0};
    wg_status st = infer_one("Expand", 13, 1, one, 1, msg, sizeof msg);
    CHECK(st == WG_ERR_INVALID, "Expand with 1 input: status %d", (int)st);
    CHECK(strstr(msg, "the_node") && strstr(msg, "requires at least 2"), "message: %s", msg);

    const int empty_ends[3] = {0, 0, -1};
    st = infer_one("Slice", 13, 3, empty_ends, 1, msg, sizeof msg);
    CHECK(st == WG_ERR_INVALID, "Slice with an empty ends: status %d", (int)st);
    CHECK(strstr(msg, "the_node") && strstr(msg, "required input 2 is empty"), "message: %s", msg);

    const int topk_in[2] = {0, 0};
    st = infer_one("TopK", 11, 2, topk_in, 1, msg, sizeof msg);
    CHECK(st == WG_ERR_INVALID, "TopK with 1 output: status %d", (int)st);
    CHECK(strstr(msg, "has 1 output, but TopK-11 requires at least 2"), "message: %s", msg);
}

TEST(a_complete_node_passes)
{
    char msg[1024];
    const int two[2] = {0, 0};
    wg_status st = infer_one("Add", 13, 2, two, 1, msg, sizeof msg);
    CHECK(st == WG_OK, "Add: status %d: %s", (int)st, msg);
}

int main(void)
{
    RUN(every_op_has_an_entry);
    RUN(counts_follow_the_opset);
    RUN(missing_inputs_are_refused_with_the_node_name);
    RUN(a_complete_node_passes);
    return test_summary("arity");
}
