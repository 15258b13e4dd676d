/*
 * contrib_qlstm.c: onnxruntime's DynamicQuantizeLSTM (com.microsoft, version 1), the LSTM that
 * its dynamic quantization writes (onnxruntime.quantization's LSTMQuant):
 *   DynamicQuantizeLSTM(X, W, R, B, sequence_lens, initial_h, initial_c, P,
 *                       W_scale, W_zero_point, R_scale, R_zero_point) -> Y, Y_h, Y_c
 * with LSTM's attributes. W [D, input, 4H] and R [D, H, 4H] are int8 or uint8, transposed
 * against LSTM's [D, 4H, input]; their scales and zero points are one per direction ([D])
 * or one per gate row ([D, 4H]).
 *
 * It expands into an LSTM over the dequantized weights, (w - zero point) * scale transposed
 * back to LSTM's layout, which constant folding computes once at compile time. onnxruntime
 * also quantizes X and each step's hidden state to uint8 before its integer GEMMs; we keep
 * them float32. Our outputs are the float LSTM's on those weights (the model before its
 * activations were quantized, so nearer the float model than onnxruntime's) and differ
 * from onnxruntime's by its activations' rounding (tests/models/contrib_ops.py).
 */
#include <stdio.h>

#include "helpers/expand_node.h"

enum { IN_X, IN_W, IN_R, IN_B, IN_SEQ_LENS, IN_INIT_H, IN_INIT_C, IN_P, IN_W_SCALE, IN_W_ZP, IN_R_SCALE, IN_R_ZP };

static const int f32[] = {WG_DT_FLOAT, 0};
static const int int8s[] = {WG_DT_INT8, WG_DT_UINT8, 0};

/* A scale or zero point of `what`: one value per direction or per gate row. */
static wg_status check_quant_param(wgc_graph *g, const wgc_node *n, int i, int64_t dirs, int64_t rows)
{
    const wgc_tensor *p = wgc_in(g, n, i);
    if (!p)
        return WG_OK;
    const int64_t *d = p->shape.dims;
    if ((p->shape.rank == 1 && d[0] == dirs) || (p->shape.rank == 2 && d[0] == dirs && d[1] == rows))
        return WG_OK;
    char want[64];
    snprintf(want, sizeof want, "[%lld] or [%lld, %lld]", (long long)dirs, (long long)dirs, (long long)rows);
    static const char *const names[] = {[IN_W_SCALE] = "W_scale", [IN_W_ZP] = "W_zero_point",
                                        [IN_R_SCALE] = "R_scale", [IN_R_ZP] = "R_zero_point"};
    return wgc_bad_input_shape(g, n, i, names[i], want);
}

static wg_status check(wgc_graph *g, const wgc_node *n)
{
    static const char *const lstm_attrs[] = {"activation_alpha", "activation_beta", "activations", "clip",
                                             "direction", "hidden_size", "input_forget", NULL};
    wg_status st = wgc_check_attr_names(g, n, lstm_attrs);
    if (!st)
        st = wgc_check_arity(g, n, 3, IN_R_ZP + 1, 1, 3); /* B .. P optional; the scales checked below */
    if (!st)
        st = wgc_check_input(g, n, IN_X, f32);
    if (!st)
        st = wgc_check_input(g, n, IN_W, int8s);
    if (!st)
        st = wgc_check_input(g, n, IN_R, int8s);
    for (int i = IN_W_SCALE; !st && i <= IN_R_SCALE; i += IN_R_SCALE - IN_W_SCALE)
        st = wgc_in(g, n, i) ? wgc_check_input(g, n, i, f32)
                             : wgc_error(g, n, WG_ERR_INVALID, "input %d (%s) is required", i,
                                         i == IN_W_SCALE ? "W_scale" : "R_scale");
    if (st)
        return st;
    const wgc_tensor *w = wgc_in(g, n, IN_W), *r = wgc_in(g, n, IN_R);
    for (int i = IN_W_ZP; i <= IN_R_ZP; i += IN_R_ZP - IN_W_ZP) {
        const wgc_tensor *zp = wgc_in(g, n, i), *q = i == IN_W_ZP ? w : r;
        if (zp && zp->dtype != q->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "zero point '%s' is %s, its weight '%s' %s", zp->name,
                             wg_dtype_name(zp->dtype), q->name, wg_dtype_name(q->dtype));
    }
    const int64_t hidden = wgc_attr_int(n, "hidden_size", 0);
    if (hidden <= 0)
        return wgc_error(g, n, WG_ERR_INVALID, "hidden_size must be given and positive");
    if (w->shape.rank != 3 || w->shape.dims[2] != 4 * hidden) {
        char want[80];
        snprintf(want, sizeof want, "[num_directions, input_size, %lld] (4 hidden_size)", (long long)(4 * hidden));
        return wgc_bad_input_shape(g, n, IN_W, "W", want);
    }
    const int64_t dirs = w->shape.dims[0];
    if (r->shape.rank != 3 || r->shape.dims[0] != dirs || r->shape.dims[1] != hidden ||
        r->shape.dims[2] != 4 * hidden) {
        char want[80];
        snprintf(want, sizeof want, "[%lld, %lld, %lld] (directions, hidden_size, 4 hidden_size)", (long long)dirs,
                 (long long)hidden, (long long)(4 * hidden));
        return wgc_bad_input_shape(g, n, IN_R, "R", want);
    }
    for (int i = IN_W_SCALE; !st && i <= IN_R_ZP; i++)
        st = check_quant_param(g, n, i, dirs, 4 * hidden);
    return st;
}

/* (q - zero point) * scale of weight q [D, K, 4H], as LSTM's [D, 4H, K]. */
static int dequantized(wgc_expansion *x, int q, int scale, int zp, const char *tag)
{
    static const int64_t per_row[] = {0, 1, -1}; /* [D] or [D, 4H] -> [D, 1, 1] or [D, 1, 4H] */
    char s[40];
    const int dims = wgc_expand_const_i64(x, "/per_row", per_row, 3);
    snprintf(s, sizeof s, "/%s_float", tag);
    int wf = wgc_expand_tensor(x, s);
    int k = wgc_expand_add(x, s, "Cast", &q, 1, &wf, 1);
    wgc_expand_attr_int(x, k, "to", WG_DT_FLOAT);
    if (zp >= 0) {
        snprintf(s, sizeof s, "/%s_zero_point", tag);
        const int zr = wgc_expand_tensor(x, s), zf = wgc_expand_tensor(x, s), centred = wgc_expand_tensor(x, s);
        wgc_expand_add(x, s, "Reshape", (const int[]){zp, dims}, 2, &zr, 1);
        k = wgc_expand_add(x, s, "Cast", &zr, 1, &zf, 1);
        wgc_expand_attr_int(x, k, "to", WG_DT_FLOAT);
        wgc_expand_add(x, s, "Sub", (const int[]){wf, zf}, 2, &centred, 1);
        wf = centred;
    }
    snprintf(s, sizeof s, "/%s_scale", tag);
    const int sr = wgc_expand_tensor(x, s), scaled = wgc_expand_tensor(x, s), lstm_layout = wgc_expand_tensor(x, s);
    wgc_expand_add(x, s, "Reshape", (const int[]){scale, dims}, 2, &sr, 1);
    wgc_expand_add(x, s, "Mul", (const int[]){wf, sr}, 2, &scaled, 1);
    k = wgc_expand_add(x, s, "Transpose", &scaled, 1, &lstm_layout, 1);
    wgc_expand_attr_ints(x, k, "perm", (const int64_t[]){0, 2, 1}, 3);
    return lstm_layout;
}

static wg_status qlstm_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = check(g, n);
    if (st)
        return st;
    int ins[IN_P + 1];
    for (int i = 0; i <= IN_P; i++)
        ins[i] = i < n->n_inputs ? n->inputs[i] : -1;
    const int w = n->inputs[IN_W], r = n->inputs[IN_R];
    const int ws = n->inputs[IN_W_SCALE], rs = n->inputs[IN_R_SCALE];
    const int wz = n->inputs[IN_W_ZP], rz = n->n_inputs > IN_R_ZP ? n->inputs[IN_R_ZP] : -1;
    int outs[3];
    const int n_out = n->n_outputs;
    for (int i = 0; i < n_out; i++)
        outs[i] = n->outputs[i];
    wgc_expansion x;
    wgc_expand_begin(&x, g, n); /* n may move from here on */
    ins[IN_W] = dequantized(&x, w, ws, wz, "W");
    ins[IN_R] = dequantized(&x, r, rs, rz, "R");
    int n_in = IN_P + 1;
    while (n_in > 3 && ins[n_in - 1] < 0)
        n_in--;
    const int k = wgc_expand_add(&x, "", "LSTM", ins, n_in, outs, n_out);
    wgc_expand_attrs_of_node(&x, k);
    return wgc_expand_finish(&x);
}

const wgc_op_def wgc_op_contrib_qlstm = {.infer = qlstm_infer, .emit = wgc_expanded_emit};
