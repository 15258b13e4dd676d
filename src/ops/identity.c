/* identity.c: Identity: output = input (a copy at run time unless the planner aliases). */
#include "helpers/emit_and_fold.h"

static wg_status identity_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

const wgc_op_def wgc_op_identity = {identity_infer, wgc_fold_same_bytes, wgc_emit_same_bytes, NULL};
