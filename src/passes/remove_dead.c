/* remove_dead.c: removes nodes none of whose outputs is read (iterating to a fixed point);
 * the markers of a body (ir.h wgc_body) go when the node that owns the body does. */
#include "passes.h"

wg_status wgc_pass_remove_dead(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    bool changed = true;
    while (changed) {
        changed = false;
        wgc_graph_count_uses(g);
        for (int i = g->n_nodes - 1; i >= 0; i--) {
            wgc_node *n = &g->nodes[i];
            if (n->dead || n->op == WGC_OP_BODY_BEGIN || n->op == WGC_OP_BODY_ELSE)
                continue; /* a body's markers live and die with its node (below) */
            bool used = false;
            for (int k = 0; k < n->n_outputs; k++)
                if (n->outputs[k] >= 0 && g->tensors[n->outputs[k]].n_uses > 0)
                    used = true;
            if (!used) {
                n->dead = true;
                changed = true;
            }
        }
    }
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == WGC_OP_BODY_BEGIN || g->nodes[i].op == WGC_OP_BODY_ELSE) {
            const int e = wgc_body_end(g, i);
            if (e < 0 || g->nodes[e].dead)
                g->nodes[i].dead = true;
        }
    wgc_graph_count_uses(g);
    return WG_OK;
}
