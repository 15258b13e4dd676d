/*
 * multi_head_attention.c: onnxruntime's MultiHeadAttention (com.microsoft, version 1), as its
 * CPU kernel computes it (kernels/include/wgk_attention.h has the formulas; wgk_f32_mha the
 * code): what onnxruntime-genai's model builder writes for float16 CPU models (the KV cache
 * concatenated and the key/value heads repeated in the graph, a causal and padding mask as an
 * attention_bias), and what onnxruntime's transformer optimizer writes for encoders and
 * decoders with a past.
 *
 * Inputs: query [B, S, H * D]; key [B, L, H * D] and value [B, L, H * Dv] (3-D; the packed,
 * 4-D and 5-D forms are refused); bias [H * (2 D + Dv)] (added to Q, K and V);
 * key_padding_mask int32 [B] (lengths), [B, T] or [B, S, T] (0: padding), T = P + L;
 * attention_bias [B or 1, H or 1, S, T]; past_key [B, H, P, D], past_value [B, H, P, Dv].
 * Outputs: output [B, S, H * Dv]; present_key, present_value [B, H, T, D or Dv], the past
 * followed by the new keys and values (with their biases). Attributes: num_heads,
 * mask_filter_value (default -10000: masked keys get it added, not -inf), scale (0 or absent:
 * 1 / sqrt(D)), unidirectional (key j of row s masked when j > P + s).
 *
 * Symbolic dims: B, S, L and P; T = P + L (a sum symbol). A mask's or bias's last dim that is
 * not provably T is checked at run time (WGK_ERR_ATTN_LENGTHS), as are key padding lengths
 * (WGK_ERR_INDEX). Refused: past_sequence_length and cache_indirection (buffer sharing, beam
 * search), the qk output, the (3 B + 2) mask form.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../kernels/include/wgk_attention.h"
#include "../ir/symdim.h"
#include "helpers/kv_cache.h"
#include "sym.h"

enum { IN_Q, IN_K, IN_V, IN_QKV_BIAS, IN_MASK, IN_BIAS, IN_PAST_K, IN_PAST_V, IN_PAST_LEN, IN_CACHE_IND };

typedef struct mha_plan {
    int64_t B, S, L, P, H, D, Dv;
    int mask_kind;
    float filter, scale;
    bool causal;
} mha_plan;

static const int f32[] = {WG_DT_FLOAT, 0};
static const int i32[] = {WG_DT_INT32, 0};

static const char *const input_names[] = {"query", "key", "value", "bias", "key_padding_mask", "attention_bias",
                                          "past_key", "past_value", "past_sequence_length", "cache_indirection"};

static wg_status bad_shape(wgc_graph *g, const wgc_node *n, int i, const char *want)
{
    return wgc_bad_input_shape(g, n, i, input_names[i], want);
}

static wg_status read_attrs(wgc_graph *g, const wgc_node *n, mha_plan *p)
{
    static const char *const names[] = {"num_heads", "mask_filter_value", "scale", "unidirectional", NULL};
    wg_status st = wgc_check_attr_names(g, n, names);
    if (st)
        return st;
    p->H = wgc_attr_int(n, "num_heads", 0);
    if (!wgc_attr_find(n, "num_heads") || p->H <= 0)
        return wgc_error(g, n, WG_ERR_INVALID, "attribute num_heads (> 0) is required");
    const int64_t uni = wgc_attr_int(n, "unidirectional", 0);
    if (uni != 0 && uni != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "unidirectional is 0 or 1 (got %lld)", (long long)uni);
    p->causal = uni;
    p->filter = wgc_attr_float(n, "mask_filter_value", -10000.0f);
    p->scale = wgc_attr_float(n, "scale", 0.0f);
    if (!isfinite(p->scale) || isnan(p->filter))
        return wgc_error(g, n, WG_ERR_INVALID, "scale %g and mask_filter_value %g", p->scale, p->filter);
    return WG_OK;
}

/* Q, K, V and their bias: B, S, L and the head sizes. */
static wg_status check_qkv(wgc_graph *g, const wgc_node *n, mha_plan *p)
{
    const wgc_tensor *q = wgc_in(g, n, IN_Q), *k = wgc_in(g, n, IN_K), *v = wgc_in(g, n, IN_V);
    wg_status st;
    if (!k || !v)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "key and value are required (the packed QKV form is not "
                         "supported)");
    for (int i = IN_Q; i <= IN_V; i++)
        if ((st = wgc_check_input(g, n, i, f32)))
            return st;
    if (q->shape.rank != 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "query of rank %d: wasmgraph takes [batch, sequence, hidden]",
                         q->shape.rank);
    if (k->shape.rank != 3 || v->shape.rank != 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "key and value of ranks %d and %d: wasmgraph takes 3-D ones "
                         "[batch, kv_sequence, hidden] (not the packed or BNSH forms)", k->shape.rank,
                         v->shape.rank);
    p->B = q->shape.dims[0], p->S = q->shape.dims[1], p->L = k->shape.dims[1];
    if (q->shape.dims[2] % p->H || v->shape.dims[2] % p->H)
        return wgc_error(g, n, WG_ERR_INVALID, "hidden sizes %lld and %lld are not multiples of num_heads %lld",
                         (long long)q->shape.dims[2], (long long)v->shape.dims[2], (long long)p->H);
    p->D = q->shape.dims[2] / p->H, p->Dv = v->shape.dims[2] / p->H;
    char want[96];
    snprintf(want, sizeof want, "[%lld, kv_sequence, %lld]", (long long)p->B, (long long)(p->H * p->D));
    if (k->shape.dims[0] != p->B || k->shape.dims[2] != p->H * p->D)
        return bad_shape(g, n, IN_K, want);
    snprintf(want, sizeof want, "[%lld, %lld, hidden]", (long long)p->B, (long long)p->L);
    if (v->shape.dims[0] != p->B || v->shape.dims[1] != p->L)
        return bad_shape(g, n, IN_V, want);
    const wgc_tensor *bias = wgc_in(g, n, IN_QKV_BIAS);
    if (bias) {
        if ((st = wgc_check_input(g, n, IN_QKV_BIAS, f32)))
            return st;
        snprintf(want, sizeof want, "[%lld] (query, key and value hidden sizes)",
                 (long long)(p->H * (2 * p->D + p->Dv)));
        if (bias->shape.rank != 1 || bias->shape.dims[0] != p->H * (2 * p->D + p->Dv))
            return bad_shape(g, n, IN_QKV_BIAS, want);
    }
    return WG_OK;
}

/* The past, the masks and the refused inputs. */
static wg_status check_rest(wgc_graph *g, const wgc_node *n, mha_plan *p)
{
    wg_status st;
    if ((st = wgc_refuse_inputs_from(g, n, IN_PAST_LEN, input_names, WGC_COUNT(input_names),
                                     ": buffer sharing, beam search")))
        return st;
    if ((st = wgc_check_past_kv(g, n, IN_PAST_K, f32, &(wgc_kv_dims){p->B, p->H, p->D, p->Dv}, &p->P)))
        return st;
    const int64_t T = p->P + p->L;
    const wgc_tensor *m = wgc_in(g, n, IN_MASK);
    p->mask_kind = WGK_MHA_NO_MASK;
    if (m) {
        if ((st = wgc_check_input(g, n, IN_MASK, i32)))
            return st;
        const int64_t *d = m->shape.dims;
        /* a last dim of another symbol than past + kv_sequence is checked at run time */
        const bool len_ok = d[m->shape.rank - 1] == T || g->n_syms;
        if (m->shape.rank == 1 && d[0] == p->B)
            p->mask_kind = WGK_MHA_MASK_LENGTHS;
        else if (m->shape.rank == 2 && d[0] == p->B && len_ok)
            p->mask_kind = WGK_MHA_MASK_2D;
        else if (m->shape.rank == 3 && d[0] == p->B && d[1] == p->S && len_ok)
            p->mask_kind = WGK_MHA_MASK_3D;
        else
            return bad_shape(g, n, IN_MASK, "[batch] (lengths), [batch, total] or [batch, sequence, total] (the "
                             "(3 batch + 2) form is not supported)");
    }
    return wgc_check_attention_bias(g, n, IN_BIAS, p->B, p->H, p->S, T, "[batch or 1, num_heads or 1, sequence, total]");
}

static wg_status plan(wgc_graph *g, const wgc_node *n, mha_plan *p)
{
    memset(p, 0, sizeof *p);
    wg_status st;
    if ((st = wgc_check_arity(g, n, 1, 10, 1, 4)) || (st = read_attrs(g, n, p)) || (st = check_qkv(g, n, p)) ||
        (st = check_rest(g, n, p)))
        return st;
    if (wgc_out(g, n, 3))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output 3 (qk) is not supported");
    const int64_t T = p->P + p->L;
    if (p->B * p->S * p->H * (p->D > p->Dv ? p->D : p->Dv) >= ((int64_t)1 << 31) ||
        p->B * p->H * T * (p->D > p->Dv ? p->D : p->Dv) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "the query or the keys have 2^31 or more elements");
    return WG_OK;
}

static wg_status mha_infer(wgc_graph *g, wgc_node *n)
{
    mha_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const int64_t T = p.P + p.L;
    const wgc_shape y = {.rank = 3, .dims = {p.B, p.S, p.H * p.Dv}};
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    wgc_set_present_kv(g, n, 1, WG_DT_FLOAT, &(wgc_kv_dims){p.B, p.H, p.D, p.Dv}, T);
    return WG_OK;
}

static size_t mha_scratch(const wgc_graph *g, const wgc_node *n)
{
    mha_plan p;
    if (plan((wgc_graph *)g, n, &p))
        return 0;
    return wgk_mha_work_floats((int)p.D, (int)p.Dv, (int)(p.P + p.L)) * sizeof(float) + 16;
}

/* One call of the kernel, every size printed by wgc_size_expr (a literal, or read from
 * wg_dims), so this serves symbolic shapes too. */
static wg_status mha_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    mha_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const wgc_tensor *q = wgc_in(g, n, IN_Q), *k = wgc_in(g, n, IN_K), *m = wgc_in(g, n, IN_MASK);
    const wgc_tensor *bias = wgc_in(g, n, IN_BIAS), *qkvb = wgc_in(g, n, IN_QKV_BIAS);
    char B[96], S[96], L[96], P[96], T[200];
    snprintf(B, sizeof B, "%s", wgc_size_expr(e, &q->shape, 0, 1));
    snprintf(S, sizeof S, "%s", wgc_size_expr(e, &q->shape, 1, 2));
    snprintf(L, sizeof L, "%s", wgc_size_expr(e, &k->shape, 1, 2));
    snprintf(P, sizeof P, "%s", p.P ? wgc_size_expr(e, &wgc_in(g, n, IN_PAST_K)->shape, 2, 3) : "0");
    snprintf(T, sizeof T, "(%s + %s)", P, L);
    wgc_emit(e, "{\n");
    /* the mask's and the bias's rows must be T long (onnxruntime's shape check): at run
     * time, where the compiler could not prove it (symbolic shapes) */
    const wgc_tensor *rows[2] = {m && p.mask_kind != WGK_MHA_MASK_LENGTHS ? m : NULL, bias};
    for (int i = 0; i < 2; i++)
        if (rows[i] && g->n_syms)
            wgc_emit(e, "if (%s != %s) return WGK_ERR_ATTN_LENGTHS;\n",
                     wgc_size_expr(e, &rows[i]->shape, rows[i]->shape.rank - 1, rows[i]->shape.rank), T);
    wgc_emit(e, "if (wgk_f32_mha(&(const wgk_mha_args){.B = %s, .S = %s, .L = %s, .P = %s, .H = %lld, .D = %lld, "
                ".Dv = %lld,\n", B, S, L, P, (long long)p.H, (long long)p.D, (long long)p.Dv);
    wgc_emit(e, "    .q = (const float *)%s, .k = (const float *)%s, .v = (const float *)%s,\n",
             wgc_ptr(e, g, n->inputs[IN_Q]), wgc_ptr(e, g, n->inputs[IN_K]), wgc_ptr(e, g, n->inputs[IN_V]));
    wgc_emit(e, "    .ld_q = %lld, .ld_k = %lld, .ld_v = %lld,\n", (long long)(p.H * p.D), (long long)(p.H * p.D),
             (long long)(p.H * p.Dv));
    if (qkvb) {
        const char *bp = wgc_ptr(e, g, n->inputs[IN_QKV_BIAS]);
        wgc_emit(e, "    .bq = (const float *)%s, .bk = (const float *)%s + %lld, .bv = (const float *)%s + %lld,\n",
                 bp, bp, (long long)(p.H * p.D), bp, (long long)(2 * p.H * p.D));
    }
    if (p.P)
        wgc_emit(e, "    .past_k = (const float *)%s, .past_v = (const float *)%s,\n",
                 wgc_ptr(e, g, n->inputs[IN_PAST_K]), wgc_ptr(e, g, n->inputs[IN_PAST_V]));
    if (wgc_out(g, n, 1))
        wgc_emit(e, "    .present_k = (float *)%s,\n", wgc_ptr(e, g, n->outputs[1]));
    if (wgc_out(g, n, 2))
        wgc_emit(e, "    .present_v = (float *)%s,\n", wgc_ptr(e, g, n->outputs[2]));
    if (m)
        wgc_emit(e, "    .mask_kind = %d, .mask = (const int32_t *)%s,\n", p.mask_kind,
                 wgc_ptr(e, g, n->inputs[IN_MASK]));
    wgc_emit_attention_bias(e, g, n, IN_BIAS); /* [B or 1, H or 1, S, total] */
    const float scale = p.scale == 0.0f ? 1.0f / sqrtf((float)p.D) : p.scale;
    wgc_emit(e, "    .filter = %s, .causal = %d, ", wgc_float(e, p.filter), p.causal ? 1 : 0);
    wgc_emit(e, ".scale = %s, .y = (float *)%s, .work = (float *)%s}))\n    return WGK_ERR_INDEX;\n}\n",
             wgc_float(e, scale), wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e));
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* B, S, L and P may be symbolic; a mask's or bias's last dim (T, checked at run time when it
 * is not provably P + L) too. Heads and head sizes may not. */
static wg_status mha_sym_infer(wgc_graph *g, wgc_node *n)
{
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, NULL);
    const wgc_tensor *q = wgc_in(g, n, IN_Q), *k = wgc_in(g, n, IN_K), *pk = wgc_in(g, n, IN_PAST_K);
    /* each input's dims: 'b' the query's batch, 's' its sequence, 'l' the key's length, 'p'
     * the past's, 't' a length read at run time, '1' a fixed 1 or the batch, '-' fixed */
    static const char *const roles[] = {
        [IN_Q] = "bs-", [IN_K] = "bl-", [IN_V] = "bl-", [IN_QKV_BIAS] = "-", [IN_MASK] = "",
        [IN_BIAS] = "1-st", [IN_PAST_K] = "b-p-", [IN_PAST_V] = "b-p-"};
    for (int i = 0; i <= IN_PAST_V && i < n->n_inputs; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (!t)
            continue;
        const char *r = i == IN_MASK ? (t->shape.rank == 1 ? "b" : t->shape.rank == 2 ? "bt" : "bst") : roles[i];
        for (int d = 0; d < t->shape.rank; d++) {
            const char c = r[d];
            const bool sym = wgc_dim_is_sym(&t->shape, d);
            const wgc_shape *ts = &t->shape;
            bool ok = c == 't' || (c == 'b' && wgc_same_dim(g, ts, d, &q->shape, 0)) ||
                      (c == 's' && wgc_same_dim(g, ts, d, &q->shape, 1)) ||
                      (c == 'l' && wgc_same_dim(g, ts, d, &k->shape, 1)) ||
                      (c == 'p' && pk && wgc_same_dim(g, ts, d, &pk->shape, 2)) ||
                      (c == '1' && (wgc_same_dim(g, ts, d, &q->shape, 0) || !sym)) ||
                      (c == '-' && (!sym || wgc_dim_one_value(g, ts, d))); /* kv_cache_dim */
            if (!ok) {
                char msg[160];
                snprintf(msg, sizeof msg, "%s '%s' dim %d, symbolic or not the query's, key's or past's",
                         input_names[i], t->name, d);
                return wgc_sym_refuse(g, n, msg);
            }
        }
    }
    const wgc_dimx past = pk ? wgc_dimx_of(g, &pk->shape, 2) : wgc_dimx_const(0);
    wgc_dimx total;
    if (!wgc_dimx_add_sym(g, n, past, wgc_dimx_of(g, &k->shape, 1), &total))
        return g->n_syms == WGC_MAX_SYMS ? WG_ERR_LIMIT /* wgc_dimx_add_sym's message */
                                         : wgc_sym_refuse(g, n, "a past + kv_sequence that is no sum of symbols");
    wgc_shape y = wgc_sym_dims_of(&wgc_out(g, n, 0)->shape);
    for (int d = 0; d < 2; d++)
        wgc_shape_set_dim(g, &y, d, wgc_dimx_of(g, &q->shape, d));
    wg_status st = wgc_sym_set_out(g, n, 0, &y);
    for (int i = 1; i <= 2 && !st; i++) {
        if (!wgc_out(g, n, i))
            continue;
        wgc_shape kv = wgc_sym_dims_of(&wgc_out(g, n, i)->shape);
        wgc_shape_set_dim(g, &kv, 0, wgc_dimx_of(g, &q->shape, 0));
        wgc_shape_set_dim(g, &kv, 2, total);
        st = wgc_sym_set_out(g, n, i, &kv);
    }
    return st;
}

const wgc_op_def wgc_op_multi_head_attention = {
    .infer = mha_infer,
    .emit = mha_emit,
    .scratch = mha_scratch,
    .sym = {.infer = mha_sym_infer, .emit = mha_emit},
};
