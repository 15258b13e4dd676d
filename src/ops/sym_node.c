/*
 * sym_node.c: which nodes touch symbolic dimensions (sym.h wgc_sym_node), and the error
 * that names a node and the symbol it cannot take (wgc_sym_refuse), for the driver and
 * every op's sym hooks.
 */
#include "sym.h"

#include "../ir/symdim.h"

static bool has_symval_input(const wgc_graph *g, const wgc_node *n, int *which)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].symval) {
            *which = k;
            return true;
        }
    return false;
}

bool wgc_sym_has_symval_input(const wgc_graph *g, const wgc_node *n)
{
    int k;
    return has_symval_input(g, n, &k);
}

bool wgc_sym_has_sym_input_at(const wgc_graph *g, const wgc_node *n, int *which)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && wgc_shape_is_sym(&g->tensors[n->inputs[k]].shape)) {
            *which = k;
            return true;
        }
    return false;
}

bool wgc_sym_node(const wgc_graph *g, const wgc_node *n)
{
    int k;
    if (wgc_sym_has_sym_input_at(g, n, &k) || has_symval_input(g, n, &k))
        return true;
    for (int i = 0; i < n->n_outputs; i++)
        if (n->outputs[i] >= 0 && wgc_shape_is_sym(&g->tensors[n->outputs[i]].shape))
            return true;
    return false;
}

/* The first symbol input k depends on (-1: none). */
static int sym_index_of_input(const wgc_graph *g, const wgc_node *n, int k)
{
    const wgc_tensor *x = wgc_in((wgc_graph *)g, n, k);
    int s = wgc_shape_first_sym(&x->shape, -1);
    if (s < 0 && x->symval)
        for (int64_t i = 0; s < 0 && i < wgc_numel(&x->shape); i++)
            for (int j = 0; j < WGC_MAX_SYMS && s < 0; j++)
                if (x->symval[i].p[j])
                    s = j;
    return s;
}

wg_status wgc_sym_refuse(wgc_graph *g, const wgc_node *n, const char *why)
{
    int k = 0;
    if (!wgc_sym_has_sym_input_at(g, n, &k))
        has_symval_input(g, n, &k);
    const wgc_tensor *x = k < n->n_inputs ? wgc_in(g, n, k) : NULL;
    int s = x ? sym_index_of_input(g, n, k) : -1;
    if (s >= 0 && g->syms[s].derived && g->syms[g->syms[s].from].unit == s)
        s = g->syms[s].from; /* a multiple's unit: the host's symbol itself */
    if (s >= 0 && g->syms[s].n_terms)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "input '%s' has a dimension or value that is the sum '%s' of symbols, which this op "
                         "does not support%s%s", x->name, g->syms[s].name, why ? ": " : " yet", why ? why : "");
    if (s >= 0 && g->syms[s].derived)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "input '%s' has a dimension that a sliding window computes from symbolic dimension "
                         "'%s' (--dim), which this op does not support%s%s; fix the dimension with --shape",
                         x->name, g->syms[g->syms[s].from].name, why ? ": " : " yet", why ? why : "");
    if (s >= 0 && g->syms[s].runtime)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "input '%s' has a data-dependent size (dimension %d of '%s', known only at "
                         "run time), which this op does not support%s%s",
                         x->name, g->syms[s].dim, g->tensors[g->syms[s].tensor].name,
                         why ? ": " : " yet", why ? why : "");
    return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                     "input '%s' depends on symbolic dimension '%s' (--dim), which this op does "
                     "not support%s%s; fix the dimension with --shape",
                     x ? x->name : "?", s >= 0 ? g->syms[s].name : "?", why ? ": " : " yet", why ? why : "");
}
