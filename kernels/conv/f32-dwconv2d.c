/*
 * f32-dwconv2d.c: depthwise 2-D convolution (C/groups == 1, M/groups output channels per
 * input channel). Each output row is accumulated tap by tap over the run of outputs whose
 * input lies inside the image (no padding branches in the inner loop). The row starts as
 * bias + residual (so y may share memory with the residual) and is clamped at the end.
 * SIMD128 along the row when the stride is 1.
 */
#include "wgk_conv.h"

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

void wgk_f32_dwconv2d(const wgk_conv2d_args *a)
{
    const int mult = a->M / a->groups, OH = a->OH, OW = a->OW;
    for (int n = 0; n < a->N; n++)
        for (int m = 0; m < a->M; m++) {
            const int c = m / mult;
            const float *x = a->x + ((size_t)n * a->C + c) * a->H * a->W;
            const float *w = a->w + (size_t)m * a->KH * a->KW;
            const size_t plane = ((size_t)n * a->M + m) * OH * OW;
            float *y = a->y + plane;
            const float bias = a->bias ? a->bias[m] : 0.0f;
            for (int oh = 0; oh < OH; oh++) {
                float *out = y + (size_t)oh * OW;
                const float *res = a->res ? a->res + plane + (size_t)oh * OW : NULL;
                for (int ow = 0; ow < OW; ow++)
                    out[ow] = bias + (res ? res[ow] : 0.0f);
                for (int kh = 0; kh < a->KH; kh++) {
                    const int ih = oh * a->SH - a->PT + kh * a->DH;
                    if (ih < 0 || ih >= a->H)
                        continue;
                    for (int kw = 0; kw < a->KW; kw++) {
                        const int off = kw * a->DW - a->PL;
                        int lo, hi;
                        valid_range(OW, a->SW, off, a->W, &lo, &hi);
                        axpy_row(out, x + (size_t)ih * a->W + off, w[kh * a->KW + kw], lo, hi, a->SW);
                    }
                }
                if (a->min > -__builtin_inff() || a->max < __builtin_inff())
                    clamp_row(out, a->min, a->max, OW);
            }
        }
}
