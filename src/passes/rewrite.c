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
