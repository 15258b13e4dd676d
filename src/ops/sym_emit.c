/*
 * sym_emit.c: the driver of the code of nodes with symbolic shapes (sym.h). Sizes,
 * strides and kernel arguments are C expressions of the module's wg_dims[]
 * (wgc_dims_expr), so a node runs over the actual sizes; buffers are planned for the
 * maxima and tensors are dense at their actual sizes (ir/symdim.h). Kernel choice
 * (node->impl, src/select) was made from the maxima. The code itself is the op's: its
 * sym.emit hook, or its emit hook where a trait says that one serves (a data-dependent
 * op, a sliding window, code at the maxima), or its static code per sample over a
 * symbolic batch (sym_batch.c). A node none of them takes is refused, naming it, never
 * run wrong.
 */
#include <stdio.h>
#include <string.h>

#include "sym.h"

/* Operand dims an elementwise node takes as equal to its output's, given in another form
 * (a model's own total_sequence_length against past + seq: ir/symdim.h
 * wgc_broadcast_checked): the module checks them before the node runs. */
static void emit_equal_checks(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    for (int k = 0; y && k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        for (int d = 0; x && d < x->shape.rank; d++) {
            const int dy = d + y->shape.rank - x->shape.rank;
            if (dy < 0 || !wgc_dim_is_sym(&x->shape, d) || !wgc_dim_is_sym(&y->shape, dy) ||
                !memcmp(x->shape.sym[d], y->shape.sym[dy], WGC_MAX_SYMS))
                continue;
            char a[256];
            snprintf(a, sizeof a, "%s", wgc_dims_expr(e, &x->shape, d, d + 1));
            wgc_emit(e, "if (%s != %s) /* '%s' dim %d against the output's: equal by the model */\n"
                        "    return WGK_ERR_DIM_MISMATCH;\n", a, wgc_dims_expr(e, &y->shape, dy, dy + 1), x->name, d);
        }
    }
}

wg_status wgc_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_op_def *h = wgc_op_hooks(n->op);
    /* output sizes the node decides at run time: on fixed inputs its own emit hook
     * writes the code and the symbols' values */
    if (wgc_op_takes(g, n, WGC_DATA_DEPENDENT))
        return h->emit(e, g, n);
    for (int k = 0; k < n->n_outputs; k++)
        if (n->outputs[k] >= 0 && g->tensors[n->outputs[k]].symval)
            return wgc_sym_refuse(g, n, "symbolic values computed at run time");
    /* sizes are int32 expressions in the C: every tensor stays below 2^31 elements at the maxima */
    for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
        int t = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        if (t >= 0 && wgc_numel(&g->tensors[t].shape) >= ((int64_t)1 << 31))
            return wgc_error(g, n, WG_ERR_LIMIT, "tensor '%s' has 2^31 or more elements at the maxima",
                             g->tensors[t].name);
    }
    if (wgc_op_takes(g, n, WGC_BROADCASTS))
        emit_equal_checks(e, g, n);
    if (wgc_sym_batch_op(g, n))
        return wgc_sym_batch_emit(e, g, n);
    if (wgc_sym_window_op(g, n)) /* their own code, on sizes read from wg_dims (wgc_size_expr) */
        return h->emit(e, g, n);
    if (h->sym.emit)
        return h->sym.emit(e, g, n);
    if (wgc_sym_runs_at_maxima(g, n))
        return h->emit(e, g, n);
    return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
}
