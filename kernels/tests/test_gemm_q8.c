/*
 * test_gemm_q8.c: the packed-B GEMM on one-byte panels (wgk_gemm_args.bq, wgk_pack_b_q8: a
 * DequantizeLinear of uint8 / int8 weights) against a naive loop that dequantizes each
 * weight as DequantizeLinear does, (float)(q - zp) * scale, and sums in k order in float32
 * as the kernel does, bit for bit, and against the same call on the panels dequantized
 * beforehand (wgk_pack_b on the floats), bit for bit. Every path: GEMV rows
 * over four panels at once and the panels left over, broadcast groups and row blocks, the
 * longest K; uint8 and int8, one scale and zero point (their head shared by the panels) or
 * one per column (a head per panel); extreme values:
 * weights and zero points at both ends of their range, scales from 1e-30 to 1e25, rows of
 * A with values up to 1e6 (every sum finite); with bias, residual and GELU; the threads' shares.
 * And the rows of a table that the panels hold as columns (a tied embedding's Gather,
 * wgk_gather_q8_panels): its bytes, int32 and int64 indices, negative ones, and one out
 * of range (WGK_ERR_INDEX, its row zeros).
 */
#include "wgk_data.h"
#include "wgk_gemm.h"
#include "wgk_split.h"
#include "wgk_vmath.h"
#include "wgkt.h"

#define CAP (1 << 18)
static float A[CAP], BP[CAP], BF[CAP], C[CAP], R[CAP], BIAS[CAP], WANT[CAP], WHOLE[CAP], SCALE[1024];
static uint8_t Q[CAP], ZP[1024], PANELS[CAP + (1 << 16)];
static uint32_t seed = 777;

static uint32_t next(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
}

/* A byte of the weights or zero points: both ends of the range often, else any. */
static uint8_t byte(void)
{
    const uint32_t r = next();
    return r % 4 == 0 ? 0 : r % 4 == 1 ? 255 : (r % 4 == 2 ? 128 : (uint8_t)(r >> 4));
}

/* A scale: from 1e-30 to 1e25 (mostly moderate). */
static float scale(void)
{
    static const float ends[] = {1e-30f, 3.7e-21f, 1e25f, 0.0078125f, 1.0f};
    const uint32_t r = next();
    return r % 3 == 0 ? ends[(r >> 3) % 5] : wgkt_rand(&seed) * 0.05f + 0.0625f;
}

static void one(int M, int N, int K, int is_signed, int per_col, int with_bias, int gelu)
{
    const int lda = K + 3, ldc = N + 1, nz = per_col ? N : 1;
    for (int i = 0; i < M * lda; i++)
        A[i] = wgkt_rand(&seed) * (i % 97 == 5 ? 1e6f : 4.0f);
    for (int i = 0; i < K * N; i++)
        Q[i] = byte();
    for (int j = 0; j < nz; j++) {
        ZP[j] = byte();
        SCALE[j] = scale();
    }
    for (int i = 0; i < N; i++)
        BIAS[i] = wgkt_rand(&seed);
    for (int i = 0; i < M * ldc; i++)
        R[i] = wgkt_rand(&seed);
    /* B as DequantizeLinear makes it, row-major [K][N] */
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++) {
            const int q = is_signed ? (int8_t)Q[k * N + n] : Q[k * N + n];
            const int z = is_signed ? (int8_t)ZP[per_col ? n : 0] : ZP[per_col ? n : 0];
            BF[k * N + n] = (float)(q - z) * SCALE[per_col ? n : 0];
        }
    /* the naive loop: k in order, float32 products and sums */
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float s = 0.0f;
            for (int k = 0; k < K; k++)
                s += A[m * lda + k] * BF[k * N + n];
            WANT[m * ldc + n] = with_bias ? s + BIAS[n] + R[m * ldc + n] : s;
            WANT[m * ldc + N] = 1000.0f;
        }
    for (int m = 0; m < M && gelu; m++)
        wgk_f32_gelu(WANT + m * ldc, WANT + m * ldc, (size_t)N);
    wgk_pack_b_q8(Q, is_signed, (size_t)N, 1, SCALE, ZP, (size_t)per_col, (size_t)K, (size_t)N, PANELS);
    /* one scale and zero point: one head before the panels, which bq starts past */
    const wgk_q8_panel_head *head = per_col ? NULL : (const wgk_q8_panel_head *)PANELS;
    wgk_gemm_args g = {.M = M, .N = N, .K = K, .a = A, .a_panel = WGK_GEMM_MR * lda, .a_k = 1, .a_m = lda,
                       .bq = (const int8_t *)PANELS + (per_col ? 0 : WGK_GEMM_Q8_HEAD), .bq_head = head, .c = C, .ldc = ldc, .bias = with_bias ? BIAS : 0,
                       .bias_n = 1, .res = with_bias ? R : 0, .ldr = ldc, .alpha = 1.0f, .beta = 1.0f,
                       .min = -INFINITY, .max = INFINITY, .act = gelu ? WGK_GEMM_ACT_GELU : 0};
    for (int i = 0; i < M * ldc; i++)
        C[i] = 1000.0f;
    wgk_f32_gemm_pb(&g);
    WGKT_CHECK(wgkt_same_bits(C, WANT, M * ldc), "gemm packed B q8: the naive loop's bits");
    if (!wgkt_same_bits(C, WANT, M * ldc)) {
        wgkt_log_mnk(M, N, K);
        wgkt_log(is_signed ? " int8" : " uint8");
        wgkt_log(per_col ? " per column\n" : " per tensor\n");
    }
    /* the same call on the dequantized panels */
    for (int i = 0; i < M * ldc; i++)
        WHOLE[i] = C[i], C[i] = 1000.0f;
    wgk_pack_b(BF, (size_t)N, 1, (size_t)K, (size_t)N, BP);
    wgk_gemm_args f = g;
    f.bq = 0;
    f.b = BP;
    wgk_f32_gemm_pb(&f);
    WGKT_CHECK(wgkt_same_bits(C, WHOLE, M * ldc), "gemm packed B q8: the bits of the dequantized panels");
    /* 2 and 3 threads' shares, one after another */
    for (int n = 2; n <= 3; n++) {
        for (int i = 0; i < M * ldc; i++)
            C[i] = 1000.0f;
        for (int t = 0; t < n; t++) {
            wgk_gemm_args share = g;
            if (wgk_split_gemm_packed_b(&share, (wgk_part){t, n}))
                wgk_f32_gemm_pb(&share);
        }
        WGKT_CHECK(wgkt_same_bits(C, WHOLE, M * ldc), "gemm packed B q8 split among threads: the whole call's bits");
    }
}

/* The table [N][K] that PANELS hold as B's columns (Q is B [K][N]; shared: one head for all
 * panels): rows by index. */
static void gather_rows(int N, int K, int is_signed, int shared)
{
    static uint8_t rows[4 * 8192];
    const wgkt_gather_idx ix = wgkt_gather_indices(N);
    int ok = wgk_gather_q8_panels(rows, (const int8_t *)PANELS, is_signed, shared, ix.i64, 8, 4, (size_t)K, (size_t)N) == 0;
    for (int j = 0; j < 4 * K; j++)
        ok &= rows[j] == Q[j % K * N + wgkt_gather_row(ix.i64[j / K], N)];
    WGKT_CHECK(ok, "gather q8 panels: the table's rows, int64 indices");
    ok = wgk_gather_q8_panels(rows, (const int8_t *)PANELS, is_signed, shared, ix.i32, 4, 4, (size_t)K, (size_t)N) ==
         WGK_ERR_INDEX;
    for (int j = 0; j < 4 * K; j++) {
        const int64_t v = wgkt_gather_row(ix.i32[j / K], N);
        ok &= rows[j] == (v < N ? Q[j % K * N + v] : 0);
    }
    WGKT_CHECK(ok, "gather q8 panels: int32 indices, one out of range");
}

static void run(void)
{
    /* M, N, K: GEMV rows (1-3) over 4 panels and the rest, broadcast groups, row blocks
     * (K = 7000), the longest K */
    static const int shapes[][3] = {{1, 1, 1}, {1, 40, 33}, {1, 100, 257}, {2, 17, 7}, {3, 72, 64}, {4, 9, 5},
                                    {37, 20, 700}, {9, 9, 3072}, {5, 17, 7000}, {2, 17, WGK_GEMM_NARROW_MAX_K},
                                    {1, 250, 576}};
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int v = 0; v < 4; v++) {
            one(shapes[i][0], shapes[i][1], shapes[i][2], v & 1, v >> 1, (int)(i + v) % 2, (i + v) % 5 == 3);
            gather_rows(shapes[i][1], shapes[i][2], v & 1, !(v >> 1));
        }
}

WGKT_MAIN("gemm_q8", run)
