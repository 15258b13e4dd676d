/*
 * peak.c: the machine's SIMD128 arithmetic ceiling, for judging the kernels' GFLOP/s.
 * 12 independent f32x4 accumulators, each x = x + x * b per iteration (MADD(x, b) below:
 * a multiply then an add, or one f32x4.relaxed_madd when built with -mrelaxed-simd),
 * enough chains to hide the latency without spilling (12 of the 16 x86 vector
 * registers), no memory traffic. Run by bench/peak/run.
 *
 * peak_dot: the same for the int8 kernels' instruction pair, acc = acc + dot(a, x) with
 * i32x4.dot_i16x8_s (8 multiply-adds of int16 pairs into 4 int32 lanes), 12 chains.
 */
#include <wasm_simd128.h>

#if defined(__wasm_relaxed_simd__)
#define MADD(x, b) x = wasm_f32x4_relaxed_madd(x, b, x)
#else
#define MADD(x, b) x = wasm_f32x4_add(x, wasm_f32x4_mul(x, b))
#endif

#define CHAINS 12

__attribute__((export_name("chains"))) int chains(void) { return CHAINS; }

/* The body of a probe: 12 chains of x = STEP(x, b) from a, iters times, then their sum
 * (ADD) so that none is dead code; lane 0 of it is returned. */
#define TWELVE_CHAINS(STEP, ADD, a, b, iters)                                                      \
    v128_t x0 = a, x1 = a, x2 = a, x3 = a, x4 = a, x5 = a, x6 = a, x7 = a, x8 = a, x9 = a,        \
           x10 = a, x11 = a;                                                                       \
    for (int i = 0; i < iters; i++) {                                                              \
        STEP(x0, b); STEP(x1, b); STEP(x2, b); STEP(x3, b); STEP(x4, b); STEP(x5, b);              \
        STEP(x6, b); STEP(x7, b); STEP(x8, b); STEP(x9, b); STEP(x10, b); STEP(x11, b);            \
    }                                                                                              \
    const v128_t s = ADD(ADD(ADD(ADD(x0, x1), ADD(x2, x3)), ADD(ADD(x4, x5), ADD(x6, x7))),       \
                         ADD(ADD(x8, x9), ADD(x10, x11)))

__attribute__((export_name("peak"))) float peak(int iters, float a0, float b0)
{
    const v128_t a = wasm_f32x4_splat(a0), b = wasm_f32x4_splat(b0);
    TWELVE_CHAINS(MADD, wasm_f32x4_add, a, b, iters);
    return wasm_f32x4_extract_lane(s, 0);
}

/* The integer chains: x = x + dot(x, b), as the int8 GEMM and Winograd kernels add each
 * i32x4.dot_i16x8_s into an accumulator. 8 multiply-adds per step and chain. */
#define DOT(x, b) x = wasm_i32x4_add(x, wasm_i32x4_dot_i16x8(x, b))

__attribute__((export_name("peak_dot"))) int peak_dot(int iters, int a0, int b0)
{
    const v128_t a = wasm_i32x4_splat(a0), b = wasm_i32x4_splat(b0);
    TWELVE_CHAINS(DOT, wasm_i32x4_add, a, b, iters);
    return wasm_i32x4_extract_lane(s, 0);
}
