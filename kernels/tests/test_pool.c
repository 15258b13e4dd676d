/*
 * test_pool.c: max/average pooling and global pooling against naive loops that test
 * every window element against the image bounds: 1x1 and larger kernels, strides,
 * asymmetric pads, dilation (max), ceil_mode overhang (output one larger than floor),
 * count_include_pad on and off, odd spatial sizes for the global pools.
 * Rows wide enough for the SIMD interior (strides 1, 2 and 3, dilations, odd widths,
 * pads and ceil_mode) check the interior/border split; the naive loop adds in the same
 * order as the kernel, so results must be identical, not just close. A NaN inside the
 * interior must reach every window that holds it.
 */
#include "wgk_pool.h"
#include "wgkt.h"

#define CAP (1 << 18)
static float X[CAP], Y[CAP];
static uint32_t seed = 99;

typedef struct pshape {
    int NC, H, W, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR, ceil;
} pshape;

static int out_size(int in, int k, int s, int d, int pb, int pe, int ceil)
{
    int span = in + pb + pe - ((k - 1) * d + 1);
    int o = (ceil ? (span + s - 1) / s : span / s) + 1;
    /* the last window must start inside the image or the leading pad */
    if (ceil && (o - 1) * s >= in + pb)
        o--;
    return o;
}

static void check(const pshape *s, int avg, int cip)
{
    wgk_pool2d_args a = {
        .NC = s->NC, .H = s->H, .W = s->W, .KH = s->KH, .KW = s->KW, .SH = s->SH, .SW = s->SW,
        .DH = s->DH, .DW = s->DW, .PT = s->PT, .PL = s->PL, .PB = s->PB, .PR = s->PR,
        .count_include_pad = cip, .x = X, .y = Y,
    };
    a.OH = out_size(s->H, s->KH, s->SH, s->DH, s->PT, s->PB, s->ceil);
    a.OW = out_size(s->W, s->KW, s->SW, s->DW, s->PL, s->PR, s->ceil);
    for (int i = 0; i < s->NC * s->H * s->W; i++)
        X[i] = wgkt_rand(&seed);
    if (avg)
        wgk_f32_avgpool2d(&a);
    else
        wgk_f32_maxpool2d(&a);
    int bad = 0;
    for (int p = 0; p < s->NC && !bad; p++)
        for (int oh = 0; oh < a.OH && !bad; oh++)
            for (int ow = 0; ow < a.OW && !bad; ow++) {
                float m = -INFINITY, sum = 0;
                int inside = 0, padded = 0;
                for (int kh = 0; kh < s->KH; kh++)
                    for (int kw = 0; kw < s->KW; kw++) {
                        int ih = oh * s->SH - s->PT + kh * s->DH, iw = ow * s->SW - s->PL + kw * s->DW;
                        if (ih < s->H + s->PB && iw < s->W + s->PR)
                            padded++; /* inside image + pads (never before the leading pad) */
                        if (ih < 0 || ih >= s->H || iw < 0 || iw >= s->W)
                            continue;
                        float v = X[(p * s->H + ih) * s->W + iw];
                        m = v > m ? v : m;
                        sum += v;
                        inside++;
                    }
                float want = avg ? sum / (float)(cip ? padded : inside) : m;
                float got = Y[(p * a.OH + oh) * a.OW + ow];
                if (got != want) {
                    bad = 1;
                    WGKT_CHECK_CLOSE(got, want, 0, 0, avg ? "avgpool2d" : "maxpool2d");
                    wgkt_log("  at H=");
                    wgkt_log_int(s->H);
                    wgkt_log(" K=");
                    wgkt_log_int(s->KH);
                    wgkt_log(" oh=");
                    wgkt_log_int(oh);
                    wgkt_log(" ow=");
                    wgkt_log_int(ow);
                    wgkt_log(" cip=");
                    wgkt_log_int(cip);
                    wgkt_log("\n");
                }
            }
    WGKT_CHECK(!bad, avg ? "avgpool2d matches the naive loop" : "maxpool2d matches the naive loop");
}

static void check_global(void)
{
    static const int inner[] = {1, 3, 4, 7, 49, 50};
    for (int i = 0; i < 6; i++) {
        int outer = 5, n = inner[i];
        for (int k = 0; k < outer * n; k++)
            X[k] = wgkt_rand(&seed);
        wgk_f32_global_avgpool(X, Y, outer, n);
        for (int o = 0; o < outer; o++) {
            float s = 0;
            for (int k = 0; k < n; k++)
                s += X[o * n + k];
            WGKT_CHECK_CLOSE(Y[o], s / (float)n, 1e-5f, 1e-6f, "global_avgpool");
        }
        wgk_f32_global_maxpool(X, Y, outer, n);
        for (int o = 0; o < outer; o++) {
            float m = -INFINITY;
            for (int k = 0; k < n; k++)
                m = X[o * n + k] > m ? X[o * n + k] : m;
            WGKT_CHECK_CLOSE(Y[o], m, 0, 0, "global_maxpool");
        }
    }
}

/* A NaN inside the image (row 6, column nc): every max window holding it gives NaN,
 * others not. Columns 8..19 put it in every lane of the SIMD interior's vectors. */
static int nan_reaches_its_windows(int S, int K, int nc)
{
    const int H = 12, W = 30;
    wgk_pool2d_args a = {.NC = 1, .H = H, .W = W, .OH = (H - K) / S + 1, .OW = (W - K) / S + 1,
                         .KH = K, .KW = K, .SH = S, .SW = S, .DH = 1, .DW = 1, .x = X, .y = Y};
    for (int i = 0; i < H * W; i++)
        X[i] = wgkt_rand(&seed);
    X[6 * W + nc] = __builtin_nanf("");
    wgk_f32_maxpool2d(&a);
    int ok = 1;
    for (int oh = 0; oh < a.OH; oh++)
        for (int ow = 0; ow < a.OW; ow++) {
            int holds = oh * S <= 6 && 6 < oh * S + K && ow * S <= nc && nc < ow * S + K;
            float v = Y[oh * a.OW + ow];
            ok &= holds ? v != v : v == v;
        }
    return ok;
}

static void check_nan(void)
{
    int ok = 1;
    for (int S = 1; S <= 2; S++)
        for (int K = 2; K <= 3; K++)
            for (int nc = 8; nc < 20; nc++)
                ok &= nan_reaches_its_windows(S, K, nc);
    WGKT_CHECK(ok, "maxpool2d propagates a NaN to exactly the windows holding it (strides 1-2, 2x2 and 3x3, every lane)");
}

static void run(void)
{
    /* NC  H  W KH KW SH SW DH DW PT PL PB PR ceil */
    static const pshape sh[] = {
        {2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
        {3, 8, 8, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0},
        {2, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
        {1, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
        {2, 6, 6, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {1, 13, 13, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {1, 8, 7, 3, 2, 2, 3, 1, 1, 1, 0, 0, 1, 1},
        {1, 5, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 0},
        {1, 9, 10, 3, 3, 1, 2, 2, 2, 2, 1, 2, 0, 0},
        {1, 4, 4, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1},
        {1, 10, 3, 4, 1, 3, 1, 1, 1, 0, 0, 2, 0, 1},
        /* SIMD interior: stride 1, 2, 3, dilation, pads, ceil_mode, odd widths */
        {2, 23, 37, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0},
        {2, 23, 37, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {1, 21, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},
        {1, 19, 33, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {1, 17, 31, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
        {1, 16, 29, 5, 4, 1, 1, 1, 1, 2, 1, 2, 2, 0},
        {1, 15, 35, 3, 3, 3, 3, 1, 1, 1, 2, 0, 1, 1},
        {1, 18, 41, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1},
        {1, 18, 41, 2, 3, 1, 1, 3, 2, 1, 0, 1, 3, 0},
        {3, 11, 20, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {1, 9, 64, 3, 7, 2, 5, 1, 1, 1, 3, 1, 3, 1},
    };
    for (unsigned i = 0; i < sizeof sh / sizeof *sh; i++) {
        check(&sh[i], 0, 0);
        if (sh[i].DH == 1 && sh[i].DW == 1) {
            check(&sh[i], 1, 0);
            check(&sh[i], 1, 1);
        }
    }
    check_global();
    check_nan();
}

WGKT_MAIN("pool", run)
