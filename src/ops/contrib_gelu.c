/*
 * contrib_gelu.c: onnxruntime's GELU family (com.microsoft, version 1): Gelu (the erf form),
 * FastGelu (the tanh form, of X or of X + bias), BiasGelu (the erf form of A + B) and
 * QuickGelu (X * sigmoid(alpha X), alpha default 1.702). Each is ONNX's Gelu or Swish, over
 * an Add for a bias, and expands into them (helpers/expand_node.h): their kernels, folding,
 * symbolic dims and the MatMul epilogue fusion of a bias and a Gelu serve these too.
 *
 * onnxruntime's own checks: a bias (FastGelu's input 1, BiasGelu's B) has one dim, the
 * size of the last dim of X; attributes other than QuickGelu's alpha are refused.
 */
#include "helpers/expand_node.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};

/* Input count, dtypes, attribute names, and the bias's shape. */
static wg_status check(wgc_graph *g, const wgc_node *n)
{
    static const char *const none[] = {NULL}, *const alpha[] = {"alpha", NULL};
    const bool bias = n->op == WGC_OP_FAST_GELU || n->op == WGC_OP_BIAS_GELU;
    wg_status st = wgc_check_attr_names(g, n, n->op == WGC_OP_QUICK_GELU ? alpha : none);
    if (!st)
        st = wgc_check_arity(g, n, n->op == WGC_OP_BIAS_GELU ? 2 : 1, bias ? 2 : 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, floats);
    if (st || !wgc_in(g, n, 1))
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *b = wgc_in(g, n, 1);
    if (b->dtype != x->dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "bias '%s' is %s, X %s", b->name,
                         wg_dtype_name(b->dtype), wg_dtype_name(x->dtype));
    const int64_t h = x->shape.rank ? x->shape.dims[x->shape.rank - 1] : 0;
    if (b->shape.rank != 1 || x->shape.rank < 1 || b->shape.dims[0] != h) {
        char bs[128], xs[128];
        return wgc_error(g, n, WG_ERR_INVALID,
                         "bias '%s' %s must have one dim, the size of X's last (X is %s), as "
                         "onnxruntime requires", b->name, wgc_shape_str(&b->shape, bs, sizeof bs),
                         wgc_shape_str(&x->shape, xs, sizeof xs));
    }
    return WG_OK;
}

static wg_status contrib_gelu_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = check(g, n);
    if (st)
        return st;
    const wgc_op op = n->op;
    const float alpha = wgc_attr_float(n, "alpha", 1.702f);
    int x = n->inputs[0], y = n->outputs[0];
    const int b = n->n_inputs > 1 ? n->inputs[1] : -1;
    wgc_expansion ex;
    wgc_expand_begin(&ex, g, n); /* n may move from here on */
    if (b >= 0) {
        const int sum = wgc_expand_tensor(&ex, "/biased");
        wgc_expand_add(&ex, "/bias", "Add", (const int[]){x, b}, 2, &sum, 1);
        x = sum;
    }
    const int k = wgc_expand_add(&ex, "", op == WGC_OP_QUICK_GELU ? "Swish" : "Gelu", &x, 1, &y, 1);
    if (op == WGC_OP_FAST_GELU)
        wgc_expand_attr_str(&ex, k, "approximate", "tanh");
    else if (op == WGC_OP_QUICK_GELU)
        wgc_expand_attr_float(&ex, k, "alpha", alpha);
    return wgc_expand_finish(&ex);
}

const wgc_op_def wgc_op_contrib_gelu = {.infer = contrib_gelu_infer, .emit = wgc_expanded_emit};
