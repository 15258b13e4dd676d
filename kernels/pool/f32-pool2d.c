/*
 * f32-pool2d.c: 2-D max and average pooling.
 *
 * Each output row splits into the interior (windows wholly inside the image: no clipping,
 * no padding in the count) and the borders. Border outputs clip their window to the
 * image once (index ranges, no per-element padding test). Interior outputs run 4 at a
 * time with SIMD128 over output columns: stride 1 loads 4 neighbours, stride 2 loads two
 * overlapping vectors and keeps the even lanes, other strides gather lanes one by one.
 * Average pooling adds the taps in the same order as the border code (rows, then
 * columns, from 0), so every output is the same float whichever path computes it.
 * The SIMD max takes f32x4.pmax (one maxps on x86) and keeps NaN apart: f32x4.max's
 * NaN and signed-zero rules cost engines about seven instructions on x86, which made
 * max pooling a visible share of SqueezeNet's time.
 */
#include "wgk_pool.h"

/* Outputs [*lo, *hi) of one axis whose windows lie wholly inside [0, in). */
static void interior(int in, int out, int k, int s, int d, int pad, int *lo, int *hi)
{
    int l = pad <= 0 ? 0 : (pad + s - 1) / s;
    int last = in - 1 + pad - (k - 1) * d; /* largest window start (plus pad) inside */
    int h = last < 0 ? 0 : last / s + 1;
    if (h > out)
        h = out;
    if (l > out)
        l = out;
    if (h < l)
        h = l;
    *lo = l;
    *hi = h;
}

/* Max of one clipped window; rows [khl, khh) of start h0. */
static float max_border(const wgk_pool2d_args *a, const float *x, int h0, int khl, int khh, int ow)
{
    const int w0 = ow * a->SW - a->PL;
    int kwl, kwh;
    wgk_valid_range(a->KW, a->DW, w0, a->W, &kwl, &kwh);
    float m = -__builtin_inff();
    for (int kh = khl; kh < khh; kh++) {
        const float *row = x + (size_t)(h0 + kh * a->DH) * a->W + w0;
        for (int kw = kwl; kw < kwh; kw++) {
            float v = row[kw * a->DW];
            /* NaN propagates: a NaN never compares greater, so test it. */
            m = v > m || v != v ? v : m;
        }
    }
    return m;
}

#ifdef __wasm_simd128__
/* Lanes p[0], p[sw], p[2sw], p[3sw]; every load stays inside that span. */
WGK_INLINE v128_t load_strided(const float *p, const int sw)
{
    if (sw == 1)
        return wasm_v128_load(p);
    if (sw == 2) /* p[0..3] and p[3..6]: lanes 0, 2 of the first, 1, 3 of the second */
        return wasm_i32x4_shuffle(wasm_v128_load(p), wasm_v128_load(p + 3), 0, 2, 5, 7);
    return wasm_f32x4_make(p[0], p[sw], p[2 * sw], p[3 * sw]);
}

/* NaN-propagating max in two cheap steps: m = pmax(m, v) (drops a NaN v), and *nan
 * collects the lanes where v is NaN; nan_out puts them back as NaN at the end. */
WGK_INLINE v128_t max_step(v128_t m, v128_t v, v128_t *nan)
{
    *nan = wasm_v128_or(*nan, wasm_f32x4_ne(v, v));
    return wasm_f32x4_pmax(m, v);
}

WGK_INLINE v128_t nan_out(v128_t m, v128_t nan)
{
    return wasm_v128_or(m, nan); /* all ones is a NaN */
}

/* Interior outputs [*ow, hi) of one row, 4 at a time; advances *ow. xr = the first
 * window row. */
WGK_INLINE void max_interior4(const wgk_pool2d_args *a, const float *xr, float *y, int *ow,
                              int hi, const int sw, const int kh_n, const int kw_n)
{
    const size_t rs = (size_t)a->DH * a->W;
    for (; *ow + 4 <= hi; *ow += 4) {
        const float *p = xr + (*ow * sw - a->PL);
        v128_t m = load_strided(p, sw), nan = wasm_f32x4_ne(m, m);
        for (int kh = 0; kh < kh_n; kh++, p += rs)
            for (int kw = kh == 0; kw < kw_n; kw++)
                m = max_step(m, load_strided(p + kw * a->DW, sw), &nan);
        wasm_v128_store(y + *ow, nan_out(m, nan));
    }
}

/* Stride 2, 2 or 3 columns without dilation: the rows' maxima first (whole vectors of
 * input columns), then even and odd columns split by shuffles. 4 outputs read input
 * columns c .. c+6 (2 wide) or c+8 (3 wide), all inside the interior. */
WGK_INLINE void max_interior4_s2(const wgk_pool2d_args *a, const float *xr, float *y, int *ow,
                                 int hi, const int kw3, const int kh_n)
{
    const size_t rs = (size_t)a->DH * a->W;
    for (; *ow + 4 <= hi; *ow += 4) {
        const float *p = xr + (*ow * 2 - a->PL);
        v128_t c0 = wasm_v128_load(p), c4 = wasm_v128_load(p + 4);
        v128_t c5 = kw3 ? wasm_v128_load(p + 5) : c4;
        v128_t n0 = wasm_f32x4_ne(c0, c0), n4 = wasm_f32x4_ne(c4, c4), n5 = wasm_f32x4_ne(c5, c5);
        for (int kh = 1; kh < kh_n; kh++) {
            p += rs;
            c0 = max_step(c0, wasm_v128_load(p), &n0);
            c4 = max_step(c4, wasm_v128_load(p + 4), &n4);
            if (kw3)
                c5 = max_step(c5, wasm_v128_load(p + 5), &n5);
        }
        /* Column maxima with their NaNs back; the two across-column steps keep them
         * with f32x4.max. */
        c0 = nan_out(c0, n0);
        c4 = nan_out(c4, n4);
        c5 = nan_out(c5, n5);
        v128_t even = wasm_i32x4_shuffle(c0, c4, 0, 2, 4, 6);
        v128_t m = wasm_f32x4_max(even, wasm_i32x4_shuffle(c0, c4, 1, 3, 5, 7));
        if (kw3) /* columns c+2, c+4, c+6, c+8 */
            m = wasm_f32x4_max(m, wasm_i32x4_shuffle(even, c5, 1, 2, 3, 7));
        wasm_v128_store(y + *ow, m);
    }
}

/* kh, kw: the window size, constants when inlined with constants (3x3 unrolls). */
WGK_INLINE void avg_interior4(const wgk_pool2d_args *a, const float *xr, float *y, int *ow,
                              int hi, const int sw, const int kh_n, const int kw_n)
{
    const v128_t div = wasm_f32x4_splat((float)(kh_n * kw_n));
    for (; *ow + 4 <= hi; *ow += 4) {
        const float *p = xr + (*ow * sw - a->PL);
        v128_t s = wasm_f32x4_splat(0.0f);
        for (int kh = 0; kh < kh_n; kh++, p += a->W)
            for (int kw = 0; kw < kw_n; kw++)
                s = wasm_f32x4_add(s, load_strided(p + kw, sw));
        wasm_v128_store(y + *ow, wasm_f32x4_div(s, div));
    }
}

/* FN(a, xr, y, ow, hi, stride, KH, KW) with stride 1 and a 3x3 window, stride 1, or stride 2
 * as constants, so that each case inlines its own specialised copy. */
#define INTERIOR4_BY_STRIDE(FN)                                                            \
    do {                                                                                   \
        if (a->SW == 1 && a->KH == 3 && a->KW == 3)                                        \
            FN(a, xr, y, ow, hi, 1, 3, 3);                                                 \
        else if (a->SW == 1)                                                               \
            FN(a, xr, y, ow, hi, 1, a->KH, a->KW);                                         \
        else if (a->SW == 2)                                                               \
            FN(a, xr, y, ow, hi, 2, a->KH, a->KW);                                         \
        else                                                                               \
            FN(a, xr, y, ow, hi, a->SW, a->KH, a->KW);                                     \
    } while (0)

/* Interior outputs [*ow, hi) in vectors of 4; advances *ow. */
static void max_interior(const wgk_pool2d_args *a, const float *xr, float *y, int *ow, int hi)
{
    /* Constant window sizes let the common 3x3 and 2x2 loops unroll. */
    if (a->SW == 2 && a->DW == 1 && a->KW == 3 && a->KH == 3)
        max_interior4_s2(a, xr, y, ow, hi, 1, 3);
    else if (a->SW == 2 && a->DW == 1 && a->KW == 3)
        max_interior4_s2(a, xr, y, ow, hi, 1, a->KH);
    else if (a->SW == 2 && a->DW == 1 && a->KW == 2 && a->KH == 2)
        max_interior4_s2(a, xr, y, ow, hi, 0, 2);
    else if (a->SW == 2 && a->DW == 1 && a->KW == 2)
        max_interior4_s2(a, xr, y, ow, hi, 0, a->KH);
    else
        INTERIOR4_BY_STRIDE(max_interior4);
}

/* Interior outputs [*ow, hi) in vectors of 4; advances *ow. */
static void avg_interior(const wgk_pool2d_args *a, const float *xr, float *y, int *ow, int hi)
{
    INTERIOR4_BY_STRIDE(avg_interior4);
}

/* The interior [lo, hi) of one row: vectors of 4, then (when the interior holds 4) the
 * last 4 again as one vector instead of one at a time; recomputed outputs come out the
 * same. Returns the first output not written. */
static int interior_row(void (*f)(const wgk_pool2d_args *, const float *, float *, int *, int),
                        const wgk_pool2d_args *a, const float *xr, float *y, int lo, int hi)
{
    int ow = lo;
    f(a, xr, y, &ow, hi);
    if (ow < hi && hi - lo >= 4) {
        ow = hi - 4;
        f(a, xr, y, &ow, hi);
    }
    return ow;
}
#endif

void wgk_f32_maxpool2d(const wgk_pool2d_args *a)
{
    int iwl, iwh;
    interior(a->W, a->OW, a->KW, a->SW, a->DW, a->PL, &iwl, &iwh);
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * a->H * a->W;
        float *y = a->y + (size_t)p * a->OH * a->OW;
        for (int oh = 0; oh < a->OH; oh++, y += a->OW) {
            const int h0 = oh * a->SH - a->PT;
            int khl, khh;
            wgk_valid_range(a->KH, a->DH, h0, a->H, &khl, &khh);
            if (khl != 0 || khh != a->KH) { /* a border row */
                for (int ow = 0; ow < a->OW; ow++)
                    y[ow] = max_border(a, x, h0, khl, khh, ow);
                continue;
            }
            int ow = 0;
            for (; ow < iwl; ow++)
                y[ow] = max_border(a, x, h0, 0, a->KH, ow);
            const float *xr = x + (size_t)h0 * a->W;
#ifdef __wasm_simd128__
            ow = interior_row(max_interior, a, xr, y, ow, iwh);
#endif
            for (; ow < iwh; ow++) { /* interior, one at a time */
                const float *q = xr + (ow * a->SW - a->PL);
                float m = -__builtin_inff();
                for (int kh = 0; kh < a->KH; kh++, q += (size_t)a->DH * a->W)
                    for (int kw = 0; kw < a->KW; kw++) {
                        float v = q[kw * a->DW];
                        m = v > m || v != v ? v : m;
                    }
                y[ow] = m;
            }
            for (; ow < a->OW; ow++)
                y[ow] = max_border(a, x, h0, 0, a->KH, ow);
        }
    }
}

/* Average of one clipped window (dilation 1); ph0/ph1 the rows clipped to the padded image. */
static float avg_border(const wgk_pool2d_args *a, const float *x, int h0, int khl, int khh,
                        int ph0, int ph1, int ow)
{
    const int w0 = ow * a->SW - a->PL;
    int kwl, kwh;
    wgk_valid_range(a->KW, 1, w0, a->W, &kwl, &kwh);
    float s = 0.0f;
    for (int kh = khl; kh < khh; kh++) {
        const float *row = x + (size_t)(h0 + kh) * a->W + w0;
        for (int kw = kwl; kw < kwh; kw++)
            s += row[kw];
    }
    int count;
    if (a->count_include_pad) {
        int pw0 = w0 > -a->PL ? w0 : -a->PL;
        int pw1 = w0 + a->KW < a->W + a->PR ? w0 + a->KW : a->W + a->PR;
        count = (ph1 - ph0) * (pw1 - pw0);
    } else {
        count = (khh - khl) * (kwh - kwl);
    }
    return count > 0 ? s / (float)count : 0.0f;
}

void wgk_f32_avgpool2d(const wgk_pool2d_args *a)
{
    int iwl, iwh;
    interior(a->W, a->OW, a->KW, a->SW, 1, a->PL, &iwl, &iwh);
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * a->H * a->W;
        float *y = a->y + (size_t)p * a->OH * a->OW;
        for (int oh = 0; oh < a->OH; oh++, y += a->OW) {
            const int h0 = oh * a->SH - a->PT;
            int khl, khh;
            wgk_valid_range(a->KH, 1, h0, a->H, &khl, &khh);
            /* With pads counted, the window is clipped to the padded image instead. */
            int ph0 = h0 > -a->PT ? h0 : -a->PT;
            int ph1 = h0 + a->KH < a->H + a->PB ? h0 + a->KH : a->H + a->PB;
            if (khl != 0 || khh != a->KH) {
                for (int ow = 0; ow < a->OW; ow++)
                    y[ow] = avg_border(a, x, h0, khl, khh, ph0, ph1, ow);
                continue;
            }
            int ow = 0;
            for (; ow < iwl; ow++)
                y[ow] = avg_border(a, x, h0, 0, a->KH, ph0, ph1, ow);
            const float *xr = x + (size_t)h0 * a->W;
#ifdef __wasm_simd128__
            ow = interior_row(avg_interior, a, xr, y, ow, iwh);
#endif
            /* Inside the image both counts are the whole window. */
            const float count = (float)(a->KH * a->KW);
            for (; ow < iwh; ow++) {
                const float *q = xr + (ow * a->SW - a->PL);
                float s = 0.0f;
                for (int kh = 0; kh < a->KH; kh++, q += a->W)
                    for (int kw = 0; kw < a->KW; kw++)
                        s += q[kw];
                y[ow] = s / count;
            }
            for (; ow < a->OW; ow++)
                y[ow] = avg_border(a, x, h0, 0, a->KH, ph0, ph1, ow);
        }
    }
}
