/*
 * fold_batchnorm.c: per-channel affine maps after a Conv folded into its weights:
 *   BatchNormalization(Conv(x, W, b))   a = scale / sqrt(var + eps), t = beta - mean * a
 *   Mul(Conv(x, W, b), s)               a = s, t = 0
 *   Add(Conv(x, W, b), s) / Sub(.., s)  a = 1, t = s / -s
 * become Conv(x, W', b') with W'[co] = W[co] * a[co] and b' = b * a + t. The scale-and-
 * shift pairs after every convolution of PP-LCNet (PP-OCR) are of the Mul/Add kind.
 * Applies when the Conv's weights and the parameters are float32 constants, s is a
 * scalar or one value per output channel ([M,1,1], [1,M,1,1]), and the Conv output feeds
 * only that node. New constant tensors are made (the original weights may be shared or
 * live in the read-only mapped file). Arithmetic in double, rounded once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ops/op.h"
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

/* Replaces cv's weight and bias by W * a[co] and b * a[co] + t[co] (a, t: co values;
 * takes them), and makes cv write node nd's output instead of its own; nd dies. */
static wg_status fold_into_conv(wgc_graph *g, wgc_node *cv, wgc_node *nd, double *a, double *t)
{
    wg_status st = WG_OK;
    const wgc_tensor *w = wgc_in(g, cv, 1), *b = wgc_in(g, cv, 2);
    const int64_t co = w->shape.dims[0], per = wgc_numel(&w->shape) / co;
    float *nw = malloc(sizeof(float) * (size_t)(co * per));
    float *nb = malloc(sizeof(float) * (size_t)co);
    if (!nw || !nb) {
        free(nw);
        free(nb);
        st = wgc_error(g, cv, WG_ERR_NOMEM, "out of memory folding %s into the Conv", nd->op_type);
        goto done;
    }
    const float *W = w->data, *B = b ? b->data : NULL;
    for (int64_t c = 0; c < co; c++) {
        for (int64_t k = 0; k < per; k++)
            nw[c * per + k] = (float)((double)W[c * per + k] * a[c]);
        nb[c] = (float)((B ? (double)B[c] : 0.0) * a[c] + t[c]);
    }
    wgc_shape bshape = {.rank = 1, .dims = {co}};
    wgc_shape wshape = w->shape;
    char base[400];
    snprintf(base, sizeof base, "%s", nd->name);
    int tw = add_const(g, base, "/folded_weight", &wshape, nw);
    int tb = tw < 0 ? -1 : add_const(g, base, "/folded_bias", &bshape, nb);
    if (tw < 0 || tb < 0) {
        if (tw < 0)
            free(nb);
        st = wgc_error(g, cv, WG_ERR_NOMEM, "out of memory folding %s into the Conv", nd->op_type);
        goto done;
    }
    if (cv->n_inputs < 3) {
        int *ni = realloc(cv->inputs, 3 * sizeof(int));
        if (!ni) {
            st = wgc_error(g, cv, WG_ERR_NOMEM, "out of memory folding %s into the Conv", nd->op_type);
            goto done;
        }
        cv->inputs = ni;
        cv->n_inputs = 3;
    }
    cv->inputs[1] = tw;
    cv->inputs[2] = tb;
    cv->outputs[0] = nd->outputs[0];
    g->tensors[nd->outputs[0]].producer = (int)(cv - g->nodes);
    nd->dead = true;
done:
    free(a);
    free(t);
    return st;
}

/* a and t of a BatchNormalization after cv; false when it does not apply. */
static bool bn_affine(wgc_graph *g, const wgc_node *bn, int64_t co, double *a, double *t)
{
    const wgc_tensor *sc = wgc_in(g, bn, 1), *be = wgc_in(g, bn, 2), *mu = wgc_in(g, bn, 3),
                     *va = wgc_in(g, bn, 4);
    if (!is_f32_const(sc) || !is_f32_const(be) || !is_f32_const(mu) || !is_f32_const(va) ||
        wgc_numel(&sc->shape) != co || wgc_numel(&be->shape) != co ||
        wgc_numel(&mu->shape) != co || wgc_numel(&va->shape) != co)
        return false;
    const double eps = wgc_attr_float(bn, "epsilon", 1e-5f);
    const float *S = sc->data, *Be = be->data, *M = mu->data, *V = va->data;
    for (int64_t c = 0; c < co; c++) {
        a[c] = (double)S[c] / sqrt((double)V[c] + eps);
        t[c] = (double)Be[c] - (double)M[c] * a[c];
    }
    return true;
}

/* a and t of Mul/Add/Sub(conv output y, constant s) after cv (y is input yi of nd). The
 * constant must hold one value, or one per channel laid out along axis 1 of y's 4-D (or
 * rank-3 [M,1,1]) broadcast, and nd's output must have y's shape. */
static bool elementwise_affine(wgc_graph *g, const wgc_node *nd, int yi, int64_t co, double *a,
                               double *t)
{
    const wgc_tensor *y = wgc_in(g, nd, yi), *sv = wgc_in(g, nd, 1 - yi), *z = wgc_out(g, nd, 0);
    if (!is_f32_const(sv) || !z || !wgc_shape_eq(&z->shape, &y->shape) || y->shape.rank < 2 ||
        (nd->op == WGC_OP_SUB && yi != 0))
        return false;
    const int64_t n = wgc_numel(&sv->shape);
    if (n != 1) {
        /* [.., M, 1, .., 1] with the M at y's channel axis (1) once right-aligned. */
        const int r = sv->shape.rank, off = y->shape.rank - r;
        if (n != co || off < 0 || off > 1)
            return false;
        for (int i = 0; i < r; i++)
            if (sv->shape.dims[i] != (i + off == 1 ? co : 1))
                return false;
    }
    const float *S = sv->data;
    for (int64_t c = 0; c < co; c++) {
        const double v = S[n == 1 ? 0 : c];
        a[c] = nd->op == WGC_OP_MUL ? v : 1.0;
        t[c] = nd->op == WGC_OP_ADD ? v : nd->op == WGC_OP_SUB ? -v : 0.0;
    }
    return true;
}

/* The Conv that node nd (BN, Mul, Add or Sub) may fold into, through input *yi; NULL if none. */
static wgc_node *conv_before(wgc_graph *g, const wgc_node *nd, int *yi)
{
    const int n_in = nd->op == WGC_OP_BATCH_NORM ? 1 : 2;
    /* a BatchNormalization in training mode normalizes by its batch's statistics */
    if (nd->n_outputs != 1 || (nd->op == WGC_OP_BATCH_NORM && (nd->n_inputs < 5 || wgc_bn_training(nd))) ||
        (nd->op != WGC_OP_BATCH_NORM && nd->n_inputs != 2))
        return NULL;
    for (int i = 0; i < n_in; i++) {
        const wgc_tensor *x = wgc_in(g, nd, i);
        if (!x || x->producer < 0 || x->n_uses != 1 || x->is_output || x->dtype != WG_DT_FLOAT)
            continue;
        wgc_node *cv = &g->nodes[x->producer];
        const wgc_tensor *w = cv->op == WGC_OP_CONV ? wgc_in(g, cv, 1) : NULL, *b = wgc_in(g, cv, 2);
        if (cv->dead || cv->op != WGC_OP_CONV || cv->act != WGC_ACT_NONE || cv->residual >= 0 ||
            cv->region != nd->region ||
            cv->n_outputs != 1 || !is_f32_const(w) || (b && !is_f32_const(b)) ||
            w->shape.rank < 3 || w->shape.dims[0] <= 0)
            continue;
        *yi = i;
        return cv;
    }
    return NULL;
}

wg_status wgc_pass_fold_batchnorm(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *nd = &g->nodes[i];
        if (nd->dead || (nd->op != WGC_OP_BATCH_NORM && nd->op != WGC_OP_MUL &&
                         nd->op != WGC_OP_ADD && nd->op != WGC_OP_SUB))
            continue;
        int yi;
        wgc_node *cv = conv_before(g, nd, &yi);
        if (!cv)
            continue;
        const int64_t co = wgc_in(g, cv, 1)->shape.dims[0];
        double *a = malloc(sizeof(double) * (size_t)co), *t = malloc(sizeof(double) * (size_t)co);
        if (!a || !t) {
            free(a);
            free(t);
            return wgc_error(g, nd, WG_ERR_NOMEM, "out of memory");
        }
        bool ok = nd->op == WGC_OP_BATCH_NORM ? bn_affine(g, nd, co, a, t)
                                              : elementwise_affine(g, nd, yi, co, a, t);
        if (!ok) {
            free(a);
            free(t);
            continue;
        }
        wg_status st = fold_into_conv(g, cv, nd, a, t); /* takes a and t */
        if (st)
            return st;
    }
    wgc_graph_count_uses(g);
    return WG_OK;
}
