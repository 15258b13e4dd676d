/* wgk_base.h: freestanding basics for kernels: fixed-width types, restrict, memory helpers. */
#ifndef WGK_BASE_H
#define WGK_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#define WGK_RESTRICT __restrict__
#define WGK_INLINE static inline __attribute__((always_inline))

/* The indices i in [*lo, *hi) of [0, count) with 0 <= i*stride + off < limit (stride > 0):
 * the outputs of a sliding window whose input index lies inside the image, or the taps
 * of one window that do. */
static inline void wgk_valid_range(int count, int stride, int off, int limit, int *lo, int *hi)
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

/* The share of its output one kernel call computes: output channels [m0, m1) and output
 * positions [p0, p1), in the units the kernel's header names (a group's channels or a
 * weight's rows; pixels or tiles). m1 == 0 stands for every channel and p1 == 0 for every
 * position, so a zeroed share, what every call outside a threaded module passes, is the
 * whole output. Kernels know nothing of threads: a threaded module's plan
 * (wgk_split.h) gives each thread its share, never an empty one. */
typedef struct wgk_share {
    int m0, m1, p0, p1;
} wgk_share;

/* The channels [*lo, *hi) of [0, total) that share s covers. */
static inline void wgk_share_m(wgk_share s, int total, int *lo, int *hi)
{
    *lo = s.m1 ? s.m0 : 0;
    *hi = s.m1 ? s.m1 : total;
}

/* The positions [*lo, *hi) of [0, total) that share s covers. */
static inline void wgk_share_p(wgk_share s, int total, int *lo, int *hi)
{
    *lo = s.p1 ? s.p0 : 0;
    *hi = s.p1 ? s.p1 : total;
}

/* Both: s's channels of [0, M) and positions of [0, P); 0 when either is empty. */
static inline int wgk_share_ranges(wgk_share s, int M, int P, int *m_lo, int *m_hi, int *p_lo, int *p_hi)
{
    wgk_share_m(s, M, m_lo, m_hi);
    wgk_share_p(s, P, p_lo, p_hi);
    return *m_lo < *m_hi && *p_lo < *p_hi;
}

#ifdef __wasm_simd128__
/* acc + x * y: one f32x4.relaxed_madd (a fused multiply-add on x86 and ARM) in
 * -mrelaxed-simd builds, a multiply then an add otherwise. */
#if defined(__wasm_relaxed_simd__)
#define WGK_MADD(acc, x, y) wasm_f32x4_relaxed_madd((x), (y), (acc))
#else
#define WGK_MADD(acc, x, y) wasm_f32x4_add((acc), wasm_f32x4_mul((x), (y)))
#endif

/* e^r for f32x4 with x = k ln2 + r: k = nearest(x / ln2) into *k, |r| <= ln2/2 (ln2 in
 * two parts, k * 0.693359375 exact), e^r by its Taylor series to degree 7 (truncation
 * below 6e-9 relative). The caller clamps x and multiplies by 2^k. */
WGK_INLINE v128_t wgk_exp4_reduced(v128_t x, v128_t *k)
{
    *k = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504f)));
    v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(*k, wasm_f32x4_splat(0.693359375f)));
    r = wasm_f32x4_sub(r, wasm_f32x4_mul(*k, wasm_f32x4_splat(-2.12194440e-4f)));
    v128_t p = wasm_f32x4_splat(1.0f / 5040.0f);
    static const float c[] = {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f,
                              0.5f,          1.0f,          1.0f};
    for (int i = 0; i < 7; i++)
        p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(c[i]));
    return p;
}

/* e^x for f32x4, x clamped to [-87.3, 88] (so 2^k stays a normal float), from
 * wgk_exp4_reduced times 2^k through the exponent bits. NaN stays NaN. */
WGK_INLINE v128_t wgk_exp4(v128_t x)
{
    x = wasm_f32x4_pmin(wasm_f32x4_pmax(x, wasm_f32x4_splat(-87.3f)), wasm_f32x4_splat(88.0f));
    v128_t k;
    const v128_t p = wgk_exp4_reduced(x, &k);
    /* 2^k: k + 127 (1..254) lands in the low mantissa bits of k + 127 + 2^23, and the
     * shift puts it in the exponent field (an f32->i32 conversion would cost ~8 x86
     * instructions in wasm). A NaN k makes 0 here, and NaN * 0 is NaN. */
    const v128_t two_k = wasm_i32x4_shl(wasm_f32x4_add(k, wasm_f32x4_splat(8388608.0f + 127.0f)), 23);
    return wasm_f32x4_mul(p, two_k);
}
#endif

/* Freestanding replacements (kernels/base/memory.c); clang also emits calls to these. */
void *memcpy(void *WGK_RESTRICT dst, const void *WGK_RESTRICT src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

#endif
