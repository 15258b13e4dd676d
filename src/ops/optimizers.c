/*
 * optimizers.c: the update rules of domain ai.onnx.preview.training: Adagrad and Momentum
 * (standard and Nesterov). Each takes a learning rate R (float scalar) and a step count T
 * (int64 scalar), both possibly computed at run time, then n tensors X, their gradients G
 * and an accumulator of each (Adagrad H; Momentum V), all float32 of the same shape per
 * group; it writes the n new X, then the n new accumulators. With g = norm_coefficient X + G:
 *
 *   Adagrad   r = R / (1 + T decay_factor); H' = H + g^2; X' = X - r g / (sqrt(H') + epsilon)
 *   Momentum  b = T > 0 ? beta : 1; V' = alpha V + b g;
 *             X' = X - R V' (standard), X - R (g + alpha V') (nesterov)
 *
 * as ONNX's reference computes them, element by element in double (the reference mixes
 * float32 tensors with double scalars), rounded once to float32.
 *
 * Adam stays unsupported: Debian's ONNX 1.12 test_adam_multiple expects an epsilon of 1e-2
 * that its node does not carry (the default is 1e-6; ONNX 1.23 fixed the node), so a
 * correct Adam would fail it.
 */
#include <string.h>

#include "op.h"

enum { ADAGRAD, MOMENTUM };

typedef struct opt_plan {
    int kind, per; /* per: tensors per group (X, G and the accumulators) */
    int n;         /* groups */
    bool nesterov;
} opt_plan;

static wg_status plan(wgc_graph *g, const wgc_node *n, opt_plan *p)
{
    memset(p, 0, sizeof *p);
    p->kind = n->op == WGC_OP_ADAGRAD ? ADAGRAD : MOMENTUM;
    p->per = 3;
    const int outs = p->per - 1;
    if (n->n_inputs < 2 + p->per || (n->n_inputs - 2) % p->per)
        return wgc_error(g, n, WG_ERR_INVALID, "%d inputs: expected R, T and groups of %d tensors",
                         n->n_inputs, p->per);
    p->n = (n->n_inputs - 2) / p->per;
    if (n->n_outputs != p->n * outs)
        return wgc_error(g, n, WG_ERR_INVALID, "%d outputs for %d tensors: expected %d", n->n_outputs, p->n,
                         p->n * outs);
    if (p->kind == MOMENTUM) {
        const char *mode = wgc_attr_str(n, "mode", "");
        p->nesterov = !strcmp(mode, "nesterov");
        if (!p->nesterov && strcmp(mode, "standard"))
            return wgc_error(g, n, WG_ERR_INVALID, "mode '%s' (expected standard or nesterov)", mode);
    }
    return WG_OK;
}

static wg_status opt_infer(wgc_graph *g, wgc_node *n)
{
    static const int f32[] = {WG_DT_FLOAT, 0}, i64[] = {WG_DT_INT64, 0};
    opt_plan p;
    wg_status st = plan(g, n, &p);
    if (!st)
        st = wgc_check_input(g, n, 0, f32);
    if (!st)
        st = wgc_check_input(g, n, 1, i64);
    for (int i = 2; !st && i < n->n_inputs; i++)
        st = wgc_check_input(g, n, i, f32);
    if (st)
        return st;
    if (wgc_numel(&wgc_in(g, n, 0)->shape) != 1 || wgc_numel(&wgc_in(g, n, 1)->shape) != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "R and T must be scalars");
    for (int i = 0; i < p.n; i++) {
        const wgc_tensor *x = wgc_in(g, n, 2 + i);
        for (int k = 1; k < p.per; k++)
            if (!wgc_shape_eq(&wgc_in(g, n, 2 + k * p.n + i)->shape, &x->shape))
                return wgc_error(g, n, WG_ERR_INVALID, "input %d does not have the shape of X '%s'",
                                 2 + k * p.n + i, x->name);
        if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
            return wgc_error(g, n, WG_ERR_LIMIT, "X '%s' has 2^31 or more elements", x->name);
        for (int k = 0; k < p.per - 1; k++)
            if (n->outputs[k * p.n + i] >= 0)
                wgc_set_output(g, n, k * p.n + i, WG_DT_FLOAT, &x->shape);
    }
    return WG_OK;
}

/* One group's update: the element loop over X (input 2 + i), the accumulators and outputs. */
static void emit_group(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const opt_plan *p, int i)
{
    const int nn = p->n;
    const char *xo = n->outputs[i] >= 0 ? wgc_ptr(e, g, n->outputs[i]) : "0";
    const char *ao = n->outputs[nn + i] >= 0 ? wgc_ptr(e, g, n->outputs[nn + i]) : "0";
    wgc_emit(e, "{\nconst float *x = (const float *)%s, *gr = (const float *)%s, *a = (const float *)%s;\n",
             wgc_ptr(e, g, n->inputs[2 + i]), wgc_ptr(e, g, n->inputs[2 + nn + i]),
             wgc_ptr(e, g, n->inputs[2 + 2 * nn + i]));
    wgc_emit(e, "float *xo = (float *)%s, *ao = (float *)%s;\n", xo, ao);
    wgc_emit(e, "for (int32_t k = 0; k < %lld; k++) {\n  const double gk = nc * x[k] + gr[k];\n",
             (long long)wgc_numel(&wgc_in(g, n, 2 + i)->shape));
    if (p->kind == ADAGRAD)
        wgc_emit(e, "  const double an = a[k] + gk * gk;\n"
                    "  const double xn = x[k] - r * gk / (__builtin_sqrt(an) + eps);\n");
    else
        wgc_emit(e, "  const double an = alpha * a[k] + b * gk;\n"
                    "  const double xn = x[k] - r * %s;\n",
                 p->nesterov ? "(gk + alpha * an)" : "an");
    wgc_emit(e, "  if (xo) xo[k] = (float)xn;\n  if (ao) ao[k] = (float)an;\n}\n}\n");
}

static wg_status opt_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    opt_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const double nc = wgc_attr_float(n, "norm_coefficient", 0.0f);
    wgc_emit(e, "{\nconst double R = ((const float *)%s)[0];\nconst int64_t T = ((const int64_t *)%s)[0];\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e, "const double nc = %.17g;\n(void)T;\n", nc);
    if (p.kind == ADAGRAD)
        wgc_emit(e, "const double r = R / (1.0 + (double)T * %.17g), eps = %.17g;\n",
                 (double)wgc_attr_float(n, "decay_factor", 0.0f), (double)wgc_attr_float(n, "epsilon", 1e-6f));
    else
        wgc_emit(e, "const double r = R, alpha = %.17g, b = T > 0 ? %.17g : 1.0;\n",
                 (double)wgc_attr_float(n, "alpha", 0.0f), (double)wgc_attr_float(n, "beta", 0.0f));
    for (int i = 0; i < p.n; i++)
        emit_group(e, g, n, &p, i);
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_optimizers = {.infer = opt_infer, .emit = opt_emit};
