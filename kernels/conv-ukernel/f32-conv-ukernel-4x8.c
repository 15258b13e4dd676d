/*
 * f32-conv-ukernel-4x8.c: the conv micro-kernel (contract in wgk_conv_packed.h): a 4x8
 * tile of C from a packed A panel (4 floats per k) and a packed B panel (8 floats per
 * k). SIMD128: per k, 1 A load + 4 lane shuffles, 2 B loads, 8 multiply-adds into 8
 * f32x4 accumulators (the loop shared with the GEMM, wgk_ukernel_4x8.h). A 6x8 tile with
 * v128.load32_splat is slower in wasmtime (Cranelift turns each load-splat into a GPR
 * load, movd and vpbroadcastd, all on one port); 6x8 and 4x12 shuffle forms were no
 * faster (spills in the FMA build). wgk_f32_conv_ukernel_splat reads a broadcast A panel
 * (16 floats per k, wgk_conv_splat_a) instead: 4 loads replace the 4 shuffles, which
 * compete with the multiplies for the vector ALU ports, so it is faster (the drivers use
 * it when a panel serves more than 2 tiles). Relaxed SIMD builds use f32x4.relaxed_madd
 * (an FMA on x86 and ARM); plain SIMD a multiply then an add; scalar builds a plain loop.
 *
 * The broadcast form is most of every conv kernel's time. In an L1-resident harness on
 * Zen 3 (the CI machine), in wasmtime 48 and V8, no other tile was faster in both
 * engines: 4x8 with v128.load32_splat, 5x8, 6x8 and 4x12 (spills; Cranelift hoists every
 * load of an iteration to its top), 3x12 and 2x16, k unrolled by 2, the A loads folded
 * into the multiplies. Its machine code (per k: 6 loads, 8 vmulps and 8 vaddps, 2 pointer
 * adds, the counter and the branch, plus in Cranelift 2 movs that zero-extend the 32-bit
 * addresses and a test) has no spills, and Zen 3's 2 multiply and 2 add pipes bound any
 * plain-SIMD loop to 4 cycles per k, which this loop comes close to. The rates, the
 * instruction counts and how close: docs/performance.md, "Figures that used to live in
 * code comments".
 */
#include "wgk_conv_packed.h"
#include "wgk_ukernel_4x8.h"

#if defined(__wasm_simd128__)

#define MADD WGK_MADD

/* bias, residual and clamp for 4 columns of one row. */
WGK_INLINE v128_t finish(v128_t v, const float *bias, const float *res, v128_t lo, v128_t hi, int clamp)
{
    if (bias)
        v = wasm_f32x4_add(v, wasm_v128_load32_splat(bias));
    if (res)
        v = wasm_f32x4_add(v, wasm_v128_load(res));
    return clamp ? wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi) : v;
}

/* Whether [min, max] clamps anything: partial sums (min = -inf, max = inf) skip the two
 * vector ops per 4 outputs. */
WGK_INLINE int clamps(float min, float max)
{
    return min > -__builtin_inff() || max < __builtin_inff();
}

static void store_tile(const v128_t *xs, const v128_t *ys, int mr, int nr, float *c, int ldc,
                       const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate);

/* The epilogue of a whole 4x8 tile, kept inline in the tile functions: per row, the
 * output's row (accumulate) or the residual's added, then the bias, then the clamp, as
 * store_tile does, and 8 stores in place. store_tile is a call that passes the rows
 * through memory: a large share of short products (a 3x3 stride-2 conv from 3 channels:
 * 27-deep products, SqueezeNet's first layer; a 64-deep Winograd product), and it made a
 * residual costly (ResNet-50 v2's 64 -> 256 1x1 convs). Bias
 * and clamp cost nothing where the caller passes constants (NULL, +-inf). A residual
 * comes with the first k slice only, so never with accumulate. Returns 0 for a partial
 * tile, which store_tile must do. */
WGK_INLINE int store_whole(const v128_t *xs, const v128_t *ys, int mr, int nr, float *c, int ldc,
                           const float *bias, const float *res, int ldr, float min, float max, int accumulate)
{
    if (mr != WGK_CONV_MR || nr != WGK_CONV_NR || (res && accumulate))
        return 0;
    const int clamp = clamps(min, max);
    const v128_t lo = wasm_f32x4_splat(min), hi = wasm_f32x4_splat(max);
    for (int r = 0; r < WGK_CONV_MR; r++) {
        float *cr = c + (ptrdiff_t)r * ldc;
        v128_t u = xs[r], v = ys[r];
        if (accumulate) {
            u = wasm_f32x4_add(u, wasm_v128_load(cr));
            v = wasm_f32x4_add(v, wasm_v128_load(cr + 4));
        }
        if (bias) {
            const v128_t bv = wasm_v128_load32_splat(bias + r);
            u = wasm_f32x4_add(u, bv);
            v = wasm_f32x4_add(v, bv);
        }
        if (res) {
            const float *ar = res + (ptrdiff_t)r * ldr;
            u = wasm_f32x4_add(u, wasm_v128_load(ar));
            v = wasm_f32x4_add(v, wasm_v128_load(ar + 4));
        }
        if (clamp) {
            u = wasm_f32x4_pmin(wasm_f32x4_pmax(u, lo), hi);
            v = wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi);
        }
        wasm_v128_store(cr, u);
        wasm_v128_store(cr + 4, v);
    }
    return 1;
}

/* A last tile of at most 4 columns: only the first half of each B row, half the work
 * (a 7x7 F(4x4) Winograd output is 4 tiles: one half panel). */
static void tile_half(int mr, int nr, int K, const float *a, const float *b, float *c, int ldc,
                      const float *bias, const float *res, int ldr, float min, float max,
                      int accumulate)
{
    v128_t x0 = wasm_f32x4_splat(0.0f), x1 = x0, x2 = x0, x3 = x0;
    for (int k = 0; k < K; k++) {
        const v128_t av = wasm_v128_load(a), b0 = wasm_v128_load(b);
        x0 = MADD(x0, wasm_i32x4_shuffle(av, av, 0, 0, 0, 0), b0);
        x1 = MADD(x1, wasm_i32x4_shuffle(av, av, 1, 1, 1, 1), b0);
        x2 = MADD(x2, wasm_i32x4_shuffle(av, av, 2, 2, 2, 2), b0);
        x3 = MADD(x3, wasm_i32x4_shuffle(av, av, 3, 3, 3, 3), b0);
        a += WGK_CONV_MR;
        b += WGK_CONV_NR;
    }
    const v128_t lo = wasm_f32x4_splat(min), hi = wasm_f32x4_splat(max);
    const v128_t xs[WGK_CONV_MR] = {x0, x1, x2, x3};
    for (int r = 0; r < mr; r++) {
        const float *rr = res ? res + (ptrdiff_t)r * ldr : NULL;
        float *cr = c + (ptrdiff_t)r * ldc;
        float t[4], rt[4], ct[4];
        for (int j = 0; j < 4; j++) {
            rt[j] = rr && j < nr ? rr[j] : 0.0f;
            ct[j] = accumulate && j < nr ? cr[j] : 0.0f;
        }
        const v128_t u = wasm_f32x4_add(xs[r], wasm_v128_load(ct));
        wasm_v128_store(t, finish(u, bias ? bias + r : NULL, rr ? rt : NULL, lo, hi, 1));
        for (int j = 0; j < nr; j++)
            cr[j] = t[j];
    }
}

static void tile(int mr, int nr, int K, const float *a, const float *b, float *c, int ldc,
                 const float *bias, const float *res, int ldr, float min, float max, int accumulate)
{
    if (nr <= 4) {
        tile_half(mr, nr, K, a, b, c, ldc, bias, res, ldr, min, max, accumulate);
        return;
    }
    const v128_t zero = wasm_f32x4_splat(0.0f);
    v128_t xs[WGK_CONV_MR] = {zero, zero, zero, zero}, ys[WGK_CONV_MR] = {zero, zero, zero, zero};
    wgk_f32_ukernel_4x8_loop(K, a, WGK_CONV_MR, b, WGK_CONV_NR, xs, ys);
    if (!store_whole(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate))
        store_tile(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
}

/* The epilogue of a 4x8 tile (rows xs[r] | ys[r]). */
static void store_tile(const v128_t *xs, const v128_t *ys, int mr, int nr, float *c, int ldc,
                       const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate)
{
    const v128_t lo = wasm_f32x4_splat(min), hi = wasm_f32x4_splat(max);
    const int clamp = clamps(min, max);
    for (int r = 0; r < mr; r++) {
        const float *br = bias ? bias + r : NULL;
        const float *rr = res ? res + (ptrdiff_t)r * ldr : NULL;
        float *cr = c + (ptrdiff_t)r * ldc;
        if (nr == WGK_CONV_NR) {
            v128_t u = xs[r], v = ys[r];
            if (accumulate) {
                u = wasm_f32x4_add(u, wasm_v128_load(cr));
                v = wasm_f32x4_add(v, wasm_v128_load(cr + 4));
            }
            wasm_v128_store(cr, finish(u, br, rr, lo, hi, clamp));
            wasm_v128_store(cr + 4, finish(v, br, rr ? rr + 4 : NULL, lo, hi, clamp));
            continue;
        }
        /* Partial tile: rows may end inside the vector, so go through copies. */
        float t[WGK_CONV_NR], rt[WGK_CONV_NR], ct[WGK_CONV_NR];
        for (int j = 0; j < WGK_CONV_NR; j++) {
            rt[j] = rr && j < nr ? rr[j] : 0.0f;
            ct[j] = accumulate && j < nr ? cr[j] : 0.0f;
        }
        v128_t u = wasm_f32x4_add(xs[r], wasm_v128_load(ct));
        v128_t v = wasm_f32x4_add(ys[r], wasm_v128_load(ct + 4));
        wasm_v128_store(t, finish(u, br, rr ? rt : NULL, lo, hi, clamp));
        wasm_v128_store(t + 4, finish(v, br, rr ? rt + 4 : NULL, lo, hi, clamp));
        for (int j = 0; j < nr; j++)
            cr[j] = t[j];
    }
}

/* The same 4x8 tile from a broadcast A panel (16 floats per k: each weight 4 times,
 * wgk_conv_splat_a): 4 plain loads instead of 1 load + 4 shuffles, which compete with
 * the multiplies and adds for the vector ALU ports (faster in wasmtime).
 * Leaves the rows in xs[r] | ys[r]; half: only the first 4 columns (ys untouched). */
WGK_INLINE void splat_acc_at(int half, int K, const float *a, const float *b, size_t bk, size_t b1, v128_t *xs,
                             v128_t *ys)
{
    v128_t x0 = wasm_f32x4_splat(0.0f), y0 = x0, x1 = x0, y1 = x0, x2 = x0, y2 = x0, x3 = x0,
           y3 = x0;
    if (half) {
        for (int k = 0; k < K; k++) {
            const v128_t b0 = wasm_v128_load(b);
            x0 = MADD(x0, wasm_v128_load(a), b0);
            x1 = MADD(x1, wasm_v128_load(a + 4), b0);
            x2 = MADD(x2, wasm_v128_load(a + 8), b0);
            x3 = MADD(x3, wasm_v128_load(a + 12), b0);
            a += 4 * WGK_CONV_MR;
            b += bk;
        }
    } else {
        for (int k = 0; k < K; k++) {
            const v128_t b0 = wasm_v128_load(b), b1v = wasm_v128_load(b + b1);
            v128_t s = wasm_v128_load(a);
            x0 = MADD(x0, s, b0);
            y0 = MADD(y0, s, b1v);
            s = wasm_v128_load(a + 4);
            x1 = MADD(x1, s, b0);
            y1 = MADD(y1, s, b1v);
            s = wasm_v128_load(a + 8);
            x2 = MADD(x2, s, b0);
            y2 = MADD(y2, s, b1v);
            s = wasm_v128_load(a + 12);
            x3 = MADD(x3, s, b0);
            y3 = MADD(y3, s, b1v);
            a += 4 * WGK_CONV_MR;
            b += bk;
        }
    }
    xs[0] = x0, xs[1] = x1, xs[2] = x2, xs[3] = x3;
    ys[0] = y0, ys[1] = y1, ys[2] = y2, ys[3] = y3;
}

/* B's columns 4-7 right after 0-3 (the packed panels). */
WGK_INLINE void splat_acc(int half, int K, const float *a, const float *b, size_t bk, v128_t *xs, v128_t *ys)
{
    splat_acc_at(half, K, a, b, bk, 4, xs, ys);
}

static void tile_splat(int mr, int nr, int K, const float *a, const float *b, size_t bk, float *c,
                       int ldc, const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate)
{
    v128_t xs[WGK_CONV_MR], ys[WGK_CONV_MR];
    splat_acc(nr <= 4, K, a, b, bk, xs, ys);
    if (!store_whole(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate))
        store_tile(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
}

/* tile_splat with no bias or clamp (wgk_f32_conv_ukernel_splat decides once), so that
 * store_whole's bias and clamp fold away. Calling tile_splat instead was measured
 * slower in wasmtime and in V8 (a 64 -> 256 1x1 conv with a residual on 56x56). */
static void tile_splat_plain(int mr, int nr, int K, const float *a, const float *b, size_t bk, float *c,
                             int ldc, const float *res, int ldr, int accumulate)
{
    const float inf = __builtin_inff();
    v128_t xs[WGK_CONV_MR], ys[WGK_CONV_MR];
    splat_acc(nr <= 4, K, a, b, bk, xs, ys);
    if (!store_whole(xs, ys, mr, nr, c, ldc, NULL, res, ldr, -inf, inf, accumulate))
        store_tile(xs, ys, mr, nr, c, ldc, NULL, res, ldr, -inf, inf, accumulate);
}

/* c = (accumulate ? c : 0) +- the tile (rows xs[r] | ys[r], nr columns): a Strassen
 * product's second destination, no bias, residual or clamp. */
static void add_tile(const v128_t *xs, const v128_t *ys, int mr, int nr, float *c, int ldc, int negate,
                     int accumulate)
{
    const v128_t zero = wasm_f32x4_splat(0.0f);
    for (int r = 0; r < mr; r++) {
        float *cr = c + (ptrdiff_t)r * ldc;
        if (nr == WGK_CONV_NR) {
            const v128_t u = accumulate ? wasm_v128_load(cr) : zero, v = accumulate ? wasm_v128_load(cr + 4) : zero;
            wasm_v128_store(cr, negate ? wasm_f32x4_sub(u, xs[r]) : wasm_f32x4_add(u, xs[r]));
            wasm_v128_store(cr + 4, negate ? wasm_f32x4_sub(v, ys[r]) : wasm_f32x4_add(v, ys[r]));
            continue;
        }
        float t[WGK_CONV_NR];
        wasm_v128_store(t, xs[r]);
        wasm_v128_store(t + 4, ys[r]);
        for (int j = 0; j < nr; j++)
            cr[j] = (accumulate ? cr[j] : 0.0f) + (negate ? -t[j] : t[j]);
    }
}

static void tile_splat_dual(int mr, int nr, int K, const float *a, const float *b, size_t bk, float *c,
                            int ldc, const float *bias, const float *res, int ldr, float min, float max,
                            int accumulate, const wgk_conv_dst2 *d2, int nr2, int j)
{
    v128_t xs[WGK_CONV_MR], ys[WGK_CONV_MR];
    splat_acc((nr > nr2 ? nr : nr2) <= 4, K, a, b, bk, xs, ys);
    if (nr > 0 && !store_whole(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate))
        store_tile(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
    if (nr2 == WGK_CONV_NR && mr == WGK_CONV_MR && !d2->negate)
        store_whole(xs, ys, mr, nr2, d2->c + j, ldc, NULL, NULL, 0, -__builtin_inff(), __builtin_inff(),
                    d2->accumulate);
    else if (nr2 > 0)
        add_tile(xs, ys, mr, nr2, d2->c + j, ldc, d2->negate, d2->accumulate);
}

void wgk_conv_splat_strided(const float *src, size_t stride, int K, float *dst)
{
    for (int k = 0; k < K; k++, src += stride, dst += 16) {
        const v128_t v = wasm_v128_load(src);
        wasm_v128_store(dst, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0));
        wasm_v128_store(dst + 4, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1));
        wasm_v128_store(dst + 8, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2));
        wasm_v128_store(dst + 12, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3));
    }
}

void wgk_conv_splat_a(const float *a, int K, float *dst)
{
    wgk_conv_splat_strided(a, WGK_CONV_MR, K, dst);
}

void wgk_f32_conv_ukernel_splat_t(int K, const float *a, const float *b, size_t bk, size_t b1, float *c, int ldc,
                                  int accumulate)
{
    v128_t xs[WGK_CONV_MR], ys[WGK_CONV_MR];
    splat_acc_at(0, K, a, b, bk, b1, xs, ys);
    /* Rows r (of a) x columns j (of b) -> c[j*ldc + r]: two 4x4 transposes. */
    for (int h = 0; h < 2; h++) {
        const v128_t *v = h ? ys : xs;
        const v128_t u0 = wasm_i32x4_shuffle(v[0], v[1], 0, 4, 1, 5), u1 = wasm_i32x4_shuffle(v[2], v[3], 0, 4, 1, 5);
        const v128_t u2 = wasm_i32x4_shuffle(v[0], v[1], 2, 6, 3, 7), u3 = wasm_i32x4_shuffle(v[2], v[3], 2, 6, 3, 7);
        const v128_t t[4] = {wasm_i32x4_shuffle(u0, u1, 0, 1, 4, 5), wasm_i32x4_shuffle(u0, u1, 2, 3, 6, 7),
                             wasm_i32x4_shuffle(u2, u3, 0, 1, 4, 5), wasm_i32x4_shuffle(u2, u3, 2, 3, 6, 7)};
        for (int j = 0; j < 4; j++) {
            float *o = c + (ptrdiff_t)(4 * h + j) * ldc;
            wasm_v128_store(o, accumulate ? wasm_f32x4_add(t[j], wasm_v128_load(o)) : t[j]);
        }
    }
}

/* Row r's 8 sums (lo: columns 0-3, hi: 4-7) into column r of the transposed tile. */
static void put_row_t(v128_t lo, v128_t hi, int r, float *c, int ldc, int accumulate)
{
    float t[WGK_CONV_NR];
    wasm_v128_store(t, lo);
    wasm_v128_store(t + 4, hi);
    for (int j = 0; j < WGK_CONV_NR; j++) {
        float *o = c + (ptrdiff_t)j * ldc + r;
        *o = t[j] + (accumulate ? *o : 0.0f);
    }
}

/* acc (+)= x * (the 8 weights of row k of B): one row's multiply-adds for one k. */
#define FEW_MADD(p, q, x, b)                                                                                           \
    do {                                                                                                               \
        p = wasm_f32x4_add(p, wasm_f32x4_mul(x, wasm_v128_load(b)));                                                    \
        q = wasm_f32x4_add(q, wasm_f32x4_mul(x, wasm_v128_load((b) + b1)));                                             \
    } while (0)

void wgk_f32_conv_ukernel_t_few(int rows, int K, const float *x, const float *b, size_t bk, size_t b1, float *c,
                                int ldc, int accumulate)
{
    const v128_t z = wasm_f32x4_splat(0.0f);
    /* Accumulators pN / qN (columns 0-3 / 4-7). 1 row: N = k % 4; 2 rows: N = 2 * (k %
     * 2) + row. Each 4 values of a row are one load and 4 lane broadcasts. */
    v128_t p0 = z, q0 = z, p1 = z, q1 = z, p2 = z, q2 = z, p3 = z, q3 = z;
    const float *x1 = x + K;
    int k = 0;
    if (rows == 1) {
        for (; k + 4 <= K; k += 4, b += 4 * bk) {
            const v128_t v = wasm_v128_load(x + k);
            FEW_MADD(p0, q0, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0), b);
            FEW_MADD(p1, q1, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1), b + bk);
            FEW_MADD(p2, q2, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2), b + 2 * bk);
            FEW_MADD(p3, q3, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3), b + 3 * bk);
        }
        for (; k < K; k++, b += bk)
            FEW_MADD(p0, q0, wasm_f32x4_splat(x[k]), b);
        put_row_t(wasm_f32x4_add(wasm_f32x4_add(p0, p1), wasm_f32x4_add(p2, p3)),
                  wasm_f32x4_add(wasm_f32x4_add(q0, q1), wasm_f32x4_add(q2, q3)), 0, c, ldc, accumulate);
        return;
    }
    for (; k + 4 <= K; k += 4, b += 4 * bk) {
        const v128_t u = wasm_v128_load(x + k), v = wasm_v128_load(x1 + k);
        FEW_MADD(p0, q0, wasm_i32x4_shuffle(u, u, 0, 0, 0, 0), b);
        FEW_MADD(p1, q1, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0), b);
        FEW_MADD(p2, q2, wasm_i32x4_shuffle(u, u, 1, 1, 1, 1), b + bk);
        FEW_MADD(p3, q3, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1), b + bk);
        FEW_MADD(p0, q0, wasm_i32x4_shuffle(u, u, 2, 2, 2, 2), b + 2 * bk);
        FEW_MADD(p1, q1, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2), b + 2 * bk);
        FEW_MADD(p2, q2, wasm_i32x4_shuffle(u, u, 3, 3, 3, 3), b + 3 * bk);
        FEW_MADD(p3, q3, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3), b + 3 * bk);
    }
    for (; k < K; k++, b += bk) {
        FEW_MADD(p0, q0, wasm_f32x4_splat(x[k]), b);
        FEW_MADD(p1, q1, wasm_f32x4_splat(x1[k]), b);
    }
    put_row_t(wasm_f32x4_add(p0, p2), wasm_f32x4_add(q0, q2), 0, c, ldc, accumulate);
    put_row_t(wasm_f32x4_add(p1, p3), wasm_f32x4_add(q1, q3), 1, c, ldc, accumulate);
}
#undef FEW_MADD

void wgk_conv_splat_a2(const float *a, const float *a2, int negate, int K, float *dst)
{
    if (!a2) {
        wgk_conv_splat_a(a, K, dst);
        return;
    }
    for (int k = 0; k < K; k++) {
        const v128_t u = wasm_v128_load(a + 4 * k), w = wasm_v128_load(a2 + 4 * k);
        const v128_t v = negate ? wasm_f32x4_sub(u, w) : wasm_f32x4_add(u, w);
        wasm_v128_store(dst, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0));
        wasm_v128_store(dst + 4, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1));
        wasm_v128_store(dst + 8, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2));
        wasm_v128_store(dst + 12, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3));
        dst += 16;
    }
}

#else

/* as: floats of A per k, al: distance of the rows' values (4, 1 packed; 16, 4 splat). */
static void acc_gen(int as, int al, int K, const float *a, const float *b, size_t bk,
                    float acc[WGK_CONV_MR][WGK_CONV_NR])
{
    for (int k = 0; k < K; k++) {
        for (int r = 0; r < WGK_CONV_MR; r++) {
            const float s = a[r * al];
            for (int j = 0; j < WGK_CONV_NR; j++)
                acc[r][j] += s * b[j];
        }
        a += as;
        b += bk;
    }
}

static void store_gen(float acc[WGK_CONV_MR][WGK_CONV_NR], int mr, int nr, float *c, int ldc,
                      const float *bias, const float *res, int ldr, float min, float max, int accumulate)
{
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j++) {
            float v = acc[r][j] + (accumulate ? c[(ptrdiff_t)r * ldc + j] : 0.0f);
            if (bias)
                v += bias[r];
            if (res)
                v += res[(ptrdiff_t)r * ldr + j];
            v = v < min ? min : v;
            c[(ptrdiff_t)r * ldc + j] = v > max ? max : v;
        }
}

static void tile(int mr, int nr, int K, const float *a, const float *b, float *c, int ldc,
                 const float *bias, const float *res, int ldr, float min, float max, int accumulate)
{
    float acc[WGK_CONV_MR][WGK_CONV_NR] = {{0}};
    acc_gen(WGK_CONV_MR, 1, K, a, b, WGK_CONV_NR, acc);
    store_gen(acc, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
}

static void tile_splat(int mr, int nr, int K, const float *a, const float *b, size_t bk, float *c,
                       int ldc, const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate)
{
    float acc[WGK_CONV_MR][WGK_CONV_NR] = {{0}};
    acc_gen(4 * WGK_CONV_MR, 4, K, a, b, bk, acc);
    store_gen(acc, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
}

static void tile_splat_dual(int mr, int nr, int K, const float *a, const float *b, size_t bk, float *c,
                            int ldc, const float *bias, const float *res, int ldr, float min, float max,
                            int accumulate, const wgk_conv_dst2 *d2, int nr2, int j)
{
    float acc[WGK_CONV_MR][WGK_CONV_NR] = {{0}};
    acc_gen(4 * WGK_CONV_MR, 4, K, a, b, bk, acc);
    if (nr > 0)
        store_gen(acc, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
    for (int r = 0; r < mr; r++)
        for (int i = 0; i < nr2; i++) {
            float *cv = d2->c + (ptrdiff_t)r * ldc + j + i;
            *cv = (d2->accumulate ? *cv : 0.0f) + (d2->negate ? -acc[r][i] : acc[r][i]);
        }
}

void wgk_conv_splat_a(const float *a, int K, float *dst)
{
    wgk_conv_splat_strided(a, WGK_CONV_MR, K, dst);
}

void wgk_conv_splat_strided(const float *src, size_t stride, int K, float *dst)
{
    for (int k = 0; k < K; k++, src += stride)
        for (int r = 0; r < 4; r++)
            for (int l = 0; l < 4; l++)
                *dst++ = src[r];
}

void wgk_f32_conv_ukernel_splat_t(int K, const float *a, const float *b, size_t bk, size_t b1, float *c, int ldc,
                                  int accumulate)
{
    float acc[WGK_CONV_MR][WGK_CONV_NR] = {{0}};
    for (int k = 0; k < K; k++, a += 4 * WGK_CONV_MR, b += bk)
        for (int r = 0; r < WGK_CONV_MR; r++)
            for (int j = 0; j < WGK_CONV_NR; j++)
                acc[r][j] += a[r * 4] * (j < 4 ? b[j] : b[b1 + j - 4]);
    for (int r = 0; r < WGK_CONV_MR; r++)
        for (int j = 0; j < WGK_CONV_NR; j++)
            c[(ptrdiff_t)j * ldc + r] = acc[r][j] + (accumulate ? c[(ptrdiff_t)j * ldc + r] : 0.0f);
}

void wgk_f32_conv_ukernel_t_few(int rows, int K, const float *x, const float *b, size_t bk, size_t b1, float *c,
                                int ldc, int accumulate)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < WGK_CONV_NR; j++) {
            float s = 0.0f;
            for (int k = 0; k < K; k++)
                s += x[(size_t)r * K + k] * (j < 4 ? b[k * bk + j] : b[k * bk + b1 + j - 4]);
            float *o = c + (ptrdiff_t)j * ldc + r;
            *o = s + (accumulate ? *o : 0.0f);
        }
}

void wgk_conv_splat_a2(const float *a, const float *a2, int negate, int K, float *dst)
{
    for (int k = 0; k < K; k++)
        for (int r = 0; r < WGK_CONV_MR; r++) {
            const float u = a[k * WGK_CONV_MR + r], w = a2 ? a2[k * WGK_CONV_MR + r] : 0.0f;
            for (int l = 0; l < 4; l++)
                dst[(k * WGK_CONV_MR + r) * 4 + l] = negate ? u - w : u + w;
        }
}

#endif

void wgk_f32_conv_ukernel_splat(int mr, int ncols, int K, const float *a, const float *b,
                                size_t bstride, float *c, int ldc, const float *bias,
                                const float *res, int ldr, float min, float max, int accumulate)
{
#ifdef __wasm_simd128__
    if (!bias && !clamps(min, max)) {
        for (int j = 0; j < ncols; j += WGK_CONV_NR, b += bstride)
            tile_splat_plain(mr, ncols - j < WGK_CONV_NR ? ncols - j : WGK_CONV_NR, K, a, b, WGK_CONV_NR, c + j, ldc,
                             res ? res + j : NULL, ldr, accumulate);
        return;
    }
#endif
    for (int j = 0; j < ncols; j += WGK_CONV_NR) {
        const int nr = ncols - j < WGK_CONV_NR ? ncols - j : WGK_CONV_NR;
        tile_splat(mr, nr, K, a, b, WGK_CONV_NR, c + j, ldc, bias, res ? res + j : NULL, ldr, min, max,
                   accumulate);
        b += bstride;
    }
}

void wgk_f32_conv_ukernel_splat_dual(int mr, int ncols, int K, const float *a, const float *b,
                                     size_t bstride, float *c, int ldc, const float *bias,
                                     const float *res, int ldr, float min, float max, int accumulate,
                                     const wgk_conv_dst2 *d2)
{
    const int n = d2 && d2->ncols > ncols ? d2->ncols : ncols;
    for (int j = 0; j < n; j += WGK_CONV_NR) {
        const int nr = ncols - j < WGK_CONV_NR ? ncols - j : WGK_CONV_NR;
        const int nr2 = !d2 ? 0 : d2->ncols - j < WGK_CONV_NR ? d2->ncols - j : WGK_CONV_NR;
        tile_splat_dual(mr, nr, K, a, b, WGK_CONV_NR, c + j, ldc, bias, res ? res + j : NULL, ldr, min, max,
                        accumulate, d2, nr2, j);
        b += bstride;
    }
}

void wgk_f32_conv_ukernel_splat_rows(int mr, int ncols, int K, const float *a, const float *b,
                                     size_t ldb, float *c, int ldc, const float *bias,
                                     const float *res, int ldr, float min, float max, int accumulate)
{
#ifdef __wasm_simd128__
    if (!bias && !clamps(min, max)) {
        for (int j = 0; j < ncols; j += WGK_CONV_NR)
            tile_splat_plain(mr, ncols - j < WGK_CONV_NR ? ncols - j : WGK_CONV_NR, K, a, b + j, ldb, c + j, ldc,
                             res ? res + j : NULL, ldr, accumulate);
        return;
    }
#endif
    for (int j = 0; j < ncols; j += WGK_CONV_NR)
        tile_splat(mr, ncols - j < WGK_CONV_NR ? ncols - j : WGK_CONV_NR, K, a, b + j, ldb, c + j, ldc, bias,
                   res ? res + j : NULL, ldr, min, max, accumulate);
}

void wgk_f32_conv_ukernel(int mr, int ncols, int K, const float *a, const float *b, size_t bstride,
                          float *c, int ldc, const float *bias, const float *res, int ldr,
                          float min, float max, int accumulate)
{
    for (int j = 0; j < ncols; j += WGK_CONV_NR) {
        const int nr = ncols - j < WGK_CONV_NR ? ncols - j : WGK_CONV_NR;
        tile(mr, nr, K, a, b, c + j, ldc, bias, res ? res + j : NULL, ldr, min, max, accumulate);
        b += bstride;
    }
}
