/*
 * test_rnn.c: the recurrence kernel on hand-checkable cases: a one-unit RNN (tanh) over
 * three steps forward and reverse, sequence_lens zeroing Y past an entry's length,
 * layout 1 indexing, a GRU step with and without linear_before_reset, and an LSTM step
 * with peepholes, each against the ONNX formulas written out here.
 */
#include "wgk_math.h"
#include "wgk_rnn.h"
#include "wgkt.h"

static float S[256], Y[256], YH[16], YC[16];

static wgk_rnn_args base(int cell)
{
    wgk_rnn_args a = {.cell = cell, .dirs = 1, .scratch = S,
                      .act = {WGK_ACT_SIGMOID, WGK_ACT_TANH, WGK_ACT_TANH, WGK_ACT_SIGMOID,
                              WGK_ACT_TANH, WGK_ACT_TANH}};
    if (cell == WGK_RNN)
        a.act[0] = a.act[3] = WGK_ACT_TANH;
    return a;
}

static void rnn(void)
{
    /* T=3, B=2, I=1, H=1: h = tanh(w x + r h + wb + rb) */
    const float x[6] = {0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 0.1f}, w = 0.8f, r = -0.6f, b[2] = {0.1f, 0.05f};
    const int32_t lens[2] = {3, 2};
    for (int rev = 0; rev < 2; rev++) {
        wgk_rnn_args a = base(WGK_RNN);
        a.T = 3, a.B = 2, a.I = 1, a.H = 1, a.reverse = rev;
        a.x = x, a.w = &w, a.r = &r, a.b = b, a.seq_lens = lens, a.y = Y, a.yh = YH;
        wgk_f32_rnn(&a);
        int ok = 1;
        for (int bb = 0; bb < 2; bb++) {
            float h = 0;
            for (int s = 0; s < lens[bb]; s++) {
                int t = rev ? lens[bb] - 1 - s : s;
                h = wgk_tanhf(w * x[t * 2 + bb] + r * h + b[0] + b[1]);
                ok &= wgkt_close(Y[t * 2 + bb], h, 1e-6f, 1e-7f);
            }
            for (int t = lens[bb]; t < 3; t++)
                ok &= Y[t * 2 + bb] == 0.0f;
            ok &= wgkt_close(YH[bb], h, 1e-6f, 1e-7f);
        }
        WGKT_CHECK(ok, rev ? "reverse RNN with sequence_lens" : "forward RNN with sequence_lens");
    }
    /* layout 1: X [B][T][I], Y [B][T][1][H] */
    const float xl[6] = {0.5f, 0.25f, -0.75f, -1.0f, 2.0f, 0.1f}; /* x transposed */
    wgk_rnn_args a = base(WGK_RNN);
    a.T = 3, a.B = 2, a.I = 1, a.H = 1, a.layout = 1;
    a.x = xl, a.w = &w, a.r = &r, a.b = b, a.y = Y, a.yh = YH;
    wgk_f32_rnn(&a);
    int ok = 1;
    for (int bb = 0; bb < 2; bb++) {
        float h = 0;
        for (int t = 0; t < 3; t++) {
            h = wgk_tanhf(w * x[t * 2 + bb] + r * h + b[0] + b[1]);
            ok &= wgkt_close(Y[bb * 3 + t], h, 1e-6f, 1e-7f);
        }
    }
    WGKT_CHECK(ok, "layout 1 RNN");
}

static void gru(void)
{
    /* one step, I=1, H=1, initial h */
    const float x = 0.7f, w[3] = {0.3f, -0.4f, 0.9f}, r[3] = {0.2f, 0.5f, -0.8f};
    const float b[6] = {0.1f, 0.2f, 0.3f, -0.1f, 0.05f, 0.4f}, h0 = 0.6f;
    for (int lbr = 0; lbr < 2; lbr++) {
        wgk_rnn_args a = base(WGK_GRU);
        a.T = 1, a.B = 1, a.I = 1, a.H = 1, a.linear_before_reset = lbr;
        a.x = &x, a.w = w, a.r = r, a.b = b, a.h0 = &h0, a.y = Y, a.yh = YH;
        wgk_f32_rnn(&a);
        float z = wgk_sigmoidf(w[0] * x + r[0] * h0 + b[0] + b[3]);
        float rr = wgk_sigmoidf(w[1] * x + r[1] * h0 + b[1] + b[4]);
        float hh = lbr ? wgk_tanhf(w[2] * x + b[2] + rr * (r[2] * h0 + b[5]))
                       : wgk_tanhf(w[2] * x + b[2] + r[2] * (rr * h0) + b[5]);
        float h = (1 - z) * hh + z * h0;
        WGKT_CHECK_CLOSE(Y[0], h, 1e-6f, 1e-7f, lbr ? "GRU step, linear_before_reset" : "GRU step");
    }
}

static void lstm(void)
{
    const float x = -0.3f, w[4] = {0.5f, -0.2f, 0.7f, 0.1f}, r[4] = {0.3f, 0.6f, -0.4f, 0.8f};
    const float b[8] = {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f, 0.08f};
    const float p[3] = {0.2f, -0.3f, 0.4f}, h0 = 0.25f, c0 = -0.5f;
    wgk_rnn_args a = base(WGK_LSTM);
    a.T = 1, a.B = 1, a.I = 1, a.H = 1;
    a.x = &x, a.w = w, a.r = r, a.b = b, a.p = p, a.h0 = &h0, a.c0 = &c0, a.y = Y, a.yh = YH, a.yc = YC;
    wgk_f32_rnn(&a);
    float i = wgk_sigmoidf(w[0] * x + r[0] * h0 + p[0] * c0 + b[0] + b[4]);
    float f = wgk_sigmoidf(w[2] * x + r[2] * h0 + p[2] * c0 + b[2] + b[6]);
    float cc = wgk_tanhf(w[3] * x + r[3] * h0 + b[3] + b[7]);
    float c = f * c0 + i * cc;
    float o = wgk_sigmoidf(w[1] * x + r[1] * h0 + p[1] * c + b[1] + b[5]);
    float h = o * wgk_tanhf(c);
    WGKT_CHECK_CLOSE(YC[0], c, 1e-6f, 1e-7f, "LSTM cell state with peepholes");
    WGKT_CHECK_CLOSE(YH[0], h, 1e-6f, 1e-7f, "LSTM hidden state with peepholes");
    WGKT_CHECK_CLOSE(Y[0], h, 1e-6f, 1e-7f, "LSTM Y");
}

static void run(void)
{
    rnn();
    gru();
    lstm();
}

WGKT_MAIN("rnn", run)
