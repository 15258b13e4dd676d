/*
 * test_qgemm.c: the int8 GEMM (wgk_q8_gemm on wgk_qgemm_pack_b) against a naive int32
 * loop that wraps as int32 does, exactly: uint8 and int8 operands; zero points absent,
 * scalar, per row of A (with a period shorter than M, as for stacked batches) and per
 * column of B; the extremes (255 - 0) * (-128 - 127) and (255 - 0) * (255 - 0), uint8 B
 * with zero points 0 and 255; M 1..9 (the GEMV's 1 to 3 rows, row blocks of 4 and their
 * tails), N 1..17 (panels of 8 and their tails), K 1..35 odd and even (pairs, the 16-byte
 * widening and its tail), K so long that 20 rows take two blocks of the splat area (LONGK)
 * or that the kernel takes load-splats instead (HUGEK, where the extremes' sums wrap), lda
 * and ldc wider than the matrix; the shares of 2, 3 and 5 threads (wgk_split_q8_gemm) run
 * one after the other give the whole call's bits. And wgk_f32_qu8_dynamic_quantize against
 * the ONNX formulas written out here: random, all-zero, all-positive, all-negative and
 * NaN-holding inputs, lengths 1..40 (SIMD body and tail). And wgk_q8_conv against the
 * int32 direct convolution: uint8/int8 x and w, padding (taps take x's zero point),
 * strides, dilation, 1x1, per-channel and scalar weight zero points, int32 bias, more
 * pixels than one im2col block; for the 1x1 cases also the pointwise kernel
 * (wgk_q8_conv1x1). Both with ConvInteger's float tail (qdeq_ref.h, every variant), and
 * the DynamicQuantizeLinear that reads the range the kernel kept.
 */
#include "wgk_qgemm.h"
#include "wgk_quant.h"
#include "wgk_split.h"
#include "wgkt.h"

#include "qdeq_ref.h"

#define MAXM 9
#define MAXN 17
#define MAXK 35
/* The long cases: K = LONGK fits 4 row groups in the splat area, so 20 rows take two
 * blocks; K = HUGEK fits no group (the load-splat path), and (255 * 255) K is past 2^31. */
#define LONGK (WGK_QGEMM_SPLAT_MAX / 64)
#define HUGEK 33027
#define LONGM 20
static uint8_t A[LONGM * (HUGEK + 3)], B[HUGEK * MAXN], ZA[LONGM], ZB[MAXN];
static int8_t PB[(MAXN + 7) / 8 * (32 + 8 * (HUGEK + 1))];
static int16_t WORK[LONGM * (HUGEK + 1) + 2 * LONGM + WGK_QGEMM_SPLAT_MAX + 8 * (HUGEK + 1) + 8];
static int32_t C[LONGM * (MAXN + 2)], CT[LONGM * (MAXN + 2)];
static uint32_t seed = 99;

static uint32_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    return seed;
}

static int32_t ld(const uint8_t *p, int dt, size_t i) { return wgk_qgemm_load8(p, dt, i); }

/* The operands: random (extreme 0); A and B - zb at their extremes of opposite signs
 * (extreme 1: 255 - 0 or -128 - 127 against 0 - 255 or -128 - 127) or of the same sign
 * (extreme 2: against 255 - 0 or 127 - (-128)). */
static void fill(int M, int N, int K, int lda, int adt, int bdt, int extreme)
{
    const uint8_t a = adt == 2 ? 255 : 0x80, za = adt == 2 ? 0 : 0x7f;
    const uint8_t b = extreme == 1 ? (bdt == 2 ? 0 : 0x80) : (bdt == 2 ? 255 : 0x7f);
    const uint8_t zb = extreme == 1 ? (bdt == 2 ? 255 : 0x7f) : (bdt == 2 ? 0 : 0x80);
    for (int i = 0; i < M * lda; i++)
        A[i] = extreme ? a : (uint8_t)rnd();
    for (int i = 0; i < K * N; i++)
        B[i] = extreme ? b : (uint8_t)rnd();
    for (int i = 0; i < LONGM; i++)
        ZA[i] = extreme ? za : (uint8_t)rnd();
    for (int i = 0; i < MAXN; i++)
        ZB[i] = extreme ? zb : (uint8_t)rnd();
}

/* The shares of n threads (wgk_split_q8_gemm), one after the other, into CT: the same
 * bits as the whole call in C. */
static int shares_equal(const wgk_q8_gemm_args *whole, int n)
{
    for (int i = 0; i < whole->M * whole->ldc; i++)
        CT[i] = C[i] == 0x5a5a5a5a ? 0x5a5a5a5a : 0x7e7e7e7e;
    for (int t = 0; t < n; t++) {
        wgk_q8_gemm_args share = *whole;
        share.c = CT;
        if (wgk_split_q8_gemm(&share, (wgk_part){t, n}))
            wgk_q8_gemm(&share);
    }
    int ok = 1;
    for (int i = 0; i < whole->M * whole->ldc; i++)
        ok &= CT[i] == C[i];
    return ok;
}

static void one(int M, int N, int K, int adt, int bdt, int zmode, int extreme)
{
    const int lda = K + 3, ldc = N + 2, za_period = zmode == 2 ? (M > 2 ? M - 1 : 1) : 0;
    fill(M, N, K, lda, adt, bdt, extreme);
    const void *za = zmode ? ZA : NULL, *zb = zmode ? ZB : NULL;
    const int zb_per_col = zmode == 2;
    WGKT_CHECK(wgk_qgemm_pack_b_bytes((size_t)K, (size_t)N) <= sizeof PB &&
                   wgk_qgemm_work_size((size_t)M, (size_t)K) <= sizeof WORK / sizeof WORK[0],
               "packed B and work fit");
    wgk_qgemm_pack_b(B, bdt, zb, zb_per_col, (size_t)K, (size_t)N, PB);
    for (int i = 0; i < M * ldc; i++)
        C[i] = 0x5a5a5a5a;
    const wgk_q8_gemm_args args = {M, N, K, A, adt, lda, za, za_period, PB, C, ldc, WORK};
    wgk_q8_gemm(&args);
    int ok = 1;
    for (int m = 0; m < M; m++) {
        const int32_t zam = za ? ld(ZA, adt, za_period ? (size_t)(m % za_period) : 0) : 0;
        for (int n = 0; n < N; n++) {
            const int32_t zbn = zb ? ld(ZB, bdt, zb_per_col ? (size_t)n : 0) : 0;
            uint32_t s = 0;
            for (int k = 0; k < K; k++)
                s += (uint32_t)((ld(A, adt, (size_t)(m * lda + k)) - zam) * (ld(B, bdt, (size_t)(k * N + n)) - zbn));
            ok &= C[m * ldc + n] == (int32_t)s;
        }
        for (int n = N; n < ldc; n++)
            ok &= C[m * ldc + n] == 0x5a5a5a5a; /* nothing written past N */
    }
    WGKT_CHECK(ok, "q8 gemm equals the int32 loop");
    const int shares = shares_equal(&args, 2) && shares_equal(&args, 3) && shares_equal(&args, 5);
    WGKT_CHECK(shares, "the threads' shares give the whole call's bits");
    if (!ok || !shares) {
        wgkt_log("  M N K adt bdt zmode extreme: ");
        int v[7] = {M, N, K, adt, bdt, zmode, extreme};
        for (int i = 0; i < 7; i++) {
            wgkt_log_int(v[i]);
            wgkt_log(" ");
        }
        wgkt_log("\n");
    }
}

/* With the extremes over HUGEK the sums pass 2^31 and wrap: the kernel must wrap alike. */
static int wraps(int adt, int extreme)
{
    const int64_t a = adt == 2 ? 255 : -255, b = extreme == 1 ? -255 : 255;
    const int64_t s = a * b * HUGEK;
    return s > INT32_MAX || s < INT32_MIN;
}

static void gemm_tests(void)
{
    static const int Ms[] = {1, 2, 3, 4, 5, 8, 9}, Ns[] = {1, 7, 8, 9, 16, 17},
                     Ks[] = {1, 2, 3, 15, 16, 17, 32, 35};
    for (unsigned mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
        for (unsigned ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
            for (unsigned ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
                for (int dt = 0; dt < 4; dt++)
                    for (int z = 0; z < 3; z++)
                        one(Ms[mi], Ns[ni], Ks[ki], 2 + (dt & 1), 2 + (dt >> 1), z, 0);
    for (int dt = 0; dt < 4; dt++)
        for (int x = 1; x <= 2; x++)
            for (int z = 1; z <= 2; z++) {
                one(1, 17, 35, 2 + (dt & 1), 2 + (dt >> 1), z, x);
                one(3, 9, 33, 2 + (dt & 1), 2 + (dt >> 1), z, x);
                one(9, 17, 35, 2 + (dt & 1), 2 + (dt >> 1), z, x);
                one(2, 9, HUGEK, 2 + (dt & 1), 2 + (dt >> 1), z, x);
                WGKT_CHECK(wraps(2 + (dt & 1), x), "the extremes over HUGEK wrap");
            }
    for (int z = 0; z < 3; z++) {
        one(LONGM, 17, LONGK, 2, 3, z, 0);
        one(9, 9, HUGEK, 3, 2, z, 0);
        one(1, 9, HUGEK, 2, 3, z, 0);
    }
    WGKT_CHECK(wgk_qgemm_splat_groups(LONGM, LONGK) == 4 && wgk_qgemm_splat_groups(9, HUGEK) == 0 &&
               wgk_qgemm_splat_groups(1, HUGEK) == 0,
               "the long cases take two splat blocks and the load-splat path");
}

/* The ONNX DynamicQuantizeLinear formulas, one element at a time. */
static void ref_dql(const float *x, size_t n, uint8_t *y, float *scale, uint8_t *zp)
{
    float mx = 0, mn = 0;
    for (size_t i = 0; i < n; i++) {
        mx = x[i] > mx ? x[i] : mx;
        mn = x[i] < mn ? x[i] : mn;
    }
    float sc = (mx == mn ? 1.0f : mx - mn) / 255.0f;
    float z = 0.0f - mn / sc;
    z = __builtin_rintf(z < 0 ? 0 : z > 255 ? 255 : z);
    for (size_t i = 0; i < n; i++) {
        float q = __builtin_rintf(x[i] / sc);
        float v = (q == q ? q : 0.0f) + z;
        y[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    *scale = sc;
    *zp = (uint8_t)z;
}

static void dql_tests(void)
{
    static float x[48];
    static uint8_t y[48], want[48];
    for (int kind = 0; kind < 5; kind++)
        for (size_t n = 1; n <= 40; n++) {
            for (size_t i = 0; i < n; i++) {
                float r = wgkt_rand(&seed) * 6.0f;
                x[i] = kind == 0 ? r : kind == 1 ? 0.0f : kind == 2 ? r * r + 0.5f : kind == 3 ? -r * r - 0.5f : r;
            }
            if (kind == 4)
                x[n / 2] = NAN;
            float sc, wsc;
            uint8_t zp, wzp;
            y[n] = 0xa5;
            wgk_f32_qu8_dynamic_quantize(x, n, y, &sc, &zp);
            ref_dql(x, n, want, &wsc, &wzp);
            int ok = sc == wsc && zp == wzp && y[n] == 0xa5;
            for (size_t i = 0; i < n; i++)
                ok &= y[i] == want[i];
            WGKT_CHECK(ok, "dynamic quantize equals the ONNX formulas, bit for bit");
        }
    /* Values at, just above and just below half-integers of the scale (the multiply's
     * exactness check sends their groups to the division), plain and ranged. */
    static float hx[256];
    static uint8_t hy[256], hwant[256];
    hx[0] = -3.0f, hx[1] = 5.0f;
    const float hs = 8.0f / 255.0f;
    for (int i = 2; i < 256; i++) {
        float v = ((float)((i * 7) % 250) - 95.5f) * hs;
        uint32_t b;
        __builtin_memcpy(&b, &v, 4);
        b += i % 3 == 1 ? 1u : i % 3 == 2 ? (uint32_t)-1 : 0u;
        __builtin_memcpy(&v, &b, 4);
        hx[i] = i % 4 == 0 ? v : (float)(i % 200) * 0.0371f - 2.9f;
    }
    for (int ranged = 0; ranged < 2; ranged++) {
        float hsc, wsc, rg[4] = {-3.0f, 1.0f, -1.0f, 5.0f};
        uint8_t hzp, wzp;
        if (ranged)
            wgk_f32_qu8_dynamic_quantize_ranged(hx, 256, rg, 2, hy, &hsc, &hzp);
        else
            wgk_f32_qu8_dynamic_quantize(hx, 256, hy, &hsc, &hzp);
        ref_dql(hx, 256, hwant, &wsc, &wzp);
        int ok = hsc == wsc && hzp == wzp;
        for (int i = 0; i < 256; i++)
            ok &= hy[i] == hwant[i];
        WGKT_CHECK(ok, "dynamic quantize at half-integers of the scale equals the ONNX formulas");
    }
    /* A value exactly half way rounds to even: x = 2.5 scale units. */
    float h[2] = {-255.0f / 255.0f * 0.0f, 255.0f};
    float sc;
    uint8_t zp, q[2];
    wgk_f32_qu8_dynamic_quantize(h, 2, q, &sc, &zp);
    WGKT_CHECK(sc == 1.0f && zp == 0 && q[1] == 255 && q[0] == 0, "range [0, 255]: scale 1, zero point 0");
}

/* wgk_q8_conv against wgk_q_widen + wgk_s32_conv3d_direct (the plain int32 path). */
static uint8_t CX[2 * 4 * 19 * 18], CW[17 * 4 * 3 * 3 + 8], CZW[17];
static int8_t CPW[(17 + 7) / 8 * (32 + 8 * 40)];
static int32_t CB[17], CY[2 * 17 * 19 * 18], CREF[2 * 17 * 19 * 18];
static int32_t WX[2 * 4 * 19 * 18], WW[17 * 4 * 3 * 3];
static uint8_t SCRATCH[256 * 1024], DQ_Q[16384], DQ_QREF[16384];
static int32_t PW1[17 * 4];

static void conv_one(int N, int C, int M, int H, int Wd, int kh, int kw, int st, int dil, int pad,
                     int xdt, int wdt, int with_bias, int wz_per_m)
{
    const int oh = (H + 2 * pad - dil * (kh - 1) - 1) / st + 1, ow = (Wd + 2 * pad - dil * (kw - 1) - 1) / st + 1;
    const int K = C * kh * kw;
    for (int i = 0; i < N * C * H * Wd; i++)
        CX[i] = (uint8_t)rnd();
    for (int i = 0; i < M * K; i++)
        CW[i] = (uint8_t)rnd();
    for (int i = 0; i < M; i++) {
        CZW[i] = (uint8_t)rnd();
        CB[i] = (int32_t)(rnd() % 200001) - 100000;
    }
    uint8_t xz = (uint8_t)rnd();
    wgk_qconv_pack_w(CW, wdt, CZW, wz_per_m, (size_t)M, (size_t)K, CPW);
    WGKT_CHECK(wgk_qconv_scratch_size((size_t)K, (size_t)M) <= sizeof SCRATCH, "scratch fits");
    wgk_q8_conv(&(wgk_q8_conv_args){N, C, M, {1, H, Wd}, {1, oh, ow}, {1, kh, kw}, {1, st, st},
                                     {1, dil, dil}, {0, pad, pad}, CX, xdt, &xz, CPW,
                                     with_bias ? CB : NULL, CY, {0}, SCRATCH});
    wgk_q_widen(CX, xdt, WX, (size_t)(N * C * H * Wd), &xz, (wgk_qaxis){0, 1, 1});
    wgk_q_widen(CW, wdt, WW, (size_t)(M * K), CZW, (wgk_qaxis){wz_per_m, M, K});
    wgk_s32_conv3d_direct(&(wgk_s32_conv_args){N, C, M, 1, {1, H, Wd}, {1, oh, ow}, {1, kh, kw},
                                               {1, st, st}, {1, dil, dil}, {0, pad, pad}, WX, WW,
                                               with_bias ? CB : NULL, CREF});
    int ok = 1;
    for (int i = 0; i < N * M * oh * ow; i++)
        ok &= CY[i] == CREF[i];
    WGKT_CHECK(ok, "q8 conv (im2col + int8 GEMM) equals the int32 direct convolution");
    const size_t ny = (size_t)(N * M * oh * ow);
    int okd = 1;
    for (int v = 0; v < DQ_VARIANTS; v++) { /* ConvInteger's float tail */
        float range[2], ref_range[2];
        wgk_q8_conv_args a = {N, C, M, {1, H, Wd}, {1, oh, ow}, {1, kh, kw}, {1, st, st}, {1, dil, dil},
                              {0, pad, pad}, CX, xdt, &xz, CPW, with_bias ? CB : NULL, NULL, {0}, SCRATCH};
        a.deq = dq_setup(v, M, ny, DQ_Y, range);
        wgk_q8_conv(&a);
        dq_reference(&a.deq, CREF, N, M, (size_t)(oh * ow), DQ_REF, ref_range);
        okd &= dq_same(DQ_Y, DQ_REF, ny) && dq_same(range, ref_range, 2);
        if (kh == 1 && kw == 1 && st == 1 && pad == 0) { /* the pointwise kernel, int32 and float */
            wgk_q8_conv1x1_pack_w(CW, wdt, CZW, wz_per_m, (size_t)M, (size_t)C, PW1);
            WGKT_CHECK(wgk_q8_conv1x1_scratch_size((size_t)C, (size_t)(H * Wd)) <= sizeof SCRATCH, "scratch fits");
            wgk_q8_conv1x1_args p = {.N = N, .C = C, .M = M, .HW = H * Wd, .x = CX, .xdt = xdt, .xz = &xz,
                                     .w = PW1, .bias = with_bias ? CB : NULL, .y = CY, .scratch = SCRATCH};
            wgk_q8_conv1x1(&p);
            for (size_t i = 0; i < ny; i++)
                okd &= CY[i] == CREF[i];
            p.y = NULL;
            p.deq = dq_setup(v, M, ny, DQ_Y2, range);
            wgk_q8_conv1x1(&p);
            okd &= dq_same(DQ_Y2, DQ_REF, ny) && dq_same(range, ref_range, 2);
        }
    }
    WGKT_CHECK(okd, "q8 conv's (and pointwise's) int32 sums, float tail and range equal the direct ones");
    /* DynamicQuantizeLinear with the range the kernel kept reads the same scale and bytes */
    if (ny <= sizeof DQ_Q) {
        float range[2], sc, wsc;
        uint8_t zp, wzp;
        wgk_q8_conv_args a = {N, C, M, {1, H, Wd}, {1, oh, ow}, {1, kh, kw}, {1, st, st}, {1, dil, dil},
                              {0, pad, pad}, CX, xdt, &xz, CPW, with_bias ? CB : NULL, NULL, {0}, SCRATCH};
        a.deq = dq_setup(0, M, ny, DQ_Y, range);
        wgk_q8_conv(&a);
        wgk_f32_qu8_dynamic_quantize_ranged(DQ_Y, ny, range, 1, DQ_Q, &sc, &zp);
        ref_dql(DQ_Y, ny, DQ_QREF, &wsc, &wzp);
        int okq = sc == wsc && zp == wzp;
        for (size_t i = 0; i < ny; i++)
            okq &= DQ_Q[i] == DQ_QREF[i];
        WGKT_CHECK(okq, "dynamic quantize from the kept range equals the ONNX formulas");
    }
}

/* wgk_q8_conv_fewc against wgk_q_widen + wgk_s32_conv3d_direct: int32 sums and every
 * float tail variant; extreme: every x - xz = 255 and w - wz = -255 (1) or +255 (2). */
static uint8_t FX[2 * 3 * 37 * 35], FW[8 * 147];
static int32_t FPW[8 * 74], FY[2 * 8 * 37 * 35], FREF[2 * 8 * 37 * 35], FWX[2 * 3 * 37 * 35], FWW[8 * 147];
static uint8_t FSCRATCH[600 * 1024];

static void fewc_one(int N, int C, int M, int H, int Wd, int k, int st, int dil, int pad, int xdt, int wdt,
                     int extreme)
{
    const int oh = (H + 2 * pad - dil * (k - 1) - 1) / st + 1, ow = (Wd + 2 * pad - dil * (k - 1) - 1) / st + 1;
    const int K = C * k * k;
    const size_t nx = (size_t)(N * C * H * Wd), ny = (size_t)(N * M * oh * ow);
    WGKT_CHECK(nx <= sizeof FX && (size_t)(M * K) <= sizeof FW && ny <= sizeof FY / 4 && K <= WGK_Q8_FEWC_MAX_K &&
                   wgk_q8_conv_fewc_scratch_size((size_t)K) <= sizeof FSCRATCH && ny <= DQ_MAX,
               "the few-channel case fits the test's buffers");
    const int xu = xdt == 2, wu = wdt == 2;
    uint8_t xz = extreme ? (xu ? 0 : 0x80) : (uint8_t)rnd(), wz[8];
    for (int m = 0; m < 8; m++) {
        wz[m] = extreme == 1 ? (wu ? 255 : 0x7f) : extreme == 2 ? (wu ? 0 : 0x80) : (uint8_t)rnd();
        CB[m] = (int32_t)(rnd() % 200001) - 100000;
    }
    for (size_t i = 0; i < nx; i++)
        FX[i] = extreme ? (xu ? 255 : 0x7f) : (uint8_t)rnd();
    for (int i = 0; i < M * K; i++)
        FW[i] = extreme == 1 ? (wu ? 0 : 0x80) : extreme == 2 ? (wu ? 255 : 0x7f) : (uint8_t)rnd();
    wgk_q8_conv1x1_pack_w(FW, wdt, wz, 1, (size_t)M, (size_t)K, FPW);
    wgk_q_widen(FX, xdt, FWX, nx, &xz, (wgk_qaxis){0, 1, 1});
    wgk_q_widen(FW, wdt, FWW, (size_t)(M * K), wz, (wgk_qaxis){1, M, K});
    wgk_s32_conv3d_direct(&(wgk_s32_conv_args){N, C, M, 1, {1, H, Wd}, {1, oh, ow}, {1, k, k}, {1, st, st},
                                               {1, dil, dil}, {0, pad, pad}, FWX, FWW, CB, FREF});
    wgk_q8_conv_fewc_args a = {.N = N, .C = C, .H = H, .W = Wd, .M = M, .OH = oh, .OW = ow, .KH = k, .KW = k,
                               .SH = st, .SW = st, .DH = dil, .DW = dil, .PT = pad, .PL = pad, .x = FX,
                               .xdt = xdt, .xz = &xz, .w = FPW, .bias = CB, .y = FY, .scratch = FSCRATCH};
    wgk_q8_conv_fewc(&a);
    int ok = 1;
    for (size_t i = 0; i < ny; i++)
        ok &= FY[i] == FREF[i];
    WGKT_CHECK(ok, "q8 few-channel conv equals the int32 direct convolution");
    for (int v = 0; v < DQ_VARIANTS; v++) {
        float range[2], ref_range[2];
        a.y = NULL;
        a.deq = dq_setup(v, M, ny, DQ_Y, range);
        wgk_q8_conv_fewc(&a);
        dq_reference(&a.deq, FREF, N, M, (size_t)(oh * ow), DQ_REF, ref_range);
        ok &= dq_same(DQ_Y, DQ_REF, ny) && dq_same(range, ref_range, 2);
    }
    WGKT_CHECK(ok, "q8 few-channel conv's float tail and range equal the nodes'");
}

static void conv_tests(void)
{
    for (int dt = 0; dt < 4; dt++) {
        const int xdt = 2 + (dt & 1), wdt = 2 + (dt >> 1);
        fewc_one(1, 3, 8, 37, 35, 3, 2, 1, 1, xdt, wdt, 0); /* a first layer: several blocks, row tails */
        fewc_one(2, 3, 5, 19, 18, 3, 1, 1, 1, xdt, wdt, 0);
        fewc_one(1, 3, 4, 37, 35, 7, 2, 1, 3, xdt, wdt, dt % 3); /* 7x7 stride 2: K = 147 */
        fewc_one(1, 2, 6, 23, 29, 5, 1, 2, 4, xdt, wdt, 2 - dt % 3);
        fewc_one(1, 3, 8, 11, 40, 3, 3, 1, 0, xdt, wdt, 1); /* stride 3: one pixel at a time */
    }
    for (int dt = 0; dt < 4; dt++) {
        const int xdt = 2 + (dt & 1), wdt = 2 + (dt >> 1);
        conv_one(2, 3, 5, 19, 18, 3, 3, 1, 1, 1, xdt, wdt, 1, 1); /* 342 pixels: 3 blocks */
        conv_one(1, 4, 17, 9, 7, 3, 3, 2, 1, 1, xdt, wdt, 0, 0);
        conv_one(1, 2, 9, 11, 10, 3, 2, 1, 2, 2, xdt, wdt, 1, 0);
        conv_one(2, 4, 8, 5, 6, 1, 1, 1, 1, 0, xdt, wdt, 0, 1);
        conv_one(1, 3, 17, 19, 18, 1, 1, 1, 1, 0, xdt, wdt, 1, 0); /* odd C, M past a 4-block */
    }
}

static void run(void)
{
    gemm_tests();
    dql_tests();
    conv_tests();
}

WGKT_MAIN("qgemm", run)
