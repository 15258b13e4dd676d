/*
 * match_hardswish.c: the decomposed hard-swish that exporters write (PaddlePaddle's
 * paddle2onnx for PP-OCR, some PyTorch exports),
 *     Mul(x, Div(Clip(Add(x, 3), 0, 6), 6))  or  Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)
 * (either operand order of Add and Mul) becomes one HardSwish(x) node: one pass over the tensor instead of four. HardSwish
 * computes x * clamp(x / 6 + 0.5, 0, 1), which differs from the chain by rounding only.
 * Applies when the three intermediate results feed only the next node of the chain and
 * are no graph outputs, every tensor is float32, the constants are float32 scalars, and
 * the Clip bounds are 0 and 6 (inputs or opset-6 attributes).
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* The value of a float32 constant holding one element; false if t is anything else. */
static bool scalar(const wgc_tensor *t, float *v)
{
    if (!t || !t->data || t->dtype != WG_DT_FLOAT || wgc_numel(&t->shape) != 1)
        return false;
    *v = *(const float *)t->data;
    return true;
}

/* wgc_sole_float_producer's node when it is in consumer's body (ir.h wgc_body). */
static wgc_node *sole_producer(wgc_graph *g, const wgc_node *consumer, int t, wgc_op op)
{
    wgc_node *n = wgc_sole_float_producer(g, t, op);
    return n && n->region == consumer->region ? n : NULL;
}

static bool clip_is_0_6(wgc_graph *g, const wgc_node *clip)
{
    float lo, hi;
    if (clip->n_inputs >= 3) /* opset 11+: bounds are inputs */
        return scalar(wgc_in(g, clip, 1), &lo) && lo == 0.0f && scalar(wgc_in(g, clip, 2), &hi) &&
               hi == 6.0f;
    if (clip->n_inputs != 1)
        return false;
    return wgc_attr_float(clip, "min", -1.0f) == 0.0f && wgc_attr_float(clip, "max", -1.0f) == 6.0f;
}

/* x if add is Add(x, 3) or Add(3, x); -1 otherwise. */
static int add3_operand(wgc_graph *g, const wgc_node *add)
{
    float v;
    if (add->n_inputs != 2)
        return -1;
    for (int i = 0; i < 2; i++)
        if (scalar(wgc_in(g, add, 1 - i), &v) && v == 3.0f)
            return add->inputs[i];
    return -1;
}

/* x when clip is Clip(Add(x, 3), 0, 6) with a sole-use Add; -1 otherwise. */
static int clipped_operand(wgc_graph *g, const wgc_node *clip, wgc_node **add)
{
    if (!clip || !clip_is_0_6(g, clip))
        return -1;
    *add = sole_producer(g, clip, clip->inputs[0], WGC_OP_ADD);
    return *add ? add3_operand(g, *add) : -1;
}

/* Turns node last (the chain's end) into HardSwish(x) and kills the other three. */
static bool rewrite(wgc_graph *g, wgc_node *last, int x, wgc_node *a, wgc_node *b, wgc_node *c)
{
    if (g->tensors[x].dtype != WG_DT_FLOAT || !wgc_shape_eq(&g->tensors[x].shape, &wgc_out(g, last, 0)->shape))
        return false;
    char *type = malloc(sizeof "HardSwish");
    if (!type)
        return false; /* leave the chain as it is: still correct */
    memcpy(type, "HardSwish", sizeof "HardSwish");
    free(last->op_type);
    last->op_type = type;
    last->op = WGC_OP_HARD_SWISH;
    last->inputs[0] = x;
    last->n_inputs = 1;
    a->dead = b->dead = c->dead = true;
    return true;
}

/* Mul(x, Div(Clip(Add(x, 3), 0, 6), 6)) ending at Mul node mul. */
static bool match_mul_last(wgc_graph *g, wgc_node *mul)
{
    if (mul->n_inputs != 2 || mul->n_outputs != 1)
        return false;
    for (int side = 0; side < 2; side++) {
        wgc_node *div = sole_producer(g, mul, mul->inputs[side], WGC_OP_DIV), *add = NULL;
        float six;
        if (!div || div->n_inputs != 2 || !scalar(wgc_in(g, div, 1), &six) || six != 6.0f)
            continue;
        wgc_node *clip = sole_producer(g, div, div->inputs[0], WGC_OP_CLIP);
        const int x = clipped_operand(g, clip, &add);
        if (x >= 0 && x == mul->inputs[1 - side] && rewrite(g, mul, x, div, clip, add))
            return true;
    }
    return false;
}

/* Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6) ending at Div node div. */
static bool match_div_last(wgc_graph *g, wgc_node *div)
{
    float six;
    if (div->n_inputs != 2 || div->n_outputs != 1 || !scalar(wgc_in(g, div, 1), &six) || six != 6.0f)
        return false;
    wgc_node *mul = sole_producer(g, div, div->inputs[0], WGC_OP_MUL);
    if (!mul || mul->n_inputs != 2)
        return false;
    for (int side = 0; side < 2; side++) {
        wgc_node *add = NULL;
        const int x = clipped_operand(g, sole_producer(g, mul, mul->inputs[side], WGC_OP_CLIP), &add);
        if (x >= 0 && x == mul->inputs[1 - side] &&
            rewrite(g, div, x, mul, &g->nodes[g->tensors[mul->inputs[side]].producer], add))
            return true;
    }
    return false;
}

wg_status wgc_pass_match_hardswish(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    bool changed = false;
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (!n->dead && n->op == WGC_OP_MUL)
            changed |= match_mul_last(g, n);
        else if (!n->dead && n->op == WGC_OP_DIV)
            changed |= match_div_last(g, n);
    }
    if (changed)
        wgc_graph_count_uses(g);
    return WG_OK;
}
