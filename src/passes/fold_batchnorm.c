/*
 * fold_batchnorm.c: BatchNormalization(Conv(x, W, b)) -> Conv(x, W', b').
 *
 * With a = scale / sqrt(var + eps):  W'[co] = W[co] * a[co],  b' = (b - mean) * a + beta.
 * Applies when the Conv's weights and the BN's parameters are float32 constants and the
 * Conv output feeds only the BN. New constant tensors are made (the original weights may
 * be shared or live in the read-only mapped file). Arithmetic in double, rounded once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static bool is_f32_const(const wgc_tensor *t)
{
    return t && t->data && t->dtype == WG_DT_FLOAT;
}

static int add_const(wgc_graph *g, const char *base, const char *suffix, const wgc_shape *s, float *data)
{
    char name[512];
    snprintf(name, sizeof name, "%s%s", base, suffix);
    int t = wgc_tensor_add(g, name);
    if (t < 0) {
        free(data);
        return -1;
    }
    wgc_tensor_set_const(g, t, WG_DT_FLOAT, s, data);
    return t;
}

/* Folds BN node bn into Conv node cv; WG_OK also when it does not apply (nothing changed). */
static wg_status fold_into_conv(wgc_graph *g, wgc_node *cv, wgc_node *bn)
{
    const wgc_tensor *w = wgc_in(g, cv, 0 + 1), *b = wgc_in(g, cv, 2);
    const wgc_tensor *sc = wgc_in(g, bn, 1), *be = wgc_in(g, bn, 2), *mu = wgc_in(g, bn, 3),
                     *va = wgc_in(g, bn, 4);
    if (!is_f32_const(w) || (b && !is_f32_const(b)) || !is_f32_const(sc) || !is_f32_const(be) ||
        !is_f32_const(mu) || !is_f32_const(va))
        return WG_OK;
    int64_t co = w->shape.dims[0];
    if (wgc_numel(&sc->shape) != co || wgc_numel(&be->shape) != co || wgc_numel(&mu->shape) != co ||
        wgc_numel(&va->shape) != co)
        return WG_OK;
    int64_t per = wgc_numel(&w->shape) / co;
    double eps = wgc_attr_float(bn, "epsilon", 1e-5f);
    float *nw = malloc(sizeof(float) * (size_t)(co * per));
    float *nb = malloc(sizeof(float) * (size_t)co);
    if (!nw || !nb) {
        free(nw);
        free(nb);
        return wgc_error(g, cv, WG_ERR_NOMEM, "out of memory folding BatchNormalization");
    }
    const float *W = w->data, *S = sc->data, *Be = be->data, *M = mu->data, *V = va->data;
    const float *B = b ? b->data : NULL;
    for (int64_t c = 0; c < co; c++) {
        double a = (double)S[c] / sqrt((double)V[c] + eps);
        for (int64_t k = 0; k < per; k++)
            nw[c * per + k] = (float)((double)W[c * per + k] * a);
        nb[c] = (float)(((B ? (double)B[c] : 0.0) - (double)M[c]) * a + (double)Be[c]);
    }
    wgc_shape bshape = {.rank = 1, .dims = {co}};
    wgc_shape wshape = w->shape;
    char base[400];
    snprintf(base, sizeof base, "%s", cv->name);
    int tw = add_const(g, base, "/bn_folded_weight", &wshape, nw);
    int tb = tw < 0 ? -1 : add_const(g, base, "/bn_folded_bias", &bshape, nb);
    if (tw < 0 || tb < 0) {
        if (tw < 0)
            free(nb);
        return wgc_error(g, cv, WG_ERR_NOMEM, "out of memory folding BatchNormalization");
    }
    if (cv->n_inputs < 3) {
        int *ni = realloc(cv->inputs, 3 * sizeof(int));
        if (!ni)
            return wgc_error(g, cv, WG_ERR_NOMEM, "out of memory folding BatchNormalization");
        cv->inputs = ni;
        cv->n_inputs = 3;
    }
    cv->inputs[1] = tw;
    cv->inputs[2] = tb;
    cv->outputs[0] = bn->outputs[0];
    g->tensors[bn->outputs[0]].producer = (int)(cv - g->nodes);
    bn->dead = true;
    return WG_OK;
}

wg_status wgc_pass_fold_batchnorm(wgc_graph *g, const wgc_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *bn = &g->nodes[i];
        if (bn->dead || bn->op != WGC_OP_BATCH_NORM || bn->n_inputs < 5)
            continue;
        if (bn->n_outputs > 1)
            continue; /* training-mode outputs: left for the op to reject */
        const wgc_tensor *x = wgc_in(g, bn, 0);
        if (!x || x->producer < 0 || x->n_uses != 1 || x->is_output)
            continue;
        wgc_node *cv = &g->nodes[x->producer];
        if (cv->dead || cv->op != WGC_OP_CONV || cv->act != WGC_ACT_NONE || cv->residual >= 0)
            continue;
        wg_status st = fold_into_conv(g, cv, bn);
        if (st)
            return st;
    }
    wgc_graph_count_uses(g);
    return WG_OK;
}
