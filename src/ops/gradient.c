/*
 * gradient.c: Gradient (domain ai.onnx.preview.training): d y / d xs[i] for the tensors
 * named by the `xs` attribute, y named by `y`. Only shape inference lives here: the pass
 * passes/expand_gradient.c replaces every Gradient node by ordinary nodes right after
 * inference, so reaching emit means that pass did not run (a compiler bug).
 */
#include "op.h"

static wg_status gradient_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_attr *xs = wgc_attr_find(n, "xs");
    if (!xs || xs->type != WGC_ATTR_STRINGS || !xs->n)
        return wgc_error(g, n, WG_ERR_INVALID, "needs a non-empty STRINGS attribute 'xs'");
    if (!wgc_attr_str(n, "y", NULL))
        return wgc_error(g, n, WG_ERR_INVALID, "needs a STRING attribute 'y'");
    if ((size_t)n->n_outputs != xs->n)
        return wgc_error(g, n, WG_ERR_INVALID, "has %d outputs but xs names %zu tensors",
                         n->n_outputs, xs->n);
    for (size_t i = 0; i < xs->n; i++) {
        int t = wgc_tensor_find(g, xs->strings[i]);
        if (t < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "xs[%zu] names '%s', which is no tensor", i,
                             xs->strings[i]);
        const wgc_tensor *x = &g->tensors[t];
        if (!x->has_shape || !x->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "xs[%zu] '%s' has no known shape", i, x->name);
        if (n->outputs[i] >= 0)
            wgc_set_output(g, n, (int)i, x->dtype, &x->shape);
    }
    return WG_OK;
}

static wg_status gradient_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    (void)e;
    return wgc_error(g, n, WG_ERR_INVALID,
                     "internal error: Gradient was not expanded (passes/expand_gradient.c)");
}

const wgc_op_def wgc_op_gradient = {.infer = gradient_infer, .emit = gradient_emit};
