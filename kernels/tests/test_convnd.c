/*
 * test_convnd.c: the direct N-D kernels. conv3d_direct against a naive 3-D loop (groups,
 * strides, dilations, pads, bias, residual, clamp); deconv3d_direct against the gather
 * form of the transposed convolution; maxpool3d/avgpool3d against naive loops, with
 * indices in both storage orders.
 */
#include "wgk_convnd.h"
#include "wgk_poolnd.h"
#include "wgkt.h"

static float X[8192], Wt[8192], Bi[64], R[16384], Y[16384];
static int64_t IX[16384];
static uint32_t seed = 3;

static void conv(void)
{
    wgk_convnd_args a = {.N = 2, .C = 4, .M = 6, .groups = 2, .in = {4, 5, 6}, .out = {0, 0, 0},
                         .k = {2, 3, 2}, .s = {1, 2, 2}, .d = {2, 1, 1}, .p = {1, 1, 0},
                         .x = X, .w = Wt, .bias = Bi, .res = R, .y = Y, .min = -0.5f, .max = 2.0f};
    int pe[3] = {1, 0, 1};
    for (int i = 0; i < 3; i++)
        a.out[i] = (a.in[i] + a.p[i] + pe[i] - ((a.k[i] - 1) * a.d[i] + 1)) / a.s[i] + 1;
    const int cg = 2, mg = 3, isz = 4 * 5 * 6, ksz = 2 * 3 * 2, osz = a.out[0] * a.out[1] * a.out[2];
    for (int i = 0; i < 2 * 4 * isz; i++)
        X[i] = wgkt_rand(&seed);
    for (int i = 0; i < 6 * cg * ksz; i++)
        Wt[i] = wgkt_rand(&seed);
    for (int i = 0; i < 6; i++)
        Bi[i] = wgkt_rand(&seed);
    for (int i = 0; i < 2 * 6 * osz; i++)
        R[i] = wgkt_rand(&seed);
    wgk_f32_conv3d_direct(&a);
    int bad = 0;
    for (int n = 0; n < 2; n++)
        for (int m = 0; m < 6; m++)
            for (int o0 = 0; o0 < a.out[0]; o0++)
                for (int o1 = 0; o1 < a.out[1]; o1++)
                    for (int o2 = 0; o2 < a.out[2]; o2++) {
                        float s = Bi[m];
                        int g = m / mg;
                        for (int c = 0; c < cg; c++)
                            for (int k0 = 0; k0 < 2; k0++)
                                for (int k1 = 0; k1 < 3; k1++)
                                    for (int k2 = 0; k2 < 2; k2++) {
                                        int i0 = o0 * 1 - 1 + k0 * 2, i1 = o1 * 2 - 1 + k1, i2 = o2 * 2 + k2;
                                        if (i0 < 0 || i0 >= 4 || i1 < 0 || i1 >= 5 || i2 < 0 || i2 >= 6)
                                            continue;
                                        s += X[((n * 4 + g * cg + c) * 4 + i0) * 30 + i1 * 6 + i2] *
                                             Wt[((m * cg + c) * 2 + k0) * 6 + k1 * 2 + k2];
                                    }
                        int oi = ((n * 6 + m) * a.out[0] + o0) * a.out[1] * a.out[2] + o1 * a.out[2] + o2;
                        s += R[oi];
                        s = s < -0.5f ? -0.5f : s > 2.0f ? 2.0f : s;
                        if (!wgkt_close(Y[oi], s, 1e-5f, 1e-5f) && !bad++)
                            WGKT_CHECK_CLOSE(Y[oi], s, 1e-5f, 1e-5f, "conv3d_direct");
                    }
    WGKT_CHECK(!bad, "conv3d_direct matches the naive loop");
}

static void deconv(void)
{
    /* 2-D transposed conv as a 3-D one with a unit first dim; C=4, M=2 (groups 2). */
    wgk_convnd_args a = {.N = 1, .C = 4, .M = 2, .groups = 2, .in = {1, 3, 4}, .out = {1, 8, 9},
                         .k = {1, 3, 3}, .s = {1, 3, 2}, .d = {1, 1, 2}, .p = {0, 1, 1},
                         .x = X, .w = Wt, .bias = Bi, .res = 0, .y = Y, .min = -INFINITY, .max = INFINITY};
    for (int i = 0; i < 4 * 12; i++)
        X[i] = wgkt_rand(&seed);
    for (int i = 0; i < 4 * 1 * 9; i++)
        Wt[i] = wgkt_rand(&seed);
    wgk_f32_deconv3d_direct(&a);
    int bad = 0;
    for (int m = 0; m < 2; m++)
        for (int oh = 0; oh < 8; oh++)
            for (int ow = 0; ow < 9; ow++) {
                /* gather form: every (c, i, k) with i*s - p + k*d = o */
                float s = Bi[m];
                for (int c = m * 2; c < m * 2 + 2; c++)
                    for (int ih = 0; ih < 3; ih++)
                        for (int iw = 0; iw < 4; iw++)
                            for (int kh = 0; kh < 3; kh++)
                                for (int kw = 0; kw < 3; kw++)
                                    if (ih * 3 - 1 + kh == oh && iw * 2 - 1 + kw * 2 == ow)
                                        s += X[(c * 3 + ih) * 4 + iw] * Wt[c * 9 + kh * 3 + kw];
                float got = Y[(m * 8 + oh) * 9 + ow];
                if (!wgkt_close(got, s, 1e-5f, 1e-5f) && !bad++)
                    WGKT_CHECK_CLOSE(got, s, 1e-5f, 1e-5f, "deconv3d_direct");
            }
    WGKT_CHECK(!bad, "deconv3d_direct matches the gather form");
}

static void pools(void)
{
    wgk_poolnd_args a = {.NC = 3, .in = {3, 4, 5}, .out = {2, 2, 3}, .k = {2, 3, 2},
                         .s = {2, 2, 2}, .d = {1, 1, 1}, .pb = {0, 1, 0}, .pe = {1, 0, 0},
                         .x = X, .y = Y, .indices = IX};
    for (int i = 0; i < 3 * 60; i++)
        X[i] = wgkt_rand(&seed);
    for (int order = 0; order < 2; order++) {
        a.storage_order = order;
        wgk_f32_maxpool3d(&a);
        int bad = 0, oi = 0;
        for (int p = 0; p < 3; p++)
            for (int o0 = 0; o0 < 2; o0++)
                for (int o1 = 0; o1 < 2; o1++)
                    for (int o2 = 0; o2 < 3; o2++, oi++) {
                        float m = -INFINITY;
                        int64_t at = -1;
                        for (int k0 = 0; k0 < 2; k0++)
                            for (int k1 = 0; k1 < 3; k1++)
                                for (int k2 = 0; k2 < 2; k2++) {
                                    int i0 = o0 * 2 + k0, i1 = o1 * 2 - 1 + k1, i2 = o2 * 2 + k2;
                                    if (i0 >= 3 || i1 < 0 || i1 >= 4 || i2 >= 5)
                                        continue;
                                    float v = X[p * 60 + i0 * 20 + i1 * 5 + i2];
                                    if (v > m) {
                                        m = v;
                                        at = p * 60 + (order ? i2 * 12 + i1 * 3 + i0 : i0 * 20 + i1 * 5 + i2);
                                    }
                                }
                        if ((Y[oi] != m || IX[oi] != at) && !bad++) {
                            WGKT_CHECK_CLOSE(Y[oi], m, 0, 0, "maxpool3d value");
                            WGKT_CHECK(IX[oi] == at, "maxpool3d index");
                        }
                    }
        WGKT_CHECK(!bad, order ? "maxpool3d (column-major indices) matches" : "maxpool3d matches");
    }
    a.count_include_pad = 1;
    wgk_f32_avgpool3d(&a);
    /* output (0, 0, 0) of image 0: window rows -1..1 in dim 1 (row -1 is pad) */
    float s = 0;
    for (int k0 = 0; k0 < 2; k0++)
        for (int k1 = 0; k1 < 2; k1++)
            for (int k2 = 0; k2 < 2; k2++)
                s += X[k0 * 20 + k1 * 5 + k2];
    WGKT_CHECK_CLOSE(Y[0], s / 12.0f, 1e-5f, 1e-6f, "avgpool3d counts the leading pad");
    a.count_include_pad = 0;
    wgk_f32_avgpool3d(&a);
    WGKT_CHECK_CLOSE(Y[0], s / 8.0f, 1e-5f, 1e-6f, "avgpool3d skips the pad");
}

static void run(void)
{
    conv();
    deconv();
    pools();
}

WGKT_MAIN("convnd", run)
