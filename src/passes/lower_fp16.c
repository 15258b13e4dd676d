/*
 * lower_fp16.c: float16 models compute in float32.
 *
 * wasm has no half-precision arithmetic, so float16 weights are widened once at compile
 * time (exact), float16 graph inputs get a Cast to float32 at the start, float16 graph
 * outputs a Cast back at the end, and casts or constants inside the graph that produce
 * float16 produce float32 instead. Results are then at least as accurate as a float16
 * runtime's; tests compare them with float16 tolerances. The module still stores the
 * weights as float16 (g->fp16_weights: src/codegen/emitter.c) and widens them when it
 * first runs, except a MatMul's packed B, which its kernel reads as float16 and widens in
 * registers (GEMM_PACKED_B_F16, src/select/select_gemm.c): half the bytes per decode step,
 * and no float32 copy in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static float *widen(const uint16_t *h, int64_t n)
{
    float *f = malloc(sizeof(float) * (size_t)(n ? n : 1));
    if (f)
        for (int64_t i = 0; i < n; i++)
            f[i] = wg_f16_to_f32(h[i]);
    return f;
}

/* Moves the last node to position `at`, keeping the others in order, and fixes producers. */
static void move_last_node_to(wgc_graph *g, int at)
{
    wgc_node last = g->nodes[g->n_nodes - 1];
    memmove(&g->nodes[at + 1], &g->nodes[at], sizeof(wgc_node) * (size_t)(g->n_nodes - 1 - at));
    g->nodes[at] = last;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_outputs; k++)
            if (g->nodes[i].outputs[k] >= 0)
                g->tensors[g->nodes[i].outputs[k]].producer = i;
}

static wg_status add_cast(wgc_graph *g, int from, int to, int dtype, int at)
{
    char name[600];
    snprintf(name, sizeof name, "%s/cast_%s", g->tensors[to].name, wg_dtype_name(dtype));
    int n = wgc_node_add(g, name, "Cast", "", &from, 1, &to, 1);
    wgc_attr *a = n < 0 ? NULL : wgc_attr_add(g, n, "to", WGC_ATTR_INT);
    if (!a)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory lowering float16");
    a->i = dtype;
    if (at >= 0)
        move_last_node_to(g, at);
    else
        g->tensors[to].producer = n;
    return WG_OK;
}

static wg_status widen_value(wgc_graph *g, wgc_value *v)
{
    if (!v || v->dtype != WG_DT_FLOAT16)
        return WG_OK;
    float *f = widen(v->data, wgc_numel(&v->shape));
    if (!f)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory lowering float16");
    free(v->data);
    v->data = f;
    v->dtype = WG_DT_FLOAT;
    g->fp16_weights = true;
    return WG_OK;
}

wg_status wgc_pass_lower_fp16(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    char name[600];
    int n_tensors = g->n_tensors;
    for (int t = 0; t < n_tensors; t++) {
        wgc_tensor *x = &g->tensors[t];
        if (x->data && x->dtype == WG_DT_FLOAT16) {
            float *f = widen(x->data, wgc_numel(&x->shape));
            if (!f)
                return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory widening '%s'", x->name);
            wgc_shape s = x->shape;
            wgc_tensor_set_const(g, t, WG_DT_FLOAT, &s, f);
            g->fp16_weights = true;
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        for (int a = 0; a < n->n_attrs; a++) {
            wgc_attr *at = &n->attrs[a];
            if (n->op == WGC_OP_CAST && !strcmp(at->name, "to") && at->i == WG_DT_FLOAT16)
                at->i = WG_DT_FLOAT;
            wg_status st = widen_value(g, at->t);
            if (st)
                return st;
        }
    }
    for (int k = 0; k < g->n_inputs; k++) {
        int x = g->inputs[k];
        if (g->tensors[x].dtype != WG_DT_FLOAT16)
            continue;
        snprintf(name, sizeof name, "%s/float32", g->tensors[x].name);
        int w = wgc_tensor_add(g, name);
        if (w < 0)
            return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory lowering float16");
        wgc_replace_uses(g, x, w);
        wg_status st = add_cast(g, x, w, WG_DT_FLOAT, 0);
        if (st)
            return st;
    }
    for (int k = 0; k < g->n_outputs; k++) {
        int y = g->outputs[k];
        if (g->tensors[y].declared_dtype != WG_DT_FLOAT16 || g->tensors[y].producer < 0)
            continue;
        snprintf(name, sizeof name, "%s/float32", g->tensors[y].name);
        int w = wgc_tensor_add(g, name);
        if (w < 0)
            return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory lowering float16");
        wgc_node *p = &g->nodes[g->tensors[y].producer];
        for (int j = 0; j < p->n_outputs; j++)
            if (p->outputs[j] == y)
                p->outputs[j] = w;
        g->tensors[w].producer = g->tensors[y].producer;
        wgc_replace_uses(g, y, w);
        g->tensors[y].dtype = WG_DT_UNDEFINED; /* set again by inferring the Cast */
        wg_status st = add_cast(g, w, y, WG_DT_FLOAT16, -1);
        if (st)
            return st;
    }
    return WG_OK;
}
