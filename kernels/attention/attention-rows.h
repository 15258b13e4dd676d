/*
 * attention-rows.h: the row operations the attention kernels share (f32-gqa.c, f32-mha.c):
 * a dot product, y += w x, a copy, and a softmax with an optional sink logit.
 */
#ifndef WGK_ATTENTION_ROWS_H
#define WGK_ATTENTION_ROWS_H

#include "wgk_attention.h"
#include "wgk_math.h"
#include "wgk_vmath.h"

static inline float dot(const float *WGK_RESTRICT a, const float *WGK_RESTRICT b, int n)
{
    int i = 0;
    float s = 0.0f;
#ifdef __wasm_simd128__
    v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
    for (; i + 8 <= n; i += 8) {
        s0 = WGK_MADD(s0, wasm_v128_load(a + i), wasm_v128_load(b + i));
        s1 = WGK_MADD(s1, wasm_v128_load(a + i + 4), wasm_v128_load(b + i + 4));
    }
    for (; i + 4 <= n; i += 4)
        s0 = WGK_MADD(s0, wasm_v128_load(a + i), wasm_v128_load(b + i));
    s0 = wasm_f32x4_add(s0, s1);
    s0 = wasm_f32x4_add(s0, wasm_i32x4_shuffle(s0, s0, 2, 3, 0, 1));
    s0 = wasm_f32x4_add(s0, wasm_i32x4_shuffle(s0, s0, 1, 0, 3, 2));
    s = wasm_f32x4_extract_lane(s0, 0);
#endif
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* y += w * x over n floats. */
static inline void axpy(float *WGK_RESTRICT y, float w, const float *WGK_RESTRICT x, int n)
{
    int i = 0;
#ifdef __wasm_simd128__
    const v128_t w4 = wasm_f32x4_splat(w);
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(y + i, WGK_MADD(wasm_v128_load(y + i), w4, wasm_v128_load(x + i)));
#endif
    for (; i < n; i++)
        y[i] += w * x[i];
}

static inline void copy(float *WGK_RESTRICT y, const float *WGK_RESTRICT x, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}

/* p_j = e^(x_j - m) / (sum_i e^(x_i - m) + e^(sink - m)) in place over n scores (the sink
 * term only when has_sink), m the largest of them and the sink. */
static inline void softmax(float *x, int n, int has_sink, float sink)
{
    float m = has_sink ? sink : x[0];
    for (int j = 0; j < n; j++)
        m = x[j] > m ? x[j] : m;
    for (int j = 0; j < n; j++)
        x[j] -= m;
    wgk_f32_exp(x, x, (size_t)n);
    float sum = has_sink ? wgk_expf(sink - m) : 0.0f;
    for (int j = 0; j < n; j++)
        sum += x[j];
    const float r = 1.0f / sum;
    for (int j = 0; j < n; j++)
        x[j] *= r;
}

#endif
