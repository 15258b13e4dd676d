/* cache_pairs.c: the KV-cache pairs (cache_pairs.h). */
#include "cache_pairs.h"

#include <string.h>

#include "symdim.h"

static int output_index(const wgc_graph *g, int t)
{
    for (int o = 0; o < g->n_outputs; o++)
        if (g->outputs[o] == t)
            return o;
    return -1;
}

/* The Concat of the main graph that is the only data reader of tensor t (a Shape reads
 * only its dims), taking it as input 0 of 2 along a symbolic axis; -1 when there is none
 * or another node reads t's elements (a node of a body included). */
static int only_concat(const wgc_graph *g, int t)
{
    int concat = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        for (int j = 0; !n->dead && j < n->n_inputs; j++) {
            if (n->inputs[j] != t || n->op == WGC_OP_SHAPE)
                continue;
            if (n->op != WGC_OP_CONCAT || j != 0 || concat >= 0 || n->region != 0 || n->n_inputs != 2 ||
                n->n_outputs != 1 || n->inputs[1] < 0 || wgc_attr_int(n, "new_axis", 0))
                return -1;
            concat = i;
        }
    }
    return concat;
}

/* Pair k's fields but its offset, for input k; false when input k is no past. */
static bool pair_of_input(const wgc_graph *g, int k, wgc_cache_pair *p)
{
    const int t = g->inputs[k];
    const wgc_tensor *x = &g->tensors[t];
    if (x->is_output || x->data || !wgc_shape_is_sym(&x->shape))
        return false;
    const int c = only_concat(g, t);
    if (c < 0)
        return false;
    const wgc_node *n = &g->nodes[c];
    const wgc_tensor *y = &g->tensors[n->outputs[0]], *add = &g->tensors[n->inputs[1]];
    int64_t axis = wgc_attr_int(n, "axis", 0);
    if (axis < 0)
        axis += y->shape.rank;
    const int o = output_index(g, n->outputs[0]);
    if (o < 0 || axis < 0 || axis >= y->shape.rank || y->shape.rank != x->shape.rank || add->aliased ||
        !wgc_dim_is_sym(&x->shape, (int)axis) || !wgc_dim_is_sym(&y->shape, (int)axis))
        return false;
    /* off the axis the past and present are written alike (the metadata's dims, which hosts
     * check the pair against): a symbol in one and a fixed size in the other is no pair */
    for (int d = 0; d < y->shape.rank; d++)
        if (d != axis && (x->shape.dims[d] != y->shape.dims[d] ||
                          memcmp(x->shape.sym[d], y->shape.sym[d], sizeof x->shape.sym[d])))
            return false;
    int64_t elems = 1;
    for (int d = 0; d < y->shape.rank; d++)
        elems *= y->shape.dims[d];
    *p = (wgc_cache_pair){.input = k, .output = o, .node = c, .axis = (int)axis,
                          .capacity = y->shape.dims[axis], .bytes = elems * (int64_t)wg_dtype_size(y->dtype)};
    return true;
}

int wgc_cache_pairs(const wgc_graph *g, wgc_cache_pair *out, int cap)
{
    int count = 0;
    int64_t at = 0;
    for (int k = 0; g->n_syms && k < g->n_inputs; k++) {
        wgc_cache_pair p;
        if (!pair_of_input(g, k, &p))
            continue;
        p.offset = at;
        at += (p.bytes + 63) / 64 * 64;
        if (count < cap)
            out[count] = p;
        count++;
    }
    return count;
}

int64_t wgc_cache_bytes(const wgc_graph *g)
{
    int64_t at = 0;
    for (int k = 0; g->n_syms && k < g->n_inputs; k++) {
        wgc_cache_pair p;
        if (pair_of_input(g, k, &p))
            at += (p.bytes + 63) / 64 * 64;
    }
    return at;
}

int wgc_cache_pair_of(const wgc_graph *g, int node, wgc_cache_pair *p)
{
    int index = 0;
    int64_t at = 0;
    for (int k = 0; g->n_syms && k < g->n_inputs; k++) {
        if (!pair_of_input(g, k, p))
            continue;
        p->offset = at;
        if (p->node == node)
            return index;
        at += (p->bytes + 63) / 64 * 64;
        index++;
    }
    return -1;
}
