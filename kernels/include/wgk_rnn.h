/*
 * wgk_rnn.h: RNN, GRU and LSTM layers (ONNX semantics), fp32, one call per layer.
 *
 * Gate order in W [dirs][G*H][I], R [dirs][G*H][H], B [dirs][2*G*H] (Wb then Rb) is
 * ONNX's: RNN (one gate), GRU z, r, h; LSTM i, o, f, c with peepholes P [dirs][3H] (i, o, f).
 * layout 0: X [T][B][I], Y [T][dirs][B][H], Y_h / Y_c [dirs][B][H];
 * layout 1: X [B][T][I], Y [B][T][dirs][H], Y_h / Y_c [B][dirs][H].
 * Initial states use the layout of Y_h. seq_lens (int32 [B] or NULL): steps at or past a
 * batch entry's length leave its state alone and write zeros to Y.
 * Activations: act[dir*3 + k] with alpha/beta (k: f, g, h as the op defines them).
 * clip > 0 clamps every gate pre-activation to [-clip, clip].
 * scratch: (G + 2) * B * H floats (gates, state h, state c).
 */
#ifndef WGK_RNN_H
#define WGK_RNN_H

#include "wgk_base.h"

enum { WGK_RNN = 0, WGK_GRU = 1, WGK_LSTM = 2 };
enum {
    WGK_ACT_RELU, WGK_ACT_TANH, WGK_ACT_SIGMOID, WGK_ACT_AFFINE, WGK_ACT_LEAKY_RELU,
    WGK_ACT_THRESHOLDED_RELU, WGK_ACT_SCALED_TANH, WGK_ACT_HARD_SIGMOID, WGK_ACT_ELU,
    WGK_ACT_SOFTSIGN, WGK_ACT_SOFTPLUS,
};

typedef struct wgk_rnn_args {
    int cell;           /* WGK_RNN, WGK_GRU, WGK_LSTM */
    int T, B, I, H;
    int dirs;           /* 1 or 2 */
    int reverse;        /* dirs == 1: run backwards */
    int layout;
    int linear_before_reset; /* GRU */
    float clip;         /* 0: none */
    int act[6];
    float alpha[6], beta[6];
    const float *x, *w, *r, *b, *p, *h0, *c0;
    const int32_t *seq_lens;
    float *y, *yh, *yc; /* any may be NULL */
    float *scratch;
} wgk_rnn_args;

void wgk_f32_rnn(const wgk_rnn_args *a);

#endif
