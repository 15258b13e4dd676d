/*
 * fuse_bn_output.c: a BatchNormalization (with its fused Relu / Clip) that is the only
 * reader of a 2-D Conv's output moves into the conv's epilogue: the kernel overwrites
 * each finished row of y with z = clamp(y * scale[m] + shift[m]) while it is still in L1
 * (wgk_conv2d_args.y2 == y), instead of a pass of its own that reads y back.
 *
 * The case it is for: ResNet v2's pre-activation BatchNormalization after a residual Add
 * (fuse-epilogue already moved the Add into the conv), which fold-batchnorm cannot fold
 * into the weights. Only where the BatchNormalization is y's one reader (the first block
 * of each stage, the last one): where y also feeds the next residual Add, writing z as a
 * second output from the kernel was measured slower than the separate pass: the convs
 * writing both lost more than the BatchNormalization's own pass saved (docs/performance.md).
 *
 * Conditions: constant parameters, inference form (one output), no residual or
 * post-affine of its own on the BatchNormalization; y float32, not a graph output, read
 * by nothing else; a 2-D Conv, run before it, not already carrying one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../ops/helpers/fused_epilogue.h"
#include "passes.h"

static bool bn_fusable(wgc_graph *g, const wgc_node *bn)
{
    if (bn->dead || bn->op != WGC_OP_BATCH_NORM || bn->n_inputs < 5 || bn->n_outputs < 1 || bn->residual >= 0 ||
        bn->post_affine || bn->act == WGC_ACT_HARDSWISH || wgc_bn_training(bn))
        return false;
    for (int k = 1; k < bn->n_outputs; k++)
        if (bn->outputs[k] >= 0)
            return false;
    const wgc_tensor *x = wgc_in(g, bn, 0);
    if (!x || x->dtype != WG_DT_FLOAT || x->shape.rank != 4)
        return false;
    for (int i = 1; i < 5; i++) {
        const wgc_tensor *p = wgc_in(g, bn, i);
        if (!p || !p->data || p->dtype != WG_DT_FLOAT || wgc_numel(&p->shape) != x->shape.dims[1])
            return false;
    }
    return true;
}

/* The [2][C] constant (scale; shift) of bn (wgc_bn_affine); its index or -1. */
static int affine_const(wgc_graph *g, const wgc_node *bn)
{
    const int64_t C = wgc_in(g, bn, 0)->shape.dims[1];
    float *ab = malloc(2 * sizeof(float) * (size_t)(C > 0 ? C : 1));
    if (!ab)
        return -1;
    wgc_bn_affine(g, bn, C, ab);
    char name[512];
    snprintf(name, sizeof name, "%s/affine", bn->name);
    const int t = wgc_tensor_add(g, name);
    if (t < 0) {
        free(ab);
        return -1;
    }
    const wgc_shape shape = {.rank = 2, .dims = {2, C}};
    wgc_tensor_set_const(g, t, WG_DT_FLOAT, &shape, ab);
    return t;
}

wg_status wgc_pass_fuse_bn_output(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *bn = &g->nodes[i];
        if (!bn_fusable(g, bn))
            continue;
        const int y = bn->inputs[0], z = bn->outputs[0];
        const int p = g->tensors[y].producer;
        if (p < 0 || p >= i)
            continue;
        wgc_node *cv = &g->nodes[p];
        const wgc_tensor *w = wgc_in(g, cv, 1);
        if (cv->dead || cv->op != WGC_OP_CONV || cv->n_outputs != 1 || cv->outputs[0] != y || cv->aux_affine >= 0 ||
            cv->region != bn->region ||
            !w || w->shape.rank != 4 || g->tensors[z].is_input)
            continue;
        if (g->tensors[y].n_uses != 1 || g->tensors[y].is_output)
            continue;
        const int affine = affine_const(g, bn); /* may move g->tensors */
        if (affine < 0)
            return wgc_error(g, bn, WG_ERR_NOMEM, "out of memory");
        cv->outputs[0] = z;
        cv->aux_affine = affine;
        wgc_act_range(bn, &cv->aux_min, &cv->aux_max);
        g->tensors[z].producer = p;
        bn->dead = true;
        wgc_graph_count_uses(g);
    }
    return WG_OK;
}
