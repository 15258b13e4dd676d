/*
 * q8-dwconv2d.c: wgk_q8_dwconv2d (wgk_qdwconv.h), the depthwise int8 convolution: each
 * input channel widened into a padded int16 plane, then per output row 8 outputs at a
 * time, two taps per i32x4.dot_i16x8_s. The scalar build runs the same sums in plain
 * loops; both wrap like int32.
 */
#include <stdbool.h>

#include "q8-requant.h"
#include "wgk_base.h"
#include "wgk_qdwconv.h"
#include "wgk_qgemm.h"

/* Channel c of image x into the plane xp (rows x cols int16): x - z inside the image, 0
 * in the padding and past it. */
static void pad_channel(const wgk_q8_dwconv_args *a, const uint8_t *x, int32_t z, int rows, int cols, int16_t *xp)
{
    for (int r = 0; r < rows; r++) {
        int16_t *row = xp + (size_t)r * cols;
        const int ih = r - a->PT;
        int j = 0;
        if (ih >= 0 && ih < a->H) {
            const uint8_t *src = x + (size_t)ih * a->W;
            int lo, hi; /* the plane's columns that hold input columns */
            wgk_valid_range(cols, 1, -a->PL, a->W, &lo, &hi);
            for (; j < lo; j++)
                row[j] = 0;
#ifdef __wasm_simd128__
            const v128_t vz = wasm_i16x8_splat((int16_t)z);
            for (; j + 8 <= hi; j += 8) {
                const v128_t b = wasm_v128_load64_zero(src + j - a->PL);
                wasm_v128_store(row + j, wasm_i16x8_sub(a->xdt == 2 ? wasm_u16x8_extend_low_u8x16(b)
                                                                    : wasm_i16x8_extend_low_i8x16(b), vz));
            }
#endif
            for (; j < hi; j++)
                row[j] = (int16_t)(wgk_qgemm_load8(src, a->xdt, (size_t)(j - a->PL)) - z);
        }
        for (; j < cols; j++)
            row[j] = 0;
    }
}

/* Where output channel m's sums go (q8-requant.h: int32, or requantized). */
typedef wgk_q8_sink dw_sink;

static dw_sink sink_of(const wgk_q8_dwconv_args *a, int n, int m)
{
    const size_t at = ((size_t)n * a->M + (size_t)m) * (size_t)a->OH * a->OW;
    return wgk_q8_sink_of(a->y, a->yq, a->ydt, a->zy, a->sx, a->sw, a->sw_per_m, a->sy, &a->deq, m, at);
}

static void put(dw_sink *k, size_t i, int32_t v) { wgk_q8_sink_put(k, i, v); }

#ifdef __wasm_simd128__
/* 8 outputs of a row from (o0: the first 4, o1: the next 4), n of them in the output. */
static void store8(dw_sink *k, size_t at, int n, v128_t o0, v128_t o1)
{
    if (n == 8) {
        wgk_q8_sink_store8(k, at, o0, o1);
        return;
    }
    int32_t v[8];
    wasm_v128_store(v, o0);
    wasm_v128_store(v + 4, o1);
    for (int j = 0; j < n; j++)
        put(k, at + (size_t)j, v[j]);
}

/* Output channel m from the padded plane xp (cols int16 a row): per output row, 8
 * outputs at a time, two taps per dot product (wgk_qdwconv.h); KH, PAIRS, SW and DH as
 * arguments that channel() passes as constants for 3x3 filters, so that the tap loops
 * unroll and the weights stay in registers. */
WGK_INLINE void channel_k(const wgk_q8_dwconv_args *a, const int16_t *xp, int cols, int m, dw_sink *k, const int KH,
                          const int PAIRS, const int SW, const int DH)
{
    const int taps = KH * PAIRS;
    v128_t wv[WGK_Q8_DW_MAX_TAPS];
    for (int i = 0; i < taps; i++)
        wv[i] = wasm_i32x4_splat(a->w[(size_t)m * (size_t)taps + (size_t)i]);
    const v128_t bias = wasm_i32x4_splat(a->bias ? a->bias[m] : 0);
    for (int oh = 0; oh < a->OH; oh++) {
        const int16_t *r0 = xp + (size_t)(oh * a->SH) * cols;
        const size_t at = (size_t)oh * a->OW;
        for (int ow = 0; ow < a->OW; ow += 8) {
            /* stride 1: p0 the even outputs, p1 the odd ones; stride 2: the first 4, the next 4 */
            const int16_t *p0 = r0 + (SW == 1 ? ow : 2 * ow), *p1 = p0 + (SW == 1 ? 1 : 8);
            v128_t s0 = bias, s1 = bias;
            for (int kh = 0; kh < KH; kh++) {
                const size_t dr = (size_t)(kh * DH) * cols;
                for (int j = 0; j < PAIRS; j++) {
                    const v128_t w = wv[kh * PAIRS + j];
                    s0 = wasm_i32x4_add(s0, wasm_i32x4_dot_i16x8(wasm_v128_load(p0 + dr + 2 * j), w));
                    s1 = wasm_i32x4_add(s1, wasm_i32x4_dot_i16x8(wasm_v128_load(p1 + dr + 2 * j), w));
                }
            }
            if (SW == 1) { /* even and odd outputs back in order */
                const v128_t e = s0;
                s0 = wasm_i32x4_shuffle(e, s1, 0, 4, 1, 5);
                s1 = wasm_i32x4_shuffle(e, s1, 2, 6, 3, 7);
            }
            store8(k, at + (size_t)ow, a->OW - ow < 8 ? a->OW - ow : 8, s0, s1);
        }
    }
}

static void channel(const wgk_q8_dwconv_args *a, const int16_t *xp, int cols, int m, dw_sink *k)
{
    const int pairs = wgk_q8_dwconv_pairs(a->KW);
    if (a->KH == 3 && pairs == 2 && a->DH == 1 && a->SW == 1)
        channel_k(a, xp, cols, m, k, 3, 2, 1, 1);
    else if (a->KH == 3 && pairs == 2 && a->DH == 1)
        channel_k(a, xp, cols, m, k, 3, 2, 2, 1);
    else
        channel_k(a, xp, cols, m, k, a->KH, pairs, a->SW, a->DH);
}
#else
static void channel(const wgk_q8_dwconv_args *a, const int16_t *xp, int cols, int m, dw_sink *k)
{
    const int pairs = wgk_q8_dwconv_pairs(a->KW);
    const int32_t *wm = a->w + (size_t)m * (size_t)(a->KH * pairs);
    for (int oh = 0; oh < a->OH; oh++)
        for (int ow = 0; ow < a->OW; ow++) {
            uint32_t s = a->bias ? (uint32_t)a->bias[m] : 0u;
            for (int kh = 0; kh < a->KH; kh++) {
                const int16_t *p = xp + (size_t)(oh * a->SH + kh * a->DH) * cols + (size_t)(ow * a->SW);
                for (int j = 0; j < pairs; j++) {
                    const int32_t w = wm[kh * pairs + j];
                    s += (uint32_t)(p[2 * j] * (int32_t)(int16_t)(w & 0xffff) +
                                    p[2 * j + 1] * (int32_t)(int16_t)((uint32_t)w >> 16));
                }
            }
            put(k, (size_t)oh * a->OW + (size_t)ow, (int32_t)s);
        }
}
#endif

void wgk_q8_dwconv2d(const wgk_q8_dwconv_args *a)
{
    int m_lo, m_hi;
    wgk_share_m(a->share, a->M, &m_lo, &m_hi);
    const int per = a->M / a->C; /* output channels per input channel */
    const int rows = wgk_q8_dwconv_plane_rows(a->OH, a->KH, a->SH, a->DH);
    const int cols = wgk_q8_dwconv_plane_cols(a->OW, a->KW, a->SW);
    int16_t *xp = (int16_t *)(((uintptr_t)a->scratch + 15) & ~(uintptr_t)15);
    const int32_t z = a->xz ? wgk_qgemm_load8(a->xz, a->xdt, 0) : 0;
    for (int n = 0; n < a->N; n++)
        for (int m = m_lo; m < m_hi; m++) {
            if (m == m_lo || m % per == 0)
                pad_channel(a, (const uint8_t *)a->x + ((size_t)n * a->C + (size_t)(m / per)) * a->H * a->W, z, rows,
                            cols, xp);
            dw_sink k = sink_of(a, n, m);
            channel(a, xp, cols, m, &k);
            wgk_q8_sink_done(&k);
        }
}
