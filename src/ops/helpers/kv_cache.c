/* kv_cache.c: the past and present key/value of the attention operators (kv_cache.h). */
#include "kv_cache.h"

#include <stdio.h>

#include "../../ir/symdim.h"

wg_status wgc_check_past_kv(wgc_graph *g, const wgc_node *n, int ik, const int *dtypes, const wgc_kv_dims *kv,
                            int64_t *past)
{
    const wgc_tensor *pk = wgc_in(g, n, ik), *pv = wgc_in(g, n, ik + 1);
    *past = 0;
    if (!pk != !pv)
        return wgc_error(g, n, WG_ERR_INVALID, "past_key and past_value must be given together");
    if (!pk)
        return WG_OK;
    wg_status st;
    if ((st = wgc_check_input(g, n, ik, dtypes)) || (st = wgc_check_input(g, n, ik + 1, dtypes)))
        return st;
    const int64_t *a = pk->shape.dims, *b = pv->shape.dims;
    if (pk->shape.rank != 4 || pv->shape.rank != 4 || pk->dtype != pv->dtype || a[0] != kv->B || a[1] != kv->H ||
        a[3] != kv->D || b[0] != kv->B || b[1] != kv->H || b[2] != a[2] || b[3] != kv->Dv)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "past_key and past_value must be [%lld, %lld, past, %lld] and [%lld, %lld, past, %lld] "
                         "(batch, key/value heads, length, head size) of one dtype",
                         (long long)kv->B, (long long)kv->H, (long long)kv->D, (long long)kv->B, (long long)kv->H,
                         (long long)kv->Dv);
    *past = a[2];
    return WG_OK;
}

void wgc_set_present_kv(wgc_graph *g, const wgc_node *n, int first, int dtype, const wgc_kv_dims *kv,
                        int64_t total)
{
    const wgc_shape k = {.rank = 4, .dims = {kv->B, kv->H, total, kv->D}};
    const wgc_shape v = {.rank = 4, .dims = {kv->B, kv->H, total, kv->Dv}};
    if (wgc_out(g, n, first))
        wgc_set_output(g, n, first, dtype, &k);
    if (wgc_out(g, n, first + 1))
        wgc_set_output(g, n, first + 1, dtype, &v);
}

wg_status wgc_check_attention_bias(wgc_graph *g, const wgc_node *n, int i, int64_t B, int64_t H, int64_t S,
                                   int64_t total, const char *want)
{
    static const int f32[] = {WG_DT_FLOAT, 0};
    const wgc_tensor *bias = wgc_in(g, n, i);
    if (!bias)
        return WG_OK;
    wg_status st = wgc_check_input(g, n, i, f32);
    if (st)
        return st;
    const int64_t *d = bias->shape.dims;
    if (bias->shape.rank != 4 || (d[0] != 1 && d[0] != B) || (d[1] != 1 && d[1] != H) || d[2] != S ||
        (d[3] != total && !g->n_syms))
        return wgc_bad_input_shape(g, n, i, "attention_bias", want);
    return WG_OK;
}

void wgc_emit_attention_bias(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int i)
{
    const wgc_tensor *bias = wgc_in(g, n, i);
    if (!bias)
        return;
    const bool all_b = bias->shape.dims[0] == 1 && !wgc_dim_is_sym(&bias->shape, 0);
    char sb[96], sh[96];
    snprintf(sb, sizeof sb, "%s", all_b ? "0" : wgc_size_expr(e, &bias->shape, 1, 4));
    snprintf(sh, sizeof sh, "%s", bias->shape.dims[1] == 1 ? "0" : wgc_size_expr(e, &bias->shape, 2, 4));
    wgc_emit(e, "    .bias = (const float *)%s, .bias_b = %s, .bias_h = %s, .bias_len = %s,\n",
             wgc_ptr(e, g, n->inputs[i]), sb, sh, wgc_size_expr(e, &bias->shape, 3, 4));
}
