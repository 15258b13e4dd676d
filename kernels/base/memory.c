/*
 * memory.c: memcpy, memmove, memset for the freestanding module (clang emits calls to
 * them for struct copies and large initialisers, and generated code calls memcpy).
 *
 * `no_builtin` stops clang from recognising these loops as memcpy/memset idioms, which
 * would turn each function into a call to itself. Word-sized (or 16-byte SIMD) steps do
 * the bulk; wasm allows unaligned loads and stores, which __builtin_memcpy of a fixed
 * small size compiles to.
 */
#include "wgk_base.h"

#define NO_BUILTIN __attribute__((no_builtin))

#ifdef __wasm_simd128__
#define CHUNK 16
typedef v128_t chunk_t;
#else
#define CHUNK 8
typedef uint64_t chunk_t;
#endif

NO_BUILTIN static inline chunk_t load_chunk(const unsigned char *p)
{
#ifdef __wasm_simd128__
    return wasm_v128_load(p);
#else
    chunk_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
#endif
}

NO_BUILTIN static inline void store_chunk(unsigned char *p, chunk_t v)
{
#ifdef __wasm_simd128__
    wasm_v128_store(p, v);
#else
    __builtin_memcpy(p, &v, sizeof v);
#endif
}

NO_BUILTIN void *memcpy(void *WGK_RESTRICT dst, const void *WGK_RESTRICT src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (; n >= 4 * CHUNK; n -= 4 * CHUNK, d += 4 * CHUNK, s += 4 * CHUNK) {
        chunk_t a = load_chunk(s), b = load_chunk(s + CHUNK);
        chunk_t c = load_chunk(s + 2 * CHUNK), e = load_chunk(s + 3 * CHUNK);
        store_chunk(d, a);
        store_chunk(d + CHUNK, b);
        store_chunk(d + 2 * CHUNK, c);
        store_chunk(d + 3 * CHUNK, e);
    }
    for (; n >= CHUNK; n -= CHUNK, d += CHUNK, s += CHUNK)
        store_chunk(d, load_chunk(s));
    while (n--)
        *d++ = *s++;
    return dst;
}

NO_BUILTIN void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d == s || n == 0)
        return dst;
    /* Forward copy is safe when dst is below src or the ranges do not overlap. */
    if ((uintptr_t)d < (uintptr_t)s || (uintptr_t)d >= (uintptr_t)s + n) {
        for (; n >= CHUNK; n -= CHUNK, d += CHUNK, s += CHUNK)
            store_chunk(d, load_chunk(s)); /* each chunk is read before it is written */
        while (n--)
            *d++ = *s++;
        return dst;
    }
    /* dst overlaps the tail of src: copy backwards. */
    d += n;
    s += n;
    for (; n >= CHUNK; n -= CHUNK) {
        d -= CHUNK;
        s -= CHUNK;
        store_chunk(d, load_chunk(s));
    }
    while (n--)
        *--d = *--s;
    return dst;
}

NO_BUILTIN void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    unsigned char b = (unsigned char)c;
#ifdef __wasm_simd128__
    chunk_t v = wasm_i8x16_splat((int8_t)b);
#else
    chunk_t v = 0x0101010101010101ull * b;
#endif
    for (; n >= CHUNK; n -= CHUNK, d += CHUNK)
        store_chunk(d, v);
    while (n--)
        *d++ = b;
    return dst;
}
