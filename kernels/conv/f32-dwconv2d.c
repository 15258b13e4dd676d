/*
 * f32-dwconv2d.c: depthwise 2-D convolution (C/groups == 1, M/groups output channels per
 * input channel). Each output row is accumulated tap by tap over the run of outputs whose
 * input lies inside the image (no padding branches in the inner loop). The row starts as
 * bias + residual (so y may share memory with the residual) and is clamped at the end.
 *
 * SIMD128 builds with strides 1 and 2 and up to 49 taps take a faster path: outputs whose
 * taps all lie inside the row (the interior) are computed 16 at a time in registers,
 * every tap a multiply-add of a vector load (stride 2: two loads and an even-lane
 * shuffle) by a pre-broadcast weight, with one store per vector instead of a load and a
 * store per tap; the few border outputs go one by one with bounds checks. The taps are
 * added in the same order as the row path, so results are the same bit for bit.
 *
 * SIMD modules use this kernel only for the shapes f32-dwconv2d-padded.c does not take
 * (kernels other than 3x3, 5x5 and 7x7, strides above 2, dilation).
 */
#include "wgk_conv.h"

/* out[o] += w * in[o*stride] for o in [lo, hi). */
static void axpy_row(float *out, const float *in, float w, int lo, int hi, int stride)
{
    int o = lo;
    if (stride == 1) {
#ifdef __wasm_simd128__
        const v128_t wv = wasm_f32x4_splat(w);
        for (; o + 4 <= hi; o += 4)
            wasm_v128_store(out + o, wasm_f32x4_add(wasm_v128_load(out + o),
                                                    wasm_f32x4_mul(wv, wasm_v128_load(in + o))));
#endif
        for (; o < hi; o++)
            out[o] += w * in[o];
        return;
    }
    for (; o < hi; o++)
        out[o] += w * in[o * stride];
}

static void clamp_row(float *out, float lo, float hi, int n)
{
    int o = 0;
#ifdef __wasm_simd128__
    const v128_t lv = wasm_f32x4_splat(lo), hv = wasm_f32x4_splat(hi);
    for (; o + 4 <= n; o += 4)
        wasm_v128_store(out + o, wasm_f32x4_pmin(wasm_f32x4_pmax(wasm_v128_load(out + o), lv), hv));
#endif
    for (; o < n; o++) {
        float v = out[o];
        v = v < lo ? lo : v;
        out[o] = v > hi ? hi : v;
    }
}

#if defined(__wasm_simd128__)

#define MAXT 49

/* Input vector of 4 outputs o..o+3 for the tap at p (input index of output o is p[o*s]). */
WGK_INLINE v128_t tap4(const float *p, int o, int stride)
{
    if (stride == 1)
        return wasm_v128_load(p + o);
    return wasm_i32x4_shuffle(wasm_v128_load(p + 2 * o), wasm_v128_load(p + 2 * o + 4), 0, 2, 4, 6);
}

/* One output row: taps tp[t] (input row pointer already offset by kw*DW - PL) with
 * weights tw[t] (broadcast) and ws[t] (scalar), nt of them; interior [lo, hi). */
static void fast_row(const wgk_conv2d_args *a, float *out, const float *res, float bias,
                     const float *const *tp, const v128_t *tw, const float *ws, const int *tiw,
                     int nt, int lo, int hi)
{
    const int OW = a->OW, SW = a->SW;
    const v128_t bv = wasm_f32x4_splat(bias);
    const v128_t lv = wasm_f32x4_splat(a->min), hv = wasm_f32x4_splat(a->max);
    /* Border outputs: one by one, each tap checked against the row. */
    for (int o = 0; o < OW; o++) {
        if (o == lo && lo < hi)
            o = hi;
        if (o >= OW)
            break;
        float v = bias + (res ? res[o] : 0.0f);
        for (int t = 0; t < nt; t++) {
            const int iw = o * SW + tiw[t];
            if (iw >= 0 && iw < a->W)
                v += ws[t] * tp[t][o * SW];
        }
        v = v < a->min ? a->min : v;
        out[o] = v > a->max ? a->max : v;
    }
    int o = lo;
    for (; o + 16 <= hi; o += 16) {
        v128_t x0 = bv, x1 = bv, x2 = bv, x3 = bv;
        if (res) {
            x0 = wasm_f32x4_add(x0, wasm_v128_load(res + o));
            x1 = wasm_f32x4_add(x1, wasm_v128_load(res + o + 4));
            x2 = wasm_f32x4_add(x2, wasm_v128_load(res + o + 8));
            x3 = wasm_f32x4_add(x3, wasm_v128_load(res + o + 12));
        }
        for (int t = 0; t < nt; t++) {
            const float *p = tp[t];
            const v128_t w = tw[t];
            x0 = wasm_f32x4_add(x0, wasm_f32x4_mul(w, tap4(p, o, SW)));
            x1 = wasm_f32x4_add(x1, wasm_f32x4_mul(w, tap4(p, o + 4, SW)));
            x2 = wasm_f32x4_add(x2, wasm_f32x4_mul(w, tap4(p, o + 8, SW)));
            x3 = wasm_f32x4_add(x3, wasm_f32x4_mul(w, tap4(p, o + 12, SW)));
        }
        wasm_v128_store(out + o, wasm_f32x4_pmin(wasm_f32x4_pmax(x0, lv), hv));
        wasm_v128_store(out + o + 4, wasm_f32x4_pmin(wasm_f32x4_pmax(x1, lv), hv));
        wasm_v128_store(out + o + 8, wasm_f32x4_pmin(wasm_f32x4_pmax(x2, lv), hv));
        wasm_v128_store(out + o + 12, wasm_f32x4_pmin(wasm_f32x4_pmax(x3, lv), hv));
    }
    for (; o + 4 <= hi; o += 4) {
        v128_t x0 = res ? wasm_f32x4_add(bv, wasm_v128_load(res + o)) : bv;
        for (int t = 0; t < nt; t++)
            x0 = wasm_f32x4_add(x0, wasm_f32x4_mul(tw[t], tap4(tp[t], o, SW)));
        wasm_v128_store(out + o, wasm_f32x4_pmin(wasm_f32x4_pmax(x0, lv), hv));
    }
    for (; o < hi; o++) {
        float v = bias + (res ? res[o] : 0.0f);
        for (int t = 0; t < nt; t++)
            v += ws[t] * tp[t][o * SW];
        v = v < a->min ? a->min : v;
        out[o] = v > a->max ? a->max : v;
    }
}

/* One output row by the fast path: gathers the taps inside the image vertically, then
 * fast_row. lo, hi: the interior (fast_interior). */
static void fast_conv_row(const wgk_conv2d_args *a, const float *x, const float *w, float *out,
                          const float *res, float bias, int oh, int lo, int hi)
{
    const float *tp[MAXT];
    v128_t tw[MAXT];
    float ws[MAXT];
    int tiw[MAXT];
    int nt = 0;
    for (int kh = 0; kh < a->KH; kh++) {
        const int ih = oh * a->SH - a->PT + kh * a->DH;
        if (ih < 0 || ih >= a->H)
            continue;
        for (int kw = 0; kw < a->KW; kw++, nt++) {
            tiw[nt] = kw * a->DW - a->PL;
            tp[nt] = x + (size_t)ih * a->W + tiw[nt];
            ws[nt] = w[kh * a->KW + kw];
            tw[nt] = wasm_f32x4_splat(ws[nt]);
        }
    }
    fast_row(a, out, res, bias, tp, tw, ws, tiw, nt, lo, hi);
}

/* Whether the fast path applies and its interior [lo, hi): outputs whose first (kw = 0)
 * and last tap both lie inside the row; a stride-2 vector reads up to 4 floats past its
 * last tap, so those must be inside the row too. */
static int fast_interior(const wgk_conv2d_args *a, int *lo, int *hi)
{
    if ((a->SW != 1 && a->SW != 2) || a->KH * a->KW > MAXT)
        return 0;
    int lo2, hi2;
    wgk_valid_range(a->OW, a->SW, -a->PL, a->W, lo, hi);
    wgk_valid_range(a->OW, a->SW, (a->KW - 1) * a->DW - a->PL + (a->SW == 2 ? 4 : 0), a->W, &lo2, &hi2);
    *lo = lo2 > *lo ? lo2 : *lo;
    *hi = hi2 < *hi ? hi2 : *hi;
    if (*hi < *lo)
        *hi = *lo;
    return 1;
}

#endif

/* One output row by the row path: bias (+ residual), then every tap as an axpy over the
 * outputs it reaches, then the clamp. */
static void row_conv_row(const wgk_conv2d_args *a, const float *x, const float *w, float *out,
                         const float *res, float bias, int oh)
{
    const int OW = a->OW;
    for (int ow = 0; ow < OW; ow++)
        out[ow] = bias + (res ? res[ow] : 0.0f);
    for (int kh = 0; kh < a->KH; kh++) {
        const int ih = oh * a->SH - a->PT + kh * a->DH;
        if (ih < 0 || ih >= a->H)
            continue;
        for (int kw = 0; kw < a->KW; kw++) {
            const int off = kw * a->DW - a->PL;
            int lo, hi;
            wgk_valid_range(OW, a->SW, off, a->W, &lo, &hi);
            axpy_row(out, x + (size_t)ih * a->W + off, w[kh * a->KW + kw], lo, hi, a->SW);
        }
    }
    if (a->min > -__builtin_inff() || a->max < __builtin_inff())
        clamp_row(out, a->min, a->max, OW);
}

void wgk_f32_dwconv2d(const wgk_conv2d_args *a)
{
    const int mult = a->M / a->groups, OH = a->OH, OW = a->OW;
    int fast = 0, lo = 0, hi = 0;
#if defined(__wasm_simd128__)
    fast = fast_interior(a, &lo, &hi);
#endif
    int m_lo, m_hi; /* the share: whole groups of output channels */
    wgk_share_m(a->share, a->M, &m_lo, &m_hi);
    for (int n = 0; n < a->N; n++)
        for (int m = m_lo; m < m_hi; m++) {
            const int c = m / mult;
            const float *x = a->x + ((size_t)n * a->C + c) * a->H * a->W;
            const float *w = a->w + (size_t)m * a->KH * a->KW;
            const size_t plane = ((size_t)n * a->M + m) * OH * OW;
            const float bias = a->bias ? a->bias[m] : 0.0f;
            for (int oh = 0; oh < OH; oh++) {
                float *out = a->y + plane + (size_t)oh * OW;
                const float *res = a->res ? a->res + plane + (size_t)oh * OW : NULL;
#if defined(__wasm_simd128__)
                if (fast) {
                    fast_conv_row(a, x, w, out, res, bias, oh, lo, hi);
                    continue;
                }
#endif
                row_conv_row(a, x, w, out, res, bias, oh);
            }
        }
    (void)fast;
    (void)lo;
    (void)hi;
}
