/*
 * remove_identity.c: Identity and inference-mode Dropout forward their input.
 *
 * Consumers are rewired to read the input. When the forwarded tensor is a graph output
 * (its name is part of the module's interface) or the input is a graph input or a
 * constant feeding a graph output, the node stays: it becomes a copy in the module.
 * Dropout's optional mask output does not keep the node: inference makes it an all-true
 * constant (dropout.c), so its readers read that constant; only a mask that is a graph
 * output, or one not yet constant that something reads, keeps the node. (Exporters often
 * name the mask though nothing reads it, as SqueezeNet 1.1 does.)
 */
#include "passes.h"

wg_status wgc_pass_remove_identity(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (n->dead || (n->op != WGC_OP_IDENTITY && n->op != WGC_OP_DROPOUT))
            continue;
        if (n->n_inputs < 1 || n->inputs[0] < 0 || n->n_outputs < 1 || n->outputs[0] < 0)
            continue;
        if (n->op == WGC_OP_DROPOUT && n->n_outputs > 1 && n->outputs[1] >= 0) {
            const wgc_tensor *mask = &g->tensors[n->outputs[1]];
            if (mask->is_output || (!mask->data && mask->n_uses > 0))
                continue; /* the mask is part of the result: keep the node */
        }
        int x = n->inputs[0], y = n->outputs[0];
        if (g->tensors[y].is_output)
            continue;
        wgc_replace_uses(g, y, x);
        n->dead = true;
    }
    return WG_OK;
}
