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

/* Which share of a kernel's output this call computes, in a module built with
 * `compile --threads` (docs/performance.md "Threads"): thread t of n. n <= 1 (a zeroed
 * field, as every single-threaded call leaves it) is the whole output. A kernel that
 * takes one splits its output with wgk_part_range over units it computes independently
 * (rows, column panels, tiles, channels), so that every output element is computed by
 * one thread in the same order as on one thread: the bits do not depend on n. */
typedef struct wgk_part {
    int t, n;
} wgk_part;

/* Thread p.t's units of [0, total) in steps of `unit` (the last unit may be short):
 * ceil(total / unit) units dealt out contiguously, the first (units % n) threads one
 * more. A pure function of (total, unit, n, t). */
static inline void wgk_part_range(wgk_part p, int total, int unit, int *lo, int *hi)
{
    if (p.n <= 1 || total <= 0) {
        *lo = 0;
        *hi = total > 0 ? total : 0;
        return;
    }
    const long units = ((long)total + unit - 1) / unit;
    const long base = units / p.n, extra = units % p.n;
    const long u0 = (long)p.t * base + (p.t < extra ? p.t : extra);
    const long u1 = u0 + base + (p.t < extra ? 1 : 0);
    const long l = u0 * unit, h = u1 * unit;
    *lo = (int)(l < total ? l : total);
    *hi = (int)(h < total ? h : total);
}

/* Whether a kernel's threads split its columns (pixels) rather than its rows (output
 * channels), for the 4x8 kernels that pack `cols` columns in blocks of `block` and
 * broadcast each panel of 4 of their `rows` weight rows once per block (4 floats per row
 * and reduction step): split by rows, every thread packs every block, (n - 1) x cols
 * more packing per reduction step than one thread; by columns, each packs only its own,
 * but the blocks a thread's share cuts add broadcasts of every row. Columns when every
 * thread gets two blocks or more (nothing is then repeated), or when each gets four panels
 * of 8 and the packing saved outweighs the broadcasts added (SqueezeNet's 64 -> 16 1x1 at
 * 55x55, ResNet-50's 64 -> 256 at 56x56: a little faster on 2 threads).
 * A pure function of the shape and the thread count. */
static inline int wgk_part_splits_columns(wgk_part p, int block, int cols, int rows)
{
    if (p.n <= 1 || cols < 32L * p.n)
        return 0;
    if ((long)cols >= 2L * p.n * block)
        return 1;
    const long share = (cols + p.n - 1) / p.n;
    const long added = p.n * ((share + block - 1) / block) - (cols + block - 1) / block;
    return (long)(p.n - 1) * cols > 4L * rows * added;
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
