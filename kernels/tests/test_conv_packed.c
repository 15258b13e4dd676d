/*
 * test_conv_packed.c: the packed-GEMM convolution (wgk_conv_packed.h) against a naive
 * 7-loop convolution: 1x1 (direct packing) and general (fused im2col packing) shapes,
 * channel counts around the 4-row weight panel, pixel counts around the 8-column B
 * panel, several B blocks (large K), rows of the image split across panels and blocks,
 * strides, pads, dilation, groups, batch, and every epilogue (bias, residual, relu, clip).
 * Also the micro-kernel alone for every partial tile, with and without accumulation. Runs in the SIMD, relaxed-less
 * and scalar builds (the micro-kernel is chosen at build time).
 * rtol 1e-4, atol 1e-5 (atol grows with sqrt of the reduction length).
 */
#include "wgk_conv_packed.h"
#include "wgkt.h"
#include "conv_ref.h"

#define CAP (1 << 20)
static float X[CAP], Wt[CAP], WP[CAP + 64], Bias[4096], Res[CAP], Y[CAP], Want[CAP], Scratch[CAP];
static float Y2[CAP + 8], Want2[CAP], Affine[8192];
static uint32_t seed = 4242;

typedef wgkt_conv_shape shape;

/* epi: a wgkt_conv_epilogue case */
static void check(const shape *s, int epi)
{
    wgk_conv2d_args a = wgkt_conv_args(s);
    const int cg = s->C / s->groups, K = cg * s->KH * s->KW;
    const int ysize = s->N * s->M * a.OH * a.OW;
    WGKT_CHECK(wgk_conv_packed_scratch(&a) <= CAP, "scratch fits the test buffer");
    WGKT_CHECK(wgk_conv_pack_w_size((size_t)s->M, (size_t)K, (size_t)s->groups) <= CAP,
               "packed weight fits the test buffer");
    wgkt_conv_buffers(&seed, X, s->N * s->C * s->H * s->W, Wt, s->M * K, Bias, s->M, Res, Y, ysize, Scratch, CAP);
    wgkt_conv_bind(&a, epi, X, Bias, Res, Y, Scratch);
    wgkt_conv2d_reference(&a, Wt, Want);
    WGKT_CHECK(wgkt_conv_packed_matches(wgk_f32_conv2d_packed, &a, Wt, K, WP, epi, Y2, ysize, Affine, &seed, Want,
                                        Want2, "conv2d_packed"),
               "conv2d_packed matches the naive convolution and writes nothing past its output");
}

/* The micro-kernel on every mr x nr, with K = 0, 1 and a few more. */
static void check_ukernel(void)
{
    static const int ks[] = {0, 1, 3, 17};
    for (unsigned ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
        const int K = ks[ki];
        wgkt_fill(X, K * WGK_CONV_MR, &seed);
        wgkt_fill(Wt, K * WGK_CONV_NR, &seed);
        wgkt_fill(Bias, WGK_CONV_MR, &seed);
        wgkt_fill(Res, 16 * WGK_CONV_MR, &seed);
        for (int mr = 1; mr <= WGK_CONV_MR; mr++)
            for (int nr = 1; nr <= WGK_CONV_NR; nr++)
                for (int epi = 0; epi < 5; epi++) {
                    /* epi 1: bias + res, 2: bias + res + clamp, 3: accumulate onto what c
                     * holds (a later k block), 4: res alone */
                    const int ldc = 13, ldr = 11, acc = epi == 3;
                    for (int i = 0; i < ldc * WGK_CONV_MR; i++)
                        Y[i] = 1000.0f;
                    if (acc)
                        for (int r = 0; r < mr; r++)
                            for (int j = 0; j < nr; j++)
                                Y[r * ldc + j] = Res[r * ldr + j];
                    const float lo = epi == 2 ? 0.0f : -INFINITY, hi = epi == 2 ? 0.75f : INFINITY;
                    wgk_f32_conv_ukernel(mr, nr, K, X, Wt, 0, Y, ldc, epi == 1 || epi == 2 ? Bias : NULL,
                                         epi == 1 || epi == 2 || epi == 4 ? Res : NULL, ldr, lo, hi, acc);
                    int bad = 0;
                    for (int r = 0; r < WGK_CONV_MR; r++)
                        for (int j = 0; j < ldc; j++) {
                            float got = Y[r * ldc + j];
                            if (r >= mr || j >= nr) {
                                bad |= got != 1000.0f;
                                continue;
                            }
                            double s = 0.0;
                            for (int k = 0; k < K; k++)
                                s += (double)X[k * WGK_CONV_MR + r] * Wt[k * WGK_CONV_NR + j];
                            float v = (float)s + (epi ? (acc || epi == 4 ? 0.0f : Bias[r]) + Res[r * ldr + j] : 0.0f);
                            v = v < lo ? lo : v > hi ? hi : v;
                            bad |= !wgkt_close(got, v, 1e-4f, wgkt_conv_atol(K));
                        }
                    WGKT_CHECK(!bad, "conv micro-kernel tile (mr, nr, K, epilogue)");
                }
    }
}

/* Threads: n threads' shares (wgk_split_conv2d_packed), run one after another, give the whole call's bits:
 * pixels split where each thread gets two blocks of columns or more (a 1x1 conv reading B
 * in place, and a padded 3x3 one through the fused im2col) or where few rows make that
 * repeat less (wgk_part_splits_columns), else output channels. */
static void check_parts(const shape *s, int n, int want_pixel_split)
{
    wgk_conv2d_args a = wgkt_conv_args(s);
    const int cg = s->C / s->groups, K = cg * s->KH * s->KW;
    const int ysize = s->N * s->M * a.OH * a.OW;
    WGKT_CHECK(ysize <= CAP / 2 && wgk_conv_packed_scratch(&a) <= CAP, "threads case fits the test buffers");
    wgkt_conv_buffers(&seed, X, s->N * s->C * s->H * s->W, Wt, s->M * K, Bias, s->M, Res, Y, ysize, Scratch, CAP);
    a.x = X;
    wgkt_conv_epilogue(&a, 2, Bias, Res);
    wgk_conv_pack_w(Wt, (size_t)s->M, (size_t)K, (size_t)s->groups, WP);
    a.w = WP;
    a.scratch = Scratch;
    a.y = Want;
    wgk_f32_conv2d_packed(&a);
    const int nc = wgk_conv_block_cols(K, a.OH * a.OW);
    WGKT_CHECK(wgk_part_splits_columns((wgk_part){0, n}, nc, a.OH * a.OW, s->M / s->groups) == want_pixel_split,
               "the split the case is meant to test");
    a.y = Y;
    WGKT_CHECK(wgkt_conv_parts_match(wgk_f32_conv2d_packed, wgk_split_conv2d_packed, &a, Want, ysize, n),
               "conv2d_packed split among threads gives the whole call's bits");
}

static void run(void)
{
    check_ukernel();
    /* N  C  H  W  M KH KW SH SW DH DW PT PL PB PR groups */
    static const shape pixels_1x1 = {1, 16, 160, 160, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1};
    static const shape pixels_3x3 = {1, 3, 121, 123, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const shape channels = {1, 24, 20, 21, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    /* one block of 424 columns, 22 rows: the packing saved outweighs the broadcasts */
    static const shape pixels_few_rows = {1, 24, 20, 21, 22, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int n = 2; n <= 3; n++) {
        check_parts(&pixels_1x1, n, 1);
        check_parts(&pixels_3x3, n, 1);
        check_parts(&channels, n, 0);
        check_parts(&pixels_few_rows, n, 1);
    }
    /* N  C  H  W  M KH KW SH SW DH DW PT PL PB PR groups */
    static const shape shapes[] = {
        WGKT_CONV_SHAPES_1X1,
        {1, 64, 8, 8, 12, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 4096, 3, 5, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* several B blocks */
        {2, 2048, 7, 7, 6, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* N = 49: one-column panel */
        {1, 600, 20, 21, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, /* in-place B: 4 blocks, 2 k blocks, tail */
        /* general: fused im2col */
        WGKT_CONV_SHAPES_GENERAL,
        {1, 3, 37, 41, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   /* stride 2: vector gathers + tails */
        {1, 2, 9, 18, 4, 1, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1},    /* stride 2 ending at the row's end */
        {1, 1, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},     /* 1x1 with padding */
        {1, 512, 9, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   /* K = 4608: blocks split rows */
        {1, 300, 13, 5, 13, 3, 3, 2, 1, 1, 1, 1, 0, 1, 2, 1}, /* blocks and rows misaligned */
        {1, 1000, 4, 3, 6, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2},  /* k blocks (of 512) per group */
        {1, 1, 28, 28, 6, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},   /* LeNet conv1: padded copy, split panels */
        {1, 6, 14, 14, 16, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* LeNet conv2: in place, rows of 10 */
        {1, 3, 35, 35, 5, 11, 11, 4, 4, 1, 1, 0, 0, 0, 0, 1}, /* AlexNet conv1: stride 4 gathers */
        {1, 4, 13, 13, 6, 3, 3, 1, 1, 2, 2, 0, 0, 0, 0, 1},   /* dilated, in place */
        {1, 2, 20, 31, 3, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},   /* stride 2 in place to the last column */
    };
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int epi = 0; epi < WGKT_EPI_CASES; epi++)
            check(&shapes[i], epi);
}

WGKT_MAIN("conv_packed", run)
