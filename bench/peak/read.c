/*
 * read.c: the memory-read ceiling of one wasm thread, for judging a decode step (which
 * reads every weight once): the sum of a buffer far larger than the caches, four v128
 * loads an iteration into four independent accumulators, so that the loop waits on
 * memory and not on adds. Run by bench/peak/read.mjs.
 */
#include <wasm_simd128.h>

/* Sums n floats from p (n a multiple of 16; p 16-byte aligned). */
__attribute__((export_name("read_sum"))) float read_sum(const float *p, int n)
{
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
    for (int i = 0; i < n; i += 16) {
        a0 = wasm_f32x4_add(a0, wasm_v128_load(p + i));
        a1 = wasm_f32x4_add(a1, wasm_v128_load(p + i + 4));
        a2 = wasm_f32x4_add(a2, wasm_v128_load(p + i + 8));
        a3 = wasm_f32x4_add(a3, wasm_v128_load(p + i + 12));
    }
    const v128_t s = wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3));
    return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
           wasm_f32x4_extract_lane(s, 3);
}

/* Where the buffer starts: the first 64 KiB page past the stack and data. */
extern unsigned char __heap_base;
__attribute__((export_name("heap"))) unsigned heap(void) { return ((unsigned)&__heap_base + 65535u) & ~65535u; }
