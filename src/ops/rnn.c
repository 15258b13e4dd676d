/*
 * rnn.c: RNN, GRU and LSTM (float32): forward, reverse, bidirectional; layout 0 and 1;
 * sequence_lens; initial states; LSTM peepholes; GRU linear_before_reset; clip; every
 * activation of the ONNX list. LSTM's input_forget = 1 is reported as unsupported.
 * One kernel call per layer (kernels/rnn/f32-rnn.c).
 */
#include <string.h>
#include <strings.h>

#include "../../kernels/include/wgk_rnn.h"
#include "helpers/fused_epilogue.h"

typedef struct rnn_geom {
    int cell, G, dirs, reverse, layout, lbr;
    int64_t T, B, I, H;
    float clip;
    int act[6];
    float alpha[6], beta[6];
} rnn_geom;

static const struct {
    const char *name;
    int kind, alpha, beta; /* uses alpha / beta */
    float da, db;          /* defaults; NAN: must be given */
} acts[] = {
    {"Relu", WGK_ACT_RELU, 0, 0, 0, 0},
    {"Tanh", WGK_ACT_TANH, 0, 0, 0, 0},
    {"Sigmoid", WGK_ACT_SIGMOID, 0, 0, 0, 0},
    {"Affine", WGK_ACT_AFFINE, 1, 1, NAN, NAN},
    {"LeakyRelu", WGK_ACT_LEAKY_RELU, 1, 0, 0.01f, 0},
    {"ThresholdedRelu", WGK_ACT_THRESHOLDED_RELU, 1, 0, 1.0f, 0},
    {"ScaledTanh", WGK_ACT_SCALED_TANH, 1, 1, NAN, NAN},
    {"HardSigmoid", WGK_ACT_HARD_SIGMOID, 1, 1, 0.2f, 0.5f},
    {"Elu", WGK_ACT_ELU, 1, 0, 1.0f, 0},
    {"Softsign", WGK_ACT_SOFTSIGN, 0, 0, 0, 0},
    {"Softplus", WGK_ACT_SOFTPLUS, 0, 0, 0, 0},
};

static wg_status parse_acts(wgc_graph *g, const wgc_node *n, rnn_geom *q)
{
    static const char *const dflt[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    const int per = q->cell == WGK_RNN ? 1 : q->cell == WGK_GRU ? 2 : 3;
    const wgc_attr *at = wgc_attr_find(n, "activations");
    const char *names[6];
    int count = per * q->dirs;
    if (at) {
        /* one name per gate function and direction (a single STRING counts as a list of one) */
        const size_t have = at->type == WGC_ATTR_STRINGS ? at->n : at->type == WGC_ATTR_STRING ? 1 : 0;
        if (have != (size_t)count || (at->type == WGC_ATTR_STRINGS && !at->strings) ||
            (at->type == WGC_ATTR_STRING && !at->s))
            return wgc_error(g, n, WG_ERR_INVALID,
                             "activations has %zu names; %s with %d direction(s) needs %d", have,
                             n->op_type, q->dirs, count);
        for (int i = 0; i < count; i++)
            names[i] = at->type == WGC_ATTR_STRINGS ? at->strings[i] : at->s;
    } else {
        for (int i = 0; i < count; i++)
            names[i] = dflt[q->cell][i % per];
    }
    size_t na = 0, nb = 0;
    const float *av = wgc_attr_floats(n, "activation_alpha", &na);
    const float *bv = wgc_attr_floats(n, "activation_beta", &nb);
    int need_a = 0, need_b = 0, ia = 0, ib = 0;
    int kinds[6];
    for (int i = 0; i < count; i++) {
        kinds[i] = -1;
        for (size_t k = 0; k < sizeof acts / sizeof *acts; k++)
            if (!strcasecmp(names[i], acts[k].name))
                kinds[i] = (int)k;
        if (kinds[i] < 0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "activation '%s' is not supported", names[i]);
        need_a += acts[kinds[i]].alpha;
        need_b += acts[kinds[i]].beta;
    }
    /* alpha/beta lists: one value per activation that takes it (the ONNX runtimes' reading);
     * a list of another length is ambiguous. */
    if ((av && (int)na != need_a) || (bv && (int)nb != need_b))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "activation_alpha/beta have %zu/%zu values for %d/%d activations that take them",
                         na, nb, need_a, need_b);
    for (int i = 0; i < count; i++) {
        const int k = kinds[i];
        q->act[i] = acts[k].kind;
        q->alpha[i] = acts[k].alpha ? (av ? av[ia++] : acts[k].da) : 0;
        q->beta[i] = acts[k].beta ? (bv ? bv[ib++] : acts[k].db) : 0;
        if (q->alpha[i] != q->alpha[i] || q->beta[i] != q->beta[i])
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "activation '%s' needs activation_alpha and "
                             "activation_beta values", names[i]);
    }
    if (q->dirs == 1)
        for (int i = 0; i < 3; i++) {
            q->act[3 + i] = q->act[i];
            q->alpha[3 + i] = q->alpha[i];
            q->beta[3 + i] = q->beta[i];
        }
    else if (per < 3)
        /* direction 1's activations start at index per; the kernel reads them at 3 */
        for (int i = per - 1; i >= 0; i--) {
            q->act[3 + i] = q->act[per + i];
            q->alpha[3 + i] = q->alpha[per + i];
            q->beta[3 + i] = q->beta[per + i];
        }
    return WG_OK;
}

static wg_status expect_shape(wgc_graph *g, const wgc_node *n, int i, int rank, const int64_t *dims)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    static const int f32[] = {WG_DT_FLOAT, 0};
    wg_status st = wgc_check_input(g, n, i, f32);
    if (st)
        return st;
    bool ok = t->shape.rank == rank;
    for (int d = 0; ok && d < rank; d++)
        ok = t->shape.dims[d] == dims[d];
    if (!ok) {
        char a[128];
        return wgc_error(g, n, WG_ERR_INVALID, "input %d '%s' has shape %s, which does not fit", i,
                         t->name, wgc_shape_str(&t->shape, a, sizeof a));
    }
    return WG_OK;
}

static bool present(const wgc_node *n, int i)
{
    return i < n->n_inputs && n->inputs[i] >= 0;
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, rnn_geom *q)
{
    memset(q, 0, sizeof *q);
    q->cell = n->op == WGC_OP_RNN ? WGK_RNN : n->op == WGC_OP_GRU ? WGK_GRU : WGK_LSTM;
    q->G = q->cell == WGK_RNN ? 1 : q->cell == WGK_GRU ? 3 : 4;
    const int max_in = q->cell == WGK_LSTM ? 8 : 6, max_out = q->cell == WGK_LSTM ? 3 : 2;
    static const int f32[] = {WG_DT_FLOAT, 0};
    wg_status st = wgc_check_arity(g, n, 3, max_in, 0, max_out);
    if (!st)
        st = wgc_check_input(g, n, 0, f32);
    if (!st)
        st = wgc_check_input(g, n, 1, f32);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1);
    const char *dir = wgc_attr_str(n, "direction", "forward");
    if (!strcmp(dir, "bidirectional"))
        q->dirs = 2;
    else if (!strcmp(dir, "forward") || !strcmp(dir, "reverse"))
        q->dirs = 1, q->reverse = !strcmp(dir, "reverse");
    else
        return wgc_error(g, n, WG_ERR_INVALID, "unknown direction '%s'", dir);
    q->layout = (int)wgc_attr_int(n, "layout", 0);
    if (q->layout != 0 && q->layout != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "layout = %d (must be 0 or 1)", q->layout);
    if (q->cell == WGK_LSTM && wgc_attr_int(n, "input_forget", 0) != 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "LSTM with input_forget = 1 is not supported");
    q->lbr = q->cell == WGK_GRU && wgc_attr_int(n, "linear_before_reset", 0) != 0;
    const wgc_attr *ca = wgc_attr_find(n, "clip");
    q->clip = ca ? ca->f : 0.0f;
    if (ca && !(q->clip > 0))
        return wgc_error(g, n, WG_ERR_INVALID, "clip = %g must be positive", (double)q->clip);
    if (x->shape.rank != 3 || w->shape.rank != 3)
        return wgc_error(g, n, WG_ERR_INVALID, "X and W must have rank 3");
    q->T = x->shape.dims[q->layout ? 1 : 0];
    q->B = x->shape.dims[q->layout ? 0 : 1];
    q->I = x->shape.dims[2];
    q->H = w->shape.dims[1] / q->G;
    const int64_t hs = wgc_attr_int(n, "hidden_size", q->H);
    if (hs != q->H || q->H < 1 || w->shape.dims[1] != q->G * q->H || w->shape.dims[0] != q->dirs ||
        w->shape.dims[2] != q->I)
        return wgc_error(g, n, WG_ERR_INVALID, "W '%s' does not fit hidden_size %lld, %d direction(s) "
                         "and input size %lld", w->name, (long long)hs, q->dirs, (long long)q->I);
    const int64_t D = q->dirs, GH = q->G * q->H, H = q->H, B = q->B;
    if ((st = expect_shape(g, n, 2, 3, (const int64_t[]){D, GH, H})))
        return st;
    if (present(n, 3) && (st = expect_shape(g, n, 3, 2, (const int64_t[]){D, 2 * GH})))
        return st;
    if (present(n, 4)) {
        static const int i32[] = {WG_DT_INT32, 0};
        const wgc_tensor *sl = wgc_in(g, n, 4);
        if ((st = wgc_check_input(g, n, 4, i32)))
            return st;
        if (sl->shape.rank != 1 || sl->shape.dims[0] != B)
            return wgc_error(g, n, WG_ERR_INVALID, "sequence_lens '%s' must have shape [%lld]",
                             sl->name, (long long)B);
        if (sl->data)
            for (int64_t b = 0; b < B; b++) {
                int64_t v = wgc_const_int(sl, b);
                if (v < 0 || v > q->T)
                    return wgc_error(g, n, WG_ERR_INVALID, "sequence_lens[%lld] = %lld is outside 0..%lld",
                                     (long long)b, (long long)v, (long long)q->T);
            }
    }
    const int64_t *sdims = q->layout ? (const int64_t[]){B, D, H} : (const int64_t[]){D, B, H};
    if (present(n, 5) && (st = expect_shape(g, n, 5, 3, sdims)))
        return st;
    if (present(n, 6) && (st = expect_shape(g, n, 6, 3, sdims)))
        return st;
    if (present(n, 7) && (st = expect_shape(g, n, 7, 2, (const int64_t[]){D, 3 * H})))
        return st;
    if (q->T < 1 || q->B < 1 || q->T * q->B * q->I >= ((int64_t)1 << 30) ||
        q->T * q->B * D * H >= ((int64_t)1 << 30) || D * GH * (q->I + H) >= ((int64_t)1 << 30))
        return wgc_error(g, n, WG_ERR_LIMIT, "%s sizes are empty or too large for the kernel", n->op_type);
    return parse_acts(g, n, q);
}

static wg_status rnn_infer(wgc_graph *g, wgc_node *n)
{
    rnn_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    wgc_shape y = q.layout ? (wgc_shape){.rank = 4, .dims = {q.B, q.T, q.dirs, q.H}} : (wgc_shape){.rank = 4, .dims = {q.T, q.dirs, q.B, q.H}};
    wgc_shape s = q.layout ? (wgc_shape){.rank = 3, .dims = {q.B, q.dirs, q.H}} : (wgc_shape){.rank = 3, .dims = {q.dirs, q.B, q.H}};
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    wgc_set_output(g, n, 1, WG_DT_FLOAT, &s);
    wgc_set_output(g, n, 2, WG_DT_FLOAT, &s);
    return WG_OK;
}

static size_t rnn_scratch(const wgc_graph *g, const wgc_node *n)
{
    rnn_geom q;
    if (resolve((wgc_graph *)g, n, &q))
        return 0;
    return sizeof(float) * (size_t)((q.G + 2) * q.B * q.H);
}

static wg_status rnn_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    rnn_geom q;
    wg_status st = resolve(g, n, &q);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
#define IN(i) (present(n, i) ? wgc_ptr(e, g, n->inputs[i]) : "0")
#define OUT(i) (i < n->n_outputs && n->outputs[i] >= 0 ? wgc_ptr(e, g, n->outputs[i]) : "0")
    wgc_emit(e, "wgk_f32_rnn(&(const wgk_rnn_args){.cell = %d, .T = %lld, .B = %lld, .I = %lld, "
                ".H = %lld, .dirs = %d, .reverse = %d, .layout = %d, .linear_before_reset = %d, "
                ".clip = %s,\n",
             q.cell, (long long)q.T, (long long)q.B, (long long)q.I, (long long)q.H, q.dirs,
             q.reverse, q.layout, q.lbr, wgc_float(e, q.clip));
    wgc_emit(e, "    .act = {%d, %d, %d, %d, %d, %d}, .alpha = {%s, %s, %s, %s, %s, %s},\n", q.act[0],
             q.act[1], q.act[2], q.act[3], q.act[4], q.act[5], wgc_float(e, q.alpha[0]),
             wgc_float(e, q.alpha[1]), wgc_float(e, q.alpha[2]), wgc_float(e, q.alpha[3]),
             wgc_float(e, q.alpha[4]), wgc_float(e, q.alpha[5]));
    wgc_emit(e, "    .beta = {%s, %s, %s, %s, %s, %s},\n", wgc_float(e, q.beta[0]),
             wgc_float(e, q.beta[1]), wgc_float(e, q.beta[2]), wgc_float(e, q.beta[3]),
             wgc_float(e, q.beta[4]), wgc_float(e, q.beta[5]));
    wgc_emit(e, "    .x = %s, .w = %s, .r = %s, .b = %s,", IN(0), IN(1), IN(2), IN(3));
    wgc_emit(e, "    .seq_lens = %s, .h0 = %s, .c0 = %s, .p = %s,", IN(4), IN(5),
             q.cell == WGK_LSTM ? IN(6) : "0", q.cell == WGK_LSTM ? IN(7) : "0");
    wgc_emit(e, "    .y = %s, .yh = %s, .yc = %s, .scratch = %s});\n", OUT(0), OUT(1),
             q.cell == WGK_LSTM ? OUT(2) : "0", wgc_scratch(e));
#undef IN
#undef OUT
    return WG_OK;
}

const wgc_op_def wgc_op_rnn = {.infer = rnn_infer, .emit = rnn_emit, .scratch = rnn_scratch};
