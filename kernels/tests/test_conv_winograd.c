/*
 * test_conv_winograd.c: the Winograd F(2x2, 3x3), F(4x4, 3x3), F(3x3, 4x4), F(2x2, 5x5)
 * and 3x3 stride-2 convolutions and the 7x7/8x8 stride-2 phase split (wgk_winograd.h),
 * with filters from wgk_winograd_f2x3_prepare_w / wgk_winograd_f4x3_prepare_w / wgk_winograd_f3x4_prepare_w /
 * wgk_winograd_f2x5_prepare_w / wgk_winograd_f2x3s2_prepare_w (from wgk_conv_pack_w-packed filters), against a naive convolution: odd and even output sizes (partial tiles), pads 0..2 on each side
 * (asymmetric), channel counts around the 4-row weight panel, tile counts around the
 * 8-column panel, several tile blocks (large C + M), batch 2, every epilogue (bias,
 * residual, relu, clip). SIMD and scalar builds.
 * rtol 1e-4, atol 1e-5 growing with sqrt of the reduction length (the transforms add
 * a few roundings; F(2x2, 3x3) stays well inside that).
 */
#include "wgk_split.h"
#include "wgk_winograd.h"
#include "wgkt.h"
#include "conv_ref.h"

#define CAP (1 << 20)
static float Whole[CAP], WP[4 * CAP], X[CAP], Wt[CAP], Wr[CAP], Wpacked[CAP + 4096], Bias[4096], Res[CAP], Y[CAP], Want[CAP], Scratch[CAP];
static uint32_t seed = 9090;
enum { F2, F4, F2K5, S2, F3K4, PH };
static int variant; /* F2: wgk_f32_conv2d_winograd_f2x3, F4: ..._winograd4, F2K5: ..._winograd5x5,
                     * S2: ..._winograd_s2, F3K4: ..._winograd4x4, PH: wgk_f32_conv2d_phases */

typedef wgkt_conv_shape shape;

/* Each variant's kernel and its thread-split rule (wgk_split.h). */
static void (*const kernel[])(const wgk_conv2d_args *) = {
    [F2] = wgk_f32_conv2d_winograd_f2x3, [F4] = wgk_f32_conv2d_winograd_f4x3, [F2K5] = wgk_f32_conv2d_winograd_f2x5,
    [S2] = wgk_f32_conv2d_winograd_f2x3s2, [F3K4] = wgk_f32_conv2d_winograd_f3x4, [PH] = wgk_f32_conv2d_phases};
static int (*const split[])(wgk_conv2d_args *, wgk_part) = {
    [F2] = wgk_split_winograd_f2x3, [F4] = wgk_split_winograd_f4x3, [F2K5] = wgk_split_winograd_f2x5,
    [S2] = wgk_split_winograd_f2x3s2, [F3K4] = wgk_split_winograd_f3x4, [PH] = wgk_split_conv2d_phases};

/* epi: 0 none, 1 bias, 2 bias+res+relu, 3 res+clip */
static void check(const shape *s, int epi)
{
    wgk_conv2d_args a = wgkt_conv_args(s);
    const int cg = s->C / s->groups, K = cg * s->KH * s->KW;
    /* The phase split's 4x4 conv on 4C phase channels: its filters and their shape. */
    const int wc = variant == PH ? 4 * cg : cg, wk = variant == PH ? wc * 16 : K;
    const int ysize = s->N * s->M * a.OH * a.OW;
    const size_t scratch = variant == F2   ? wgk_winograd_f2x3_scratch(s->C, s->M, a.OH, a.OW)
                           : variant == F4 ? wgk_winograd_f4x3_scratch(s->C, s->M, a.OH, a.OW)
                           : variant == S2 ? wgk_winograd_f2x3s2_scratch(s->C, s->M, a.OH, a.OW)
                           : variant == F3K4 ? wgk_winograd_f3x4_scratch(s->C, s->M, a.OH, a.OW)
                           : variant == PH   ? wgk_conv_phases_scratch(&a)
                                             : wgk_winograd_f2x5_scratch(s->C, s->M, a.OH, a.OW);
    WGKT_CHECK(scratch <= CAP, "scratch fits the test buffer");
    WGKT_CHECK(wgk_winograd_f4x3_pack_w_size((size_t)s->M, (size_t)wc) <= 4 * CAP && s->M * wk <= CAP &&
                   wgk_conv_pack_w_size((size_t)s->M, (size_t)wk, (size_t)s->groups) <= CAP + 4096,
               "packed weight fits the test buffer");
    wgkt_conv_buffers(&seed, X, s->N * s->C * s->H * s->W, Wt, s->M * K, Bias, s->M, Res, Y, ysize, Scratch, CAP);
    a.x = X;
    a.bias = epi == 1 || epi == 2 ? Bias : NULL;
    a.res = epi >= 2 ? Res : NULL;
    if (epi == 2)
        a.min = 0.0f;
    if (epi == 3) {
        a.min = -0.25f;
        a.max = 0.5f;
    }
    a.y = Y;
    a.scratch = Scratch;
    wgkt_conv2d_reference(&a, Wt, Want);
    /* Every float of the prepared weight, the zero rows past M included, is written;
     * grouped: one group's after the other's. */
    const int mg = s->M / s->groups;
    const size_t gsize = variant == F2   ? wgk_winograd_f2x3_pack_w_size((size_t)mg, (size_t)cg)
                         : variant == S2 ? wgk_winograd_f2x3s2_pack_w_size((size_t)mg, (size_t)cg)
                                         : wgk_winograd_f4x3_pack_w_size((size_t)mg, (size_t)wc);
    const size_t wsize = gsize * (size_t)s->groups;
    for (size_t i = 0; i < wsize + 8; i++)
        WP[i] = NAN;
    /* The prepare functions read the filters packed like the direct packed conv's (the
     * phase split: its 4x4 filters, as the compiler packs them). */
    if (variant == PH)
        wgk_conv_phases_weights(Wt, s->M, s->C, s->KH, Wr);
    wgk_conv_pack_w(variant == PH ? Wr : Wt, (size_t)s->M, (size_t)wk, (size_t)s->groups, Wpacked);
    for (int g = 0; g < s->groups; g++) {
        const float *wg = Wpacked + (size_t)g * wgk_conv_pack_w_group((size_t)mg, (size_t)wk);
        if (variant == F3K4 || variant == PH)
            wgk_winograd_f3x4_prepare_w(wg, mg, wc, WP + g * gsize);
        else if (variant == F2)
            wgk_winograd_f2x3_prepare_w(wg, mg, cg, WP + g * gsize);
        else if (variant == F4)
            wgk_winograd_f4x3_prepare_w(wg, mg, cg, WP + g * gsize);
        else if (variant == S2)
            wgk_winograd_f2x3s2_prepare_w(wg, mg, cg, WP + g * gsize);
        else
            wgk_winograd_f2x5_prepare_w(wg, mg, cg, WP + g * gsize);
    }
    int unset = 0;
    for (size_t i = 0; i < wsize; i++)
        unset += WP[i] != WP[i];
    WGKT_CHECK(!unset, "wino_prepare_w writes every float of the packed weight");
    WGKT_CHECK(WP[wsize] != WP[wsize], "wino_prepare_w wrote past its packed weight");
    a.w = WP;
    kernel[variant](&a);
    int past = 0; /* the kernel keeps to its scratch size */
    for (size_t i = scratch; i < CAP && i < scratch + 4096; i++)
        past += Scratch[i] == Scratch[i];
    WGKT_CHECK(!past, "the Winograd kernel writes nothing past its scratch size");
    /* F(4x4) rounds through larger transform coefficients (up to 8 in A^T, 5 in B^T):
     * about 10x the error of F(2x2), still ~1e-4 of the output scale. F(2x2, 5x5) has
     * the same B^T and G entries up to 16/24, F(3x3, 4x4) (and the phase split, which
     * runs it over a 4C x 16 reduction) up to 8/24 in G. The stride-2 transforms only
     * add and subtract (F(2x2)'s tolerance). */
    const float atol = wgkt_conv_atol(wk) * (variant == F2 || variant == S2 ? 1.0f : 4.0f);
    static const char *const names[] = {[F2] = "conv2d_winograd F(2x2)", [F4] = "conv2d_winograd F(4x4)",
                                        [F2K5] = "conv2d_winograd F(2x2, 5x5)", [S2] = "conv2d_winograd stride 2",
                                        [F3K4] = "conv2d_winograd F(3x3, 4x4)", [PH] = "conv2d_phases 7x7/8x8 stride 2"};
    const int bad = !wgkt_conv_matches(Y, Want, ysize, atol, &a, epi, names[variant]);
    WGKT_CHECK(!bad, "conv2d_winograd matches the naive convolution");
    WGKT_CHECK(Y[ysize] == 1000.0f, "conv2d_winograd wrote past its output");
    /* Threads: 2 and 3 threads' shares, one after another, give the whole call's bits. */
    if (epi != 2)
        return;
    for (int i = 0; i < ysize; i++)
        Whole[i] = Y[i];
    for (int n = 2; n <= 3; n++)
        WGKT_CHECK(wgkt_conv_parts_match(kernel[variant], split[variant], &a, Whole, ysize, n),
                   "conv2d_winograd split among threads gives the whole call's bits");
}

/* Every shape of a variant with every epilogue. */
static void check_all(int v, const shape *shapes, unsigned n)
{
    variant = v;
    for (unsigned i = 0; i < n; i++)
        for (int epi = 0; epi < 4; epi++)
            check(&shapes[i], epi);
}

static void run(void)
{
    /* N  C  H  W  M KH KW SH SW DH DW PT PL PB PR groups */
    static const shape shapes[] = {
        {1, 1, 4, 4, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 1, 3, 3, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 3, 5, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {2, 8, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 6, 9, 6, 9, 3, 3, 1, 1, 1, 1, 2, 0, 1, 2, 1},
        {1, 4, 1, 1, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 16, 14, 14, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 37, 13, 11, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 64, 17, 16, 7, 3, 3, 1, 1, 1, 1, 0, 1, 2, 1, 1},
        {1, 1300, 7, 7, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, /* 2 blocks of 8 tiles */
        {1, 1000, 7, 5, 30, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, /* K = 1000, 3 tile blocks */
        {1, 24, 29, 30, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, /* interior F(4x4) groups */
        {2, 600, 20, 18, 40, 3, 3, 1, 1, 1, 1, 1, 0, 1, 2, 1}, /* F(4x4): 2 tile blocks */
        {1, 600, 30, 30, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, /* F(2x2): 10 blocks (threads: whole blocks) */
        {2, 32, 13, 13, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},  /* groups (AlexNet), 2 images */
        {1, 12, 9, 10, 21, 3, 3, 1, 1, 1, 1, 0, 1, 1, 0, 3},   /* 3 groups, odd M per group */
    };
    static const shape shapes5[] = {
        {1, 1, 5, 5, 1, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 1, 6, 6, 1, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 3, 9, 11, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
        {2, 8, 8, 8, 16, 5, 5, 1, 1, 1, 1, 1, 2, 2, 1, 1},
        {1, 6, 9, 6, 9, 5, 5, 1, 1, 1, 1, 2, 0, 1, 2, 1},
        {1, 4, 1, 1, 4, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},
        {1, 17, 26, 26, 20, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},  /* AlexNet's size: 13 tiles a row */
        {1, 24, 20, 21, 12, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},  /* rows of 4 whole tiles */
        {1, 600, 14, 13, 40, 5, 5, 1, 1, 1, 1, 2, 1, 2, 2, 1}, /* 2 tile blocks */
        {2, 32, 13, 13, 48, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 2},  /* groups, 2 images */
        {1, 12, 9, 10, 21, 5, 5, 1, 1, 1, 1, 0, 1, 1, 0, 3},   /* 3 groups, odd M per group */
    };
    check_all(F2, shapes, sizeof shapes / sizeof *shapes);
    check_all(F4, shapes, sizeof shapes / sizeof *shapes);
    check_all(F2K5, shapes5, sizeof shapes5 / sizeof *shapes5);
    /* Stride 2: output sizes odd and even, pads 0..1 each side (asymmetric), windows
     * at every edge, rows of 4 whole tiles inside the image (the SIMD loads), blocks. */
    static const shape shapes_s2[] = {
        {1, 1, 3, 3, 1, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {1, 1, 5, 5, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {1, 3, 9, 11, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {2, 8, 16, 16, 16, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1},
        {1, 6, 10, 7, 9, 3, 3, 2, 2, 1, 1, 0, 1, 1, 0, 1},
        {1, 16, 56, 56, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   /* ResNet stage 2's shape */
        {1, 37, 28, 27, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
        {1, 600, 30, 29, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  /* 2 tile blocks */
        {2, 32, 14, 14, 48, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},   /* groups, 2 images */
    };
    check_all(S2, shapes_s2, sizeof shapes_s2 / sizeof *shapes_s2);
    /* F(3x3, 4x4): 4x4 filters, stride 1; outputs of 3k and 3k +- 1 (partial tiles),
     * rows of 4 whole tiles (the SIMD stores) and tile groups straddling rows. */
    static const shape shapes4[] = {
        {1, 1, 4, 4, 1, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 1, 6, 6, 1, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 3, 9, 11, 5, 4, 4, 1, 1, 1, 1, 1, 2, 2, 1, 1},
        {2, 8, 15, 16, 16, 4, 4, 1, 1, 1, 1, 1, 1, 2, 2, 1},
        {1, 12, 40, 41, 20, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1},   /* 13 tiles a row: whole rows of 4 */
        {1, 600, 16, 14, 40, 4, 4, 1, 1, 1, 1, 1, 1, 2, 2, 1},  /* 2 tile blocks */
        {2, 32, 13, 13, 48, 4, 4, 1, 1, 1, 1, 1, 2, 2, 1, 2},   /* groups, 2 images */
    };
    check_all(F3K4, shapes4, sizeof shapes4 / sizeof *shapes4);
    /* Phase split: 7x7 and 8x8 stride 2, pads 0..4 (asymmetric), odd and even input
     * sizes, ResNet's first layer (3 -> 64, 224x224, pad 3) at reduced height, 2 images. */
    static const shape shapes_ph[] = {
        {1, 1, 7, 7, 1, 7, 7, 2, 2, 1, 1, 0, 0, 0, 0, 1},
        {1, 3, 16, 15, 5, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},
        {2, 3, 21, 24, 16, 7, 7, 2, 2, 1, 1, 2, 3, 4, 1, 1},
        {1, 5, 20, 19, 9, 8, 8, 2, 2, 1, 1, 3, 4, 4, 3, 1},
        {1, 3, 40, 224, 64, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},
        {1, 150, 18, 17, 24, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},  /* 600 phase channels */
    };
    check_all(PH, shapes_ph, sizeof shapes_ph / sizeof *shapes_ph);
}

WGKT_MAIN("conv_winograd", run)
