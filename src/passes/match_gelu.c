/*
 * match_gelu.c: the decomposed GELUs that exporters write become one Gelu node (opset 20
 * semantics): one SIMD pass over the tensor instead of five or eight, and a node that
 * fuse_matmul_epilogue.c can move into the preceding MatMul.
 *
 *   erf form (torch's gelu before opset 20: BERT, ViT, Whisper, ConvNeXt, Swin):
 *       Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5)
 *   tanh form (GPT-2's "gelu_new"), approximate = "tanh":
 *       Mul(Mul(x, 0.5), Add(Tanh(Mul(Add(x, Mul(Pow(x, 3), 0.044715)), sqrt(2/pi))), 1))
 *
 * with either operand order of every Add and Mul, Div(x, sqrt 2) also as Mul(x, 1/sqrt 2),
 * and the 0.5 applied first or last. Gelu computes the same function; its kernels
 * (kernels/math/f32-vgelu.c) differ from the chain by a few roundings (erf within 2.3
 * ulp): far inside rtol 1e-4. Applies when every intermediate result feeds only the next
 * node of the chain and is no graph output, every tensor is float32 of x's shape, and the
 * constants are float32 scalars of those values (sqrt 2, sqrt(2/pi) and 0.044715 as the
 * exporters round them to float32, or to float16 in a float16 model).
 */
#include <math.h>
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

/* Whether float32 v is want rounded to float32 (within one float32 ulp), or, in a float16
 * model (widened to float32 by lower_fp16.c), want rounded to float16: such a model's
 * GELU divides by 1.4140625, and the exact constant is closer to what it means than
 * float16's own rounding of every intermediate result. */
static bool near(const wgc_graph *g, float v, double want)
{
    if (g->fp16_weights && v == wg_f16_to_f32(wg_f32_to_f16((float)want)))
        return true;
    return fabs((double)v - want) <= fabs(want) * 1.2e-7;
}

/* wgc_sole_float_producer's node, with the inputs of its op (one for Erf and Tanh, else two). */
static wgc_node *sole_producer(wgc_graph *g, int t, wgc_op op)
{
    wgc_node *n = wgc_sole_float_producer(g, t, op);
    return n && n->n_inputs == 2 - (op == WGC_OP_ERF || op == WGC_OP_TANH) ? n : NULL;
}

/* For a two-input node: the input that is not the float constant c (within near()), or
 * -1. */
static int other_than(wgc_graph *g, const wgc_node *n, double c)
{
    float v;
    for (int i = 0; i < 2; i++)
        if (scalar(wgc_in(g, n, 1 - i), &v) && near(g, v, c))
            return n->inputs[i];
    return -1;
}

#define MAX_CHAIN 8

typedef struct chain {
    wgc_node *n[MAX_CHAIN];
    int len;
} chain;

static wgc_node *keep(chain *c, wgc_node *n)
{
    if (n)
        c->n[c->len++] = n;
    return n;
}

/* x when t is Erf(x / sqrt 2) (Div or Mul by 1/sqrt 2); -1 otherwise. */
static int erf_arg(wgc_graph *g, int t, chain *c)
{
    wgc_node *e = keep(c, sole_producer(g, t, WGC_OP_ERF));
    if (!e)
        return -1;
    wgc_node *d = keep(c, sole_producer(g, e->inputs[0], WGC_OP_DIV));
    if (d) {
        float v;
        return scalar(wgc_in(g, d, 1), &v) && near(g, v, 1.4142135623730951) ? d->inputs[0] : -1;
    }
    wgc_node *m = keep(c, sole_producer(g, e->inputs[0], WGC_OP_MUL));
    return m ? other_than(g, m, 0.70710678118654752) : -1;
}

/* x when t is Tanh(sqrt(2/pi) (x + 0.044715 Pow(x, 3))); -1 otherwise. */
static int tanh_arg(wgc_graph *g, int t, chain *c)
{
    wgc_node *th = keep(c, sole_producer(g, t, WGC_OP_TANH));
    wgc_node *s = th ? keep(c, sole_producer(g, th->inputs[0], WGC_OP_MUL)) : NULL;
    const int u = s ? other_than(g, s, 0.79788456080286536) : -1;
    wgc_node *add = keep(c, sole_producer(g, u, WGC_OP_ADD));
    if (!add)
        return -1;
    for (int side = 0; side < 2; side++) {
        const int len = c->len;
        wgc_node *p = keep(c, sole_producer(g, add->inputs[side], WGC_OP_MUL));
        wgc_node *pw = p ? keep(c, sole_producer(g, other_than(g, p, 0.044715), WGC_OP_POW)) : NULL;
        float three;
        if (pw && scalar(wgc_in(g, pw, 1), &three) && three == 3.0f && pw->inputs[0] == add->inputs[1 - side])
            return pw->inputs[0];
        c->len = len;
    }
    return -1;
}

/* x and the form (1 erf, 2 tanh) when t is Add(Erf(...) | Tanh(...), 1); -1 otherwise. */
static int one_plus(wgc_graph *g, int t, chain *c, int *form)
{
    wgc_node *a = keep(c, sole_producer(g, t, WGC_OP_ADD));
    const int f = a ? other_than(g, a, 1.0) : -1;
    if (f < 0)
        return -1;
    const int len = c->len;
    int x = erf_arg(g, f, c);
    *form = 1;
    if (x < 0) {
        c->len = len;
        x = tanh_arg(g, f, c);
        *form = 2;
    }
    return x;
}

/* Turns node last (the chain's end) into Gelu(x) and kills the rest of the chain. */
static bool rewrite(wgc_graph *g, wgc_node *last, int x, const chain *c, int form)
{
    if (g->tensors[x].dtype != WG_DT_FLOAT || !wgc_shape_eq(&g->tensors[x].shape, &wgc_out(g, last, 0)->shape))
        return false;
    char *type = malloc(sizeof "Gelu");
    if (!type)
        return false; /* leave the chain as it is: still correct */
    if (form == 2) {
        char *s = malloc(sizeof "tanh");
        wgc_attr *a = s ? wgc_attr_add(g, (int)(last - g->nodes), "approximate", WGC_ATTR_STRING) : NULL;
        if (!a) {
            free(type);
            free(s);
            return false;
        }
        memcpy(s, "tanh", sizeof "tanh");
        a->s = s;
        a->s_len = 4;
    }
    memcpy(type, "Gelu", sizeof "Gelu");
    free(last->op_type);
    last->op_type = type;
    last->op = WGC_OP_GELU;
    last->opset = 20;
    last->inputs[0] = x;
    last->n_inputs = 1;
    for (int i = 0; i < c->len; i++)
        c->n[i]->dead = true;
    return true;
}

/* The chain ending at Mul node mul: Mul(Mul(x, inner), 0.5) or Mul(Mul(x, 0.5), inner),
 * inner = Add(Erf(...) | Tanh(...), 1). */
static bool match(wgc_graph *g, wgc_node *mul)
{
    if (mul->n_inputs != 2 || mul->n_outputs != 1)
        return false;
    int form;
    /* Mul(Mul(x, inner), 0.5) */
    const int m1 = other_than(g, mul, 0.5);
    wgc_node *inner_mul = sole_producer(g, m1, WGC_OP_MUL);
    if (inner_mul) {
        for (int side = 0; side < 2; side++) {
            chain c = {.n = {inner_mul}, .len = 1};
            const int x = one_plus(g, inner_mul->inputs[side], &c, &form);
            if (x >= 0 && x == inner_mul->inputs[1 - side])
                return rewrite(g, mul, x, &c, form);
        }
    }
    /* Mul(Mul(x, 0.5), inner) */
    for (int side = 0; side < 2; side++) {
        wgc_node *half = sole_producer(g, mul->inputs[side], WGC_OP_MUL);
        const int x0 = half ? other_than(g, half, 0.5) : -1;
        if (x0 < 0)
            continue;
        chain c = {.n = {half}, .len = 1};
        const int x = one_plus(g, mul->inputs[1 - side], &c, &form);
        if (x >= 0 && x == x0)
            return rewrite(g, mul, x, &c, form);
    }
    return false;
}

wg_status wgc_pass_match_gelu(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (!n->dead && n->op == WGC_OP_MUL && match(g, n))
            wgc_graph_count_uses(g); /* the chain's reads are gone */
    }
    return WG_OK;
}
