/*
 * remove_identity.c: Identity, inference-mode Dropout and a Cast to the dtype its input
 * already has forward their input.
 *
 * Consumers are rewired to read the input. When the forwarded tensor is a graph output
 * (its name is part of the module's interface), the node that wrote the input writes the
 * output itself instead, and the input's other readers read the output, if the input is
 * no graph input, output or constant; otherwise the node stays: it becomes a copy in the
 * module.
 * Dropout's optional mask output does not keep the node: inference makes it an all-true
 * constant (dropout.c), so its readers read that constant; only a mask that is a graph
 * output, or one not yet constant that something reads, keeps the node. (Exporters often
 * name the mask though nothing reads it, as SqueezeNet 1.1 does.)
 *
 * The Casts: a float16 model's casts to float16 are casts to float32 once lower_fp16 has
 * widened the graph, and exporters write int64 -> int64 ones. Forwarding them saves a
 * copy each, and lets a KV cache's past reach its Concat and the Concat write its present
 * (cache_pairs.h) in float16 files as in float32 ones.
 */
#include "passes.h"

/* Whether n, live, forwards its input 0 to its output 0. */
static bool forwards(const wgc_graph *g, const wgc_node *n)
{
    if (n->n_inputs < 1 || n->inputs[0] < 0 || n->n_outputs < 1 || n->outputs[0] < 0)
        return false;
    if (n->op == WGC_OP_IDENTITY || n->op == WGC_OP_DROPOUT)
        return true;
    if (n->op != WGC_OP_CAST || n->n_inputs != 1 || n->n_outputs != 1)
        return false;
    const wgc_tensor *x = &g->tensors[n->inputs[0]], *y = &g->tensors[n->outputs[0]];
    return x->kind == WGC_KIND_TENSOR && x->dtype != WG_DT_UNDEFINED && x->dtype == y->dtype;
}

/* Graph output y, forwarded by n (of the main graph, which dies) from x: the node that
 * writes x writes y instead, and x's other readers read y, when x is that node's output in
 * the main graph, no graph input, output or constant, and of y's shape, symbols and all. */
static bool producer_writes_output(wgc_graph *g, wgc_node *n, int x, int y)
{
    wgc_tensor *tx = &g->tensors[x];
    if (n->region != 0 || tx->is_input || tx->is_output || tx->data || tx->producer < 0 ||
        !tx->has_shape || !g->tensors[y].has_shape || !wgc_shape_eq(&tx->shape, &g->tensors[y].shape))
        return false;
    wgc_node *p = &g->nodes[tx->producer];
    if (p->dead || p->region != 0)
        return false;
    n->dead = true;
    for (int k = 0; k < p->n_outputs; k++)
        if (p->outputs[k] == x)
            p->outputs[k] = y;
    wgc_replace_uses(g, x, y);
    for (int k = 0; k < g->n_syms; k++) /* a size the producer decides at run time is y's now */
        if (g->syms[k].runtime && g->syms[k].tensor == x)
            g->syms[k].tensor = y;
    g->tensors[y].producer = tx->producer;
    g->tensors[y].n_uses += tx->n_uses - 1;
    tx->producer = -1;
    tx->n_uses = 0;
    return true;
}

wg_status wgc_pass_remove_identity(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (n->dead || !forwards(g, n))
            continue;
        if (n->op == WGC_OP_DROPOUT && n->n_outputs > 1 && n->outputs[1] >= 0) {
            const wgc_tensor *mask = &g->tensors[n->outputs[1]];
            if (mask->is_output || (!mask->data && mask->n_uses > 0))
                continue; /* the mask is part of the result: keep the node */
        }
        int x = n->inputs[0], y = n->outputs[0];
        if (g->tensors[y].is_output) {
            producer_writes_output(g, n, x, y);
            continue;
        }
        wgc_replace_uses(g, y, x);
        n->dead = true;
        /* y's readers now read x, and n no longer does: the count producer_writes_output reads */
        g->tensors[x].n_uses += g->tensors[y].n_uses - 1;
        g->tensors[y].n_uses = 0;
    }
    return WG_OK;
}
