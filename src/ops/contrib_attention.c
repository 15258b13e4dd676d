/*
 * contrib_attention.c: onnxruntime's Attention (com.microsoft, version 1), the fused
 * self-attention of BERT and GPT-2 files that onnxruntime's transformer optimizer writes:
 * the input projection to Q, K and V by one weight matrix and bias, then multi-head attention
 * with an optional past. The node checks itself as onnxruntime's attention_base does, then
 * expands (helpers/expand_node.h) into what it is:
 *
 *   qkv = MatMul(input, weights) (+ bias)         [B, S, q_hidden + k_hidden + v_hidden]
 *   q, k, v = Split(qkv, axis 2)
 *   past_key, past_value = Squeeze(Split(past, axis 0))            past [2, B, N, P, H]
 *   output, present_key, present_value = MultiHeadAttention(q, k, v, mask_index,
 *       attention_bias, past_key, past_value)
 *   present = Concat(Unsqueeze(present_key), Unsqueeze(present_value))  [2, B, N, P + S, H]
 *
 * so the GEMM kernels run the projection and multi_head_attention.c the attention (symbolic
 * batch, sequence and past included). Inputs: input [B, S, in_hidden], weights [in_hidden,
 * q + k + v hidden], bias, mask_index int32 ([B] lengths, [B, T] or [B, S, T]), past,
 * attention_bias; attributes num_heads, qkv_hidden_sizes, scale, unidirectional,
 * mask_filter_value. Refused, naming the node: the mask forms [2 B], [B, 1, M, M] and
 * [3 B + 2], past_sequence_length, do_rotary 1 and past_present_share_buffer 1.
 */
#include <stdio.h>
#include <string.h>

#include "helpers/expand_node.h"

enum { IN_X, IN_W, IN_BIAS, IN_MASK, IN_PAST, IN_ATTN_BIAS, IN_PAST_LEN };

static const int f32[] = {WG_DT_FLOAT, 0};

typedef struct ms_att_plan {
    int64_t B, S, in, h, hk, hv, N;
} ms_att_plan;

static wg_status plan(wgc_graph *g, const wgc_node *n, ms_att_plan *p)
{
    static const char *const names[] = {"num_heads", "qkv_hidden_sizes", "scale", "unidirectional",
                                        "mask_filter_value", "do_rotary", "past_present_share_buffer",
                                        "rotary_embedding_dim", NULL};
    memset(p, 0, sizeof *p);
    wg_status st = wgc_check_attr_names(g, n, names);
    if (!st)
        st = wgc_check_arity(g, n, 2, 7, 1, 2);
    for (int i = 0; !st && i <= IN_BIAS; i++)
        if (wgc_in(g, n, i))
            st = wgc_check_input(g, n, i, f32);
    if (st)
        return st;
    static const char *const zero[] = {"do_rotary", "past_present_share_buffer"};
    for (int i = 0; i < 2; i++)
        if (wgc_attr_int(n, zero[i], 0))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "attribute %s = %lld is not supported (only 0)", zero[i],
                             (long long)wgc_attr_int(n, zero[i], 0));
    if (wgc_in(g, n, IN_PAST_LEN))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input 6 (past_sequence_length: a shared past and present "
                         "buffer) is not supported");
    p->N = wgc_attr_int(n, "num_heads", 0);
    if (p->N <= 0)
        return wgc_error(g, n, WG_ERR_INVALID, "attribute num_heads (> 0) is required");
    const wgc_tensor *x = wgc_in(g, n, IN_X), *w = wgc_in(g, n, IN_W), *b = wgc_in(g, n, IN_BIAS);
    if (x->shape.rank != 3 || w->shape.rank != 2 || w->shape.dims[0] != x->shape.dims[2])
        return wgc_error(g, n, WG_ERR_INVALID, "input must be [batch, sequence, input_hidden] and weights "
                         "[input_hidden, q + k + v hidden]");
    p->B = x->shape.dims[0], p->S = x->shape.dims[1], p->in = x->shape.dims[2];
    size_t cnt = 0;
    const int64_t *sizes = wgc_attr_ints(n, "qkv_hidden_sizes", &cnt);
    if (sizes && cnt != 3)
        return wgc_error(g, n, WG_ERR_INVALID, "qkv_hidden_sizes has %zu values (3)", cnt);
    if (sizes)
        p->h = sizes[0], p->hk = sizes[1], p->hv = sizes[2];
    else
        p->h = p->hk = p->hv = w->shape.dims[1] / 3;
    if (p->h <= 0 || p->hk != p->h || p->hv <= 0 || p->h + p->hk + p->hv != w->shape.dims[1] || p->h % p->N ||
        p->hv % p->N)
        return wgc_error(g, n, WG_ERR_INVALID, "hidden sizes %lld, %lld, %lld for weights of %lld columns and %lld "
                         "heads (q and k equal, each a multiple of num_heads, their sum the weights' columns)",
                         (long long)p->h, (long long)p->hk, (long long)p->hv, (long long)w->shape.dims[1],
                         (long long)p->N);
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != w->shape.dims[1]))
        return wgc_error(g, n, WG_ERR_INVALID, "bias must be [%lld], the weights' columns",
                         (long long)w->shape.dims[1]);
    const wgc_tensor *past = wgc_in(g, n, IN_PAST);
    if (past) {
        if ((st = wgc_check_input(g, n, IN_PAST, f32)))
            return st;
        const int64_t *d = past->shape.dims;
        if (past->shape.rank != 5 || d[0] != 2 || d[1] != p->B || d[2] != p->N || d[4] != p->h / p->N || p->hv != p->h)
            return wgc_error(g, n, WG_ERR_INVALID, "past must be [2, %lld, %lld, past, %lld], with value and query "
                             "hidden sizes equal", (long long)p->B, (long long)p->N, (long long)(p->h / p->N));
    }
    const wgc_tensor *m = wgc_in(g, n, IN_MASK);
    if (m) {
        const bool ok = (m->shape.rank == 1 && m->shape.dims[0] == p->B) || m->shape.rank == 2 || m->shape.rank == 3;
        if (!ok)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "mask_index of rank %d: wasmgraph takes [batch] (lengths), "
                             "[batch, total] and [batch, sequence, total] (not [2 batch], [batch, 1, max, max] or "
                             "[3 batch + 2])", m->shape.rank);
    }
    return WG_OK;
}

static wg_status ms_attention_infer(wgc_graph *g, wgc_node *n)
{
    ms_att_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const int x = n->inputs[IN_X], w = n->inputs[IN_W], bias = wgc_in(g, n, IN_BIAS) ? n->inputs[IN_BIAS] : -1;
    const int mask = wgc_in(g, n, IN_MASK) ? n->inputs[IN_MASK] : -1;
    const int past = wgc_in(g, n, IN_PAST) ? n->inputs[IN_PAST] : -1;
    const int abias = wgc_in(g, n, IN_ATTN_BIAS) ? n->inputs[IN_ATTN_BIAS] : -1;
    const int y = n->outputs[0], present = n->n_outputs > 1 ? n->outputs[1] : -1;
    const wgc_attr *scale = wgc_attr_find(n, "scale");
    const float scale_v = scale ? scale->f : 0.0f;
    const int64_t uni = wgc_attr_int(n, "unidirectional", 0);
    const float filter = wgc_attr_float(n, "mask_filter_value", -10000.0f);
    wgc_expansion ex;
    wgc_expand_begin(&ex, g, n); /* n may move from here on */
    int qkv = wgc_expand_tensor(&ex, "/qkv");
    wgc_expand_add(&ex, "/qkv", "MatMul", (const int[]){x, w}, 2, &qkv, 1);
    if (bias >= 0) {
        const int with_bias = wgc_expand_tensor(&ex, "/qkv_bias");
        wgc_expand_add(&ex, "/qkv_bias", "Add", (const int[]){qkv, bias}, 2, &with_bias, 1);
        qkv = with_bias;
    }
    const int qkv_sizes = wgc_expand_const_i64(&ex, "/qkv_sizes", (const int64_t[]){p.h, p.hk, p.hv}, 3);
    const int q = wgc_expand_tensor(&ex, "/q"), k = wgc_expand_tensor(&ex, "/k"), v = wgc_expand_tensor(&ex, "/v");
    int s = wgc_expand_add(&ex, "/split_qkv", "Split", (const int[]){qkv, qkv_sizes}, 2, (const int[]){q, k, v}, 3);
    wgc_expand_attr_int(&ex, s, "axis", 2);
    int pk = -1, pv = -1;
    const int axis0 = past >= 0 || present >= 0 ? wgc_expand_const_i64(&ex, "/axis0", (const int64_t[]){0}, 1) : -1;
    if (past >= 0) {
        const int ones = wgc_expand_const_i64(&ex, "/past_sizes", (const int64_t[]){1, 1}, 2);
        const int pk5 = wgc_expand_tensor(&ex, "/past_key5"), pv5 = wgc_expand_tensor(&ex, "/past_value5");
        s = wgc_expand_add(&ex, "/split_past", "Split", (const int[]){past, ones}, 2, (const int[]){pk5, pv5}, 2);
        wgc_expand_attr_int(&ex, s, "axis", 0);
        pk = wgc_expand_tensor(&ex, "/past_key"), pv = wgc_expand_tensor(&ex, "/past_value");
        wgc_expand_add(&ex, "/past_key", "Squeeze", (const int[]){pk5, axis0}, 2, &pk, 1);
        wgc_expand_add(&ex, "/past_value", "Squeeze", (const int[]){pv5, axis0}, 2, &pv, 1);
    }
    int prk = -1, prv = -1;
    if (present >= 0)
        prk = wgc_expand_tensor(&ex, "/present_key"), prv = wgc_expand_tensor(&ex, "/present_value");
    const int mha = wgc_expand_add_in(&ex, wgc_domain_name(WGC_DOMAIN_MS), "", "MultiHeadAttention",
                                      (const int[]){q, k, v, -1, mask, abias, pk, pv}, 8,
                                      (const int[]){y, prk, prv}, present >= 0 ? 3 : 1);
    wgc_expand_attr_int(&ex, mha, "num_heads", p.N);
    if (scale)
        wgc_expand_attr_float(&ex, mha, "scale", scale_v);
    wgc_expand_attr_int(&ex, mha, "unidirectional", uni);
    wgc_expand_attr_float(&ex, mha, "mask_filter_value", filter);
    if (present >= 0) {
        const int k5 = wgc_expand_tensor(&ex, "/present_key5"), v5 = wgc_expand_tensor(&ex, "/present_value5");
        wgc_expand_add(&ex, "/present_key5", "Unsqueeze", (const int[]){prk, axis0}, 2, &k5, 1);
        wgc_expand_add(&ex, "/present_value5", "Unsqueeze", (const int[]){prv, axis0}, 2, &v5, 1);
        const int c = wgc_expand_add(&ex, "/present", "Concat", (const int[]){k5, v5}, 2, &present, 1);
        wgc_expand_attr_int(&ex, c, "axis", 0);
    }
    return wgc_expand_finish(&ex);
}

const wgc_op_def wgc_op_contrib_attention = {
    .infer = ms_attention_infer,
    .emit = wgc_expanded_emit,
};
