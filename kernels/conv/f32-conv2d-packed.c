/*
 * f32-conv2d-packed.c: the packed-GEMM convolution driver (wgk_conv_packed.h): per
 * image, group and block of output pixels, pack B (im2col fused) into scratch, then
 * run the micro-kernel over every MR-row weight panel x NR-column B panel. A 1x1
 * stride-1 conv's input already is B (channel rows of H*W pixels): with a short
 * reduction its whole tiles are read in place and only a last partial tile is packed.
 */
#include "wgk_conv_packed.h"

#define KC WGK_CONV_KC
#define WGK_CONV_INPLACE_K 160

/* First output index o in [0, count) with o*stride + off >= 0, and the end of the run
 * with o*stride + off < limit: the outputs whose input index is inside the image. */
static void valid_range(int count, int stride, int off, int limit, int *lo, int *hi)
{
    int l = off >= 0 ? 0 : (-off + stride - 1) / stride;
    int h = limit - off <= 0 ? 0 : (limit - off + stride - 1) / stride;
    if (h > count)
        h = count;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

/* 1x1, stride 1, no padding: B[k][n] = x[k*HW + n]; panels of NR columns. */
static void pack_direct(const float *x, int K, int HW, int nb, int ncols, float *dst)
{
    const int full = ncols / WGK_CONV_NR, tail = ncols % WGK_CONV_NR;
    const size_t pstride = (size_t)K * WGK_CONV_NR;
    for (int k = 0; k < K; k++) {
        const float *src = x + (size_t)k * HW + nb;
        float *d = dst + (size_t)k * WGK_CONV_NR;
        for (int p = 0; p < full; p++) {
            for (int j = 0; j < WGK_CONV_NR; j++)
                d[j] = src[j];
            src += WGK_CONV_NR;
            d += pstride;
        }
        if (tail) {
            for (int j = 0; j < WGK_CONV_NR; j++)
                d[j] = j < tail ? src[j] : 0.0f;
        }
    }
}

/* dst[i] = src[2*i] for i < n: the even lanes of two loads per four (stride-2 convs). */
static void copy_stride2(float *dst, const float *src, int n)
{
    int i = 0;
#ifdef __wasm_simd128__
    /* The second load reads src[2*i + 4 .. 2*i + 7]; lane 7 is past the last element
     * used (src[2*n - 2]) only when i + 4 == n, so stop one vector early. */
    for (; i + 4 < n; i += 4) {
        const v128_t a = wasm_v128_load(src + 2 * i), b = wasm_v128_load(src + 2 * i + 4);
        wasm_v128_store(dst + i, wasm_i32x4_shuffle(a, b, 0, 2, 4, 6));
    }
#endif
    for (; i < n; i++)
        dst[i] = src[2 * i];
}

/* Row k of the im2col block, contiguous: row[n - nb] = x[c][oh*SH - PT + kh*DH][ow*SW -
 * PL + kw*DW] (0 outside the image) for n = oh*OW + ow in [nb, nb + ncols). */
static void im2col_row(const wgk_conv2d_args *a, const float *xc, int kh, int kw, int nb, int ncols,
                       float *row)
{
    const int OW = a->OW, SW = a->SW, ne = nb + ncols;
    const int offw = kw * a->DW - a->PL;
    int lo, hi;
    valid_range(OW, SW, offw, a->W, &lo, &hi);
    for (int n = nb; n < ne;) {
        const int oh = n / OW, ow0 = n - oh * OW;
        const int ow1 = OW < ow0 + (ne - n) ? OW : ow0 + (ne - n);
        const int ih = oh * a->SH - a->PT + kh * a->DH;
        float *r = row + (n - nb) - ow0; /* r[ow] for ow in [ow0, ow1) */
        if (ih < 0 || ih >= a->H) {
            for (int ow = ow0; ow < ow1; ow++)
                r[ow] = 0.0f;
        } else {
            const float *in = xc + (size_t)ih * a->W + offw;
            /* [ow0, ow1) = zeros before lo, the image, zeros from hi. */
            const int z0 = lo < ow0 ? ow0 : lo > ow1 ? ow1 : lo;
            const int z1 = hi < z0 ? z0 : hi > ow1 ? ow1 : hi;
            for (int ow = ow0; ow < z0; ow++)
                r[ow] = 0.0f;
            if (SW == 1) {
                for (int ow = z0; ow < z1; ow++)
                    r[ow] = in[ow];
            } else if (SW == 2) {
                copy_stride2(r + z0, in + 2 * (ptrdiff_t)z0, z1 - z0);
            } else {
                for (int ow = z0; ow < z1; ow++)
                    r[ow] = in[(ptrdiff_t)ow * SW];
            }
            for (int ow = z1; ow < ow1; ow++)
                r[ow] = 0.0f;
        }
        n += ow1 - ow0;
    }
}

/* General im2col into panels: B[(c*KH + kh)*KW + kw][oh*OW + ow], for n in [nb, nb+ncols).
 * Each row is built contiguously in `row` (ncols rounded up to NR floats, L1-resident:
 * plain copies and zero runs, no per-element panel arithmetic), then dealt out to the
 * panels NR floats at a time. */
static void pack_im2col(const wgk_conv2d_args *a, const float *x, int cg, int K, int nb,
                        int ncols, float *dst, float *row)
{
    const size_t pstride = (size_t)K * WGK_CONV_NR;
    const int panels = (ncols + WGK_CONV_NR - 1) / WGK_CONV_NR;
    for (int j = ncols; j < panels * WGK_CONV_NR; j++)
        row[j] = 0.0f;
    int k = 0;
    for (int c = 0; c < cg; c++)
        for (int kh = 0; kh < a->KH; kh++)
            for (int kw = 0; kw < a->KW; kw++, k++) {
                im2col_row(a, x + (size_t)c * a->H * a->W, kh, kw, nb, ncols, row);
                float *d = dst + (size_t)k * WGK_CONV_NR;
                const float *r = row;
                for (int p = 0; p < panels; p++, d += pstride, r += WGK_CONV_NR)
                    for (int j = 0; j < WGK_CONV_NR; j++)
                        d[j] = r[j];
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
    for (int n = 0; n < a->N; n++)
        for (int g = 0; g < a->groups; g++) {
            const float *x = a->x + ((size_t)n * a->C + (size_t)g * cg) * a->H * a->W;
            const float *wg = a->w + (size_t)g * wgroup;
            const size_t out = ((size_t)n * a->M + (size_t)g * mg) * OHW;
            for (int nb = 0; nb < OHW; nb += nc) {
                const int ncols = OHW - nb < nc ? OHW - nb : nc;
                /* 1x1 stride 1, short reductions: whole tiles read x in place
                 * (wgk_f32_conv_ukernel_splat_rows), only a last partial tile is packed. A
                 * tile touches one cache line per k; past ~128 k those lines and the
                 * broadcast weights no longer share L1 and packing wins (SqueezeNet
                 * profile: K <= 128 layers ~17% faster in place, K = 256 even, K >= 384
                 * up to 20% slower). */
                const int inplace = direct && K <= WGK_CONV_INPLACE_K ? ncols - ncols % WGK_CONV_NR : 0;
                if (direct) {
                    if (inplace < ncols)
                        pack_direct(x, K, OHW, nb + inplace, ncols - inplace, a->scratch);
                } else
                    pack_im2col(a, x, cg, K, nb, ncols, a->scratch, a->scratch + (size_t)K * nc);
                /* k blocks of KC: a weight panel slice (KC x MR) stays in L1 while the
                 * B block streams past it from L2; partial sums go through y. */
                for (int k0 = 0; k0 < K; k0 += KC) {
                    const int kc = K - k0 < KC ? K - k0 : KC;
                    const int first = k0 == 0, last = k0 + kc == K;
                    const float lo = last ? a->min : -__builtin_inff();
                    const float hi = last ? a->max : __builtin_inff();
                    for (int m0 = 0; m0 < mg; m0 += WGK_CONV_MR) {
                        const float *ap = wg + (size_t)(m0 / WGK_CONV_MR) * K * WGK_CONV_MR +
                                          (size_t)k0 * WGK_CONV_MR;
                        const int mr = mg - m0 < WGK_CONV_MR ? mg - m0 : WGK_CONV_MR;
                        const size_t o = out + (size_t)m0 * OHW + nb;
                        const float *bias = first && a->bias ? a->bias + g * mg + m0 : NULL;
                        const float *res = first && a->res ? a->res + o : NULL;
                        /* Many tiles: broadcast the weight slice once (after the B block). */
                        const float *as = NULL;
                        if (inplace || ncols > 2 * WGK_CONV_NR) {
                            float *splat = a->scratch + (size_t)K * nc;
                            wgk_conv_splat_a(ap, kc, splat);
                            as = splat;
                        }
                        if (inplace)
                            wgk_f32_conv_ukernel_splat_rows(mr, inplace, kc, as, x + (size_t)k0 * OHW + nb,
                                                            (size_t)OHW, a->y + o, OHW, bias, res, OHW,
                                                            lo, hi, !first);
                        if (inplace == ncols)
                            continue;
                        const int rest = ncols - inplace;
                        if (as)
                            wgk_f32_conv_ukernel_splat(mr, rest, kc, as, a->scratch + (size_t)k0 * WGK_CONV_NR,
                                                       pstride, a->y + o + inplace, OHW, bias,
                                                       res ? res + inplace : NULL, OHW, lo, hi, !first);
                        else
                            wgk_f32_conv_ukernel(mr, rest, kc, ap, a->scratch + (size_t)k0 * WGK_CONV_NR,
                                                 pstride, a->y + o + inplace, OHW, bias,
                                                 res ? res + inplace : NULL, OHW, lo, hi, !first);
                    }
                }
            }
        }
}
