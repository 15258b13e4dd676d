/*
 * test_versions.c: the op version table (src/ops/versions.c, ir/onnx_versions.def).
 *
 * Checks: every op in ir/ops.def but the training ones has a newest implemented version, and
 * it is one of its domain's versions (ONNX's since_versions; 1 for onnxruntime's); a node's
 * opset selects the greatest since_version not above it (Softmax at opset 12 -> 11, at 17 ->
 * 13; Add at 28 -> 14); a node whose op is newer than what we implement is refused as
 * unsupported with a message naming the op and both versions; an op ONNX does not yet
 * define at the node's opset is refused as invalid; a node of a graph built by code (opset
 * 0, never from the reader) is not checked. onnxruntime's: a com.microsoft node runs version
 * 1 at com.microsoft opset 1, is refused when the model does not import the domain (opset 0)
 * and at opset 2 (onnxruntime releases 1 only), naming the domain; SimplifiedLayerNormalization
 * (onnxruntime's, in the default domain) is version 1 at any default-domain opset.
 */
#include <string.h>

#include "../../src/ops/versions.h"
#include "../test.h"

/* A node of op at opset, in the domain its schema is of. */
static wgc_node node_of(wgc_op op, int opset)
{
    wgc_node n;
    memset(&n, 0, sizeof n);
    n.op = op;
    n.op_type = (char *)wgc_op_name(op);
    n.name = (char *)"n0";
    n.domain = (char *)wgc_domain_name(wgc_op_domain(op));
    n.opset = opset;
    return n;
}

static wgc_node node(const char *op_type, int opset)
{
    return node_of(wgc_op_lookup("", op_type), opset);
}

/* Not versioned: ai.onnx.preview.training, and the compiler's markers. */
static bool unversioned(int op)
{
    return wgc_op_is_training((wgc_op)op) || op == WGC_OP_BODY_BEGIN || op == WGC_OP_BODY_ELSE ||
           op == WGC_OP_UNROLL_STEP;
}

TEST(every_op_has_a_version)
{
    for (int op = 0; op < WGC_OP_COUNT; op++) {
        if (unversioned(op))
            continue;
        int have = wgc_op_newest_implemented((wgc_op)op);
        wgc_node n = node_of((wgc_op)op, have);
        CHECK(have > 0, "%s has no entry", wgc_op_name((wgc_op)op));
        CHECK(wgc_op_version(&n) == have,
              "%s-%d is not one of its domain's versions (opset %d selects %d)",
              wgc_op_name((wgc_op)op), have, have, wgc_op_version(&n));
    }
}

TEST(opset_selects_version)
{
    wgc_node a = node("Softmax", 12), b = node("Softmax", 17), c = node("Add", 28);
    CHECK(wgc_op_version(&a) == 11, "Softmax at 12: %d", wgc_op_version(&a));
    CHECK(wgc_op_version(&b) == 13, "Softmax at 17: %d", wgc_op_version(&b));
    CHECK(wgc_op_version(&c) == 14, "Add at 28: %d", wgc_op_version(&c));
    CHECK(wgc_onnx_max_opset() >= 28, "max opset %d", wgc_onnx_max_opset());
}

TEST(newer_than_implemented_is_refused)
{
    wgc_graph *g = wgc_graph_new();
    /* find an op whose newest ONNX version is above what we implement, if any remains */
    for (int op = 0; op < WGC_OP_COUNT; op++) {
        if (unversioned(op) || wgc_op_domain((wgc_op)op) == WGC_DOMAIN_MS)
            continue; /* com.microsoft has one opset: ms_opsets */
        wgc_node n = node_of((wgc_op)op, wgc_onnx_max_opset());
        int v = wgc_op_version(&n), have = wgc_op_newest_implemented((wgc_op)op);
        wg_status st = wgc_check_version(g, &n);
        if (v <= have) {
            CHECK(st == WG_OK, "%s at opset %d: %s", n.op_type, n.opset, g->err);
            continue;
        }
        char want[64];
        snprintf(want, sizeof want, "%s-%d", n.op_type, v);
        CHECK(st == WG_ERR_UNSUPPORTED && strstr(g->err, want), "%s: status %d, '%s'", n.op_type,
              st, g->err);
    }
    wgc_graph_free(g);
}

TEST(not_yet_defined_is_invalid)
{
    wgc_graph *g = wgc_graph_new();
    wgc_node n = node("Gelu", 17); /* Gelu since 20 */
    wg_status st = wgc_check_version(g, &n);
    CHECK(st == WG_ERR_INVALID && strstr(g->err, "Gelu at opset 17"), "status %d, '%s'", st, g->err);
    wgc_node c = node("Gelu", 0);
    CHECK(wgc_check_version(g, &c) == WG_OK, "opset 0: %s", g->err);
    wgc_graph_free(g);
}

TEST(ms_opsets)
{
    wgc_graph *g = wgc_graph_new();
    wgc_node n = node_of(WGC_OP_FAST_GELU, 1);
    CHECK(wgc_op_version(&n) == 1 && wgc_check_version(g, &n) == WG_OK, "FastGelu at 1: %s", g->err);
    wgc_node none = node_of(WGC_OP_FAST_GELU, 0);
    wg_status st = wgc_check_version(g, &none);
    CHECK(st == WG_ERR_INVALID && strstr(g->err, "(FastGelu, domain com.microsoft): the model's "
                                                 "opset_import lacks domain 'com.microsoft'"),
          "not imported: %d '%s'", st, g->err);
    wgc_node two = node_of(WGC_OP_SKIP_LAYER_NORM, 2);
    st = wgc_check_version(g, &two);
    CHECK(st == WG_ERR_UNSUPPORTED &&
              strstr(g->err, "imports com.microsoft opset 2; onnxruntime defines opset 1 only"),
          "opset 2: %d '%s'", st, g->err);
    /* onnxruntime's op of the default domain: version 1 at every opset */
    wgc_node sln = node("SimplifiedLayerNormalization", 21);
    CHECK(sln.op == WGC_OP_SIMPLIFIED_LAYER_NORM && wgc_op_version(&sln) == 1 &&
              wgc_check_version(g, &sln) == WG_OK,
          "SimplifiedLayerNormalization at 21: %s", g->err);
    wgc_graph_free(g);
}

int main(void)
{
    RUN(every_op_has_a_version);
    RUN(opset_selects_version);
    RUN(newer_than_implemented_is_refused);
    RUN(not_yet_defined_is_invalid);
    RUN(ms_opsets);
    return test_summary("versions");
}
