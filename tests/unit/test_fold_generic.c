/*
 * test_fold_generic.c: host constant folding of the generic ops (src/ops/helpers/fold_map.c
 * and the fold hooks of the elementwise tables, affine_gather, slice, reduce and pad), on tiny
 * graphs through each op's infer and fold hooks: the LayerNormalization shape subgraph (Shape -> Slice, Neg ->
 * ConstantOfShape) that exported models use, integer wrap-around like the module's C
 * (Neg of int8 -128), comparisons and Where, Min with NaN, floored Mod, ReduceSum /
 * ArgMax(select_last_index), Tile, reflect Pad, and the size limit that makes a fold
 * decline. (tests/conformance/folded.sh checks every node test this way too.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ops/helpers/fold_map.h"
#include "../test.h"
#include "graph_build.h"

static int node(wgc_graph *g, const char *op, const int *in, int n_in, int *out)
{
    *out = wgc_tensor_add(g, op);
    return wgc_node_add(g, op, op, "", in, n_in, out, 1);
}

/* infer then fold node n; WG_OK only when both succeed. */
static wg_status run(wgc_graph *g, int n)
{
    const wgc_op_def *def = wgc_op_hooks(g->nodes[n].op);
    wg_status st = def->infer(g, &g->nodes[n]);
    return st ? st : def->fold(g, &g->nodes[n]);
}

TEST(layer_norm_shape_subgraph_folds)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 17;
    int x = wgc_tensor_add(g, "x");
    g->tensors[x].dtype = WG_DT_FLOAT;
    g->tensors[x].has_shape = true;
    g->tensors[x].shape = (wgc_shape){.rank = 3, .dims = {2, 3, 5}};
    int shp, pre, neg, suf;
    int n = node(g, "Shape", &x, 1, &shp);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    int zero = tg_const(g, "zero", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){0});
    int axis = tg_const(g, "axis", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){-1});
    n = node(g, "Slice", (int[]){shp, zero, axis}, 3, &pre);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const int64_t *pv = g->tensors[pre].data;
    CHECK(pv && g->tensors[pre].shape.dims[0] == 2 && pv[0] == 2 && pv[1] == 3,
          "Slice of a constant shape folds to [2, 3]");
    n = node(g, "Neg", &axis, 1, &neg);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    CHECK(g->tensors[neg].data && *(int64_t *)g->tensors[neg].data == 1, "Neg(-1) folds to 1");
    n = node(g, "ConstantOfShape", &neg, 1, &suf);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    CHECK(g->tensors[suf].shape.rank == 1 && g->tensors[suf].shape.dims[0] == 1,
          "ConstantOfShape gets the folded shape [1]");
    wgc_graph_free(g);
}

TEST(elementwise_int_wrap_compare_where_nan)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 17;
    int y;
    int a8 = tg_const(g, "a8", WG_DT_INT8, (int64_t[]){3}, 1, (int8_t[]){-128, 5, -7});
    int n = node(g, "Neg", &a8, 1, &y);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const int8_t *nv = g->tensors[y].data;
    CHECK(nv && nv[0] == -128 && nv[1] == -5 && nv[2] == 7, "Neg int8 wraps -128 like C");

    int b8 = tg_const(g, "b8", WG_DT_INT8, (int64_t[]){1}, 1, (int8_t[]){3});
    n = node(g, "Mod", (int[]){a8, b8}, 2, &y);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const int8_t *mv = g->tensors[y].data;
    CHECK(mv && mv[0] == 1 && mv[1] == 2 && mv[2] == 2, "Mod (fmod=0) is floored: -128 %% 3 = 1, -7 %% 3 = 2");

    float nan = NAN;
    int fa = tg_const(g, "fa", WG_DT_FLOAT, (int64_t[]){3}, 1, (float[]){1.0f, nan, -2.0f});
    int fb = tg_const(g, "fb", WG_DT_FLOAT, (int64_t[]){3}, 1, (float[]){0.5f, 0.0f, -1.0f});
    n = node(g, "Less", (int[]){fa, fb}, 2, &y);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const uint8_t *lv = g->tensors[y].data;
    CHECK(g->tensors[y].dtype == WG_DT_BOOL && lv[0] == 0 && lv[1] == 0 && lv[2] == 1,
          "Less gives bool, false for NaN");
    int less = y;
    n = node(g, "Where", (int[]){less, fa, fb}, 3, &y);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const float *wv = g->tensors[y].data;
    CHECK(wv && wv[0] == 0.5f && wv[1] == 0.0f && wv[2] == -2.0f, "Where picks per element");
    n = node(g, "Min", (int[]){fa, fb}, 2, &y);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const float *minv = g->tensors[y].data;
    CHECK(minv && minv[0] == 0.5f && isnan(minv[1]) && minv[2] == -2.0f, "Min propagates NaN");
    wgc_graph_free(g);
}

TEST(reduce_tile_pad_and_size_limit)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int y;
    int x = tg_const(g, "x", WG_DT_INT32, (int64_t[]){2, 3}, 2, (int32_t[]){1, 7, 7, -4, 2, -4});
    int ax = tg_const(g, "ax", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){1});
    int n = node(g, "ReduceSum", (int[]){x, ax}, 2, &y);
    wgc_attr_add(g, n, "keepdims", WGC_ATTR_INT)->i = 0;
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const int32_t *sv = g->tensors[y].data;
    CHECK(sv && g->tensors[y].shape.rank == 1 && sv[0] == 15 && sv[1] == -6, "ReduceSum axis 1");

    n = node(g, "ArgMax", &x, 1, &y);
    wgc_attr_add(g, n, "axis", WGC_ATTR_INT)->i = 1;
    wgc_attr_add(g, n, "select_last_index", WGC_ATTR_INT)->i = 1;
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const int64_t *av = g->tensors[y].data;
    CHECK(av && g->tensors[y].dtype == WG_DT_INT64 && av[0] == 2 && av[1] == 1,
          "ArgMax select_last_index takes the last of equal maxima");

    int rep = tg_const(g, "rep", WG_DT_INT64, (int64_t[]){2}, 1, (int64_t[]){1, 2});
    n = node(g, "Tile", (int[]){x, rep}, 2, &y);
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const int32_t *tv = g->tensors[y].data;
    CHECK(tv && g->tensors[y].shape.dims[1] == 6 && tv[3] == 1 && tv[11] == -4, "Tile [1, 2]");

    int pads = tg_const(g, "pads", WG_DT_INT64, (int64_t[]){4}, 1, (int64_t[]){0, 2, 0, 0});
    n = node(g, "Pad", (int[]){x, pads}, 2, &y);
    wgc_attr *mode = wgc_attr_add(g, n, "mode", WGC_ATTR_STRING);
    mode->s = strdup("reflect");
    mode->s_len = strlen("reflect");
    CHECK(run(g, n) == WG_OK, "%s", g->err);
    const int32_t *rv = g->tensors[y].data;
    CHECK(rv && g->tensors[y].shape.dims[1] == 5 && rv[0] == 7 && rv[1] == 7 && rv[2] == 1 &&
              rv[5] == -4 && rv[6] == 2,
          "reflect Pad mirrors without repeating the border");

    /* Expand to 2^23 elements: the fold declines (the module computes it) */
    int big = tg_const(g, "big", WG_DT_INT64, (int64_t[]){2}, 1, (int64_t[]){1 << 12, 1 << 11});
    int one = tg_const(g, "one", WG_DT_FLOAT, (int64_t[]){1}, 1, (float[]){1.0f});
    n = node(g, "Expand", (int[]){one, big}, 2, &y);
    CHECK(run(g, n) == WG_ERR_UNSUPPORTED && !g->tensors[y].data,
          "a fold larger than WGC_FOLD_MAX_NUMEL declines");
    wgc_graph_free(g);
}

int main(void)
{
    RUN(layer_norm_shape_subgraph_folds);
    RUN(elementwise_int_wrap_compare_where_nan);
    RUN(reduce_tile_pad_and_size_limit);
    return test_summary("fold_generic");
}
