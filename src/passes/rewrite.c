/* rewrite.c: small graph-editing helpers shared by the passes. */
#include "passes.h"

void wgc_replace_uses(wgc_graph *g, int from, int to)
{
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] == from)
                n->inputs[k] = to;
        if (n->residual == from)
            n->residual = to;
    }
}

wgc_node *wgc_only_consumer(wgc_graph *g, int t)
{
    if (g->tensors[t].n_uses != 1 || g->tensors[t].is_output)
        return NULL;
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] == t) {
                /* fused only within one body: a node inside a Loop's body runs again at
                 * every iteration, its producer outside once */
                const int p = g->tensors[t].producer;
                return p < 0 || g->nodes[p].region == n->region ? n : NULL;
            }
    }
    return NULL;
}

wgc_node *wgc_sole_float_producer(wgc_graph *g, int t, wgc_op op)
{
    if (t < 0)
        return NULL;
    const wgc_tensor *x = &g->tensors[t];
    if (x->producer < 0 || x->n_uses != 1 || x->is_output || x->dtype != WG_DT_FLOAT)
        return NULL;
    wgc_node *n = &g->nodes[x->producer];
    return !n->dead && n->op == op && n->n_outputs == 1 ? n : NULL;
}

void wgc_take_output(wgc_graph *g, wgc_node *into, wgc_node *from)
{
    into->outputs[0] = from->outputs[0];
    g->tensors[from->outputs[0]].producer = (int)(into - g->nodes);
    from->dead = true;
    wgc_graph_count_uses(g);
}
