/*
 * fuse_matmul_epilogue.c: a transformer's linear layer, MatMul(x, W) with a constant 2-D
 * W, -> [Add(., b) with a constant bias of W's N columns] -> [Gelu | Add(., residual)],
 * becomes one MatMul whose packed-B kernel (wgk_f32_gemm_pb) adds the bias and the
 * residual while each tile is in registers and applies the GELU to each block of rows
 * while it is in cache: no pass over the [tokens x N] result per Add or activation
 * (BERT-base at 128 tokens: 3 of them per layer over 128 x 3072 floats).
 *
 * The kernel computes (x W + b) + residual, in that order, as the Adds did. Conditions:
 * each intermediate result is read only by the next node and is not a graph output;
 * the bias is a float32 constant with N elements, all its dims but the last 1; the
 * residual has the result's shape and dtype and is produced before the MatMul runs (its
 * read moves earlier); a Gelu (match_gelu.c writes the decomposed ones as Gelu) follows
 * the bias, never the residual (GELU(x W + b + r) is not what such a graph computes).
 *
 * A Gemm with a constant B and no transA (also the packed-B kernel; its bias is its C)
 * takes a Gelu that follows it directly or through a Reshape (GPT-2's dynamo export:
 * Gemm -> Reshape -> Gelu): the Reshape then moves the activated values, which is the
 * same since the Gelu is elementwise.
 */
#include <string.h>

#include "../ir/symdim.h"
#include "passes.h"

/* The constant B of mm if it is a float32 matrix (the packed-B kernel's operand). */
static const wgc_tensor *const_matrix(wgc_graph *g, const wgc_node *mm)
{
    const wgc_tensor *b = mm->n_inputs == 2 ? wgc_in(g, mm, 1) : NULL;
    return b && b->data && b->dtype == WG_DT_FLOAT && b->shape.rank == 2 ? b : NULL;
}

/* The operand of the two-input node add other than tensor y, or -1. */
static int other_operand(const wgc_node *add, int y)
{
    if (add->n_inputs != 2 || add->n_outputs != 1)
        return -1;
    return add->inputs[0] == y ? add->inputs[1] : add->inputs[1] == y ? add->inputs[0] : -1;
}

/* Whether t is a float32 constant of N elements along its last dim (a per-column bias). */
static bool column_bias(const wgc_tensor *t, int64_t N)
{
    if (!t->data || t->dtype != WG_DT_FLOAT || t->shape.rank < 1 || t->shape.dims[t->shape.rank - 1] != N)
        return false;
    return wgc_numel(&t->shape) == N;
}

static wgc_act gelu_act(const wgc_node *n);

static void fuse(wgc_graph *g, wgc_node *mm)
{
    const int i = (int)(mm - g->nodes);
    const wgc_tensor *b = const_matrix(g, mm);
    const wgc_tensor *y = wgc_out(g, mm, 0);
    if (!b || !y || y->dtype != WG_DT_FLOAT || y->shape.rank < 1)
        return;
    const wgc_shape ys = y->shape;
    const int64_t N = b->shape.dims[1];
    wgc_node *next = wgc_only_consumer(g, mm->outputs[0]);
    if (next && next->op == WGC_OP_ADD) {
        const int t = other_operand(next, mm->outputs[0]);
        if (t >= 0 && t != mm->outputs[0] && column_bias(&g->tensors[t], N) &&
            wgc_shape_eq(&wgc_out(g, next, 0)->shape, &ys)) {
            mm->bias = t;
            wgc_take_output(g, mm, next);
            next = wgc_only_consumer(g, mm->outputs[0]);
        }
    }
    if (!next)
        return;
    if (next->op == WGC_OP_GELU && next->n_inputs == 1 && next->n_outputs == 1 &&
        wgc_out(g, next, 0)->dtype == WG_DT_FLOAT) {
        mm->act = gelu_act(next);
        wgc_take_output(g, mm, next);
    } else if (next->op == WGC_OP_ADD) {
        const int r = other_operand(next, mm->outputs[0]);
        const wgc_tensor *rt = r >= 0 ? &g->tensors[r] : NULL;
        if (rt && r != mm->outputs[0] && rt->dtype == WG_DT_FLOAT && wgc_shape_eq(&rt->shape, &ys) &&
            rt->producer < i && wgc_shape_eq(&wgc_out(g, next, 0)->shape, &ys)) {
            mm->residual = r;
            wgc_take_output(g, mm, next);
        }
    }
}

static wgc_act gelu_act(const wgc_node *n)
{
    return !strcmp(wgc_attr_str(n, "approximate", "none"), "tanh") ? WGC_ACT_GELU_TANH : WGC_ACT_GELU;
}

static bool is_gelu(wgc_graph *g, const wgc_node *n)
{
    return n && n->op == WGC_OP_GELU && n->n_inputs == 1 && n->n_outputs == 1 &&
           wgc_out(g, n, 0)->dtype == WG_DT_FLOAT;
}

static void fuse_gemm(wgc_graph *g, wgc_node *gm)
{
    const wgc_tensor *b = gm->n_inputs >= 2 ? wgc_in(g, gm, 1) : NULL;
    const wgc_tensor *y = wgc_out(g, gm, 0);
    if (!b || !b->data || wgc_attr_int(gm, "transA", 0) || !y || y->dtype != WG_DT_FLOAT)
        return;
    wgc_node *next = wgc_only_consumer(g, gm->outputs[0]);
    if (is_gelu(g, next)) {
        gm->act = gelu_act(next);
        wgc_take_output(g, gm, next);
        return;
    }
    if (!next || next->op != WGC_OP_RESHAPE || next->n_outputs != 1 || next->inputs[0] != gm->outputs[0])
        return;
    wgc_node *gelu = wgc_only_consumer(g, next->outputs[0]);
    if (!is_gelu(g, gelu))
        return;
    gm->act = gelu_act(gelu);
    next->outputs[0] = gelu->outputs[0];
    g->tensors[gelu->outputs[0]].producer = (int)(next - g->nodes);
    gelu->dead = true;
    wgc_graph_count_uses(g);
}

wg_status wgc_pass_fuse_matmul_epilogue(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *mm = &g->nodes[i];
        /* ops/sym_emit.c runs symbolic products without fused epilogues */
        if (!mm->dead && mm->n_outputs == 1 && wgc_shape_is_sym(&wgc_out(g, mm, 0)->shape))
            continue;
        if (!mm->dead && mm->op == WGC_OP_MATMUL && mm->n_outputs == 1 && mm->act == WGC_ACT_NONE &&
            mm->bias < 0 && mm->residual < 0)
            fuse(g, mm);
        else if (!mm->dead && mm->op == WGC_OP_GEMM && mm->n_outputs == 1 && mm->act == WGC_ACT_NONE &&
                 mm->residual < 0)
            fuse_gemm(g, mm);
    }
    return WG_OK;
}
