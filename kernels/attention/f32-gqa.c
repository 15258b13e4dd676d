/*
 * f32-gqa.c: attention over a KV cache with grouped-query heads, as onnxruntime's
 * GroupQueryAttention computes it on the CPU (wgk_attention.h has the formulas).
 *
 * Order of work: the lengths are checked for every batch first, so that a call either
 * writes everything or nothing. Then, per batch and key/value head, the present cache is
 * built (the kept past rows, the new keys rotated, the new values, zeros after them), and
 * each new row's queries of the whole group (Hq / Hk heads) are scored against the keys
 * it may see: each key row is read once for the group, its dot products with the group's
 * queries taken while it is in cache, and likewise each value row for the weighted sums.
 * Scores and sums are float32 as onnxruntime's (its order of summation differs).
 */
#include "attention-rows.h"
#include "wgk_status.h"

/* out = x with its first R values rotated by the angles of cos c and sin s (R / 2 each);
 * the rest copied. */
static void rotate(float *WGK_RESTRICT out, const float *WGK_RESTRICT x, const float *c, const float *s, int R,
                   int D, int interleaved)
{
    const int half = R / 2;
    for (int i = 0; i < half; i++) {
        const int i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
        const float x1 = x[i1], x2 = x[i2];
        out[i1] = x1 * c[i] - x2 * s[i];
        out[i2] = x2 * c[i] + x1 * s[i];
    }
    copy(out + R, x + R, D - R);
}

/* The rows of batch b's past that the present keeps (wgk_attention.h). */
static int64_t kept_past(const wgk_gqa_args *a, int b, int first)
{
    return first ? 0 : (int64_t)a->seqlens[b] + 1 - a->S;
}

static int64_t position(const wgk_gqa_args *a, int b, int s, int64_t past, int first)
{
    if (a->pos_ids)
        return first ? a->pos_ids[0] + s : a->pos_ids[(int64_t)b * a->S + s];
    return first ? s : past + s;
}

/* Every length and position the call will use fits its buffers (wgk_attention.h). */
static int lengths_fit(const wgk_gqa_args *a, int first)
{
    if ((a->S > 1 && !first && a->B != 1) || a->P > a->T || a->total > a->T || a->total < 0)
        return 0;
    for (int b = 0; b < a->B; b++) {
        const int64_t t = (int64_t)a->seqlens[b] + 1, past = kept_past(a, b, first);
        if (t < 1 || t > a->T || past < 0 || past > a->P || past + a->S > a->T)
            return 0;
        if (a->bias && past + a->S > a->bias_len)
            return 0;
        for (int s = 0; a->cos && s < a->S; s++) {
            const int64_t pos = position(a, b, s, past, first);
            if (pos < 0 || pos >= a->max_pos)
                return 0;
        }
    }
    return 1;
}

/* Present rows of key/value head hk of batch b: the kept past, the new rows (keys rotated
 * at their positions), zeros after them. */
static void build_present(const wgk_gqa_args *a, int b, int hk, int64_t past, int first)
{
    const int D = a->D, S = a->S;
    const size_t head = (size_t)b * a->Hk + hk;
    float *pk = a->present_k + head * a->T * D, *pv = a->present_v + head * a->T * D;
    if (past) {
        copy(pk, a->past_k + head * a->P * D, (int)past * D);
        copy(pv, a->past_v + head * a->P * D, (int)past * D);
    }
    for (int s = 0; s < S; s++) {
        const size_t at = ((size_t)b * S + s) * a->ld_kv + (size_t)hk * D;
        float *kr = pk + (past + s) * D;
        if (a->cos) {
            const int64_t pos = position(a, b, s, past, first);
            const int half = a->R / 2;
            rotate(kr, a->k + at, a->cos + pos * half, a->sin + pos * half, a->R, D, a->interleaved);
        } else {
            copy(kr, a->k + at, D);
        }
        copy(pv + (past + s) * D, a->v + at, D);
    }
    for (int64_t i = (past + S) * D; i < (int64_t)a->T * D; i++)
        pk[i] = pv[i] = 0.0f;
}

/* New row s of batch b against key/value head hk: the group's G query heads. */
static void group_row(const wgk_gqa_args *a, int b, int hk, int s, int64_t past, int first)
{
    const int D = a->D, G = a->Hq / a->Hk, Dp = (D + 3) & ~3, Tp = (a->T + 3) & ~3;
    float *qs = a->work, *acc = qs + (size_t)G * Dp, *sc = acc + (size_t)G * Dp;
    const size_t head = (size_t)b * a->Hk + hk;
    const float *pk = a->present_k + head * a->T * D, *pv = a->present_v + head * a->T * D;
    /* causal, and never past the batch's valid length (a right-padded prompt's padding rows
     * see the valid keys only) */
    const int64_t t = (int64_t)a->seqlens[b] + 1, causal = past + s + 1, hi = causal < t ? causal : t;
    const int64_t lo = a->window >= 0 && hi > a->window ? hi - a->window : 0;
    const int n = (int)(hi - lo); /* 0 with a window of 0: the row is zeros */
    const int64_t pos = a->cos ? position(a, b, s, past, first) : 0;
    const float *qrow = a->q + ((size_t)b * a->S + s) * a->ld_q;
    for (int g = 0; g < G; g++) {
        const int h = hk * G + g;
        if (a->cos)
            rotate(qs + g * Dp, qrow + (size_t)h * D, a->cos + pos * (a->R / 2), a->sin + pos * (a->R / 2), a->R, D,
                   a->interleaved);
        else
            copy(qs + g * Dp, qrow + (size_t)h * D, D);
    }
    for (int64_t j = lo; j < hi; j++) {
        const float *kr = pk + j * D;
        for (int g = 0; g < G; g++)
            sc[(size_t)g * Tp + (j - lo)] = dot(qs + g * Dp, kr, D) * a->scale;
    }
    for (int g = 0; g < G; g++) {
        const int h = hk * G + g;
        float *x = sc + (size_t)g * Tp;
        if (a->softcap > 0.0f)
            for (int j = 0; j < n; j++)
                x[j] = a->softcap * wgk_tanhf(x[j] / a->softcap);
        if (a->bias) {
            const float *br = a->bias + (size_t)b * a->bias_b + (size_t)h * a->bias_h + (size_t)s * a->bias_len + lo;
            for (int j = 0; j < n; j++)
                x[j] += br[j];
        }
        if (n)
            softmax(x, n, a->sink || a->smooth, a->sink ? a->sink[h] : 0.0f);
    }
    for (int i = 0; i < G * Dp; i++)
        acc[i] = 0.0f;
    for (int64_t j = lo; j < hi; j++) {
        const float *vr = pv + j * D;
        for (int g = 0; g < G; g++)
            axpy(acc + g * Dp, sc[(size_t)g * Tp + (j - lo)], vr, D);
    }
    float *yrow = a->y + ((size_t)b * a->S + s) * a->Hq * D;
    for (int g = 0; g < G; g++)
        copy(yrow + (size_t)(hk * G + g) * D, acc + g * Dp, D);
}

int wgk_f32_gqa(const wgk_gqa_args *a)
{
    const int first = a->S == a->total;
    if (!lengths_fit(a, first))
        return WGK_ERR_ATTN_LENGTHS;
    for (int b = 0; b < a->B; b++) {
        const int64_t past = kept_past(a, b, first);
        for (int hk = 0; hk < a->Hk; hk++) {
            build_present(a, b, hk, past, first);
            for (int s = 0; s < a->S; s++)
                group_row(a, b, hk, s, past, first);
        }
    }
    return 0;
}
