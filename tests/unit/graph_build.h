/*
 * graph_build.h: building small graphs by hand in the unit tests (shared, not copied).
 * Every tensor and node goes through the IR's own calls (wgc_tensor_add, wgc_node_add,
 * wgc_tensor_set_const), so the graphs are what the reader would build.
 */
#ifndef WG_TESTS_GRAPH_BUILD_H
#define WG_TESTS_GRAPH_BUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ir/ir.h"

/* A constant tensor of dtype with dims[rank], its elements copied from vals. */
static inline int tg_const(wgc_graph *g, const char *name, int dtype, const int64_t *dims, int rank,
                           const void *vals)
{
    int t = wgc_tensor_add(g, name);
    wgc_shape s = {.rank = rank};
    for (int d = 0; d < rank; d++)
        s.dims[d] = dims[d];
    size_t bytes = (size_t)wgc_numel(&s) * wg_dtype_size(dtype);
    void *data = malloc(bytes ? bytes : 1);
    if (bytes)
        memcpy(data, vals, bytes);
    wgc_tensor_set_const(g, t, dtype, &s, data);
    return t;
}

/* A graph input of dtype with dims[rank]; a negative dim leaves its shape unknown. */
static inline int tg_input(wgc_graph *g, const char *name, int dtype, int rank, const int64_t *dims)
{
    int t = wgc_tensor_add(g, name);
    wgc_tensor *x = &g->tensors[t];
    x->dtype = dtype;
    x->is_input = true;
    x->shape.rank = rank;
    x->has_shape = true;
    for (int d = 0; d < rank; d++) {
        x->shape.dims[d] = dims[d];
        if (dims[d] < 0)
            x->has_shape = false;
    }
    g->inputs = realloc(g->inputs, sizeof(int) * (size_t)(g->n_inputs + 1));
    g->inputs[g->n_inputs++] = t;
    return t;
}

/* Makes tensor t a graph output. */
static inline void tg_output(wgc_graph *g, int t)
{
    g->tensors[t].is_output = true;
    g->outputs = realloc(g->outputs, sizeof(int) * (size_t)(g->n_outputs + 1));
    g->outputs[g->n_outputs++] = t;
}

/* A node of type on in[n_in] with one new output tensor out_name (its index returned);
 * the node is named "<type>_<index>". */
static inline int tg_node(wgc_graph *g, const char *type, const int *in, int n_in, const char *out_name)
{
    int out = wgc_tensor_add(g, out_name);
    char name[64];
    snprintf(name, sizeof name, "%s_%d", type, g->n_nodes);
    int n = wgc_node_add(g, name, type, "", in, n_in, &out, 1);
    g->tensors[out].producer = n;
    return out;
}

#endif
