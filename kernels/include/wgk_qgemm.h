/*
 * wgk_qgemm.h: the int8 GEMM behind MatMulInteger (and ConvInteger / QLinearConv's im2col
 * kernel): integer-exact, int32 accumulation that wraps as int32 does.
 *
 *   C(m,n) = sum_k (A(m,k) - za(m)) (B(k,n) - zb(n))
 *
 * A: uint8 or int8 (adt 2 / 3, ONNX codes), row-major with leading dimension lda; its zero
 * point za is read at run time (DynamicQuantizeLinear makes it): NULL for 0, one value
 * (za_period 0), or one per row with row m using za[m % za_period] (per-row zero points of
 * a batch of matrices stacked as rows). B is constant, packed at compile time one byte per
 * weight, as the model stores it: int8 B as it is, uint8 B as b - 128 (b ^ 0x80); its zero
 * point moves into a correction per column, c(n) = zb(n) - 128 (uint8) or zb(n) (int8), which
 * the kernel takes off with the sums of A's rows:
 *
 *   sum_k A'(m,k) (B(k,n) - zb(n)) = sum_k A'(m,k) P(k,n) - c(n) sum_k A'(m,k),  A' = A - za,
 *
 * exact in wrapping int32 arithmetic. Kp = K rounded up to even; panel p (columns 8p ..
 * 8p+7) is 32 + 8 Kp bytes at p * wgk_qgemm_panel_bytes(K): the 8 corrections as int32,
 * then k in pairs, byte (k/2)*16 + (n%8)*2 + (k%2) = P(k,n) as int8; padding (k >= K,
 * n >= N) is 0. A share of the columns that starts at a panel is the product with the
 * panels from there (wgk_split_q8_gemm).
 *
 * The SIMD128 kernel widens A's rows to int16 minus za into work (M*Kp int16) and sums
 * them (unless every correction is 0), broadcasts groups of rows into the splat area
 * behind them (every k pair of a row as a whole vector), and multiplies with
 * i32x4.dot_i16x8_s (two k per lane, products up to 255*128, so a pair cannot overflow),
 * each 8-byte half of a panel's 16 bytes sign-extended to int16 by its load
 * (i16x8.load8x8_s):
 *   - a GEMV for 1 to 3 rows (a decode step's): B streamed once, four panels at a time for
 *     one row (four memory streams), two for two or three rows; per 16 weights, 2
 *     extending loads, and per row a broadcast load, 2 dot products and 2 adds;
 *   - 4 rows or more: 4-row groups (wgk_qgemm_splat_groups), each panel (in L1) against
 *     every group of the splat area, 8 accumulators; a panel that serves two groups or more
 *     is widened to int16 first (plain loads then, no extending ones: their shuffles take
 *     the port the adds share).
 * The scalar build runs the same layout in plain loops. A column's sums are taken in the
 * same order whatever M and whatever share of the columns a call computes.
 *
 *     int8_t *pb = malloc(wgk_qgemm_pack_b_bytes(K, N));
 *     wgk_qgemm_pack_b(b, 3, zb, 1, K, N, pb);           // at compile time
 *     wgk_q8_gemm(&(wgk_q8_gemm_args){M, N, K, a, 2, K, za, 0, pb, c, N, work});
 */
#ifndef WGK_QGEMM_H
#define WGK_QGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "wgk_qdeq.h"

#define WGK_QGEMM_NR 8
#define WGK_QGEMM_MR 4

static inline size_t wgk_qgemm_kp(size_t K) { return (K + 1) & ~(size_t)1; }

/* Bytes of one packed panel: 8 int32 corrections and Kp x 8 int8 weights. */
static inline size_t wgk_qgemm_panel_bytes(size_t K) { return 32 + 8 * wgk_qgemm_kp(K); }

/* Bytes of the packed B (16-byte multiples, as is every panel). */
static inline size_t wgk_qgemm_pack_b_bytes(size_t K, size_t N)
{
    return (N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR * wgk_qgemm_panel_bytes(K);
}

/* The SIMD128 kernel broadcasts each group of widened rows (4, or the 1 to 3 rows of a
 * GEMV) into a splat area behind the widened rows and their sums (a 4-row group takes 16 Kp
 * int16: every k pair of every row as a whole vector), so that its inner loop does plain
 * vector loads, no load-splats (slow in Cranelift) nor lane shuffles (on the ports the dot
 * products need). The area holds all of A's groups or as many as fit in
 * WGK_QGEMM_SPLAT_MAX int16 (1 MiB); each block of groups it holds reads all of B once.
 * When fewer than 4 groups fit (K above 8192) and A has more, or one group does not fit (K
 * above 32768), the kernel multiplies with load-splats instead (B would otherwise be read
 * every 8 rows). */
#define WGK_QGEMM_SPLAT_MAX 524288
static inline size_t wgk_qgemm_splat_groups(size_t M, size_t K)
{
    const size_t need = (M + 3) / 4, fit = WGK_QGEMM_SPLAT_MAX / (16 * wgk_qgemm_kp(K));
    return need <= fit ? need : fit >= 4 ? fit : 0;
}

/* int16 elements of the widened rows (M * Kp) and their int32 sums behind them, rounded up
 * to 64 bytes (a cache line): where the splat area starts. */
static inline size_t wgk_qgemm_rows_size(size_t M, size_t K)
{
    return (M * wgk_qgemm_kp(K) + 2 * M + 31) / 32 * 32;
}

/* int16 elements of the work buffer (A widened and its row sums, the splat area, then a
 * panel widened to int16, 8 Kp): the most any M' <= M takes (a module plans it for a
 * symbolic M's maximum; where 4 groups do not fit, fewer rows may still take the groups
 * that do). */
static inline size_t wgk_qgemm_work_size(size_t M, size_t K)
{
    const size_t need = (M + 3) / 4, fit = WGK_QGEMM_SPLAT_MAX / (16 * wgk_qgemm_kp(K));
    return wgk_qgemm_rows_size(M, K) + (need < fit ? need : fit) * 16 * wgk_qgemm_kp(K) + 8 * wgk_qgemm_kp(K);
}

static inline int32_t wgk_qgemm_load8(const void *p, int dt, size_t i)
{
    return dt == 2 ? (int32_t)((const uint8_t *)p)[i] : (int32_t)((const int8_t *)p)[i];
}

/* Packs B (K x N, dtype bdt: 2 or 3) whose element (k, n) is b[k * k_step + n * n_step],
 * with its zero point zb (NULL, one value, or N values: zb_per_col), as wgk_q8_gemm takes
 * it: panels of 8 columns, each its 8 corrections then k in pairs, zero past K and N. */
static inline void wgk_qgemm_pack_strided(const void *b, int bdt, const void *zb, int zb_per_col,
                                          size_t K, size_t N, size_t k_step, size_t n_step,
                                          int8_t *dst)
{
    const size_t kp = wgk_qgemm_kp(K), panels = (N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR;
    const int32_t off = bdt == 2 ? 128 : 0;
    for (size_t p = 0; p < panels; p++) {
        int8_t *panel = dst + p * wgk_qgemm_panel_bytes(K);
        for (size_t j = 0; j < WGK_QGEMM_NR; j++) {
            const size_t n = p * WGK_QGEMM_NR + j;
            const int32_t c = n < N ? (zb ? wgk_qgemm_load8(zb, bdt, zb_per_col ? n : 0) : 0) - off : 0;
            const uint32_t u = (uint32_t)c;
            for (int i = 0; i < 4; i++) /* little-endian int32, as wasm reads it */
                panel[4 * j + (size_t)i] = (int8_t)(uint8_t)(u >> (8 * i));
            for (size_t k = 0; k < kp; k++)
                panel[32 + (k / 2) * 2 * WGK_QGEMM_NR + j * 2 + (k % 2)] =
                    (int8_t)(n < N && k < K ? wgk_qgemm_load8(b, bdt, k * k_step + n * n_step) - off : 0);
        }
    }
}

/* B [K][N] row-major, dtype bdt (2 or 3); zb: NULL, one value, or N values (zb_per_col). */
static inline void wgk_qgemm_pack_b(const void *b, int bdt, const void *zb, int zb_per_col,
                                    size_t K, size_t N, int8_t *dst)
{
    wgk_qgemm_pack_strided(b, bdt, zb, zb_per_col, K, N, N, 1, dst);
}

typedef struct wgk_q8_gemm_args {
    int M, N, K;
    const void *a;
    int adt, lda;
    const void *za;
    int za_period;
    const int8_t *b; /* wgk_qgemm_pack_b layout, from the first column's panel */
    int32_t *c;
    int ldc;
    int16_t *work; /* wgk_qgemm_work_size(M, K) int16, 16-byte aligned */
} wgk_q8_gemm_args;

void wgk_q8_gemm(const wgk_q8_gemm_args *g);
/* The same with A already widened in work (a, adt, lda, za unused): work[m*Kp + k] =
 * A(m,k) - za(m), 0 for K <= k < Kp. */
void wgk_q8_gemm_widened(const wgk_q8_gemm_args *g);

/* ConvInteger / QLinearConv with groups = 1 on the int8 GEMM, by im2col: for each image
 * and each block of WGK_QCONV_PIXELS output pixels, the patches (k in (c, k0, k1, k2)
 * order, taps outside the image take x's zero point, so they widen to 0) are the rows of
 * A (written widened, as int16 minus the zero point, straight into the GEMM's work
 * buffer), and the weights W[M][K] with their zero points are the packed B, packed as the
 * transposed matrix W^T [K][M] (wgk_qconv_pack_w). The [pixels][M] product is written
 * transposed into y [N][M][pixels], plus bias[m] when bias is not NULL (QLinearConv's
 * int32 bias; wraps like int32). Geometry as wgk_s32_conv_args (3 spatial dims, unit
 * leading ones for 1-D / 2-D). Scratch: wgk_qconv_scratch_size bytes, 16-byte aligned. */
#define WGK_QCONV_PIXELS 128
typedef struct wgk_q8_conv_args {
    int N, C, M;
    int in[3], out[3], k[3], s[3], d[3], p[3];
    const void *x;
    int xdt;
    const void *xz; /* NULL: 0 */
    const int8_t *w; /* wgk_qconv_pack_w layout */
    const int32_t *bias;
    int32_t *y;
    wgk_q8_deq deq; /* ConvInteger's float tail (wgk_qdeq.h): deq.y instead of y */
    void *scratch;
} wgk_q8_conv_args;

void wgk_q8_conv(const wgk_q8_conv_args *a);

static inline size_t wgk_qconv_scratch_size(size_t K, size_t M)
{
    const size_t P = WGK_QCONV_PIXELS;
    return 2 * wgk_qgemm_work_size(P, K) + 4 * P * M + 16;
}

/* W [M][K] (ONNX layout, K = C k0 k1 k2), dtype wdt; zw: NULL, scalar or M values: the
 * product's B is W^T (wgk_qgemm_pack_b_bytes(K, M) bytes). */
static inline void wgk_qconv_pack_w(const void *w, int wdt, const void *zw, int zw_per_m, size_t M,
                                    size_t K, int8_t *dst)
{
    wgk_qgemm_pack_strided(w, wdt, zw, zw_per_m, K, M, 1, K, dst);
}

/* The pointwise case (kernel 1, stride 1, no padding, groups 1) without im2col
 * (q8-conv1x1-pixlanes.c): y [N][M][HW] int32 = sum_c (x[n][c][p] - xz) w[m][c] + bias[m].
 * w is wgk_q8_conv1x1_pack_w's: per output channel, the channel pairs (minus the weight
 * zero point) as int32, low half channel 2k, high half 2k + 1 (0 past C).
 * Scratch: wgk_q8_conv1x1_scratch_size bytes, 16-byte aligned. */
typedef struct wgk_q8_conv1x1_args {
    int N, C, M, HW;
    const void *x;
    int xdt;
    const void *xz; /* NULL: 0 */
    const int32_t *w;
    const int32_t *bias; /* NULL: none */
    WGK_Q8_OUTPUT_FIELDS /* y, yq or deq.y (wgk_qdeq.h) */
    void *scratch;
} wgk_q8_conv1x1_args;

void wgk_q8_conv1x1(const wgk_q8_conv1x1_args *a);

static inline size_t wgk_q8_conv1x1_hwp(size_t hw) { return (hw + 7) & ~(size_t)7; }

static inline size_t wgk_q8_conv1x1_scratch_size(size_t C, size_t HW)
{
    const size_t cp = (C + 1) / 2;
    return 4 * cp * wgk_q8_conv1x1_hwp(HW) + 64 * cp + 16;
}

/* A 2-D convolution with a short reduction (K = C KH KW, at most WGK_Q8_FEWC_MAX_K: the
 * 3-channel first layers) as the pointwise kernel computes (q8-conv1x1-pixlanes.c): per
 * block of WGK_Q8_FEWC_PIXELS output pixels, the K taps of each pixel gathered as K
 * "channels" (x minus its zero point, 0 in the padding), then the same 4-channel x
 * 8-pixel dot products and stores (int32 y, QLinearConv's requantized yq, or the float
 * tail deq). w is wgk_q8_conv1x1_pack_w's of W [M][K] (the ONNX layout with C := K).
 * Scratch: wgk_q8_conv_fewc_scratch_size bytes. */
#define WGK_Q8_FEWC_MAX_K 256
#define WGK_Q8_FEWC_PIXELS 512
typedef struct wgk_q8_conv_fewc_args {
    int N, C, H, W, M, OH, OW, KH, KW, SH, SW, DH, DW, PT, PL;
    const void *x;
    int xdt;
    const void *xz; /* NULL: 0 */
    const int32_t *w;
    const int32_t *bias; /* NULL: none */
    WGK_Q8_OUTPUT_FIELDS /* y, yq or deq.y (wgk_qdeq.h) */
    void *scratch;
} wgk_q8_conv_fewc_args;

void wgk_q8_conv_fewc(const wgk_q8_conv_fewc_args *a);

static inline size_t wgk_q8_conv_fewc_scratch_size(size_t K)
{
    const size_t P = WGK_Q8_FEWC_PIXELS, kp = (K + 1) / 2;
    return 4 * kp * P + 2 * (2 * kp) * P + 64 * kp + 16;
}

/* W [M][C] (ONNX layout), dtype wdt; zw: NULL, scalar or M values. dst: M * ceil(C/2). */
static inline void wgk_q8_conv1x1_pack_w(const void *w, int wdt, const void *zw, int zw_per_m, size_t M,
                                         size_t C, int32_t *dst)
{
    const size_t cp = (C + 1) / 2;
    for (size_t m = 0; m < M; m++) {
        const int32_t z = zw ? wgk_qgemm_load8(zw, wdt, zw_per_m ? m : 0) : 0;
        for (size_t k = 0; k < cp; k++) {
            const int32_t lo = wgk_qgemm_load8(w, wdt, m * C + 2 * k) - z;
            const int32_t hi = 2 * k + 1 < C ? wgk_qgemm_load8(w, wdt, m * C + 2 * k + 1) - z : 0;
            dst[m * cp + k] = (int32_t)(((uint32_t)(uint16_t)(int16_t)hi << 16) | (uint16_t)(int16_t)lo);
        }
    }
}

#endif
