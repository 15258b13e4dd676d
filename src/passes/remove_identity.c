/*
 * remove_identity.c: Identity and inference-mode Dropout forward their input.
 *
 * Consumers are rewired to read the input. When the forwarded tensor is a graph output
 * (its name is part of the module's interface) or the input is a graph input or a
 * constant feeding a graph output, the node stays: it becomes a copy in the module.
 */
#include "passes.h"

wg_status wgc_pass_remove_identity(wgc_graph *g, const wgc_options *opt)
{
    (void)opt;
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (n->dead || (n->op != WGC_OP_IDENTITY && n->op != WGC_OP_DROPOUT))
            continue;
        if (n->n_inputs < 1 || n->inputs[0] < 0 || n->n_outputs < 1 || n->outputs[0] < 0)
            continue;
        if (n->op == WGC_OP_DROPOUT && n->n_outputs > 1 && n->outputs[1] >= 0)
            continue; /* the mask output is read: keep the node */
        int x = n->inputs[0], y = n->outputs[0];
        if (g->tensors[y].is_output)
            continue;
        wgc_replace_uses(g, y, x);
        n->dead = true;
    }
    return WG_OK;
}
