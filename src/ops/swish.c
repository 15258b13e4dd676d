/*
 * swish.c: Swish (opset 24), y = x * sigmoid(alpha * x) = x / (1 + exp(-alpha * x)), float
 * and double, elementwise through the generic loop (gen.h), computed in double.
 */
#include <math.h>
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/inline_loops.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

static wg_status swish_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

static wg_status swish_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    char ex[200], al[40];
    wgc_dlit(al, sizeof al, wgc_attr_float(n, "alpha", 1.0f));
    snprintf(ex, sizeof ex, "(TY)((double)a / (1.0 + wgk_exp(-%s * (double)a)))", al);
    return wgc_gen_map(e, g, n, n->inputs, 1, n->outputs[0], ex);
}

static wgc_scalar swish_eval(const wgc_map_args *a, const wgc_scalar *in)
{
    double alpha = wgc_attr_float(a->n, "alpha", 1.0f);
    wgc_scalar r = {0};
    r.f = in[0].f / (1.0 + exp(-alpha * in[0].f));
    return r;
}

static wg_status swish_fold(wgc_graph *g, wgc_node *n)
{
    return wgc_fold_map(g, n, swish_eval, NULL);
}

const wgc_op_def wgc_op_swish = {swish_infer, swish_fold, swish_emit, NULL};
