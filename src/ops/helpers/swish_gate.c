/* swish_gate.c: Swish and SwiGLU's shared formula (swish_gate.h). */
#include "swish_gate.h"

#include <math.h>
#include <stdio.h>

#include "fold_map.h"
#include "host_elements.h"
#include "inline_loops.h"

wg_status wgc_swish_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const int nin = n->n_inputs;
    char ex[200], al[40];
    wgc_dlit(al, sizeof al, wgc_attr_float(n, "alpha", 1.0f));
    snprintf(ex, sizeof ex, "(TY)((double)a%s / (1.0 + wgk_exp(-%s * (double)a)))",
             nin == 2 ? " * (double)b" : "", al);
    return wgc_gen_map(e, g, n, n->inputs, nin, n->outputs[0], ex);
}

static wgc_scalar swish_eval(const wgc_map_args *a, const wgc_scalar *in)
{
    double alpha = wgc_attr_float(a->n, "alpha", 1.0f);
    wgc_scalar r = {0};
    r.f = (a->n->n_inputs == 2 ? in[0].f * in[1].f : in[0].f) / (1.0 + exp(-alpha * in[0].f));
    return r;
}

wg_status wgc_swish_fold(wgc_graph *g, wgc_node *n)
{
    return wgc_fold_map(g, n, swish_eval, NULL);
}
