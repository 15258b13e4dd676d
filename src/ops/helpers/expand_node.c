/* expand_node.c: a composite operator written as the ONNX nodes it is (expand_node.h). */
#include "expand_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../versions.h"

void wgc_expand_begin(wgc_expansion *x, wgc_graph *g, const wgc_node *n)
{
    x->g = g;
    x->node = (int)(n - g->nodes);
    x->first = g->n_nodes;
    x->st = WG_OK;
}

static wg_status nomem(wgc_expansion *x)
{
    if (!x->st)
        x->st = wgc_error(x->g, &x->g->nodes[x->node], WG_ERR_NOMEM,
                          "out of memory expanding the node");
    return x->st;
}

int wgc_expand_tensor(wgc_expansion *x, const char *suffix)
{
    if (x->st)
        return -1;
    char name[512];
    snprintf(name, sizeof name, "%s%s", x->g->nodes[x->node].name, suffix);
    for (int k = 2; wgc_tensor_find(x->g, name) >= 0; k++)
        snprintf(name, sizeof name, "%s%s_%d", x->g->nodes[x->node].name, suffix, k);
    int t = wgc_tensor_add(x->g, name);
    if (t < 0)
        nomem(x);
    return t;
}

int wgc_expand_add(wgc_expansion *x, const char *suffix, const char *op_type, const int *ins,
                   int n_in, const int *outs, int n_out)
{
    return wgc_expand_add_in(x, "", suffix, op_type, ins, n_in, outs, n_out);
}

int wgc_expand_add_in(wgc_expansion *x, const char *domain, const char *suffix, const char *op_type,
                      const int *ins, int n_in, const int *outs, int n_out)
{
    if (x->st)
        return -1;
    char name[512];
    snprintf(name, sizeof name, "%s%s", x->g->nodes[x->node].name, suffix);
    int k = wgc_node_add(x->g, name, op_type, domain, ins, n_in, outs, n_out);
    if (k < 0) {
        nomem(x);
        return -1;
    }
    wgc_node *m = &x->g->nodes[k];
    if (m->op == WGC_OP_COUNT) {
        x->st = wgc_error(x->g, &x->g->nodes[x->node], WG_ERR_INVALID,
                          "internal error: it expands into an unknown op '%s'", op_type);
        return -1;
    }
    m->opset = wgc_op_newest_implemented(m->op);
    m->region = x->g->nodes[x->node].region;
    for (int i = 0; i < n_out; i++)
        if (outs[i] >= 0)
            x->g->tensors[outs[i]].producer = k;
    return k;
}

int wgc_expand_const_i64(wgc_expansion *x, const char *suffix, const int64_t *v, int n)
{
    const int t = wgc_expand_tensor(x, suffix);
    int64_t *data = t < 0 ? NULL : malloc(sizeof *data * (size_t)(n > 0 ? n : 1));
    if (t < 0 || !data) {
        free(data);
        nomem(x);
        return -1;
    }
    memcpy(data, v, sizeof *data * (size_t)n);
    const wgc_shape s = {.rank = 1, .dims = {n}};
    wgc_tensor_set_const(x->g, t, WG_DT_INT64, &s, data);
    return t;
}

static wgc_attr *attr(wgc_expansion *x, int k, const char *name, int type)
{
    if (x->st || k < 0)
        return NULL;
    wgc_attr *a = wgc_attr_add(x->g, k, name, type);
    if (!a)
        nomem(x);
    return a;
}

void wgc_expand_attr_float(wgc_expansion *x, int k, const char *name, float v)
{
    wgc_attr *a = attr(x, k, name, WGC_ATTR_FLOAT);
    if (a)
        a->f = v;
}

void wgc_expand_attr_int(wgc_expansion *x, int k, const char *name, int64_t v)
{
    wgc_attr *a = attr(x, k, name, WGC_ATTR_INT);
    if (a)
        a->i = v;
}

void wgc_expand_attr_str(wgc_expansion *x, int k, const char *name, const char *v)
{
    wgc_attr *a = attr(x, k, name, WGC_ATTR_STRING);
    if (!a)
        return;
    size_t len = strlen(v);
    if (!(a->s = malloc(len + 1))) {
        nomem(x);
        return;
    }
    memcpy(a->s, v, len + 1);
    a->s_len = len;
}

void wgc_expand_attr_ints(wgc_expansion *x, int k, const char *name, const int64_t *v, int n)
{
    wgc_attr *a = attr(x, k, name, WGC_ATTR_INTS);
    if (!a)
        return;
    if (!(a->ints = malloc(sizeof *a->ints * (size_t)(n > 0 ? n : 1)))) {
        nomem(x);
        return;
    }
    memcpy(a->ints, v, sizeof *a->ints * (size_t)n);
    a->n = (size_t)n;
}

void wgc_expand_attrs_of_node(wgc_expansion *x, int k)
{
    for (int i = 0; !x->st && k >= 0 && i < x->g->nodes[x->node].n_attrs; i++)
        if (!wgc_attr_copy(x->g, k, &x->g->nodes[x->node].attrs[i]))
            nomem(x);
}

wg_status wgc_expand_finish(wgc_expansion *x)
{
    if (x->st)
        return x->st;
    wg_status st = wgc_graph_move_tail(x->g, x->node + 1, x->first);
    if (st)
        return st;
    /* the new nodes hold its inputs and outputs now: nothing reads or checks this one */
    wgc_node *n = &x->g->nodes[x->node];
    n->dead = true;
    n->n_inputs = n->n_outputs = 0;
    return WG_OK;
}

wg_status wgc_expanded_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    (void)e;
    return wgc_error(g, n, WG_ERR_INVALID, "internal error: the node was not expanded");
}
