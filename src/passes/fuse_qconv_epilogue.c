/*
 * fuse_qconv_epilogue.c: onnxruntime's quantize_dynamic writes every convolution as
 *     DynamicQuantizeLinear(x) -> ConvInteger -> Cast(float) -> Mul(x_scale * w_scale)
 *     -> Add(bias) [-> Relu | Clip] [-> Add(residual)] -> DynamicQuantizeLinear -> ...
 * and each of those float nodes is a pass over the whole activation. Here the chain after
 * the ConvInteger becomes the ConvInteger's float tail (node->qdeq; the kernels apply it
 * as the sums leave their registers, kernels/include/wgk_qdeq.h): the same float32
 * operations in the same order, so the same bits. When a DynamicQuantizeLinear then reads
 * the result, the kernels also keep its minimum and maximum (a second output: one
 * [min, max] pair per thread), and the DynamicQuantizeLinear only quantizes.
 *
 * Conditions: the ConvInteger writes int32 of a fixed shape; each intermediate result is
 * read only by the next node (and is no graph output); the Cast is to float32; the scale
 * is a float32 tensor of one value or one per output channel ([M, 1, ...] or
 * [1, M, 1, ...]) written before the ConvInteger runs; the bias a float32 constant of the
 * same kind; the Clip's bounds constants; the residual a float32 tensor of y's shape
 * written before the ConvInteger runs. Each node's output has y's shape.
 */
#include <math.h>

#include "../ir/symdim.h"
#include "passes.h"

/* t broadcasts along y's channel axis only: one value, or y's M values on the axis that
 * lines up with y's axis 1. */
static bool per_channel(const wgc_tensor *t, const wgc_shape *y)
{
    if (!t || t->dtype != WG_DT_FLOAT || !t->has_shape || wgc_shape_is_sym(&t->shape) || t->shape.rank > y->rank)
        return false;
    if (wgc_numel(&t->shape) == 1)
        return true;
    const int ax = t->shape.rank - (y->rank - 1);
    if (ax < 0 || wgc_numel(&t->shape) != y->dims[1])
        return false;
    for (int i = 0; i < t->shape.rank; i++)
        if (i != ax && t->shape.dims[i] != 1)
            return false;
    return true;
}

/* The other input of binary node b besides tensor t, when b is op `op` over (t, other)
 * or (other, t) with an output of shape y; else -1. */
static int other_input(const wgc_graph *g, const wgc_node *b, wgc_op op, int t, const wgc_shape *y)
{
    if (!b || b->op != op || b->n_inputs != 2 || b->n_outputs != 1 || b->outputs[0] < 0)
        return -1;
    const wgc_tensor *o = &g->tensors[b->outputs[0]];
    if (o->dtype != WG_DT_FLOAT || !wgc_shape_eq(&o->shape, y))
        return -1;
    if (b->inputs[0] == t && b->inputs[1] != t)
        return b->inputs[1];
    if (b->inputs[1] == t && b->inputs[0] != t)
        return b->inputs[0];
    return -1;
}

/* Tensor t is written before node i runs (or is a constant or graph input). */
static bool written_before(const wgc_graph *g, int t, int i)
{
    return t >= 0 && g->tensors[t].producer < i;
}

/* The Cast and Mul that must follow ConvInteger node i (y its int32 output); the scale's
 * tensor, or -1 when they do not. */
static int cast_and_scale(wgc_graph *g, int i, wgc_node **cast, wgc_node **mul)
{
    const wgc_node *cv = &g->nodes[i];
    const wgc_shape *y = &g->tensors[cv->outputs[0]].shape;
    wgc_node *c = wgc_only_consumer(g, cv->outputs[0]);
    if (!c || c->op != WGC_OP_CAST || c->n_outputs != 1 || wgc_attr_int(c, "to", 0) != WG_DT_FLOAT ||
        c->outputs[0] < 0 || !wgc_shape_eq(&g->tensors[c->outputs[0]].shape, y))
        return -1;
    wgc_node *m = wgc_only_consumer(g, c->outputs[0]);
    const int s = other_input(g, m, WGC_OP_MUL, c->outputs[0], y);
    if (s < 0 || !per_channel(&g->tensors[s], y) || !written_before(g, s, i))
        return -1;
    *cast = c;
    *mul = m;
    return s;
}

/* The DynamicQuantizeLinear reading y (the fused output of node i) in i's body, or NULL. */
static wgc_node *range_reader(wgc_graph *g, int i, int y)
{
    for (int j = i + 1; j < g->n_nodes; j++) {
        wgc_node *d = &g->nodes[j];
        if (!d->dead && d->op == WGC_OP_DYNAMIC_QUANTIZE_LINEAR && d->n_inputs == 1 && d->inputs[0] == y &&
            d->region == g->nodes[i].region)
            return d;
    }
    return NULL;
}

/* Node i's kernels keep y's range for its DynamicQuantizeLinear: a float32 [2 threads]
 * tensor as its output 1 and the reader's input 1. */
static void keep_range(wgc_graph *g, int i, int threads)
{
    wgc_node *cv = &g->nodes[i];
    wgc_node *d = range_reader(g, i, cv->outputs[0]);
    if (!d)
        return;
    const int r = wgc_tensor_add_derived(g, g->tensors[cv->outputs[0]].name, "_range");
    if (r < 0)
        return; /* out of memory: the DynamicQuantizeLinear scans y itself */
    cv = &g->nodes[i];
    const wgc_shape s = {.rank = 1, .dims = {2 * (threads > 0 ? threads : 1)}};
    g->tensors[r].dtype = WG_DT_FLOAT;
    g->tensors[r].shape = s;
    g->tensors[r].has_shape = true;
    g->tensors[r].producer = i;
    const int outs[2] = {cv->outputs[0], r}, ins[2] = {d->inputs[0], r};
    if (wgc_node_set_outputs(g, cv, outs, 2) || wgc_node_set_inputs(g, d, ins, 2)) {
        wgc_node_set_outputs(g, cv, outs, 1);
        return;
    }
    wgc_graph_count_uses(g);
}

/* ConvInteger node i with its float tail, when the chain is there (see the top). */
static void fuse(wgc_graph *g, int i, int threads)
{
    wgc_node *cv = &g->nodes[i], *cast = NULL, *mul = NULL;
    if (cv->n_outputs != 1 || cv->n_inputs > 4 || cv->qdeq || cv->outputs[0] < 0)
        return;
    const wgc_tensor *yt = &g->tensors[cv->outputs[0]];
    if (yt->dtype != WG_DT_INT32 || !yt->has_shape || wgc_shape_is_sym(&yt->shape) || yt->shape.rank < 3)
        return;
    const wgc_shape y = yt->shape;
    const int s = cast_and_scale(g, i, &cast, &mul);
    if (s < 0)
        return;
    int in[7] = {-1, -1, -1, -1, s, -1, -1};
    for (int k = 0; k < cv->n_inputs; k++)
        in[k] = cv->inputs[k];
    if (wgc_node_set_inputs(g, cv, in, 7))
        return;
    cv->qdeq = true;
    wgc_take_output(g, cv, cast);
    wgc_take_output(g, cv, mul);
    wgc_node *next = wgc_only_consumer(g, cv->outputs[0]);
    const int b = other_input(g, next, WGC_OP_ADD, cv->outputs[0], &y);
    if (b >= 0 && g->tensors[b].data && per_channel(&g->tensors[b], &y)) {
        cv->inputs[5] = b;
        wgc_take_output(g, cv, next);
        next = wgc_only_consumer(g, cv->outputs[0]);
    }
    float lo, hi;
    if (next && next->op == WGC_OP_RELU && next->n_outputs == 1) {
        cv->act = WGC_ACT_RELU;
        cv->act_min = 0.0f;
        cv->act_max = INFINITY;
        wgc_take_output(g, cv, next);
        next = wgc_only_consumer(g, cv->outputs[0]);
    } else if (next && next->op == WGC_OP_CLIP && next->n_outputs == 1 && wgc_clip_bounds(g, next, &lo, &hi)) {
        cv->act = WGC_ACT_CLIP;
        cv->act_min = lo;
        cv->act_max = hi;
        wgc_take_output(g, cv, next);
        next = wgc_only_consumer(g, cv->outputs[0]);
    }
    const int r = other_input(g, next, WGC_OP_ADD, cv->outputs[0], &y);
    if (r >= 0 && g->tensors[r].dtype == WG_DT_FLOAT && wgc_shape_eq(&g->tensors[r].shape, &y) &&
        written_before(g, r, i)) {
        cv->inputs[6] = r;
        wgc_take_output(g, cv, next);
    }
    keep_range(g, i, threads);
}

wg_status wgc_pass_fuse_qconv_epilogue(wgc_graph *g, const wgc_pass_options *opt)
{
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == WGC_OP_CONV_INTEGER)
            fuse(g, i, opt->threads);
    return WG_OK;
}
