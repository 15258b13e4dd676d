/*
 * wgk_split.h: how a threaded module (`compile --threads`) divides one node's work among
 * its threads, in one place. Kernels know nothing of threads: a convolution takes the
 * share of its output it is to compute (wgk_share, wgk_base.h), a GEMM is handed the
 * smaller GEMM of its share. The generated code asks this file for thread t's share just
 * before the call, with the rule src/ir/kernels.def names for the kernel (its SPLIT
 * column):
 *
 *     wgk_conv2d_args args = {...};
 *     if (wgk_split_conv2d_packed(&args, WG_PART))
 *         wgk_f32_conv2d_packed(&args);
 *
 * Every rule deals out units the kernel computes independently and in the same order
 * whatever the share (4-row panels, 8-column panels, blocks of tiles, whole groups of
 * channels), so that every output element gets the same bits on any thread count
 * (kernels/tests/test_split.c runs each rule's shares one after another against a whole
 * call). Each is a pure function of the shape and (t, n); it returns 0 when thread t has
 * nothing to do, and then leaves the args alone. Why each rule splits the way it does:
 * docs/performance.md "Threads".
 */
#ifndef WGK_SPLIT_H
#define WGK_SPLIT_H

#include "wgk_base.h"
#include "wgk_conv.h"
#include "wgk_conv_packed.h"
#include "wgk_conv_strassen.h"
#include "wgk_convnd.h"
#include "wgk_gemm.h"
#include "wgk_qgemm.h"
#include "wgk_qweight.h"
#include "wgk_qdwconv.h"
#include "wgk_qwinograd.h"
#include "wgk_winograd.h"

/* Thread t of n (n <= 1: the one thread of a call that is not split). */
typedef struct wgk_part {
    int t, n;
} wgk_part;

/* Thread p.t's units of [0, total) in steps of `unit` (the last unit may be short):
 * ceil(total / unit) units dealt out contiguously, the first (units % n) threads one
 * more. A pure function of (total, unit, n, t). */
static inline void wgk_part_range(wgk_part p, int total, int unit, int *lo, int *hi)
{
    if (p.n <= 1 || total <= 0) {
        *lo = 0;
        *hi = total > 0 ? total : 0;
        return;
    }
    const long units = ((long)total + unit - 1) / unit;
    const long base = units / p.n, extra = units % p.n;
    const long u0 = (long)p.t * base + (p.t < extra ? p.t : extra);
    const long u1 = u0 + base + (p.t < extra ? 1 : 0);
    const long l = u0 * unit, h = u1 * unit;
    *lo = (int)(l < total ? l : total);
    *hi = (int)(h < total ? h : total);
}

/* Whether a kernel's threads split its columns (pixels) rather than its rows (output
 * channels), for the 4x8 kernels that pack `cols` columns in blocks of `block` and
 * broadcast each panel of 4 of their `rows` weight rows once per block (4 floats per row
 * and reduction step): split by rows, every thread packs every block, (n - 1) x cols
 * more packing per reduction step than one thread; by columns, each packs only its own,
 * but the blocks a thread's share cuts add broadcasts of every row. Columns when every
 * thread gets two blocks or more (nothing is then repeated), or when each gets four panels
 * of 8 and the packing saved outweighs the broadcasts added (docs/performance.md
 * "Threads" has the layers that decided it). */
static inline int wgk_part_splits_columns(wgk_part p, int block, int cols, int rows)
{
    if (p.n <= 1 || cols < 32L * p.n)
        return 0;
    if ((long)cols >= 2L * p.n * block)
        return 1;
    const long share = (cols + p.n - 1) / p.n;
    const long added = p.n * ((share + block - 1) / block) - (cols + block - 1) / block;
    return (long)(p.n - 1) * cols > 4L * rows * added;
}

/* *s = channels [m_lo, m_hi) and positions [p_lo, p_hi); 0 when that is empty. */
static inline int wgk_share_set(wgk_share *s, int m_lo, int m_hi, int p_lo, int p_hi)
{
    if (m_lo >= m_hi || p_lo >= p_hi)
        return 0;
    *s = (wgk_share){m_lo, m_hi, p_lo, p_hi};
    return 1;
}

/* ---- GEMM */

/* Thread p's share of C as a GEMM of its own, in place: runs of 4-row groups when there
 * are at least 8 rows per thread, else runs of 8-column panels (b packed by wgk_pack_b
 * when packed_b, row-major otherwise). The kernels sum every column in k order whatever
 * its tile, so each element is computed as in the whole call. */
static inline int wgk_split_gemm_share(wgk_gemm_args *g, wgk_part p, int packed_b)
{
    if (p.n <= 1)
        return 1;
    int lo, hi;
    if (g->M >= 8 * p.n) {
        wgk_part_range(p, g->M, WGK_GEMM_MR, &lo, &hi);
        if (lo >= hi)
            return 0;
        g->M = hi - lo;
        g->a += (ptrdiff_t)(lo / WGK_GEMM_MR) * g->a_panel;
        g->c += (ptrdiff_t)lo * g->ldc;
        g->res = g->res ? g->res + (ptrdiff_t)lo * g->ldr : 0;
        g->bias = g->bias ? g->bias + (ptrdiff_t)lo * g->bias_m : 0;
    } else {
        wgk_part_range(p, g->N, WGK_GEMM_NR, &lo, &hi);
        if (lo >= hi)
            return 0;
        g->N = hi - lo;
        if (g->bh) /* float16 panels (wgk_f32_gemm_pb) */
            g->bh += (ptrdiff_t)(lo / WGK_GEMM_NR) * g->K * WGK_GEMM_NR;
        else if (g->bq) /* one-byte panels, with their heads or one shared (wgk_f32_gemm_pb) */
            g->bq += (ptrdiff_t)(lo / WGK_GEMM_NR) * (ptrdiff_t)wgk_pack_b_q8_stride((size_t)g->K, g->bq_head != 0);
        else
            g->b += packed_b ? (ptrdiff_t)(lo / WGK_GEMM_NR) * g->K * WGK_GEMM_NR : (ptrdiff_t)lo;
        g->c += lo;
        g->res = g->res ? g->res + lo : 0;
        g->bias = g->bias ? g->bias + (ptrdiff_t)lo * g->bias_n : 0;
    }
    return 1;
}

/* wgk_f32_gemm_pb: B in wgk_pack_b panels (float32, float16 in bh, one byte in bq). */
static inline int wgk_split_gemm_packed_b(wgk_gemm_args *g, wgk_part p)
{
    return wgk_split_gemm_share(g, p, 1);
}

/* The kernels that read a row-major B (wgk_f32_gemm_4x8__wasmsimd, _4x4__scalar,
 * wgk_f32_gemm_pack_run, which then packs only its share's columns). */
static inline int wgk_split_gemm(wgk_gemm_args *g, wgk_part p)
{
    return wgk_split_gemm_share(g, p, 0);
}

/* wgk_f32_qbw_gemm (MatMulNBits): runs of 4-column groups (the GEMV's unit), every row;
 * a share is the product with the columns' weights, scales, zero points and bias. Each
 * column is summed as in the whole call. */
static inline int wgk_split_qbw(wgk_qbw_args *g, wgk_part p)
{
    if (p.n <= 1)
        return 1;
    int lo, hi;
    wgk_part_range(p, g->N, 4, &lo, &hi);
    if (lo >= hi)
        return 0;
    const int nblk = wgk_qbw_nblk(g->K, g->blk);
    g->N = hi - lo;
    g->b += (ptrdiff_t)lo * nblk * wgk_qbw_blob(g->bits, g->blk);
    g->scales += (ptrdiff_t)lo * nblk;
    g->zp = g->zp ? g->zp + (ptrdiff_t)lo * wgk_qbw_zstride(g->bits, nblk) : 0;
    g->zpf = g->zpf ? g->zpf + (ptrdiff_t)lo * nblk : 0;
    g->bias = g->bias ? g->bias + lo : 0;
    g->c += lo;
    return 1;
}

/* wgk_q8_gemm (MatMulInteger on a constant B): runs of 8-column panels, every row (each
 * thread widens and broadcasts all of A into its own work); a share is the product with
 * its columns' panels. A product of fewer multiply-adds than WGK_Q8_GEMM_SPLIT_MIN runs
 * whole on thread 0 (a step's barrier costs more). Each column is summed as in the whole
 * call. */
#define WGK_Q8_GEMM_SPLIT_MIN 32768
static inline int wgk_split_q8_gemm(wgk_q8_gemm_args *g, wgk_part p)
{
    if (p.n <= 1)
        return 1;
    if ((long long)g->M * g->N * g->K < WGK_Q8_GEMM_SPLIT_MIN)
        return p.t == 0;
    int lo, hi;
    wgk_part_range(p, g->N, WGK_QGEMM_NR, &lo, &hi);
    if (lo >= hi)
        return 0;
    g->N = hi - lo;
    g->b += (ptrdiff_t)(lo / WGK_QGEMM_NR) * (ptrdiff_t)wgk_qgemm_panel_bytes((size_t)g->K);
    g->c += lo;
    return 1;
}

/* ---- Convolutions (a->share: wgk_conv.h) */

/* The 4x8 conv kernels' rule over `rows` weight rows and `cols` output columns packed in
 * blocks of `block`: the columns in NR panels where that repeats less
 * (wgk_part_splits_columns), else the rows in MR-row weight panels. */
static inline int wgk_split_rows_or_columns(wgk_share *s, wgk_part p, int block, int cols, int rows)
{
    int m_lo = 0, m_hi = rows, p_lo = 0, p_hi = cols;
    if (wgk_part_splits_columns(p, block, cols, rows))
        wgk_part_range(p, cols, WGK_CONV_NR, &p_lo, &p_hi);
    else
        wgk_part_range(p, rows, WGK_CONV_MR, &m_lo, &m_hi);
    return wgk_share_set(s, m_lo, m_hi, p_lo, p_hi);
}

/* wgk_f32_conv2d_packed: output pixels, or each group's output channels. */
static inline int wgk_split_conv2d_packed(wgk_conv2d_args *a, wgk_part p)
{
    const int OHW = a->OH * a->OW;
    const int nc = wgk_conv_block_cols(a->C / a->groups * a->KH * a->KW, OHW);
    return wgk_split_rows_or_columns(&a->share, p, nc, OHW, a->M / a->groups);
}

/* wgk_f32_conv2d_strassen: runs of the first half's pixels (with their partners in the
 * second; each thread packs only its own blocks' operands), or of the half-size weight
 * panels (each row of them feeds output rows m and m + M/2; every thread then packs every
 * block's 7 operands, 7/4 of the input). Where the kernel runs as
 * wgk_f32_conv2d_packed instead (wgk_conv_strassen_in_place), that kernel's rule. */
static inline int wgk_split_conv2d_strassen(wgk_conv2d_args *a, wgk_part p)
{
    if (wgk_conv_strassen_in_place(a))
        return wgk_split_conv2d_packed(a, p);
    const int P = a->OH * a->OW;
    return wgk_split_rows_or_columns(&a->share, p, wgk_conv_strassen_block_cols(a->C, a->M, P), (P + 1) / 2,
                                     a->M / 2);
}

/* wgk_f32_conv2d_fewpix: runs of weight-panel pairs (8 output channels); each thread
 * broadcasts the pixels itself (1/M of the multiplies). */
static inline int wgk_split_conv2d_fewpix(wgk_conv2d_args *a, wgk_part p)
{
    const int pairs = ((a->M + WGK_CONV_MR - 1) / WGK_CONV_MR + 1) / 2;
    int lo, hi;
    wgk_part_range(p, pairs, 1, &lo, &hi);
    return wgk_share_set(&a->share, 8 * lo, 8 * hi < a->M ? 8 * hi : a->M, 0, a->OH * a->OW);
}

/* The depthwise kernels: runs of whole groups (each pads its input plane once). */
static inline int wgk_split_dwconv2d(wgk_conv2d_args *a, wgk_part p)
{
    int lo, hi;
    wgk_part_range(p, a->M, a->M / a->groups, &lo, &hi);
    return wgk_share_set(&a->share, lo, hi, 0, a->OH * a->OW);
}

/* Thread p's share of a Winograd conv (one group's: grouped ones run group by group,
 * wgk_winograd_per_group, each with the same share) of T tiles in blocks of nt, M output
 * channels. With at least 4 panels of WGK_CONV_NR tiles per thread, a range of whole
 * panels, which the thread cuts into blocks of nt of its own, where a tile's sums do not
 * depend on where its block starts (any_start: the 6x6-tile kernels, whose transforms
 * treat every tile alike); the 2x2-output kernels, whose 4-tile rows start from the
 * block's start, take whole blocks  when there are at least 4 per thread,
 * and the panel range only when there are fewer (dealing out whole blocks left PP-OCR
 * det's 160x160 96->24 F(4x4,3x3) convs, 14 blocks the last one short, at 847 tiles
 * against 753). Else every block for output channels in steps of
 * 2 * WGK_CONV_MR (each thread then transforms the block's input itself: the GEMM is the
 * larger part, though PP-OCR det's 80x80 96->24 conv, 4 blocks, gained little from a
 * second thread that way). A pure function of the shape and the thread count. */
static inline int wgk_split_winograd(wgk_conv2d_args *a, wgk_part p, int T, int nt, int any_start)
{
    const int M = a->M / a->groups;
    int t_lo = 0, t_hi = T, m_lo = 0, m_hi = M;
    if (p.n <= 1)
        return wgk_share_set(&a->share, m_lo, m_hi, t_lo, t_hi);
    const int panels = T >= 4 * WGK_CONV_NR * p.n;
    if (!(any_start && panels) && (T + nt - 1) / nt >= 4 * p.n)
        wgk_part_range(p, T, nt, &t_lo, &t_hi);
    else if (panels)
        wgk_part_range(p, T, WGK_CONV_NR, &t_lo, &t_hi);
    else
        wgk_part_range(p, M, 8, &m_lo, &m_hi);
    return wgk_share_set(&a->share, m_lo, m_hi, t_lo, t_hi);
}

/* Tiles of an m x m output tile over a->OH x a->OW. */
static inline int wgk_split_tiles(const wgk_conv2d_args *a, int m)
{
    return ((a->OH + m - 1) / m) * ((a->OW + m - 1) / m);
}

/* The Winograd kernels (a->share: output channels, and tiles in row-major order). */
static inline int wgk_split_winograd_f2x3(wgk_conv2d_args *a, wgk_part p)
{
    const int T = wgk_split_tiles(a, 2);
    return wgk_split_winograd(a, p, T, wgk_winograd_f2x3_block_tiles(a->C / a->groups, a->M / a->groups, T), 0);
}

static inline int wgk_split_winograd_f2x3s2(wgk_conv2d_args *a, wgk_part p)
{
    const int T = wgk_split_tiles(a, 2);
    return wgk_split_winograd(a, p, T, wgk_winograd_f2x3s2_block_tiles(a->C / a->groups, a->M / a->groups, T), 0);
}

/* The 6x6-tile kernels, output tiles of m x m: F(4x4,3x3), F(2x2,5x5), F(3x3,4x4). */
static inline int wgk_split_winograd_tile6(wgk_conv2d_args *a, wgk_part p, int m)
{
    const int T = wgk_split_tiles(a, m);
    return wgk_split_winograd(a, p, T, wgk_winograd_f4x3_block_tiles(a->C / a->groups, a->M / a->groups, T), 1);
}

static inline int wgk_split_winograd_f4x3(wgk_conv2d_args *a, wgk_part p)
{
    return wgk_split_winograd_tile6(a, p, 4);
}

static inline int wgk_split_winograd_f2x5(wgk_conv2d_args *a, wgk_part p)
{
    return wgk_split_winograd_tile6(a, p, 2);
}

static inline int wgk_split_winograd_f3x4(wgk_conv2d_args *a, wgk_part p)
{
    return wgk_split_winograd_tile6(a, p, 3);
}

/* wgk_f32_conv2d_phases: the share of its F(3x3,4x4) conv on the phase planes, which
 * every thread then splits from the input itself (the phase split is repeated). */
static inline int wgk_split_conv2d_phases(wgk_conv2d_args *a, wgk_part p)
{
    wgk_conv2d_args geom = wgk_conv_phases_geom(a);
    if (!wgk_split_winograd_f3x4(&geom, p))
        return 0;
    a->share = geom.share;
    return 1;
}

/* The int8 Winograd kernels (a->share: output channels, and tiles of every image): runs
 * of 8-tile groups when every thread gets 4 of them or more (each thread cuts its run
 * into blocks of its own; a tile's integer sums do not depend on its block), else output
 * channels in 4s (each thread then transforms every block's input itself). */
static inline int wgk_split_q8_winograd_tiles(wgk_q8_winograd_args *a, wgk_part p, int T)
{
    int t_lo = 0, t_hi = T, m_lo = 0, m_hi = a->M;
    if (p.n > 1 && T >= 4 * 8 * p.n)
        wgk_part_range(p, T, 8, &t_lo, &t_hi);
    else if (p.n > 1)
        wgk_part_range(p, a->M, 4, &m_lo, &m_hi);
    return wgk_share_set(&a->share, m_lo, m_hi, t_lo, t_hi);
}

static inline int wgk_split_q8_winograd_f2x3(wgk_q8_winograd_args *a, wgk_part p)
{
    return wgk_split_q8_winograd_tiles(a, p, wgk_q8_winograd_tiles(a->OH, a->OW, a->DH, a->DW));
}

/* wgk_q8_conv2d_winograd_f2x3s2: the same over its tiles (those of dilation 1). */
static inline int wgk_split_q8_winograd_f2x3s2(wgk_q8_winograd_args *a, wgk_part p)
{
    return wgk_split_q8_winograd_tiles(a, p, wgk_q8_winograd_tiles(a->OH, a->OW, 1, 1));
}

/* wgk_q8_dwconv2d: runs of whole groups (each pads its input plane once). */
static inline int wgk_split_q8_dwconv2d(wgk_q8_dwconv_args *a, wgk_part p)
{
    int lo, hi;
    wgk_part_range(p, a->M, a->M / a->C, &lo, &hi);
    return wgk_share_set(&a->share, lo, hi, 0, 1);
}

/* ---- ConvTranspose (a->share: wgk_convnd.h) */

/* wgk_f32_deconv2d in its store form (wgk_deconv2d_stores; the scatter form runs whole on
 * thread 0):
 * a thread stores the input pixels in runs of WGK_DECONV_SUB, each packing only its own
 * (a column's sums do not depend on its block), when every thread gets two blocks of them
 * or more (wgk_part_splits_columns), or when there are fewer than two weight-row panels
 * per thread; else the weight rows (output channel, kh, kw) in whole MR-row panels (the
 * same tiles as on one thread). */
static inline int wgk_split_deconv2d(wgk_deconv2d_args *a, wgk_part p)
{
    const int cg = a->C / a->groups, HW = a->H * a->W, rows = a->M / a->groups * a->KH * a->KW;
    const int nc = wgk_conv_block_cols(cg, HW);
    int r_lo = 0, r_hi = rows, p_lo = 0, p_hi = HW;
    if (!wgk_deconv2d_stores(a->H, a->W, a->OH, a->OW, a->KH, a->KW, a->SH, a->SW, a->DH, a->DW, a->PT, a->PL))
        return (p.n <= 1 || p.t == 0) && wgk_share_set(&a->share, r_lo, r_hi, p_lo, p_hi);
    if (p.n > 1 && !wgk_part_splits_columns(p, nc, HW, rows) && (rows + WGK_CONV_MR - 1) / WGK_CONV_MR >= 2 * p.n)
        wgk_part_range(p, rows, WGK_CONV_MR, &r_lo, &r_hi);
    else
        wgk_part_range(p, HW, WGK_DECONV_SUB, &p_lo, &p_hi);
    return wgk_share_set(&a->share, r_lo, r_hi, p_lo, p_hi);
}

#endif
