/*
 * gemm_epilogue.h: the epilogue of the GEMM kernels (wgk_gemm.h): alpha, beta * bias,
 * residual and clamp, for one value and (SIMD builds) for 4 adjacent columns of a row.
 * Internal to kernels/gemm.
 */
#ifndef WGK_GEMM_EPILOGUE_H
#define WGK_GEMM_EPILOGUE_H

#include "wgk_gemm.h"

static inline float wgk_gemm_epilogue1(const wgk_gemm_args *g, int m, int n, float acc)
{
    float v = acc * g->alpha;
    if (g->bias)
        v += g->beta * g->bias[(ptrdiff_t)m * g->bias_m + (ptrdiff_t)n * g->bias_n];
    if (g->res)
        v += g->res[(ptrdiff_t)m * g->ldr + n];
    v = v < g->min ? g->min : v;
    return v > g->max ? g->max : v;
}

#if defined(__wasm_simd128__)
WGK_INLINE v128_t wgk_gemm_epilogue4(const wgk_gemm_args *g, int m, int n, v128_t v, v128_t alpha,
                                     v128_t lo, v128_t hi)
{
    v = wasm_f32x4_mul(v, alpha);
    if (g->bias) {
        const float *bp = g->bias + (ptrdiff_t)m * g->bias_m + (ptrdiff_t)n * g->bias_n;
        v128_t b = g->bias_n ? wasm_v128_load(bp) : wasm_v128_load32_splat(bp);
        v = wasm_f32x4_add(v, wasm_f32x4_mul(b, wasm_f32x4_splat(g->beta)));
    }
    if (g->res)
        v = wasm_f32x4_add(v, wasm_v128_load(g->res + (ptrdiff_t)m * g->ldr + n));
    v = wasm_f32x4_pmax(v, lo);
    return wasm_f32x4_pmin(v, hi);
}
#endif

#endif
