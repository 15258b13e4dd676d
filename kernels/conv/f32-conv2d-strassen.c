/*
 * f32-conv2d-strassen.c: 1x1 convolutions by one level of Strassen's algorithm
 * (wgk_conv_strassen.h) on the packed-GEMM micro-kernel. Per image and block of
 * pixels of the first half: pack the 7 products' input operands (a quadrant of X or
 * the sum of two) into NR-column panels in one pass; then for each weight panel (MR
 * rows of each half) and product, broadcast its weight operand (a quadrant of W or the
 * sum of two) and run the micro-kernel, which adds the product into one output block,
 * or two (wgk_f32_conv_ukernel_splat_dual). The products are ordered so that every
 * output block's last one writes it as the first destination: that write applies the
 * bias, residual, clamp and post-ops.
 */
#include "wgk_conv_strassen.h"

#define NR WGK_CONV_NR
#define MR WGK_CONV_MR
#define KC WGK_CONV_KC

/* Quadrants: (row half, column half) = (q >> 1, q & 1). */
enum { Q11, Q12, Q21, Q22 };

typedef struct strassen_product {
    signed char wa, wb, wneg;      /* weight operand: Wa, or Wa + Wb (Wa - Wb when wneg); wb < 0: Wa */
    signed char xa, xb, xneg;      /* input operand, likewise */
    signed char d1, d1_first, d1_last; /* first destination, whether this product is its first / last */
    signed char d2, d2_neg, d2_first;  /* second destination (d2 < 0: none), subtracted when d2_neg */
} strassen_product;

static const strassen_product products[7] = {
    /* M1 = (W11 + W22)(X11 + X22): Y11 = M1, Y22 = M1 */
    {Q11, Q22, 0, Q11, Q22, 0, Q11, 1, 0, Q22, 0, 1},
    /* M2 = (W21 + W22) X11: Y21 = M2, Y22 -= M2 */
    {Q21, Q22, 0, Q11, -1, 0, Q21, 1, 0, Q22, 1, 0},
    /* M3 = W11 (X12 - X22): Y12 = M3, Y22 += M3 */
    {Q11, -1, 0, Q12, Q22, 1, Q12, 1, 0, Q22, 0, 0},
    /* M6 = (W21 - W11)(X11 + X12): Y22 += M6, its last */
    {Q21, Q11, 1, Q11, Q12, 0, Q22, 0, 1, -1, 0, 0},
    /* M5 = (W11 + W12) X22: Y12 += M5, its last; Y11 -= M5 */
    {Q11, Q12, 0, Q22, -1, 0, Q12, 0, 1, Q11, 1, 0},
    /* M4 = W22 (X21 - X11): Y21 += M4, its last; Y11 += M4 */
    {Q22, -1, 0, Q21, Q11, 1, Q21, 0, 1, Q11, 0, 0},
    /* M7 = (W12 - W22)(X21 + X22): Y11 += M7, its last */
    {Q12, Q22, 1, Q21, Q22, 0, Q11, 0, 1, -1, 0, 0},
};

/* The halves of the problem and the current block of pixels [nb, nb + ncl) of the first
 * half; its partner in the second half is [Ph + nb, Ph + nb + ncr). */
typedef struct strassen_geom {
    int K, M, P, Kh, Mh, Ph, nb, ncl, ncr;
} strassen_geom;

/* Columns of quadrant q of X or Y in the block. */
static int valid_cols(const strassen_geom *s, int q)
{
    return q & 1 ? s->ncr : s->ncl;
}

/* The 7 products' input operands for the block, in one pass over its input: operand i
 * (products[i]) at dst + i*ostride, in panels: [(p*Kh + k)*NR + j] = Xa(k, nb + p*NR + j)
 * (+ or - Xb(...)), zero past each quadrant's valid columns. Panel by panel, so the
 * writes are sequential (as pack_direct in f32-conv2d-packed.c). */
static void pack_operands(const float *x, const strassen_geom *s, float *dst, size_t ostride)
{
    const int panels = (s->ncl + NR - 1) / NR;
    const size_t qoff[4] = {(size_t)s->nb, (size_t)s->Ph + s->nb, (size_t)s->Kh * s->P + s->nb,
                            (size_t)s->Kh * s->P + s->Ph + s->nb};
    for (int p = 0; p < panels; p++) {
        const int j0 = p * NR;
        const float *r = x + j0;
        float *d = dst + (size_t)p * s->Kh * NR;
#ifdef __wasm_simd128__
        if (j0 + NR <= s->ncr) { /* every quadrant has the panel's 8 columns */
            for (int k = 0; k < s->Kh; k++, r += s->P, d += NR) {
                v128_t q0[4], q1[4];
                for (int q = 0; q < 4; q++) {
                    q0[q] = wasm_v128_load(r + qoff[q]);
                    q1[q] = wasm_v128_load(r + qoff[q] + 4);
                }
                for (int i = 0; i < 7; i++) {
                    const strassen_product *t = &products[i];
                    v128_t u0 = q0[t->xa], u1 = q1[t->xa];
                    if (t->xb >= 0) {
                        u0 = t->xneg ? wasm_f32x4_sub(u0, q0[t->xb]) : wasm_f32x4_add(u0, q0[t->xb]);
                        u1 = t->xneg ? wasm_f32x4_sub(u1, q1[t->xb]) : wasm_f32x4_add(u1, q1[t->xb]);
                    }
                    wasm_v128_store(d + i * ostride, u0);
                    wasm_v128_store(d + i * ostride + 4, u1);
                }
            }
            continue;
        }
#endif
        for (int k = 0; k < s->Kh; k++, r += s->P, d += NR)
            for (int j = 0; j < NR; j++) {
                float v[4];
                for (int q = 0; q < 4; q++)
                    v[q] = j0 + j < valid_cols(s, q) ? r[qoff[q] + j] : 0.0f;
                for (int i = 0; i < 7; i++) {
                    const strassen_product *t = &products[i];
                    const float w = t->xb >= 0 ? v[t->xb] : 0.0f;
                    d[i * ostride + j] = t->xneg ? v[t->xa] - w : v[t->xa] + w;
                }
            }
    }
}

/* Output block q's first pixel of the current block, rows from m0 of its half. */
static size_t out_offset(const strassen_geom *s, int q, int m0)
{
    return ((size_t)(q >> 1) * s->Mh + (size_t)m0) * s->P + (size_t)(q & 1) * s->Ph + s->nb;
}

/* Packed weight quadrant q from row m0 of its half and column k0 of its half. */
static const float *weight_panel(const float *w, const strassen_geom *s, int q, int m0, int k0)
{
    return w + (((size_t)(q >> 1) * s->Mh + (size_t)m0) / MR * s->K + (size_t)(q & 1) * s->Kh + (size_t)k0) * MR;
}

/* Rows m0 .. m0 + MR of every output block's half, all 7 products (their operands at
 * b + i*ostride): the 4 output blocks' rows stay in L1 while the products add into them.
 * K/2 in slices of KC. The 7 operands (~1.6 MiB) outgrow the 512 KiB L2, so each weight
 * panel streams them from L3; products outside and weight panels inside, which keeps one
 * operand (~200 KiB) in L2 for all the panels, was no faster (ResNet-50 v2 and PP-OCRv4
 * rec, interleaved wasmtime runs: the same minima within the noise). */
static void run_panel(const wgk_conv2d_args *a, const strassen_geom *s, int m0, const float *b, size_t ostride,
                      float *y, const float *res, int res_in_y, float *splat)
{
    const size_t pstride = (size_t)s->Kh * NR;
    for (int i = 0; i < 7; i++) {
        const strassen_product *t = &products[i];
        const size_t o1 = out_offset(s, t->d1, m0);
        const int n1 = valid_cols(s, t->d1);
        for (int k0 = 0; k0 < s->Kh; k0 += KC) {
            const int kc = s->Kh - k0 < KC ? s->Kh - k0 : KC;
            const int first = k0 == 0, last = k0 + kc == s->Kh;
            const int final = t->d1_last && last; /* the output block's epilogue */
            /* A residual that is the output itself is already in the output blocks: the
             * first writes accumulate onto it. */
            const int acc1 = !(t->d1_first && first) || res_in_y;
            const float lo = final ? a->min : -__builtin_inff(), hi = final ? a->max : __builtin_inff();
            const float *wb = t->wb < 0 ? NULL : weight_panel(a->w, s, t->wb, m0, k0);
            wgk_conv_splat_a2(weight_panel(a->w, s, t->wa, m0, k0), wb, t->wneg, kc, splat);
            const float *bias = t->d1_last && first && a->bias ? a->bias + (t->d1 >> 1) * s->Mh + m0 : NULL;
            const float *r = t->d1_last && first && res && !res_in_y ? res + o1 : NULL;
            wgk_conv_dst2 d2 = {0};
            if (t->d2 >= 0)
                d2 = (wgk_conv_dst2){y + out_offset(s, t->d2, m0), valid_cols(s, t->d2), t->d2_neg,
                                     !(t->d2_first && first) || res_in_y};
            wgk_f32_conv_ukernel_splat_dual(MR, n1, kc, splat, b + i * ostride + (size_t)k0 * NR, pstride, y + o1,
                                            s->P, bias, r, s->P, lo, hi, acc1, t->d2 >= 0 ? &d2 : NULL);
            if (final && a->post)
                for (int j = 0; j < MR; j++)
                    wgk_f32_post(y + o1 + (size_t)j * s->P, (size_t)n1, a->post, a->post_scale, a->post_shift);
            if (final && a->y2)
                for (int j = 0; j < MR; j++)
                    wgk_conv2d_out2(a, (t->d1 >> 1) * s->Mh + m0 + j, y + o1 + (size_t)j * s->P, (size_t)n1);
        }
    }
}

void wgk_f32_conv2d_strassen(const wgk_conv2d_args *a)
{
    const size_t P = (size_t)a->OH * a->OW;
    const int res_in_y = a->res == a->y;
    if (wgk_conv_strassen_in_place(a)) {
        wgk_f32_conv2d_packed(a);
        return;
    }
    strassen_geom s = {.K = a->C, .M = a->M, .P = (int)P, .Kh = a->C / 2, .Mh = a->M / 2, .Ph = (int)(P + 1) / 2};
    const int nc = wgk_conv_strassen_block_cols(s.K, s.M, s.P);
    float *const b = a->scratch;
    const size_t ostride = (size_t)s.Kh * nc;
    float *const splat = b + 7 * ostride;
    float *const gathered = splat + 4 * MR * KC;
    /* The share (wgk_conv_strassen.h): the half-size weight rows (each feeds output rows
     * m and m + M/2) and the first half's pixels (with their partners in the second). */
    int m_lo, m_hi, p_lo, p_hi;
    if (!wgk_share_ranges(a->share, s.Mh, s.Ph, &m_lo, &m_hi, &p_lo, &p_hi))
        return;
    for (int n = 0; n < a->N; n++) {
        const float *x = a->x + (size_t)n * a->C * a->H * a->W;
        if (a->SH != 1 || a->SW != 1) { /* strided: gather the pixels the conv reads, K x P */
            for (int k = 0; k < s.K; k++)
                for (int oh = 0; oh < a->OH; oh++) {
                    const float *src = x + ((size_t)k * a->H + (size_t)oh * a->SH) * a->W;
                    float *dst = gathered + ((size_t)k * a->OH + oh) * a->OW;
                    for (int ow = 0; ow < a->OW; ow++)
                        dst[ow] = src[(size_t)ow * a->SW];
                }
            x = gathered;
        }
        float *y = a->y + (size_t)n * a->M * P;
        const float *res = a->res ? a->res + (size_t)n * a->M * P : NULL;
        for (s.nb = p_lo; s.nb < p_hi; s.nb += nc) {
            s.ncl = p_hi - s.nb < nc ? p_hi - s.nb : nc;
            const int right = (int)P - s.Ph - s.nb; /* the second half is one shorter for odd P */
            s.ncr = right < 0 ? 0 : right < s.ncl ? right : s.ncl;
            pack_operands(x, &s, b, ostride);
            for (int m0 = m_lo; m0 < m_hi; m0 += MR)
                run_panel(a, &s, m0, b, ostride, y, res, res_in_y, splat);
        }
    }
}
