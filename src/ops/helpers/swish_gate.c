/* swish_gate.c: Swish and SwiGLU's shared formula (swish_gate.h). */
#include "swish_gate.h"

#include <math.h>
#include <stdio.h>

#include "fold_map.h"
#include "host_elements.h"
#include "inline_loops.h"
#include "sym_code.h"
#include "../sym.h"

/* The formula over a (and b), T and TY the input's and output's C types (inline_loops.h). */
static void expression(const wgc_node *n, char *ex, size_t len)
{
    char al[40];
    wgc_dlit(al, sizeof al, wgc_attr_float(n, "alpha", 1.0f));
    snprintf(ex, len, "(TY)((double)a%s / (1.0 + wgk_exp(-%s * (double)a)))",
             n->n_inputs == 2 ? " * (double)b" : "", al);
}

wg_status wgc_swish_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    char ex[200];
    expression(n, ex, sizeof ex);
    return wgc_gen_map(e, g, n, n->inputs, n->n_inputs, n->outputs[0], ex);
}

wg_status wgc_swish_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    if (n->n_inputs != 1)
        return wgc_sym_refuse(g, n, "no run-time code for SwiGLU with symbolic shapes yet");
    char ex[200];
    expression(n, ex, sizeof ex);
    wgc_emit(e, "{\ntypedef %s T;\ntypedef %s TY;\nconst T *px = (const T *)%s;\n"
                "TY *py = (TY *)%s;\n"
                "for (int32_t i = 0, m = %s; i < m; i++) { const T a = px[i]; py[i] = %s; }\n}\n",
             wgc_ctype(x->dtype), wgc_ctype(y->dtype), wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]), wgc_sym_numel(e, y), ex);
    return WG_OK;
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
