/*
 * f32-mha.c: multi-head attention with an optional past, as onnxruntime's MultiHeadAttention
 * and Attention (com.microsoft) compute it on the CPU (wgk_attention.h has the formulas).
 *
 * The key padding lengths are checked first, so a call writes everything or nothing. The
 * present cache, when asked for, is written first and the keys and values are then read
 * from it; without it, each key and value row is read from the past or the new rows, its
 * bias added into the work buffer. Scores and sums in float32, as onnxruntime's.
 */
#include "attention-rows.h"
#include "wgk_status.h"

/* Key (or value) row j of head h of batch b: the past's, or new row j - P with its bias
 * added into tmp. dim: D or Dv. */
static const float *kv_row(const wgk_mha_args *a, const float *past, const float *rows, int ld, const float *bias,
                           int dim, int b, int h, int j, float *tmp)
{
    if (j < a->P)
        return past + (((size_t)b * a->H + h) * a->P + j) * dim;
    const float *r = rows + ((size_t)b * a->L + (j - a->P)) * ld + (size_t)h * dim;
    if (!bias)
        return r;
    for (int d = 0; d < dim; d++)
        tmp[d] = r[d] + bias[(size_t)h * dim + d];
    return tmp;
}

static void build_present(const wgk_mha_args *a, float *tmp)
{
    const int T = a->P + a->L;
    for (int b = 0; b < a->B; b++)
        for (int h = 0; h < a->H; h++)
            for (int j = 0; j < T; j++) {
                const size_t row = ((size_t)b * a->H + h) * T + j;
                if (a->present_k)
                    copy(a->present_k + row * a->D, kv_row(a, a->past_k, a->k, a->ld_k, a->bk, a->D, b, h, j, tmp),
                         a->D);
                if (a->present_v)
                    copy(a->present_v + row * a->Dv, kv_row(a, a->past_v, a->v, a->ld_v, a->bv, a->Dv, b, h, j, tmp),
                         a->Dv);
            }
}

/* mask_j of row (b, s) (wgk_attention.h). */
static float mask_at(const wgk_mha_args *a, int b, int s, int j, int T)
{
    int pad = 0;
    switch (a->mask_kind) {
    case WGK_MHA_MASK_LENGTHS: pad = j >= a->mask[b]; break;
    case WGK_MHA_MASK_2D: pad = a->mask[(size_t)b * T + j] == 0; break;
    case WGK_MHA_MASK_3D: pad = a->mask[((size_t)b * a->S + s) * T + j] == 0; break;
    default: break;
    }
    return pad || (a->causal && j > a->P + s) ? a->filter : 0.0f;
}

int wgk_f32_mha(const wgk_mha_args *a)
{
    const int T = a->P + a->L, Dp = (a->D + 3) & ~3, Dvp = (a->Dv + 3) & ~3;
    for (int b = 0; a->mask_kind == WGK_MHA_MASK_LENGTHS && b < a->B; b++)
        if (a->mask[b] < 0 || a->mask[b] > T)
            return WGK_ERR_INDEX;
    float *sc = a->work, *qs = sc + ((T + 3) & ~3), *tmp = qs + Dp, *acc = tmp + (Dp > Dvp ? Dp : Dvp);
    if (a->present_k || a->present_v)
        build_present(a, tmp);
    for (int b = 0; b < a->B; b++)
        for (int h = 0; h < a->H; h++)
            for (int s = 0; s < a->S; s++) {
                const float *qr = a->q + ((size_t)b * a->S + s) * a->ld_q + (size_t)h * a->D;
                for (int d = 0; d < a->D; d++)
                    qs[d] = qr[d] + (a->bq ? a->bq[(size_t)h * a->D + d] : 0.0f);
                const float *br = a->bias ? a->bias + (size_t)b * a->bias_b + (size_t)h * a->bias_h +
                                                (size_t)s * a->bias_len : 0;
                const size_t head = (size_t)b * a->H + h;
                for (int j = 0; j < T; j++) {
                    const float *kr = a->present_k ? a->present_k + (head * T + j) * a->D
                                                   : kv_row(a, a->past_k, a->k, a->ld_k, a->bk, a->D, b, h, j, tmp);
                    sc[j] = dot(qs, kr, a->D) * a->scale + mask_at(a, b, s, j, T) + (br ? br[j] : 0.0f);
                }
                if (T)
                    softmax(sc, T, 0, 0.0f);
                for (int d = 0; d < a->Dv; d++)
                    acc[d] = 0.0f;
                for (int j = 0; j < T; j++) {
                    const float *vr = a->present_v ? a->present_v + (head * T + j) * a->Dv
                                                   : kv_row(a, a->past_v, a->v, a->ld_v, a->bv, a->Dv, b, h, j, tmp);
                    axpy(acc, sc[j], vr, a->Dv);
                }
                copy(a->y + ((size_t)b * a->S + s) * a->H * a->Dv + (size_t)h * a->Dv, acc, a->Dv);
            }
    return 0;
}
