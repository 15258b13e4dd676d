/* kv_cache.h: the past and present key/value tensors of the attention operators (ONNX's
 * Attention, onnxruntime's MultiHeadAttention and GroupQueryAttention): one check of the
 * past pair, one shape rule for the present pair and one check of the additive attention
 * bias, so that the ops cannot differ. */
#ifndef WGC_KV_CACHE_H
#define WGC_KV_CACHE_H

#include "../op.h"

/* The cache's dims other than its length: batch, key/value heads, key and value head size. */
typedef struct wgc_kv_dims {
    int64_t B, H, D, Dv;
} wgc_kv_dims;

/* The optional past_key and past_value at inputs ik and ik + 1: both or neither, each of
 * one of dtypes (0-terminated), [B, H, past, D] and [B, H, past, Dv] with one past. *past
 * is that length, 0 without a past. Else WG_ERR_INVALID (or wgc_check_input's error). */
wg_status wgc_check_past_kv(wgc_graph *g, const wgc_node *n, int ik, const int *dtypes, const wgc_kv_dims *kv,
                            int64_t *past);

/* The present_key and present_value outputs first and first + 1, those that the node has:
 * dtype, [B, H, total, D] and [B, H, total, Dv]. */
void wgc_set_present_kv(wgc_graph *g, const wgc_node *n, int first, int dtype, const wgc_kv_dims *kv,
                        int64_t total);

/* The optional float32 attention_bias at input i: [batch or 1, heads or 1, S, total]. A total
 * other than `total` passes where the graph has symbols (the op checks it at run time). */
wg_status wgc_check_attention_bias(wgc_graph *g, const wgc_node *n, int i, int64_t B, int64_t H, int64_t S,
                                   int64_t total, const char *want);
/* The kernel arguments' bias fields for that input, where present (.bias, .bias_b and .bias_h:
 * the strides of batch and heads, 0 where it broadcasts; .bias_len: its total, the last dim). */
void wgc_emit_attention_bias(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int i);

#endif
