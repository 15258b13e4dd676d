/*
 * wgk_qweight.h: matrix products on weights quantized block-wise to 4 or 8 bits, kept at
 * that size in the module and widened in registers: onnxruntime's MatMulNBits; the rows
 * GatherBlockQuantized gathers from such a table (wgk_f32_qbw_gather), and MatMulBnb4's
 * product on 4-bit codebook weights (wgk_f32_bnb4_gemm), at the end.
 *
 *   Y(m, n) = bias(n) + sum_k A(m, k) W(k, n),   W(k, n) = (q(n, k) - zp(n, k/blk)) * s(n, k/blk)
 *
 * The weights are stored as the model gives them (MatMulNBits' B, nothing repacked):
 * column n's nblk = ceil(K / blk) blocks of blob = blk * bits / 8 bytes, one after the
 * other, at b + n * nblk * blob. Within a block, 8-bit weights are one byte each in k
 * order; 4-bit weights two per byte, the element of even k in the low nibble. The last
 * block of a column is padded to blk elements (their values are never used: A is taken as
 * 0 there). Scales: scales[n * nblk + j], float32. Zero points, one per block:
 *   zp    packed as B is (bits wide, low nibble first): column n's at zp + n * zstride,
 *         zstride = ceil(nblk * bits / 8) bytes (wgk_qbw_zstride);
 *   zpf   float32, zpf[n * nblk + j] (MatMulNBits' zero points of the scales' type);
 *   both NULL: 2^(bits-1), the format's middle (8, 128).
 *
 * quant_a (MatMulNBits' accuracy_level 4, what onnxruntime's CPU kernels compute there,
 * MLAS's CompInt8): each row of A is quantized per block of blk, as MLAS does it: amax =
 * max |a| over the block's elements, sa = amax / 127, q = round-half-even(a * (127 / amax))
 * (0 when amax is 0), and Y(m, n) = bias(n) + sum_j sa(m, j) s(n, j) sum_k q(m, k) (w(n, k) -
 * zp(n, j)): the sums of q times the stored weights exact in int32, the zero points' share
 * in float32 (as MLAS takes it). Integer zero points only (onnxruntime computes in float32
 * beside float ones). Without quant_a, float32.
 *
 * How (one entry point; the path is chosen by M at run time, M often being a symbol):
 *   - The weights are widened in registers straight from 16-byte chunks: as i32 lanes
 *     (float path: lane i of a 4-bit chunk holds k = 8i .. 8i+7 in its nibbles; the j-th
 *     weight of every lane is the lane masked to its nibble, q 2^4j, converted, against
 *     the row's element times 2^-4j, the top one shifted down) or as i16 lanes (quant_a:
 *     i32x4.dot_i16x8_s). Each row of A is first laid out in that order (work), so nothing
 *     shuffles the weights. A block's products of the weights as stored are summed, then
 *     scaled; the zero points' share, sum_j s_j z_j sum_k a_k over the block, is taken once
 *     per column from the row's block sums (as MLAS takes it with quant_a).
 *   - GEMV, M < WGK_QBW_ROWS_M: each row against four columns at a time (four streams of
 *     weights), every weight byte read once per row.
 *   - Rows, M >= WGK_QBW_ROWS_M with quant_a: rows quantized WGK_QBW_QROWS at a time,
 *     then four rows against each column of a column block (weights in L2 for every group
 *     of rows), each chunk widened once for the four. A row's result is the same whatever
 *     M: its sums are taken in the same order as the GEMV's.
 *   - Panels, M >= WGK_QBW_ROWS_M without quant_a: the weights dequantized as onnxruntime's
 *     CPU kernel does it, W(k, n) = (q - zp) * s in float32, into the float GEMM's panels of
 *     8 columns ([k][8], as wgk_pack_b lays them out) in work, a block of kc x nc at a
 *     time (wgk_qbw_panel_kc, wgk_qbw_panel_nc), each weight once per call; then every
 *     group of 4 rows of A, broadcast, through the float GEMM's micro-kernel
 *     (wgk_f32_conv_ukernel_splat) over the block's panels, C summing the k blocks. The
 *     widening is 1/M of the work, not 1/4 as four rows against each column would make
 *     it. A row's sums are taken in another order than the GEMV's (by k block, then k).
 * The scalar build (--no-simd) computes the same block sums in plain loops (the zero
 * point subtracted from each weight), row by row, whatever M.
 *
 * work: wgk_qbw_work_bytes(M, K, blk, quant_a) bytes, 16-byte aligned, the most any
 * M' <= M needs (a module plans it for a symbolic M's maximum).
 *
 *     wgk_f32_qbw_gemm(&(wgk_qbw_args){.M = 1, .N = 4096, .K = 4096, .bits = 4, .blk = 32,
 *         .a = x, .lda = 4096, .b = w, .scales = s, .zp = z, .c = y, .ldc = 4096, .work = buf});
 */
#ifndef WGK_QWEIGHT_H
#define WGK_QWEIGHT_H

#include "wgk_base.h"

/* Rows of A from which the row path (quant_a) or the panel path (float) runs (below: the
 * GEMV, a row at a time), and how many rows the row path quantizes at a time. */
#define WGK_QBW_ROWS_M 3
#define WGK_QBW_QROWS 64
/* The panel path's largest k block (the broadcast rows of a group, 16 floats per k, stay
 * in L1) and the floats of a block of panels (kept in L2 while the groups of rows pass). */
#define WGK_QBW_PANEL_KC 512
#define WGK_QBW_PANEL_FLOATS 65536
/* The largest block (onnxruntime's CPU kernels take 16 to 256 too). */
#define WGK_QBW_MAX_BLOCK 256

typedef struct wgk_qbw_args {
    int M, N, K;
    int bits, blk;          /* 4 or 8; a power of two in [16, WGK_QBW_MAX_BLOCK] */
    const float *a;         /* A(m, k) = a[m * lda + k] */
    int lda;
    const uint8_t *b;       /* the blocks, above */
    const float *scales;    /* [N][nblk] */
    const uint8_t *zp;      /* packed zero points or NULL */
    const float *zpf;       /* float zero points or NULL */
    const float *bias;      /* [N] or NULL */
    float *c;               /* Y(m, n) = c[m * ldc + n] */
    int ldc;
    int quant_a;            /* A quantized to int8 per block (accuracy_level 4) */
    void *work;             /* wgk_qbw_work_bytes */
} wgk_qbw_args;

static inline int wgk_qbw_nblk(int K, int blk) { return (K + blk - 1) / blk; }
static inline int wgk_qbw_blob(int bits, int blk) { return blk * bits / 8; }
static inline int wgk_qbw_zstride(int bits, int nblk) { return (nblk * bits + 7) / 8; }

/* The panel path's k per block: K in the fewest blocks of at most WGK_QBW_PANEL_KC, each
 * a whole number of chunks (32) and quantization blocks (blk divides WGK_QBW_PANEL_KC). */
static inline int wgk_qbw_panel_kc(int K, int blk)
{
    const int unit = blk > 32 ? blk : 32, blocks = (K + WGK_QBW_PANEL_KC - 1) / WGK_QBW_PANEL_KC;
    const int kc = (K + blocks - 1) / blocks;
    return (kc + unit - 1) / unit * unit;
}

/* Columns per block of panels of kc rows (a multiple of 8). */
static inline int wgk_qbw_panel_nc(int kc)
{
    const int nc = WGK_QBW_PANEL_FLOATS / kc / 8 * 8;
    return nc < 8 ? 8 : nc;
}

/* Bytes of work the product of M rows needs (the most any M' <= M needs). */
static inline size_t wgk_qbw_work_bytes(int M, int K, int blk, int quant_a)
{
    const size_t nblk = (size_t)wgk_qbw_nblk(K, blk), Kp = nblk * (size_t)blk;
    if (M <= 0)
        return 0;
    if (quant_a) { /* rows of int16 (Kp rounded up to 32), their block scales and sums; a
                    * row being quantized (float and int16) */
        const size_t rows = (size_t)(M < WGK_QBW_QROWS ? (M + 3) / 4 * 4 : WGK_QBW_QROWS);
        const size_t Kq = (Kp + 31) / 32 * 32;
        return rows * ((2 * Kq + 15) / 16 * 16 + 2 * ((4 * nblk + 15) / 16 * 16)) + 4 * ((Kp + 3) / 4 * 4) + 2 * Kp;
    }
    /* the GEMV's row of floats in its order (Kp rounded up to 32), its block sums and its
     * top weights' sums; the panel path's broadcast rows (16 floats per k) and block of
     * panels */
    const size_t row_bytes = 4 * ((Kp + 31) / 32 * 32 + 2 * ((nblk + 3) / 4 * 4));
    if (M < WGK_QBW_ROWS_M)
        return row_bytes;
    const size_t kc = (size_t)wgk_qbw_panel_kc(K, blk);
    const size_t panel_bytes = 4 * kc * (16 + (size_t)wgk_qbw_panel_nc((int)kc));
    return row_bytes > panel_bytes ? row_bytes : panel_bytes;
}

/* The product (above). */
void wgk_f32_qbw_gemm(const wgk_qbw_args *g);

/* Gathered rows of a table quantized block-wise (GatherBlockQuantized along axis 0, blocks
 * along the last axis): index i (int32 or int64; negative counts from the end, out of
 * range gives zeros as onnxruntime does) selects table row ix, whose `subrows` sub-rows of
 * `len` elements (the table's middle dims times its last) go to out[i * subrows * len ..],
 * each element (q - zp) * scale in float32. Sub-row r of the table (r = ix * subrows + ...)
 * is its own run of bytes: len bytes (8-bit) or ceil(len / 2) (4-bit, low nibble first;
 * sign: int4, two's complement nibbles), at data + r * those; its nblk = ceil(len / blk)
 * scales at scales + r * nblk, its zero points packed as the data at zp + r *
 * ceil(nblk * bits / 8), or zdefault for all. Returns 0. */
typedef struct wgk_qbw_gather_args {
    const uint8_t *data;
    int rows, subrows, len; /* the table's first dim, sub-rows per row, elements per sub-row */
    int bits, blk, sign;
    const float *scales;
    const uint8_t *zp;
    int zdefault;
    const void *indices;
    int index64, count;
    float *out;
} wgk_qbw_gather_args;

int wgk_f32_qbw_gather(const wgk_qbw_gather_args *g);

/* MatMulBnb4 (transB = 1): Y(m, n) = sum_k A(m, k) book[code(n * K + k)] absmax[(n * K + k) /
 * blk], the codes of W [N, K] flattened, two per byte, the even one in the high nibble
 * (bitsandbytes' order), book the FP4 (quant_type 0) or NF4 (1) codebook. SIMD: the
 * codebook's bytes looked up by i8x16.swizzle, when K is a multiple of blk (each column's
 * codes whole blocks); else, and in the scalar build, element by element. */
typedef struct wgk_bnb4_args {
    int M, N, K, blk, quant_type;
    const float *a;
    int lda;
    const uint8_t *b;      /* ceil(N * K / 2) bytes */
    const float *absmax;   /* ceil(N * K / blk) */
    float *c;
    int ldc;
} wgk_bnb4_args;

extern const float wgk_bnb4_codebook[2][16];
void wgk_f32_bnb4_gemm(const wgk_bnb4_args *g);

#endif
