/*
 * wgk_attention.h: attention over a KV cache. First (wgk_f32_gqa) as onnxruntime's
 * GroupQueryAttention (com.microsoft) computes it on the CPU: grouped-query heads (Hq query heads, Hk key/value
 * heads, Hq a multiple of Hk; query head h reads key/value head h / (Hq / Hk)), a present
 * cache that is the valid part of the past followed by the new rows, a causal mask (with
 * an optional local window), rotary embeddings of the new queries and keys, soft-capping,
 * an additive bias and a softmax that may have a sink logit.
 *
 * Per batch b, the valid length is t_b = seqlens[b] + 1 and the past rows kept are
 *   p_b = 0             on the first prompt (S == total: onnxruntime's is_first_prompt)
 *   p_b = t_b - S       otherwise (a decode step, S == 1, or a later prompt, batch 1)
 * present[b, hk] = past[b, hk, 0 : p_b] ++ the S new rows (rotated keys) ++ zeros up to T.
 * New row s is at position p_b + s; it sees the keys [lo, hi) of the present cache,
 * hi = min(p_b + s + 1, t_b) (the rows of a right-padded prompt past t_b see the valid keys
 * only), lo = max(0, hi - window) with a window (the keys a row may see; 0: none, the row
 * is then zeros), else 0:
 *   score_j = scale * q . k_j, softcap * tanh(score_j / softcap) when softcap > 0,
 *             + bias[b, h, s, j] when a bias is given,
 *   y = sum_j p_j v_j,   p_j = e^(score_j) / (sum_i e^(score_i) + e^sink)
 * with the sink term only for a smooth softmax (sink 0) or a head sink (sink[h]).
 *
 * Rotary (cos, sin of [max_pos][R/2]): the first R values of each new query and key head
 * rotate by the angles of their position, pairs (x[i], x[i + R/2]), or (x[2i], x[2i+1])
 * when interleaved, becoming (x1 cos - x2 sin, x2 cos + x1 sin). The position of new row s
 * of batch b: pos_ids[0] + s on the first prompt, pos_ids[b * S + s] otherwise, when
 * pos_ids is given; else s on the first prompt and p_b + s otherwise.
 *
 * Everything the sizes of the buffers do not guarantee is checked first, and the call
 * returns WGK_ERR_ATTN_LENGTHS before writing anything when it fails: a later prompt of
 * more than one batch, seqlens[b] < 0, p_b < 0 or p_b > P (past rows that are not there),
 * p_b + S > T (rows the present has no room for), P > T, a position outside [0, max_pos),
 * a bias row shorter than p_b + S. Nothing is read outside the buffers whatever the
 * values, which is what onnxruntime does not promise.
 *
 * The work for each key/value head: the Hq / Hk query rows of its group, rotated, and
 * their scores against the keys; the keys and values are read once for the whole group
 * (the decode step's cost is reading the cache).
 *
 *     wgk_f32_gqa(&(const wgk_gqa_args){.B = 1, .S = 1, .Hq = 8, .Hk = 2, .D = 64, .P = 9,
 *         .T = 10, .total = 10, .q = q, .k = k, .v = v, .ld_q = 512, .ld_kv = 128, ...});
 */
#ifndef WGK_ATTENTION_H
#define WGK_ATTENTION_H

#include "wgk_base.h"

typedef struct wgk_gqa_args {
    int B, S;               /* batch, new rows per batch */
    int Hq, Hk, D;          /* query heads, key/value heads, head size */
    int P;                  /* rows of each head in past_k / past_v ([B][Hk][P][D]) */
    int T;                  /* rows of each head in present_k / present_v ([B][Hk][T][D]) */
    int total;              /* total_sequence_length: the prompt is the first when S == total */
    /* the new rows: query head h of row (b, s) at q + (b * S + s) * ld_q + h * D, key and
     * value head hk at k + (b * S + s) * ld_kv + hk * D (packed QKV: three views of one
     * buffer) */
    const float *q, *k, *v;
    int ld_q, ld_kv;
    const float *past_k, *past_v;   /* NULL when P == 0 */
    float *present_k, *present_v;
    const int32_t *seqlens;         /* [B]: each batch's total length - 1 */
    const float *cos, *sin;         /* [max_pos][R / 2], or NULL: no rotary */
    int R, max_pos, interleaved;
    const int64_t *pos_ids;         /* [B][S] or NULL */
    /* additive bias of row (b, h, s, j): bias[b * bias_b + h * bias_h + s * bias_len + j]
     * (bias_b, bias_h 0 where it broadcasts), or NULL */
    const float *bias;
    int bias_b, bias_h, bias_len;
    const float *sink;              /* [Hq] head sinks, or NULL */
    int smooth;                     /* a sink of 0 when sink is NULL */
    float scale, softcap;           /* softcap 0: none */
    int window;                     /* keys a row may see, its own included; -1: all */
    float *y;                       /* row (b, s), head h at y + (b * S + s) * Hq * D + h * D */
    float *work;                    /* wgk_gqa_work_floats() floats, 16-byte aligned */
} wgk_gqa_args;

/* The work a call needs for T present rows (the most a module's sizes give). */
static inline size_t wgk_gqa_work_floats(int Hq, int Hk, int D, int T)
{
    const size_t G = (size_t)(Hk > 0 ? Hq / Hk : 1);
    const size_t Dp = ((size_t)D + 3) & ~(size_t)3;
    return G * (((size_t)T + 3) / 4 * 4 + 2 * Dp);
}

/* Returns 0, or WGK_ERR_ATTN_LENGTHS (nothing written) when the lengths do not fit. */
int wgk_f32_gqa(const wgk_gqa_args *a);

/*
 * Multi-head attention as onnxruntime's MultiHeadAttention and Attention (com.microsoft)
 * compute it on the CPU: H heads of query size D and value size Dv, T = P + L keys (the past's
 * P rows, then the L new ones, plus their biases), every key of every row seen, masked ones
 * by an additive mask_filter_value (not -inf: a row whose keys are all masked still averages
 * them):
 *   score_j = scale * q . k_j + mask_j + bias[b, h, s, j],
 *   mask_j = filter where the key padding mask says j is padding (mask value 0 in its
 *            [B, T] or [B, S, T] form, j >= length[b] in its [B] form), or where the
 *            attention is causal and j > P + s; else 0,
 *   y = sum_j p_j v_j, p the softmax of the scores.
 * present_k / present_v, when given, are [B, H, T, D or Dv]: the past, then the new keys and
 * values with their biases. A key padding length outside [0, T] is WGK_ERR_INDEX (nothing
 * written).
 */
enum { WGK_MHA_NO_MASK, WGK_MHA_MASK_LENGTHS, WGK_MHA_MASK_2D, WGK_MHA_MASK_3D };

typedef struct wgk_mha_args {
    int B, S, L, P, H, D, Dv;       /* batch, query rows, new key rows, past rows, heads, sizes */
    /* row (b, s) of the query, head h: q + (b * S + s) * ld_q + h * D; new key row (b, l):
     * k + (b * L + l) * ld_k + h * D; value: v + (b * L + l) * ld_v + h * Dv */
    const float *q, *k, *v;
    int ld_q, ld_k, ld_v;
    const float *bq, *bk, *bv;      /* biases [H * D], [H * D], [H * Dv], or NULL */
    const float *past_k, *past_v;   /* [B][H][P][D or Dv], or NULL when P == 0 */
    float *present_k, *present_v;   /* [B][H][T][D or Dv], or NULL */
    int mask_kind;                  /* WGK_MHA_* */
    const int32_t *mask;            /* [B], [B][T] or [B][S][T] */
    float filter;                   /* mask_filter_value */
    int causal;
    const float *bias;              /* additive bias (b, h, s, j) as wgk_gqa_args', or NULL */
    int bias_b, bias_h, bias_len;
    float scale;
    float *y;                       /* row (b, s), head h at y + (b * S + s) * H * Dv + h * Dv */
    float *work;                    /* wgk_mha_work_floats() floats, 16-byte aligned */
} wgk_mha_args;

static inline size_t wgk_mha_work_floats(int D, int Dv, int T)
{
    return (((size_t)T + 3) & ~(size_t)3) + (((size_t)D + 3) & ~(size_t)3) * 2 + (((size_t)Dv + 3) & ~(size_t)3) * 2;
}

/* Returns 0, or WGK_ERR_INDEX (nothing written) for a key padding length out of range. */
int wgk_f32_mha(const wgk_mha_args *a);

#endif
