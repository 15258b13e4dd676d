/* identity.c: Identity: output = input (a copy at run time unless the planner aliases). */
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

static wg_status identity_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->kind != WGC_KIND_TENSOR) { /* a sequence or optional: the same value, nothing to run */
        wg_status st = wgc_value_set(g, n->outputs[0], x->kind, x->dtype, x->elems, x->n_elems, x->present);
        if (!st)
            n->dead = true;
        return st;
    }
    return wgc_infer_same_as_input(g, n, wgc_numeric_dtypes);
}

/* ---- symbolic dims (sym.h): output 0 takes input 0's shape (WGC_SAME_SHAPE) ---- */

const wgc_op_def wgc_op_identity = {
    .infer = identity_infer,
    .fold = wgc_fold_same_bytes,
    .emit = wgc_emit_same_bytes,
    .sym = {.emit = wgc_sym_emit_copy,
            .foldable = wgc_sym_passes_values,
            .values = wgc_sym_copy_values,
            .bounds = wgc_vrange_same_elems},
};
