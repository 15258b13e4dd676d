/*
 * test_onnx_reader.c: the ONNX model reader (src/onnx/). Builds small models in memory
 * with the protobuf writer, writes them to a temp folder and loads them: initializers in
 * every encoding, attributes of every kind, sorting, graph errors, dynamic dims, damaged
 * files, external data, fp16. Then loads the real models in /work/shared when present.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "common/pb.h"
#include "onnx/onnx_reader.h"

static char tmpdir[256];

/* ---- model building helpers --------------------------------------------------------- */

/* Appends sub as a nested message (field number) and frees sub. */
static void put_msg(wg_pbw *w, uint32_t field, wg_pbw *sub)
{
    wg_pbw_bytes_field(w, field, sub->buf, sub->len);
    wg_pbw_free(sub);
}

static void put_str(wg_pbw *w, uint32_t field, const char *s)
{
    wg_pbw_bytes_field(w, field, s, strlen(s));
}

/* Packed repeated varints. */
static void put_packed_i64(wg_pbw *w, uint32_t field, const int64_t *v, int n)
{
    wg_pbw p = {0};
    for (int i = 0; i < n; i++) {
        uint8_t tmp[10];
        int k = 0;
        uint64_t x = (uint64_t)v[i];
        do {
            tmp[k++] = (uint8_t)((x & 0x7f) | (x >> 7 ? 0x80 : 0));
            x >>= 7;
        } while (x);
        wg_pbw_raw(&p, tmp, (size_t)k);
    }
    put_msg(w, field, &p);
}

static void put_f32_field(wg_pbw *w, uint32_t field, float f)
{
    uint8_t key = (uint8_t)(field << 3 | WG_PB_I32);
    wg_pbw_raw(w, &key, 1);
    wg_pbw_raw(w, &f, 4);
}

/* TensorProto with dims, dtype, name and raw_data. */
static void tensor_raw(wg_pbw *t, const char *name, int dtype, const int64_t *dims, int rank,
                       const void *data, size_t bytes)
{
    for (int i = 0; i < rank; i++)
        wg_pbw_varint_field(t, 1, (uint64_t)dims[i]);
    wg_pbw_varint_field(t, 2, (uint64_t)dtype);
    put_str(t, 8, name);
    wg_pbw_bytes_field(t, 9, data, bytes);
}

/* ValueInfoProto of a tensor; a dim < 0 is written as dim_param "N". */
static void value_info(wg_pbw *g, uint32_t field, const char *name, int dtype, const int64_t *dims,
                       int rank)
{
    wg_pbw vi = {0}, type = {0}, tt = {0}, shape = {0};
    for (int i = 0; i < rank; i++) {
        wg_pbw dim = {0};
        if (dims[i] >= 0)
            wg_pbw_varint_field(&dim, 1, (uint64_t)dims[i]);
        else
            put_str(&dim, 2, "N");
        put_msg(&shape, 1, &dim);
    }
    wg_pbw_varint_field(&tt, 1, (uint64_t)dtype);
    if (rank >= 0)
        put_msg(&tt, 2, &shape);
    else
        wg_pbw_free(&shape);
    put_msg(&type, 1, &tt);
    put_str(&vi, 1, name);
    put_msg(&vi, 2, &type);
    put_msg(g, field, &vi);
}

/* NodeProto; ins/outs are NULL-terminated lists ("" = omitted). attrs may be NULL. */
static void node(wg_pbw *g, const char *op, const char *name, const char **ins, const char **outs,
                 wg_pbw *attrs)
{
    wg_pbw n = {0};
    for (int i = 0; ins && ins[i]; i++)
        put_str(&n, 1, ins[i]);
    for (int i = 0; outs && outs[i]; i++)
        put_str(&n, 2, outs[i]);
    if (name)
        put_str(&n, 3, name);
    put_str(&n, 4, op);
    if (attrs) {
        wg_pbw_raw(&n, attrs->buf, attrs->len);
        wg_pbw_free(attrs);
    }
    put_msg(g, 1, &n);
}

#define L(...) ((const char *[]){__VA_ARGS__, NULL})

/* ModelProto around graph g (freed), default opset `opset`. */
static void model(wg_pbw *m, wg_pbw *g, int opset)
{
    wg_pbw os = {0};
    wg_pbw_varint_field(m, 1, 8);
    put_str(m, 2, "wasmgraph-test");
    put_str(&os, 1, "");
    wg_pbw_varint_field(&os, 2, (uint64_t)opset);
    put_msg(m, 8, &os);
    put_msg(m, 7, g);
}

static const char *write_file(const char *name, const void *data, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    if (len)
        fwrite(data, 1, len, f);
    fclose(f);
    return path;
}

/* Writes m to <tmp>/name, loads it, frees m. */
static wg_status load_model(wg_pbw *m, const char *name, wgc_graph **g, char *err, size_t errlen)
{
    const char *path = write_file(name, m->buf, m->len);
    wg_pbw_free(m);
    if (!path) {
        snprintf(err, errlen, "cannot write test model");
        return WG_ERR_IO;
    }
    return wgc_onnx_load(path, g, err, errlen);
}

/* A simple valid graph: Y = Relu(X + W) with W an initializer. */
static void simple_graph(wg_pbw *g)
{
    static const float w[4] = {1, 2, 3, 4};
    static const int64_t d[2] = {2, 2};
    wg_pbw t = {0};
    put_str(g, 2, "simple");
    tensor_raw(&t, "W", WG_DT_FLOAT, d, 2, w, sizeof w);
    put_msg(g, 5, &t);
    value_info(g, 11, "X", WG_DT_FLOAT, d, 2);
    node(g, "Add", "add", L("X", "W"), L("S"), NULL);
    node(g, "Relu", NULL, L("S"), L("Y"), NULL);
    value_info(g, 12, "Y", WG_DT_FLOAT, d, 2);
}

static int node_index(const wgc_graph *g, const char *name)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].name, name))
            return i;
    return -1;
}

/* ---- tests ----------------------------------------------------------------------------- */

TEST(loads_simple_model_and_names_anonymous_nodes)
{
    wg_pbw g = {0}, m = {0};
    simple_graph(&g);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "simple.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!gr)
        return;
    CHECK(gr->n_nodes == 2, "nodes %d", gr->n_nodes);
    CHECK(gr->opset == 13 && gr->ir_version == 8, "opset %d ir %lld", gr->opset,
          (long long)gr->ir_version);
    CHECK(gr->name && !strcmp(gr->name, "simple"), "name %s", gr->name);
    CHECK(gr->producer && !strcmp(gr->producer, "wasmgraph-test"), "producer");
    CHECK(!strcmp(gr->nodes[1].name, "Relu_1"), "anonymous node named %s", gr->nodes[1].name);
    CHECK(gr->nodes[0].op == WGC_OP_ADD && gr->nodes[1].op == WGC_OP_RELU, "op lookup");
    CHECK(gr->nodes[0].opset == 13, "node opset %d", gr->nodes[0].opset);
    CHECK(gr->n_inputs == 1 && gr->n_outputs == 1, "io %d %d", gr->n_inputs, gr->n_outputs);
    const wgc_tensor *x = &gr->tensors[gr->inputs[0]];
    CHECK(!strcmp(x->name, "X") && x->is_input && x->has_shape && x->dtype == WG_DT_FLOAT &&
              x->shape.rank == 2 && x->shape.dims[1] == 2,
          "input X");
    const wgc_tensor *y = &gr->tensors[gr->outputs[0]];
    CHECK(y->is_output && y->producer == 1, "output Y producer %d", y->producer);
    int w = wgc_tensor_find(gr, "W");
    CHECK(w >= 0 && gr->tensors[w].data && !gr->tensors[w].is_input &&
              ((float *)gr->tensors[w].data)[3] == 4.0f,
          "initializer W");
    CHECK(gr->map != NULL && gr->map_len > 0, "mapping kept");
    wgc_graph_free(gr);
}

TEST(initializers_in_raw_float_data_int64_data_and_unpacked)
{
    wg_pbw g = {0}, m = {0}, t = {0};
    const int64_t d3[1] = {3};
    /* float_data packed */
    wg_pbw_varint_field(&t, 1, 3);
    wg_pbw_varint_field(&t, 2, WG_DT_FLOAT);
    put_str(&t, 8, "F");
    float fv[3] = {1.5f, -2.0f, 3.25f};
    wg_pbw_bytes_field(&t, 4, fv, sizeof fv);
    put_msg(&g, 5, &t);
    /* float_data unpacked */
    wg_pbw_varint_field(&t, 1, 2);
    wg_pbw_varint_field(&t, 2, WG_DT_FLOAT);
    put_str(&t, 8, "FU");
    put_f32_field(&t, 4, 7.0f);
    put_f32_field(&t, 4, -8.0f);
    put_msg(&g, 5, &t);
    /* int64_data packed, with a negative value */
    int64_t iv[3] = {-1, 0, 1LL << 40};
    put_packed_i64(&t, 1, d3, 1);
    wg_pbw_varint_field(&t, 2, WG_DT_INT64);
    put_str(&t, 8, "I");
    put_packed_i64(&t, 7, iv, 3);
    put_msg(&g, 5, &t);
    /* int32_data carrying int8 values */
    int64_t i8[3] = {-128, 5, 127};
    wg_pbw_varint_field(&t, 1, 3);
    wg_pbw_varint_field(&t, 2, WG_DT_INT8);
    put_str(&t, 8, "B");
    put_packed_i64(&t, 5, i8, 3);
    put_msg(&g, 5, &t);
    /* raw int32 scalar (rank 0) */
    int32_t sc = 42;
    tensor_raw(&t, "S", WG_DT_INT32, NULL, 0, &sc, 4);
    put_msg(&g, 5, &t);
    /* empty tensor */
    const int64_t d0[2] = {0, 4};
    tensor_raw(&t, "E", WG_DT_FLOAT, d0, 2, NULL, 0);
    put_msg(&g, 5, &t);
    node(&g, "Concat", "cat", L("F", "FU"), L("Y"), NULL);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d3, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "inits.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!gr)
        return;
    const wgc_tensor *f = &gr->tensors[wgc_tensor_find(gr, "F")];
    CHECK(f->dtype == WG_DT_FLOAT && f->shape.rank == 1 && f->shape.dims[0] == 3 &&
              ((float *)f->data)[2] == 3.25f && ((uintptr_t)f->data & 15) == 0,
          "F");
    const wgc_tensor *fu = &gr->tensors[wgc_tensor_find(gr, "FU")];
    CHECK(((float *)fu->data)[0] == 7.0f && ((float *)fu->data)[1] == -8.0f, "FU");
    const wgc_tensor *i = &gr->tensors[wgc_tensor_find(gr, "I")];
    CHECK(i->dtype == WG_DT_INT64 && ((int64_t *)i->data)[0] == -1 &&
              ((int64_t *)i->data)[2] == (1LL << 40),
          "I");
    const wgc_tensor *b = &gr->tensors[wgc_tensor_find(gr, "B")];
    CHECK(b->dtype == WG_DT_INT8 && ((int8_t *)b->data)[0] == -128 && ((int8_t *)b->data)[2] == 127,
          "B");
    const wgc_tensor *s = &gr->tensors[wgc_tensor_find(gr, "S")];
    CHECK(s->shape.rank == 0 && *(int32_t *)s->data == 42, "S");
    const wgc_tensor *e = &gr->tensors[wgc_tensor_find(gr, "E")];
    CHECK(e->data != NULL && e->shape.dims[0] == 0 && e->has_shape, "empty initializer constant");
    wgc_graph_free(gr);
}

TEST(raw_data_is_borrowed_when_aligned_and_copied_otherwise)
{
    /* Pad the model with a doc_string so the raw data lands on a 16-byte boundary, then
     * shift it by one byte: one load must borrow, the other must copy; values equal. */
    int borrowed = 0, copied = 0;
    for (int pad = 0; pad < 32; pad++) {
        wg_pbw g = {0}, m = {0}, t = {0};
        float w[8];
        for (int k = 0; k < 8; k++)
            w[k] = (float)k * 0.5f;
        const int64_t d[1] = {8};
        char doc[64];
        memset(doc, 'x', sizeof doc);
        wg_pbw_bytes_field(&m, 6, doc, (size_t)pad); /* ModelProto.doc_string */
        tensor_raw(&t, "W", WG_DT_FLOAT, d, 1, w, sizeof w);
        put_msg(&g, 5, &t);
        node(&g, "Relu", "r", L("W"), L("Y"), NULL);
        value_info(&g, 12, "Y", WG_DT_FLOAT, d, 1);
        model(&m, &g, 13);
        wgc_graph *gr = NULL;
        char err[512];
        wg_status st = load_model(&m, "align.onnx", &gr, err, sizeof err);
        CHECK(st == WG_OK, "pad %d: %s", pad, err);
        if (!gr)
            continue;
        const wgc_tensor *x = &gr->tensors[wgc_tensor_find(gr, "W")];
        CHECK(((uintptr_t)x->data & 15) == 0, "pad %d: data not aligned", pad);
        CHECK(memcmp(x->data, w, sizeof w) == 0, "pad %d: values differ", pad);
        if (x->owns_data)
            copied++;
        else {
            borrowed++;
            CHECK((char *)x->data >= (char *)gr->map &&
                      (char *)x->data < (char *)gr->map + gr->map_len,
                  "borrowed data outside the mapping");
        }
        wgc_graph_free(gr);
    }
    CHECK(borrowed > 0 && copied > 0, "borrowed %d copied %d", borrowed, copied);
}

TEST(attributes_of_every_kind)
{
    wg_pbw g = {0}, m = {0}, attrs = {0}, a = {0}, t = {0};
    /* f */
    put_str(&a, 1, "alpha");
    put_f32_field(&a, 2, 0.25f);
    wg_pbw_varint_field(&a, 20, WGC_ATTR_FLOAT);
    put_msg(&attrs, 5, &a);
    /* i (negative) */
    put_str(&a, 1, "axis");
    wg_pbw_varint_field(&a, 3, (uint64_t)(int64_t)-2);
    wg_pbw_varint_field(&a, 20, WGC_ATTR_INT);
    put_msg(&attrs, 5, &a);
    /* s */
    put_str(&a, 1, "mode");
    put_str(&a, 4, "nearest");
    wg_pbw_varint_field(&a, 20, WGC_ATTR_STRING);
    put_msg(&attrs, 5, &a);
    /* t */
    float tv[2] = {9, 10};
    const int64_t d2[1] = {2};
    tensor_raw(&t, "const_t", WG_DT_FLOAT, d2, 1, tv, sizeof tv);
    put_str(&a, 1, "value");
    put_msg(&a, 5, &t);
    wg_pbw_varint_field(&a, 20, WGC_ATTR_TENSOR);
    put_msg(&attrs, 5, &a);
    /* floats, unpacked */
    put_str(&a, 1, "scales");
    put_f32_field(&a, 7, 1.0f);
    put_f32_field(&a, 7, 2.0f);
    wg_pbw_varint_field(&a, 20, WGC_ATTR_FLOATS);
    put_msg(&attrs, 5, &a);
    /* ints, packed */
    int64_t iv[4] = {1, 1, -1, 300};
    put_str(&a, 1, "pads");
    put_packed_i64(&a, 8, iv, 4);
    wg_pbw_varint_field(&a, 20, WGC_ATTR_INTS);
    put_msg(&attrs, 5, &a);
    /* ints, unpacked, no type field (inferred) */
    put_str(&a, 1, "strides");
    wg_pbw_varint_field(&a, 8, 2);
    wg_pbw_varint_field(&a, 8, 3);
    put_msg(&attrs, 5, &a);
    /* i with no type field */
    put_str(&a, 1, "group");
    wg_pbw_varint_field(&a, 3, 4);
    put_msg(&attrs, 5, &a);
    /* strings */
    put_str(&a, 1, "names");
    put_str(&a, 9, "first");
    put_str(&a, 9, "second");
    wg_pbw_varint_field(&a, 20, WGC_ATTR_STRINGS);
    put_msg(&attrs, 5, &a);
    /* tensors */
    put_str(&a, 1, "tlist");
    tensor_raw(&t, "t0", WG_DT_FLOAT, d2, 1, tv, sizeof tv);
    put_msg(&a, 10, &t);
    tensor_raw(&t, "t1", WG_DT_FLOAT, d2, 1, tv, sizeof tv);
    put_msg(&a, 10, &t);
    wg_pbw_varint_field(&a, 20, WGC_ATTR_TENSORS);
    put_msg(&attrs, 5, &a);

    node(&g, "Constant", "c", NULL, L("Y"), &attrs);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d2, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "attrs.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!gr)
        return;
    const wgc_node *n = &gr->nodes[0];
    CHECK(n->n_attrs == 10, "n_attrs %d", n->n_attrs);
    CHECK(wgc_attr_float(n, "alpha", 0) == 0.25f, "alpha");
    CHECK(wgc_attr_int(n, "axis", 0) == -2, "axis");
    CHECK(!strcmp(wgc_attr_str(n, "mode", ""), "nearest"), "mode");
    const wgc_attr *v = wgc_attr_find(n, "value");
    CHECK(v && v->type == WGC_ATTR_TENSOR && v->t && v->t->dtype == WG_DT_FLOAT &&
              v->t->shape.rank == 1 && ((float *)v->t->data)[1] == 10.0f,
          "value tensor");
    size_t cnt;
    const float *sc = wgc_attr_floats(n, "scales", &cnt);
    CHECK(sc && cnt == 2 && sc[1] == 2.0f, "scales");
    const int64_t *pads = wgc_attr_ints(n, "pads", &cnt);
    CHECK(pads && cnt == 4 && pads[2] == -1 && pads[3] == 300, "pads");
    const int64_t *strides = wgc_attr_ints(n, "strides", &cnt);
    CHECK(strides && cnt == 2 && strides[1] == 3, "strides (type inferred)");
    CHECK(wgc_attr_int(n, "group", 0) == 4, "group (type inferred)");
    const wgc_attr *ss = wgc_attr_find(n, "names");
    CHECK(ss && ss->type == WGC_ATTR_STRINGS && ss->n == 2 && !strcmp(ss->s, "first"), "strings");
    CHECK(ss && ss->strings && !strcmp(ss->strings[0], "first") && !strcmp(ss->strings[1], "second"),
          "every string of a STRINGS attribute is kept");
    const wgc_attr *tl = wgc_attr_find(n, "tlist");
    CHECK(tl && tl->type == WGC_ATTR_TENSORS && tl->n == 2 && tl->t && tl->t->dtype == WG_DT_FLOAT,
          "tensors");
    wgc_graph_free(gr);
}

/* A graph attribute named attr holding a body with one Relu of `reads` into `out`. */
static void body_attr(wg_pbw *attrs, const char *attr, const char *reads, const char *out)
{
    wg_pbw a = {0}, sub = {0};
    const int64_t d[1] = {1};
    put_str(&sub, 2, attr);
    node(&sub, "Relu", "relu", L(reads), L(out), NULL);
    value_info(&sub, 12, out, WG_DT_FLOAT, d, 1);
    put_str(&a, 1, attr);
    put_msg(&a, 6, &sub);
    wg_pbw_varint_field(&a, 20, WGC_ATTR_GRAPH);
    put_msg(attrs, 5, &a);
}

TEST(graph_attribute_elsewhere_is_unsupported_and_named)
{
    wg_pbw g = {0}, m = {0}, attrs = {0};
    body_attr(&attrs, "body", "X", "T");
    const int64_t d[1] = {1};
    value_info(&g, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g, "Relu", "my_relu", L("X"), L("Y"), &attrs);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "relu_body.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_UNSUPPORTED, "status %d", st);
    CHECK(strstr(err, "my_relu") && strstr(err, "'body'"), "message: %s", err);
    CHECK(gr == NULL, "graph returned on failure");
}

/* Both branches name their value T (scoped apart) and read X, a value of the main graph
 * whose producer comes after the If in the file: the If's bodies are laid out before it,
 * markers first, and the If reads both branches' outputs after its condition. */
TEST(if_bodies_are_scoped_sorted_and_linked)
{
    wg_pbw g = {0}, m = {0}, attrs = {0};
    body_attr(&attrs, "else_branch", "X", "T");
    body_attr(&attrs, "then_branch", "X", "T");
    const int64_t d[1] = {1};
    value_info(&g, 11, "cond", WG_DT_BOOL, d, 1);
    value_info(&g, 11, "A", WG_DT_FLOAT, d, 1);
    node(&g, "If", "my_if", L("cond"), L("Y"), &attrs);
    node(&g, "Neg", "neg", L("A"), L("X"), NULL);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "if.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "load: %s", err);
    if (st)
        return;
    const wgc_op want[] = {WGC_OP_NEG, WGC_OP_BODY_BEGIN, WGC_OP_RELU, WGC_OP_BODY_ELSE, WGC_OP_RELU, WGC_OP_IF};
    CHECK(gr->n_nodes == 6, "%d nodes", gr->n_nodes);
    for (int i = 0; i < 6 && i < gr->n_nodes; i++)
        CHECK(gr->nodes[i].op == want[i], "node %d is %s", i, gr->nodes[i].op_type);
    if (gr->n_nodes == 6) {
        const wgc_node *iff = &gr->nodes[5];
        CHECK(iff->n_inputs == 3 && iff->inputs[1] == gr->nodes[2].outputs[0] &&
                  iff->inputs[2] == gr->nodes[4].outputs[0] && iff->inputs[1] != iff->inputs[2],
              "If inputs");
        CHECK(!strcmp(gr->tensors[iff->inputs[1]].name, "my_if/then_branch/T"), "then T is '%s'",
              gr->tensors[iff->inputs[1]].name);
        CHECK(gr->nodes[2].inputs[0] == gr->nodes[0].outputs[0], "the branch reads the outer X");
        CHECK(gr->nodes[1].n_inputs == 1 && gr->nodes[1].inputs[0] == iff->inputs[0], "marker reads cond");
        CHECK(wgc_body_end(gr, 1) == 5 && wgc_body_end(gr, 3) == 5 && wgc_body_begin(gr, 5) == 1,
              "markers pair with the If");
        CHECK(gr->nodes[2].region && gr->nodes[2].region != gr->nodes[4].region && !gr->nodes[5].region,
              "regions");
    }
    wgc_graph_free(gr);
}

TEST(if_without_else_is_invalid_and_named)
{
    wg_pbw g = {0}, m = {0}, attrs = {0};
    body_attr(&attrs, "then_branch", "X", "T");
    const int64_t d[1] = {1};
    value_info(&g, 11, "cond", WG_DT_BOOL, d, 1);
    value_info(&g, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g, "If", "my_if", L("cond"), L("Y"), &attrs);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "if_no_else.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID, "status %d", st);
    CHECK(strstr(err, "my_if") && strstr(err, "else_branch"), "message: %s", err);
    CHECK(gr == NULL, "graph returned on failure");
}

TEST(nodes_out_of_order_are_sorted_stably)
{
    wg_pbw g = {0}, m = {0};
    const int64_t d[1] = {4};
    value_info(&g, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g, "Relu", "c", L("b_out"), L("Y"), NULL);       /* needs b */
    node(&g, "Relu", "b", L("a_out"), L("b_out"), NULL);   /* needs a */
    node(&g, "Relu", "z", L("X"), L("Z"), NULL);           /* independent */
    node(&g, "Relu", "a", L("X"), L("a_out"), NULL);
    node(&g, "Add", "d", L("Y", "Z"), L("D"), NULL);
    value_info(&g, 12, "D", WG_DT_FLOAT, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "sort.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!gr)
        return;
    /* smallest-file-index-first Kahn order: z(2), a(3), b(1), c(0), d(4) */
    const char *want[5] = {"z", "a", "b", "c", "d"};
    for (int i = 0; i < 5; i++)
        CHECK(!strcmp(gr->nodes[i].name, want[i]), "position %d: %s, want %s", i,
              gr->nodes[i].name, want[i]);
    for (int i = 0; i < gr->n_nodes; i++)
        for (int k = 0; k < gr->nodes[i].n_outputs; k++)
            CHECK(gr->tensors[gr->nodes[i].outputs[k]].producer == i, "producer of node %d", i);
    CHECK(gr->tensors[wgc_tensor_find(gr, "X")].producer == -1, "input producer");
    wgc_graph_free(gr);

    /* an already sorted graph keeps its order */
    wg_pbw g2 = {0}, m2 = {0};
    value_info(&g2, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g2, "Relu", "a", L("X"), L("A"), NULL);
    node(&g2, "Relu", "q", L("X"), L("Q"), NULL);
    node(&g2, "Relu", "b", L("A"), L("B"), NULL);
    node(&g2, "Add", "c", L("B", "Q"), L("C"), NULL);
    value_info(&g2, 12, "C", WG_DT_FLOAT, d, 1);
    model(&m2, &g2, 13);
    st = load_model(&m2, "sorted.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!gr)
        return;
    CHECK(node_index(gr, "a") == 0 && node_index(gr, "q") == 1 && node_index(gr, "b") == 2 &&
              node_index(gr, "c") == 3,
          "order changed");
    wgc_graph_free(gr);
}

TEST(cycle_is_detected_and_named)
{
    wg_pbw g = {0}, m = {0};
    const int64_t d[1] = {4};
    value_info(&g, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g, "Add", "p", L("X", "r_out"), L("p_out"), NULL);
    node(&g, "Relu", "q", L("p_out"), L("q_out"), NULL);
    node(&g, "Relu", "r", L("q_out"), L("r_out"), NULL);
    node(&g, "Relu", "s", L("q_out"), L("Y"), NULL);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "cycle.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID, "status %d", st);
    CHECK(strstr(err, "cycle") && strstr(err, "'p'") && strstr(err, "'q'") && strstr(err, "'r'"),
          "message: %s", err);
    CHECK(gr == NULL, "graph returned");

    /* a node reading its own output */
    wg_pbw g2 = {0}, m2 = {0};
    node(&g2, "Relu", "self", L("Y"), L("Y"), NULL);
    value_info(&g2, 12, "Y", WG_DT_FLOAT, d, 1);
    model(&m2, &g2, 13);
    st = load_model(&m2, "self.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID && strstr(err, "cycle") && strstr(err, "self"), "self loop: %d %s",
          st, err);
}

TEST(unknown_input_is_detected)
{
    wg_pbw g = {0}, m = {0};
    const int64_t d[1] = {4};
    value_info(&g, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g, "Conv", "conv1", L("X", "foo"), L("Y"), NULL);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "unknown.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID, "status %d", st);
    CHECK(strstr(err, "node 'conv1' (Conv) reads 'foo', which no node produces"), "message: %s",
          err);

    /* a graph output nobody makes */
    wg_pbw g2 = {0}, m2 = {0};
    value_info(&g2, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g2, "Relu", "r", L("X"), L("Y"), NULL);
    value_info(&g2, 12, "Nope", WG_DT_FLOAT, d, 1);
    model(&m2, &g2, 13);
    st = load_model(&m2, "noout.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID && strstr(err, "Nope"), "missing output: %d %s", st, err);

    /* omitted optional input "" is fine and reads as -1 */
    wg_pbw g3 = {0}, m3 = {0};
    value_info(&g3, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g3, "Clip", "clip", L("X", "", ""), L("Y", ""), NULL);
    value_info(&g3, 12, "Y", WG_DT_FLOAT, d, 1);
    model(&m3, &g3, 13);
    st = load_model(&m3, "optional.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "optional inputs: %d %s", st, err);
    if (gr) {
        CHECK(gr->nodes[0].n_inputs == 3 && gr->nodes[0].inputs[1] == -1 &&
                  gr->nodes[0].inputs[2] == -1 && gr->nodes[0].outputs[1] == -1,
              "omitted slots");
        wgc_graph_free(gr);
    }
}

TEST(duplicate_producer_is_detected)
{
    wg_pbw g = {0}, m = {0};
    const int64_t d[1] = {4};
    value_info(&g, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g, "Relu", "first", L("X"), L("T"), NULL);
    node(&g, "Sigmoid", "second", L("X"), L("T"), NULL);
    value_info(&g, 12, "T", WG_DT_FLOAT, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "dup.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID, "status %d", st);
    CHECK(strstr(err, "'second'") && strstr(err, "'first'") && strstr(err, "'T'"), "message: %s",
          err);

    /* writing over a graph input */
    wg_pbw g2 = {0}, m2 = {0};
    value_info(&g2, 11, "X", WG_DT_FLOAT, d, 1);
    node(&g2, "Relu", "r", L("X"), L("X"), NULL);
    value_info(&g2, 12, "X", WG_DT_FLOAT, d, 1);
    model(&m2, &g2, 13);
    st = load_model(&m2, "dup2.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID && strstr(err, "graph input"), "input overwritten: %d %s", st, err);
}

TEST(dynamic_dims_are_minus_one)
{
    wg_pbw g = {0}, m = {0};
    const int64_t dyn[4] = {-1, 3, 224, 224}, fixed[2] = {1, 10};
    value_info(&g, 11, "data", WG_DT_FLOAT, dyn, 4);
    value_info(&g, 11, "fixed", WG_DT_INT64, fixed, 2);
    value_info(&g, 11, "noshape", WG_DT_FLOAT, NULL, -1);
    node(&g, "Relu", "r", L("data"), L("Y"), NULL);
    node(&g, "Relu", "r2", L("fixed"), L("Y2"), NULL);
    node(&g, "Relu", "r3", L("noshape"), L("Y3"), NULL);
    value_info(&g, 12, "Y", WG_DT_FLOAT, dyn, 4);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "dyn.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!gr)
        return;
    CHECK(gr->n_inputs == 3, "inputs %d", gr->n_inputs);
    const wgc_tensor *x = &gr->tensors[gr->inputs[0]];
    CHECK(x->shape.rank == 4 && x->shape.dims[0] == -1 && x->shape.dims[1] == 3 && !x->has_shape,
          "dynamic input: rank %d d0 %lld has_shape %d", x->shape.rank,
          (long long)x->shape.dims[0], x->has_shape);
    const wgc_tensor *f = &gr->tensors[gr->inputs[1]];
    CHECK(f->has_shape && f->dtype == WG_DT_INT64 && f->shape.dims[1] == 10, "fixed input");
    const wgc_tensor *ns = &gr->tensors[gr->inputs[2]];
    CHECK(!ns->has_shape && ns->dtype == WG_DT_FLOAT, "input without shape");
    wgc_graph_free(gr);
}

TEST(every_prefix_of_a_model_fails_cleanly_or_loads)
{
    wg_pbw g = {0}, m = {0}, attrs = {0}, a = {0};
    simple_graph(&g);
    int64_t iv[2] = {1, 2};
    put_str(&a, 1, "perm");
    put_packed_i64(&a, 8, iv, 2);
    put_msg(&attrs, 5, &a);
    node(&g, "Transpose", "tr", L("Y"), L("Z"), &attrs);
    model(&m, &g, 13);
    int ok = 0, format = 0, other = 0;
    for (size_t len = 1; len < m.len; len++) {
        const char *path = write_file("prefix.onnx", m.buf, len);
        wgc_graph *gr = NULL;
        char err[512] = "";
        wg_status st = wgc_onnx_load(path, &gr, err, sizeof err);
        if (st == WG_OK) {
            ok++;
            wgc_graph_free(gr);
        } else if (st == WG_ERR_FORMAT) {
            format++;
            CHECK(strstr(err, "prefix.onnx") && strstr(err, "byte"), "len %zu: %s", len, err);
            CHECK(gr == NULL, "graph on failure");
        } else {
            other++;
            CHECK(0, "len %zu: status %d: %s", len, st, err);
        }
    }
    wg_pbw_free(&m);
    CHECK(format > 0, "no prefix failed");
    printf("  prefixes: %d loaded, %d format errors, %d other\n", ok, format, other);
}

TEST(random_bytes_never_crash)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    int failed = 0;
    for (int round = 0; round < 300; round++) {
        size_t len = 1 + (size_t)(round * 7 % 400);
        uint8_t buf[400];
        for (size_t i = 0; i < len; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            buf[i] = (uint8_t)s;
        }
        /* half the rounds start with a plausible graph field key so the decoder goes deeper */
        if (round & 1 && len > 2) {
            buf[0] = 0x3a;
            buf[1] = (uint8_t)(len - 2 < 127 ? len - 2 : 127);
        }
        const char *path = write_file("random.onnx", buf, len);
        wgc_graph *gr = NULL;
        char err[512] = "";
        wg_status st = wgc_onnx_load(path, &gr, err, sizeof err);
        if (st == WG_OK)
            wgc_graph_free(gr);
        else {
            failed++;
            CHECK(err[0] && gr == NULL, "round %d: status %d without message", round, st);
        }
    }
    CHECK(failed > 250, "only %d of 300 random files failed", failed);
}

TEST(io_errors_name_the_path)
{
    wgc_graph *gr = NULL;
    char err[512];
    char p[512];
    snprintf(p, sizeof p, "%s/does_not_exist.onnx", tmpdir);
    wg_status st = wgc_onnx_load(p, &gr, err, sizeof err);
    CHECK(st == WG_ERR_IO && strstr(err, "does_not_exist.onnx"), "missing: %d %s", st, err);
    const char *e = write_file("empty.onnx", "", 0);
    st = wgc_onnx_load(e, &gr, err, sizeof err);
    CHECK(st == WG_ERR_IO && strstr(err, "empty.onnx"), "empty: %d %s", st, err);
    st = wgc_onnx_load(tmpdir, &gr, err, sizeof err);
    CHECK(st == WG_ERR_IO && strstr(err, "directory"), "directory: %d %s", st, err);
    /* valid protobuf without a graph */
    wg_pbw m = {0};
    wg_pbw_varint_field(&m, 1, 7);
    st = load_model(&m, "nograph.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "no graph"), "no graph: %d %s", st, err);
}

TEST(bad_tensors_are_refused_with_sizes)
{
    char err[512];
    wgc_graph *gr = NULL;
    const int64_t d[2] = {2, 3};
    float w[5] = {0};
    /* raw_data too short */
    wg_pbw g = {0}, m = {0}, t = {0};
    tensor_raw(&t, "short_w", WG_DT_FLOAT, d, 2, w, sizeof w);
    put_msg(&g, 5, &t);
    node(&g, "Relu", "r", L("short_w"), L("Y"), NULL);
    model(&m, &g, 13);
    wg_status st = load_model(&m, "short.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "short_w") && strstr(err, "expected 24 bytes") &&
              strstr(err, "got 20"),
          "short raw: %d %s", st, err);
    /* negative dim */
    const int64_t neg[1] = {-3};
    tensor_raw(&t, "neg", WG_DT_FLOAT, neg, 1, w, 0);
    put_msg(&g, 5, &t);
    model(&m, &g, 13);
    st = load_model(&m, "neg.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "neg") && strstr(err, "negative"), "neg: %d %s", st,
          err);
    /* overflowing element count */
    const int64_t huge[3] = {1LL << 40, 1LL << 40, 1LL << 40};
    tensor_raw(&t, "huge", WG_DT_FLOAT, huge, 3, w, 4);
    put_msg(&g, 5, &t);
    model(&m, &g, 13);
    st = load_model(&m, "huge.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "huge") && strstr(err, "overflow"), "huge: %d %s", st,
          err);
    /* string tensor */
    wg_pbw_varint_field(&t, 1, 1);
    wg_pbw_varint_field(&t, 2, WG_DT_STRING);
    put_str(&t, 8, "strs");
    put_str(&t, 6, "hello");
    put_msg(&g, 5, &t);
    model(&m, &g, 13);
    st = load_model(&m, "str.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_UNSUPPORTED && strstr(err, "strs"), "string: %d %s", st, err);
    /* wrong typed field count */
    wg_pbw_varint_field(&t, 1, 3);
    wg_pbw_varint_field(&t, 2, WG_DT_FLOAT);
    put_str(&t, 8, "few");
    wg_pbw_bytes_field(&t, 4, w, 8);
    put_msg(&g, 5, &t);
    model(&m, &g, 13);
    st = load_model(&m, "few.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "few") && strstr(err, "expected 12 bytes") &&
              strstr(err, "got 8"),
          "few: %d %s", st, err);
    /* sparse initializer */
    wg_pbw sp = {0};
    put_str(&sp, 1, "x");
    put_msg(&g, 15, &sp);
    model(&m, &g, 13);
    st = load_model(&m, "sparse.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_UNSUPPORTED && strstr(err, "sparse"), "sparse: %d %s", st, err);
    /* duplicate initializer */
    tensor_raw(&t, "W", WG_DT_FLOAT, d, 1, w, 8);
    put_msg(&g, 5, &t);
    tensor_raw(&t, "W", WG_DT_FLOAT, d, 1, w, 8);
    put_msg(&g, 5, &t);
    model(&m, &g, 13);
    st = load_model(&m, "dupinit.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID && strstr(err, "'W'"), "dup init: %d %s", st, err);
}

TEST(opsets_and_domains)
{
    wg_pbw g = {0}, m = {0}, os = {0}, n = {0};
    const int64_t d[1] = {4};
    value_info(&g, 11, "X", WG_DT_FLOAT, d, 1);
    /* a node in the "ai.onnx" spelling of the default domain and one in a custom domain */
    put_str(&n, 1, "X");
    put_str(&n, 2, "A");
    put_str(&n, 4, "Relu");
    put_str(&n, 7, "ai.onnx");
    put_msg(&g, 1, &n);
    put_str(&n, 1, "A");
    put_str(&n, 2, "Y");
    put_str(&n, 4, "Custom");
    put_str(&n, 7, "com.example");
    put_msg(&g, 1, &n);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d, 1);
    put_str(&os, 1, "com.example");
    wg_pbw_varint_field(&os, 2, 3);
    put_msg(&m, 8, &os);
    model(&m, &g, 11);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "domains.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (gr) {
        CHECK(!strcmp(gr->nodes[0].domain, "") && gr->nodes[0].opset == 11 &&
                  gr->nodes[0].op == WGC_OP_RELU,
              "ai.onnx node: domain '%s' opset %d", gr->nodes[0].domain, gr->nodes[0].opset);
        CHECK(!strcmp(gr->nodes[1].domain, "com.example") && gr->nodes[1].opset == 3 &&
                  gr->nodes[1].op == WGC_OP_COUNT,
              "custom node: domain '%s' opset %d", gr->nodes[1].domain, gr->nodes[1].opset);
        wgc_graph_free(gr);
    }
    wg_pbw g2 = {0}, m2 = {0};
    simple_graph(&g2);
    model(&m2, &g2, 99);
    st = load_model(&m2, "opset99.onnx", &gr, err, sizeof err);
    CHECK(st == WG_ERR_UNSUPPORTED && strstr(err, "99"), "opset 99: %d %s", st, err);
}

/* Model with one initializer W (6 floats) stored externally at (location, offset, length). */
static wg_status load_external(const char *location, const char *offset, const char *length,
                               wgc_graph **gr, char *err, size_t errlen)
{
    wg_pbw g = {0}, m = {0}, t = {0}, e = {0};
    const int64_t d[2] = {2, 3};
    wg_pbw_varint_field(&t, 1, 2);
    wg_pbw_varint_field(&t, 1, 3);
    wg_pbw_varint_field(&t, 2, WG_DT_FLOAT);
    put_str(&t, 8, "W");
    put_str(&e, 1, "location");
    put_str(&e, 2, location);
    put_msg(&t, 13, &e);
    if (offset) {
        put_str(&e, 1, "offset");
        put_str(&e, 2, offset);
        put_msg(&t, 13, &e);
    }
    if (length) {
        put_str(&e, 1, "length");
        put_str(&e, 2, length);
        put_msg(&t, 13, &e);
    }
    wg_pbw_varint_field(&t, 14, 1);
    put_msg(&g, 5, &t);
    node(&g, "Relu", "r", L("W"), L("Y"), NULL);
    value_info(&g, 12, "Y", WG_DT_FLOAT, d, 2);
    model(&m, &g, 13);
    return load_model(&m, "external.onnx", gr, err, errlen);
}

TEST(external_data_valid_and_refused)
{
    float blob[16];
    for (int i = 0; i < 16; i++)
        blob[i] = (float)i;
    write_file("weights.bin", blob, sizeof blob);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    mkdir(sub, 0755);
    write_file("sub/w.bin", blob, sizeof blob);
    wgc_graph *gr = NULL;
    char err[512];
    /* floats 4..9 */
    wg_status st = load_external("weights.bin", "16", "24", &gr, err, sizeof err);
    CHECK(st == WG_OK, "valid: %d %s", st, err);
    if (gr) {
        const wgc_tensor *w = &gr->tensors[wgc_tensor_find(gr, "W")];
        CHECK(w->owns_data && ((float *)w->data)[0] == 4.0f && ((float *)w->data)[5] == 9.0f,
              "external values");
        wgc_graph_free(gr);
    }
    /* in a subfolder, no length: the rest of the file (16 floats - 10 = 6) */
    st = load_external("sub/w.bin", "40", NULL, &gr, err, sizeof err);
    CHECK(st == WG_OK, "subfolder, no length: %d %s", st, err);
    if (gr) {
        CHECK(((float *)gr->tensors[wgc_tensor_find(gr, "W")].data)[0] == 10.0f, "value");
        wgc_graph_free(gr);
    }
    st = load_external("../weights.bin", "0", "24", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID && strstr(err, "'W'") && strstr(err, "../weights.bin"),
          "dotdot: %d %s", st, err);
    st = load_external("sub/../weights.bin", "0", "24", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID, "inner dotdot: %d %s", st, err);
    char abs[600];
    snprintf(abs, sizeof abs, "%s/weights.bin", tmpdir);
    st = load_external(abs, "0", "24", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID && strstr(err, "'W'"), "absolute: %d %s", st, err);
    st = load_external("weights.bin", "60", "24", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID && strstr(err, "'W'") && strstr(err, "weights.bin") &&
              strstr(err, "past the end"),
          "offset past end: %d %s", st, err);
    st = load_external("weights.bin", "100", NULL, &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID, "offset beyond file: %d %s", st, err);
    st = load_external("weights.bin", "0", "28", &gr, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "expected 24 bytes"), "wrong length: %d %s", st, err);
    st = load_external("missing.bin", "0", "24", &gr, err, sizeof err);
    CHECK(st == WG_ERR_IO && strstr(err, "missing.bin"), "missing file: %d %s", st, err);
    st = load_external("weights.bin", "1x", "24", &gr, err, sizeof err);
    CHECK(st == WG_ERR_INVALID, "bad offset: %d %s", st, err);
}

TEST(fp16_initializers_raw_and_int32_data)
{
    wg_pbw g = {0}, m = {0}, t = {0};
    uint16_t h[3] = {wg_f32_to_f16(1.0f), wg_f32_to_f16(-2.5f), wg_f32_to_f16(0.125f)};
    const int64_t d[1] = {3};
    tensor_raw(&t, "H", WG_DT_FLOAT16, d, 1, h, sizeof h);
    put_msg(&g, 5, &t);
    int64_t hv[3] = {h[0], h[1], h[2]};
    wg_pbw_varint_field(&t, 1, 3);
    wg_pbw_varint_field(&t, 2, WG_DT_FLOAT16);
    put_str(&t, 8, "H32");
    put_packed_i64(&t, 5, hv, 3);
    put_msg(&g, 5, &t);
    node(&g, "Add", "a", L("H", "H32"), L("Y"), NULL);
    value_info(&g, 12, "Y", WG_DT_FLOAT16, d, 1);
    model(&m, &g, 13);
    wgc_graph *gr = NULL;
    char err[512];
    wg_status st = load_model(&m, "fp16.onnx", &gr, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!gr)
        return;
    const wgc_tensor *a = &gr->tensors[wgc_tensor_find(gr, "H")];
    const wgc_tensor *b = &gr->tensors[wgc_tensor_find(gr, "H32")];
    CHECK(a->dtype == WG_DT_FLOAT16 && wg_f16_to_f32(((uint16_t *)a->data)[1]) == -2.5f,
          "raw fp16");
    CHECK(b->dtype == WG_DT_FLOAT16 && memcmp(b->data, h, sizeof h) == 0, "int32_data fp16");
    wgc_graph_free(gr);
}

TEST(read_value_decodes_a_standalone_tensor)
{
    wg_pbw t = {0};
    int64_t v[2] = {5, -6};
    const int64_t d[1] = {2};
    tensor_raw(&t, "shape", WG_DT_INT64, d, 1, v, sizeof v);
    wgc_value val;
    char *name = NULL, err[256];
    wg_status st = wgc_onnx_read_value(t.buf, t.len, &val, &name, err, sizeof err);
    CHECK(st == WG_OK, "status %d: %s", st, err);
    if (!st) {
        CHECK(!strcmp(name, "shape") && val.dtype == WG_DT_INT64 && ((int64_t *)val.data)[1] == -6,
              "value");
        free(val.data);
        free(name);
    }
    st = wgc_onnx_read_value(t.buf, t.len - 3, &val, NULL, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "byte"), "truncated: %d %s", st, err);
    wg_pbw_free(&t);
}

/* Loads every *.onnx in dir; prints node and initializer counts. */
static void load_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("  (skipped: %s is missing)\n", dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".onnx"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        wgc_graph *g = NULL;
        char err[1024];
        wg_status st = wgc_onnx_load(path, &g, err, sizeof err);
        CHECK(st == WG_OK, "%s: %d %s", path, st, err);
        if (!g)
            continue;
        int inits = 0, unknown = 0;
        for (int t = 0; t < g->n_tensors; t++)
            inits += g->tensors[t].data != NULL;
        for (int i = 0; i < g->n_nodes; i++)
            unknown += g->nodes[i].op == WGC_OP_COUNT;
        CHECK(g->n_nodes > 0 && g->n_inputs > 0 && g->n_outputs > 0, "%s: empty graph", path);
        printf("  %-40s opset %2d  %4d nodes  %4d initializers  %d inputs  %d outputs  %d ops "
               "not in ops.def\n",
               e->d_name, g->opset, g->n_nodes, inits, g->n_inputs, g->n_outputs, unknown);
        wgc_graph_free(g);
    }
    closedir(d);
}

TEST(real_models_load)
{
    load_folder("/work/shared/models/onnx-light");
    load_folder("/work/shared/data/squeezenet1.1-caffe2");
    load_folder("/work/shared/data/mnist");
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/wg_onnx_reader_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(loads_simple_model_and_names_anonymous_nodes);
    RUN(initializers_in_raw_float_data_int64_data_and_unpacked);
    RUN(raw_data_is_borrowed_when_aligned_and_copied_otherwise);
    RUN(attributes_of_every_kind);
    RUN(graph_attribute_elsewhere_is_unsupported_and_named);
    RUN(if_bodies_are_scoped_sorted_and_linked);
    RUN(if_without_else_is_invalid_and_named);
    RUN(nodes_out_of_order_are_sorted_stably);
    RUN(cycle_is_detected_and_named);
    RUN(unknown_input_is_detected);
    RUN(duplicate_producer_is_detected);
    RUN(dynamic_dims_are_minus_one);
    RUN(every_prefix_of_a_model_fails_cleanly_or_loads);
    RUN(random_bytes_never_crash);
    RUN(io_errors_name_the_path);
    RUN(bad_tensors_are_refused_with_sizes);
    RUN(opsets_and_domains);
    RUN(external_data_valid_and_refused);
    RUN(fp16_initializers_raw_and_int32_data);
    RUN(read_value_decodes_a_standalone_tensor);
    RUN(real_models_load);
    rm_tree(tmpdir);
    return test_summary("onnx_reader");
}
