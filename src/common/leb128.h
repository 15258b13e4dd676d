/*
 * leb128.h: the one LEB128 reader and writer of the compiler and the host: protobuf
 * varints (pb.c), the wasm module writer (codegen/wasm_module.c) and the wasm readers
 * (host/wasm_read.h) all use these. Header-only (static inline).
 */
#ifndef WG_LEB128_H
#define WG_LEB128_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of v as an unsigned LEB128 (1..10). */
static inline size_t wg_leb128_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v as an unsigned LEB128 at p (wg_leb128_size(v) bytes); returns the end. */
static inline uint8_t *wg_leb128_put(uint8_t *p, uint64_t v)
{
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        *p++ = b | (v ? 0x80 : 0);
    } while (v);
    return p;
}

/* Writes v as a signed LEB128 at p (at most 10 bytes); returns the end. */
static inline uint8_t *wg_sleb128_put(uint8_t *p, int64_t v)
{
    for (;;) {
        uint8_t b = v & 0x7f;
        v >>= 7; /* arithmetic shift: clang and gcc sign-extend */
        bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
        *p++ = b | (done ? 0 : 0x80);
        if (done)
            return p;
    }
}

/* Reads an unsigned LEB128 of at most max_bytes bytes at *p (before end) into *out and
 * advances *p. False, with *p somewhere inside, when it is truncated, longer than
 * max_bytes, or holds more than 64 bits. */
static inline bool wg_leb128_read(const uint8_t **p, const uint8_t *end, int max_bytes,
                                  uint64_t *out)
{
    uint64_t v = 0;
    for (int i = 0, shift = 0; i < max_bytes; i++, shift += 7) {
        if (*p >= end)
            return false;
        uint8_t b = *(*p)++;
        if (shift >= 63 && (b & 0x7f) >> (shift >= 64 ? 0 : 1))
            return false; /* more than 64 bits */
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* Reads a signed LEB128 of at most max_bytes (<= 9) bytes at *p (before end) into *out
 * and advances *p; false when truncated or longer than max_bytes. */
static inline bool wg_sleb128_read(const uint8_t **p, const uint8_t *end, int max_bytes,
                                   int64_t *out)
{
    int64_t v = 0;
    int shift = 0;
    uint8_t b;
    do {
        if (*p >= end || shift >= 7 * max_bytes)
            return false;
        b = *(*p)++;
        v |= (int64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (b & 0x40)
        v -= (int64_t)1 << shift; /* sign-extend */
    *out = v;
    return true;
}

#endif
