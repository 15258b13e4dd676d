/*
 * test_qdwconv.c: the depthwise int8 convolution (wgk_q8_dwconv2d on
 * wgk_q8_dwconv_pack_w's weights) against the direct int32 sums written out here
 * (wrapping like int32), bit for bit: uint8 and int8 x and w, zero points absent, random
 * or at the ends of their range (scalar for x, scalar or per output channel for w), the
 * extremes (every x - xz = 255, every w - wz = -255 or +255), filters 3x3, 5x5, 7x7, 1x3,
 * 3x1, 2x2 and 4x5, strides 1 and 2 across and 1 to 3 down, row dilations 1 to 3, pads 0
 * to 3 and uneven ones, one and two output channels per group, rows of outputs that are
 * and are not multiples of the kernel's 8, two images, QLinearConv's bias and
 * requantization into uint8 / int8 (against wgk_requantize of the direct sums),
 * ConvInteger's float tail (qdeq_ref.h, every variant), and the thread split's shares
 * (wgk_split_q8_dwconv2d, 2 and 3 threads, each with its own range) against the whole call.
 */
#include "wgk_qdwconv.h"
#include "wgk_qgemm.h"
#include "wgk_quant.h"
#include "wgk_split.h"
#include "wgkt.h"

#include "qdeq_ref.h"

typedef struct dcase {
    int N, C, per, H, W, KH, KW, SH, SW, DH, PT, PL, PB, PR;
    int xdt, wdt, xz_mode, wz_mode, extreme, bias;
} dcase;

#define YMAX 65536
static uint8_t X[65536], WT[8192], XZ[1], WZ[64], ZY[1], YQ[YMAX], YQ2[YMAX], YQREF[YMAX];
static int32_t PW[8192], BIAS[64], Y[YMAX], Y2[YMAX], YREF[YMAX];
static uint8_t SCRATCH[1 << 20];
static float SX[1] = {0.02f}, SW[64], SY[1] = {0.5f};
static uint32_t seed = 777;

static uint32_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    return seed;
}

static wgk_q8_dwconv_args args_of(const dcase *c, int OH, int OW, int32_t *y, uint8_t *yq)
{
    return (wgk_q8_dwconv_args){.N = c->N, .C = c->C, .H = c->H, .W = c->W, .M = c->C * c->per, .OH = OH, .OW = OW,
                                .KH = c->KH, .KW = c->KW, .SH = c->SH, .SW = c->SW, .DH = c->DH, .PT = c->PT,
                                .PL = c->PL, .x = X, .xdt = c->xdt, .xz = c->xz_mode ? XZ : 0, .w = PW,
                                .bias = c->bias ? BIAS : 0, .y = y, .yq = yq, .ydt = yq ? c->xdt : 0, .zy = ZY,
                                .sx = SX, .sw = SW, .sy = SY, .sw_per_m = c->wz_mode == 2, .scratch = SCRATCH};
}

static void one(dcase c)
{
    const int M = c.C * c.per;
    const int OH = (c.H + c.PT + c.PB - c.DH * (c.KH - 1) - 1) / c.SH + 1;
    const int OW = (c.W + c.PL + c.PR - (c.KW - 1) - 1) / c.SW + 1;
    const size_t ny = (size_t)c.N * M * OH * OW, nx = (size_t)c.N * c.C * c.H * c.W, nw = (size_t)M * c.KH * c.KW;
    WGKT_CHECK(OH > 0 && OW > 0 && ny <= YMAX && nx <= sizeof X && nw <= sizeof WT && M <= 64 &&
                   wgk_q8_dwconv_scratch_size(OH, OW, c.KH, c.KW, c.SH, c.SW, c.DH) <= sizeof SCRATCH,
               "the case fits the test's buffers");
    const int xu = c.xdt == 2, wu = c.wdt == 2;
    XZ[0] = c.xz_mode == 2 ? (xu ? 0 : 0x80) : c.xz_mode == 3 ? (xu ? 255 : 0x7f) : (uint8_t)rnd();
    for (int m = 0; m < 64; m++) {
        WZ[m] = (uint8_t)rnd();
        BIAS[m] = (int32_t)(rnd() % 200001) - 100000;
        SW[m] = 0.002f + (float)(rnd() % 1000) * 1e-5f;
    }
    ZY[0] = (uint8_t)rnd();
    for (size_t i = 0; i < nx; i++)
        X[i] = (uint8_t)rnd();
    for (size_t i = 0; i < nw; i++)
        WT[i] = (uint8_t)rnd();
    if (c.extreme) { /* x - xz = 255; w - wz = -255 (1) or +255 (2) */
        XZ[0] = xu ? 0 : 0x80;
        for (size_t i = 0; i < nx; i++)
            X[i] = xu ? 255 : 0x7f;
        for (int m = 0; m < 64; m++)
            WZ[m] = c.extreme == 1 ? (wu ? 255 : 0x7f) : (wu ? 0 : 0x80);
        for (size_t i = 0; i < nw; i++)
            WT[i] = c.extreme == 1 ? (wu ? 0 : 0x80) : (wu ? 255 : 0x7f);
    }
    const int32_t xz = c.xz_mode ? wgk_qgemm_load8(XZ, c.xdt, 0) : 0;
    for (int n = 0; n < c.N; n++)
        for (int m = 0; m < M; m++) {
            const int32_t wz = c.wz_mode ? wgk_qgemm_load8(WZ, c.wdt, c.wz_mode == 2 ? (size_t)m : 0) : 0;
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    uint32_t s = c.bias ? (uint32_t)BIAS[m] : 0u;
                    for (int kh = 0; kh < c.KH; kh++)
                        for (int kw = 0; kw < c.KW; kw++) {
                            const int ih = oh * c.SH - c.PT + kh * c.DH, iw = ow * c.SW - c.PL + kw;
                            if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W)
                                continue;
                            const size_t xi = (((size_t)n * c.C + (size_t)(m / c.per)) * c.H + ih) * c.W + iw;
                            const int32_t xv = wgk_qgemm_load8(X, c.xdt, xi) - xz;
                            const int32_t wv = wgk_qgemm_load8(WT, c.wdt, ((size_t)m * c.KH + kh) * c.KW + kw) - wz;
                            s += (uint32_t)(xv * wv);
                        }
                    YREF[(((size_t)n * M + m) * OH + oh) * OW + ow] = (int32_t)s;
                }
        }
    wgk_q8_dwconv_pack_w(WT, c.wdt, c.wz_mode ? WZ : 0, c.wz_mode == 2, (size_t)M, c.KH, c.KW, PW);
    for (size_t i = 0; i < ny; i++)
        Y[i] = 0x5a5a5a5a;
    wgk_q8_dwconv_args a = args_of(&c, OH, OW, Y, 0);
    wgk_q8_dwconv2d(&a);
    int ok = 1;
    for (size_t i = 0; i < ny; i++)
        ok &= Y[i] == YREF[i];
    WGKT_CHECK(ok, "q8 depthwise equals the direct int32 sums");
    wgk_requantize(YREF, YQREF, c.xdt, ny, SX, SW, (wgk_qaxis){c.wz_mode == 2, M, OH * OW}, SY, ZY);
    wgk_q8_dwconv_args q = args_of(&c, OH, OW, 0, YQ);
    wgk_q8_dwconv2d(&q);
    int okq = 1;
    for (size_t i = 0; i < ny; i++)
        okq &= YQ[i] == YQREF[i];
    WGKT_CHECK(okq, "q8 depthwise requantized equals wgk_requantize of the direct sums");
    int okp = 1;
    for (int t = 2; t <= 3; t++) {
        for (size_t i = 0; i < ny; i++)
            Y2[i] = 0x5a5a5a5a, YQ2[i] = 0xa5;
        for (int k = 0; k < t; k++) {
            wgk_q8_dwconv_args p = args_of(&c, OH, OW, Y2, 0), pq = args_of(&c, OH, OW, 0, YQ2);
            if (wgk_split_q8_dwconv2d(&p, (wgk_part){k, t}))
                wgk_q8_dwconv2d(&p);
            if (wgk_split_q8_dwconv2d(&pq, (wgk_part){k, t}))
                wgk_q8_dwconv2d(&pq);
        }
        for (size_t i = 0; i < ny; i++)
            okp &= Y2[i] == Y[i] && YQ2[i] == YQ[i];
    }
    WGKT_CHECK(okp, "the thread split's shares equal the whole call, bit for bit");
    int okd = 1;
    for (int v = 0; v < DQ_VARIANTS; v++) {
        float range[2], ref_range[2], r3[6];
        wgk_q8_dwconv_args d = args_of(&c, OH, OW, 0, 0);
        d.deq = dq_setup(v, M, ny, DQ_Y, range);
        wgk_q8_dwconv2d(&d);
        dq_reference(&d.deq, YREF, c.N, M, (size_t)OH * OW, DQ_REF, ref_range);
        okd &= dq_same(DQ_Y, DQ_REF, ny) && dq_same(range, ref_range, 2);
        for (int k = 0; k < 3; k++) { /* three threads, a range each, merged as the module does */
            wgk_q8_dwconv_args p = args_of(&c, OH, OW, 0, 0);
            p.deq = dq_setup(v, M, ny, DQ_Y2, r3 + 2 * k);
            if (wgk_split_q8_dwconv2d(&p, (wgk_part){k, 3}))
                wgk_q8_dwconv2d(&p);
        }
        for (int k = 1; k < 3; k++) {
            r3[0] = r3[2 * k] < r3[0] ? r3[2 * k] : r3[0];
            r3[1] = r3[2 * k + 1] > r3[1] ? r3[2 * k + 1] : r3[1];
        }
        okd &= dq_same(DQ_Y2, DQ_REF, ny) && dq_same(r3, ref_range, 2);
    }
    WGKT_CHECK(okd, "q8 depthwise's float tail and range equal the nodes' (whole and on 3 threads)");
    if (!ok || !okq || !okp || !okd) {
        const int v[] = {c.N, c.C, c.per, c.H, c.W, c.KH, c.KW, c.SH, c.SW, c.DH, c.PT, c.PL, c.PB, c.PR,
                         c.xdt, c.wdt, c.xz_mode, c.wz_mode, c.extreme, c.bias};
        wgkt_log("  N C per H W KH KW SH SW DH PT PL PB PR xdt wdt xz wz extreme bias: ");
        for (unsigned i = 0; i < sizeof v / sizeof *v; i++) {
            wgkt_log_int(v[i]);
            wgkt_log(" ");
        }
        wgkt_log("\n");
    }
}

static void run(void)
{
    for (int dt = 0; dt < 4; dt++) {
        const int xdt = 2 + (dt & 1), wdt = 2 + (dt >> 1);
        for (int z = 0; z < 4; z++) {
            one((dcase){1, 5, 1, 9, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, xdt, wdt, z, z % 3, 0, z & 1});
            one((dcase){2, 3, 2, 12, 21, 3, 3, 2, 2, 1, 1, 1, 1, 1, xdt, wdt, z, (z + 1) % 3, 0, 1});
        }
        for (int e = 1; e <= 2; e++) {
            one((dcase){1, 4, 1, 10, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, xdt, wdt, 2, 2, e, 1});
            one((dcase){1, 3, 1, 11, 23, 7, 7, 2, 2, 1, 3, 3, 3, 3, xdt, wdt, 0, 1, e, 0});
        }
    }
    static const int shapes[][14] = {
        /* C per H W KH KW SH SW DH PT PL PB PR, N */
        {6, 1, 17, 33, 5, 5, 1, 1, 1, 2, 2, 2, 2, 1}, {4, 1, 14, 16, 5, 5, 2, 2, 1, 2, 2, 1, 1, 1},
        {3, 2, 8, 7, 1, 3, 1, 1, 1, 0, 1, 0, 1, 2},   {3, 1, 8, 30, 3, 1, 1, 1, 1, 1, 0, 1, 0, 1},
        {5, 1, 9, 9, 2, 2, 1, 1, 1, 0, 0, 1, 1, 1},   {5, 1, 13, 17, 4, 5, 1, 2, 1, 1, 2, 2, 1, 1},
        {4, 1, 15, 15, 3, 3, 1, 1, 2, 2, 1, 2, 1, 1}, {4, 1, 20, 11, 3, 3, 3, 1, 3, 3, 1, 3, 1, 1},
        {2, 3, 16, 40, 3, 3, 2, 1, 1, 0, 0, 0, 0, 1}, {7, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {5, 1, 2, 9, 3, 3, 1, 2, 1, 1, 1, 1, 1, 2},   {8, 1, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    };
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        const int *s = shapes[i];
        one((dcase){s[13], s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12], 2, 3, 1, 2,
                    0, 1});
        one((dcase){s[13], s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12], 3, 2, 3, 1,
                    0, 0});
    }
}

WGKT_MAIN("qdwconv", run)
