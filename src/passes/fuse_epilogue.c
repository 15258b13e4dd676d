/*
 * fuse_epilogue.c: Conv -> [Add residual] -> [Relu | Clip | HardSwish] -> [Mul scalar]
 * -> [Add | Sub scalar] becomes one Conv whose kernel applies
 * y = act(conv(x) + b + residual) * scale + shift while the output is still in
 * registers or L1 (Gemm and BatchNormalization: the Relu / Clip only).
 *
 * Conditions: each intermediate result is read only by the next node and is not a graph
 * output; the residual has exactly the Conv output's shape and dtype, and is produced
 * before the Conv runs (moving its read earlier must not read an unwritten tensor).
 */
#include <math.h>

#include "passes.h"

bool wgc_clip_bounds(wgc_graph *g, const wgc_node *c, float *lo, float *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (c->opset < 11) {
        *lo = wgc_attr_float(c, "min", -INFINITY);
        *hi = wgc_attr_float(c, "max", INFINITY);
        return true;
    }
    for (int k = 1; k <= 2; k++) {
        const wgc_tensor *b = wgc_in(g, c, k);
        if (!b)
            continue;
        if (!b->data || b->dtype != WG_DT_FLOAT || wgc_numel(&b->shape) != 1)
            return false;
        *(k == 1 ? lo : hi) = *(const float *)b->data;
    }
    return true;
}

/* The float value of a one-element float constant input k of n, if it is one. */
static bool scalar_const(wgc_graph *g, const wgc_node *n, int k, float *v)
{
    const wgc_tensor *t = wgc_in(g, n, k);
    if (!t || !t->data || t->dtype != WG_DT_FLOAT || wgc_numel(&t->shape) != 1)
        return false;
    *v = *(const float *)t->data;
    return true;
}

/* Conv's output times a scalar constant, then plus (or minus) one, becomes the Conv's
 * post-affine tail (PP-LCNet's learnable affine after each activation): the kernels
 * apply y * scale + shift with the same two roundings as the Mul and Add would. */
static void fuse_affine(wgc_graph *g, wgc_node *cv)
{
    const int y = cv->outputs[0];
    const wgc_shape *ys = &g->tensors[y].shape;
    wgc_node *next = wgc_only_consumer(g, y);
    float v;
    if (next && next->op == WGC_OP_MUL && next->n_inputs == 2 &&
        wgc_shape_eq(&wgc_out(g, next, 0)->shape, ys) &&
        ((next->inputs[0] == y && scalar_const(g, next, 1, &v)) ||
         (next->inputs[1] == y && scalar_const(g, next, 0, &v)))) {
        cv->post_affine = true;
        cv->post_scale = v;
        cv->post_shift = 0.0f;
        wgc_take_output(g, cv, next);
        next = wgc_only_consumer(g, cv->outputs[0]);
    }
    const int z = cv->outputs[0];
    if (next && (next->op == WGC_OP_ADD || next->op == WGC_OP_SUB) && next->n_inputs == 2 &&
        wgc_shape_eq(&wgc_out(g, next, 0)->shape, ys) &&
        ((next->inputs[0] == z && scalar_const(g, next, 1, &v)) ||
         (next->op == WGC_OP_ADD && next->inputs[1] == z && scalar_const(g, next, 0, &v)))) {
        if (!cv->post_affine) {
            cv->post_affine = true;
            cv->post_scale = 1.0f; /* y * 1 is exact */
        }
        cv->post_shift = next->op == WGC_OP_SUB ? -v : v; /* y - v == y + (-v) exactly */
        wgc_take_output(g, cv, next);
    }
}

wg_status wgc_pass_fuse_epilogue(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *cv = &g->nodes[i];
        /* Conv takes a residual and an activation; Gemm and BatchNormalization (their
         * kernels clamp: ResNet v2's pre-activation BN -> Relu) an activation. */
        if (cv->dead ||
            (cv->op != WGC_OP_CONV && cv->op != WGC_OP_GEMM && cv->op != WGC_OP_BATCH_NORM) ||
            cv->n_outputs != 1 ||
            cv->act != WGC_ACT_NONE)
            continue;
        const wgc_tensor *y = wgc_out(g, cv, 0);
        if (!y || y->dtype != WG_DT_FLOAT)
            continue;
        wgc_node *next = wgc_only_consumer(g, cv->outputs[0]);
        /* Sum of two tensors (Caffe2 exports' residual) is the same as Add. */
        if (next && cv->op == WGC_OP_CONV && (next->op == WGC_OP_ADD || next->op == WGC_OP_SUM) && cv->residual < 0 &&
            next->n_inputs == 2) {
            int other = next->inputs[0] == cv->outputs[0] ? next->inputs[1] : next->inputs[0];
            const wgc_tensor *r = &g->tensors[other];
            if (other != cv->outputs[0] && r->dtype == WG_DT_FLOAT && wgc_shape_eq(&r->shape, &y->shape) &&
                r->producer < i && wgc_shape_eq(&wgc_out(g, next, 0)->shape, &y->shape)) {
                cv->residual = other;
                wgc_take_output(g, cv, next);
                next = wgc_only_consumer(g, cv->outputs[0]);
            }
        }
        if (!next)
            continue;
        if (next->op == WGC_OP_HARD_SWISH && cv->op == WGC_OP_CONV) {
            cv->act = WGC_ACT_HARDSWISH;
            wgc_take_output(g, cv, next);
        } else if (next->op == WGC_OP_RELU) {
            cv->act = WGC_ACT_RELU;
            cv->act_min = 0;
            cv->act_max = INFINITY;
            wgc_take_output(g, cv, next);
        } else if (next->op == WGC_OP_CLIP) {
            float lo, hi;
            if (!wgc_clip_bounds(g, next, &lo, &hi))
                continue;
            cv->act = WGC_ACT_CLIP;
            cv->act_min = lo;
            cv->act_max = hi;
            wgc_take_output(g, cv, next);
        }
        if (cv->op == WGC_OP_CONV)
            fuse_affine(g, cv);
    }
    return WG_OK;
}
