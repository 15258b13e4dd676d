/*
 * f32-gemm-4x8-packed.c: the conv micro-kernel (contract in wgk_conv_packed.h): a 4x8
 * tile of C from a packed A panel (4 floats per k) and a packed B panel (8 floats per
 * k). SIMD128: per k, 1 A load + 4 lane shuffles, 2 B loads, 8 multiply-adds into 8
 * f32x4 accumulators. Measured in wasmtime on x86 (Sapphire-Rapids-class, loaded):
 * this 4x8 shuffle form ~28 GFLOP/s (33 with relaxed FMA); a 6x8 tile with
 * v128.load32_splat only ~19 (Cranelift turns each load-splat into a GPR load, movd
 * and vpbroadcastd, all on one port); 6x8 and 4x12 shuffle forms were no faster
 * (spills in the FMA build). wgk_f32_conv_ukernel_splat reads a broadcast A panel
 * (16 floats per k, wgk_conv_splat_a) instead: 4 loads replace the 4 shuffles, ~25%
 * faster (the drivers use it when a panel serves more than 2 tiles). Relaxed SIMD builds use
 * f32x4.relaxed_madd (an FMA on x86 and ARM); plain SIMD a multiply then an add;
 * scalar builds a plain loop.
 */
#include "wgk_conv_packed.h"

#if defined(__wasm_simd128__)

#define MADD WGK_MADD

/* bias, residual and clamp for 4 columns of one row. */
WGK_INLINE v128_t finish(v128_t v, const float *bias, const float *res, v128_t lo, v128_t hi)
{
    if (bias)
        v = wasm_f32x4_add(v, wasm_v128_load32_splat(bias));
    if (res)
        v = wasm_f32x4_add(v, wasm_v128_load(res));
    return wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi);
}

static void store_tile(const v128_t *xs, const v128_t *ys, int mr, int nr, float *c, int ldc,
                       const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate);

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
        wasm_v128_store(t, finish(u, bias ? bias + r : NULL, rr ? rt : NULL, lo, hi));
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
    v128_t x0 = wasm_f32x4_splat(0.0f), y0 = x0, x1 = x0, y1 = x0, x2 = x0, y2 = x0, x3 = x0,
           y3 = x0;
    for (int k = 0; k < K; k++) {
        /* One load of the 4 weights of this k, then lane broadcasts (pshufd): cheaper
         * on x86 engines than 4 load-splats, which become GPR load + movd + broadcast. */
        const v128_t av = wasm_v128_load(a);
        const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
        v128_t s = wasm_i32x4_shuffle(av, av, 0, 0, 0, 0);
        x0 = MADD(x0, s, b0);
        y0 = MADD(y0, s, b1);
        s = wasm_i32x4_shuffle(av, av, 1, 1, 1, 1);
        x1 = MADD(x1, s, b0);
        y1 = MADD(y1, s, b1);
        s = wasm_i32x4_shuffle(av, av, 2, 2, 2, 2);
        x2 = MADD(x2, s, b0);
        y2 = MADD(y2, s, b1);
        s = wasm_i32x4_shuffle(av, av, 3, 3, 3, 3);
        x3 = MADD(x3, s, b0);
        y3 = MADD(y3, s, b1);
        a += WGK_CONV_MR;
        b += WGK_CONV_NR;
    }
    const v128_t xs[WGK_CONV_MR] = {x0, x1, x2, x3}, ys[WGK_CONV_MR] = {y0, y1, y2, y3};
    store_tile(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
}

/* The epilogue of a 4x8 tile (rows xs[r] | ys[r]). */
static void store_tile(const v128_t *xs, const v128_t *ys, int mr, int nr, float *c, int ldc,
                       const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate)
{
    const v128_t lo = wasm_f32x4_splat(min), hi = wasm_f32x4_splat(max);
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
            wasm_v128_store(cr, finish(u, br, rr, lo, hi));
            wasm_v128_store(cr + 4, finish(v, br, rr ? rr + 4 : NULL, lo, hi));
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
        wasm_v128_store(t, finish(u, br, rr ? rt : NULL, lo, hi));
        wasm_v128_store(t + 4, finish(v, br, rr ? rt + 4 : NULL, lo, hi));
        for (int j = 0; j < nr; j++)
            cr[j] = t[j];
    }
}

/* The same 4x8 tile from a broadcast A panel (16 floats per k: each weight 4 times,
 * wgk_conv_splat_a): 4 plain loads instead of 1 load + 4 shuffles, which compete with
 * the multiplies and adds for the vector ALU ports (about 25% faster in wasmtime). */
static void tile_splat(int mr, int nr, int K, const float *a, const float *b, size_t bk, float *c,
                       int ldc, const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate)
{
    v128_t x0 = wasm_f32x4_splat(0.0f), y0 = x0, x1 = x0, y1 = x0, x2 = x0, y2 = x0, x3 = x0,
           y3 = x0;
    if (nr <= 4) {
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
            const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
            v128_t s = wasm_v128_load(a);
            x0 = MADD(x0, s, b0);
            y0 = MADD(y0, s, b1);
            s = wasm_v128_load(a + 4);
            x1 = MADD(x1, s, b0);
            y1 = MADD(y1, s, b1);
            s = wasm_v128_load(a + 8);
            x2 = MADD(x2, s, b0);
            y2 = MADD(y2, s, b1);
            s = wasm_v128_load(a + 12);
            x3 = MADD(x3, s, b0);
            y3 = MADD(y3, s, b1);
            a += 4 * WGK_CONV_MR;
            b += bk;
        }
    }
    const v128_t xs[WGK_CONV_MR] = {x0, x1, x2, x3}, ys[WGK_CONV_MR] = {y0, y1, y2, y3};
    store_tile(xs, ys, mr, nr, c, ldc, bias, res, ldr, min, max, accumulate);
}

void wgk_conv_splat_a(const float *a, int K, float *dst)
{
    for (int k = 0; k < K; k++) {
        const v128_t v = wasm_v128_load(a + 4 * k);
        wasm_v128_store(dst, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0));
        wasm_v128_store(dst + 4, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1));
        wasm_v128_store(dst + 8, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2));
        wasm_v128_store(dst + 12, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3));
        dst += 16;
    }
}

#else

/* as: floats of A per k, al: distance of the rows' values (4, 1 packed; 16, 4 splat). */
static void tile_gen(int as, int al, int mr, int nr, int K, const float *a, const float *b, size_t bk,
                     float *c, int ldc, const float *bias, const float *res, int ldr, float min, float max,
                     int accumulate)
{
    float acc[WGK_CONV_MR][WGK_CONV_NR] = {{0}};
    for (int k = 0; k < K; k++) {
        for (int r = 0; r < WGK_CONV_MR; r++) {
            const float s = a[r * al];
            for (int j = 0; j < WGK_CONV_NR; j++)
                acc[r][j] += s * b[j];
        }
        a += as;
        b += bk;
    }
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
    tile_gen(WGK_CONV_MR, 1, mr, nr, K, a, b, WGK_CONV_NR, c, ldc, bias, res, ldr, min, max, accumulate);
}

static void tile_splat(int mr, int nr, int K, const float *a, const float *b, size_t bk, float *c,
                       int ldc, const float *bias, const float *res, int ldr, float min, float max,
                       int accumulate)
{
    tile_gen(4 * WGK_CONV_MR, 4, mr, nr, K, a, b, bk, c, ldc, bias, res, ldr, min, max, accumulate);
}

void wgk_conv_splat_a(const float *a, int K, float *dst)
{
    for (int k = 0; k < K; k++)
        for (int r = 0; r < WGK_CONV_MR; r++)
            for (int l = 0; l < 4; l++)
                dst[(k * WGK_CONV_MR + r) * 4 + l] = a[k * WGK_CONV_MR + r];
}

#endif

void wgk_f32_conv_ukernel_splat(int mr, int ncols, int K, const float *a, const float *b,
                                size_t bstride, float *c, int ldc, const float *bias,
                                const float *res, int ldr, float min, float max, int accumulate)
{
    for (int j = 0; j < ncols; j += WGK_CONV_NR) {
        const int nr = ncols - j < WGK_CONV_NR ? ncols - j : WGK_CONV_NR;
        tile_splat(mr, nr, K, a, b, WGK_CONV_NR, c + j, ldc, bias, res ? res + j : NULL, ldr, min, max,
                   accumulate);
        b += bstride;
    }
}

void wgk_f32_conv_ukernel_splat_rows(int mr, int ncols, int K, const float *a, const float *b,
                                     size_t ldb, float *c, int ldc, const float *bias,
                                     const float *res, int ldr, float min, float max, int accumulate)
{
    for (int j = 0; j + WGK_CONV_NR <= ncols; j += WGK_CONV_NR)
        tile_splat(mr, WGK_CONV_NR, K, a, b + j, ldb, c + j, ldc, bias, res ? res + j : NULL, ldr, min,
                   max, accumulate);
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
