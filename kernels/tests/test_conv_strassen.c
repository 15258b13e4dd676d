/*
 * test_conv_strassen.c: the Strassen 1x1 convolution (wgk_conv_strassen.h) against the
 * naive convolution: odd and even pixel counts (the second half one pixel short, or
 * empty), partial NR panels, several pixel blocks, two k slices per half (K/2 > KC),
 * strides 1 and 2 (odd sizes), batch, every epilogue, a residual that is the output itself; and the
 * micro-kernel's second destination for every pair of column counts. SIMD and scalar
 * builds. The packed conv's tolerances (rtol 1e-4, atol 1e-5 growing with the square
 * root of K): the sums of two weights and of two inputs that the products multiply add
 * rounding, but not beyond them on these shapes.
 */
#include "wgk_conv_strassen.h"
#include "wgkt.h"
#include "conv_ref.h"

#define CAP (1 << 20)
static float X[2 * CAP], Wt[CAP], WP[CAP + 64], Bias[4096], Res[CAP], Y[CAP], Want[CAP], Scratch[CAP];
static float Y2[CAP + 8], Want2[CAP], Affine[8192];
static uint32_t seed = 777;


typedef struct shape {
    int N, C, H, W, M, S;
} shape;

/* epi: a wgkt_conv_epilogue case; res_in_y: the residual is the output buffer itself. */
static void check(const shape *s, int epi, int res_in_y)
{
    wgk_conv2d_args a = {.N = s->N, .C = s->C, .H = s->H, .W = s->W, .M = s->M, .KH = 1, .KW = 1,
                         .SH = s->S, .SW = s->S, .DH = 1, .DW = 1, .groups = 1};
    a.OH = (s->H - 1) / s->S + 1;
    a.OW = (s->W - 1) / s->S + 1;
    const int ysize = s->N * s->M * a.OH * a.OW;
    WGKT_CHECK(wgk_conv_strassen_scratch(&a) <= CAP, "scratch fits the test buffer");
    WGKT_CHECK((size_t)s->M * s->C <= CAP && ysize < CAP, "weight and output fit the test buffers");
    wgkt_conv_buffers(&seed, X, s->N * s->C * s->H * s->W, Wt, s->M * s->C, Bias, s->M, Res, Y, ysize, Scratch, CAP);
    wgkt_conv_bind(&a, epi, X, Bias, Res, Y, Scratch);
    wgkt_conv2d_reference(&a, Wt, Want);
    if (res_in_y && a.res) {
        for (int i = 0; i < ysize; i++)
            Y[i] = Res[i];
        a.res = Y;
    }
    WGKT_CHECK(wgkt_conv_packed_matches(wgk_f32_conv2d_strassen, &a, Wt, s->C, WP, epi, Y2, ysize, Affine, &seed,
                                        Want, Want2, "conv2d_strassen"),
               "conv2d_strassen matches the naive convolution and writes nothing past its output");
}

/* wgk_f32_conv_ukernel_splat_dual: the first destination as wgk_f32_conv_ukernel_splat,
 * the second c2 = (acc ? c2 : 0) +- the product, each over its own column count. */
static void check_dual(void)
{
    const int K = 5, ldc = 21;
    wgkt_fill(X, K * WGK_CONV_MR, &seed);
    wgk_conv_splat_a(X, K, Wt);
    wgkt_fill(Res, 3 * WGK_CONV_NR * K, &seed);
    static float C1[WGK_CONV_MR * 21], C2[WGK_CONV_MR * 21], Old[WGK_CONV_MR * 21];
    wgkt_fill(Old, WGK_CONV_MR * ldc, &seed);
    for (int n1 = 0; n1 <= 2 * WGK_CONV_NR; n1++)
        for (int n2 = 0; n2 <= 2 * WGK_CONV_NR; n2++)
            for (int mode = 0; mode < 4; mode++) { /* bit 0: subtract, bit 1: accumulate */
                for (int i = 0; i < WGK_CONV_MR * ldc; i++)
                    C1[i] = C2[i] = Old[i];
                const int panels = ((n1 > n2 ? n1 : n2) + WGK_CONV_NR - 1) / WGK_CONV_NR;
                wgk_conv_dst2 d2 = {C2, n2, mode & 1, mode >> 1};
                wgk_f32_conv_ukernel_splat_dual(WGK_CONV_MR, n1, K, Wt, Res, (size_t)K * WGK_CONV_NR, C1, ldc,
                                                NULL, NULL, 0, -INFINITY, INFINITY, 0, &d2);
                int bad = 0;
                for (int r = 0; r < WGK_CONV_MR; r++)
                    for (int j = 0; j < ldc; j++) {
                        double sum = 0.0;
                        if (j < panels * WGK_CONV_NR)
                            for (int k = 0; k < K; k++)
                                sum += (double)X[k * WGK_CONV_MR + r] *
                                       Res[(j / WGK_CONV_NR) * K * WGK_CONV_NR + k * WGK_CONV_NR + j % WGK_CONV_NR];
                        const float old = Old[r * ldc + j], v = (float)sum;
                        const float want1 = j < n1 ? v : old;
                        const float want2 = j < n2 ? (mode >> 1 ? old : 0.0f) + (mode & 1 ? -v : v) : old;
                        bad |= !wgkt_close(C1[r * ldc + j], want1, 1e-5f, 1e-5f);
                        bad |= !wgkt_close(C2[r * ldc + j], want2, 1e-5f, 1e-5f);
                    }
                WGKT_CHECK(!bad, "dual micro-kernel (columns of each destination, sign, accumulate)");
            }
}

/* Threads: n threads' parts run one after another give the whole call's bits, with the
 * pixels split (odd P: the second half one short) and with the weight panels split. */
static void check_parts(const shape *s, int n, int want_pixel_split)
{
    wgk_conv2d_args a = {.N = s->N, .C = s->C, .H = s->H, .W = s->W, .M = s->M, .KH = 1, .KW = 1,
                         .SH = s->S, .SW = s->S, .DH = 1, .DW = 1, .groups = 1};
    a.OH = (s->H - 1) / s->S + 1;
    a.OW = (s->W - 1) / s->S + 1;
    const int P = a.OH * a.OW, ysize = s->N * s->M * P;
    WGKT_CHECK(wgk_conv_strassen_scratch(&a) <= CAP && ysize < CAP && s->N * s->C * s->H * s->W <= 2 * CAP,
               "threads case fits the test buffers");
    wgkt_conv_buffers(&seed, X, s->N * s->C * s->H * s->W, Wt, s->M * s->C, Bias, s->M, Res, Y, ysize, Scratch, CAP);
    a.x = X;
    wgkt_conv_epilogue(&a, 2, Bias, Res);
    wgk_conv_pack_w(Wt, (size_t)s->M, (size_t)s->C, 1, WP);
    a.w = WP;
    a.scratch = Scratch;
    a.y = Want;
    wgk_f32_conv2d_strassen(&a);
    const int nc = wgk_conv_strassen_block_cols(s->C, s->M, P);
    WGKT_CHECK(wgk_part_splits_columns((wgk_part){0, n}, nc, (P + 1) / 2, s->M / 2) == want_pixel_split,
               "the split the case is meant to test");
    a.y = Y;
    WGKT_CHECK(wgkt_conv_parts_match(wgk_f32_conv2d_strassen, wgk_split_conv2d_strassen, &a, Want, ysize, n),
               "conv2d_strassen split among threads gives the whole call's bits");
}

static void run(void)
{
    /* N C H W M S: many pixel blocks (odd P), and few */
    static const shape pixels = {1, 256, 81, 81, 12, 1}, weights = {1, 64, 9, 11, 40, 1};
    for (int n = 2; n <= 3; n++) {
        check_parts(&pixels, n, 1);
        check_parts(&weights, n, 0);
    }
    check_dual();
    static const shape shapes[] = {
        /* N  C   H   W    M  S */
        {1, 2, 1, 1, 8, 1},        /* one pixel: the second half is empty */
        {1, 4, 3, 3, 8, 1},        /* odd pixel count */
        {2, 6, 5, 7, 16, 1},       /* batch */
        {1, 64, 8, 8, 64, 1},      /* whole panels */
        {1, 130, 14, 14, 24, 1},   /* 98 pixels per half: partial panel */
        {1, 2048, 7, 7, 16, 1},    /* K/2 = 1024: two k slices */
        {1, 16, 30, 30, 1024, 1},  /* several pixel blocks */
        {1, 8, 9, 9, 8, 2},        /* stride 2 */
        {2, 10, 8, 9, 16, 2},      /* stride 2, batch, odd width */
        {1, 32, 14, 14, 16, 2},    /* stride 2, 7x7 */
    };
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int epi = 0; epi < WGKT_EPI_CASES; epi++)
            check(&shapes[i], epi, 0);
    check(&shapes[4], 2, 1);
    check(&shapes[2], 4, 1);
}

WGKT_MAIN("conv_strassen", run)
