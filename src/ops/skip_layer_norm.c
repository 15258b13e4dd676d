/*
 * skip_layer_norm.c: onnxruntime's SkipLayerNormalization and SkipSimplifiedLayerNormalization
 * (com.microsoft, version 1): s = input + skip (+ bias), normalised over the last axis with
 * gamma (and beta): LayerNormalization, or RMS normalisation (SimplifiedLayerNormalization,
 * rms_norm.c) for the simplified op, epsilon default 1e-12. Outputs: the normalised s, its
 * mean and inverse standard deviation (float), and s itself (input_skip_bias_sum, which the
 * genai builder feeds to the next layer). The node expands into Add, [Add,] and the
 * normalisation (helpers/expand_node.h), so their kernels and symbolic dims serve it.
 *
 * The checks are onnxruntime's: input of rank 2 or 3; skip of its shape, or, for a rank-3
 * input [B, S, H], [1, S, H] or [S, H]; gamma, beta and bias of one dim H; float32 (float16
 * models compute in float32, passes/lower_fp16.c). The simplified op's mean output, which
 * RMS normalisation has not (onnxruntime writes zeros), is refused.
 */
#include "helpers/expand_node.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_FLOAT16, 0};

/* The input that is bias: 4 (after beta) or 3 (the simplified op has no beta). */
static int bias_input(const wgc_node *n)
{
    return n->op == WGC_OP_SKIP_SIMPLIFIED_LAYER_NORM ? 3 : 4;
}

static wg_status check_skip(wgc_graph *g, const wgc_node *n, const wgc_tensor *x,
                            const wgc_tensor *s)
{
    const int r = x->shape.rank, rs = s->shape.rank;
    const int64_t *xd = x->shape.dims, *sd = s->shape.dims;
    bool ok = (r == 2 || r == 3) && (rs == 2 || rs == 3);
    ok = ok && sd[rs - 1] == xd[r - 1] && sd[rs - 2] == xd[r - 2];
    ok = ok && (wgc_shape_eq(&s->shape, &x->shape) || (r == 3 && (rs == 2 || sd[0] == 1)));
    if (ok)
        return WG_OK;
    char a[128], b[128];
    return wgc_error(g, n, WG_ERR_INVALID,
                     "input %s and skip %s: onnxruntime takes an input of rank 2 or 3 and a skip "
                     "of its shape (or, for [B, S, H], [1, S, H] or [S, H])",
                     wgc_shape_str(&x->shape, a, sizeof a), wgc_shape_str(&s->shape, b, sizeof b));
}

static wg_status check(wgc_graph *g, const wgc_node *n)
{
    static const char *const attrs[] = {"epsilon", NULL};
    const bool simple = n->op == WGC_OP_SKIP_SIMPLIFIED_LAYER_NORM;
    wg_status st = wgc_check_attr_names(g, n, attrs);
    if (!st)
        st = wgc_check_arity(g, n, 3, bias_input(n) + 1, 1, 4);
    for (int i = 0; !st && i < n->n_inputs; i++)
        if (wgc_in(g, n, i))
            st = wgc_check_input(g, n, i, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if ((st = check_skip(g, n, x, wgc_in(g, n, 1))))
        return st;
    const int64_t h = x->shape.dims[x->shape.rank - 1];
    for (int i = 1; i < n->n_inputs; i++) {
        const wgc_tensor *p = wgc_in(g, n, i);
        if (!p)
            continue;
        if (p->dtype != x->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "input %d '%s' is %s, input %s", i, p->name,
                             wg_dtype_name(p->dtype), wg_dtype_name(x->dtype));
        if (i >= 2 && (p->shape.rank != 1 || p->shape.dims[0] != h)) {
            char a[128];
            return wgc_error(g, n, WG_ERR_INVALID,
                             "input %d '%s' %s must have one dim of %lld, the input's last", i,
                             p->name, wgc_shape_str(&p->shape, a, sizeof a), (long long)h);
        }
    }
    if (simple && wgc_out(g, n, 1))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output 1 (mean): RMS normalisation has no mean "
                         "(onnxruntime writes zeros there)");
    return WG_OK;
}

static wg_status skip_layer_norm_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = check(g, n);
    if (st)
        return st;
    const bool simple = n->op == WGC_OP_SKIP_SIMPLIFIED_LAYER_NORM;
    const float eps = wgc_attr_float(n, "epsilon", 1e-12f);
    const int bias = n->n_inputs > bias_input(n) ? n->inputs[bias_input(n)] : -1;
    const int beta = !simple && n->n_inputs > 3 ? n->inputs[3] : -1;
    int in[3] = {n->inputs[0], n->inputs[1], n->inputs[2]}, out[4] = {-1, -1, -1, -1};
    for (int k = 0; k < n->n_outputs && k < 4; k++)
        out[k] = n->outputs[k];
    wgc_expansion ex;
    wgc_expand_begin(&ex, g, n); /* n may move from here on */
    int sum = out[3] >= 0 ? out[3] : wgc_expand_tensor(&ex, "/input_skip_bias_sum");
    if (bias >= 0) {
        const int part = wgc_expand_tensor(&ex, "/input_skip_sum");
        wgc_expand_add(&ex, "/skip", "Add", in, 2, &part, 1);
        wgc_expand_add(&ex, "/bias", "Add", (const int[]){part, bias}, 2, &sum, 1);
    } else {
        wgc_expand_add(&ex, "/skip", "Add", in, 2, &sum, 1);
    }
    int k;
    if (simple) { /* y and inv_std_var */
        const int outs[2] = {out[0], out[2]};
        k = wgc_expand_add(&ex, "", "SimplifiedLayerNormalization", (const int[]){sum, in[2]}, 2,
                           outs, out[2] >= 0 ? 2 : 1);
    } else { /* y, mean and inv_std_var */
        const int n_out = out[2] >= 0 ? 3 : out[1] >= 0 ? 2 : 1;
        k = wgc_expand_add(&ex, "", "LayerNormalization", (const int[]){sum, in[2], beta},
                           beta >= 0 ? 3 : 2, out, n_out);
    }
    wgc_expand_attr_float(&ex, k, "epsilon", eps);
    return wgc_expand_finish(&ex);
}

const wgc_op_def wgc_op_skip_layer_norm = {
    .infer = skip_layer_norm_infer,
    .emit = wgc_expanded_emit,
};
