/*
 * test_qwinograd.c: the exact integer Winograd F(2x2,3x3) (wgk_q8_conv2d_winograd_f2x3 on
 * wgk_q8_winograd_f2x3_prepare_w's filters) against the direct int32 sums written out
 * here (wrapping like int32), bit for bit: uint8 and int8 x and w; x's zero point absent
 * or at either end of its range, w's absent, scalar or per output channel; the
 * extremes (every x - xz = +-255 and every w - wz = +-255, where 4y leaves int32 for
 * more than 917 channels) with 1000 and 1793 channels (two and three blocks of the
 * reduction); odd channel counts and sizes, 1 to 13 output channels (groups of 4 and
 * their tails), pads 0 to 2 and uneven ones, dilations 1 to 8 and unequal ones, images
 * too small for one tile, rows of 8 tiles inside the image (the vector gather) and at
 * its edges, more tiles than one block, two images, QLinearConv's int32 bias and its
 * requantization into uint8 / int8 (against wgk_requantize of the direct sums), and the
 * thread split's shares (wgk_split_q8_winograd_f2x3, 2 and 3 threads, by tiles and by
 * channels) one after another against the whole call. The stride-2 kernel
 * (wgk_q8_conv2d_winograd_f2x3s2) likewise: dtypes, zero points, the extremes with 1000
 * channels, pads, odd sizes, several blocks, two images, requantization, the split. Both
 * with ConvInteger's float tail (qdeq_ref.h, every variant) too.
 */
#include "wgk_qgemm.h"
#include "wgk_quant.h"
#include "wgk_qwinograd.h"
#include "wgk_split.h"
#include "wgkt.h"

typedef struct qcase {
    int N, C, M, H, W, DH, DW, PT, PL, PB, PR;
    int xdt, wdt;
    int xz_mode;  /* 0: none, 1: random, 2: low end, 3: high end */
    int wz_mode;  /* 0: none, 1: scalar, 2: per output channel */
    int extreme;  /* 0: random values; 1: x - xz = 255 and w - wz = -255; 2: both +255 */
    int bias;
    int S; /* stride: 1, or 2 (wgk_q8_conv2d_winograd_f2x3s2; DH = DW = 1) */
} qcase;

#define XMAX (1 << 20)
#define WMAX (1 << 18)
#define YMAX (1 << 18)
#define DQ_MAX YMAX
#include "qdeq_ref.h"

static uint8_t X[XMAX], WT[WMAX], XZ[1], WZ[64], YQ[YMAX], YQ2[YMAX], YQREF[YMAX];
static int32_t U[1 << 18], BIAS[64], Y[YMAX], Y2[YMAX], YREF[YMAX];
static uint8_t SCRATCH[4 << 20];
static float SX[1] = {0.0125f}, SW[64], SY[1] = {0.75f};
static uint8_t ZY[1];
static uint32_t seed = 4242;

static uint32_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    return seed;
}

static int out_size(int n, int d, int pb, int pe, int s) { return (n + pb + pe - 2 * d - 1) / s + 1; }

static int stride_of(const qcase *c) { return c->S; }

/* The direct sums, wrapping like int32. */
static void reference(const qcase *c, int OH, int OW)
{
    const int32_t xz = c->xz_mode ? wgk_qgemm_load8(XZ, c->xdt, 0) : 0;
    for (int n = 0; n < c->N; n++)
        for (int m = 0; m < c->M; m++) {
            const int32_t wz = c->wz_mode ? wgk_qgemm_load8(WZ, c->wdt, c->wz_mode == 2 ? (size_t)m : 0) : 0;
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    uint32_t s = c->bias ? (uint32_t)BIAS[m] : 0u;
                    for (int ci = 0; ci < c->C; ci++)
                        for (int kh = 0; kh < 3; kh++) {
                            const int ih = oh * stride_of(c) - c->PT + kh * c->DH;
                            if (ih < 0 || ih >= c->H)
                                continue;
                            for (int kw = 0; kw < 3; kw++) {
                                const int iw = ow * stride_of(c) - c->PL + kw * c->DW;
                                if (iw < 0 || iw >= c->W)
                                    continue;
                                const size_t xi = (((size_t)n * c->C + ci) * c->H + ih) * c->W + iw;
                                const size_t wi = (((size_t)m * c->C + ci) * 3 + kh) * 3 + kw;
                                const int32_t xv = wgk_qgemm_load8(X, c->xdt, xi) - xz;
                                const int32_t wv = wgk_qgemm_load8(WT, c->wdt, wi) - wz;
                                s += (uint32_t)(xv * wv);
                            }
                        }
                    YREF[(((size_t)n * c->M + m) * OH + oh) * OW + ow] = (int32_t)s;
                }
        }
}

static void fill(const qcase *c)
{
    const size_t nx = (size_t)c->N * c->C * c->H * c->W, nw = (size_t)c->M * c->C * 9;
    const int xu = c->xdt == 2, wu = c->wdt == 2;
    /* zero points: the low end, the high end, or random */
    XZ[0] = c->xz_mode == 2 ? (xu ? 0 : 0x80) : c->xz_mode == 3 ? (xu ? 255 : 0x7f) : (uint8_t)rnd();
    for (int m = 0; m < 64; m++) {
        WZ[m] = (uint8_t)rnd();
        BIAS[m] = (int32_t)(rnd() % 2000001) - 1000000;
        SW[m] = 0.001f + (float)(rnd() % 1000) * 1e-5f;
    }
    ZY[0] = (uint8_t)rnd();
    if (c->extreme) {
        /* x - xz = +255: 255 - 0 (uint8) or 127 - (-128) (int8) */
        XZ[0] = xu ? 0 : 0x80;
        for (size_t i = 0; i < nx; i++)
            X[i] = xu ? 255 : 0x7f;
        /* w - wz = -255: -128 - 127 (int8) or 0 - 255 (uint8); +255: 255 - 0 or 127 - -128 */
        const int neg = c->extreme == 1;
        for (int m = 0; m < 64; m++)
            WZ[m] = neg ? (wu ? 255 : 0x7f) : (wu ? 0 : 0x80);
        for (size_t i = 0; i < nw; i++)
            WT[i] = neg ? (wu ? 0 : 0x80) : (wu ? 255 : 0x7f);
        return;
    }
    for (size_t i = 0; i < nx; i++)
        X[i] = (uint8_t)rnd();
    for (size_t i = 0; i < nw; i++)
        WT[i] = (uint8_t)rnd();
}

static wgk_q8_winograd_args args_of(const qcase *c, int OH, int OW, int32_t *y, uint8_t *yq)
{
    return (wgk_q8_winograd_args){.N = c->N, .C = c->C, .H = c->H, .W = c->W, .M = c->M, .OH = OH, .OW = OW,
                                  .DH = c->DH, .DW = c->DW, .PT = c->PT, .PL = c->PL, .x = X, .xdt = c->xdt,
                                  .xz = c->xz_mode ? XZ : 0, .u = U, .bias = c->bias ? BIAS : 0, .y = y,
                                  .yq = yq, .ydt = yq ? c->wdt : 0, .zy = ZY, .sx = SX, .sw = SW, .sy = SY,
                                  .sw_per_m = c->wz_mode == 2, .scratch = SCRATCH};
}

static void log_case(const qcase *c)
{
    const int v[] = {c->N, c->C, c->M, c->H, c->W, c->DH, c->DW, c->PT, c->PL, c->PB, c->PR,
                     c->xdt, c->wdt, c->xz_mode, c->wz_mode, c->extreme, c->bias, stride_of(c)};
    wgkt_log("  N C M H W DH DW PT PL PB PR xdt wdt xz wz extreme bias S: ");
    for (unsigned i = 0; i < sizeof v / sizeof *v; i++) {
        wgkt_log_int(v[i]);
        wgkt_log(" ");
    }
    wgkt_log("\n");
}

static int same_i32(const int32_t *a, const int32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static int same_u8(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* The kernel of the case's stride. */
static void conv(const qcase *c, const wgk_q8_winograd_args *a)
{
    if (stride_of(c) == 2)
        wgk_q8_conv2d_winograd_f2x3s2(a);
    else
        wgk_q8_conv2d_winograd_f2x3(a);
}

/* The split's shares for n threads, one after another, into y / yq. */
static void run_parts(const qcase *c, const wgk_q8_winograd_args *whole, int n)
{
    for (int t = 0; t < n; t++) {
        wgk_q8_winograd_args a = *whole;
        if (stride_of(c) == 2 ? wgk_split_q8_winograd_f2x3s2(&a, (wgk_part){t, n})
                              : wgk_split_q8_winograd_f2x3(&a, (wgk_part){t, n}))
            conv(c, &a);
    }
}

static void one(qcase c)
{
    const int S = stride_of(&c);
    const int OH = out_size(c.H, c.DH, c.PT, c.PB, S), OW = out_size(c.W, c.DW, c.PL, c.PR, S);
    const size_t ny = (size_t)c.N * c.M * OH * OW;
    WGKT_CHECK(OH > 0 && OW > 0 && ny <= YMAX && (size_t)c.N * c.C * c.H * c.W <= XMAX &&
                   (size_t)c.M * c.C * 9 <= WMAX &&
                   wgk_q8_winograd_f2x3s2_weights_size((size_t)c.M, (size_t)c.C) <= sizeof U / 4 &&
                   (S == 2 ? wgk_q8_winograd_f2x3s2_scratch_size(c.C, OH, OW)
                           : wgk_q8_winograd_f2x3_scratch_size(c.C, OH, OW, c.DH, c.DW)) <= sizeof SCRATCH,
               "the case fits the test's buffers");
    fill(&c);
    if (S == 2)
        wgk_q8_winograd_f2x3s2_prepare_w(WT, c.wdt, c.wz_mode ? WZ : 0, c.wz_mode == 2, c.M, c.C, U);
    else
        wgk_q8_winograd_f2x3_prepare_w(WT, c.wdt, c.wz_mode ? WZ : 0, c.wz_mode == 2, c.M, c.C, U);
    reference(&c, OH, OW);
    for (size_t i = 0; i < ny; i++)
        Y[i] = Y2[i] = 0x5a5a5a5a;
    wgk_q8_winograd_args a = args_of(&c, OH, OW, Y, 0);
    conv(&c, &a);
    int ok = same_i32(Y, YREF, ny);
    WGKT_CHECK(ok, "q8 winograd equals the direct int32 sums");
    /* QLinearConv: requantized in the kernel, against wgk_requantize of the sums */
    wgk_requantize(YREF, YQREF, c.wdt, ny, SX, SW, (wgk_qaxis){c.wz_mode == 2, c.M, OH * OW}, SY, ZY);
    wgk_q8_winograd_args q = args_of(&c, OH, OW, 0, YQ);
    conv(&c, &q);
    const int okq = same_u8(YQ, YQREF, ny);
    WGKT_CHECK(okq, "q8 winograd requantized equals wgk_requantize of the direct sums");
    int okp = 1;
    for (int n = 2; n <= 3; n++) {
        for (size_t i = 0; i < ny; i++)
            Y2[i] = 0x5a5a5a5a, YQ2[i] = 0xa5;
        wgk_q8_winograd_args p = args_of(&c, OH, OW, Y2, 0), pq = args_of(&c, OH, OW, 0, YQ2);
        run_parts(&c, &p, n);
        run_parts(&c, &pq, n);
        okp &= same_i32(Y2, Y, ny) && same_u8(YQ2, YQ, ny);
    }
    WGKT_CHECK(okp, "the thread split's shares equal the whole call, bit for bit");
    int okd = 1;
    for (int v = 0; v < DQ_VARIANTS; v++) { /* ConvInteger's float tail, whole and on 3 threads */
        float range[2], ref_range[2], r3[6];
        wgk_q8_winograd_args d = args_of(&c, OH, OW, 0, 0);
        d.deq = dq_setup(v, c.M, ny, DQ_Y, range);
        conv(&c, &d);
        dq_reference(&d.deq, YREF, c.N, c.M, (size_t)OH * OW, DQ_REF, ref_range);
        okd &= dq_same(DQ_Y, DQ_REF, ny) && dq_same(range, ref_range, 2);
        for (int t = 0; t < 3; t++) {
            wgk_q8_winograd_args p = args_of(&c, OH, OW, 0, 0);
            p.deq = dq_setup(v, c.M, ny, DQ_Y2, r3 + 2 * t);
            const wgk_part part = {t, 3};
            if (S == 2 ? wgk_split_q8_winograd_f2x3s2(&p, part) : wgk_split_q8_winograd_f2x3(&p, part))
                conv(&c, &p);
        }
        for (int t = 1; t < 3; t++) {
            r3[0] = r3[2 * t] < r3[0] ? r3[2 * t] : r3[0];
            r3[1] = r3[2 * t + 1] > r3[1] ? r3[2 * t + 1] : r3[1];
        }
        okd &= dq_same(DQ_Y2, DQ_REF, ny) && dq_same(r3, ref_range, 2);
    }
    WGKT_CHECK(okd, "q8 winograd's float tail and range equal the nodes' (whole and on 3 threads)");
    if (!ok || !okq || !okp || !okd)
        log_case(&c);
}

static void run(void)
{
    /* every dtype pair, zero points absent / random / at the ends, odd everything */
    for (int dt = 0; dt < 4; dt++) {
        const int xdt = 2 + (dt & 1), wdt = 2 + (dt >> 1);
        for (int z = 0; z < 4; z++) {
            one((qcase){1, 3, 5, 7, 9, 1, 1, 1, 1, 1, 1, xdt, wdt, z, z % 3, 0, z & 1, 1});
            one((qcase){2, 17, 13, 11, 40, 1, 1, 1, 1, 1, 1, xdt, wdt, z, (z + 1) % 3, 0, 1, 1});
        }
        /* the extremes: 4y leaves int32 past 917 channels; one and more blocks */
        for (int e = 1; e <= 2; e++) {
            one((qcase){1, 16, 4, 6, 20, 1, 1, 1, 1, 1, 1, xdt, wdt, 0, 1, e, 0, 1});
            one((qcase){1, 1000, 5, 4, 5, 1, 1, 1, 1, 1, 1, xdt, wdt, 2, 2, e, 1, 1});
        }
    }
    one((qcase){1, 1793, 6, 3, 4, 1, 1, 1, 1, 1, 1, 2, 3, 1, 2, 1, 1, 1});
    one((qcase){1, 1793, 6, 5, 3, 1, 1, 1, 0, 1, 2, 3, 2, 3, 1, 2, 0, 1});
    one((qcase){1, 901, 9, 6, 6, 2, 1, 2, 1, 2, 1, 2, 3, 1, 1, 0, 1, 1});
    /* output channels 1 .. 13: groups of 4 and their tails */
    for (int m = 1; m <= 13; m += 2)
        one((qcase){1, 5, m, 8, 19, 1, 1, 1, 1, 1, 1, 2, 3, 1, 2, 0, 1, 1});
    /* pads 0 .. 2, uneven ones, sizes below one tile */
    one((qcase){1, 4, 4, 3, 3, 1, 1, 0, 0, 0, 0, 2, 3, 1, 1, 0, 0, 1});
    one((qcase){1, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 1, 1, 0, 1, 1});
    one((qcase){1, 6, 7, 2, 3, 1, 1, 1, 1, 1, 1, 3, 3, 1, 2, 0, 1, 1});
    one((qcase){1, 6, 7, 9, 26, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 0, 1, 1});
    one((qcase){1, 6, 7, 9, 26, 1, 1, 2, 0, 1, 2, 2, 3, 1, 2, 0, 0, 1});
    one((qcase){2, 5, 6, 12, 37, 1, 1, 0, 1, 2, 0, 3, 2, 1, 0, 0, 1, 1});
    /* dilations: 2, 4, 8 as U^2-Net's blocks, 3, unequal ones, padding = dilation */
    static const int dil[][2] = {{2, 2}, {4, 4}, {8, 8}, {3, 3}, {1, 2}, {2, 1}, {4, 1}, {3, 5}};
    for (unsigned i = 0; i < sizeof dil / sizeof *dil; i++) {
        const int dh = dil[i][0], dw = dil[i][1];
        one((qcase){1, 7, 6, 21, 34, dh, dw, dh, dw, dh, dw, 2, 3, 1, 2, 0, 1, 1});
        one((qcase){2, 4, 5, 16, 16, dh, dw, dh, dw, dh, dw, 3, 3, 3, 1, 0, 0, 1});
        one((qcase){1, 3, 4, 2 * dh + 3, 2 * dw + 5, dh, dw, 0, 1, 1, 0, 2, 2, 2, 2, 0, 1, 1});
    }
    /* more tiles than one block (300 channels: blocks of 104 tiles), 8-tile rows inside
     * and at the edges; the split by tiles (T >= 96) */
    one((qcase){1, 300, 6, 24, 26, 1, 1, 1, 1, 1, 1, 2, 3, 1, 2, 0, 1, 1});
    one((qcase){1, 32, 9, 30, 70, 1, 1, 1, 1, 1, 1, 3, 3, 2, 1, 0, 1, 1});
    one((qcase){1, 8, 12, 40, 45, 2, 2, 2, 2, 2, 2, 2, 3, 1, 2, 0, 1, 1});
    /* stride 2 (25 positions, no division): dtypes, zero points, extremes past 917
     * channels, pads 0 .. 2, odd and even sizes, more tiles than one block, two images */
    for (int dt = 0; dt < 4; dt++) {
        const int xdt = 2 + (dt & 1), wdt = 2 + (dt >> 1);
        for (int z = 0; z < 4; z++)
            one((qcase){1 + (z & 1), 6, 7, 13, 38, 1, 1, 1, 1, 1, 1, xdt, wdt, z, z % 3, 0, z & 1, 2});
        for (int e = 1; e <= 2; e++)
            one((qcase){1, 1000, 5, 6, 7, 1, 1, 1, 1, 1, 1, xdt, wdt, 2, 2, e, 1, 2});
    }
    one((qcase){1, 5, 9, 12, 12, 1, 1, 0, 0, 0, 0, 2, 3, 1, 1, 0, 1, 2});
    one((qcase){1, 5, 9, 11, 11, 1, 1, 0, 0, 0, 0, 2, 3, 1, 2, 0, 0, 2});
    one((qcase){1, 4, 6, 3, 3, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 0, 1, 2});
    one((qcase){1, 7, 6, 16, 35, 1, 1, 2, 1, 0, 2, 2, 2, 1, 2, 0, 1, 2});
    one((qcase){2, 3, 4, 9, 70, 1, 1, 1, 1, 1, 1, 3, 2, 1, 1, 0, 1, 2});
    one((qcase){1, 300, 6, 40, 50, 1, 1, 1, 1, 1, 1, 2, 3, 1, 2, 0, 1, 2});
}

WGKT_MAIN("qwinograd", run)
