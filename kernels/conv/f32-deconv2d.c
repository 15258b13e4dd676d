/*
 * f32-deconv2d.c: 2-D ConvTranspose as a packed GEMM + col2im (wgk_convnd.h). Per image,
 * group and block of input pixels: pack the input block as B (1x1 packing, [panel][c][NR]),
 * then per MR-row panel of the [Mg*KH*KW][Cg] weight matrix compute WGK_DECONV_SUB columns
 * at a time into an L1 tile with the conv micro-kernel and scatter the tile into y.
 *
 * Two col2im forms: when the kernel equals the stride (no dilation, no padding, output
 * exactly H*SH x W*SW: every output pixel gets exactly one tap, the PP-OCR 2x2 stride-2
 * upsampler) the tile is written to y with the epilogue directly; otherwise y starts as
 * the bias, taps are accumulated, and a last pass adds the residual and clamps. Only the
 * first form splits among threads (wgk_deconv2d_stores).
 */
#include "wgk_convnd.h"

#define MR WGK_CONV_MR
#define NR WGK_CONV_NR
#define KC WGK_CONV_KC
#define SUB WGK_DECONV_SUB

typedef void (*ukernel_fn)(int, int, int, const float *, const float *, size_t, float *, int,
                           const float *, const float *, int, float, float, int);

static float clampf(float v, float lo, float hi)
{
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* B[c][j] = x[c*HW + nb + j] for j < ncols, in panels of NR columns (last one zero padded). */
static void pack_cols(const float *x, int K, int HW, int nb, int ncols, float *dst)
{
    const size_t pstride = (size_t)K * NR;
    for (int k = 0; k < K; k++) {
        const float *src = x + (size_t)k * HW + nb;
        float *d = dst + (size_t)k * NR;
        int j = 0;
        for (; j + NR <= ncols; j += NR, d += pstride)
            for (int l = 0; l < NR; l++)
                d[l] = src[j + l];
        if (j < ncols)
            for (int l = 0; l < NR; l++)
                d[l] = j + l < ncols ? src[j + l] : 0.0f;
    }
}

/* Accumulates tile rows R0.. (mr of them, R = (m', kh, kw) of group g) for input pixels
 * [p0, p0 + cnt) into image n of y. */
static void scatter_add(const wgk_deconv2d_args *a, const float *tile, int n, int g, int R0,
                        int mr, int p0, int cnt)
{
    const int khw = a->KH * a->KW, mg = a->M / a->groups;
    for (int r = 0; r < mr; r++) {
        const int R = R0 + r, m = g * mg + R / khw, kh = R % khw / a->KW, kw = R % a->KW;
        float *y = a->y + ((size_t)n * a->M + m) * a->OH * a->OW;
        const float *t = tile + (size_t)r * SUB;
        const int offw = kw * a->DW - a->PL;
        int lo, hi;
        wgk_valid_range(a->W, a->SW, offw, a->OW, &lo, &hi);
        for (int p = p0; p < p0 + cnt;) {
            const int ih = p / a->W, iw0 = p - ih * a->W;
            const int iw1 = a->W - iw0 < p0 + cnt - p ? a->W : iw0 + (p0 + cnt - p);
            const int oh = ih * a->SH - a->PT + kh * a->DH;
            if (oh >= 0 && oh < a->OH) {
                float *yr = y + (size_t)oh * a->OW;
                const int j0 = p - p0 - iw0; /* tile column of input pixel (ih, iw): j0 + iw */
                const int b = lo > iw0 ? lo : iw0, e = hi < iw1 ? hi : iw1;
                for (int iw = b; iw < e; iw++)
                    yr[iw * a->SW + offw] += t[j0 + iw];
            }
            p += iw1 - iw0;
        }
    }
}

/* kernel == stride, no padding, no dilation: output pixel (ih*SH + kh, iw*SW + kw) comes
 * from tile row (m', kh, kw) only, so it is written once with bias, residual and clamp.
 * Rows pair up as kw = 0, 1 when KW = 2 (R0 is even): those interleave into one output
 * row, written contiguously. */
static void scatter_store(const wgk_deconv2d_args *a, const float *tile, int n, int g, int R0,
                          int mr, int p0, int cnt)
{
    const int khw = a->KH * a->KW, mg = a->M / a->groups;
    for (int r = 0; r < mr;) {
        const int R = R0 + r, m = g * mg + R / khw, kh = R % khw / a->KW, kw = R % a->KW;
        const size_t plane = ((size_t)n * a->M + m) * a->OH * a->OW;
        float *y = a->y + plane;
        const float *res = a->res ? a->res + plane : NULL;
        const float b = a->bias ? a->bias[m] : 0.0f;
        const int pair = a->KW == 2 && kw == 0 && r + 1 < mr;
        const float *t0 = tile + (size_t)r * SUB, *t1 = t0 + SUB;
        for (int p = p0; p < p0 + cnt;) {
            const int ih = p / a->W, iw0 = p - ih * a->W;
            const int iw1 = a->W - iw0 < p0 + cnt - p ? a->W : iw0 + (p0 + cnt - p);
            const size_t row = (size_t)(ih * a->SH + kh) * a->OW;
            float *yr = y + row;
            const float *rr = res ? res + row : NULL;
            const int j0 = p - p0 - iw0;
            if (pair) {
                int iw = iw0;
#ifdef __wasm_simd128__
                if (!rr) {
                    const v128_t vb = wasm_f32x4_splat(b), lo = wasm_f32x4_splat(a->min);
                    const v128_t hi = wasm_f32x4_splat(a->max);
                    for (; iw + 4 <= iw1; iw += 4) {
                        const v128_t v0 = wasm_f32x4_add(wasm_v128_load(t0 + j0 + iw), vb);
                        const v128_t v1 = wasm_f32x4_add(wasm_v128_load(t1 + j0 + iw), vb);
                        const v128_t e0 = wasm_i32x4_shuffle(v0, v1, 0, 4, 1, 5);
                        const v128_t e1 = wasm_i32x4_shuffle(v0, v1, 2, 6, 3, 7);
                        wasm_v128_store(yr + 2 * iw, wasm_f32x4_pmin(wasm_f32x4_pmax(e0, lo), hi));
                        wasm_v128_store(yr + 2 * iw + 4,
                                        wasm_f32x4_pmin(wasm_f32x4_pmax(e1, lo), hi));
                    }
                }
#endif
                for (; iw < iw1; iw++) {
                    float v0 = t0[j0 + iw] + b, v1 = t1[j0 + iw] + b;
                    if (rr) {
                        v0 += rr[2 * iw];
                        v1 += rr[2 * iw + 1];
                    }
                    yr[2 * iw] = clampf(v0, a->min, a->max);
                    yr[2 * iw + 1] = clampf(v1, a->min, a->max);
                }
            } else {
                for (int iw = iw0; iw < iw1; iw++) {
                    const int o = iw * a->SW + kw;
                    yr[o] = clampf(t0[j0 + iw] + b + (rr ? rr[o] : 0.0f), a->min, a->max);
                }
            }
            p += iw1 - iw0;
        }
        r += pair ? 2 : 1;
    }
}

void wgk_f32_deconv2d(const wgk_deconv2d_args *a)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups, HW = a->H * a->W;
    const int khw = a->KH * a->KW, rows = mg * khw;
    const size_t OHW = (size_t)a->OH * a->OW;
    const int direct = wgk_deconv2d_stores(a->H, a->W, a->OH, a->OW, a->KH, a->KW, a->SH, a->SW,
                                           a->DH, a->DW, a->PT, a->PL);
    const int nc = wgk_conv_block_cols(cg, HW);
    /* The share (wgk_split_deconv2d): weight rows [r_lo, r_hi) in whole MR-row panels,
     * input pixels [p_lo, p_hi) in runs of SUB; the scatter form takes the whole output. */
    int r_lo, r_hi, p_lo, p_hi;
    wgk_share_m(a->share, rows, &r_lo, &r_hi);
    wgk_share_p(a->share, HW, &p_lo, &p_hi);
    const size_t pstride = (size_t)cg * NR;
    const size_t wgroup = wgk_conv_pack_w_group((size_t)rows, (size_t)cg);
    /* Scratch: [packed weight (w_onnx)] [B block] [broadcast panel] [tile]. */
    float *s = a->scratch;
    const float *w = a->w;
    if (a->w_onnx) {
        wgk_deconv2d_pack_w(a->w, (size_t)a->C, (size_t)a->M, (size_t)khw, (size_t)a->groups, s);
        w = s;
        s += wgk_deconv2d_pack_w_size((size_t)a->C, (size_t)a->M, (size_t)khw, (size_t)a->groups);
    }
    float *bbuf = s, *splat = bbuf + (size_t)cg * nc, *tile = splat + 4 * MR * (size_t)cg;
    const float inf = __builtin_inff();
    for (int n = 0; n < a->N; n++) {
        if (!direct)
            for (int m = 0; m < a->M; m++) {
                float *y = a->y + ((size_t)n * a->M + m) * OHW;
                const float b = a->bias ? a->bias[m] : 0.0f;
                for (size_t i = 0; i < OHW; i++)
                    y[i] = b;
            }
        for (int g = 0; g < a->groups; g++) {
            const float *x = a->x + ((size_t)n * a->C + (size_t)g * cg) * HW;
            const float *wg = w + (size_t)g * wgroup;
            for (int nb = p_lo; nb < p_hi; nb += nc) {
                const int ncols = p_hi - nb < nc ? p_hi - nb : nc;
                pack_cols(x, cg, HW, nb, ncols, bbuf);
                for (int R0 = r_lo; R0 < r_hi; R0 += MR) {
                    const int mr = r_hi - R0 < MR ? r_hi - R0 : MR;
                    const float *ap = wg + (size_t)(R0 / MR) * cg * MR;
                    /* Many tiles: broadcast the weight panel once (16 floats per k). */
                    ukernel_fn uk = wgk_f32_conv_ukernel;
                    int astep = MR;
                    if (ncols > 2 * NR) {
                        wgk_conv_splat_a(ap, cg, splat);
                        ap = splat;
                        uk = wgk_f32_conv_ukernel_splat;
                        astep = 4 * MR;
                    }
                    for (int j0 = 0; j0 < ncols; j0 += SUB) {
                        const int sc = ncols - j0 < SUB ? ncols - j0 : SUB;
                        const float *bp = bbuf + (size_t)(j0 / NR) * pstride;
                        for (int k0 = 0; k0 < cg; k0 += KC) {
                            const int kc = cg - k0 < KC ? cg - k0 : KC;
                            uk(mr, sc, kc, ap + (size_t)k0 * astep, bp + (size_t)k0 * NR,
                               pstride, tile, SUB, NULL, NULL, 0, -inf, inf, k0 > 0);
                        }
                        if (direct)
                            scatter_store(a, tile, n, g, R0, mr, nb + j0, sc);
                        else
                            scatter_add(a, tile, n, g, R0, mr, nb + j0, sc);
                    }
                }
            }
        }
        if (!direct && (a->res || a->min > -inf || a->max < inf)) {
            float *y = a->y + (size_t)n * a->M * OHW;
            const float *res = a->res ? a->res + (size_t)n * a->M * OHW : NULL;
            for (size_t i = 0; i < (size_t)a->M * OHW; i++)
                y[i] = clampf(y[i] + (res ? res[i] : 0.0f), a->min, a->max);
        }
    }
}
