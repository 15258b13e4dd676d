/*
 * q8-conv2d-winograd-f2x3.c: the exact integer Winograd F(2x2,3x3) convolutions of
 * wgk_qwinograd.h (why they are exact, the layouts, dilation): wgk_q8_conv2d_winograd_f2x3
 * (stride 1, any dilation; 16 positions per tile) and wgk_q8_conv2d_winograd_f2x3s2
 * (stride 2; 25 positions), and their filter transforms. One driver serves both: for
 * each image and block of tiles, V of every input channel (8 tiles at a time, lanes =
 * tiles); then for each 4 output channels, each block of the reduction and each
 * position, the filter pairs broadcast into an L1 buffer and multiplied with V on
 * i32x4.dot_i16x8_s (4 channels x 8 tiles, two channels per product); then the output
 * transform (stride 1: an exact division by 4), bias, and the store (int32, or
 * QLinearConv's requantization). The scalar build runs the same sums in plain loops;
 * both wrap like int32 wherever the reference's sums would.
 */
#include <stdbool.h>

#include "q8-requant.h"
#include "wgk_base.h"
#include "wgk_qgemm.h"
#include "wgk_qwinograd.h"

/* What the driver needs to know of the variant. */
typedef struct variant {
    int npos;   /* positions per tile: 16 (stride 1), 25 (stride 2) */
    int stride; /* 1 or 2: the padded plane's coordinates of output (oh, ow) are stride x it */
    int rows, cols; /* of the padded plane */
} variant;

static variant variant_of(const wgk_q8_winograd_args *a, int stride)
{
    return stride == 1 ? (variant){16, 1, a->OH + 3 * a->DH, a->OW + 3 * a->DW}
                       : (variant){25, 2, 2 * a->OH + 3, 2 * a->OW + 3};
}

/* ---- the filter transforms */

/* Filter (m, c) minus its zero point z as g[9]; channels past C are 0. */
static void filter_of(const void *w, int wdt, int32_t z, int m, int c, int C, int32_t g[9])
{
    const size_t at = ((size_t)m * (size_t)C + (size_t)c) * 9;
    for (int k = 0; k < 9; k++) {
        const int32_t v = wdt == 2 ? ((const uint8_t *)w)[at + (size_t)k] : ((const int8_t *)w)[at + (size_t)k];
        g[k] = c < C ? v - z : 0;
    }
}

/* The 1-D filter transforms of 3 taps: stride 1, G' = 2G of F(2,3), rows [2,0,0],
 * [1,1,1], [1,-1,1], [0,0,2]; stride 2, f = (w1, w1, w0, w0 + w2, w2). */
static inline void g1d_s1(int32_t a, int32_t b, int32_t c, int32_t *o, int os)
{
    o[0] = 2 * a;
    o[os] = a + b + c;
    o[2 * os] = a - b + c;
    o[3 * os] = 2 * c;
}

static inline void g1d_s2(int32_t a, int32_t b, int32_t c, int32_t *o, int os)
{
    o[0] = b;
    o[os] = b;
    o[2 * os] = a;
    o[3 * os] = a + c;
    o[4 * os] = c;
}

/* U = F g F^T (n x n, n = 4 or 5) of filter g. */
static void filter_transform(const int32_t g[9], int n, int32_t *U)
{
    int32_t t[15]; /* F g: n rows of 3 */
    for (int j = 0; j < 3; j++)
        (n == 4 ? g1d_s1 : g1d_s2)(g[j], g[3 + j], g[6 + j], t + j, 3);
    for (int i = 0; i < n; i++)
        (n == 4 ? g1d_s1 : g1d_s2)(t[3 * i], t[3 * i + 1], t[3 * i + 2], U + n * i, 1);
}

/* Both kernels' filters: per channel pair, the n x n transforms of its two filters as
 * int16 halves of int32 (wgk_qwinograd.h); rows past M are zeros. Once per module (or
 * every run past the memory budget), so it avoids the multiplications and the stores a
 * general matrix product would make. */
static void prepare(const void *w, int wdt, const void *wz, int wz_per_m, int M, int C, int n, int32_t *u)
{
    const size_t Mp = ((size_t)M + 3) / 4 * 4, cp = ((size_t)C + 1) / 2, npos = (size_t)(n * n);
    for (size_t xi = 0; xi < npos; xi++)
        for (size_t i = (size_t)M * cp; i < Mp * cp; i++)
            u[xi * Mp * cp + i] = 0;
    for (int m = 0; m < M; m++) {
        const int32_t z = wz ? wgk_qgemm_load8(wz, wdt, wz_per_m ? (size_t)m : 0) : 0;
        for (size_t k = 0; k < cp; k++) {
            int32_t g[9], lo[25], hi[25];
            filter_of(w, wdt, z, m, (int)(2 * k), C, g);
            filter_transform(g, n, lo);
            filter_of(w, wdt, z, m, (int)(2 * k + 1), C, g);
            filter_transform(g, n, hi);
            int32_t *um = u + (size_t)m * cp + k;
            for (size_t xi = 0; xi < npos; xi++)
                um[xi * Mp * cp] =
                    (int32_t)((uint32_t)(uint16_t)(int16_t)lo[xi] | (uint32_t)(uint16_t)(int16_t)hi[xi] << 16);
        }
    }
}

void wgk_q8_winograd_f2x3_prepare_w(const void *w, int wdt, const void *wz, int wz_per_m, int M, int C,
                                    int32_t *u)
{
    prepare(w, wdt, wz, wz_per_m, M, C, 4, u);
}

void wgk_q8_winograd_f2x3s2_prepare_w(const void *w, int wdt, const void *wz, int wz_per_m, int M, int C,
                                      int32_t *u)
{
    prepare(w, wdt, wz, wz_per_m, M, C, 5, u);
}

/* ---- the block's buffers: where each value lives */

/* V: [group of 8 tiles][position xi][channel pair][8 tiles x 2 channels] int16. A
 * position's pairs are padded by one, so that the positions the input transform writes
 * side by side do not fall into one L1 set (a power-of-two stride would). */
static inline size_t v_xi_stride(int cp)
{
    return (size_t)(cp + 1) * 16;
}

static inline size_t v_at(int cp, int npos, int g, int xi, int kk)
{
    return ((size_t)g * (size_t)npos + (size_t)xi) * v_xi_stride(cp) + (size_t)kk * 16;
}

/* The products of 4 output channels, mb: [channel][4 tiles][xi][4 tiles' lanes] int32, so
 * that the output transform reads a tile quad's positions contiguously; the partial sums
 * over earlier reduction blocks, p: [channel][4 tiles][output][lanes]. */
static inline size_t mb_at(int ntp, int npos, int r, int t, int xi)
{
    return (((size_t)r * (size_t)(ntp / 4) + (size_t)(t / 4)) * (size_t)npos + (size_t)xi) * 4 + (size_t)(t % 4);
}

static inline size_t p_at(int ntp, int r, int t, int i)
{
    return (((size_t)r * (size_t)(ntp / 4) + (size_t)(t / 4)) * 4 + (size_t)i) * 4 + (size_t)(t % 4);
}

/* ---- tiles */

/* Origins (oh0, ow0) of tiles t0 .. t0 + nt - 1 (wgk_qwinograd.h numbers them: residue
 * classes of the dilations, then rows; the stride-2 kernel's DH = DW = 1) into
 * org[2k], org[2k + 1]. */
static void tile_origins(const wgk_q8_winograd_args *a, int t0, int nt, int32_t *org)
{
    int first = 0, k = 0; /* first: the number of the class's first tile */
    for (int ra = 0; ra < a->DH && ra < a->OH && k < nt; ra++)
        for (int rb = 0; rb < a->DW && rb < a->OW && k < nt; rb++) {
            const int th = (wgk_q8_winograd_class_size(a->OH, a->DH, ra) + 1) / 2;
            const int tw = (wgk_q8_winograd_class_size(a->OW, a->DW, rb) + 1) / 2;
            const int count = th * tw;
            for (int q = t0 + k - first; q >= 0 && q < count && k < nt; q++, k++) {
                org[2 * k] = ra + 2 * a->DH * (q / tw);
                org[2 * k + 1] = rb + 2 * a->DW * (q % tw);
            }
            first += count;
        }
}

/* The sink of one output channel's finished sums (q8-requant.h). */
typedef wgk_q8_sink sink;

static void sink_of(const wgk_q8_winograd_args *a, int n, int m, sink *k)
{
    const size_t plane = (size_t)a->OH * a->OW, at = ((size_t)n * a->M + (size_t)m) * plane;
    *k = wgk_q8_sink_of(a->y, a->yq, a->ydt, a->zy, a->sx, a->sw, a->sw_per_m, a->sy, &a->deq, m, at);
}

/* Output (oh, ow) of a channel: v stored, or requantized; nothing outside the output. */
static void put(const wgk_q8_winograd_args *a, sink *k, int oh, int ow, int32_t v)
{
    if (oh >= a->OH || ow >= a->OW)
        return;
    wgk_q8_sink_put(k, (size_t)oh * a->OW + (size_t)ow, v);
}

#ifdef __wasm_simd128__
/* ---- SIMD128 */

typedef v128_t splat_t; /* one filter pair broadcast to the 4 lanes */

/* B^T d B of stride 1 on 8 tiles at once (lane k = tile k): d[4s + t] holds input row s,
 * column t; v[xi] out. */
static inline void in_transform_s1(const v128_t *d, v128_t *v)
{
    v128_t t[16];
    for (int j = 0; j < 4; j++) {
        t[j] = wasm_i16x8_sub(d[j], d[8 + j]);
        t[4 + j] = wasm_i16x8_add(d[4 + j], d[8 + j]);
        t[8 + j] = wasm_i16x8_sub(d[8 + j], d[4 + j]);
        t[12 + j] = wasm_i16x8_sub(d[4 + j], d[12 + j]);
    }
    for (int i = 0; i < 4; i++) {
        const v128_t *r = t + 4 * i;
        v[4 * i] = wasm_i16x8_sub(r[0], r[2]);
        v[4 * i + 1] = wasm_i16x8_add(r[1], r[2]);
        v[4 * i + 2] = wasm_i16x8_sub(r[2], r[1]);
        v[4 * i + 3] = wasm_i16x8_sub(r[1], r[3]);
    }
}

/* The stride-2 transform of 5 window values (wgk_qwinograd.h): (d1, d3, d0 - d2, d2, d4 - d2). */
#define T5(d0, d1, d2, d3, d4, o, os)                                                                  \
    do {                                                                                               \
        (o)[0] = (d1);                                                                                 \
        (o)[os] = (d3);                                                                                \
        (o)[2 * (os)] = wasm_i16x8_sub((d0), (d2));                                                    \
        (o)[3 * (os)] = (d2);                                                                          \
        (o)[4 * (os)] = wasm_i16x8_sub((d4), (d2));                                                    \
    } while (0)

/* The stride-2 transform on 8 tiles: d[5s + q] input row s, column q; v[5i + j] out. */
static inline void in_transform_s2(const v128_t *d, v128_t *v)
{
    v128_t t[25];
    for (int j = 0; j < 5; j++)
        T5(d[j], d[5 + j], d[10 + j], d[15 + j], d[20 + j], t + j, 5);
    for (int i = 0; i < 5; i++) {
        const v128_t *r = t + 5 * i;
        T5(r[0], r[1], r[2], r[3], r[4], v + 5 * i, 1);
    }
}
#undef T5

/* The image with its zero point around it, as the gathers read it: row R, column
 * WGK_Q8_WINO_FRONT + C of each channel's padded plane (vr.rows rows of ws bytes) is
 * input (R - PT, C - PL); the pads and the slack hold the zero point's byte, which
 * widens to 0. So no gather tests a bound. */
static void pad_image(const wgk_q8_winograd_args *a, const variant *vr, const uint8_t *x, int32_t z, uint8_t *xp,
                      size_t ws)
{
    const int cols = a->W < vr->cols - a->PL ? a->W : vr->cols - a->PL; /* the input columns tiles read */
    const v128_t zb = wasm_i8x16_splat((int8_t)z);
    for (int c = 0; c < a->C; c++)
        for (int r = 0; r < vr->rows; r++) {
            uint8_t *row = xp + ((size_t)c * (size_t)vr->rows + (size_t)r) * ws;
            for (size_t j = 0; j < ws; j += 16)
                wasm_v128_store(row + j, zb);
            const int ih = r - a->PT;
            if (ih < 0 || ih >= a->H || cols <= 0)
                continue;
            const uint8_t *src = x + ((size_t)c * a->H + (size_t)ih) * a->W;
            uint8_t *dst = row + WGK_Q8_WINO_FRONT + a->PL;
            int j = 0;
            for (; j + 16 <= cols; j += 16)
                wasm_v128_store(dst + j, wasm_v128_load(src + j));
            for (; j < cols; j++)
                dst[j] = src[j];
        }
}

/* Bytes widened to int16 minus the zero point: the low or high 8. */
static inline v128_t widen_lo(v128_t b, bool u8, v128_t vz)
{
    return wasm_i16x8_sub(u8 ? wasm_u16x8_extend_low_u8x16(b) : wasm_i16x8_extend_low_i8x16(b), vz);
}

static inline v128_t widen_hi(v128_t b, bool u8, v128_t vz)
{
    return wasm_i16x8_sub(u8 ? wasm_u16x8_extend_high_u8x16(b) : wasm_i16x8_extend_high_i8x16(b), vz);
}

/* The inputs of 8 tiles side by side in one row of a padded plane, minus the zero point,
 * lane k tile k (p: tile 0's input row 0, column 0), with whole-vector loads and byte
 * shuffles per input row: stride 1 (DW 1 or 2): d[4s + t], tile k's columns 2 DW k
 * further; stride 2: d[5s + q], tile k's columns 4k further. */
static void gather8(const wgk_q8_winograd_args *a, const variant *vr, const uint8_t *p, size_t ws, v128_t vz,
                    v128_t *d)
{
    const bool u8 = a->xdt == 2;
    if (vr->stride == 2) {
        for (int s = 0; s < 5; s++) {
            const uint8_t *r = p + (size_t)s * ws;
            const v128_t l0 = wasm_v128_load(r), l1 = wasm_v128_load(r + 16);
            /* bytes 4k + q of the 32 at r: columns q = 0, 1 | 2, 3; at r + 4: column 4 */
            const v128_t e01 = wasm_i8x16_shuffle(l0, l1, 0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
            const v128_t e23 = wasm_i8x16_shuffle(l0, l1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
            const v128_t e4 = wasm_i8x16_shuffle(wasm_v128_load(r + 4), wasm_v128_load(r + 20), 0, 4, 8, 12, 16, 20,
                                                 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
            d[5 * s] = widen_lo(e01, u8, vz);
            d[5 * s + 1] = widen_hi(e01, u8, vz);
            d[5 * s + 2] = widen_lo(e23, u8, vz);
            d[5 * s + 3] = widen_hi(e23, u8, vz);
            d[5 * s + 4] = widen_lo(e4, u8, vz);
        }
        return;
    }
    for (int s = 0; s < 4; s++) {
        const uint8_t *r = p + (size_t)(s * a->DH) * ws;
        v128_t e0, e2;
        if (a->DW == 1) { /* bytes 2k, 2k + 1 of the load at r: tile k's columns 0, 1; at r + 2: 2, 3 */
            const v128_t l0 = wasm_v128_load(r), l2 = wasm_v128_load(r + 2);
            e0 = wasm_i8x16_shuffle(l0, l0, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
            e2 = wasm_i8x16_shuffle(l2, l2, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
        } else { /* bytes 4k, 4k + 2 of the 32 at r: columns 0, 1; at r + 4: 2, 3 */
            e0 = wasm_i8x16_shuffle(wasm_v128_load(r), wasm_v128_load(r + 16), 0, 4, 8, 12, 16, 20, 24, 28, 2, 6, 10,
                                    14, 18, 22, 26, 30);
            e2 = wasm_i8x16_shuffle(wasm_v128_load(r + 4), wasm_v128_load(r + 20), 0, 4, 8, 12, 16, 20, 24, 28, 2,
                                    6, 10, 14, 18, 22, 26, 30);
        }
        d[4 * s] = widen_lo(e0, u8, vz);
        d[4 * s + 1] = widen_hi(e0, u8, vz);
        d[4 * s + 2] = widen_lo(e2, u8, vz);
        d[4 * s + 3] = widen_hi(e2, u8, vz);
    }
}

/* How a group of n tiles is gathered from a padded plane: where gather8 serves (DW 1 or
 * 2, or stride 2), in runs of tiles side by side in one row, each run as 8 tiles (from
 * the columns of k tiles before its first tile k: the front slack) of which lanes
 * [k, e) are kept; with larger dilations tile by tile. off: offsets in the plane (of
 * each run, or of each tile). */
typedef struct group_plan {
    int n, runs;
    size_t off[8];
    v128_t keep[8]; /* the lanes each run after the first keeps */
} group_plan;

static void plan_group(const wgk_q8_winograd_args *a, const variant *vr, const int32_t *org, int n, size_t ws,
                       group_plan *gp)
{
    const int S = vr->stride;
    gp->n = n;
    gp->runs = 0;
    if (S == 1 && a->DW > 2) {
        for (int k = 0; k < n; k++)
            gp->off[k] = (size_t)org[2 * k] * ws + WGK_Q8_WINO_FRONT + (size_t)org[2 * k + 1];
        return;
    }
    const v128_t lane = wasm_i16x8_make(0, 1, 2, 3, 4, 5, 6, 7);
    for (int k = 0; k < n;) {
        int e = k + 1;
        while (e < n && org[2 * e] == org[2 * k] && org[2 * e + 1] == org[2 * k + 1] + 2 * a->DW * (e - k))
            e++;
        gp->off[gp->runs] = (size_t)(S * org[2 * k]) * ws + WGK_Q8_WINO_FRONT + (size_t)(S * org[2 * k + 1]) -
                            (size_t)(2 * S * a->DW * k);
        gp->keep[gp->runs] = wasm_v128_and(wasm_i16x8_ge(lane, wasm_i16x8_splat((int16_t)k)),
                                           wasm_i16x8_lt(lane, wasm_i16x8_splat((int16_t)e)));
        gp->runs++;
        k = e;
    }
}

/* d of a group of tiles from one channel's padded plane xp (lanes past n: anything). */
static void gather_group(const wgk_q8_winograd_args *a, const variant *vr, const uint8_t *xp, size_t ws, int32_t z,
                         v128_t vz, const group_plan *gp, v128_t *d)
{
    if (vr->stride == 1 && a->DW > 2) {
        int16_t b[16 * 8];
        for (int k = 0; k < 8; k++)
            for (int i = 0; i < 16; i++) {
                const size_t at = gp->off[k] + (size_t)(i / 4 * a->DH) * ws + (size_t)(i % 4 * a->DW);
                b[i * 8 + k] = k < gp->n ? (int16_t)(wgk_qgemm_load8(xp, a->xdt, at) - z) : 0;
            }
        for (int i = 0; i < 16; i++)
            d[i] = wasm_v128_load(b + i * 8);
        return;
    }
    gather8(a, vr, xp + gp->off[0], ws, vz, d);
    for (int r = 1; r < gp->runs; r++) {
        v128_t e[25];
        gather8(a, vr, xp + gp->off[r], ws, vz, e);
        for (int i = 0; i < vr->npos; i++)
            d[i] = wasm_v128_bitselect(e[i], d[i], gp->keep[r]);
    }
}

/* V of channels c0 and c0 + 1 (x0, x1 their padded planes; x1 NULL past C) for a group
 * of tiles: dst[xi * xstride + 2k + h] = V_xi of tile k, channel c0 + h. */
static void transform_pair(const wgk_q8_winograd_args *a, const variant *vr, const uint8_t *x0, const uint8_t *x1,
                           size_t ws, int32_t z, const group_plan *gp, int16_t *dst, size_t xstride)
{
    const v128_t vz = wasm_i16x8_splat((int16_t)z);
    v128_t d[25], v0[25], v1[25];
    gather_group(a, vr, x0, ws, z, vz, gp, d);
    if (vr->stride == 1)
        in_transform_s1(d, v0);
    else
        in_transform_s2(d, v0);
    if (!x1) {
        for (int i = 0; i < vr->npos; i++)
            v1[i] = wasm_i16x8_splat(0);
    } else {
        gather_group(a, vr, x1, ws, z, vz, gp, d);
        if (vr->stride == 1)
            in_transform_s1(d, v1);
        else
            in_transform_s2(d, v1);
    }
    for (int xi = 0; xi < vr->npos; xi++) {
        int16_t *p = dst + (size_t)xi * xstride;
        wasm_v128_store(p, wasm_i16x8_shuffle(v0[xi], v1[xi], 0, 8, 1, 9, 2, 10, 3, 11));
        wasm_v128_store(p + 8, wasm_i16x8_shuffle(v0[xi], v1[xi], 4, 12, 5, 13, 6, 14, 7, 15));
    }
}

/* V of the block (the buffer layout above) from the image's padded planes xp. */
static void input_transform(const wgk_q8_winograd_args *a, const variant *vr, const uint8_t *xp, int32_t z,
                            const int32_t *org, int nt, int16_t *V)
{
    const int cp = (a->C + 1) / 2, ng = (nt + 7) / 8;
    const size_t ws = wgk_q8_winograd_pad_row(vr->cols), pplane = (size_t)vr->rows * ws;
    for (int g = 0; g < ng; g++) {
        group_plan gp;
        plan_group(a, vr, org + 16 * g, nt - 8 * g < 8 ? nt - 8 * g : 8, ws, &gp);
        for (int kk = 0; kk < cp; kk++) {
            const uint8_t *x0 = xp + (size_t)(2 * kk) * pplane;
            const uint8_t *x1 = 2 * kk + 1 < a->C ? x0 + pplane : NULL;
            transform_pair(a, vr, x0, x1, ws, z, &gp, V + v_at(cp, vr->npos, g, 0, kk), v_xi_stride(cp));
        }
    }
}

/* The filter pairs k0 .. k0 + pairs - 1 of 4 output channels (rows of u, cp apart),
 * each broadcast to a vector: sp[4k + r] for pair k0 + k of channel r. */
static void broadcast_filters(const int32_t *u, size_t cp, int pairs, v128_t *sp)
{
    for (int r = 0; r < 4; r++) {
        const int32_t *ur = u + (size_t)r * cp;
        int k = 0;
        for (; k + 4 <= pairs; k += 4) {
            const v128_t v = wasm_v128_load(ur + k);
            sp[4 * k + r] = wasm_i32x4_shuffle(v, v, 0, 0, 0, 0);
            sp[4 * k + 4 + r] = wasm_i32x4_shuffle(v, v, 1, 1, 1, 1);
            sp[4 * k + 8 + r] = wasm_i32x4_shuffle(v, v, 2, 2, 2, 2);
            sp[4 * k + 12 + r] = wasm_i32x4_shuffle(v, v, 3, 3, 3, 3);
        }
        for (; k < pairs; k++)
            sp[4 * k + r] = wasm_i32x4_splat(ur[k]);
    }
}

/* One position's products for 4 output channels over `pairs` channel pairs: groups of 8
 * tiles of V (vx: the first group at the block's first pair, gstride apart) times the
 * broadcast filters sp, into mb (at the position's first tile quad; tile quads qstride
 * apart, channels rstride apart). Plain vector loads only. */
static void multiply(const int16_t *vx, size_t gstride, int groups, const v128_t *sp, int pairs, int32_t *mb,
                     size_t qstride, size_t rstride)
{
    for (int g = 0; g < groups; g++) {
        const int16_t *xp = vx + (size_t)g * gstride;
        const v128_t *wp = sp;
        v128_t c00 = wasm_i32x4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
               c31 = c00;
#define STEP(X, S)                                                                                 \
    do {                                                                                           \
        const v128_t x0 = wasm_v128_load(X), x1 = wasm_v128_load((X) + 8);                         \
        v128_t w = (S)[0];                                                                         \
        c00 = wasm_i32x4_add(c00, wasm_i32x4_dot_i16x8(x0, w));                                    \
        c01 = wasm_i32x4_add(c01, wasm_i32x4_dot_i16x8(x1, w));                                    \
        w = (S)[1];                                                                                \
        c10 = wasm_i32x4_add(c10, wasm_i32x4_dot_i16x8(x0, w));                                    \
        c11 = wasm_i32x4_add(c11, wasm_i32x4_dot_i16x8(x1, w));                                    \
        w = (S)[2];                                                                                \
        c20 = wasm_i32x4_add(c20, wasm_i32x4_dot_i16x8(x0, w));                                    \
        c21 = wasm_i32x4_add(c21, wasm_i32x4_dot_i16x8(x1, w));                                    \
        w = (S)[3];                                                                                \
        c30 = wasm_i32x4_add(c30, wasm_i32x4_dot_i16x8(x0, w));                                    \
        c31 = wasm_i32x4_add(c31, wasm_i32x4_dot_i16x8(x1, w));                                    \
    } while (0)
        int k = 0;
        for (; k + 2 <= pairs; k += 2, xp += 32, wp += 8) {
            STEP(xp, wp);
            STEP(xp + 16, wp + 4);
        }
        if (k < pairs)
            STEP(xp, wp);
#undef STEP
        int32_t *o = mb + (size_t)(2 * g) * qstride;
        wasm_v128_store(o, c00);
        wasm_v128_store(o + qstride, c01);
        wasm_v128_store(o + rstride, c10);
        wasm_v128_store(o + rstride + qstride, c11);
        wasm_v128_store(o + 2 * rstride, c20);
        wasm_v128_store(o + 2 * rstride + qstride, c21);
        wasm_v128_store(o + 3 * rstride, c30);
        wasm_v128_store(o + 3 * rstride + qstride, c31);
    }
}

/* Whether the 4 tiles at org lie side by side in one row (dilation 1 across) with all
 * their 2 x 8 outputs inside y. */
static bool row_of_4_inside(const wgk_q8_winograd_args *a, const int32_t *org)
{
    if (a->DW != 1)
        return false;
    for (int k = 1; k < 4; k++)
        if (org[2 * k] != org[0] || org[2 * k + 1] != org[1] + 2 * k)
            return false;
    return org[0] + a->DH < a->OH && org[1] + 7 < a->OW;
}

/* The finished outputs of n <= 4 tiles of one channel (o[2u + v]: output (u, v) of tile
 * k in lane k) into the channel's plane. */
static void store4(const wgk_q8_winograd_args *a, sink *k, const int32_t *org, int n, const v128_t o[4])
{
    if (n == 4 && row_of_4_inside(a, org)) {
        for (int u = 0; u < 2; u++) {
            const v128_t lo = wasm_i32x4_shuffle(o[2 * u], o[2 * u + 1], 0, 4, 1, 5);
            const v128_t hi = wasm_i32x4_shuffle(o[2 * u], o[2 * u + 1], 2, 6, 3, 7);
            wgk_q8_sink_store8(k, (size_t)(org[0] + u * a->DH) * a->OW + (size_t)org[1], lo, hi);
        }
        return;
    }
    int32_t v[4][4];
    for (int i = 0; i < 4; i++)
        wasm_v128_store(v[i], o[i]);
    for (int t = 0; t < n; t++)
        for (int i = 0; i < 4; i++)
            put(a, k, org[2 * t] + (i >> 1) * a->DH, org[2 * t + 1] + (i & 1) * a->DW, v[i][t]);
}

/* A tile quad's 4 outputs (o[2u + v]) from its products s[npos]: stride 1, A^T S A / 4
 * (A^T = [1 1 1 0; 0 1 -1 -1]: 4y exactly, so the shift divides); stride 2, A^T S A with
 * A^T = [1 0 1 1 0; 0 1 0 1 1] (y itself). */
static inline void out_transform(const variant *vr, const v128_t *s, v128_t o[4])
{
    if (vr->stride == 1) {
        v128_t q[8];
        for (int j = 0; j < 4; j++) {
            q[j] = wasm_i32x4_add(wasm_i32x4_add(s[j], s[4 + j]), s[8 + j]);
            q[4 + j] = wasm_i32x4_sub(wasm_i32x4_sub(s[4 + j], s[8 + j]), s[12 + j]);
        }
        for (int u = 0; u < 2; u++) {
            const v128_t *qu = q + 4 * u;
            o[2 * u] = wasm_i32x4_shr(wasm_i32x4_add(wasm_i32x4_add(qu[0], qu[1]), qu[2]), 2);
            o[2 * u + 1] = wasm_i32x4_shr(wasm_i32x4_sub(wasm_i32x4_sub(qu[1], qu[2]), qu[3]), 2);
        }
        return;
    }
    v128_t q[10];
    for (int j = 0; j < 5; j++) {
        q[j] = wasm_i32x4_add(wasm_i32x4_add(s[j], s[10 + j]), s[15 + j]);
        q[5 + j] = wasm_i32x4_add(wasm_i32x4_add(s[5 + j], s[15 + j]), s[20 + j]);
    }
    for (int u = 0; u < 2; u++) {
        const v128_t *qu = q + 5 * u;
        o[2 * u] = wasm_i32x4_add(wasm_i32x4_add(qu[0], qu[2]), qu[3]);
        o[2 * u + 1] = wasm_i32x4_add(wasm_i32x4_add(qu[1], qu[3]), qu[4]);
    }
}

/* The output transform of 4 channels (rows of them) over the block's tiles, from the
 * products mb: each reduction block's y, added to the bias (first block) or to the
 * partial sums p of the earlier blocks; stored in the output after the last block, else
 * kept in p. */
static void output_transform(const wgk_q8_winograd_args *a, const variant *vr, int n, int m0, int rows,
                             const int32_t *org, int nt, int ntp, const int32_t *mb, int32_t *p, bool first, bool last)
{
    for (int r = 0; r < rows; r++) {
        sink k = {0};
        if (last)
            sink_of(a, n, m0 + r, &k);
        const v128_t bias = wasm_i32x4_splat(first && a->bias ? a->bias[m0 + r] : 0);
        for (int t = 0; t < nt; t += 4) {
            v128_t s[25], o[4];
            const int32_t *ms = mb + mb_at(ntp, vr->npos, r, t, 0);
            int32_t *pt = p + p_at(ntp, r, t, 0);
            for (int xi = 0; xi < vr->npos; xi++)
                s[xi] = wasm_v128_load(ms + 4 * xi);
            out_transform(vr, s, o);
            for (int i = 0; i < 4; i++) {
                o[i] = wasm_i32x4_add(o[i], first ? bias : wasm_v128_load(pt + 4 * i));
                if (!last)
                    wasm_v128_store(pt + 4 * i, o[i]);
            }
            if (last)
                store4(a, &k, org + 2 * t, nt - t < 4 ? nt - t : 4, o);
        }
        if (last)
            wgk_q8_sink_done(&k);
    }
}

/* The products of one block of tiles for 4 output channels and one block of the
 * reduction (pairs k0 .. k0 + pairs - 1): every position into mb. */
static void products(const wgk_q8_winograd_args *a, const variant *vr, const int16_t *V, int ng, int m0, int k0,
                     int pairs, splat_t *sp, int32_t *mb, int ntp)
{
    const int cp = (a->C + 1) / 2;
    const size_t Mp = ((size_t)a->M + 3) / 4 * 4;
    for (int xi = 0; xi < vr->npos; xi++) {
        broadcast_filters(a->u + ((size_t)xi * Mp + (size_t)m0) * (size_t)cp + k0, (size_t)cp, pairs, sp);
        multiply(V + v_at(cp, vr->npos, 0, xi, k0), (size_t)vr->npos * v_xi_stride(cp), ng, sp, pairs,
                 mb + mb_at(ntp, vr->npos, 0, 0, xi), mb_at(ntp, vr->npos, 0, 4, 0), mb_at(ntp, vr->npos, 1, 0, 0));
    }
}
#else
/* ---- scalar: the same sums in plain loops (uint32_t wraps as the SIMD lanes do) */

typedef uint32_t splat_t; /* the broadcast buffer's element (unused here) */

/* Input s, t of the tile at org (output coordinates), x's zero point z subtracted; 0
 * outside the image (the zero point, widened) and for a channel past C (x NULL). */
static int32_t tile_input(const wgk_q8_winograd_args *a, const variant *vr, const uint8_t *x, int32_t z,
                          const int32_t *org, int s, int t)
{
    const int S = vr->stride;
    const int ih = S * org[0] - a->PT + s * (S == 1 ? a->DH : 1), iw = S * org[1] - a->PL + t * (S == 1 ? a->DW : 1);
    if (!x || ih < 0 || ih >= a->H || iw < 0 || iw >= a->W)
        return 0;
    return wgk_qgemm_load8(x, a->xdt, (size_t)ih * a->W + iw) - z;
}

/* The 1-D input transforms: B^T (stride 1, 4 values), (d1, d3, d0 - d2, d2, d4 - d2) (stride 2). */
static void t1d(int n, const int32_t *d, size_t ds, int32_t *o, size_t os)
{
    if (n == 4) {
        o[0] = d[0] - d[2 * ds];
        o[os] = d[ds] + d[2 * ds];
        o[2 * os] = d[2 * ds] - d[ds];
        o[3 * os] = d[ds] - d[3 * ds];
    } else {
        o[0] = d[ds];
        o[os] = d[3 * ds];
        o[2 * os] = d[0] - d[2 * ds];
        o[3 * os] = d[2 * ds];
        o[4 * os] = d[4 * ds] - d[2 * ds];
    }
}

static void input_transform(const wgk_q8_winograd_args *a, const variant *vr, const uint8_t *x, int32_t z,
                            const int32_t *org, int nt, int16_t *V)
{
    /* from x itself, each input's bounds tested (the SIMD build reads a padded copy) */
    const int cp = (a->C + 1) / 2, w = vr->stride == 1 ? 4 : 5;
    const size_t plane = (size_t)a->H * a->W;
    for (int t = 0; t < nt; t++)
        for (int c = 0; c < 2 * cp; c++) {
            const uint8_t *xc = c < a->C ? x + (size_t)c * plane : NULL;
            int32_t d[25], u[25], v[25];
            for (int i = 0; i < w * w; i++)
                d[i] = tile_input(a, vr, xc, z, org + 2 * t, i / w, i % w);
            for (int j = 0; j < w; j++) /* columns: B^T d */
                t1d(w, d + j, (size_t)w, u + j, (size_t)w);
            for (int i = 0; i < w; i++) /* rows: (B^T d) B */
                t1d(w, u + w * i, 1, v + w * i, 1);
            for (int xi = 0; xi < vr->npos; xi++)
                V[v_at(cp, vr->npos, t / 8, xi, c / 2) + 2 * (size_t)(t % 8) + (size_t)(c % 2)] = (int16_t)v[xi];
        }
}

static void products(const wgk_q8_winograd_args *a, const variant *vr, const int16_t *V, int ng, int m0, int k0,
                     int pairs, splat_t *sp, int32_t *mb, int ntp)
{
    (void)sp;
    const int cp = (a->C + 1) / 2;
    const size_t Mp = ((size_t)a->M + 3) / 4 * 4;
    for (int xi = 0; xi < vr->npos; xi++)
        for (int r = 0; r < 4; r++) {
            const int32_t *ur = a->u + ((size_t)xi * Mp + (size_t)(m0 + r)) * (size_t)cp;
            for (int t = 0; t < 8 * ng; t++) {
                uint32_t s = 0;
                for (int k = k0; k < k0 + pairs; k++) {
                    const int16_t *xv = V + v_at(cp, vr->npos, t / 8, xi, k) + 2 * (t % 8);
                    const int32_t w0 = (int16_t)(ur[k] & 0xffff), w1 = (int16_t)((uint32_t)ur[k] >> 16);
                    s += (uint32_t)(xv[0] * w0 + xv[1] * w1);
                }
                mb[mb_at(ntp, vr->npos, r, t, xi)] = (int32_t)s;
            }
        }
}

/* The 1-D output transforms of 4 (A^T = [1 1 1 0; 0 1 -1 -1]) or 5 (A^T = [1 0 1 1 0;
 * 0 1 0 1 1]) values into 2. */
static void a1d(int n, const uint32_t *s, size_t ss, uint32_t *o, size_t os)
{
    if (n == 4) {
        o[0] = s[0] + s[ss] + s[2 * ss];
        o[os] = s[ss] - s[2 * ss] - s[3 * ss];
    } else {
        o[0] = s[0] + s[2 * ss] + s[3 * ss];
        o[os] = s[ss] + s[3 * ss] + s[4 * ss];
    }
}

static void output_transform(const wgk_q8_winograd_args *a, const variant *vr, int n, int m0, int rows,
                             const int32_t *org, int nt, int ntp, const int32_t *mb, int32_t *p, bool first, bool last)
{
    const int w = vr->stride == 1 ? 4 : 5;
    for (int r = 0; r < rows; r++) {
        sink k = {0};
        if (last)
            sink_of(a, n, m0 + r, &k);
        const uint32_t bias = first && a->bias ? (uint32_t)a->bias[m0 + r] : 0u;
        for (int t = 0; t < nt; t++) {
            uint32_t s[25], q[10], o[4];
            for (int xi = 0; xi < vr->npos; xi++)
                s[xi] = (uint32_t)mb[mb_at(ntp, vr->npos, r, t, xi)];
            for (int j = 0; j < w; j++) /* rows of the tile: A^T S */
                a1d(w, s + j, (size_t)w, q + j, (size_t)w);
            for (int u = 0; u < 2; u++) /* columns: (A^T S) A */
                a1d(w, q + w * u, 1, o + 2 * u, 1);
            for (int i = 0; i < 4; i++) {
                /* stride 1: 4y exactly, so the division is exact */
                const uint32_t y = (vr->stride == 1 ? (uint32_t)((int32_t)o[i] / 4) : o[i]) +
                                   (first ? bias : (uint32_t)p[p_at(ntp, r, t, i)]);
                if (!last)
                    p[p_at(ntp, r, t, i)] = (int32_t)y;
                else
                    put(a, &k, org[2 * t] + (i >> 1) * a->DH, org[2 * t + 1] + (i & 1) * a->DW, (int32_t)y);
            }
        }
        if (last)
            wgk_q8_sink_done(&k);
    }
}
#endif

/* ---- the driver */

/* p rounded up to 16 bytes. */
static uint8_t *align16(uint8_t *p)
{
    return (uint8_t *)(((uintptr_t)p + 15) & ~(uintptr_t)15);
}

static void run(const wgk_q8_winograd_args *a, const variant *vr)
{
    const int T = wgk_q8_winograd_tiles(a->OH, a->OW, a->DH, a->DW);
    const int ntp = wgk_q8_winograd_block_tiles(a->C, T, vr->npos), cp = (a->C + 1) / 2;
    const int bp = wgk_q8_winograd_block_pairs(a->C);
    int m_lo, m_hi, t_lo, t_hi;
    if (!wgk_share_ranges(a->share, a->M, T, &m_lo, &m_hi, &t_lo, &t_hi))
        return;
    uint8_t *s = align16((uint8_t *)a->scratch);
    int32_t *org = (int32_t *)s;
    int16_t *V = (int16_t *)align16(s + 8 * (size_t)ntp);
    splat_t *sp = (splat_t *)align16((uint8_t *)V + 4 * (size_t)vr->npos * (size_t)(cp + 1) * (size_t)ntp);
    int32_t *mb = (int32_t *)align16((uint8_t *)sp + 64 * (size_t)bp);
    int32_t *p = (int32_t *)align16((uint8_t *)mb + 16 * (size_t)vr->npos * (size_t)ntp);
    uint8_t *xp = align16((uint8_t *)p + 64 * (size_t)ntp);
    const int32_t z = a->xz ? wgk_qgemm_load8(a->xz, a->xdt, 0) : 0;
    const size_t image = (size_t)a->C * a->H * a->W;
    for (int n = 0; n < a->N; n++) {
        const uint8_t *x = (const uint8_t *)a->x + (size_t)n * image;
#ifdef __wasm_simd128__
        pad_image(a, vr, x, z, xp, wgk_q8_winograd_pad_row(vr->cols));
        x = xp; /* the input transform reads the padded planes */
#else
        (void)xp;
#endif
        for (int tb = t_lo; tb < t_hi; tb += ntp) {
            const int nt = t_hi - tb < ntp ? t_hi - tb : ntp, ng = (nt + 7) / 8;
            tile_origins(a, tb, nt, org);
            input_transform(a, vr, x, z, org, nt, V);
            for (int m0 = m_lo; m0 < m_hi; m0 += 4) {
                const int rows = m_hi - m0 < 4 ? m_hi - m0 : 4;
                for (int k0 = 0; k0 < cp; k0 += bp) {
                    const int pairs = cp - k0 < bp ? cp - k0 : bp;
                    products(a, vr, V, ng, m0, k0, pairs, sp, mb, ntp);
                    output_transform(a, vr, n, m0, rows, org, nt, ntp, mb, p, k0 == 0, k0 + pairs >= cp);
                }
            }
        }
    }
}

void wgk_q8_conv2d_winograd_f2x3(const wgk_q8_winograd_args *a)
{
    const variant vr = variant_of(a, 1);
    run(a, &vr);
}

void wgk_q8_conv2d_winograd_f2x3s2(const wgk_q8_winograd_args *a)
{
    wgk_q8_winograd_args s2 = *a;
    s2.DH = s2.DW = 1; /* tiles of adjacent outputs */
    const variant vr = variant_of(&s2, 2);
    run(&s2, &vr);
}
