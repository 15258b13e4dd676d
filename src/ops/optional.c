/*
 * optional.c: Optional, OptionalHasElement, OptionalGetElement.
 *
 * An optional holds a tensor or a sequence, or nothing; whether it holds one is known at
 * compile time (Optional's output) or read at run time from a bool flag (a graph input's
 * presence, src/ir/values.c). Known cases leave nothing to run: Optional sets its output
 * and dies, HasElement becomes a constant, GetElement an Identity (or, of a sequence, the
 * same elements). A run-time flag makes HasElement an Identity of the flag, and GetElement
 * a checked copy: inputs (optional, flag, value elements...), outputs (value, copies of
 * the elements... for a sequence); an empty optional stops wg_run with
 * WGK_ERR_OPTIONAL_EMPTY.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/emit_and_fold.h"

/* Rewrites n into an Identity of tensor x. */
static wg_status become_identity(wgc_graph *g, wgc_node *n, int x)
{
    n->op = WGC_OP_IDENTITY;
    wg_status st = wgc_node_set_inputs(g, n, &x, 1);
    return st ? st : wgc_op_hooks(WGC_OP_IDENTITY)->infer(g, n);
}

static wg_status optional_make(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x && x->kind == WGC_KIND_OPTIONAL)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "an optional of an optional");
    if (!x && !wgc_attr_find(n, "type"))
        return wgc_error(g, n, WG_ERR_INVALID, "has neither an input nor a 'type' attribute");
    wg_status st = wgc_value_set(g, n->outputs[0], WGC_KIND_OPTIONAL, x ? x->dtype : 0, x ? &n->inputs[0] : NULL,
                                 x ? 1 : 0, -1);
    if (!st)
        n->dead = true;
    return st;
}

static wg_status has_element(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x || x->kind != WGC_KIND_OPTIONAL)
        return wgc_fold_to_scalar(g, n, WG_DT_BOOL, x != NULL);
    if (x->present < 0)
        return wgc_fold_to_scalar(g, n, WG_DT_BOOL, x->n_elems == 1);
    return become_identity(g, n, x->present);
}

static wg_status get_element(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wg_status st;
    if (x->kind == WGC_KIND_TENSOR)
        return become_identity(g, n, n->inputs[0]);
    if (x->kind == WGC_KIND_OPTIONAL && x->present < 0 && !x->n_elems)
        return wgc_error(g, n, WG_ERR_INVALID, "the optional '%s' is empty", x->name);
    int v = x->kind == WGC_KIND_OPTIONAL ? x->elems[0] : n->inputs[0];
    const wgc_tensor *val = &g->tensors[v];
    if (x->kind == WGC_KIND_SEQUENCE || x->present < 0) { /* known to be there */
        if (val->kind == WGC_KIND_TENSOR)
            return become_identity(g, n, v);
        if ((st = wgc_value_set(g, n->outputs[0], WGC_KIND_SEQUENCE, val->dtype, val->elems, val->n_elems, -1)))
            return st;
        n->dead = true;
        return WG_OK;
    }
    /* a presence read at run time: a checked copy of the value (of each element) */
    bool seq = val->kind == WGC_KIND_SEQUENCE;
    int count = seq ? val->n_elems : 1;
    int *ins = malloc(sizeof(int) * (size_t)(count + 2)), *outs = malloc(sizeof(int) * (size_t)(count + 1));
    if (!ins || !outs) {
        st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
        goto done;
    }
    ins[0] = n->inputs[0];
    ins[1] = x->present;
    outs[0] = n->outputs[0];
    for (int k = 0; k < count; k++)
        ins[k + 2] = seq ? val->elems[k] : v;
    if (!seq) {
        if ((st = wgc_node_set_inputs(g, n, ins, 3)))
            goto done;
        wgc_set_output(g, n, 0, val->dtype, &val->shape);
        goto done;
    }
    for (int k = 0; k < count; k++) {
        const wgc_tensor *el = &g->tensors[ins[k + 2]];
        if ((st = wgc_add_element_output(g, n, k, el->dtype, &el->shape, &outs[k + 1])))
            goto done;
    }
    if ((st = wgc_value_set(g, outs[0], WGC_KIND_SEQUENCE, val->dtype, outs + 1, count, -1)) ||
        (st = wgc_node_set_inputs(g, n, ins, count + 2)))
        goto done;
    st = wgc_node_set_outputs(g, n, outs, count + 1);
done:
    free(ins);
    free(outs);
    return st;
}

static wg_status optional_infer(wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_OPTIONAL: return optional_make(g, n);
    case WGC_OP_OPTIONAL_HAS_ELEMENT: return has_element(g, n);
    case WGC_OP_OPTIONAL_GET_ELEMENT: return get_element(g, n);
    default: return wgc_no_case(g, n, "optional_infer");
    }
}

/* OptionalGetElement with a run-time flag: input 1 is the flag, inputs 2.. the value's
 * tensors; a tensor value is output 0, a sequence's copies are outputs 1... */
static wg_status optional_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (n->op != WGC_OP_OPTIONAL_GET_ELEMENT)
        return wgc_no_case(g, n, "optional_emit"); /* the others never reach emit */
    wgc_emit(e, "if (!*(const uint8_t *)%s) return WGK_ERR_OPTIONAL_EMPTY;\n", wgc_ptr(e, g, n->inputs[1]));
    bool seq = g->tensors[n->outputs[0]].kind == WGC_KIND_SEQUENCE;
    for (int k = 2; k < n->n_inputs; k++)
        wgc_emit_copy(e, g, n->inputs[k], seq ? n->outputs[k - 1] : n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_optional = {.infer = optional_infer, .emit = optional_emit};
