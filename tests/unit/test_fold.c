/*
 * test_fold.c: shape inference and host constant folding of the elementwise and
 * data-movement ops, by building tiny graphs and calling each op's infer and fold hooks
 * directly: the Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain that exported
 * models use, ConstantOfShape and Constant, broadcasting arithmetic (integer Div
 * truncates), Sum, Transpose, Cast, Clip, activations, Squeeze/Unsqueeze, Flatten,
 * Gather, Dropout's mask, Pad's shape rule, and the unsupported-case errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ops/op.h"
#include "../test.h"
#include "graph_build.h"

static int cst_i64(wgc_graph *g, const char *name, const int64_t *v, int n)
{
    int64_t dims[1] = {n};
    return tg_const(g, name, WG_DT_INT64, dims, 1, v);
}

/* A graph input (not constant) with a known shape. */
static int inp(wgc_graph *g, const char *name, int dtype, const int64_t *dims, int rank)
{
    int t = wgc_tensor_add(g, name);
    wgc_tensor *x = &g->tensors[t];
    x->dtype = dtype;
    x->has_shape = true;
    x->shape.rank = rank;
    for (int d = 0; d < rank; d++)
        x->shape.dims[d] = dims[d];
    return t;
}

static int node(wgc_graph *g, const char *op, const int *in, int n_in, int out)
{
    return wgc_node_add(g, op, op, "", in, n_in, &out, 1);
}

static wg_status infer_fold(wgc_graph *g, int n)
{
    const wgc_op_def *def = wgc_op_hooks(g->nodes[n].op);
    wg_status st = def->infer(g, &g->nodes[n]);
    if (st)
        return st;
    return def->fold ? def->fold(g, &g->nodes[n]) : WG_OK;
}

static bool shape_is(const wgc_tensor *t, int rank, const int64_t *dims)
{
    if (!t->has_shape || t->shape.rank != rank)
        return false;
    for (int d = 0; d < rank; d++)
        if (t->shape.dims[d] != dims[d])
            return false;
    return true;
}

static void set_ints(wgc_graph *g, int n, const char *name, const int64_t *v, size_t cnt)
{
    wgc_attr *a = wgc_attr_add(g, n, name, WGC_ATTR_INTS);
    a->ints = malloc(cnt * sizeof *v);
    memcpy(a->ints, v, cnt * sizeof *v);
    a->n = cnt;
}

TEST(shape_chain_folds_to_static_reshape)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int x = inp(g, "x", WG_DT_FLOAT, (int64_t[]){2, 3, 4, 5}, 4);
    int shp = wgc_tensor_add(g, "shp"), dim0 = wgc_tensor_add(g, "dim0");
    int un = wgc_tensor_add(g, "un"), cat = wgc_tensor_add(g, "cat"), y = wgc_tensor_add(g, "y");
    int idx = tg_const(g, "idx", WG_DT_INT64, NULL, 0, (int64_t[]){0});
    int axes = cst_i64(g, "axes", (int64_t[]){0}, 1);
    int minus1 = cst_i64(g, "minus1", (int64_t[]){-1}, 1);

    int n = node(g, "Shape", &x, 1, shp);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const int64_t *sv = g->tensors[shp].data;
    CHECK(sv && sv[0] == 2 && sv[3] == 5, "Shape folds without a constant input");

    n = node(g, "Gather", (int[]){shp, idx}, 2, dim0);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(g->tensors[dim0].shape.rank == 0 && *(int64_t *)g->tensors[dim0].data == 2,
          "Gather with a scalar index gives a scalar");

    n = node(g, "Unsqueeze", (int[]){dim0, axes}, 2, un);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[un], 1, (int64_t[]){1}), "Unsqueeze(axes input) to [1]");

    n = node(g, "Concat", (int[]){un, minus1}, 2, cat);
    wgc_attr_add(g, n, "axis", WGC_ATTR_INT)->i = 0;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const int64_t *cv = g->tensors[cat].data;
    CHECK(cv && cv[0] == 2 && cv[1] == -1, "Concat folds to [2, -1]");

    n = node(g, "Reshape", (int[]){x, cat}, 2, y);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[y], 2, (int64_t[]){2, 60}), "Reshape infers [2, 60]");
    CHECK(wgc_op_hooks(g->nodes[n].op)->fold(g, &g->nodes[n]) == WG_ERR_UNSUPPORTED,
          "Reshape of a runtime input declines to fold");
    wgc_graph_free(g);
}

TEST(reshape_zero_allowzero_and_runtime_shape)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 14;
    float xv[6] = {1, 2, 3, 4, 5, 6};
    int x = tg_const(g, "x", WG_DT_FLOAT, (int64_t[]){2, 3}, 2, xv);
    int s = cst_i64(g, "s", (int64_t[]){0, 3, -1}, 3);
    int y = wgc_tensor_add(g, "y");
    int n = node(g, "Reshape", (int[]){x, s}, 2, y);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[y], 3, (int64_t[]){2, 3, 1}), "0 copies the input dim");
    CHECK(((float *)g->tensors[y].data)[5] == 6.0f, "data copied");

    int s2 = cst_i64(g, "s2", (int64_t[]){0, 6}, 2), y2 = wgc_tensor_add(g, "y2");
    n = node(g, "Reshape", (int[]){x, s2}, 2, y2);
    wgc_attr_add(g, n, "allowzero", WGC_ATTR_INT)->i = 1;
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_INVALID,
          "allowzero makes 0 a real zero dim (0x6 != 6 elements)");

    int rs = inp(g, "rs", WG_DT_INT64, (int64_t[]){2}, 1), y3 = wgc_tensor_add(g, "y3");
    n = node(g, "Reshape", (int[]){x, rs}, 2, y3);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_UNSUPPORTED && strstr(g->err, "rs"),
          "runtime shape input is unsupported, named: %s", g->err);
    wgc_graph_free(g);
}

TEST(constant_of_shape_and_constant)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int s = cst_i64(g, "s", (int64_t[]){2, 3}, 2), y = wgc_tensor_add(g, "y");
    int n = node(g, "ConstantOfShape", &s, 1, y);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(g->tensors[y].dtype == WG_DT_FLOAT && ((float *)g->tensors[y].data)[5] == 0.0f,
          "default value is float 0");

    int y2 = wgc_tensor_add(g, "y2");
    n = node(g, "ConstantOfShape", &s, 1, y2);
    wgc_attr *a = wgc_attr_add(g, n, "value", WGC_ATTR_TENSOR);
    a->t = calloc(1, sizeof *a->t);
    a->t->dtype = WG_DT_INT64;
    a->t->shape.rank = 1;
    a->t->shape.dims[0] = 1;
    a->t->data = malloc(8);
    *(int64_t *)a->t->data = 7;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const int64_t *v = g->tensors[y2].data;
    CHECK(g->tensors[y2].dtype == WG_DT_INT64 && v[0] == 7 && v[5] == 7, "int64 fill 7");

    int c = wgc_tensor_add(g, "c");
    n = wgc_node_add(g, "K", "Constant", "", NULL, 0, &c, 1);
    set_ints(g, n, "value_ints", (int64_t[]){4, 5, 6}, 3);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[c], 1, (int64_t[]){3}) &&
              ((int64_t *)g->tensors[c].data)[2] == 6,
          "value_ints");

    int c2 = wgc_tensor_add(g, "c2");
    n = wgc_node_add(g, "K2", "Constant", "", NULL, 0, &c2, 1);
    wgc_attr_add(g, n, "value_float", WGC_ATTR_FLOAT)->f = 2.5f;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(g->tensors[c2].shape.rank == 0 && *(float *)g->tensors[c2].data == 2.5f,
          "value_float is a float scalar");

    int c3 = wgc_tensor_add(g, "c3");
    n = wgc_node_add(g, "K3", "Constant", "", NULL, 0, &c3, 1);
    wgc_attr_add(g, n, "sparse_value", WGC_ATTR_TENSOR);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_UNSUPPORTED &&
              strstr(g->err, "sparse_value"),
          "sparse_value is unsupported: %s", g->err);
    wgc_graph_free(g);
}

TEST(binary_broadcast_and_integer_div)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 14;
    int a = tg_const(g, "a", WG_DT_FLOAT, (int64_t[]){2, 3}, 2, (float[]){1, 2, 3, 4, 5, 6});
    int b = tg_const(g, "b", WG_DT_FLOAT, (int64_t[]){3}, 1, (float[]){10, 20, 30});
    int y = wgc_tensor_add(g, "y");
    int n = node(g, "Add", (int[]){a, b}, 2, y);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const float *yv = g->tensors[y].data;
    CHECK(shape_is(&g->tensors[y], 2, (int64_t[]){2, 3}) && yv[0] == 11 && yv[5] == 36,
          "[2,3] + [3]");

    int c = tg_const(g, "c", WG_DT_FLOAT, (int64_t[]){2, 1}, 2, (float[]){2, 4});
    int y2 = wgc_tensor_add(g, "y2");
    n = node(g, "Div", (int[]){b, c}, 2, y2);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const float *y2v = g->tensors[y2].data;
    CHECK(shape_is(&g->tensors[y2], 2, (int64_t[]){2, 3}) && y2v[0] == 5 && y2v[5] == 7.5f,
          "[3] / [2,1] broadcasts both ways");

    int ia = cst_i64(g, "ia", (int64_t[]){-7, 7, -7, 5}, 4);
    int ib = cst_i64(g, "ib", (int64_t[]){2, -2, -2, 0}, 4);
    int y3 = wgc_tensor_add(g, "y3");
    n = node(g, "Div", (int[]){ia, ib}, 2, y3);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const int64_t *q = g->tensors[y3].data;
    CHECK(q[0] == -3 && q[1] == -3 && q[2] == 3 && q[3] == 0,
          "int Div truncates toward zero; x/0 gives 0: %lld %lld %lld %lld", (long long)q[0],
          (long long)q[1], (long long)q[2], (long long)q[3]);

    int y4 = wgc_tensor_add(g, "y4");
    n = node(g, "Mul", (int[]){a, ia}, 2, y4);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_INVALID, "mixed dtypes rejected");
    wgc_graph_free(g);
}

TEST(sum_transpose_cast_clip_unary)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 13;
    int a = tg_const(g, "a", WG_DT_FLOAT, (int64_t[]){2, 3}, 2, (float[]){1, 2, 3, 4, 5, 6});
    int b = tg_const(g, "b", WG_DT_FLOAT, (int64_t[]){3}, 1, (float[]){10, 20, 30});
    int c = tg_const(g, "c", WG_DT_FLOAT, NULL, 0, (float[]){100});
    int y = wgc_tensor_add(g, "y");
    int n = node(g, "Sum", (int[]){a, b, c}, 3, y);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const float *yv = g->tensors[y].data;
    CHECK(yv[0] == 111 && yv[5] == 136, "Sum of three with broadcasting");

    int t = wgc_tensor_add(g, "t");
    n = node(g, "Transpose", &a, 1, t);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const float *tv = g->tensors[t].data;
    CHECK(shape_is(&g->tensors[t], 2, (int64_t[]){3, 2}) && tv[1] == 4 && tv[2] == 2,
          "default perm reverses");

    int f = tg_const(g, "f", WG_DT_FLOAT, (int64_t[]){4}, 1, (float[]){-3.7f, 3.7f, 1.0f, 65520.f});
    int ci = wgc_tensor_add(g, "ci"), ch = wgc_tensor_add(g, "ch");
    n = node(g, "Cast", &f, 1, ci);
    wgc_attr_add(g, n, "to", WGC_ATTR_INT)->i = WG_DT_INT32;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const int32_t *iv = g->tensors[ci].data;
    CHECK(iv[0] == -3 && iv[1] == 3, "Cast float->int32 truncates");
    n = node(g, "Cast", &f, 1, ch);
    wgc_attr_add(g, n, "to", WGC_ATTR_INT)->i = WG_DT_FLOAT16;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const uint16_t *hv = g->tensors[ch].data;
    CHECK(hv[2] == 0x3c00 && hv[3] == 0x7c00, "Cast to float16");
    int cs = wgc_tensor_add(g, "cs");
    n = node(g, "Cast", &f, 1, cs);
    wgc_attr_add(g, n, "to", WGC_ATTR_INT)->i = WG_DT_STRING;
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_UNSUPPORTED && strstr(g->err, "string"),
          "Cast to string unsupported: %s", g->err);

    /* Clip, opset 13 with constant bound inputs (max omitted). */
    int lo = tg_const(g, "lo", WG_DT_FLOAT, NULL, 0, (float[]){0.5f});
    int cl = wgc_tensor_add(g, "cl");
    n = wgc_node_add(g, "clip", "Clip", "", (int[]){f, lo, -1}, 3, &cl, 1);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const float *clv = g->tensors[cl].data;
    CHECK(clv[0] == 0.5f && clv[3] == 65520.f, "Clip with only a min");
    /* Clip opset 6 attributes. */
    g->opset = 6;
    int cl6 = wgc_tensor_add(g, "cl6");
    n = node(g, "Clip", &f, 1, cl6);
    wgc_attr_add(g, n, "min", WGC_ATTR_FLOAT)->f = -1.0f;
    wgc_attr_add(g, n, "max", WGC_ATTR_FLOAT)->f = 2.0f;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const float *c6 = g->tensors[cl6].data;
    CHECK(c6[0] == -1.0f && c6[1] == 2.0f && c6[2] == 1.0f, "Clip opset 6 attributes");
    g->opset = 13;
    /* Runtime min: fold declines. */
    int rlo = inp(g, "rlo", WG_DT_FLOAT, NULL, 0), cl2 = wgc_tensor_add(g, "cl2");
    n = wgc_node_add(g, "clip2", "Clip", "", (int[]){f, rlo}, 2, &cl2, 1);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(wgc_op_hooks(g->nodes[n].op)->fold(g, &g->nodes[n]) == WG_ERR_UNSUPPORTED, "runtime bound: no fold");

    int r = wgc_tensor_add(g, "r"), s = wgc_tensor_add(g, "s"), lr = wgc_tensor_add(g, "lr");
    n = node(g, "Relu", &f, 1, r);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(((float *)g->tensors[r].data)[0] == 0.0f, "Relu");
    n = node(g, "Sigmoid", &f, 1, s);
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(fabsf(((float *)g->tensors[s].data)[2] - 0.7310586f) < 1e-6f, "Sigmoid(1)");
    n = node(g, "LeakyRelu", &f, 1, lr);
    wgc_attr_add(g, n, "alpha", WGC_ATTR_FLOAT)->f = 0.5f;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    CHECK(((float *)g->tensors[lr].data)[0] == -1.85f, "LeakyRelu alpha 0.5");
    wgc_graph_free(g);
}

TEST(squeeze_unsqueeze_flatten_gather_dropout_pad)
{
    wgc_graph *g = wgc_graph_new();
    g->opset = 11;
    int x = inp(g, "x", WG_DT_FLOAT, (int64_t[]){1, 3, 1, 4}, 4);
    int y = wgc_tensor_add(g, "y"), y2 = wgc_tensor_add(g, "y2"), y3 = wgc_tensor_add(g, "y3");
    int n = node(g, "Squeeze", &x, 1, y);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[y], 2, (int64_t[]){3, 4}), "Squeeze without axes drops all 1s");
    n = node(g, "Squeeze", &x, 1, y2);
    set_ints(g, n, "axes", (int64_t[]){-2}, 1);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[y2], 3, (int64_t[]){1, 3, 4}), "Squeeze axes=[-2]");
    n = node(g, "Squeeze", &x, 1, y3);
    set_ints(g, n, "axes", (int64_t[]){1}, 1);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_INVALID, "squeezing a dim of 3");

    int u = wgc_tensor_add(g, "u");
    n = node(g, "Unsqueeze", &y, 1, u);
    set_ints(g, n, "axes", (int64_t[]){0, -1}, 2);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[u], 4, (int64_t[]){1, 3, 4, 1}), "Unsqueeze attr axes 0,-1");

    int f0 = wgc_tensor_add(g, "f0"), f1 = wgc_tensor_add(g, "f1");
    n = node(g, "Flatten", &x, 1, f0);
    wgc_attr_add(g, n, "axis", WGC_ATTR_INT)->i = 0;
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[f0], 2, (int64_t[]){1, 12}), "Flatten axis 0");
    n = node(g, "Flatten", &x, 1, f1);
    wgc_attr_add(g, n, "axis", WGC_ATTR_INT)->i = -1;
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[f1], 2, (int64_t[]){3, 4}), "Flatten axis -1");

    int d = tg_const(g, "d", WG_DT_FLOAT, (int64_t[]){2, 3}, 2, (float[]){1, 2, 3, 4, 5, 6});
    int gi = tg_const(g, "gi", WG_DT_INT32, (int64_t[]){2}, 1, (int32_t[]){-1, 0});
    int gy = wgc_tensor_add(g, "gy");
    n = node(g, "Gather", (int[]){d, gi}, 2, gy);
    wgc_attr_add(g, n, "axis", WGC_ATTR_INT)->i = 1;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const float *gv = g->tensors[gy].data;
    CHECK(shape_is(&g->tensors[gy], 2, (int64_t[]){2, 2}) && gv[0] == 3 && gv[1] == 1 &&
              gv[2] == 6 && gv[3] == 4,
          "Gather axis 1 with negative int32 indices");
    int bad = tg_const(g, "bad", WG_DT_INT64, (int64_t[]){1}, 1, (int64_t[]){3}), gb = wgc_tensor_add(g, "gb");
    n = node(g, "Gather", (int[]){d, bad}, 2, gb);
    wgc_attr_add(g, n, "axis", WGC_ATTR_INT)->i = 1;
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_INVALID, "constant index out of range");

    int dy = wgc_tensor_add(g, "dy"), mask = wgc_tensor_add(g, "mask");
    n = wgc_node_add(g, "drop", "Dropout", "", &x, 1, (int[]){dy, mask}, 2);
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(g->tensors[mask].dtype == WG_DT_BOOL && g->tensors[mask].data &&
              ((uint8_t *)g->tensors[mask].data)[11] == 1,
          "Dropout mask is a constant all-true bool");

    int pads = cst_i64(g, "pads", (int64_t[]){0, 0, 1, 2, 0, 0, 1, -1}, 8);
    int py = wgc_tensor_add(g, "py"), pw = wgc_tensor_add(g, "pw");
    n = node(g, "Pad", (int[]){x, pads}, 2, py);
    wgc_attr *m = wgc_attr_add(g, n, "mode", WGC_ATTR_STRING);
    m->s = strdup("edge");
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_OK, "%s", g->err);
    CHECK(shape_is(&g->tensors[py], 4, (int64_t[]){1, 3, 3, 5}), "Pad shape with a crop");
    n = node(g, "Pad", (int[]){x, pads}, 2, pw);
    m = wgc_attr_add(g, n, "mode", WGC_ATTR_STRING);
    m->s = strdup("wrap");
    CHECK(wgc_op_hooks(g->nodes[n].op)->infer(g, &g->nodes[n]) == WG_ERR_UNSUPPORTED && strstr(g->err, "wrap"),
          "Pad wrap unsupported: %s", g->err);

    g->opset = 15;
    int sh = wgc_tensor_add(g, "sh");
    n = node(g, "Shape", &x, 1, sh);
    wgc_attr_add(g, n, "start", WGC_ATTR_INT)->i = 1;
    wgc_attr_add(g, n, "end", WGC_ATTR_INT)->i = -1;
    CHECK(infer_fold(g, n) == WG_OK, "%s", g->err);
    const int64_t *shv = g->tensors[sh].data;
    CHECK(shape_is(&g->tensors[sh], 1, (int64_t[]){2}) && shv[0] == 3 && shv[1] == 1,
          "Shape start=1 end=-1");
    wgc_graph_free(g);
}

int main(void)
{
    RUN(shape_chain_folds_to_static_reshape);
    RUN(reshape_zero_allowzero_and_runtime_shape);
    RUN(constant_of_shape_and_constant);
    RUN(binary_broadcast_and_integer_div);
    RUN(sum_transpose_cast_clip_unary);
    RUN(squeeze_unsqueeze_flatten_gather_dropout_pad);
    return test_summary("fold");
}
