/*
 * f32-rnn.c: RNN / GRU / LSTM recurrence (see wgk_rnn.h). Straight loops: per step and
 * batch entry, the gate pre-activations are W x_t + R h_{t-1} + biases, then the cell
 * update. Small recurrent layers are latency-bound, so there is no packing.
 */
#include "wgk_math.h"
#include "wgk_rnn.h"

static float act(int kind, float alpha, float beta, float x)
{
    switch (kind) {
    case WGK_ACT_RELU: return x > 0 ? x : 0;
    case WGK_ACT_TANH: return wgk_tanhf(x);
    case WGK_ACT_SIGMOID: return wgk_sigmoidf(x);
    case WGK_ACT_AFFINE: return alpha * x + beta;
    case WGK_ACT_LEAKY_RELU: return x >= 0 ? x : alpha * x;
    case WGK_ACT_THRESHOLDED_RELU: return x > alpha ? x : 0;
    case WGK_ACT_SCALED_TANH: return alpha * wgk_tanhf(beta * x);
    case WGK_ACT_HARD_SIGMOID: {
        float v = alpha * x + beta;
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case WGK_ACT_ELU: return x >= 0 ? x : alpha * (wgk_expf(x) - 1);
    case WGK_ACT_SOFTSIGN: return x / (1 + wgk_fabsf(x));
    case WGK_ACT_SOFTPLUS: return x > 20 ? x : wgk_logf(1 + wgk_expf(x));
    default: return x;
    }
}

static float dot(const float *a, const float *b, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static void run_dir(const wgk_rnn_args *a, int dir, int backwards)
{
    const int G = a->cell == WGK_RNN ? 1 : a->cell == WGK_GRU ? 3 : 4;
    const int B = a->B, H = a->H, I = a->I, T = a->T;
    const float *W = a->w + (size_t)dir * G * H * I, *R = a->r + (size_t)dir * G * H * H;
    const float *Wb = a->b ? a->b + (size_t)dir * 2 * G * H : 0, *Rb = Wb ? Wb + G * H : 0;
    const float *P = a->p ? a->p + (size_t)dir * 3 * H : 0;
    float *gates = a->scratch, *h = gates + (size_t)G * B * H, *c = h + (size_t)B * H;
    const float *fa = &a->alpha[dir * 3], *fb = &a->beta[dir * 3];
    const int *fk = &a->act[dir * 3];
    /* state index of (dir, b) in Y_h / initial_h */
    for (int b = 0; b < B; b++)
        for (int j = 0; j < H; j++) {
            size_t s = a->layout ? ((size_t)b * a->dirs + dir) * H + j : ((size_t)dir * B + b) * H + j;
            h[(size_t)b * H + j] = a->h0 ? a->h0[s] : 0.0f;
            c[(size_t)b * H + j] = a->c0 ? a->c0[s] : 0.0f;
        }
    for (int step = 0; step < T; step++) {
        for (int b = 0; b < B; b++) {
            const int len = a->seq_lens ? a->seq_lens[b] : T;
            const int t = backwards ? len - 1 - step : step;
            float *hb = h + (size_t)b * H, *cb = c + (size_t)b * H, *gb = gates + (size_t)b * G * H;
            if (step >= len) {
                /* past this entry's length: Y is zero at t = step */
                if (a->y)
                    for (int j = 0; j < H; j++) {
                        size_t o = a->layout ? (((size_t)b * T + step) * a->dirs + dir) * H + j
                                             : (((size_t)step * a->dirs + dir) * B + b) * H + j;
                        a->y[o] = 0.0f;
                    }
                continue;
            }
            const float *xt = a->x + (a->layout ? ((size_t)b * T + t) * I : ((size_t)t * B + b) * I);
            /* pre-activations; GRU's h gate keeps R h separate (linear_before_reset) */
            for (int gi = 0; gi < G * H; gi++) {
                float v = dot(W + (size_t)gi * I, xt, I) + (Wb ? Wb[gi] : 0.0f);
                const int is_gru_h = a->cell == WGK_GRU && gi >= 2 * H;
                if (!is_gru_h)
                    v += dot(R + (size_t)gi * H, hb, H) + (Rb ? Rb[gi] : 0.0f);
                gb[gi] = v;
            }
            const float clip = a->clip;
#define CLIP(v) (clip > 0 ? ((v) < -clip ? -clip : (v) > clip ? clip : (v)) : (v))
            if (a->cell == WGK_RNN) {
                for (int j = 0; j < H; j++)
                    gb[j] = act(fk[0], fa[0], fb[0], CLIP(gb[j]));
                for (int j = 0; j < H; j++)
                    hb[j] = gb[j];
            } else if (a->cell == WGK_GRU) {
                float *z = gb, *r = gb + H, *hh = gb + 2 * H;
                for (int j = 0; j < 2 * H; j++)
                    gb[j] = act(fk[0], fa[0], fb[0], CLIP(gb[j]));
                const float *Rh = R + (size_t)2 * H * H;
                const float *Rbh = Rb ? Rb + 2 * H : 0;
                for (int j = 0; j < H; j++) {
                    float v;
                    if (a->linear_before_reset) {
                        v = r[j] * (dot(Rh + (size_t)j * H, hb, H) + (Rbh ? Rbh[j] : 0.0f));
                    } else {
                        float s = 0;
                        for (int k = 0; k < H; k++)
                            s += Rh[(size_t)j * H + k] * (r[k] * hb[k]);
                        v = s + (Rbh ? Rbh[j] : 0.0f);
                    }
                    hh[j] = act(fk[1], fa[1], fb[1], CLIP(hh[j] + v));
                }
                for (int j = 0; j < H; j++)
                    hb[j] = (1 - z[j]) * hh[j] + z[j] * hb[j];
            } else {
                float *gi_ = gb, *go = gb + H, *gf = gb + 2 * H, *gc = gb + 3 * H;
                for (int j = 0; j < H; j++) {
                    float iv = gi_[j] + (P ? P[j] * cb[j] : 0.0f);
                    float fv = gf[j] + (P ? P[2 * H + j] * cb[j] : 0.0f);
                    iv = act(fk[0], fa[0], fb[0], CLIP(iv));
                    fv = act(fk[0], fa[0], fb[0], CLIP(fv));
                    const float cv = act(fk[1], fa[1], fb[1], CLIP(gc[j]));
                    cb[j] = fv * cb[j] + iv * cv;
                    float ov = go[j] + (P ? P[H + j] * cb[j] : 0.0f);
                    ov = act(fk[0], fa[0], fb[0], CLIP(ov));
                    hb[j] = ov * act(fk[2], fa[2], fb[2], cb[j]);
                }
            }
#undef CLIP
            if (a->y)
                for (int j = 0; j < H; j++) {
                    size_t o = a->layout ? (((size_t)b * T + t) * a->dirs + dir) * H + j
                                         : (((size_t)t * a->dirs + dir) * B + b) * H + j;
                    a->y[o] = hb[j];
                }
        }
    }
    for (int b = 0; b < B; b++)
        for (int j = 0; j < H; j++) {
            size_t s = a->layout ? ((size_t)b * a->dirs + dir) * H + j : ((size_t)dir * B + b) * H + j;
            if (a->yh)
                a->yh[s] = h[(size_t)b * H + j];
            if (a->yc)
                a->yc[s] = c[(size_t)b * H + j];
        }
}

void wgk_f32_rnn(const wgk_rnn_args *a)
{
    if (a->dirs == 2) {
        run_dir(a, 0, 0);
        run_dir(a, 1, 1);
    } else {
        run_dir(a, 0, a->reverse);
    }
}
