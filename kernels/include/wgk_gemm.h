/*
 * wgk_gemm.h: single-precision matrix multiply with a fused epilogue.
 *
 *   C(m,n) = clamp(alpha * sum_k A(m,k) B(k,n) + beta * bias(m,n) + res(m,n), min, max)
 *
 * A is addressed through three strides so one kernel reads a packed panel layout
 * (wgk_pack.h: constant weights packed at compile time), a row-major matrix or a
 * transposed one:  A(m,k) = a[(m/MR)*a_panel + k*a_k + (m%MR)*a_m]   (MR = WGK_GEMM_MR)
 *   packed:      a_panel = K*MR,   a_k = MR,  a_m = 1
 *   row-major:   a_panel = MR*lda, a_k = 1,   a_m = lda
 *   transposed:  a_panel = MR,     a_k = lda, a_m = 1     (a stored K x M)
 * Rows m >= M are never read (the kernel repeats row M-1 and drops the result).
 * B is row-major K x N with leading dimension ldb (contiguous in n, the SIMD axis).
 * bias(m,n) = bias[m*bias_m + n*bias_n] (per-row: 1,0; per-column: 0,1), may be NULL.
 * res(m,n) = res[m*ldr + n], may be NULL. No activation: min = -INFINITY, max = INFINITY.
 * act (wgk_f32_gemm_pb and wgk_f32_gemm_pack_run only; 0 elsewhere): a GELU applied to
 * C after the clamp, row block by row block while the rows are in cache
 * (WGK_GEMM_ACT_GELU: wgk_f32_gelu, WGK_GEMM_ACT_GELU_TANH: wgk_f32_gelu_tanh).
 *
 * Example (1x1 convolution, NCHW, weights packed): M = Cout, K = Cin, N = H*W,
 *   a = packed W, b = x, ldb = N, c = y, ldc = N, bias per row.
 */
#ifndef WGK_GEMM_H
#define WGK_GEMM_H

#include "wgk_base.h"
#include "wgk_pack.h"

typedef struct wgk_gemm_args {
    int M, N, K;
    const float *a;
    int a_panel, a_k, a_m;
    const float *b;
    int ldb;
    float *c;
    int ldc;
    const float *bias;
    int bias_m, bias_n;
    const float *res;
    int ldr;
    float alpha, beta;
    float min, max;
    /* A buffer of WGK_GEMM_SPLAT_FLOATS floats of the calling thread's own for
     * wgk_f32_gemm_pb (NULL: the kernel's static one, for thread 0 and single-threaded
     * calls). A thread's share of C is a GEMM of its own (wgk_split.h). */
    float *splat;
    int act; /* WGK_GEMM_ACT_*: applied after bias and residual */
    /* wgk_f32_gemm_pb only: B's packed panels stored as float16 (bits), each the weight
     * times WGK_F16_WEIGHT_SCALE (wgk_f16.h: the weights float16 values within
     * +-WGK_F16_WEIGHT_MAX), b unused. */
    const uint16_t *bh;
    /* wgk_f32_gemm_pb only: B's packed panels stored one byte per weight with their columns'
     * scales and zero points (wgk_pack.h, wgk_pack_b_q8: a DequantizeLinear of uint8 / int8
     * weights), each weight dequantized as (q - zp) * scale in float32, b unused. */
    const int8_t *bq;
    /* With bq: the head of scales and zero points every panel shares (one scale and zero
     * point for all columns: wgk_pack_b_q8 with ps = 0 laid it before the panels, and bq is
     * past it), or NULL: each panel has its own. */
    const wgk_q8_panel_head *bq_head;
} wgk_gemm_args;

/* The longest reduction of a narrow B (float16 panels, bh; one-byte panels, bq): its panels
 * are widened, K x 8 floats, into the end of the broadcast buffer when A has 4 rows or more
 * (half of the buffer at most). */
#define WGK_GEMM_NARROW_MAX_K 8192

enum { WGK_GEMM_ACT_NONE = 0, WGK_GEMM_ACT_GELU = 1, WGK_GEMM_ACT_GELU_TANH = 2 };

/* 1 MiB: two 4-row groups of A broadcast for reductions up to K = 8192 (BERT-base's,
 * ViT-B's and GPT-2's FFN output, K = 3072, ran on the slower lane-shuffle rows4 with
 * 256 KiB). Groups per row block stay what 256 KiB holds (WGK_GEMM_SPLAT_BLOCK_FLOATS)
 * where that is two or more: at K = 384 more rows per block were no faster. The broadcast
 * path beats rows4 on the K = 1536 FFN output of MiniLM and BERT-small too, the more in
 * --relaxed-simd builds on wasmtime, where rows4's eight FMA chains wait on their
 * latency. Counted in
 * WGC_STATIC_DATA_BUDGET (src/codegen/codegen.h); pages never touched cost no memory. */
#define WGK_GEMM_SPLAT_FLOATS 262144
#define WGK_GEMM_SPLAT_BLOCK_FLOATS 65536

/* The broadcast buffer of calls whose splat is NULL (kernels/gemm/f32-gemm-splat-buffer.c;
 * a threaded module defines its own, past its stacks). */
float *wgk_gemm_splat_buffer(void);

typedef void (*wgk_gemm_fn)(const wgk_gemm_args *g);

/* SIMD128 register-blocked kernel (MR x 8 tiles, N blocked for cache); only in -msimd128
 * builds. Codegen picks the kernel (wgc_target.simd); conv kernels take it as a pointer. */
void wgk_f32_gemm_4x8__wasmsimd(const wgk_gemm_args *g);
/* Portable scalar kernel, same contract (the --no-simd build and the reference). */
void wgk_f32_gemm_4x4__scalar(const wgk_gemm_args *g);

/* Constant B packed at compile time (wgk_pack_b: column panels of WGK_GEMM_NR, ldb
 * unused) and a row-major A: A(m,k) = a[m*a_m + k] (a_k must be 1, a_panel unused).
 * Each panel is read once, in order, per block of rows: the fast path for fully
 * connected layers (M = 1: the weights stream from memory once). SIMD128 in -msimd128
 * builds, scalar otherwise. With bh (float16 panels, K <= WGK_GEMM_NARROW_MAX_K), fewer than 4
 * rows widen the weights in registers as they are read (half the bytes from memory);
 * more rows widen each panel once per row block into the broadcast buffer. With bq
 * (one-byte panels, K <= WGK_GEMM_NARROW_MAX_K) likewise, each weight (q - zp) * scale in
 * float32 as DequantizeLinear computes it. The sums are the same as on the panels widened
 * beforehand, bit for bit. */
void wgk_f32_gemm_pb(const wgk_gemm_args *g);

/* B computed at run time (row-major, ldb), A row-major as for wgk_f32_gemm_pb: B is packed
 * into packed (wgk_pack_b_size(K, N) floats of scratch), then wgk_f32_gemm_pb runs on it
 * (kernels/gemm/f32-gemm-pack-run.c: attention's Q K^T and P V). A thread's share
 * (wgk_split_gemm) packs its own columns of B, or all of them when it takes rows, into its
 * own scratch (K x N copies against M x K x N / n multiply-adds). */
void wgk_f32_gemm_pack_run(const wgk_gemm_args *g, float *packed);

/* dst[c*rows + r] = src[r*cols + c]: dst (cols x rows) is the transpose of src (rows x cols).
 * Used to give a non-constant transposed B its row-major layout at run time. */
void wgk_f32_transpose2d(const float *src, float *dst, int rows, int cols);

#endif
