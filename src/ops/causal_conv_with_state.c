/*
 * causal_conv_with_state.c: CausalConvWithState (opset 27), the stateful causal depthwise
 * 1-D convolution of Mamba-style models, float and double: over the sequence past_state
 * (zeros when absent, [batch, channels, k - 1]) followed by x ([batch, channels, length]),
 * y[t] = bias + sum_j w[j] * seq[t + j] for the channel's kernel w ([channels, 1, k]), then
 * `activation` silu / swish (y * sigmoid(y)) or none; present_state is the last k - 1
 * positions of that sequence. An inline loop, sums in double.
 */
#include <string.h>

#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

typedef struct ccs_geom {
    int64_t B, C, L, k;
    bool silu;
} ccs_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, ccs_geom *q)
{
    wg_status st = wgc_check_present_inputs(g, n, 2, 4, 2, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1), *b = wgc_in(g, n, 2), *p = wgc_in(g, n, 3);
    if (x->shape.rank != 3 || w->shape.rank != 3)
        return wgc_error(g, n, WG_ERR_INVALID, "input and weight must be 3-D (ranks %d, %d)", x->shape.rank,
                         w->shape.rank);
    q->B = x->shape.dims[0], q->C = x->shape.dims[1], q->L = x->shape.dims[2], q->k = w->shape.dims[2];
    if (w->shape.dims[0] != q->C || w->shape.dims[1] != 1 || q->k < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "weight must be [%lld, 1, k >= 1]", (long long)q->C);
    for (int i = 1; i < 4; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (t && t->dtype != x->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has dtype %s, not the input's %s", t->name,
                             wg_dtype_name(t->dtype), wg_dtype_name(x->dtype));
    }
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != q->C))
        return wgc_error(g, n, WG_ERR_INVALID, "bias must be [%lld]", (long long)q->C);
    if (p && (p->shape.rank != 3 || p->shape.dims[0] != q->B || p->shape.dims[1] != q->C ||
              p->shape.dims[2] != q->k - 1))
        return wgc_error(g, n, WG_ERR_INVALID, "past_state must be [%lld, %lld, %lld]", (long long)q->B,
                         (long long)q->C, (long long)(q->k - 1));
    const char *act = wgc_attr_str(n, "activation", "none");
    q->silu = !strcmp(act, "silu") || !strcmp(act, "swish");
    if (!q->silu && strcmp(act, "none"))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "activation '%s' (none, silu, swish)", act);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input has 2^31 or more elements");
    return WG_OK;
}

static wg_status ccs_infer(wgc_graph *g, wgc_node *n)
{
    ccs_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape ps = {.rank = 3, .dims = {q.B, q.C, q.k - 1}};
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    if (wgc_out(g, n, 1))
        wgc_set_output(g, n, 1, x->dtype, &ps);
    return WG_OK;
}

static wg_status ccs_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    ccs_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const bool bias = wgc_in(g, n, 2) != NULL, past = wgc_in(g, n, 3) != NULL;
    const long long B = q.B, C = q.C, L = q.L, K = q.k, P = q.k - 1;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s, *pw = (const T *)%s;\nT *py = (T *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->outputs[0]));
    if (bias)
        wgc_emit(e, "const T *pb = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[2]));
    if (past)
        wgc_emit(e, "const T *pp = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[3]));
    /* element s of channel (b, c)'s sequence: past for s < P, x after */
    wgc_emit(e, "#define SEQ(s) ((s) < %lld ? %s : px[bc * %lld + (s) - %lld])\n", P,
             past ? "pp[bc * P_ + (s)]" : "(T)0", L, P);
    wgc_emit(e, "for (int32_t bc = 0; bc < %lld; bc++) {\nconst int32_t c = bc %% %lld;\nconst int64_t P_ = %lld;\n(void)P_;\n"
                "for (int32_t t = 0; t < %lld; t++) {\ndouble acc = %s;\n"
                "for (int32_t j = 0; j < %lld; j++) acc += (double)pw[c * %lld + j] * SEQ(t + j);\n",
             B * C, C, P, L, bias ? "pb[c]" : "0", K, K);
    if (q.silu)
        wgc_emit(e, "acc = acc / (1.0 + wgk_exp(-acc));\n");
    wgc_emit(e, "py[(int64_t)bc * %lld + t] = (T)acc;\n}\n", L);
    if (wgc_out(g, n, 1))
        wgc_emit(e, "for (int32_t s = 0; s < %lld; s++) ((T *)%s)[(int64_t)bc * %lld + s] = SEQ(%lld + s);\n",
                 P, wgc_ptr(e, g, n->outputs[1]), P, L);
    wgc_emit(e, "}\n#undef SEQ\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_causal_conv_with_state = {.infer = ccs_infer, .emit = ccs_emit};
