/*
 * wgk_ukernel_4x8.h: the 4x8 inner loop shared by the conv micro-kernel
 * (kernels/conv-ukernel/f32-conv-ukernel-4x8.c) and the SIMD128 GEMM
 * (kernels/gemm/f32-gemm-4x8-wasmsimd.c), written once. Kernel sources only (SIMD builds).
 *
 * Per k: one load of the 4 A values of this k, then lane broadcasts (pshufd), cheaper on
 * x86 engines than 4 load-splats, which Cranelift turns into GPR load + movd +
 * vpbroadcastd, all on one port; 2 B loads and 8 multiply-adds (WGK_MADD: an FMA in
 * relaxed builds) into the 8 accumulators. Inlined, with the strides as constants where
 * the caller has them, it compiles to the loop each caller had before.
 */
#ifndef WGK_UKERNEL_4X8_H
#define WGK_UKERNEL_4X8_H

#include "wgk_base.h"

#ifdef __wasm_simd128__

/* x[r] += A[r][k] * B[k][0..3], y[r] += A[r][k] * B[k][4..7] for k < K, rows r < 4, with
 * A[r][k] at a[k * as + r] (the 4 rows of a k adjacent) and B[k][j] at b[k * bs + j]. */
WGK_INLINE void wgk_f32_ukernel_4x8_loop(int K, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs,
                                         v128_t x[4], v128_t y[4])
{
    v128_t x0 = x[0], y0 = y[0], x1 = x[1], y1 = y[1], x2 = x[2], y2 = y[2], x3 = x[3], y3 = y[3];
    for (int k = 0; k < K; k++) {
        const v128_t av = wasm_v128_load(a);
        const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
        v128_t s = wasm_i32x4_shuffle(av, av, 0, 0, 0, 0);
        x0 = WGK_MADD(x0, s, b0);
        y0 = WGK_MADD(y0, s, b1);
        s = wasm_i32x4_shuffle(av, av, 1, 1, 1, 1);
        x1 = WGK_MADD(x1, s, b0);
        y1 = WGK_MADD(y1, s, b1);
        s = wasm_i32x4_shuffle(av, av, 2, 2, 2, 2);
        x2 = WGK_MADD(x2, s, b0);
        y2 = WGK_MADD(y2, s, b1);
        s = wasm_i32x4_shuffle(av, av, 3, 3, 3, 3);
        x3 = WGK_MADD(x3, s, b0);
        y3 = WGK_MADD(y3, s, b1);
        a += as;
        b += bs;
    }
    x[0] = x0, x[1] = x1, x[2] = x2, x[3] = x3;
    y[0] = y0, y[1] = y1, y[2] = y2, y[3] = y3;
}

#endif
#endif
