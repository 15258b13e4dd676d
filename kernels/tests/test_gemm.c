/*
 * test_gemm.c: the GEMM kernels against a naive triple loop, over shapes below and above
 * the register tile (M around MR=4, N around 4/8 and the cache block, K = 1 and odd),
 * the three A layouts (packed, row-major, transposed), every bias mode, residual,
 * alpha/beta and clamping; the packed-B kernel with a run-time B (packed by the kernel) and
 * with a fused GELU; that 2 and 3 threads' shares (wgk_split.h), run one after another,
 * give the whole call's bits. Also the 2-D transpose. rtol 1e-4, atol 1e-5 (atol scaled by
 * sqrt(K) for long sums of [-1,1) products). The packed-B kernel on float16 panels: the
 * bits of the same call on the panels widened beforehand. And the rows of a float32 table
 * that the panels hold as columns (a tied embedding's Gather, wgk_gather_f32_panels): int64
 * and int32 indices, negative ones, one out of range (WGK_ERR_INDEX, its row zeros).
 */
#include "wgk_data.h"
#include "wgk_f16.h"
#include "wgk_gemm.h"
#include "wgk_split.h"
#include "wgk_vmath.h"
#include "wgkt.h"

#define CAP (1 << 18)
static float A[CAP], AP[CAP], B[CAP], BP[CAP], C[CAP], R[CAP], BIAS[CAP], WANT[CAP], WHOLE[CAP];
static uint32_t seed = 12345;

static void fill(float *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = wgkt_rand(&seed);
}

static float clampf(float v, float lo, float hi)
{
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* The fused activation check_one asks for (wgk_gemm_args.act; packed-B kernels only). */
static int act;

/* layout: 0 packed, 1 row-major (lda = K + 3), 2 transposed (lda = M + 1), 3 row-major
 * A with B packed in column panels (wgk_pack_b, for wgk_f32_gemm_pb).
 * bias mode: 0 none, 1 per row, 2 per column, 3 full [M,N]. */
/* Threads: the shares of 2 and 3 threads (rows or column panels, wgk_split_gemm*), run one
 * after another, give the whole call's bits in C's first size floats (padding included). */
static void check_shares(wgk_gemm_fn fn, const wgk_gemm_args *g, int packed_b, int size)
{
    for (int i = 0; i < size; i++)
        WHOLE[i] = C[i];
    for (int n = 2; n <= 3; n++) {
        for (int i = 0; i < size; i++)
            C[i] = 1000.0f;
        for (int t = 0; t < n; t++) {
            wgk_gemm_args share = *g;
            if (packed_b ? wgk_split_gemm_packed_b(&share, (wgk_part){t, n}) : wgk_split_gemm(&share, (wgk_part){t, n}))
                fn(&share);
        }
        WGKT_CHECK(wgkt_same_bits(C, WHOLE, size), "gemm split among threads gives the whole call's bits");
    }
}

static void check_one(wgk_gemm_fn fn, const char *name, int M, int N, int K, int layout,
                      int bias_mode, int use_res, float alpha, float beta, float lo, float hi)
{
    const int lda = layout == 1 || layout == 3 ? K + 3 : M + 1, ldb = N + 2, ldc = N + 1;
    fill(A, layout == 2 ? K * lda : M * lda);
    fill(B, K * ldb);
    fill(BIAS, M * N);
    fill(R, M * ldc);
    for (int i = 0; i < M * ldc; i++)
        C[i] = 1000.0f; /* sentinel: padding columns must stay untouched */
    wgk_gemm_args g = {.M = M, .N = N, .K = K, .b = B, .ldb = ldb, .c = C, .ldc = ldc,
                       .alpha = alpha, .beta = beta, .min = lo, .max = hi, .act = act};
    if (layout == 0) {
        wgk_pack_a(A, (size_t)(K + 3), (size_t)M, (size_t)K, AP);
        g.a = AP;
        g.a_panel = K * WGK_GEMM_MR;
        g.a_k = WGK_GEMM_MR;
        g.a_m = 1;
    } else if (layout == 1 || layout == 3) {
        g.a = A;
        g.a_panel = WGK_GEMM_MR * lda;
        g.a_k = 1;
        g.a_m = lda;
    } else {
        g.a = A;
        g.a_panel = WGK_GEMM_MR;
        g.a_k = lda;
        g.a_m = 1;
    }
    if (layout == 3) {
        wgk_pack_b(B, (size_t)ldb, 1, (size_t)K, (size_t)N, BP);
        g.b = BP;
    }
    if (bias_mode) {
        g.bias = BIAS;
        g.bias_m = bias_mode == 1 ? 1 : bias_mode == 2 ? 0 : N;
        g.bias_n = bias_mode == 1 ? 0 : 1;
    }
    if (use_res) {
        g.res = R;
        g.ldr = ldc;
    }
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = 0;
            for (int k = 0; k < K; k++) {
                float av = layout == 2 ? A[k * lda + m] : A[m * (K + 3) + k];
                s += (double)av * B[k * ldb + n];
            }
            float v = alpha * (float)s;
            if (bias_mode)
                v += beta * BIAS[m * g.bias_m + n * g.bias_n];
            if (use_res)
                v += R[m * ldc + n];
            WANT[m * ldc + n] = clampf(v, lo, hi);
        }
    /* The activation through the vector GELUs (tested against references in test_vmath):
     * this checks that the GEMM applies it once to every element it writes. */
    for (int m = 0; m < M && act; m++)
        (act == WGK_GEMM_ACT_GELU ? wgk_f32_gelu : wgk_f32_gelu_tanh)(WANT + m * ldc, WANT + m * ldc, (size_t)N);
    fn(&g);
    int bad = 0;
    float atol = 1e-5f;
    for (int k = 1; k * k < K; k++)
        atol = 1e-5f * (float)(k + 1);
    for (int m = 0; m < M && bad < 3; m++) {
        for (int n = 0; n < N; n++)
            if (!wgkt_close(C[m * ldc + n], WANT[m * ldc + n], 1e-4f, atol)) {
                bad++;
                WGKT_CHECK_CLOSE(C[m * ldc + n], WANT[m * ldc + n], 1e-4f, atol, name);
                wgkt_log_mnk(M, N, K);
                wgkt_log(" layout=");
                wgkt_log_int(layout);
                wgkt_log(" bias=");
                wgkt_log_int(bias_mode);
                wgkt_log(" m=");
                wgkt_log_int(m);
                wgkt_log(" n=");
                wgkt_log_int(n);
                wgkt_log("\n");
                break;
            }
        WGKT_CHECK(C[m * ldc + N] == 1000.0f, "gemm wrote past N (ldc padding)");
    }
    WGKT_CHECK(bad == 0, name);
    check_shares(fn, &g, layout == 3, M * ldc);
}

static void check_kernel(wgk_gemm_fn fn, const char *name)
{
    static const int ms[] = {1, 3, 4, 5, 8, 9};
    static const int ns[] = {1, 3, 4, 5, 8, 9, 15, 16, 17, 40};
    static const int ks[] = {1, 2, 7, 33};
    int variant = 0;
    for (unsigned i = 0; i < sizeof ms / sizeof *ms; i++)
        for (unsigned j = 0; j < sizeof ns / sizeof *ns; j++)
            for (unsigned k = 0; k < sizeof ks / sizeof *ks; k++) {
                variant++;
                check_one(fn, name, ms[i], ns[j], ks[k], variant % 3, variant % 4, variant % 5 == 0,
                          1.0f, 1.0f, -INFINITY, INFINITY);
            }
    /* alpha/beta, relu, clip */
    check_one(fn, name, 7, 19, 5, 0, 2, 1, 0.5f, 2.0f, 0.0f, INFINITY);
    check_one(fn, name, 6, 13, 9, 1, 3, 0, -1.5f, 0.25f, -0.5f, 0.75f);
    check_one(fn, name, 13, 70, 64, 2, 1, 1, 1.0f, 1.0f, 0.0f, 6.0f);
    /* more columns than one cache block (K * block > 131072) */
    check_one(fn, name, 6, 500, 300, 0, 1, 1, 1.0f, 1.0f, -INFINITY, INFINITY);
    /* GEMV shape (fully connected layer, batch 1) */
    check_one(fn, name, 1, 100, 257, 1, 2, 0, 1.0f, 1.0f, -INFINITY, INFINITY);
}

#define COUNT(a) ((unsigned)(sizeof a / sizeof *a))

/* fn over every shape of the lists ms x ns x ks with A in `layout`, the bias modes and the
 * residual taking turns from one shape to the next. */
static void check_grid(wgk_gemm_fn fn, const char *name, int layout, const int *ms, unsigned nm,
                       const int *ns, unsigned nn, const int *ks, unsigned nk)
{
    int variant = 0;
    for (unsigned i = 0; i < nm; i++)
        for (unsigned j = 0; j < nn; j++)
            for (unsigned k = 0; k < nk; k++) {
                variant++;
                check_one(fn, name, ms[i], ns[j], ks[k], layout, variant % 4, variant % 5 == 0, 1.0f,
                          1.0f, -INFINITY, INFINITY);
            }
}

/* The packed-B kernel: row-major A only; row blocks (K = 8200: past K = 8192 two
 * broadcast groups do not fit the buffer), row tails, broadcast row groups. */
static void check_packed_b(void)
{
    static const int ms[] = {1, 2, 3, 4, 5, 9};
    static const int ns[] = {1, 3, 8, 9, 17, 40};
    static const int ks[] = {1, 3, 4, 7, 33};
    check_grid(wgk_f32_gemm_pb, "gemm packed B", 3, ms, COUNT(ms), ns, COUNT(ns), ks, COUNT(ks));
    check_one(wgk_f32_gemm_pb, "gemm packed B relu", 7, 19, 5, 3, 2, 1, 0.5f, 2.0f, 0.0f, INFINITY);
    check_one(wgk_f32_gemm_pb, "gemm packed B GEMV", 1, 100, 257, 3, 2, 0, 1.0f, 1.0f, -INFINITY, INFINITY);
    check_one(wgk_f32_gemm_pb, "gemm packed B row blocks", 9, 9, 8200, 3, 1, 1, 1.0f, 1.0f, -INFINITY,
              INFINITY);
    /* Broadcast 4-row groups (M >= 4, 2 or more groups per buffer): several buffers of
     * groups (K = 700: 5 groups a buffer), and a classifier-like plain product. */
    check_one(wgk_f32_gemm_pb, "gemm packed B splat blocks", 37, 20, 700, 3, 2, 1, 1.0f, 1.0f, -INFINITY,
              INFINITY);
    /* ... and a long reduction, two groups a buffer (K = 1536: MiniLM's FFN output). */
    check_one(wgk_f32_gemm_pb, "gemm packed B splat long K", 37, 9, 1536, 3, 1, 1, 1.0f, 1.0f, -INFINITY,
              INFINITY);
    /* ... and past 256 KiB of groups: two a block (K = 3072: BERT-base's FFN output). */
    check_one(wgk_f32_gemm_pb, "gemm packed B splat K 3072", 37, 9, 3072, 3, 2, 1, 1.0f, 1.0f, -INFINITY,
              INFINITY);
    check_one(wgk_f32_gemm_pb, "gemm packed B splat plain", 40, 301, 120, 3, 0, 0, 1.0f, 1.0f, -INFINITY,
              INFINITY);
}

/* B computed at run time, packed by the kernel into scratch (BP), then the packed-B
 * kernel: row-major A and B (ldb = N + 2), every path of that kernel. */
static void pack_run(const wgk_gemm_args *g)
{
    wgk_f32_gemm_pack_run(g, BP);
}

static void check_pack_run(void)
{
    static const int ms[] = {1, 3, 4, 8, 9, 37};
    static const int ns[] = {1, 7, 8, 9, 17, 32, 40};
    static const int ks[] = {1, 4, 7, 32, 64};
    check_grid(pack_run, "gemm packed at run time", 1, ms, COUNT(ms), ns, COUNT(ns), ks, COUNT(ks));
    /* Attention's shapes: Q K^T (128 x 32 . 32 x 128), P V (128 x 128 . 128 x 32), and a
     * long reduction (row blocks). */
    check_one(pack_run, "gemm packed at run time QK", 128, 128, 32, 1, 0, 0, 0.125f, 1.0f, -INFINITY, INFINITY);
    check_one(pack_run, "gemm packed at run time PV", 128, 32, 128, 1, 0, 0, 1.0f, 1.0f, -INFINITY, INFINITY);
    check_one(pack_run, "gemm packed at run time row blocks", 9, 9, 8200, 1, 2, 1, 1.0f, 1.0f, -INFINITY,
              INFINITY);
}

/* A fused GELU (both forms) after bias and residual on every path of the packed-B kernel:
 * GEMV rows, broadcast groups (two buffers of them, and two a block at K = 3072), row
 * blocks (K = 8200). */
static void check_packed_b_gelu(void)
{
    static const int shapes[][3] = {{1, 100, 33}, {3, 40, 7}, {37, 20, 700}, {128, 72, 64}, {37, 9, 3072}, {9, 9, 8200}};
    for (act = WGK_GEMM_ACT_GELU; act <= WGK_GEMM_ACT_GELU_TANH; act++)
        for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++)
            check_one(wgk_f32_gemm_pb, act == WGK_GEMM_ACT_GELU ? "gemm packed B + GELU" : "gemm packed B + tanh GELU",
                      shapes[i][0], shapes[i][1], shapes[i][2], 3, 2, (int)i % 2, 1.0f, 1.0f, -INFINITY, INFINITY);
    act = WGK_GEMM_ACT_NONE;
}

/* float16 panels (bh) against the same call on those panels widened to float32 (b): the
 * same bits on every path (GEMV rows over four panels at once and the panels left over,
 * broadcast groups, row blocks at K = 7000, the longest K), with bias, residual, GELU
 * and the threads' shares, and a GEMV row whose values pass 2^24 (not scaled by 2^102
 * first). The stored halves (weights times 2^10, wgk_f16.h) are random
 * normal ones and signed zeros, 65504 among them: the weights from 2^-24 to 63.97. */
static uint16_t BH[CAP];

static void check_one_f16(int M, int N, int K, int with_bias, int gelu)
{
    const int lda = K + 3, ldc = N + 1, panels = (N + WGK_GEMM_NR - 1) / WGK_GEMM_NR;
    fill(A, M * lda);
    if (gelu)
        A[0] = 3e7f; /* past 2^24: the GEMV widens without its scaled row (few_rows) */
    fill(BIAS, N);
    fill(R, M * ldc);
    for (int p = 0; p < panels; p++)
        for (int k = 0; k < K; k++)
            for (int j = 0; j < WGK_GEMM_NR; j++) {
                seed = seed * 1664525u + 1013904223u;
                uint16_t h = (uint16_t)(seed >> 16);
                if ((h & 0x7c00) == 0x7c00) /* no infinity or NaN */
                    h ^= 0x4000;
                if (!(h & 0x7c00)) /* no subnormal: zero or the smallest normals */
                    h &= (seed & 1) ? 0x8000 : 0x83ff, h |= (seed & 1) ? 0 : 0x0400;
                BH[((size_t)p * K + k) * WGK_GEMM_NR + j] = p * WGK_GEMM_NR + j < N ? h : 0;
            }
    for (int i = 0; i < panels * K * WGK_GEMM_NR; i++)
        BP[i] = wgk_f16_weight(BH[i]);
    wgk_gemm_args g = {.M = M, .N = N, .K = K, .a = A, .a_panel = WGK_GEMM_MR * lda, .a_k = 1, .a_m = lda,
                       .b = BP, .c = C, .ldc = ldc, .bias = with_bias ? BIAS : 0, .bias_n = 1,
                       .res = with_bias ? R : 0, .ldr = ldc, .alpha = 1.0f, .beta = 1.0f,
                       .min = -INFINITY, .max = INFINITY, .act = gelu ? WGK_GEMM_ACT_GELU : 0};
    for (int i = 0; i < M * ldc; i++)
        C[i] = 1000.0f;
    wgk_f32_gemm_pb(&g);
    for (int i = 0; i < M * ldc; i++)
        WANT[i] = C[i], C[i] = 1000.0f;
    g.b = 0;
    g.bh = BH;
    wgk_f32_gemm_pb(&g);
    WGKT_CHECK(wgkt_same_bits(C, WANT, M * ldc), "gemm packed B float16: the bits of the widened panels");
    check_shares(wgk_f32_gemm_pb, &g, 1, M * ldc);
}

static void check_packed_b_f16(void)
{
    static const int shapes[][3] = {{1, 1, 1}, {1, 40, 33}, {1, 100, 257}, {2, 17, 7}, {3, 72, 64}, {4, 9, 5},
                                    {37, 20, 700}, {9, 9, 3072}, {5, 17, 7000}, {5, 17, WGK_GEMM_NARROW_MAX_K}};
    for (unsigned i = 0; i < sizeof shapes / sizeof *shapes; i++)
        check_one_f16(shapes[i][0], shapes[i][1], shapes[i][2], (int)i % 2, i % 3 == 2);
}

static void check_transpose(void)
{
    static const int rs[] = {1, 3, 8, 9, 17};
    static const int cs[] = {1, 5, 8, 16, 23};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            int rows = rs[i], cols = cs[j];
            fill(A, rows * cols);
            wgk_f32_transpose2d(A, C, rows, cols);
            int ok = 1;
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++)
                    ok &= C[c * rows + r] == A[r * cols + c];
            WGKT_CHECK(ok, "transpose2d");
        }
}

/* The table [N][K] is B [K][N] transposed: its rows are B's columns, read from B's panels. */
static void check_gather_panels(void)
{
    static const int shapes[][2] = {{1, 1}, {9, 5}, {8, 16}, {203, 37}};
    static float rows[4 * 64];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int N = shapes[s][0], K = shapes[s][1];
        fill(B, K * N);
        wgk_pack_b(B, (size_t)N, 1, (size_t)K, (size_t)N, BP);
        const wgkt_gather_idx ix = wgkt_gather_indices(N);
        int ok = wgk_gather_f32_panels(rows, BP, ix.i64, 8, 4, (size_t)K, (size_t)N) == 0;
        for (int j = 0; j < 4 * K; j++)
            ok &= rows[j] == B[j % K * N + wgkt_gather_row(ix.i64[j / K], N)];
        WGKT_CHECK(ok, "gather f32 panels: the table's rows, int64 indices");
        ok = wgk_gather_f32_panels(rows, BP, ix.i32, 4, 4, (size_t)K, (size_t)N) == WGK_ERR_INDEX;
        for (int j = 0; j < 4 * K; j++) {
            const int64_t v = wgkt_gather_row(ix.i32[j / K], N);
            ok &= rows[j] == (v < N ? B[j % K * N + v] : 0.0f);
        }
        WGKT_CHECK(ok, "gather f32 panels: int32 indices, one out of range");
    }
}

static void run(void)
{
    check_kernel(wgk_f32_gemm_4x4__scalar, "gemm 4x4 scalar");
#ifdef __wasm_simd128__
    check_kernel(wgk_f32_gemm_4x8__wasmsimd, "gemm 4x8 wasmsimd");
#endif
    check_packed_b();
    check_pack_run();
    check_packed_b_gelu();
    check_packed_b_f16();
    check_transpose();
    check_gather_panels();
}

WGKT_MAIN("gemm", run)
