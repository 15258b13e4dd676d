/*
 * batchnorm.c: BatchNormalization at inference, standalone (the fold_batchnorm pass merges
 * it into a preceding Conv when it can; this is the fallback). With constant parameters
 * the per-channel scale and shift are computed here, so the kernel is y = x*a[c] + b[c];
 * otherwise the module computes them into scratch first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers/fused_epilogue.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

static wg_status bn_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 5, 5, 1, 5);
    for (int i = 0; !st && i < 5; i++)
        st = wgc_check_input(g, n, i, f32_only);
    if (st)
        return st;
    if (wgc_attr_int(n, "training_mode", 0) != 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "BatchNormalization with training_mode=1 is not supported");
    for (int i = 1; i < n->n_outputs; i++)
        if (n->outputs[i] >= 0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "BatchNormalization output %d (training statistics) is not supported", i);
    if (wgc_attr_int(n, "spatial", 1) != 1)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "BatchNormalization with spatial=0 is not supported");
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->shape.rank < 2)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has rank %d, expected at least 2", x->name,
                         x->shape.rank);
    int64_t C = x->shape.dims[1];
    for (int i = 1; i < 5; i++) {
        const wgc_tensor *p = wgc_in(g, n, i);
        if (p->shape.rank != 1 || p->shape.dims[0] != C)
            return wgc_error(g, n, WG_ERR_INVALID, "parameter '%s' must have shape [%lld]", p->name,
                             (long long)C);
    }
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &x->shape);
    return WG_OK;
}

static bool params_const(wgc_graph *g, const wgc_node *n)
{
    for (int i = 1; i < 5; i++)
        if (!wgc_in(g, n, i)->data)
            return false;
    return true;
}

static size_t bn_scratch(const wgc_graph *g, const wgc_node *n)
{
    if (params_const((wgc_graph *)g, n))
        return 0;
    return 2 * sizeof(float) * (size_t)g->tensors[n->inputs[0]].shape.dims[1];
}

void wgc_bn_affine(wgc_graph *g, const wgc_node *bn, int64_t C, float *ab)
{
    const float eps = wgc_attr_float(bn, "epsilon", 1e-5f);
    const float *ga = wgc_in(g, bn, 1)->data, *be = wgc_in(g, bn, 2)->data, *mu = wgc_in(g, bn, 3)->data,
                *va = wgc_in(g, bn, 4)->data;
    for (int64_t c = 0; c < C; c++) {
        const double a = ga[c] / sqrt((double)va[c] + eps);
        ab[c] = (float)a;
        ab[C + c] = (float)(be[c] - mu[c] * a);
    }
}

static wg_status bn_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wg_status st = WG_OK;
    float *ab = NULL;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int64_t N = x->shape.dims[0], C = x->shape.dims[1], inner = wgc_numel(&x->shape) / (N * C > 0 ? N * C : 1);
    const float eps = wgc_attr_float(n, "epsilon", 1e-5f);
    char scale[128], shift[128];
    if (params_const(g, n)) {
        ab = malloc(2 * sizeof(float) * (size_t)(C > 0 ? C : 1));
        if (!ab) {
            st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
            goto fail;
        }
        wgc_bn_affine(g, n, C, ab);
        const char *w;
        if ((st = wgc_weight(e, ab, 2 * sizeof(float) * (size_t)C, &w))) {
            st = wgc_error(g, n, st, "out of memory");
            goto fail;
        }
        snprintf(scale, sizeof scale, "%s", w);
        snprintf(shift, sizeof shift, "(const float *)%s + %lld", w, (long long)C);
    } else {
        const char *s = wgc_scratch(e);
        snprintf(scale, sizeof scale, "%s", s);
        snprintf(shift, sizeof shift, "(float *)%s + %lld", s, (long long)C);
        wgc_emit(e, "wgk_f32_batchnorm_params(%s, %s, %s, %s, %s, %lld, %s, %s);\n",
                 wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->inputs[2]), wgc_ptr(e, g, n->inputs[3]),
                 wgc_ptr(e, g, n->inputs[4]), wgc_float(e, eps), (long long)C, scale, shift);
    }
    float lo, hi;
    wgc_act_range(n, &lo, &hi);
    wgc_emit(e, "wgk_f32_channel_affine(%s, %s, %s, %s, %s, %lld, %lld, %lld, %s, %s);\n",
             wgc_ptr(e, g, n->inputs[0]), scale, shift,
             n->residual >= 0 ? wgc_ptr(e, g, n->residual) : "0", wgc_ptr(e, g, n->outputs[0]),
             (long long)N, (long long)C, (long long)inner, wgc_float(e, lo), wgc_float(e, hi));
fail:
    free(ab);
    return st;
}

const wgc_op_def wgc_op_batchnorm = {bn_infer, NULL, bn_emit, bn_scratch};
