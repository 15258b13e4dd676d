/*
 * test_qweight.c: the ops on weights quantized block-wise (src/ops/matmul_nbits.c,
 * gather_block_quantized.c, matmul_bnb4.c, helpers/qweight.c), on graphs built by code.
 *
 * Checks: a constant's bytes are placed as the first constant of the same bytes and dtype
 * (wgc_qweight_canonical: the tied embedding shares the lm_head's weights), another's as
 * its own, a tensor computed at run time as its own; inferred shapes: MatMulNBits [2, 3, K]
 * -> [2, 3, N] and a vector A [K] -> [N]; GatherBlockQuantized of a uint8 4-bit table [V,
 * H / 2] with ids [2, 5] -> [2, 5, H] (the values, not the bytes), of an 8-bit rank-3
 * table [V, 2, H] -> [2, 5, 2, H]; MatMulBnb4 [4, K] -> [4, N].
 */
#include <string.h>

#include "../../src/ops/helpers/qweight.h"
#include "../../src/passes/passes.h"
#include "../test.h"
#include "graph_build.h"

TEST(canonical_bytes)
{
    wgc_graph *g = wgc_graph_new();
    const int64_t d6[1] = {6}, d23[2] = {2, 3};
    const uint8_t a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 2, 3, 4, 5, 7};
    const int t0 = tg_const(g, "w", WG_DT_UINT8, d6, 1, a), t1 = tg_const(g, "other", WG_DT_UINT8, d6, 1, b);
    const int t2 = tg_const(g, "w_reshaped", WG_DT_UINT8, d23, 2, a), t3 = tg_const(g, "as_int8", WG_DT_INT8, d6, 1, a);
    const int x = tg_input(g, "x", WG_DT_UINT8, 1, d6);
    CHECK(wgc_qweight_canonical(g, t0) == t0 && wgc_qweight_canonical(g, t1) == t1, "firsts are their own");
    CHECK(wgc_qweight_canonical(g, t2) == t0, "the same bytes in another shape share the first's");
    CHECK(wgc_qweight_canonical(g, t3) == t3, "the same bytes of another dtype do not");
    CHECK(wgc_qweight_canonical(g, x) == x, "a run-time tensor is its own");
    wgc_graph_free(g);
}

/* A graph of one com.microsoft node op_type on inputs in[n_in] (their names), attributes
 * ints[] = {name, value, ...} (NULL-terminated), output "y", inferred; *st its status. */
static wgc_graph *infer_one(wgc_graph *g, const char *op_type, const int *in, int n_in, const char *const *names,
                            const int64_t *vals, wg_status *st)
{
    g->opset = 21;
    int y = wgc_tensor_add(g, "y");
    tg_output(g, y);
    int k = wgc_node_add(g, "node", op_type, "com.microsoft", in, n_in, &y, 1);
    g->nodes[k].opset = 1;
    g->tensors[y].producer = k;
    for (int i = 0; names[i]; i++)
        wgc_attr_add(g, k, names[i], WGC_ATTR_INT)->i = vals[i];
    wgc_pass_options o = {.n_shapes = 0};
    *st = wgc_pass_infer(g, &o);
    return g;
}

static bool shape_is(const wgc_graph *g, const char *name, int rank, const int64_t *dims)
{
    const wgc_tensor *t = &g->tensors[wgc_tensor_find((wgc_graph *)g, name)];
    if (!t->has_shape || t->shape.rank != rank || t->dtype != WG_DT_FLOAT)
        return false;
    for (int d = 0; d < rank; d++)
        if (t->shape.dims[d] != dims[d])
            return false;
    return true;
}

TEST(matmul_nbits_shapes)
{
    static const char *const names[] = {"K", "N", "bits", "block_size", NULL};
    const int64_t vals[] = {40, 5, 4, 16};
    static uint8_t bytes[5 * 3 * 8];
    static float s[15];
    wg_status st;
    wgc_graph *g = wgc_graph_new();
    const int64_t ad[3] = {2, 3, 40}, bd[3] = {5, 3, 8}, sd[2] = {5, 3};
    int in[3] = {tg_input(g, "a", WG_DT_FLOAT, 3, ad), tg_const(g, "b", WG_DT_UINT8, bd, 3, bytes),
                 tg_const(g, "s", WG_DT_FLOAT, sd, 2, s)};
    infer_one(g, "MatMulNBits", in, 3, names, vals, &st);
    CHECK(st == WG_OK && shape_is(g, "y", 3, (const int64_t[]){2, 3, 5}), "[2, 3, 40] -> [2, 3, 5]: %s", g->err);
    wgc_graph_free(g);

    g = wgc_graph_new();
    in[0] = tg_input(g, "a", WG_DT_FLOAT, 1, (const int64_t[]){40});
    in[1] = tg_const(g, "b", WG_DT_UINT8, bd, 3, bytes);
    in[2] = tg_const(g, "s", WG_DT_FLOAT, (const int64_t[]){15}, 1, s);
    infer_one(g, "MatMulNBits", in, 3, names, vals, &st);
    CHECK(st == WG_OK && shape_is(g, "y", 1, (const int64_t[]){5}), "[40] -> [5], flat scales: %s", g->err);
    wgc_graph_free(g);
}

TEST(gather_block_quantized_shapes)
{
    static const char *const names[] = {"bits", "block_size", "gather_axis", "quantize_axis", NULL};
    static uint8_t bytes[7 * 2 * 32];
    static float s[7 * 2 * 2];
    wg_status st;
    wgc_graph *g = wgc_graph_new();
    int in[3] = {tg_const(g, "t", WG_DT_UINT8, (const int64_t[]){7, 16}, 2, bytes),
                 tg_input(g, "ids", WG_DT_INT64, 2, (const int64_t[]){2, 5}),
                 tg_const(g, "s", WG_DT_FLOAT, (const int64_t[]){7, 2}, 2, s)};
    infer_one(g, "GatherBlockQuantized", in, 3, names, (const int64_t[]){4, 16, 0, 1}, &st);
    CHECK(st == WG_OK && shape_is(g, "y", 3, (const int64_t[]){2, 5, 32}), "4-bit [7, 16] bytes: [2, 5, 32]: %s",
          g->err);
    wgc_graph_free(g);

    g = wgc_graph_new();
    in[0] = tg_const(g, "t", WG_DT_UINT8, (const int64_t[]){7, 2, 32}, 3, bytes);
    in[1] = tg_input(g, "ids", WG_DT_INT32, 2, (const int64_t[]){2, 5});
    in[2] = tg_const(g, "s", WG_DT_FLOAT, (const int64_t[]){7, 2, 2}, 3, s);
    infer_one(g, "GatherBlockQuantized", in, 3, names, (const int64_t[]){8, 16, 0, -1}, &st);
    CHECK(st == WG_OK && shape_is(g, "y", 4, (const int64_t[]){2, 5, 2, 32}), "8-bit [7, 2, 32]: %s", g->err);
    wgc_graph_free(g);
}

TEST(matmul_bnb4_shapes)
{
    static const char *const names[] = {"K", "N", "block_size", "quant_type", NULL};
    static uint8_t bytes[3 * 20 / 2];
    static float am[2];
    wg_status st;
    wgc_graph *g = wgc_graph_new();
    int in[3] = {tg_input(g, "a", WG_DT_FLOAT, 2, (const int64_t[]){4, 20}),
                 tg_const(g, "b", WG_DT_UINT8, (const int64_t[]){30}, 1, bytes),
                 tg_const(g, "am", WG_DT_FLOAT, (const int64_t[]){2}, 1, am)};
    infer_one(g, "MatMulBnb4", in, 3, names, (const int64_t[]){20, 3, 32, 1}, &st);
    CHECK(st == WG_OK && shape_is(g, "y", 2, (const int64_t[]){4, 3}), "[4, 20] -> [4, 3]: %s", g->err);
    wgc_graph_free(g);
}

int main(void)
{
    RUN(canonical_bytes);
    RUN(matmul_nbits_shapes);
    RUN(gather_block_quantized_shapes);
    RUN(matmul_bnb4_shapes);
    return test_summary("qweight");
}
