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

/* Freestanding replacements (kernels/base/memory.c); clang also emits calls to these. */
void *memcpy(void *WGK_RESTRICT dst, const void *WGK_RESTRICT src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

#endif
