/*
 * attention.c: Attention (opsets 23, 24, 25), float and double, as an inline loop that
 * computes each query row in double: scores s_j = scale * q . k_j, soft-capped
 * (softcap * tanh(s / softcap)), plus the additive bias of the mask, then a softmax over the
 * keys and y = sum_j p_j v_j.
 *
 * Covered: 4-D inputs [batch, heads, seq, head_size] and 3-D ones [batch, seq, heads *
 * head_size] (q_num_heads / kv_num_heads); grouped-query heads (query head h reads key/value
 * head h / (q_heads / kv_heads)); past_key / past_value (the keys are the past ones followed
 * by K; present_key / present_value are that concatenation); a boolean or additive attn_mask
 * broadcast to [batch, q_heads, q_seq, kv] whose last dim may be shorter than kv (the keys
 * past it are masked, as ONNX pads it with -inf); is_causal with ONNX's bottom-right
 * alignment (query i sees key j iff j <= i + offset, offset = past length, or
 * nonpad_kv_seqlen[b] - q_seq with an external cache); nonpad_kv_seqlen (keys from it on
 * are padding, read at run time); left/right_window_size (Attention-25); the four
 * qk_matmul_output modes. A query row whose every key is masked gives zeros, not NaN (the
 * spec's rule, decided on the bias as ONNX's reference does). Like the reference, modes 0
 * and 1 both give the soft-capped scores (they differ only without softcap, where they
 * agree). softmax_precision may ask for float or double: the softmax runs in double, at
 * least as precise as either.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/kv_cache.h"
#include "versions.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

typedef struct att_geom {
    int rank;                   /* 3 or 4 */
    int64_t B, Hq, Hk, Sq, Skv, P, T, D, Dv;
    int64_t mdims[4];           /* mask dims right-aligned to [B, Hq, Sq, M]; 0: no mask */
    int mrank;
    bool mbool;
} att_geom;

static wg_status heads(wgc_graph *g, const wgc_node *n, const char *attr, int64_t hidden, int64_t *h,
                       int64_t *size)
{
    int64_t v = wgc_attr_int(n, attr, 0);
    if (v <= 0 || hidden % v)
        return wgc_error(g, n, WG_ERR_INVALID, "3-D inputs need %s > 0 dividing the hidden size %lld "
                         "(got %lld)", attr, (long long)hidden, (long long)v);
    *h = v;
    *size = hidden / v;
    return WG_OK;
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, att_geom *a)
{
    memset(a, 0, sizeof *a);
    const wgc_tensor *q = wgc_in(g, n, 0), *k = wgc_in(g, n, 1), *v = wgc_in(g, n, 2);
    const wgc_tensor *m = wgc_in(g, n, 3), *pk = wgc_in(g, n, 4);
    const wgc_tensor *np_ = wgc_in(g, n, 6);
    wg_status st;
    for (int i = 0; i < 3; i++)
        if ((st = wgc_check_input(g, n, i, floats)))
            return st;
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "Q, K and V must have one dtype");
    a->rank = q->shape.rank;
    if ((a->rank != 3 && a->rank != 4) || k->shape.rank != a->rank || v->shape.rank != a->rank)
        return wgc_error(g, n, WG_ERR_INVALID, "Q, K and V must all be 3-D or all 4-D (ranks %d, %d, %d)",
                         q->shape.rank, k->shape.rank, v->shape.rank);
    a->B = q->shape.dims[0];
    if (a->rank == 4) {
        if (wgc_op_version(n) >= 25 && (wgc_attr_find(n, "q_num_heads") || wgc_attr_find(n, "kv_num_heads")))
            return wgc_error(g, n, WG_ERR_INVALID, "q_num_heads / kv_num_heads with 4-D inputs");
        a->Hq = q->shape.dims[1], a->Sq = q->shape.dims[2], a->D = q->shape.dims[3];
        a->Hk = k->shape.dims[1], a->Skv = k->shape.dims[2];
        if (k->shape.dims[3] != a->D || v->shape.dims[1] != a->Hk || v->shape.dims[2] != a->Skv)
            return wgc_error(g, n, WG_ERR_INVALID, "K and V do not match Q's head size / K's heads and length");
        a->Dv = v->shape.dims[3];
    } else {
        int64_t dk, dv;
        a->Sq = q->shape.dims[1], a->Skv = k->shape.dims[1];
        if ((st = heads(g, n, "q_num_heads", q->shape.dims[2], &a->Hq, &a->D)) ||
            (st = heads(g, n, "kv_num_heads", k->shape.dims[2], &a->Hk, &dk)) ||
            (st = heads(g, n, "kv_num_heads", v->shape.dims[2], &a->Hk, &dv)))
            return st;
        if (dk != a->D || v->shape.dims[1] != a->Skv)
            return wgc_error(g, n, WG_ERR_INVALID, "K's head size %lld differs from Q's %lld, or V's length from K's",
                             (long long)dk, (long long)a->D);
        a->Dv = dv;
    }
    if (k->shape.dims[0] != a->B || v->shape.dims[0] != a->B)
        return wgc_error(g, n, WG_ERR_INVALID, "Q, K and V differ in batch size");
    if (a->Hk <= 0 || a->Hq % a->Hk)
        return wgc_error(g, n, WG_ERR_INVALID, "%lld query heads are not a multiple of %lld key/value heads",
                         (long long)a->Hq, (long long)a->Hk);
    const int q_dtype[] = {q->dtype, 0};
    if ((st = wgc_check_past_kv(g, n, 4, q_dtype, &(wgc_kv_dims){a->B, a->Hk, a->D, a->Dv}, &a->P)))
        return st;
    if (pk && np_)
        return wgc_error(g, n, WG_ERR_INVALID, "nonpad_kv_seqlen cannot be combined with past_key");
    a->T = a->P + a->Skv;
    if (np_) {
        static const int i64[] = {WG_DT_INT64, 0};
        if ((st = wgc_check_input(g, n, 6, i64)))
            return st;
        if (wgc_numel(&np_->shape) != a->B || np_->shape.rank != 1)
            return wgc_error(g, n, WG_ERR_INVALID, "nonpad_kv_seqlen must be a vector of the batch size %lld",
                             (long long)a->B);
    }
    if (m) {
        static const int mdt[] = {WG_DT_BOOL, WG_DT_FLOAT, WG_DT_DOUBLE, 0};
        if ((st = wgc_check_input(g, n, 3, mdt)))
            return st;
        a->mbool = m->dtype == WG_DT_BOOL;
        if (!a->mbool && m->dtype != q->dtype)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "attn_mask of dtype %s with %s Q (bool or Q's dtype)",
                             wg_dtype_name(m->dtype), wg_dtype_name(q->dtype));
        const int64_t full[4] = {a->B, a->Hq, a->Sq, a->T};
        a->mrank = m->shape.rank;
        if (a->mrank < 1 || a->mrank > 4)
            return wgc_error(g, n, WG_ERR_INVALID, "attn_mask has rank %d (1 to 4)", a->mrank);
        for (int d = 0; d < 4; d++) {
            int md = d - (4 - a->mrank);
            a->mdims[d] = md < 0 ? 1 : m->shape.dims[md];
            bool ok = d == 3 ? a->mdims[d] <= full[d] : (a->mdims[d] == 1 || a->mdims[d] == full[d]);
            if (!ok) {
                char s[128];
                return wgc_error(g, n, WG_ERR_INVALID, "attn_mask %s does not broadcast to [%lld, %lld, %lld, %lld]",
                                 wgc_shape_str(&m->shape, s, sizeof s), (long long)full[0], (long long)full[1],
                                 (long long)full[2], (long long)full[3]);
            }
        }
    }
    int64_t mode = wgc_attr_int(n, "qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
        return wgc_error(g, n, WG_ERR_INVALID, "qk_matmul_output_mode %lld (0 to 3)", (long long)mode);
    int64_t sp = wgc_attr_int(n, "softmax_precision", 0);
    if (sp != 0 && sp != WG_DT_FLOAT && sp != WG_DT_DOUBLE && sp != WG_DT_FLOAT16)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "softmax_precision %lld", (long long)sp);
    if (wgc_attr_int(n, "left_window_size", -1) < -1 || wgc_attr_int(n, "right_window_size", -1) < -1)
        return wgc_error(g, n, WG_ERR_INVALID, "window sizes must be -1 or nonnegative");
    if (a->T * a->B * a->Hq * a->Sq >= ((int64_t)1 << 31) ||
        wgc_numel(&q->shape) >= ((int64_t)1 << 31) || wgc_numel(&k->shape) >= ((int64_t)1 << 31) ||
        wgc_numel(&v->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "inputs or scores have 2^31 or more elements");
    return WG_OK;
}

static wg_status attention_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 3, 7, 1, 4);
    att_geom a;
    if (!st)
        st = resolve(g, n, &a);
    if (st)
        return st;
    const int dt = wgc_in(g, n, 0)->dtype;
    wgc_shape y = a.rank == 4 ? (wgc_shape){.rank = 4, .dims = {a.B, a.Hq, a.Sq, a.Dv}} : (wgc_shape){.rank = 3, .dims = {a.B, a.Sq, a.Hq * a.Dv}};
    wgc_shape qk = {.rank = 4, .dims = {a.B, a.Hq, a.Sq, a.T}};
    wgc_set_output(g, n, 0, dt, &y);
    wgc_set_present_kv(g, n, 1, dt, &(wgc_kv_dims){a.B, a.Hk, a.D, a.Dv}, a.T);
    if (wgc_out(g, n, 3))
        wgc_set_output(g, n, 3, dt, &qk);
    return WG_OK;
}

static size_t attention_scratch(const wgc_graph *g, const wgc_node *n)
{
    (void)n;
    int64_t T = 0;
    const wgc_tensor *k = &g->tensors[n->inputs[1]];
    if (n->n_inputs > 4 && n->inputs[4] >= 0)
        T += g->tensors[n->inputs[4]].shape.dims[2];
    T += k->shape.dims[k->shape.rank == 4 ? 2 : 1];
    return (size_t)(T > 0 ? T : 1) * 2 * sizeof(double); /* scores and the mask bias of one row */
}

/* Strides (batch, head, seq) of a 3-D or 4-D tensor viewed as [B, H, S, D]. */
static void strides(int rank, int64_t H, int64_t S, int64_t D, int64_t *sb, int64_t *sh, int64_t *ss)
{
    *sb = H * S * D;
    if (rank == 4)
        *sh = S * D, *ss = D;
    else
        *sh = D, *ss = H * D;
}

/* Copies past (or nothing) then new into present, [B, Hk, T, D] from [B, Hk, P, D] and the
 * new keys in their own layout. */
static void emit_present(wgc_emitter *e, const att_geom *a, const char *dst, const char *past,
                         const char *src, int64_t D)
{
    int64_t sb, sh, ss;
    strides(a->rank, a->Hk, a->Skv, D, &sb, &sh, &ss);
    wgc_emit(e, "for (int32_t b = 0; b < %lld; b++)\nfor (int32_t h = 0; h < %lld; h++) {\n"
                "T *o = (T *)%s + ((int64_t)b * %lld + h) * %lld;\n",
             (long long)a->B, (long long)a->Hk, dst, (long long)a->Hk, (long long)(a->T * D));
    if (a->P)
        wgc_emit(e, "const T *p = (const T *)%s + ((int64_t)b * %lld + h) * %lld;\n"
                    "for (int32_t t = 0; t < %lld; t++) o[t] = p[t];\n",
                 past, (long long)a->Hk, (long long)(a->P * D), (long long)(a->P * D));
    wgc_emit(e, "for (int32_t j = 0; j < %lld; j++)\nfor (int32_t d = 0; d < %lld; d++)\n"
                "o[(int64_t)(%lld + j) * %lld + d] = ((const T *)%s)[(int64_t)b * %lld + h * %lld + j * %lld + d];\n}\n",
             (long long)a->Skv, (long long)D, (long long)a->P, (long long)D, src, (long long)sb, (long long)sh,
             (long long)ss);
}

/* Emits the row `name` of K or V (row width dim) at key position j of batch b and kv head hk:
 * with a past, the first P rows from the past cache pp ([B, Hk, P, dim]), the others from the
 * new rows p (strides sb, sh, ss); without one, from p. */
static void emit_kv_row(wgc_emitter *e, const char *name, const char *pp, const char *p, bool past,
                        long long P, int64_t Hk, long long dim, int64_t sb, int64_t sh, int64_t ss)
{
    if (past)
        wgc_emit(e, "const T *%s = j < %lld ? %s + (((int64_t)b * %lld + hk) * %lld + j) * %lld"
                    " : %s + (int64_t)b * %lld + hk * %lld + (j - %lld) * %lld;\n",
                 name, P, pp, (long long)Hk, P, dim, p, (long long)sb, (long long)sh, P, (long long)ss);
    else
        wgc_emit(e, "const T *%s = %s + (int64_t)b * %lld + hk * %lld + j * %lld;\n", name, p,
                 (long long)sb, (long long)sh, (long long)ss);
}

static wg_status attention_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    att_geom a;
    wg_status st = resolve(g, n, &a);
    if (st)
        return st;
    const wgc_tensor *q = wgc_in(g, n, 0);
    if (wgc_numel(&wgc_out(g, n, 0)->shape) == 0 && !wgc_out(g, n, 1) && !wgc_out(g, n, 2))
        return WG_OK;
    const bool past = wgc_in(g, n, 4) != NULL, nonpad = wgc_in(g, n, 6) != NULL;
    const bool causal = wgc_attr_int(n, "is_causal", 0) != 0;
    const bool windows = wgc_op_version(n) >= 25;
    const int64_t left = windows ? wgc_attr_int(n, "left_window_size", -1) : -1;
    const int64_t right = windows ? wgc_attr_int(n, "right_window_size", -1) : -1;
    const int64_t mode = wgc_attr_int(n, "qk_matmul_output_mode", 0);
    const double cap = wgc_attr_float(n, "softcap", 0.0f);
    const wgc_attr *sa = wgc_attr_find(n, "scale");
    /* ONNX scales Q and K each by sqrt(scale) rounded to T; their product is the scale. */
    double root = sqrt(sa ? (double)sa->f : 1.0 / sqrt((double)a.D));
    if (q->dtype == WG_DT_FLOAT)
        root = (float)root;
    char scale[40], capl[40];
    wgc_dlit(scale, sizeof scale, root * root);
    wgc_dlit(capl, sizeof capl, cap);
    wgc_emit(e, "{\ntypedef %s T;\nconst T *pq = (const T *)%s, *pk = (const T *)%s, *pv = (const T *)%s;\n"
                "T *py = (T *)%s;\ndouble *sc = (double *)%s, *bias = sc + %lld;\n",
             wgc_ctype(q->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->inputs[2]), wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e), (long long)a.T);
    if (past)
        wgc_emit(e, "const T *ppk = (const T *)%s, *ppv = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[4]),
                 wgc_ptr(e, g, n->inputs[5]));
    if (nonpad)
        wgc_emit(e, "const int64_t *pnp = (const int64_t *)%s;\n", wgc_ptr(e, g, n->inputs[6]));
    if (a.mrank)
        wgc_emit(e, "const %s *pm = (const %s *)%s;\n", wgc_ctype(wgc_in(g, n, 3)->dtype),
                 wgc_ctype(wgc_in(g, n, 3)->dtype), wgc_ptr(e, g, n->inputs[3]));
    if (wgc_out(g, n, 3))
        wgc_emit(e, "T *pqk = (T *)%s;\n", wgc_ptr(e, g, n->outputs[3]));
    int64_t qb, qh, qs, kb, kh, ks, vb, vh, vs, yb, yh, ys;
    strides(a.rank, a.Hq, a.Sq, a.D, &qb, &qh, &qs);
    strides(a.rank, a.Hk, a.Skv, a.D, &kb, &kh, &ks);
    strides(a.rank, a.Hk, a.Skv, a.Dv, &vb, &vh, &vs);
    strides(a.rank, a.Hq, a.Sq, a.Dv, &yb, &yh, &ys);
    /* mask strides over [B, Hq, Sq, M], 0 where it broadcasts */
    int64_t mst[4] = {0}, acc = 1;
    for (int d = 3; d >= 0 && a.mrank; d--) {
        mst[d] = a.mdims[d] == 1 && d < 3 ? 0 : acc;
        acc *= a.mdims[d];
    }
    const long long B = a.B, Hq = a.Hq, Sq = a.Sq, T = a.T, P = a.P, D = a.D, Dv = a.Dv,
                    G = a.Hq / a.Hk;
    wgc_emit(e, "for (int32_t b = 0; b < %lld; b++)\nfor (int32_t h = 0; h < %lld; h++)\n"
                "for (int32_t i = 0; i < %lld; i++) {\nconst int32_t hk = h / %lld;\n"
                "const T *qr = pq + (int64_t)b * %lld + h * %lld + i * %lld;\n",
             B, Hq, Sq, G, (long long)qb, (long long)qh, (long long)qs);
    /* offset: keys before this query block; valid: keys that are not padding */
    if (nonpad)
        wgc_emit(e, "const int64_t valid = pnp[b], offset = valid - %lld;\n", Sq);
    else
        wgc_emit(e, "const int64_t valid = %lld, offset = %lld;\n", T, P);
    wgc_emit(e, "int any = 0;\ndouble mx = -1.0 / 0.0;\nfor (int32_t j = 0; j < %lld; j++) {\n", T);
    emit_kv_row(e, "kr", "ppk", "pk", past, P, a.Hk, D, kb, kh, ks);
    wgc_emit(e, "double s = 0;\nfor (int32_t d = 0; d < %lld; d++) s += (double)qr[d] * kr[d];\ns *= %s;\n", D,
             scale);
    if (cap > 0)
        wgc_emit(e, "s = %s * wgk_tanh(s / %s);\n", capl, capl);
    const char *ninf = "(-1.0 / 0.0)";
    wgc_emit(e, "double bs = 0;\n");
    if (a.mrank) {
        wgc_emit(e, "if (j >= %lld) bs = %s;\nelse {\nconst int64_t mi = (int64_t)b * %lld + h * %lld + i * %lld + j;\n",
                 (long long)a.mdims[3], ninf, (long long)mst[0], (long long)mst[1], (long long)mst[2]);
        if (a.mbool)
            wgc_emit(e, "if (!pm[mi]) bs = %s;\n}\n", ninf);
        else
            wgc_emit(e, "bs += (double)pm[mi];\n}\n");
    }
    if (causal)
        wgc_emit(e, "if (j > i + offset) bs += %s;\n", ninf);
    if (left >= 0)
        wgc_emit(e, "if (i + offset - j > %lld) bs += %s;\n", (long long)left, ninf);
    if (right >= 0)
        wgc_emit(e, "if (j - (i + offset) > %lld) bs += %s;\n", (long long)right, ninf);
    if (nonpad)
        wgc_emit(e, "if (j >= valid) bs += %s;\n", ninf);
    wgc_emit(e, "(void)valid; (void)offset;\nif (bs > %s) any = 1;\nbias[j] = bs;\nsc[j] = s + bs;\n"
                "if (sc[j] > mx) mx = sc[j];\n",
             ninf);
    if (wgc_out(g, n, 3) && mode <= 1)
        wgc_emit(e, "pqk[(((int64_t)b * %lld + h) * %lld + i) * %lld + j] = (T)s;\n", Hq, Sq, T);
    if (wgc_out(g, n, 3) && mode == 2)
        wgc_emit(e, "pqk[(((int64_t)b * %lld + h) * %lld + i) * %lld + j] = (T)sc[j];\n", Hq, Sq, T);
    wgc_emit(e, "}\n(void)bias;\ndouble sum = 0;\nconst int live = any && mx > %s;\n"
                "for (int32_t j = 0; j < %lld; j++) { sc[j] = live ? wgk_exp(sc[j] - mx) : 0; sum += sc[j]; }\n"
                "if (sum == 0) sum = 1;\n",
             ninf, T);
    /* ONNX rounds the probabilities to T before the second MatMul */
    wgc_emit(e, "for (int32_t j = 0; j < %lld; j++) sc[j] = (double)(T)(sc[j] / sum);\n", T);
    if (wgc_out(g, n, 3) && mode == 3)
        wgc_emit(e, "for (int32_t j = 0; j < %lld; j++) pqk[(((int64_t)b * %lld + h) * %lld + i) * %lld + j] = (T)sc[j];\n",
                 T, Hq, Sq, T);
    wgc_emit(e, "T *yr = py + (int64_t)b * %lld + h * %lld + i * %lld;\nfor (int32_t d = 0; d < %lld; d++) {\n"
                "double o = 0;\nfor (int32_t j = 0; j < %lld; j++) {\n",
             (long long)yb, (long long)yh, (long long)ys, Dv, T);
    emit_kv_row(e, "vr", "ppv", "pv", past, P, a.Hk, Dv, vb, vh, vs);
    wgc_emit(e, "o += sc[j] * vr[d];\n}\nyr[d] = (T)o;\n}\n}\n");
    if (wgc_out(g, n, 1))
        emit_present(e, &a, wgc_ptr(e, g, n->outputs[1]), past ? wgc_ptr(e, g, n->inputs[4]) : "",
                     wgc_ptr(e, g, n->inputs[1]), a.D);
    if (wgc_out(g, n, 2))
        emit_present(e, &a, wgc_ptr(e, g, n->outputs[2]), past ? wgc_ptr(e, g, n->inputs[5]) : "",
                     wgc_ptr(e, g, n->inputs[2]), a.Dv);
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_attention = {.infer = attention_infer, .emit = attention_emit, .scratch = attention_scratch};
