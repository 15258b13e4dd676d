/*
 * f32-pool2d.c: 2-D max and average pooling. Windows are clipped to the image once per
 * output (index ranges, no per-element padding test); the inner loop runs along a row.
 */
#include "wgk_pool.h"

/* Taps k in [*lo, *hi) with 0 <= start + k*d < limit. */
static void taps(int start, int d, int k, int limit, int *lo, int *hi)
{
    int l = start >= 0 ? 0 : (-start + d - 1) / d;
    int h = limit - start <= 0 ? 0 : (limit - start + d - 1) / d;
    if (h > k)
        h = k;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

void wgk_f32_maxpool2d(const wgk_pool2d_args *a)
{
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * a->H * a->W;
        float *y = a->y + (size_t)p * a->OH * a->OW;
        for (int oh = 0; oh < a->OH; oh++) {
            const int h0 = oh * a->SH - a->PT;
            int khl, khh;
            taps(h0, a->DH, a->KH, a->H, &khl, &khh);
            for (int ow = 0; ow < a->OW; ow++) {
                const int w0 = ow * a->SW - a->PL;
                int kwl, kwh;
                taps(w0, a->DW, a->KW, a->W, &kwl, &kwh);
                float m = -__builtin_inff();
                for (int kh = khl; kh < khh; kh++) {
                    const float *row = x + (size_t)(h0 + kh * a->DH) * a->W + w0;
                    for (int kw = kwl; kw < kwh; kw++) {
                        float v = row[kw * a->DW];
                        /* NaN propagates: a NaN never compares greater, so test it. */
                        m = v > m || v != v ? v : m;
                    }
                }
                y[(size_t)oh * a->OW + ow] = m;
            }
        }
    }
}

void wgk_f32_avgpool2d(const wgk_pool2d_args *a)
{
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * a->H * a->W;
        float *y = a->y + (size_t)p * a->OH * a->OW;
        for (int oh = 0; oh < a->OH; oh++) {
            const int h0 = oh * a->SH - a->PT;
            int khl, khh;
            taps(h0, 1, a->KH, a->H, &khl, &khh);
            /* With pads counted, the window is clipped to the padded image instead. */
            int ph0 = h0 > -a->PT ? h0 : -a->PT;
            int ph1 = h0 + a->KH < a->H + a->PB ? h0 + a->KH : a->H + a->PB;
            for (int ow = 0; ow < a->OW; ow++) {
                const int w0 = ow * a->SW - a->PL;
                int kwl, kwh;
                taps(w0, 1, a->KW, a->W, &kwl, &kwh);
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
                y[(size_t)oh * a->OW + ow] = count > 0 ? s / (float)count : 0.0f;
            }
        }
    }
}
