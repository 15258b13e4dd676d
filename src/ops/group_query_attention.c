/*
 * group_query_attention.c: onnxruntime's GroupQueryAttention (com.microsoft, version 1), the
 * attention of the decoders onnxruntime-genai's model builder writes, as its CPU kernel
 * computes it (kernels/include/wgk_attention.h has the formulas; wgk_f32_gqa the code).
 *
 * Inputs: query [B, S, Hq * D], or packed QKV [B, S, (Hq + 2 Hk) * D] without key and
 * value; key, value [B, S, Hk * D]; past_key, past_value [B, Hk, P, D] (P may be 0: an
 * empty past on the first step); seqlens_k int32 [B] (each batch's total length - 1, read
 * at run time: it places the new rows after the kept past, drives the causal mask and the
 * rotary positions); total_sequence_length int32, one value, known from shapes (a constant,
 * or a symbolic value: Shape(attention_mask)[1] as the builder computes it); cos_cache,
 * sin_cache [max_pos, R / 2] (do_rotary); position_ids int64 [B, S]; attention_bias
 * [B or 1, Hq or 1, S, total]; head_sink [Hq]. Outputs: output [B, S, Hq * D],
 * present_key and present_value [B, Hk, max(total, P), D] (not a buffer shared with the
 * past: present = the kept past ++ the new rows, zeros after them). Attributes: num_heads,
 * kv_num_heads, scale (0: 1 / sqrt(D)), softcap, local_window_size, do_rotary,
 * rotary_interleaved, smooth_softmax.
 *
 * Symbolic dims: B and S from the query, P from the past; the present's length is the
 * total's symbolic value, or the past's when that is the larger at the maxima, and the
 * module returns WGK_ERR_ATTN_LENGTHS when the other is larger at run time (onnxruntime's
 * present would then be longer than planned), as for every length that does not fit.
 *
 * Refused, naming the node: the quantized caches (k_scale, v_scale and the quant types),
 * q_norm_weight / k_norm_weight, causal 0, sliding_window_cache 1, qk_output (output_qk),
 * a node without present outputs, a total_sequence_length computed at run time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../kernels/include/wgk_attention.h"
#include "../ir/symdim.h"
#include "helpers/kv_cache.h"
#include "sym.h"

enum {
    IN_Q, IN_K, IN_V, IN_PAST_K, IN_PAST_V, IN_SEQLENS, IN_TOTAL, IN_COS, IN_SIN, IN_POS, IN_BIAS, IN_SINK,
    IN_COUNT /* inputs past these (k_scale, v_scale, q_norm_weight, ...) are refused */
};

typedef struct gqa_plan {
    int64_t B, S, Hq, Hk, D, P, T;  /* T: the present's length (at the maxima) */
    int64_t total;                  /* at the maxima */
    bool packed, rotary, interleaved, smooth;
    int64_t R, max_pos;
    float scale, softcap;
    int64_t window;                 /* keys a row may see, its own included; -1: all */
} gqa_plan;

static const int f32[] = {WG_DT_FLOAT, 0};
static const int i32[] = {WG_DT_INT32, 0};
static const int i64[] = {WG_DT_INT64, 0};

static const char *const input_names[] = {
    "query", "key", "value", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos_cache",
    "sin_cache", "position_ids", "attention_bias", "head_sink", "k_scale", "v_scale", "q_norm_weight",
    "k_norm_weight",
};

static wg_status bad_shape(wgc_graph *g, const wgc_node *n, int i, const char *want)
{
    return wgc_bad_input_shape(g, n, i, input_names[i], want);
}

/* The attributes: the one place they are read and checked. */
static wg_status read_attrs(wgc_graph *g, const wgc_node *n, gqa_plan *p)
{
    static const char *const names[] = {
        "num_heads", "kv_num_heads", "scale", "softcap", "local_window_size", "do_rotary", "rotary_interleaved",
        "smooth_softmax", "qk_output", "causal", "sliding_window_cache", "k_quant_type", "v_quant_type",
        "kv_cache_bit_width", "qk_norm_epsilon", "mask_filter_value", NULL};
    wg_status st = wgc_check_attr_names(g, n, names);
    if (st)
        return st;
    if (!wgc_attr_find(n, "num_heads") || !wgc_attr_find(n, "kv_num_heads"))
        return wgc_error(g, n, WG_ERR_INVALID, "attributes num_heads and kv_num_heads are required");
    p->Hq = wgc_attr_int(n, "num_heads", 0);
    p->Hk = wgc_attr_int(n, "kv_num_heads", 0);
    if (p->Hq <= 0 || p->Hk <= 0 || p->Hq % p->Hk)
        return wgc_error(g, n, WG_ERR_INVALID, "num_heads %lld must be a positive multiple of kv_num_heads %lld",
                         (long long)p->Hq, (long long)p->Hk);
    const int64_t rot = wgc_attr_int(n, "do_rotary", 0), inter = wgc_attr_int(n, "rotary_interleaved", 0);
    const int64_t smooth = wgc_attr_int(n, "smooth_softmax", 0);
    if ((rot != 0 && rot != 1) || (inter != 0 && inter != 1) || (smooth != 0 && smooth != 1))
        return wgc_error(g, n, WG_ERR_INVALID, "do_rotary, rotary_interleaved and smooth_softmax are 0 or 1");
    p->rotary = rot, p->interleaved = inter, p->smooth = smooth;
    p->scale = wgc_attr_float(n, "scale", 0.0f);
    p->softcap = wgc_attr_float(n, "softcap", 0.0f);
    if (p->softcap < 0 || !isfinite(p->softcap) || !isfinite(p->scale))
        return wgc_error(g, n, WG_ERR_INVALID, "softcap %g and scale %g: finite, softcap >= 0", p->softcap, p->scale);
    const int64_t lws = wgc_attr_int(n, "local_window_size", -1);
    if (lws < -1 || lws >= ((int64_t)1 << 30))
        return wgc_error(g, n, WG_ERR_INVALID, "local_window_size %lld (-1: none, or a window)", (long long)lws);
    /* onnxruntime's window (1.30): local_window_size keys, the row's own the last */
    p->window = lws;
    static const struct { const char *name; int64_t want; } fixed[] = {
        {"causal", 1}, {"sliding_window_cache", 0}, {"qk_output", 0}, {"kv_cache_bit_width", 0}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        const wgc_attr *a = wgc_attr_find(n, fixed[i].name);
        if (a && a->i != fixed[i].want)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "attribute %s = %lld is not supported (only %lld)",
                             fixed[i].name, (long long)a->i, (long long)fixed[i].want);
    }
    static const char *const quant[] = {"k_quant_type", "v_quant_type"};
    for (int i = 0; i < 2; i++) {
        const char *q = wgc_attr_str(n, quant[i], "NONE");
        if (strcmp(q, "NONE"))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "attribute %s = '%s': quantized KV caches are not supported",
                             quant[i], q);
    }
    return WG_OK;
}

/* total_sequence_length's value as a symbolic value (a constant, or the symbolic value of
 * shape arithmetic); its value at the maxima is its data's. */
static wg_status total_value(wgc_graph *g, const wgc_node *n, wgc_dimx *x, int64_t *at_max)
{
    const wgc_tensor *t = wgc_in(g, n, IN_TOTAL);
    if (!t->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "total_sequence_length '%s' is computed at run time: wasmgraph "
                         "needs it from shapes (a constant, or Shape of the attention mask)", t->name);
    *at_max = ((const int32_t *)t->data)[0];
    *x = t->symval ? wgc_symval_at(t, 0) : wgc_dimx_const(*at_max);
    return WG_OK;
}

/* Q, K and V: packed or separate, B, S and the head size. */
static wg_status check_qkv(wgc_graph *g, const wgc_node *n, gqa_plan *p)
{
    const wgc_tensor *q = wgc_in(g, n, IN_Q), *k = wgc_in(g, n, IN_K), *v = wgc_in(g, n, IN_V);
    if (q->shape.rank != 3)
        return bad_shape(g, n, IN_Q, "[batch, sequence, hidden]");
    p->B = q->shape.dims[0], p->S = q->shape.dims[1];
    const int64_t hidden = q->shape.dims[2];
    if (!k != !v)
        return wgc_error(g, n, WG_ERR_INVALID, "key and value must be given together (or neither: packed QKV)");
    p->packed = !k;
    const int64_t heads = p->packed ? p->Hq + 2 * p->Hk : p->Hq;
    if (hidden % heads || hidden == 0)
        return wgc_error(g, n, WG_ERR_INVALID, "query's hidden size %lld is not a multiple of %s %lld",
                         (long long)hidden, p->packed ? "num_heads + 2 * kv_num_heads (packed QKV)" : "num_heads",
                         (long long)heads);
    p->D = hidden / heads;
    if (p->packed)
        return WG_OK;
    char want[96];
    snprintf(want, sizeof want, "[%lld, %lld, %lld] (kv_num_heads * head size)", (long long)p->B, (long long)p->S,
             (long long)(p->Hk * p->D));
    for (int i = IN_K; i <= IN_V; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        wg_status st = wgc_check_input(g, n, i, f32);
        if (st)
            return st;
        if (t->shape.rank != 3 || t->shape.dims[0] != p->B || t->shape.dims[1] != p->S ||
            t->shape.dims[2] != p->Hk * p->D)
            return bad_shape(g, n, i, want);
    }
    return WG_OK;
}

/* The past, seqlens_k, total_sequence_length and the present's length. */
static wg_status check_cache(wgc_graph *g, const wgc_node *n, gqa_plan *p)
{
    wg_status st;
    if ((st = wgc_check_past_kv(g, n, IN_PAST_K, f32, &(wgc_kv_dims){p->B, p->Hk, p->D, p->D}, &p->P)))
        return st;
    for (int i = IN_SEQLENS; i <= IN_TOTAL; i++)
        if (!wgc_in(g, n, i))
            return wgc_error(g, n, WG_ERR_INVALID, "input %d (%s) is required", i, input_names[i]);
    if ((st = wgc_check_input(g, n, IN_SEQLENS, i32)) || (st = wgc_check_input(g, n, IN_TOTAL, i32)))
        return st;
    const wgc_tensor *sl = wgc_in(g, n, IN_SEQLENS), *tot = wgc_in(g, n, IN_TOTAL);
    if (sl->shape.rank != 1 || sl->shape.dims[0] != p->B) {
        char want[48];
        snprintf(want, sizeof want, "[%lld] (one length per batch)", (long long)p->B);
        return bad_shape(g, n, IN_SEQLENS, want);
    }
    if (wgc_numel(&tot->shape) != 1 || tot->shape.rank > 1)
        return bad_shape(g, n, IN_TOTAL, "one value (a scalar or [1])");
    wgc_dimx x;
    if ((st = total_value(g, n, &x, &p->total)))
        return st;
    if (p->total < 0)
        return wgc_error(g, n, WG_ERR_INVALID, "total_sequence_length is %lld", (long long)p->total);
    /* onnxruntime's present length, max(total, past), at the maxima */
    p->T = p->total > p->P ? p->total : p->P;
    return WG_OK;
}

/* cos_cache, sin_cache, position_ids, attention_bias, head_sink and the refused inputs. */
static wg_status check_extras(wgc_graph *g, const wgc_node *n, gqa_plan *p)
{
    wg_status st = wgc_refuse_inputs_from(g, n, IN_COUNT, input_names, WGC_COUNT(input_names), "");
    if (st)
        return st;
    const wgc_tensor *c = wgc_in(g, n, IN_COS), *s = wgc_in(g, n, IN_SIN);
    if (!c != !s)
        return wgc_error(g, n, WG_ERR_INVALID, "cos_cache and sin_cache must be given together");
    if (p->rotary && !c)
        return wgc_error(g, n, WG_ERR_INVALID, "do_rotary = 1 needs cos_cache and sin_cache");
    p->R = 0, p->max_pos = 0;
    if (c) {
        if ((st = wgc_check_input(g, n, IN_COS, f32)) || (st = wgc_check_input(g, n, IN_SIN, f32)))
            return st;
        if (c->shape.rank != 2 || !wgc_shape_eq(&c->shape, &s->shape) || 2 * c->shape.dims[1] > p->D)
            return wgc_error(g, n, WG_ERR_INVALID, "cos_cache and sin_cache must both be [max_position, R / 2], "
                             "R <= head size %lld", (long long)p->D);
        p->R = 2 * c->shape.dims[1], p->max_pos = c->shape.dims[0];
    }
    const wgc_tensor *pos = wgc_in(g, n, IN_POS);
    if (pos) {
        if ((st = wgc_check_input(g, n, IN_POS, i64)))
            return st;
        if (pos->shape.rank != 2 || pos->shape.dims[0] != p->B || pos->shape.dims[1] != p->S) {
            char want[48];
            snprintf(want, sizeof want, "[%lld, %lld] (batch, sequence)", (long long)p->B, (long long)p->S);
            return bad_shape(g, n, IN_POS, want);
        }
    }
    /* a last dim of another symbol than the total's is checked at run time (gqa_emit) */
    if ((st = wgc_check_attention_bias(g, n, IN_BIAS, p->B, p->Hq, p->S, p->total,
                                       "[batch or 1, num_heads or 1, sequence, total_sequence_length]")))
        return st;
    const wgc_tensor *sink = wgc_in(g, n, IN_SINK);
    if (sink) {
        if ((st = wgc_check_input(g, n, IN_SINK, f32)))
            return st;
        if (sink->shape.rank != 1 || sink->shape.dims[0] != p->Hq)
            return bad_shape(g, n, IN_SINK, "[num_heads]");
        if (p->smooth)
            return wgc_error(g, n, WG_ERR_INVALID, "head_sink cannot be combined with smooth_softmax = 1");
    }
    return WG_OK;
}

static wg_status plan(wgc_graph *g, const wgc_node *n, gqa_plan *p)
{
    memset(p, 0, sizeof *p);
    wg_status st = wgc_check_arity(g, n, 1, 16, 1, 4); /* key, value, the past may be empty */
    if (!st)
        st = read_attrs(g, n, p);
    if (!st)
        st = wgc_check_input(g, n, IN_Q, f32);
    if (!st)
        st = check_qkv(g, n, p);
    if (!st)
        st = check_cache(g, n, p);
    if (!st)
        st = check_extras(g, n, p);
    if (st)
        return st;
    if (!wgc_out(g, n, 1) || !wgc_out(g, n, 2))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "outputs present_key and present_value are required (the "
                         "cache is built in them)");
    if (wgc_out(g, n, 3))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output 3 (output_qk) is not supported");
    if (p->B * p->S * p->Hq * p->D >= ((int64_t)1 << 31) || p->B * p->Hk * p->T * p->D >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "the query or the present cache has 2^31 or more elements");
    return WG_OK;
}

static wg_status gqa_infer(wgc_graph *g, wgc_node *n)
{
    gqa_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const wgc_shape y = {.rank = 3, .dims = {p.B, p.S, p.Hq * p.D}};
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    wgc_set_present_kv(g, n, 1, WG_DT_FLOAT, &(wgc_kv_dims){p.B, p.Hk, p.D, p.D}, p.T);
    return WG_OK;
}

static size_t gqa_scratch(const wgc_graph *g, const wgc_node *n)
{
    gqa_plan p;
    if (plan((wgc_graph *)g, n, &p))
        return 0;
    return wgk_gqa_work_floats((int)p.Hq, (int)p.Hk, (int)p.D, (int)p.T) * sizeof(float) + 16;
}

/* One call of the kernel, every size printed by wgc_size_expr (a literal, or read from
 * wg_dims), so this serves symbolic shapes too. */
static wg_status gqa_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    gqa_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const wgc_tensor *q = wgc_in(g, n, IN_Q), *pk = wgc_out(g, n, 1), *bias = wgc_in(g, n, IN_BIAS);
    char B[96], S[96], P[96], T[96], total[96];
    snprintf(B, sizeof B, "%s", wgc_size_expr(e, &q->shape, 0, 1));
    snprintf(S, sizeof S, "%s", wgc_size_expr(e, &q->shape, 1, 2));
    snprintf(P, sizeof P, "%s", p.P ? wgc_size_expr(e, &wgc_in(g, n, IN_PAST_K)->shape, 2, 3) : "0");
    snprintf(T, sizeof T, "%s", wgc_size_expr(e, &pk->shape, 2, 3));
    wgc_dimx x;
    int64_t at_max;
    if ((st = total_value(g, n, &x, &at_max)))
        return st;
    if (wgc_dimx_is_const(&x))
        snprintf(total, sizeof total, "%lld", (long long)x.c);
    else
        snprintf(total, sizeof total, "%s", wgc_dimx_expr(e, &x));
    const int64_t ld_q = (p.packed ? p.Hq + 2 * p.Hk : p.Hq) * p.D, ld_kv = p.packed ? ld_q : p.Hk * p.D;
    const char *qp = wgc_ptr(e, g, n->inputs[IN_Q]);
    wgc_emit(e, "{\nconst float *gqa_q = (const float *)%s;\n", qp);
    if (bias && g->n_syms) /* its rows must be total long (onnxruntime's shape check) */
        wgc_emit(e, "if (%s != %s) return WGK_ERR_ATTN_LENGTHS;\n", wgc_size_expr(e, &bias->shape, 3, 4), total);
    wgc_emit(e, "if (wgk_f32_gqa(&(const wgk_gqa_args){.B = %s, .S = %s, .Hq = %lld, .Hk = %lld, .D = %lld,\n", B, S,
             (long long)p.Hq, (long long)p.Hk, (long long)p.D);
    wgc_emit(e, "    .P = %s, .T = %s, .total = %s, .q = gqa_q, .ld_q = %lld, .ld_kv = %lld,\n", P, T, total,
             (long long)ld_q, (long long)ld_kv);
    if (p.packed)
        wgc_emit(e, "    .k = gqa_q + %lld, .v = gqa_q + %lld,\n", (long long)(p.Hq * p.D),
                 (long long)((p.Hq + p.Hk) * p.D));
    else
        wgc_emit(e, "    .k = (const float *)%s, .v = (const float *)%s,\n", wgc_ptr(e, g, n->inputs[IN_K]),
                 wgc_ptr(e, g, n->inputs[IN_V]));
    if (p.P)
        wgc_emit(e, "    .past_k = (const float *)%s, .past_v = (const float *)%s,\n",
                 wgc_ptr(e, g, n->inputs[IN_PAST_K]), wgc_ptr(e, g, n->inputs[IN_PAST_V]));
    wgc_emit(e, "    .present_k = (float *)%s, .present_v = (float *)%s, .seqlens = (const int32_t *)%s,\n",
             wgc_ptr(e, g, n->outputs[1]), wgc_ptr(e, g, n->outputs[2]), wgc_ptr(e, g, n->inputs[IN_SEQLENS]));
    if (p.rotary) {
        wgc_emit(e, "    .cos = (const float *)%s, .sin = (const float *)%s, .R = %lld, .max_pos = %lld, "
                    ".interleaved = %d,\n",
                 wgc_ptr(e, g, n->inputs[IN_COS]), wgc_ptr(e, g, n->inputs[IN_SIN]), (long long)p.R,
                 (long long)p.max_pos, p.interleaved ? 1 : 0);
        if (wgc_in(g, n, IN_POS))
            wgc_emit(e, "    .pos_ids = (const int64_t *)%s,\n", wgc_ptr(e, g, n->inputs[IN_POS]));
    }
    wgc_emit_attention_bias(e, g, n, IN_BIAS); /* [B or 1, Hq or 1, S, total] */
    if (wgc_in(g, n, IN_SINK))
        wgc_emit(e, "    .sink = (const float *)%s,\n", wgc_ptr(e, g, n->inputs[IN_SINK]));
    const float scale = p.scale == 0.0f ? 1.0f / sqrtf((float)p.D) : p.scale;
    wgc_emit(e, "    .smooth = %d, .scale = %s, ", p.smooth ? 1 : 0, wgc_float(e, scale));
    wgc_emit(e, ".softcap = %s, .window = %lld,\n", wgc_float(e, p.softcap), (long long)p.window);
    wgc_emit(e, "    .y = (float *)%s, .work = (float *)%s}))\n    return WGK_ERR_ATTN_LENGTHS;\n}\n",
             wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e));
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* A symbolic dim of one value (the genai builder's head size kv_cache_dim, --dim given
 * 16..16): the fixed size it always is. */
static bool fixed_symbol(const wgc_graph *g, const wgc_tensor *t, int d)
{
    return wgc_dim_one_value(g, &t->shape, d);
}

/* Which dims of input i may be symbolic, and which must be the query's batch (dim 0) or
 * sequence (dim 1): -1 for neither, 0 batch, 1 sequence, 2 free (a length read at run
 * time). */
static wg_status check_sym_input(wgc_graph *g, const wgc_node *n, int i, const signed char *role)
{
    const wgc_tensor *t = wgc_in(g, n, i), *q = wgc_in(g, n, IN_Q);
    if (!t)
        return WG_OK;
    if (t->symval && i != IN_TOTAL)
        return wgc_sym_refuse(g, n, "symbolic values other than total_sequence_length's");
    for (int d = 0; d < t->shape.rank; d++) {
        const int r = role[d];
        /* attention_bias may broadcast over the batch: a fixed 1 there */
        const bool broadcast = i == IN_BIAS && d == 0 && t->shape.dims[d] == 1 && !wgc_dim_is_sym(&t->shape, d);
        if ((r == 0 || r == 1) && !broadcast && !wgc_same_dim(g, &t->shape, d, &q->shape, r)) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s '%s' dim %d is not the query's %s", input_names[i], t->name, d,
                     r ? "sequence length" : "batch");
            return wgc_sym_refuse(g, n, msg);
        } else if (r < 0 && wgc_dim_is_sym(&t->shape, d) && !fixed_symbol(g, t, d)) {
            char msg[160];
            snprintf(msg, sizeof msg, "a symbolic dim %d of %s '%s'", d, input_names[i], t->name);
            return wgc_sym_refuse(g, n, msg);
        }
    }
    return WG_OK;
}

static wg_status gqa_sym_infer(wgc_graph *g, wgc_node *n)
{
    static const signed char roles[IN_COUNT][4] = {
        [IN_Q] = {0, 1, -1}, [IN_K] = {0, 1, -1}, [IN_V] = {0, 1, -1},
        [IN_PAST_K] = {0, -1, 2, -1}, [IN_PAST_V] = {0, -1, 2, -1},
        [IN_SEQLENS] = {0}, [IN_TOTAL] = {-1}, [IN_COS] = {-1, -1}, [IN_SIN] = {-1, -1},
        [IN_POS] = {0, 1}, [IN_BIAS] = {0, -1, 1, 2}, [IN_SINK] = {-1}};
    wg_status st;
    for (int i = 0; i < IN_COUNT && i < n->n_inputs; i++)
        if ((st = check_sym_input(g, n, i, roles[i])))
            return st;
    const wgc_tensor *q = wgc_in(g, n, IN_Q), *pk = wgc_in(g, n, IN_PAST_K);
    if (pk && !wgc_same_dim(g, &pk->shape, 2, &wgc_in(g, n, IN_PAST_V)->shape, 2))
        return wgc_sym_refuse(g, n, "past_key and past_value of different lengths");
    wgc_dimx total, past = pk ? wgc_dimx_of(g, &pk->shape, 2) : wgc_dimx_const(0);
    int64_t at_max;
    if ((st = total_value(g, n, &total, &at_max)))
        return st;
    /* the present's length: max(total, past) at the maxima; the module refuses the run
     * where the other one is larger (wgk_f32_gqa) */
    const wgc_dimx len = wgc_dimx_max(g, &total) >= wgc_dimx_max(g, &past) ? total : past;
    wgc_shape y = wgc_sym_dims_of(&wgc_out(g, n, 0)->shape), kv = wgc_sym_dims_of(&wgc_out(g, n, 1)->shape);
    for (int d = 0; d < 2; d++)
        wgc_shape_set_dim(g, &y, d, wgc_dimx_of(g, &q->shape, d));
    wgc_shape_set_dim(g, &kv, 0, wgc_dimx_of(g, &q->shape, 0));
    wgc_shape_set_dim(g, &kv, 2, len);
    if ((st = wgc_sym_set_out(g, n, 0, &y)) || (st = wgc_sym_set_out(g, n, 1, &kv)))
        return st;
    return wgc_sym_set_out(g, n, 2, &kv);
}

const wgc_op_def wgc_op_group_query_attention = {
    .infer = gqa_infer,
    .emit = gqa_emit,
    .scratch = gqa_scratch,
    .sym = {.infer = gqa_sym_infer, .emit = gqa_emit},
};
