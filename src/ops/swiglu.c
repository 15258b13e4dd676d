/*
 * swiglu.c: SwiGLU (opset 28), y = Swish_alpha(a) * b = a * b / (1 + exp(-alpha * a)) for a
 * gate a and a value b of one shape (no broadcasting), float and double, elementwise through
 * the generic loop (gen.h), computed in double.
 */
#include <math.h>
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/inline_loops.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

static wg_status swiglu_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 2, 2, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, floats);
    if (!st)
        st = wgc_check_input(g, n, 1, floats);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1);
    if (a->dtype != b->dtype || !wgc_shape_eq(&a->shape, &b->shape)) {
        char sa[128], sb[128];
        return wgc_error(g, n, WG_ERR_INVALID, "A (%s %s) and B (%s %s) must have one dtype and shape",
                         wg_dtype_name(a->dtype), wgc_shape_str(&a->shape, sa, sizeof sa),
                         wg_dtype_name(b->dtype), wgc_shape_str(&b->shape, sb, sizeof sb));
    }
    wgc_set_output(g, n, 0, a->dtype, &a->shape);
    return WG_OK;
}

static wg_status swiglu_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    char ex[200], al[40];
    wgc_dlit(al, sizeof al, wgc_attr_float(n, "alpha", 1.0f));
    snprintf(ex, sizeof ex, "(TY)((double)a * (double)b / (1.0 + wgk_exp(-%s * (double)a)))", al);
    return wgc_gen_map(e, g, n, n->inputs, 2, n->outputs[0], ex);
}

static wgc_scalar swiglu_eval(const wgc_map_args *a, const wgc_scalar *in)
{
    double alpha = wgc_attr_float(a->n, "alpha", 1.0f);
    wgc_scalar r = {0};
    r.f = in[0].f * in[1].f / (1.0 + exp(-alpha * in[0].f));
    return r;
}

static wg_status swiglu_fold(wgc_graph *g, wgc_node *n)
{
    return wgc_fold_map(g, n, swiglu_eval, NULL);
}

const wgc_op_def wgc_op_swiglu = {swiglu_infer, swiglu_fold, swiglu_emit, NULL};
