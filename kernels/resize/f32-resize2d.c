/*
 * f32-resize2d.c: resampling of the last two axes (wgk_resize.h, wgk_f32_resize2d).
 *
 * Per plane, each output row is one of: a copy of the previous output row (same H taps),
 * one input row interpolated along W straight into the output (H tap of weight 1), or a
 * weighted sum of input rows that were interpolated along W into a small row cache.
 * The arithmetic per output is the generic kernel's, term for term.
 */
#include "wgk_resize.h"

#define MAX_KH 16 /* the compiler only picks this kernel for KH <= MAX_KH */

/* Interpolates input row xr along W into dst (OW floats). */
static void row_w(const wgk_resize2d_args *a, const float *xr, float *dst)
{
    const int OW = a->OW, fw = a->fw;
    int o = 0;
    if (fw == 1) {
        memcpy(dst, xr, (size_t)OW * sizeof *dst);
        return;
    }
    if (fw > 0) {
#ifdef __wasm_simd128__
        if (fw == 2) {
            for (; o + 8 <= OW; o += 8) {
                v128_t v = wasm_v128_load(xr + o / 2);
                wasm_v128_store(dst + o, wasm_i32x4_shuffle(v, v, 0, 0, 1, 1));
                wasm_v128_store(dst + o + 4, wasm_i32x4_shuffle(v, v, 2, 2, 3, 3));
            }
        } else if (fw % 4 == 0) {
            for (; o + fw <= OW; o += fw) {
                v128_t v = wasm_f32x4_splat(xr[o / fw]);
                for (int t = 0; t < fw; t += 4)
                    wasm_v128_store(dst + o + t, v);
            }
        }
#endif
        for (; o < OW; o++)
            dst[o] = xr[o / fw];
        return;
    }
    const int K = a->KW;
    const int32_t *ix = a->iw;
    const float *w = a->ww;
    if (K == 1) {
        for (; o < OW; o++)
            dst[o] = w[o] == 1.0f ? xr[ix[o]] : (w[o] != 0.0f ? 0.0f + w[o] * xr[ix[o]] : 0.0f);
        return;
    }
    for (; o < OW; o++, ix += K, w += K) {
        float s = 0.0f;
        for (int k = 0; k < K; k++)
            if (w[k] != 0.0f)
                s += w[k] * xr[ix[k]];
        dst[o] = s;
    }
}

/* dst = 0 + sum over taps k of w[k] * row[k] (nonzero weights only), in tap order. */
static void combine_h(int OW, int n, const float *w, const float *const *row, float *dst)
{
    int o = 0;
#ifdef __wasm_simd128__
    for (; o + 4 <= OW; o += 4) {
        v128_t s = wasm_f32x4_splat(0.0f);
        for (int k = 0; k < n; k++)
            s = wasm_f32x4_add(s, wasm_f32x4_mul(wasm_f32x4_splat(w[k]), wasm_v128_load(row[k] + o)));
        wasm_v128_store(dst + o, s);
    }
#endif
    for (; o < OW; o++) {
        float s = 0.0f;
        for (int k = 0; k < n; k++)
            s += w[k] * row[k][o];
        dst[o] = s;
    }
}

static int same_taps(const int32_t *i0, const float *w0, const int32_t *i1, const float *w1, int K)
{
    for (int k = 0; k < K; k++)
        if (i0[k] != i1[k] || w0[k] != w1[k])
            return 0;
    return 1;
}

void wgk_f32_resize2d(const wgk_resize2d_args *a)
{
    const int KH = a->KH, OW = a->OW;
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * a->H * a->W;
        float *y = a->y + (size_t)p * a->OH * OW;
        int rid[MAX_KH]; /* input row held by each scratch slot, -1: none */
        for (int j = 0; j < KH; j++)
            rid[j] = -1;
        for (int oh = 0; oh < a->OH; oh++, y += OW) {
            const int32_t *ti = a->ih + (size_t)oh * KH;
            const float *tw = a->wh + (size_t)oh * KH;
            if (oh > 0 && same_taps(ti, tw, ti - KH, tw - KH, KH)) {
                memcpy(y, y - OW, (size_t)OW * sizeof *y);
                continue;
            }
            if (KH == 1 && tw[0] == 1.0f) {
                row_w(a, x + (size_t)ti[0] * a->W, y);
                continue;
            }
            /* The nonzero taps' rows, from the cache or interpolated into a slot that no
             * other tap of this row uses (the one holding the lowest row). */
            const float *rows[MAX_KH];
            float wts[MAX_KH];
            int n = 0;
            unsigned busy = 0;
            for (int pass = 0; pass < 2; pass++)
                for (int k = 0; k < KH; k++) {
                    if (tw[k] == 0.0f)
                        continue;
                    int j = 0;
                    while (j < KH && rid[j] != ti[k])
                        j++;
                    if (j == KH) {
                        if (pass == 0)
                            continue;
                        int best = -1;
                        for (int c = 0; c < KH; c++)
                            if (!(busy >> c & 1u) && (best < 0 || rid[c] < rid[best]))
                                best = c;
                        j = best;
                        row_w(a, x + (size_t)ti[k] * a->W, a->scratch + (size_t)j * OW);
                        rid[j] = ti[k];
                    }
                    busy |= 1u << j;
                }
            for (int k = 0; k < KH; k++) {
                if (tw[k] == 0.0f)
                    continue;
                int j = 0;
                while (rid[j] != ti[k])
                    j++;
                rows[n] = a->scratch + (size_t)j * OW;
                wts[n++] = tw[k];
            }
            combine_h(OW, n, wts, rows, y);
        }
    }
}
