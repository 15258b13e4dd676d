/*
 * test_conv.c: the convolution kernels against a naive 7-loop convolution: 1x1 direct
 * GEMM, im2col + GEMM (both GEMM kernels of the build) and depthwise, over odd channel
 * counts, output sizes below and above the GEMM tile, strides 1-3, asymmetric pads,
 * dilation, groups, depthwise with multiplier, bias/residual/relu/clip epilogues, packed
 * and ONNX-layout (run-time) weights; the padded-plane depthwise kernels (SIMD builds),
 * also with y in the residual's memory; the depthwise kernels' thread shares (wgk_split.h).
 * rtol 1e-4, atol 1e-5 (atol grows with sqrt of the reduction length).
 */
#include "wgk_conv.h"
#include "wgkt.h"
#include "conv_ref.h"

#define CAP (1 << 20)
static float X[CAP], Wt[CAP], WP[CAP], Bias[4096], Res[CAP], Y[CAP], Want[CAP], Whole[CAP], Scratch[CAP];
static uint32_t seed = 777;
static int rowmajor; /* GEMM kernels read W in ONNX layout instead of packed */

static void fill(float *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = wgkt_rand(&seed);
}

typedef wgkt_conv_shape shape;

#ifdef __wasm_simd128__
/* The padded-plane depthwise kernel for a's kernel size and strides. */
static void dwconv_padded(const wgk_conv2d_args *a)
{
    static void (*const fn[3][2][2])(const wgk_conv2d_args *) = {
        {{wgk_f32_dwconv2d_3x3_s1x1, wgk_f32_dwconv2d_3x3_s1x2}, {wgk_f32_dwconv2d_3x3_s2x1, wgk_f32_dwconv2d_3x3_s2x2}},
        {{wgk_f32_dwconv2d_5x5_s1x1, wgk_f32_dwconv2d_5x5_s1x2}, {wgk_f32_dwconv2d_5x5_s2x1, wgk_f32_dwconv2d_5x5_s2x2}},
        {{wgk_f32_dwconv2d_7x7_s1x1, wgk_f32_dwconv2d_7x7_s1x2}, {wgk_f32_dwconv2d_7x7_s2x1, wgk_f32_dwconv2d_7x7_s2x2}},
    };
    fn[(a->KH - 3) / 2][a->SH == 2][a->SW == 2](a);
}
#endif

/* kind: 0 = 1x1 direct, 1 = im2col, 2 = depthwise, 3 = depthwise padded-plane (SIMD).
 * epi: a wgkt_conv_epilogue case (4, 5, with post-ops: the padded depthwise kernels only),
 * or EPI_IN_PLACE: bias+res with y the residual's memory */
#define EPI_IN_PLACE WGKT_EPI_CASES
static void check(const shape *s, int kind, int epi, wgk_gemm_fn gemm, const char *name)
{
    wgk_conv2d_args a = wgkt_conv_args(s);
    a.gemm = gemm;
    const int cg = s->C / s->groups, K = cg * s->KH * s->KW;
    const int ysize = s->N * s->M * a.OH * a.OW;
    fill(X, s->N * s->C * s->H * s->W);
    fill(Wt, s->M * K);
    fill(Bias, s->M);
    fill(Res, ysize);
    for (int i = 0; i < ysize + 8; i++)
        Y[i] = 1000.0f;
    wgkt_conv_bind(&a, epi == EPI_IN_PLACE ? 1 : epi, X, Bias, Res, Y, Scratch);
    if (epi == EPI_IN_PLACE) { /* y starts as the residual */
        a.res = Res;
        a.bias = Bias;
        for (int i = 0; i < ysize; i++)
            Y[i] = Res[i];
    }
    WGKT_CHECK(wgk_conv2d_im2col_scratch(s->C, s->groups, s->KH, s->KW, a.OH, a.OW) <= CAP,
               "scratch fits the test buffer");
    wgkt_conv2d_reference(&a, Wt, Want);
    if (epi == EPI_IN_PLACE)
        a.res = Y; /* the reference read Res; the kernel reads the same values from y */
    if (kind == 2) {
        a.w = Wt;
        wgk_f32_dwconv2d(&a);
#ifdef __wasm_simd128__
    } else if (kind == 3) {
        a.w = Wt;
        for (int i = 0; i < CAP; i++)
            Scratch[i] = NAN; /* garbage in the scratch must not leak into the result */
        WGKT_CHECK(wgk_dwconv2d_padded_ok(&a) && wgk_dwconv2d_padded_scratch(&a) <= CAP,
                   "padded depthwise applies, its scratch fits the test buffer");
        dwconv_padded(&a);
#endif
    } else {
        wgk_pack_conv(Wt, (size_t)s->M, (size_t)K, (size_t)s->groups, WP);
        a.w = rowmajor ? Wt : WP;
        a.w_rowmajor = rowmajor;
        if (kind == 0)
            wgk_f32_conv2d_1x1(&a);
        else
            wgk_f32_conv2d_im2col(&a);
    }
    float atol = 1e-5f;
    for (int k = 1; k * k < K; k++)
        atol = 1e-5f * (float)(k + 1);
    int bad = 0;
    for (int i = 0; i < ysize && !bad; i++)
        if (!wgkt_close(Y[i], Want[i], 1e-4f, atol)) {
            bad = 1;
            WGKT_CHECK_CLOSE(Y[i], Want[i], 1e-4f, atol, name);
            wgkt_log("  at index ");
            wgkt_log_int(i);
            wgkt_log(" C=");
            wgkt_log_int(s->C);
            wgkt_log(" H=");
            wgkt_log_int(s->H);
            wgkt_log(" W=");
            wgkt_log_int(s->W);
            wgkt_log(" M=");
            wgkt_log_int(s->M);
            wgkt_log(" K=");
            wgkt_log_int(s->KH);
            wgkt_log("x");
            wgkt_log_int(s->KW);
            wgkt_log(" groups=");
            wgkt_log_int(s->groups);
            wgkt_log(" epi=");
            wgkt_log_int(epi);
            wgkt_log("\n");
        }
    WGKT_CHECK(!bad, name);
    WGKT_CHECK(Y[ysize] == 1000.0f, "conv wrote past its output");
    /* Threads: the depthwise kernels' shares (whole groups) of 2 and 3 threads, one
     * after another, give the whole call's bits. */
    if (kind < 2 || epi == EPI_IN_PLACE)
        return;
    for (int i = 0; i < ysize; i++)
        Whole[i] = Y[i];
    void (*dw)(const wgk_conv2d_args *) = wgk_f32_dwconv2d;
#ifdef __wasm_simd128__
    if (kind == 3)
        dw = dwconv_padded;
#endif
    for (int n = 2; n <= 3; n++)
        WGKT_CHECK(wgkt_conv_parts_match(dw, wgk_split_dwconv2d, &a, Whole, ysize, n),
                   "depthwise conv split among threads gives the whole call's bits");
}

static void check_gemm_convs(wgk_gemm_fn gemm, const char *name)
{
    static const shape one[] = {WGKT_CONV_SHAPES_1X1};
    static const shape gen[] = {WGKT_CONV_SHAPES_GENERAL};
    for (unsigned i = 0; i < sizeof one / sizeof *one; i++)
        for (int epi = 0; epi < 4; epi++)
            check(&one[i], 0, epi, gemm, name);
    for (unsigned i = 0; i < sizeof gen / sizeof *gen; i++)
        for (int epi = 0; epi < 4; epi++)
            check(&gen[i], 1, epi, gemm, name);
    /* 1x1 shapes through im2col too */
    for (unsigned i = 0; i < sizeof one / sizeof *one; i++)
        check(&one[i], 1, 2, gemm, name);
}

static void check_depthwise(void)
{
    /* N  C  H  W  M KH KW SH SW DH DW PT PL PB PR groups */
    static const shape dw[] = {
        {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 3, 7, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},
        {2, 5, 12, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5},
        {1, 4, 10, 17, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},
        {1, 2, 9, 9, 2, 5, 5, 1, 1, 2, 2, 4, 4, 4, 4, 2},
        {1, 3, 8, 11, 3, 3, 5, 2, 3, 1, 1, 0, 2, 1, 0, 3},
        {1, 2, 3, 3, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 2},
        {1, 8, 14, 14, 8, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 8},
        /* wide rows: the 16- and 4-wide SIMD interior, its tails and borders */
        {1, 3, 6, 45, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 3},
        {1, 2, 7, 83, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
        {1, 2, 9, 70, 4, 7, 7, 1, 2, 1, 2, 3, 5, 3, 1, 2},
        {1, 2, 11, 40, 2, 9, 9, 1, 1, 1, 1, 4, 4, 4, 4, 2}, /* 81 taps: the row path */
    };
    for (unsigned i = 0; i < sizeof dw / sizeof *dw; i++)
        for (int epi = 0; epi < 4; epi++)
            check(&dw[i], 2, epi, NULL, "dwconv2d");
}

#ifdef __wasm_simd128__
static void check_depthwise_padded(void)
{
    /* N  C  H  W  M KH KW SH SW DH DW PT PL PB PR groups */
    static const shape dw[] = {
        {1, 2, 12, 80, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 2},   /* PP-OCR rec: 12x80 */
        {1, 2, 12, 80, 2, 5, 5, 2, 1, 1, 1, 2, 2, 2, 2, 2},   /* stride (2, 1) */
        {2, 3, 13, 37, 6, 5, 5, 2, 2, 1, 1, 2, 1, 1, 2, 3},   /* odd rows, multiplier 2 */
        {1, 2, 9, 21, 2, 5, 5, 1, 2, 1, 1, 0, 2, 1, 0, 2},
        {1, 3, 7, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},
        {1, 3, 15, 33, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},
        {1, 2, 8, 19, 2, 3, 3, 2, 1, 1, 1, 0, 1, 1, 0, 2},
        {1, 2, 10, 64, 4, 3, 3, 1, 2, 1, 1, 1, 0, 0, 1, 2},
        {1, 2, 3, 3, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 2},     /* output narrower than a vector */
        {1, 1, 1, 2, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 2, 6, 6, 2, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 2},     /* no padding */
        {1, 3, 14, 21, 3, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 3},   /* ConvNeXt: 7x7, pad 3 */
        {1, 2, 11, 35, 4, 7, 7, 2, 2, 1, 1, 3, 2, 3, 1, 2},   /* 7x7 stride 2, multiplier 2 */
        {1, 2, 9, 17, 2, 7, 7, 2, 1, 1, 1, 3, 3, 0, 3, 2},
        {1, 2, 5, 5, 2, 7, 7, 1, 2, 1, 1, 3, 3, 3, 3, 2},     /* plane smaller than the filter */
    };
    for (unsigned i = 0; i < sizeof dw / sizeof *dw; i++)
        for (int epi = 0; epi <= EPI_IN_PLACE; epi++)
            check(&dw[i], 3, epi, NULL, "dwconv2d padded");
    for (unsigned i = 0; i < sizeof dw / sizeof *dw; i++)
        check(&dw[i], 2, EPI_IN_PLACE, NULL, "dwconv2d in place");
}
#endif

static void run(void)
{
    check_gemm_convs(wgk_f32_gemm_4x4__scalar, "conv2d (gemm 4x4 scalar)");
#ifdef __wasm_simd128__
    check_gemm_convs(wgk_f32_gemm_4x8__wasmsimd, "conv2d (gemm 4x8 wasmsimd)");
#endif
    check_depthwise();
#ifdef __wasm_simd128__
    check_depthwise_padded();
#endif
    rowmajor = 1;
    check_gemm_convs(wgk_f32_gemm_4x4__scalar, "conv2d, ONNX-layout weight (gemm 4x4 scalar)");
#ifdef __wasm_simd128__
    check_gemm_convs(wgk_f32_gemm_4x8__wasmsimd, "conv2d, ONNX-layout weight (gemm 4x8 wasmsimd)");
#endif
}

WGKT_MAIN("conv", run)
