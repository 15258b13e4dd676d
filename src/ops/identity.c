/* identity.c: Identity: output = input (a copy at run time unless the planner aliases). */
#include "helpers/emit_and_fold.h"

static wg_status identity_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

static wg_status identity_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data)
        return WG_ERR_UNSUPPORTED;
    return wgc_fold_copy(g, n, 0, x->data);
}

static wg_status identity_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_identity = {identity_infer, identity_fold, identity_emit, NULL};
