/*
 * test_resize.c: wgk_f32_resize against a direct evaluation of the same tables:
 * bilinear 2-D upsampling of an NCHW tensor (weights sum to 1, unit N/C axes), a 1-D
 * table with a 4-tap axis, the extrapolation marker (idx -1) and an identity resize.
 * wgk_f32_resize2d against wgk_f32_resize on the same tables, bit for bit: nearest by
 * integer factors (shuffle gathers) and not, bilinear up and down, 1- to 4-tap axes with
 * zero weights, weight-1 single taps, repeated rows, odd sizes, NaN and -0 inputs.
 */
#include "wgk_resize.h"
#include "wgkt.h"

static float X[4096], Y[16384];
static int32_t IDX[1024];
static float W[1024];
static uint32_t seed = 7;

/* Bilinear (asymmetric) taps for out positions of an axis in -> out: 2 taps each. */
static int linear_axis(int in, int out, int off)
{
    for (int o = 0; o < out; o++) {
        float xo = (float)o * (float)in / (float)out;
        int i0 = (int)xo;
        float f = xo - (float)i0;
        int i1 = i0 + 1 < in ? i0 + 1 : in - 1;
        IDX[off + 2 * o] = i0;
        IDX[off + 2 * o + 1] = i1;
        W[off + 2 * o] = 1.0f - f;
        W[off + 2 * o + 1] = f;
    }
    return off + 2 * out;
}

static void bilinear(void)
{
    const int N = 2, C = 3, H = 4, Wd = 5, OH = 7, OW = 9;
    for (int i = 0; i < N * C * H * Wd; i++)
        X[i] = wgkt_rand(&seed);
    /* N and C: one tap each, weight 1 */
    int off = 0;
    for (int i = 0; i < N; i++)
        IDX[off + i] = i, W[off + i] = 1.0f;
    off += N;
    for (int i = 0; i < C; i++)
        IDX[off + i] = i, W[off + i] = 1.0f;
    off += C;
    int offh = off;
    off = linear_axis(H, OH, off);
    int offw = off;
    linear_axis(Wd, OW, off);
    wgk_resize_args a = {.rank = 4, .in = {N, C, H, Wd}, .out = {N, C, OH, OW}, .K = {1, 1, 2, 2},
                         .off = {0, N, offh, offw}, .idx = IDX, .w = W, .x = X, .y = Y};
    wgk_f32_resize(&a);
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    float s = 0;
                    for (int kh = 0; kh < 2; kh++)
                        for (int kw = 0; kw < 2; kw++) {
                            int ih = IDX[offh + 2 * oh + kh], iw = IDX[offw + 2 * ow + kw];
                            s += W[offh + 2 * oh + kh] * W[offw + 2 * ow + kw] *
                                 X[((n * C + c) * H + ih) * Wd + iw];
                        }
                    float got = Y[((n * C + c) * OH + oh) * OW + ow];
                    if (!wgkt_close(got, s, 1e-5f, 1e-6f) && !bad++)
                        WGKT_CHECK_CLOSE(got, s, 1e-5f, 1e-6f, "bilinear resize");
                }
    WGKT_CHECK(!bad, "bilinear 2-D resize matches the direct sum");
}

static void cubic_1d_and_extrapolation(void)
{
    const int in = 6, out = 5;
    for (int i = 0; i < in; i++)
        X[i] = (float)(i * i);
    for (int o = 0; o < out; o++)
        for (int k = 0; k < 4; k++) {
            int ix = o + k - 1;
            IDX[4 * o + k] = ix < 0 ? 0 : ix >= in ? in - 1 : ix;
            W[4 * o + k] = k == 1 ? 0.75f : k == 2 ? 0.5f : -0.125f;
        }
    IDX[4 * 3] = -1; /* output 3 lies outside the input */
    wgk_resize_args a = {.rank = 1, .in = {in}, .out = {out}, .K = {4}, .off = {0}, .idx = IDX,
                         .w = W, .extrapolation = -7.5f, .x = X, .y = Y};
    wgk_f32_resize(&a);
    for (int o = 0; o < out; o++) {
        float want = 0;
        for (int k = 0; k < 4; k++)
            want += W[4 * o + k] * X[IDX[4 * o + k] < 0 ? 0 : IDX[4 * o + k]];
        if (o == 3)
            want = -7.5f;
        WGKT_CHECK_CLOSE(Y[o], want, 1e-6f, 1e-6f, "4-tap 1-D resize / extrapolation");
    }
}

static void identity(void)
{
    for (int i = 0; i < 24; i++) {
        X[i] = wgkt_rand(&seed);
        IDX[i] = i % 6 < 2 ? i % 6 : 0;
        W[i] = 1.0f;
    }
    for (int i = 0; i < 2; i++)
        IDX[i] = i;
    for (int i = 0; i < 3; i++)
        IDX[2 + i] = i;
    for (int i = 0; i < 4; i++)
        IDX[5 + i] = i;
    wgk_resize_args a = {.rank = 3, .in = {2, 3, 4}, .out = {2, 3, 4}, .K = {1, 1, 1},
                         .off = {0, 2, 5}, .idx = IDX, .w = W, .x = X, .y = Y};
    wgk_f32_resize(&a);
    int same = 1;
    for (int i = 0; i < 24; i++)
        same &= Y[i] == X[i];
    WGKT_CHECK(same, "identity tables copy the input exactly");
}

static float Y2[16384], S2[1024];

/* Tables of an axis in -> out with K taps: kind 0 nearest o*in/out, 1 linear-like random
 * weights (some zero, some 1), 2 nearest by the integer factor out/in. */
static void axis_table(int in, int out, int K, int kind, int off)
{
    for (int o = 0; o < out; o++) {
        int base = kind == 2 ? o / (out / in) : (int)((long)o * in / out);
        for (int k = 0; k < K; k++) {
            int i = base + k - (K - 1) / 2;
            IDX[off + o * K + k] = i < 0 ? 0 : i >= in ? in - 1 : i;
            float w = kind == 1 ? wgkt_rand(&seed) : k == 0 ? 1.0f : 0.0f;
            if (kind == 1 && o % 5 == 2)
                w = k == 0 ? 1.0f : 0.0f; /* a single weight-1 tap among others */
            if (kind == 1 && o % 7 == 3 && k == K - 1)
                w = 0.0f;
            W[off + o * K + k] = w;
        }
    }
}

static void resize2d_case(int NC, int H, int Wd, int OH, int OW, int KH, int KW, int kh, int kw,
                          int fw)
{
    const int offw = OH * KH;
    for (int i = 0; i < NC * H * Wd; i++)
        X[i] = wgkt_rand(&seed);
    X[0] = -0.0f;
    X[NC * H * Wd / 2] = __builtin_nanf("");
    axis_table(H, OH, KH, kh, 0);
    axis_table(Wd, OW, KW, kw, offw);
    /* generic: NC as one unchanged axis with identity taps after the H and W tables */
    const int offn = offw + OW * KW;
    for (int i = 0; i < NC; i++)
        IDX[offn + i] = i, W[offn + i] = 1.0f;
    wgk_resize_args g = {.rank = 3, .in = {NC, H, Wd}, .out = {NC, OH, OW}, .K = {1, KH, KW},
                         .off = {offn, 0, offw}, .idx = IDX, .w = W, .x = X, .y = Y};
    wgk_f32_resize(&g);
    for (int i = 0; i < NC * OH * OW; i++)
        Y2[i] = 12345.0f;
    wgk_resize2d_args a = {.NC = NC, .H = H, .W = Wd, .OH = OH, .OW = OW, .KH = KH, .KW = KW,
                           .ih = IDX, .iw = IDX + offw, .wh = W, .ww = W + offw, .fw = fw,
                           .x = X, .y = Y2, .scratch = S2};
    wgk_f32_resize2d(&a);
    int same = 1;
    for (int i = 0; i < NC * OH * OW; i++)
        same &= __builtin_memcmp(&Y[i], &Y2[i], sizeof(float)) == 0;
    WGKT_CHECK(same, "resize2d gives wgk_f32_resize's floats bit for bit");
    if (!same) {
        wgkt_log("  at NC=");
        wgkt_log_int(NC);
        wgkt_log(" H=");
        wgkt_log_int(H);
        wgkt_log(" W=");
        wgkt_log_int(Wd);
        wgkt_log(" KH=");
        wgkt_log_int(KH);
        wgkt_log(" KW=");
        wgkt_log_int(KW);
        wgkt_log(" fw=");
        wgkt_log_int(fw);
        wgkt_log("\n");
    }
}

static void resize2d(void)
{
    /* NC  H  W  OH  OW KH KW kindH kindW fw */
    resize2d_case(3, 5, 7, 10, 14, 1, 1, 2, 2, 2);
    resize2d_case(2, 4, 9, 16, 36, 1, 1, 2, 2, 4);
    resize2d_case(2, 3, 5, 24, 40, 1, 1, 2, 2, 8);
    resize2d_case(2, 3, 5, 9, 15, 1, 1, 2, 2, 3);
    resize2d_case(2, 6, 5, 6, 5, 1, 1, 2, 2, 1);
    resize2d_case(2, 7, 9, 11, 13, 1, 1, 0, 0, 0);
    resize2d_case(2, 9, 11, 4, 5, 1, 1, 0, 0, 0);
    resize2d_case(3, 5, 7, 10, 14, 2, 2, 1, 1, 0);
    resize2d_case(2, 6, 9, 13, 19, 2, 2, 1, 1, 0);
    resize2d_case(2, 9, 12, 5, 7, 2, 2, 1, 1, 0);
    resize2d_case(1, 6, 7, 11, 17, 4, 4, 1, 1, 0);
    resize2d_case(2, 5, 8, 9, 23, 3, 1, 1, 0, 0);
    resize2d_case(2, 5, 8, 10, 16, 1, 2, 2, 1, 0);
    resize2d_case(1, 4, 6, 8, 12, 2, 1, 1, 2, 2);
}

static void run(void)
{
    resize2d();
    bilinear();
    cubic_1d_and_extrapolation();
    identity();
}

WGKT_MAIN("resize", run)
