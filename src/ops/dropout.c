/*
 * dropout.c: Dropout at inference: output = input. The optional mask output is all true
 * (nothing dropped), so it becomes a bool constant as soon as its shape is known.
 * training_mode (opset 12 input) must be absent or a constant: false, or true with a constant
 * ratio of 0 (nothing dropped either way); true with another ratio would be random.
 */
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

static wg_status dropout_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, 3, 1, 2);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_numeric_dtypes);
    if (st)
        return st;
    /* training_mode true drops random elements, unless the ratio is 0: then it keeps them
     * all, as inference does. Both must be known at compile time to tell. */
    const wgc_tensor *tm = wgc_in(g, n, 2), *ratio = wgc_in(g, n, 1);
    if (tm && !tm->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "training_mode '%s' is computed at run time; only a constant is supported", tm->name);
    if (tm && wgc_elem_get_i(tm->data, tm->dtype, 0) != 0) {
        if (ratio && !ratio->data)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "ratio '%s' is computed at run time; in training mode only a constant 0 is supported",
                             ratio->name);
        const double r = ratio ? wgc_elem_get_f(ratio->data, ratio->dtype, 0) : 0.5;
        if (r != 0.0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "Dropout in training mode with ratio %g draws random numbers to drop elements; nondeterministic "
                             "operators are not supported",
                             r);
    }
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    wgc_tensor *mask = wgc_out(g, n, 1);
    if (mask && !mask->data) {
        wgc_set_output(g, n, 1, WG_DT_BOOL, &x->shape);
        void *ones = wgc_elem_alloc(g, n, WG_DT_BOOL, &x->shape);
        if (!ones)
            return WG_ERR_NOMEM;
        memset(ones, 1, (size_t)wgc_numel(&x->shape));
        wgc_tensor_set_const(g, n->outputs[1], WG_DT_BOOL, &x->shape, ones);
    }
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* Is tensor t a graph output or read by a live node? */
static bool tensor_read(const wgc_graph *g, int t)
{
    if (g->tensors[t].is_output)
        return true;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; !g->nodes[i].dead && k < g->nodes[i].n_inputs; k++)
            if (g->nodes[i].inputs[k] == t)
                return true;
    return false;
}

/* inference: the input itself (remove_identity.c) */
static wg_status dropout_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        return WG_OK;
    wgc_shape y;
    if (n->n_outputs > 1 && n->outputs[1] >= 0 && tensor_read(g, n->outputs[1]))
        return wgc_sym_refuse(g, n, "its mask output, read by the graph");
    y = x->shape;
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_dropout = {
    .infer = dropout_infer,
    .fold = wgc_fold_same_bytes,
    .emit = wgc_emit_same_bytes,
    .sym = {.infer = dropout_sym_infer, .emit = wgc_sym_emit_copy},
};
