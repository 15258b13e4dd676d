/*
 * test_deconv.c: wgk_f32_deconv2d (packed GEMM + col2im) against a naive scatter of the
 * transposed convolution in double, over edge shapes: kernel == stride (the direct-store
 * col2im, with KW = 2 row pairs and odd panels), overlapping taps, pads, output padding,
 * dilations, groups, several images, more than one B block and more than KC input
 * channels, bias, residual and clamp; each with the weight packed at "compile time"
 * (wgk_deconv2d_pack_w) and in ONNX layout (w_onnx, packed in scratch); and that 2 and 3
 * threads' shares (wgk_split_deconv2d), run one after another, give the whole call's bits
 * (rows or pixels split, whichever the rule picks for the shape).
 */
#include "wgk_convnd.h"
#include "wgk_split.h"
#include "wgkt.h"

#define XCAP 300000
#define YCAP 70000
static float X[XCAP], Wt[8192], Wp[16384], Bi[64], R[YCAP], Y[YCAP], Want[YCAP], S[600000];
static double Ref[YCAP];
static uint32_t seed = 11;

typedef struct dcase {
    const char *name;
    int N, C, H, W, M, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR, OPH, OPW, groups;
    int bias, res, clamp;
} dcase;

static void run_case(const dcase *c, int w_onnx)
{
    wgk_deconv2d_args a = {.N = c->N, .C = c->C, .H = c->H, .W = c->W, .M = c->M,
                           .KH = c->KH, .KW = c->KW, .SH = c->SH, .SW = c->SW, .DH = c->DH,
                           .DW = c->DW, .PT = c->PT, .PL = c->PL, .groups = c->groups,
                           .w_onnx = w_onnx, .min = -INFINITY, .max = INFINITY};
    a.OH = (c->H - 1) * c->SH - c->PT - c->PB + (c->KH - 1) * c->DH + 1 + c->OPH;
    a.OW = (c->W - 1) * c->SW - c->PL - c->PR + (c->KW - 1) * c->DW + 1 + c->OPW;
    const int cg = c->C / c->groups, mg = c->M / c->groups, khw = c->KH * c->KW;
    const int nx = c->N * c->C * c->H * c->W, nw = c->C * mg * khw;
    const int ny = c->N * c->M * a.OH * a.OW;
    const size_t nwp = wgk_deconv2d_pack_w_size((size_t)c->C, (size_t)c->M, (size_t)khw,
                                                (size_t)c->groups);
    const size_t ns = wgk_deconv2d_scratch(c->C, c->M, c->KH, c->KW, c->groups, c->H, c->W, w_onnx);
    if (nx > XCAP || nw > 8192 || nwp > 16384 || ny > YCAP || ns > 600000 || c->M > 64) {
        WGKT_CHECK(0, "test case too large for the static buffers");
        return;
    }
    for (int i = 0; i < nx; i++)
        X[i] = wgkt_rand(&seed);
    for (int i = 0; i < nw; i++)
        Wt[i] = wgkt_rand(&seed);
    for (int i = 0; i < c->M; i++)
        Bi[i] = wgkt_rand(&seed);
    for (int i = 0; i < ny; i++) {
        R[i] = wgkt_rand(&seed);
        Y[i] = 12345.0f; /* every output must be written */
    }
    if (c->clamp) {
        a.min = -0.75f;
        a.max = 1.5f;
    }
    a.x = X;
    a.bias = c->bias ? Bi : 0;
    a.res = c->res ? R : 0;
    a.y = Y;
    a.scratch = S;
    if (w_onnx) {
        a.w = Wt;
    } else {
        wgk_deconv2d_pack_w(Wt, (size_t)c->C, (size_t)c->M, (size_t)khw, (size_t)c->groups, Wp);
        a.w = Wp;
    }
    wgk_f32_deconv2d(&a);

    /* Reference: y = bias, scatter every tap, then residual and clamp. */
    const int ohw = a.OH * a.OW;
    for (int n = 0; n < c->N; n++)
        for (int m = 0; m < c->M; m++)
            for (int i = 0; i < ohw; i++)
                Ref[(n * c->M + m) * ohw + i] = c->bias ? Bi[m] : 0.0;
    for (int n = 0; n < c->N; n++)
        for (int ci = 0; ci < c->C; ci++) {
            const int g = ci / cg;
            for (int mm = 0; mm < mg; mm++)
                for (int ih = 0; ih < c->H; ih++)
                    for (int iw = 0; iw < c->W; iw++)
                        for (int kh = 0; kh < c->KH; kh++)
                            for (int kw = 0; kw < c->KW; kw++) {
                                const int oh = ih * c->SH - c->PT + kh * c->DH;
                                const int ow = iw * c->SW - c->PL + kw * c->DW;
                                if (oh < 0 || oh >= a.OH || ow < 0 || ow >= a.OW)
                                    continue;
                                Ref[((n * c->M + g * mg + mm) * a.OH + oh) * a.OW + ow] +=
                                    (double)X[((n * c->C + ci) * c->H + ih) * c->W + iw] *
                                    Wt[((ci * mg + mm) * c->KH + kh) * c->KW + kw];
                            }
        }
    int bad = 0;
    for (int i = 0; i < ny; i++) {
        float v = (float)Ref[i] + (c->res ? R[i] : 0.0f);
        v = v < a.min ? a.min : v > a.max ? a.max : v;
        if (!wgkt_close(Y[i], v, 1e-4f, 1e-5f) && !bad++) {
            wgkt_log(c->name);
            wgkt_log(w_onnx ? " (w_onnx)" : " (packed)");
            wgkt_log(": first mismatch at ");
            wgkt_log_int(i);
            wgkt_log("\n");
            WGKT_CHECK_CLOSE(Y[i], v, 1e-4f, 1e-5f, c->name);
        }
    }
    WGKT_CHECK(!bad, c->name);

    for (int i = 0; i < ny; i++)
        Want[i] = Y[i];
    for (int n = 2; n <= 3; n++) {
        for (int i = 0; i < ny; i++)
            Y[i] = -1234.5f;
        for (int t = 0; t < n; t++) {
            wgk_deconv2d_args share = a;
            if (wgk_split_deconv2d(&share, (wgk_part){t, n}))
                wgk_f32_deconv2d(&share);
        }
        WGKT_CHECK(wgkt_same_bits(Y, Want, ny), n == 2 ? "2 threads' parts give the whole call's bits"
                                   : "3 threads' parts give the whole call's bits");
    }
}

static void run(void)
{
    static const dcase cases[] = {
        /* name                        N   C   H   W   M KH KW SH SW DH DW PT PL PB PR OPH OPW g  b  r  c */
        {"k2s2 (PP-OCR)",              1,  8,  5,  7,  3, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0},
        {"k2s2 one output channel",    1,  8, 20, 15,  1, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
        {"k2s2 res clamp 2 images",    2,  5,  4,  9,  5, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
        {"k1x2 s1x2 odd panels",       1,  3,  6,  5,  3, 1, 2, 1, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0},
        {"k3s3 groups",                1,  6,  7,  6,  4, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 2, 1, 0, 1},
        {"k2s2 300 channels 2 blocks", 1,300, 30, 31,  2, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0},
        {"k3s1 pad1",                  1,  4,  9, 11,  6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0},
        {"k4s2 pad1",                  2,  6,  8,  7,  5, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1},
        {"k3s2 dil2 pads outpad grp",  1,  4,  5,  6,  6, 3, 3, 2, 3, 2, 2, 1, 2, 0, 1, 1, 2, 2, 1, 1, 1},
        {"k2s2 output padding",        1,  3,  4,  5,  2, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0},
        {"k2s3 gaps",                  1,  3,  4,  5,  2, 2, 2, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0},
        {"1x1 pixel",                  1,  1,  1,  1,  1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0},
        {"depthwise x2",               1,  4,  3, 17,  8, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0, 4, 1, 0, 0},
        {"k3s2 300 ch overlap blocks", 1,300, 30, 31,  1, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
        {"wide rows past SUB",         1,  7, 3, 300,  5, 2, 3, 2, 2, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0},
        /* 4 row panels, 4 blocks of 1024 pixels: the pixel split */
        {"k2s2 64 ch 64x64 4 blocks",  1, 64, 64, 64,  4, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0},
        /* 16 row panels, 1 block: the row split */
        {"k2s2 16 ch out 16 panels",   1,  8, 10, 10, 16, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(&cases[i], 0);
        run_case(&cases[i], 1);
    }
}

WGKT_MAIN("deconv", run)
