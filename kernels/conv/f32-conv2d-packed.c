/*
 * f32-conv2d-packed.c: the packed-GEMM convolution driver (wgk_conv_packed.h): per
 * image, group and block of output pixels, pack B (im2col fused) into scratch, then
 * run the micro-kernel over every MR-row weight panel x NR-column B panel. A 1x1
 * stride-1 conv's input already is B (channel rows of H*W pixels) but is packed all the
 * same: reading its rows in place for reductions up to 160 (one cache line and, with 4
 * KiB pages, one page per k) was slower than the copy on every SqueezeNet and
 * ResNet-50 shape tried (paired kernel runs, 2 MiB and 4 KiB pages; model profiles
 * agreed: docs/performance.md).
 */
#include "wgk_conv_packed.h"

#define KC WGK_CONV_KC

/* 1x1, stride 1, no padding: B[k][n] = x[k*HW + n]; panels of NR columns. Panel by
 * panel, so the writes are sequential: row by row, every write went to another panel
 * K*NR floats on, often a multiple of 4 KiB, and the writes fought over a few L1 sets. */
static void pack_direct(const float *x, int K, int HW, int nb, int ncols, float *dst)
{
    const int full = ncols / WGK_CONV_NR, tail = ncols % WGK_CONV_NR;
    for (int p = 0; p < full; p++) {
        const float *src = x + nb + p * WGK_CONV_NR;
        float *d = dst + (size_t)p * K * WGK_CONV_NR;
        for (int k = 0; k < K; k++, src += HW, d += WGK_CONV_NR) {
#ifdef __wasm_simd128__
            wasm_v128_store(d, wasm_v128_load(src));
            wasm_v128_store(d + 4, wasm_v128_load(src + 4));
#else
            for (int j = 0; j < WGK_CONV_NR; j++)
                d[j] = src[j];
#endif
        }
    }
    if (tail) {
        const float *src = x + nb + full * WGK_CONV_NR;
        float *d = dst + (size_t)full * K * WGK_CONV_NR;
        for (int k = 0; k < K; k++, src += HW, d += WGK_CONV_NR)
            for (int j = 0; j < WGK_CONV_NR; j++)
                d[j] = j < tail ? src[j] : 0.0f;
    }
}

/* The fused im2col reads B(k, n) = src[kb[k] + off[n]]: kb[k] places tap k = (c, kh, kw)
 * (plane, row, column), off[n] output pixel n = oh*OW + ow, in a source whose row and
 * plane strides are rs and ps and whose origin is input position (-PT, -PL). The source
 * is a zero-padded copy of the group's planes when the conv pads, so no read needs a
 * bounds test, and x itself otherwise. */
typedef struct im2col_src {
    const float *base;
    int rs, ps;
} im2col_src;

static im2col_src im2col_source(const wgk_conv2d_args *a, const float *x, int cg, float *pad, int p_lo, int p_hi)
{
    if (!wgk_conv_packed_pad_floats(a))
        return (im2col_src){x, a->W, a->H * a->W};
    /* Only the padded rows that output pixels [p_lo, p_hi) read (a thread's share in a
     * pixel split: the stem conv of PP-OCRv4 det copied all 3 x 642 x 642 floats on every
     * thread); the origin stays where row 0 would be, so offsets are the whole call's. */
    const int wp = wgk_conv_span(a->OW, a->SW, a->KW, a->DW);
    const int r0 = p_lo / a->OW * a->SH, r1 = wgk_conv_span((p_hi - 1) / a->OW + 1, a->SH, a->KH, a->DH);
    wgk_pad_planes(x, cg, a->H, a->W, a->PT - r0, a->PL, r1 - r0, wp, pad);
    return (im2col_src){pad - (ptrdiff_t)r0 * wp, wp, (r1 - r0) * wp};
}

/* kb[k] for every tap k = (c*KH + kh)*KW + kw of a group. */
static void im2col_taps(const wgk_conv2d_args *a, int cg, const im2col_src *src, int32_t *kb)
{
    int k = 0;
    for (int c = 0; c < cg; c++)
        for (int kh = 0; kh < a->KH; kh++)
            for (int kw = 0; kw < a->KW; kw++)
                kb[k++] = c * src->ps + kh * a->DH * src->rs + kw * a->DW;
}

/* How a panel of NR block columns is gathered: PANEL_GATHER lane by lane through off[];
 * PANEL_CONTIG one run of the same output row (stride SW) from `first`; PANEL_SPLIT + s
 * (stride 1) the end of one output row (lanes [0, s), from `first`) and the start of
 * the next (lanes [s, NR), from `second`). */
enum { PANEL_GATHER, PANEL_CONTIG, PANEL_SPLIT };

/* off[j] for the block's columns j (n = nb + j) and each panel's {kind, first, second}. */
static void im2col_columns(const wgk_conv2d_args *a, const im2col_src *src, int nb, int ncols,
                           int32_t *off, int32_t *info)
{
    const int OW = a->OW, rstep = a->SH * src->rs;
    int oh = nb / OW, ow = nb - oh * OW;
    for (int j = 0; j < ncols; j++) {
        off[j] = oh * rstep + ow * a->SW;
        if (++ow == OW) {
            ow = 0;
            oh++;
        }
    }
    const int panels = (ncols + WGK_CONV_NR - 1) / WGK_CONV_NR;
    for (int p = 0; p < panels; p++) {
        const int j = p * WGK_CONV_NR, ow0 = (nb + j) % OW, left = OW - ow0; /* columns left in the row */
        int32_t *in = info + 3 * p;
        in[0] = PANEL_GATHER;
        in[1] = off[j];
        in[2] = 0;
        if (j + WGK_CONV_NR > ncols)
            continue;
        if (left >= WGK_CONV_NR) {
            if (a->SW <= 2)
                in[0] = PANEL_CONTIG;
        } else if (a->SW == 1 && WGK_CONV_NR - left <= OW) {
            in[0] = PANEL_SPLIT + left;
            in[2] = off[j + left];
        }
    }
}

#ifdef __wasm_simd128__
/* One panel of im2col rows, K rows of NR floats. Every load stays inside the source
 * planes: a split panel reads up to 3 floats past the end of its first row (into the
 * next row, which the panel also reads) and up to 3 before the start of its second. */
static void pack_panel_simd(int kind, int sw, const float *first, const float *second, const int32_t *kb,
                            int K, float *d)
{
    if (kind == PANEL_CONTIG && sw == 1) {
        for (int k = 0; k < K; k++, d += WGK_CONV_NR) {
            const float *s = first + kb[k];
            const v128_t v0 = wasm_v128_load(s), v1 = wasm_v128_load(s + 4);
            wasm_v128_store(d, v0);
            wasm_v128_store(d + 4, v1);
        }
    } else if (kind == PANEL_CONTIG) { /* stride 2: the even lanes of s[0 .. 14] */
        for (int k = 0; k < K; k++, d += WGK_CONV_NR) {
            const float *s = first + kb[k];
            const v128_t v0 = wasm_v128_load(s), v1 = wasm_v128_load(s + 4);
            const v128_t v2 = wasm_v128_load(s + 8), v3 = wasm_v128_load(s + 11);
            wasm_v128_store(d, wasm_i32x4_shuffle(v0, v1, 0, 2, 4, 6));
            wasm_v128_store(d + 4, wasm_i32x4_shuffle(v2, v3, 0, 2, 5, 7));
        }
    } else if (kind - PANEL_SPLIT < 4) {
        /* Overlapping stores, later ones win: [0, 4) from the first row (lanes past s
         * are overwritten), [s, s + 4) and [4, 8) from the second. */
        const int s = kind - PANEL_SPLIT;
        for (int k = 0; k < K; k++, d += WGK_CONV_NR) {
            const float *s1 = first + kb[k], *s2 = second + kb[k];
            wasm_v128_store(d, wasm_v128_load(s1));
            wasm_v128_store(d + s, wasm_v128_load(s2));
            wasm_v128_store(d + 4, wasm_v128_load(s2 + 4 - s));
        }
    } else {
        /* s >= 4: [4, 8) from the second row first, then [0, 4) and [s - 4, s) from the
         * first, overwriting the lanes [4, s) the second row's store filled wrongly. */
        const int s = kind - PANEL_SPLIT;
        for (int k = 0; k < K; k++, d += WGK_CONV_NR) {
            const float *s1 = first + kb[k], *s2 = second + kb[k];
            wasm_v128_store(d + 4, wasm_v128_load(s2 + 4 - s));
            wasm_v128_store(d, wasm_v128_load(s1));
            wasm_v128_store(d + s - 4, wasm_v128_load(s1 + s - 4));
        }
    }
}
#endif

/* The block's im2col, panel by panel: panel p holds dst[p*K*NR + k*NR + j] =
 * B(k, nb + p*NR + j), zero past ncols. Panel-major order writes the packed block
 * sequentially. */
static void pack_im2col(const wgk_conv2d_args *a, const im2col_src *src, const int32_t *kb, int K,
                        int nb, int ncols, float *dst, int32_t *off, int32_t *info)
{
    im2col_columns(a, src, nb, ncols, off, info);
    const int panels = (ncols + WGK_CONV_NR - 1) / WGK_CONV_NR;
    for (int p = 0; p < panels; p++) {
        float *d = dst + (size_t)p * K * WGK_CONV_NR;
#ifdef __wasm_simd128__
        const int32_t *in = info + 3 * p;
        if (in[0] != PANEL_GATHER) {
            pack_panel_simd(in[0], a->SW, src->base + in[1], src->base + in[2], kb, K, d);
            continue;
        }
#endif
        const int valid = ncols - p * WGK_CONV_NR < WGK_CONV_NR ? ncols - p * WGK_CONV_NR : WGK_CONV_NR;
        const int32_t *o = off + p * WGK_CONV_NR;
        for (int k = 0; k < K; k++, d += WGK_CONV_NR) {
            const float *s = src->base + kb[k];
            for (int j = 0; j < WGK_CONV_NR; j++)
                d[j] = j < valid ? s[o[j]] : 0.0f;
        }
    }
}

void wgk_f32_conv2d_packed(const wgk_conv2d_args *a)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups, OHW = a->OH * a->OW;
    const int K = cg * a->KH * a->KW;
    const int nc = wgk_conv_block_cols(K, OHW);
    const int direct = a->KH == 1 && a->KW == 1 && a->SH == 1 && a->SW == 1 && a->PT == 0 &&
                       a->PL == 0 && a->OH == a->H && a->OW == a->W;
    const size_t wgroup = wgk_conv_pack_w_group((size_t)mg, (size_t)K);
    const size_t pstride = (size_t)K * WGK_CONV_NR;
    /* Scratch: packed B block, broadcast weights, padded input, offset tables. */
    float *const splat = a->scratch + (size_t)K * nc;
    float *const pad = splat + 4 * WGK_CONV_MR * KC;
    int32_t *const kb = (int32_t *)(pad + wgk_conv_packed_pad_floats(a));
    int32_t *const off = kb + K, *const info = off + nc;
    /* The share (wgk_conv_packed.h): each group's output channels, output pixels. */
    int m_lo, m_hi, p_lo, p_hi;
    if (!wgk_share_ranges(a->share, mg, OHW, &m_lo, &m_hi, &p_lo, &p_hi))
        return;
    for (int n = 0; n < a->N; n++)
        for (int g = 0; g < a->groups; g++) {
            const float *x = a->x + ((size_t)n * a->C + (size_t)g * cg) * a->H * a->W;
            im2col_src src = {x, a->W, a->H * a->W};
            if (!direct) {
                src = im2col_source(a, x, cg, pad, p_lo, p_hi);
                if (n == 0 && g == 0)
                    im2col_taps(a, cg, &src, kb);
            }
            const float *wg = a->w + (size_t)g * wgroup;
            const size_t out = ((size_t)n * a->M + (size_t)g * mg) * OHW;
            for (int nb = p_lo; nb < p_hi; nb += nc) {
                const int ncols = p_hi - nb < nc ? p_hi - nb : nc;
                if (direct)
                    pack_direct(x, K, OHW, nb, ncols, a->scratch);
                else
                    pack_im2col(a, &src, kb, K, nb, ncols, a->scratch, off, info);
                /* k blocks of KC: a weight panel slice (KC x MR) stays in L1 while the
                 * B block streams past it from L2; partial sums go through y. */
                for (int k0 = 0; k0 < K; k0 += KC) {
                    const int kc = K - k0 < KC ? K - k0 : KC;
                    const int first = k0 == 0, last = k0 + kc == K;
                    const float lo = last ? a->min : -__builtin_inff();
                    const float hi = last ? a->max : __builtin_inff();
                    for (int m0 = m_lo; m0 < m_hi; m0 += WGK_CONV_MR) {
                        const float *ap = wg + (size_t)(m0 / WGK_CONV_MR) * K * WGK_CONV_MR +
                                          (size_t)k0 * WGK_CONV_MR;
                        const int mr = mg - m0 < WGK_CONV_MR ? mg - m0 : WGK_CONV_MR;
                        const size_t o = out + (size_t)m0 * OHW + nb;
                        const float *bias = first && a->bias ? a->bias + g * mg + m0 : NULL;
                        const float *res = first && a->res ? a->res + o : NULL;
                        /* Many tiles: broadcast the weight slice once (after the B block). */
                        if (ncols > 2 * WGK_CONV_NR) {
                            wgk_conv_splat_a(ap, kc, splat);
                            wgk_f32_conv_ukernel_splat(mr, ncols, kc, splat, a->scratch + (size_t)k0 * WGK_CONV_NR,
                                                       pstride, a->y + o, OHW, bias, res, OHW, lo, hi, !first);
                        } else {
                            wgk_f32_conv_ukernel(mr, ncols, kc, ap, a->scratch + (size_t)k0 * WGK_CONV_NR, pstride,
                                                 a->y + o, OHW, bias, res, OHW, lo, hi, !first);
                        }
                        /* Post-ops on the rows just finished, while they are in L1. */
                        if (last && a->post)
                            for (int r = 0; r < mr; r++)
                                wgk_f32_post(a->y + o + (size_t)r * OHW, (size_t)ncols, a->post, a->post_scale,
                                             a->post_shift);
                        if (last && a->y2)
                            for (int r = 0; r < mr; r++)
                                wgk_conv2d_out2(a, g * mg + m0 + r, a->y + o + (size_t)r * OHW, (size_t)ncols);
                    }
                }
            }
        }
}
