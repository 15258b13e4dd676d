/*
 * test_attention.c: the attention kernels (wgk_attention.h) against naive loops in double
 * written from the header's formulas.
 *
 * wgk_f32_gqa: query groups of 1, 2 and 4 heads, head sizes 4, 5 (SIMD tails), 16 and 20;
 * batch 1 and 2 with their own valid lengths (a right-padded prompt), a first prompt from
 * an empty past, a decode step and a later prompt over a past; packed and separate Q/K/V
 * rows; rotary half-split and interleaved, whole and partial, at computed and given
 * positions; a local window (0, 1, 3), softcap, an additive bias broadcast over the heads,
 * smooth softmax and head sinks. Every length that does not fit (seqlens past the past, a
 * later prompt of two batches, a position outside the cache, P > T) returns
 * WGK_ERR_ATTN_LENGTHS and writes nothing.
 * wgk_f32_mha: no mask, lengths, [B, T] and [B, S, T] masks, causal, a past with and without
 * the present, biases on Q, K and V, value heads of another size; lengths out of range
 * return WGK_ERR_INDEX.
 */
#include "wgk_attention.h"
#include "wgk_math.h"
#include "wgk_status.h"
#include "wgkt.h"

#define MB 2
#define MS 4
#define MH 8
#define MD 20
#define MP 8
#define MT 12
#define MPOS 16

static uint32_t seed = 11;
static float Q[MB * MS * 3 * MH * MD], K[MB * MS * MH * MD], V[MB * MS * MH * MD];
static float PK[MB * MH * MP * MD], PV[MB * MH * MP * MD];
static float YK[MB * MH * MT * MD], YV[MB * MH * MT * MD], WK[MB * MH * MT * MD], WV[MB * MH * MT * MD];
static float Y[MB * MS * MH * MD], W[MB * MS * MH * MD];
static float COS[MPOS * MD / 2], SIN[MPOS * MD / 2], BIAS[MB * MH * MS * MT], SINK[MH], QB[3 * MH * MD];
static int32_t SEQ[MB], MASK[MB * MS * MT];
static int64_t POS[MB * MS];
static float WORK[4096] __attribute__((aligned(16)));
static double sc[MT];

static void fill(float *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = wgkt_rand(&seed);
}

static void rotate_ref(double *out, const float *x, const float *c, const float *s, int R, int D, int inter)
{
    for (int d = 0; d < D; d++)
        out[d] = x[d];
    for (int i = 0; i < R / 2; i++) {
        const int i1 = inter ? 2 * i : i, i2 = inter ? 2 * i + 1 : i + R / 2;
        out[i1] = (double)x[i1] * c[i] - (double)x[i2] * s[i];
        out[i2] = (double)x[i2] * c[i] + (double)x[i1] * s[i];
    }
}

/* softmax of n scores in place, with a sink logit when has_sink */
static void softmax_ref(double *x, int n, int has_sink, double sink)
{
    double m = has_sink ? sink : -1e300, sum = 0;
    for (int j = 0; j < n; j++)
        m = x[j] > m ? x[j] : m;
    for (int j = 0; j < n; j++)
        sum += x[j] = wgk_exp(x[j] - m);
    if (has_sink)
        sum += wgk_exp(sink - m);
    for (int j = 0; j < n; j++)
        x[j] /= sum;
}

static int position_ref(const wgk_gqa_args *a, int b, int s, int past, int first)
{
    if (a->pos_ids)
        return (int)(first ? a->pos_ids[0] + s : a->pos_ids[b * a->S + s]);
    return first ? s : past + s;
}

/* wgk_f32_gqa's formulas, in double, into W (output) and WK, WV (presents). */
static void gqa_ref(const wgk_gqa_args *a)
{
    const int G = a->Hq / a->Hk, D = a->D, first = a->S == a->total;
    for (int i = 0; i < a->B * a->Hk * a->T * D; i++)
        WK[i] = WV[i] = 0;
    for (int b = 0; b < a->B; b++) {
        const int t = a->seqlens[b] + 1, past = first ? 0 : t - a->S;
        for (int hk = 0; hk < a->Hk; hk++) {
            float *pk = WK + ((b * a->Hk + hk) * a->T) * D, *pv = WV + ((b * a->Hk + hk) * a->T) * D;
            for (int j = 0; j < past * D; j++)
                pk[j] = a->past_k[(b * a->Hk + hk) * a->P * D + j], pv[j] = a->past_v[(b * a->Hk + hk) * a->P * D + j];
            for (int s = 0; s < a->S; s++) {
                const int at = (b * a->S + s) * a->ld_kv + hk * D, pos = position_ref(a, b, s, past, first);
                const float *kr = a->k + at, *vr = a->v + at;
                double kd[MD];
                if (a->cos)
                    rotate_ref(kd, kr, a->cos + pos * a->R / 2, a->sin + pos * a->R / 2, a->R, D, a->interleaved);
                else
                    for (int d = 0; d < D; d++)
                        kd[d] = kr[d];
                for (int d = 0; d < D; d++)
                    pk[(past + s) * D + d] = (float)kd[d], pv[(past + s) * D + d] = vr[d];
            }
        }
        for (int h = 0; h < a->Hq; h++) {
            const int hk = h / G;
            const float *pk = WK + ((b * a->Hk + hk) * a->T) * D, *pv = WV + ((b * a->Hk + hk) * a->T) * D;
            for (int s = 0; s < a->S; s++) {
                const int pos = position_ref(a, b, s, past, first);
                double q[MD];
                const float *qr = a->q + (b * a->S + s) * a->ld_q + h * D;
                if (a->cos)
                    rotate_ref(q, qr, a->cos + pos * a->R / 2, a->sin + pos * a->R / 2, a->R, D, a->interleaved);
                else
                    for (int d = 0; d < D; d++)
                        q[d] = qr[d];
                const int causal = past + s + 1, hi = causal < t ? causal : t;
                const int lo = a->window >= 0 && hi > a->window ? hi - a->window : 0;
                for (int j = lo; j < hi; j++) {
                    double x = 0;
                    for (int d = 0; d < D; d++)
                        x += q[d] * pk[j * D + d];
                    x *= a->scale;
                    if (a->softcap > 0)
                        x = a->softcap * wgk_tanh(x / a->softcap);
                    if (a->bias)
                        x += a->bias[b * a->bias_b + h * a->bias_h + s * a->bias_len + j];
                    sc[j - lo] = x;
                }
                if (hi > lo)
                    softmax_ref(sc, hi - lo, a->sink || a->smooth, a->sink ? a->sink[h] : 0);
                for (int d = 0; d < D; d++) {
                    double o = 0;
                    for (int j = lo; j < hi; j++)
                        o += sc[j - lo] * pv[j * D + d];
                    W[(b * a->S + s) * a->Hq * D + h * D + d] = (float)o;
                }
            }
        }
    }
}

static void check_gqa(wgk_gqa_args *a, const char *what)
{
    a->y = Y, a->present_k = YK, a->present_v = YV, a->work = WORK;
    WGKT_CHECK(wgk_gqa_work_floats(a->Hq, a->Hk, a->D, a->T) <= sizeof WORK / sizeof WORK[0], what);
    const int st = wgk_f32_gqa(a);
    WGKT_CHECK(st == 0, what);
    gqa_ref(a);
    for (int i = 0; i < a->B * a->S * a->Hq * a->D; i++)
        WGKT_CHECK_CLOSE(Y[i], W[i], 1e-4f, 1e-5f, what);
    for (int i = 0; i < a->B * a->Hk * a->T * a->D; i++) {
        WGKT_CHECK_CLOSE(YK[i], WK[i], 1e-5f, 1e-6f, what);
        WGKT_CHECK_CLOSE(YV[i], WV[i], 0.0f, 0.0f, what);
    }
}

/* A call whose lengths do not fit: WGK_ERR_ATTN_LENGTHS and Y untouched. */
static void check_gqa_refused(wgk_gqa_args *a, const char *what)
{
    a->y = Y, a->present_k = YK, a->present_v = YV, a->work = WORK;
    for (int i = 0; i < MB * MS * MH * MD; i++)
        Y[i] = 7.0f;
    WGKT_CHECK(wgk_f32_gqa(a) == WGK_ERR_ATTN_LENGTHS, what);
    int untouched = 1;
    for (int i = 0; i < MB * MS * MH * MD; i++)
        untouched = untouched && Y[i] == 7.0f;
    WGKT_CHECK(untouched, what);
}

static wgk_gqa_args gqa_base(int B, int S, int Hq, int Hk, int D, int P, int total, int packed)
{
    const int ld_q = (packed ? Hq + 2 * Hk : Hq) * D;
    wgk_gqa_args a = {.B = B, .S = S, .Hq = Hq, .Hk = Hk, .D = D, .P = P, .T = total > P ? total : P,
                      .total = total, .q = Q, .ld_q = ld_q, .ld_kv = packed ? ld_q : Hk * D,
                      .past_k = P ? PK : 0, .past_v = P ? PV : 0, .seqlens = SEQ, .window = -1,
                      .scale = 1.0f / wgk_sqrtf((float)D)};
    a.k = packed ? Q + Hq * D : K;
    a.v = packed ? Q + (Hq + Hk) * D : V;
    return a;
}

static void gqa_tests(void)
{
    fill(Q, sizeof Q / sizeof Q[0]), fill(K, sizeof K / sizeof K[0]), fill(V, sizeof V / sizeof V[0]);
    fill(PK, sizeof PK / sizeof PK[0]), fill(PV, sizeof PV / sizeof PV[0]);
    fill(COS, sizeof COS / sizeof COS[0]), fill(SIN, sizeof SIN / sizeof SIN[0]);
    fill(BIAS, sizeof BIAS / sizeof BIAS[0]), fill(SINK, MH);
    static const int groups[][3] = {{4, 2, 4}, {8, 2, 5}, {3, 3, 16}, {4, 1, 20}}; /* Hq, Hk, D */
    for (int gi = 0; gi < 4; gi++) {
        const int Hq = groups[gi][0], Hk = groups[gi][1], D = groups[gi][2];
        for (int packed = 0; packed < 2; packed++) {
            /* first prompt of 4 rows from an empty past, batch 2 right-padded to 4 and 2 */
            SEQ[0] = 3, SEQ[1] = 1;
            wgk_gqa_args a = gqa_base(2, 4, Hq, Hk, D, 0, 4, packed);
            check_gqa(&a, "gqa first prompt");
            /* decode: one row on pasts of 5 and 3 valid rows (P = 6), T = 7 */
            SEQ[0] = 5, SEQ[1] = 3;
            a = gqa_base(2, 1, Hq, Hk, D, 6, 7, packed);
            check_gqa(&a, "gqa decode");
            /* a later prompt of 3 rows over a past of 4 (batch 1) */
            SEQ[0] = 6;
            a = gqa_base(1, 3, Hq, Hk, D, 4, 7, packed);
            check_gqa(&a, "gqa later prompt");
            /* rotary, whole and partial, half-split and interleaved, computed and given positions */
            for (int inter = 0; inter < 2; inter++)
                for (int part = 0; part < 2; part++) {
                    const int R = part ? (D / 2) & ~1 : D & ~1;
                    SEQ[0] = 5, SEQ[1] = 3;
                    a = gqa_base(2, 1, Hq, Hk, D, 6, 7, packed);
                    a.cos = COS, a.sin = SIN, a.R = R, a.max_pos = MPOS, a.interleaved = inter;
                    check_gqa(&a, "gqa rotary decode");
                    POS[0] = 9, POS[1] = 2;
                    a.pos_ids = POS;
                    check_gqa(&a, "gqa rotary at positions");
                    SEQ[0] = 3, SEQ[1] = 3;
                    a = gqa_base(2, 4, Hq, Hk, D, 0, 4, packed);
                    a.cos = COS, a.sin = SIN, a.R = R, a.max_pos = MPOS, a.interleaved = inter;
                    check_gqa(&a, "gqa rotary prompt");
                }
            /* windows, softcap, bias (broadcast over the heads), sinks */
            for (int w = 0; w < 3; w++) {
                SEQ[0] = 5, SEQ[1] = 4;
                a = gqa_base(2, 1, Hq, Hk, D, 6, 7, packed);
                a.window = (int[]){0, 1, 3}[w];
                a.softcap = w == 2 ? 0.7f : 0.0f;
                a.bias = BIAS, a.bias_b = 1 * 1 * 7, a.bias_h = 0, a.bias_len = 7;
                a.smooth = w == 0, a.sink = w == 1 ? SINK : 0;
                check_gqa(&a, "gqa window, softcap, bias, sinks");
            }
        }
    }
    /* lengths that do not fit: nothing written */
    SEQ[0] = 7, SEQ[1] = 3; /* a past of 7 rows in a past buffer of 6 */
    wgk_gqa_args a = gqa_base(2, 1, 4, 2, 4, 6, 7, 0);
    check_gqa_refused(&a, "gqa seqlens past the past");
    SEQ[0] = -1;
    check_gqa_refused(&a, "gqa negative seqlens");
    SEQ[0] = 5, SEQ[1] = 5;
    a = gqa_base(2, 3, 4, 2, 4, 6, 8, 0); /* a later prompt of two batches */
    check_gqa_refused(&a, "gqa later prompt of two batches");
    SEQ[0] = 5, SEQ[1] = 3;
    a = gqa_base(2, 1, 4, 2, 4, 6, 7, 0);
    a.cos = COS, a.sin = SIN, a.R = 4, a.max_pos = 5; /* position 5 outside a cache of 5 */
    check_gqa_refused(&a, "gqa position outside the cache");
    a = gqa_base(2, 1, 4, 2, 4, 6, 7, 0);
    a.T = 5; /* a present shorter than the past */
    check_gqa_refused(&a, "gqa present shorter than the past");
}

/* wgk_f32_mha's formulas, in double, into W and WK, WV. */
static void mha_ref(const wgk_mha_args *a)
{
    const int T = a->P + a->L, D = a->D, Dv = a->Dv;
    for (int b = 0; b < a->B; b++)
        for (int h = 0; h < a->H; h++) {
            float *pk = WK + ((b * a->H + h) * T) * D, *pv = WV + ((b * a->H + h) * T) * Dv;
            for (int j = 0; j < T; j++) {
                const int past = ((b * a->H + h) * a->P + j), row = b * a->L + j - a->P;
                for (int d = 0; d < D; d++)
                    pk[j * D + d] = j < a->P ? a->past_k[past * D + d]
                                             : a->k[row * a->ld_k + h * D + d] + (a->bk ? a->bk[h * D + d] : 0);
                for (int d = 0; d < Dv; d++)
                    pv[j * Dv + d] = j < a->P ? a->past_v[past * Dv + d]
                                              : a->v[row * a->ld_v + h * Dv + d] + (a->bv ? a->bv[h * Dv + d] : 0);
            }
            for (int s = 0; s < a->S; s++) {
                for (int j = 0; j < T; j++) {
                    double x = 0;
                    for (int d = 0; d < D; d++)
                        x += ((double)a->q[(b * a->S + s) * a->ld_q + h * D + d] + (a->bq ? a->bq[h * D + d] : 0)) *
                             pk[j * D + d];
                    int pad = a->mask_kind == WGK_MHA_MASK_LENGTHS ? j >= a->mask[b]
                            : a->mask_kind == WGK_MHA_MASK_2D ? a->mask[b * T + j] == 0
                            : a->mask_kind == WGK_MHA_MASK_3D ? a->mask[(b * a->S + s) * T + j] == 0 : 0;
                    sc[j] = x * a->scale + (pad || (a->causal && j > a->P + s) ? a->filter : 0) +
                            (a->bias ? a->bias[b * a->bias_b + h * a->bias_h + s * a->bias_len + j] : 0);
                }
                softmax_ref(sc, T, 0, 0);
                for (int d = 0; d < Dv; d++) {
                    double o = 0;
                    for (int j = 0; j < T; j++)
                        o += sc[j] * pv[j * Dv + d];
                    W[(b * a->S + s) * a->H * Dv + h * Dv + d] = (float)o;
                }
            }
        }
}

static void check_mha(wgk_mha_args *a, int present, const char *what)
{
    const int T = a->P + a->L;
    a->y = Y, a->present_k = present ? YK : 0, a->present_v = present ? YV : 0, a->work = WORK;
    WGKT_CHECK(wgk_f32_mha(a) == 0, what);
    mha_ref(a);
    for (int i = 0; i < a->B * a->S * a->H * a->Dv; i++)
        WGKT_CHECK_CLOSE(Y[i], W[i], 1e-4f, 1e-5f, what);
    for (int i = 0; present && i < a->B * a->H * T * a->D; i++)
        WGKT_CHECK_CLOSE(YK[i], WK[i], 0.0f, 0.0f, what);
    for (int i = 0; present && i < a->B * a->H * T * a->Dv; i++)
        WGKT_CHECK_CLOSE(YV[i], WV[i], 0.0f, 0.0f, what);
}

static void mha_tests(void)
{
    fill(QB, sizeof QB / sizeof QB[0]);
    static const int sizes[][3] = {{2, 4, 4}, {3, 5, 3}, {4, 16, 8}}; /* H, D, Dv */
    for (int si = 0; si < 3; si++) {
        const int H = sizes[si][0], D = sizes[si][1], Dv = sizes[si][2];
        for (int variant = 0; variant < 8; variant++) {
            const int past = variant & 1, present = (variant >> 1) & 1, kind = variant >> 1;
            wgk_mha_args a = {.B = 2, .S = 3, .L = past ? 2 : 4, .P = past ? 5 : 0, .H = H, .D = D, .Dv = Dv,
                              .q = Q, .k = K, .v = V, .ld_q = H * D, .ld_k = H * D, .ld_v = H * Dv,
                              .past_k = past ? PK : 0, .past_v = past ? PV : 0, .filter = -10000.0f,
                              .causal = variant == 5, .scale = 0.35f};
            const int T = a.P + a.L;
            if (variant & 2)
                a.bq = QB, a.bk = QB + H * D, a.bv = QB + 2 * H * D;
            a.mask_kind = kind;
            for (int i = 0; i < a.B * a.S * T; i++)
                MASK[i] = (i * 7 + variant) % 5 != 0;
            if (kind == WGK_MHA_MASK_LENGTHS)
                MASK[0] = T, MASK[1] = 1;
            a.mask = MASK;
            if (variant == 6)
                a.bias = BIAS, a.bias_b = 0, a.bias_h = a.S * T, a.bias_len = T;
            check_mha(&a, present, "mha");
        }
    }
    wgk_mha_args a = {.B = 2, .S = 1, .L = 2, .P = 0, .H = 2, .D = 4, .Dv = 4, .q = Q, .k = K, .v = V, .ld_q = 8,
                      .ld_k = 8, .ld_v = 8, .mask_kind = WGK_MHA_MASK_LENGTHS, .mask = MASK, .scale = 1, .y = Y,
                      .work = WORK};
    MASK[0] = 3, MASK[1] = 1;
    WGKT_CHECK(wgk_f32_mha(&a) == WGK_ERR_INDEX, "mha length past the keys");
    MASK[0] = -1;
    WGKT_CHECK(wgk_f32_mha(&a) == WGK_ERR_INDEX, "mha negative length");
}

static void run(void)
{
    gqa_tests();
    mha_tests();
}

WGKT_MAIN("attention", run)
