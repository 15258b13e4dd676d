/*
 * linear_attention.c: LinearAttention (opset 27), float and double: for each batch and
 * key/value head a recurrent state S [d_k, d_v] (past_state, or zeros) is updated token by
 * token as `update_rule` says -- linear: S += k v^T; gated: S = exp(g) S + k v^T (g per head
 * or per key dim); delta: S += k (beta (v - S^T k))^T; gated_delta: both -- and each query
 * head h (sharing the state of head h / (q_heads / kv_heads)) reads o = scale q^T S. Inputs
 * are [B, T, heads * d] packed; present_state is the final S. In double, in this node's
 * scratch; an inline loop.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

typedef struct la_geom {
    int64_t B, T, Hq, Hk, dk, dv;
    bool gating, delta;
    int64_t decay_last, beta_last;
} la_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, la_geom *q)
{
    wg_status st = wgc_check_present_inputs(g, n, 3, 6, 2, floats);
    if (st)
        return st;
    const wgc_tensor *qq = wgc_in(g, n, 0), *k = wgc_in(g, n, 1), *v = wgc_in(g, n, 2);
    const wgc_tensor *ps = wgc_in(g, n, 3), *dc = wgc_in(g, n, 4), *bt = wgc_in(g, n, 5);
    const char *rule = wgc_attr_str(n, "update_rule", "gated_delta");
    q->gating = !strcmp(rule, "gated") || !strcmp(rule, "gated_delta");
    q->delta = !strcmp(rule, "delta") || !strcmp(rule, "gated_delta");
    if (!q->gating && !q->delta && strcmp(rule, "linear"))
        return wgc_error(g, n, WG_ERR_INVALID, "update_rule '%s' (linear, gated, delta, gated_delta)", rule);
    if (q->gating != (dc != NULL) || q->delta != (bt != NULL))
        return wgc_error(g, n, WG_ERR_INVALID, "update_rule '%s' %s decay and %s beta", rule,
                         q->gating ? "needs" : "forbids", q->delta ? "needs" : "forbids");
    q->Hq = wgc_attr_int(n, "q_num_heads", 0), q->Hk = wgc_attr_int(n, "kv_num_heads", 0);
    if (q->Hq <= 0 || q->Hk <= 0 || q->Hq % q->Hk)
        return wgc_error(g, n, WG_ERR_INVALID, "q_num_heads %lld must be a positive multiple of kv_num_heads %lld",
                         (long long)q->Hq, (long long)q->Hk);
    if (qq->shape.rank != 3 || k->shape.rank != 3 || v->shape.rank != 3)
        return wgc_error(g, n, WG_ERR_INVALID, "query, key and value must be 3-D");
    q->B = qq->shape.dims[0], q->T = qq->shape.dims[1];
    if (qq->shape.dims[2] % q->Hq || v->shape.dims[2] % q->Hk)
        return wgc_error(g, n, WG_ERR_INVALID, "hidden sizes do not divide by the head counts");
    q->dk = qq->shape.dims[2] / q->Hq, q->dv = v->shape.dims[2] / q->Hk;
    for (int i = 1; i < 6; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (t && t->dtype != qq->dtype)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input '%s' has dtype %s, not the query's %s", t->name,
                             wg_dtype_name(t->dtype), wg_dtype_name(qq->dtype));
        if (t && i != 3 && (t->shape.rank != 3 || t->shape.dims[0] != q->B || t->shape.dims[1] != q->T))
            return wgc_error(g, n, WG_ERR_INVALID, "input '%s' must be [%lld, %lld, ...]", t->name,
                             (long long)q->B, (long long)q->T);
    }
    if (k->shape.dims[2] != q->Hk * q->dk)
        return wgc_error(g, n, WG_ERR_INVALID, "key must be [B, T, %lld]", (long long)(q->Hk * q->dk));
    if (ps && (ps->shape.rank != 4 || ps->shape.dims[0] != q->B || ps->shape.dims[1] != q->Hk ||
               ps->shape.dims[2] != q->dk || ps->shape.dims[3] != q->dv))
        return wgc_error(g, n, WG_ERR_INVALID, "past_state must be [%lld, %lld, %lld, %lld]", (long long)q->B,
                         (long long)q->Hk, (long long)q->dk, (long long)q->dv);
    q->decay_last = dc ? dc->shape.dims[2] : 0;
    if (dc && q->decay_last != q->Hk && q->decay_last != q->Hk * q->dk)
        return wgc_error(g, n, WG_ERR_INVALID, "decay's last dim %lld (kv_num_heads or kv_num_heads * d_k)",
                         (long long)q->decay_last);
    q->beta_last = bt ? bt->shape.dims[2] : 0;
    if (bt && q->beta_last != q->Hk && q->beta_last != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "beta's last dim %lld (kv_num_heads or 1)", (long long)q->beta_last);
    if (q->B * q->Hk * q->dk * q->dv >= ((int64_t)1 << 28) || wgc_numel(&qq->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "state or inputs too large");
    return WG_OK;
}

static wg_status la_infer(wgc_graph *g, wgc_node *n)
{
    la_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const int dt = wgc_in(g, n, 0)->dtype;
    wgc_shape y = {.rank = 3, .dims = {q.B, q.T, q.Hq * q.dv}}, s = {.rank = 4, .dims = {q.B, q.Hk, q.dk, q.dv}};
    wgc_set_output(g, n, 0, dt, &y);
    if (wgc_out(g, n, 1))
        wgc_set_output(g, n, 1, wgc_in(g, n, 3) ? wgc_in(g, n, 3)->dtype : dt, &s);
    return WG_OK;
}

static size_t la_scratch(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *qq = &g->tensors[n->inputs[0]], *v = &g->tensors[n->inputs[2]];
    int64_t Hq = wgc_attr_int(n, "q_num_heads", 1), Hk = wgc_attr_int(n, "kv_num_heads", 1);
    int64_t dk = Hq > 0 ? qq->shape.dims[2] / Hq : 1, dv = Hk > 0 ? v->shape.dims[2] / Hk : 1;
    return (size_t)(qq->shape.dims[0] * Hk * dk * dv + dv + 1) * sizeof(double);
}

static wg_status la_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    la_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *qq = wgc_in(g, n, 0);
    const long long B = q.B, T = q.T, Hq = q.Hq, Hk = q.Hk, dk = q.dk, dv = q.dv, G = q.Hq / q.Hk;
    const double sa = wgc_attr_float(n, "scale", 0.0f);
    char scale[40];
    wgc_dlit(scale, sizeof scale, sa != 0 ? sa : 1.0 / sqrt((double)q.dk));
    wgc_emit(e, "{\ntypedef %s T;\nconst T *pq = (const T *)%s, *pk = (const T *)%s, *pv = (const T *)%s;\n"
                "T *py = (T *)%s;\ndouble *S = (double *)%s, *u = S + %lld;\n",
             wgc_ctype(qq->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->inputs[2]), wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e), B * Hk * dk * dv);
    if (wgc_in(g, n, 3))
        wgc_emit(e, "for (int32_t i = 0; i < %lld; i++) S[i] = ((const T *)%s)[i];\n", B * Hk * dk * dv,
                 wgc_ptr(e, g, n->inputs[3]));
    else
        wgc_emit(e, "for (int32_t i = 0; i < %lld; i++) S[i] = 0;\n", B * Hk * dk * dv);
    if (q.gating)
        wgc_emit(e, "const T *pg = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[4]));
    if (q.delta)
        wgc_emit(e, "const T *pbt = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[5]));
    wgc_emit(e, "for (int32_t b = 0; b < %lld; b++)\nfor (int32_t t = 0; t < %lld; t++) {\n"
                "const int64_t bt = (int64_t)b * %lld + t;\n"
                "for (int32_t h = 0; h < %lld; h++) {\ndouble *s = S + ((int64_t)b * %lld + h) * %lld;\n"
                "const T *kr = pk + bt * %lld + h * %lld, *vr = pv + bt * %lld + h * %lld;\n",
             B, T, T, Hk, Hk, dk * dv, Hk * dk, dk, Hk * dv, dv);
    if (q.gating) {
        if (q.decay_last == q.Hk)
            wgc_emit(e, "{ const double f = wgk_exp(pg[bt * %lld + h]);\n"
                        "for (int32_t i = 0; i < %lld; i++) s[i] *= f; }\n", Hk, dk * dv);
        else
            wgc_emit(e, "for (int32_t i = 0; i < %lld; i++) { const double f = wgk_exp(pg[bt * %lld + h * %lld + i]);\n"
                        "for (int32_t j = 0; j < %lld; j++) s[i * %lld + j] *= f; }\n", dk, Hk * dk, dk, dv, dv);
    }
    if (q.delta)
        wgc_emit(e, "const double beta = pbt[bt * %lld + %s];\nfor (int32_t j = 0; j < %lld; j++) {\n"
                    "double r = 0;\nfor (int32_t i = 0; i < %lld; i++) r += s[i * %lld + j] * kr[i];\n"
                    "u[j] = beta * (vr[j] - r);\n}\n",
                 (long long)q.beta_last, q.beta_last == 1 ? "0" : "h", dv, dk, dv);
    else
        wgc_emit(e, "for (int32_t j = 0; j < %lld; j++) u[j] = vr[j];\n", dv);
    wgc_emit(e, "for (int32_t i = 0; i < %lld; i++)\nfor (int32_t j = 0; j < %lld; j++) s[i * %lld + j] += (double)kr[i] * u[j];\n}\n",
             dk, dv, dv);
    wgc_emit(e, "for (int32_t h = 0; h < %lld; h++) {\nconst double *s = S + ((int64_t)b * %lld + h / %lld) * %lld;\n"
                "const T *qr = pq + bt * %lld + h * %lld;\nT *yr = py + bt * %lld + h * %lld;\n"
                "for (int32_t j = 0; j < %lld; j++) {\ndouble o = 0;\n"
                "for (int32_t i = 0; i < %lld; i++) o += (double)qr[i] * s[i * %lld + j];\nyr[j] = (T)(%s * o);\n}\n}\n}\n",
             Hq, Hk, G, dk * dv, Hq * dk, dk, Hq * dv, dv, dv, dk, dv, scale);
    if (wgc_out(g, n, 1)) {
        const wgc_tensor *so = wgc_out(g, n, 1);
        wgc_emit(e, "for (int32_t i = 0; i < %lld; i++) ((%s *)%s)[i] = (%s)S[i];\n", B * Hk * dk * dv,
                 wgc_ctype(so->dtype), wgc_ptr(e, g, n->outputs[1]), wgc_ctype(so->dtype));
    }
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_linear_attention = {.infer = la_infer, .emit = la_emit, .scratch = la_scratch};
