/*
 * test_qweight.c: the block-quantized weight product (wgk_f32_qbw_gemm, wgk_qweight.h)
 * against a naive loop in double over the dequantized weights: bits 4 and 8, blocks 16 to
 * 256, zero points absent, packed (4-bit: two per byte, an odd count of blocks) and float;
 * a bias; K below, at and past a block, not a multiple of it; odd N (column groups of 4
 * and panels of 8 and their tails); M = 1 (the GEMV) and more (the prefill paths), with
 * more rows than one row block of each; the panel path (float, M >= WGK_QBW_ROWS_M) from
 * its first M, with K over several of its k blocks and N over several blocks of panels;
 * the extremes (every weight 0 or 2^bits - 1, zero points at both ends). Accuracy level 4 (quant_a) against the same loop over A quantized
 * as MLAS does it, written out here; its block sums are integers, so they are exact.
 * Threads: the shares of 2 and 3 threads (wgk_split_qbw), run one after the other, give
 * the whole call's bits. And wgk_f32_qbw_gather (GatherBlockQuantized's rows) against its
 * formula, exactly, and wgk_f32_bnb4_gemm (MatMulBnb4) against its dequantized loop.
 */
#include "wgk_qweight.h"
#include "wgk_split.h"
#include "wgkt.h"

#define MAXM 70
#define MAXN 13
#define MAXK 300
#define BIGK 4096 /* with N = 9 */
#define WIDEN 300 /* with K = 2048: more columns than a column block (256 KiB) */

static float A[16 * BIGK + MAXM * MAXK], Y[MAXM * (MAXN + 2) + 8 * (WIDEN + 2)], S[WIDEN * 128], ZF[WIDEN * 128],
    BIAS[WIDEN];
static uint8_t Q[WIDEN * 2048], B[WIDEN * 2048], ZP[WIDEN * 128], ZQ[WIDEN * 128];
static unsigned char WORK[4 << 20] __attribute__((aligned(16)));
static uint32_t seed = 7;
static int logged;

static uint32_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    return seed;
}

/* MLAS's quantization of a row (wgk_qweight.h), written out. */
static void ref_quant(const float *a, int K, int blk, int nblk, float *qa, float *sa)
{
    for (int j = 0; j < nblk; j++) {
        float amax = 0.0f;
        for (int k = j * blk; k < K && k < (j + 1) * blk; k++) {
            const float v = a[k] < 0 ? -a[k] : a[k];
            amax = v > amax ? v : amax;
        }
        sa[j] = amax / 127.0f;
        const float inv = amax != 0.0f ? 127.0f / amax : 0.0f;
        for (int k = j * blk; k < (j + 1) * blk; k++)
            qa[k] = k < K ? __builtin_rintf(a[k] * inv) : 0.0f;
    }
}

/* zmode 0: none, 1: packed, 2: float; extreme 0: random, 1: weights 0 and zero points at the
 * top, 2: weights at the top and zero points 0. */
/* The shares of 2 and 3 threads (wgk_split_qbw), one after the other, into a copy of C:
 * the same bits as the whole call's C (ysize floats at a->c). */
static void shares_match(const wgk_qbw_args *a, int ysize)
{
    static float whole[MAXM * (MAXN + 2) + 8 * (WIDEN + 2)];
    for (int i = 0; i < ysize; i++)
        whole[i] = a->c[i];
    for (int n = 2; n <= 3; n++) {
        for (int i = 0; i < ysize; i++)
            a->c[i] = 12345.0f;
        for (int t = 0; t < n; t++) {
            wgk_qbw_args share = *a;
            if (wgk_split_qbw(&share, (wgk_part){t, n}))
                wgk_f32_qbw_gemm(&share);
        }
        WGKT_CHECK(wgkt_same_bits(a->c, whole, ysize), "2 and 3 threads' shares give the whole call's bits");
    }
}

static void one(int M, int N, int K, int bits, int blk, int zmode, int quant_a, int bias, int extreme)
{
    const int nblk = wgk_qbw_nblk(K, blk), Kp = nblk * blk, top = (1 << bits) - 1;
    const int zs = wgk_qbw_zstride(bits, nblk), lda = K + 1, ldc = N + 2;
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++)
            A[m * lda + k] = wgkt_rand(&seed) * (m % 3 == 2 ? 100.0f : 1.0f);
    if (M > 2 && K > 2)
        A[lda + 1] = 0.0f; /* a row whose block may be all zeros below */
    if (M > 1 && K >= blk)
        for (int k = 0; k < blk; k++)
            A[lda + k] = 0.0f;
    for (int n = 0; n < N; n++)
        for (int k = 0; k < Kp; k++)
            Q[n * Kp + k] = extreme == 1 ? 0 : extreme == 2 ? (uint8_t)top : (uint8_t)(rnd() & (uint32_t)top);
    for (int i = 0; i < N * nblk; i++) {
        S[i] = 0.01f + 0.1f * (wgkt_rand(&seed) + 1.0f);
        ZQ[i] = extreme == 1 ? (uint8_t)top : extreme == 2 ? 0 : (uint8_t)(rnd() & (uint32_t)top);
        ZF[i] = (float)ZQ[i] + 0.25f * wgkt_rand(&seed);
    }
    for (int n = 0; n < N; n++)
        BIAS[n] = wgkt_rand(&seed);
    /* the ONNX layouts */
    for (int n = 0; n < N; n++) {
        for (int k = 0; k < Kp; k++) {
            const uint8_t v = Q[n * Kp + k];
            if (bits == 8)
                B[n * Kp + k] = v;
            else if (k & 1)
                B[n * Kp / 2 + k / 2] |= (uint8_t)(v << 4);
            else
                B[n * Kp / 2 + k / 2] = v;
        }
        for (int j = 0; j < zs; j++)
            ZP[n * zs + j] = 0;
        for (int j = 0; j < nblk; j++) {
            const uint8_t v = ZQ[n * nblk + j];
            if (bits == 8)
                ZP[n * zs + j] = v;
            else
                ZP[n * zs + j / 2] |= (uint8_t)(j & 1 ? v << 4 : v);
        }
    }
    for (int i = 0; i < M * ldc; i++)
        Y[i] = 12345.0f;
    const size_t need = wgk_qbw_work_bytes(M, K, blk, quant_a);
    WGKT_CHECK(need <= sizeof WORK, "work fits the test's buffer");
    if (need > sizeof WORK)
        return;
    const wgk_qbw_args args = {.M = M, .N = N, .K = K, .bits = bits, .blk = blk, .a = A, .lda = lda, .b = B,
                               .scales = S, .zp = zmode == 1 ? ZP : 0, .zpf = zmode == 2 ? ZF : 0,
                               .bias = bias ? BIAS : 0, .c = Y, .ldc = ldc, .quant_a = quant_a, .work = WORK};
    wgk_f32_qbw_gemm(&args);
    shares_match(&args, M * ldc);
    static float qa[BIGK], sa[BIGK / 16];
    int ok = 1;
    for (int m = 0; m < M; m++) {
        const float *a = A + m * lda;
        if (quant_a)
            ref_quant(a, K, blk, nblk, qa, sa);
        for (int n = 0; n < N; n++) {
            double want = bias ? BIAS[n] : 0.0, mag = bias ? (BIAS[n] < 0 ? -BIAS[n] : BIAS[n]) : 0.0;
            for (int j = 0; j < nblk; j++) {
                const double z = zmode == 0 ? (double)(1 << (bits - 1)) : zmode == 1 ? ZQ[n * nblk + j] : ZF[n * nblk + j];
                const double s = S[n * nblk + j];
                double bs = 0, bm = 0;
                for (int k = j * blk; k < (j + 1) * blk && k < K; k++) {
                    const double w = (double)Q[n * Kp + k] - z, x = quant_a ? qa[k] : a[k];
                    bs += x * w;
                    bm += (x < 0 ? -x : x) * (w < 0 ? -w : w);
                }
                const double f = quant_a ? (double)(sa[j] * S[n * nblk + j]) : s;
                want += bs * f;
                mag += bm * f;
            }
            const double got = Y[m * ldc + n], err = got > want ? got - want : want - got;
            if (!(err <= 1e-5 * mag + 1e-6)) {
                ok = 0;
                if (logged++ < 4) {
                    wgkt_log("  m n got want: ");
                    wgkt_log_int(m);
                    wgkt_log(" ");
                    wgkt_log_int(n);
                    wgkt_log(" ");
                    wgkt_log_float((float)got);
                    wgkt_log(" ");
                    wgkt_log_float((float)want);
                    wgkt_log("\n");
                }
            }
        }
        for (int n = N; n < ldc; n++)
            ok &= Y[m * ldc + n] == 12345.0f; /* nothing written past N */
    }
    WGKT_CHECK(ok, "qbw gemm equals the dequantized loop");
    if (!ok) {
        wgkt_log("  M N K bits blk zmode quant_a bias extreme: ");
        const int v[9] = {M, N, K, bits, blk, zmode, quant_a, bias, extreme};
        for (int i = 0; i < 9; i++) {
            wgkt_log_int(v[i]);
            wgkt_log(" ");
        }
        wgkt_log("\n");
    }
}

/* wgk_f32_qbw_gather against the formula element by element, exactly: 4-bit (unsigned and
 * int4) and 8-bit tables, zero points packed or the default, sub-rows, an odd len, int32 and
 * int64 indices with negative ones and ones out of range (zeros). */
static void gather_one(int bits, int sign, int zmode, int index64, int subrows, int len, int blk)
{
    enum { ROWS = 7, COUNT = 9 };
    static uint8_t data[ROWS * 4 * 80], zp[ROWS * 4 * 8];
    static float sc[ROWS * 4 * 8], out[COUNT * 4 * 80];
    static int32_t i32[COUNT];
    static int64_t i64[COUNT];
    const int nblk = (len + blk - 1) / blk, rb = bits == 8 ? len : (len + 1) / 2, zs = (nblk * bits + 7) / 8;
    const int sub = ROWS * subrows, zdefault = sign ? 0 : 1 << (bits - 1);
    for (int i = 0; i < sub * rb; i++)
        data[i] = (uint8_t)rnd();
    for (int i = 0; i < sub * zs; i++)
        zp[i] = (uint8_t)rnd();
    for (int i = 0; i < sub * nblk; i++)
        sc[i] = wgkt_rand(&seed);
    static const int ids[COUNT] = {0, 6, -1, -7, 3, 7, -8, 1000000, 2};
    for (int i = 0; i < COUNT; i++) {
        i32[i] = ids[i];
        i64[i] = i == 7 ? (int64_t)1 << 40 : ids[i];
    }
    for (int i = 0; i < COUNT * subrows * len; i++)
        out[i] = 12345.0f;
    wgk_f32_qbw_gather(&(wgk_qbw_gather_args){.data = data, .rows = ROWS, .subrows = subrows, .len = len,
                                              .bits = bits, .blk = blk, .sign = sign, .scales = sc,
                                              .zp = zmode ? zp : 0, .zdefault = zdefault,
                                              .indices = index64 ? (const void *)i64 : i32, .index64 = index64,
                                              .count = COUNT, .out = out});
    int ok = 1;
    for (int i = 0; i < COUNT; i++) {
        const int in = ids[i] >= -ROWS && ids[i] < ROWS;
        const int row = ids[i] < 0 ? ids[i] + ROWS : ids[i];
        for (int r = 0; r < subrows; r++)
            for (int k = 0; k < len; k++) {
                const float got = out[(i * subrows + r) * len + k];
                if (!in) {
                    ok &= got == 0.0f;
                    continue;
                }
                const int sr = row * subrows + r, j = k / blk;
                int q = bits == 8 ? data[sr * rb + k] : (data[sr * rb + k / 2] >> (k % 2 * 4)) & 15;
                int z = zdefault;
                if (zmode)
                    z = bits == 8 ? zp[sr * zs + j] : (zp[sr * zs + j / 2] >> (j % 2 * 4)) & 15;
                if (sign && bits == 4) {
                    q = q >= 8 ? q - 16 : q;
                    z = zmode && z >= 8 ? z - 16 : z;
                }
                ok &= got == (float)(q - z) * sc[sr * nblk + j];
            }
    }
    WGKT_CHECK(ok, "qbw gather equals the formula, zeros out of range");
}

/* wgk_f32_bnb4_gemm against the dequantized loop in double: FP4 and NF4, K a multiple of the
 * block (the SIMD path) or not (blocks across columns, odd nibble offsets), every code. */
static void bnb4_one(int M, int N, int K, int blk, int qt, int extreme)
{
    static float a[4 * 300], y[4 * 16], am[16 * 300 / 16 + 1];
    static uint8_t b[16 * 300 / 2 + 1];
    const int64_t numel = (int64_t)N * K, nb = (numel + blk - 1) / blk;
    for (int i = 0; i < M * K; i++)
        a[i] = wgkt_rand(&seed);
    for (int64_t i = 0; i < (numel + 1) / 2; i++)
        b[i] = extreme == 1 ? 0 : extreme == 2 ? 0xff : (uint8_t)rnd();
    for (int64_t i = 0; i < nb; i++)
        am[i] = 0.5f + wgkt_rand(&seed);
    wgk_f32_bnb4_gemm(&(wgk_bnb4_args){.M = M, .N = N, .K = K, .blk = blk, .quant_type = qt, .a = a, .lda = K,
                                        .b = b, .absmax = am, .c = y, .ldc = N});
    int ok = 1;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double want = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                const int64_t i = (int64_t)n * K + k;
                const int code = i & 1 ? b[i / 2] & 15 : b[i / 2] >> 4;
                const double w = (double)wgk_bnb4_codebook[qt][code] * am[i / blk], x = a[m * K + k];
                want += x * w;
                mag += (x < 0 ? -x : x) * (w < 0 ? -w : w);
            }
            const double err = y[m * N + n] - want;
            ok &= (err < 0 ? -err : err) <= 1e-5 * mag + 1e-6;
        }
    WGKT_CHECK(ok, "bnb4 gemm equals the dequantized loop");
}

/* The panel path about its first M (the GEMV below it), K = 1100 over three of its k blocks
 * (the last short, not a multiple of 32) and not a multiple of the block (4-bit blocks of
 * 16: an odd count, the last chunk half there). */
static void panel_cases(void)
{
    static const int blks[] = {16, 32, 64, 128, 256};
    for (int bits = 4; bits <= 8; bits += 4)
        for (unsigned bi = 0; bi < sizeof blks / sizeof *blks; bi++)
            for (int zmode = 0; zmode < 3; zmode++)
                for (int dm = -1; dm <= 2; dm++)
                    one(WGK_QBW_ROWS_M + dm, 13 - dm - zmode, 1100, bits, blks[bi], zmode, 0, (dm + zmode) & 1, 0);
    WGKT_CHECK(wgk_qbw_panel_kc(1100, 16) % 32 == 0 && 1100 > 2 * wgk_qbw_panel_kc(1100, 16) &&
                   1100 > 2 * wgk_qbw_panel_kc(1100, 256),
               "K = 1100 takes three k blocks");
}

static void run(void)
{
    for (int qt = 0; qt < 2; qt++)
        for (int extreme = 0; extreme < 3; extreme++) {
            bnb4_one(1, 5, 64, 16, qt, extreme);
            bnb4_one(3, 7, 256, 64, qt, extreme);
            bnb4_one(2, 9, 300, 32, qt, extreme);
            bnb4_one(1, 3, 45, 16, qt, extreme);
        }
    WGKT_CHECK(wgk_bnb4_codebook[0][3] == 1.0f && wgk_bnb4_codebook[1][0] == -1.0f &&
                   wgk_bnb4_codebook[0][1] == 0.0052083334885537624f,
               "the codebooks' ends");
    for (int bits = 4; bits <= 8; bits += 4)
        for (int zmode = 0; zmode < 2; zmode++)
            for (int index64 = 0; index64 < 2; index64++) {
                gather_one(bits, 0, zmode, index64, 1, 64, 16);
                gather_one(bits, 0, zmode, index64, 3, 48, 32);
                gather_one(bits, 0, zmode, index64, 2, 77, 16);
                if (bits == 4)
                    gather_one(4, 1, zmode, index64, 2, 45, 32);
            }
    static const int Ms[] = {1, 2, 3, 5, 9}, Ns[] = {1, 3, 5, 8, 13}, blks[] = {16, 32, 64, 128, 256};
    for (int bits = 4; bits <= 8; bits += 4)
        for (unsigned bi = 0; bi < sizeof blks / sizeof *blks; bi++) {
            const int blk = blks[bi];
            const int Ks[] = {blk, blk + 1, 3 * blk - 5, 300 - blk / 4};
            for (unsigned ki = 0; ki < 4; ki++)
                for (unsigned mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
                    for (int zmode = 0; zmode < 3; zmode++)
                        for (int quant_a = 0; quant_a < (zmode == 2 ? 1 : 2); quant_a++) {
                            const int N = Ns[(ki + mi + (unsigned)zmode) % 5];
                            one(Ms[mi], N, Ks[ki], bits, blk, zmode, quant_a, (int)(mi & 1), 0);
                        }
            for (int extreme = 1; extreme <= 2; extreme++)
                for (int zmode = 0; zmode < 3; zmode++)
                    for (int quant_a = 0; quant_a < (zmode == 2 ? 1 : 2); quant_a++) {
                        one(1, 5, 2 * blk + 3, bits, blk, zmode, quant_a, 1, extreme);
                        one(6, 9, 2 * blk + 3, bits, blk, zmode, quant_a, 0, extreme);
                    }
        }
    /* K below one block: the padded block alone */
    for (int zmode = 0; zmode < 3; zmode++)
        for (int quant_a = 0; quant_a < (zmode == 2 ? 1 : 2); quant_a++) {
            one(1, 3, 5, 4, 16, zmode, quant_a, 1, 0);
            one(5, 3, 7, 8, 32, zmode, quant_a, 0, 0);
            one(2, 6, 1, 4, 64, zmode, quant_a, 1, 0);
        }
    /* more rows than a row block (WGK_QBW_QROWS), more columns than a column block */
    one(MAXM, 11, 100, 4, 32, 1, 0, 1, 0);
    one(MAXM, 6, 77, 8, 16, 0, 0, 0, 0);
    one(MAXM, 11, 100, 4, 32, 1, 1, 1, 0);
    one(MAXM, 6, 77, 8, 16, 0, 1, 0, 0);
    one(9, 9, BIGK, 4, 32, 1, 0, 1, 0);
    one(5, 5, BIGK - 24, 8, 128, 2, 0, 0, 0);
    one(5, WIDEN, 2048, 4, 64, 1, 0, 1, 0);
    one(6, WIDEN, 2048, 4, 16, 1, 1, 0, 0);
    one(7, WIDEN, 2048, 8, 32, 2, 0, 1, 0);
    WGKT_CHECK(MAXM > WGK_QBW_QROWS && WIDEN * 1024 > 262144, "the big cases take two row and column blocks");
    WGKT_CHECK(wgk_qbw_panel_nc(wgk_qbw_panel_kc(2048, 32)) < WIDEN, "the wide cases take two blocks of panels");
    panel_cases();
}

WGKT_MAIN("qweight", run)
