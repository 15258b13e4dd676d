/*
 * test_conv_fewpix.c: the few-pixel convolution (wgk_conv_fewpix.h) against the naive
 * convolution: 1x1 and 3x3 convs on 16-64 output pixels (pixel counts not a multiple of
 * 4, channel counts not a multiple of 8 or 4), strides 1 and 2, padding, dilation, two k
 * slices (K > KC), every epilogue. SIMD and scalar builds; the packed conv's tolerances
 * (rtol 1e-4, atol 1e-5 growing with the square root of K).
 */
#include "wgk_conv_fewpix.h"
#include "wgkt.h"
#include "conv_ref.h"

#define CAP (1 << 20)
static float X[CAP], Wt[CAP], WP[CAP + 64], Bias[4096], Res[CAP], Y[CAP], Want[CAP], Scratch[CAP];
static float Whole[CAP], Y2[CAP + 8], Want2[CAP], Affine[8192];
static uint32_t seed = 99;


typedef struct shape {
    int C, H, W, M, KH, S, D, PAD;
} shape;

static void check(const shape *s, int epi)
{
    wgk_conv2d_args a = {.N = 1, .C = s->C, .H = s->H, .W = s->W, .M = s->M, .KH = s->KH, .KW = s->KH,
                         .SH = s->S, .SW = s->S, .DH = s->D, .DW = s->D, .PT = s->PAD, .PL = s->PAD, .groups = 1};
    a.OH = (s->H + 2 * s->PAD - ((s->KH - 1) * s->D + 1)) / s->S + 1;
    a.OW = (s->W + 2 * s->PAD - ((s->KH - 1) * s->D + 1)) / s->S + 1;
    const int K = s->C * s->KH * s->KH, ysize = s->M * a.OH * a.OW;
    WGKT_CHECK(wgk_conv_fewpix_scratch(&a) <= CAP, "scratch fits the test buffer");
    WGKT_CHECK(wgk_conv_pack_w_size((size_t)s->M, (size_t)K, 1) <= CAP, "packed weight fits the test buffer");
    wgkt_conv_buffers(&seed, X, s->C * s->H * s->W, Wt, s->M * K, Bias, s->M, Res, Y, ysize, Scratch, CAP);
    wgkt_conv_bind(&a, epi, X, Bias, Res, Y, Scratch);
    wgkt_conv2d_reference(&a, Wt, Want);
    WGKT_CHECK(wgkt_conv_packed_matches(wgk_f32_conv2d_fewpix, &a, Wt, K, WP, epi, Y2, ysize, Affine, &seed, Want,
                                        Want2, "conv2d_fewpix"),
               "conv2d_fewpix matches the naive convolution and writes nothing past its output");
    /* Threads: 2 and 3 threads' shares (panel pairs), one after another, give its bits. */
    if (epi != 2 || a.y2 == a.y)
        return;
    for (int i = 0; i < ysize; i++)
        Whole[i] = Y[i];
    for (int n = 2; n <= 3; n++)
        WGKT_CHECK(wgkt_conv_parts_match(wgk_f32_conv2d_fewpix, wgk_split_conv2d_fewpix, &a, Whole, ysize, n),
                   "conv2d_fewpix split among threads gives the whole call's bits");
}

static void run(void)
{
    static const shape shapes[] = {
        /* C    H   W   M  KH S  D PAD */
        {64, 7, 7, 64, 1, 1, 1, 0},     /* ResNet stage 4 1x1, 49 pixels */
        {300, 7, 7, 13, 1, 1, 1, 0},    /* M neither a multiple of 8 nor of 4 */
        {1100, 5, 6, 10, 1, 1, 1, 0},   /* K > KC: three k slices */
        {64, 13, 13, 16, 1, 2, 1, 0},   /* 1x1 stride 2: gathered pixels */
        {32, 14, 14, 24, 3, 2, 1, 1},   /* 3x3 stride 2, padded */
        {40, 7, 7, 9, 3, 1, 1, 1},      /* 3x3 stride 1, padded */
        {16, 9, 9, 8, 3, 1, 2, 2},      /* dilated */
        {256, 4, 4, 32, 1, 1, 1, 0},    /* 16 pixels: whole groups */
        {32, 8, 7, 20, 3, 1, 1, 0},     /* 30 pixels, no padding */
        {600, 7, 7, 24, 1, 1, 1, 0},    /* 49 pixels (a 1-pixel last group), two k slices */
        {72, 9, 3, 24, 1, 1, 1, 0},     /* 27 pixels (3 in the last group) */
        {513, 2, 9, 16, 1, 1, 1, 0},    /* 18 pixels (2 in the last group), odd K, two k slices */
    };
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int epi = 0; epi < WGKT_EPI_CASES; epi++)
            check(&shapes[i], epi);
}

WGKT_MAIN("conv_fewpix", run)
