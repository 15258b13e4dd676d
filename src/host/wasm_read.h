/*
 * wasm_read.h: the bounds-checked reader of wasm binary fields shared by the module
 * scanner (wasm_scan.c) and the data-segment splitter (data_split.c). A read past `end`
 * or a malformed number sets `bad` and returns 0; callers check `bad` once per item.
 */
#ifndef WGH_WASM_READ_H
#define WGH_WASM_READ_H

#include <stdbool.h>
#include <stdint.h>

typedef struct wgh_rd {
    const uint8_t *p, *end;
    bool bad;
} wgh_rd;

/* An unsigned LEB128 of at most max_bytes bytes (bits past 64 are dropped). */
static inline uint64_t wgh_rd_uleb(wgh_rd *r, int max_bytes)
{
    uint64_t v = 0;
    for (int i = 0, shift = 0; i < max_bytes; i++, shift += 7) {
        if (r->p >= r->end)
            break;
        uint8_t b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

/* A u32 field: an unsigned LEB128 of at most max_bytes bytes whose value fits 32 bits. */
static inline uint32_t wgh_rd_u32(wgh_rd *r, int max_bytes)
{
    uint64_t v = wgh_rd_uleb(r, max_bytes);
    if (v > UINT32_MAX)
        r->bad = true;
    return (uint32_t)v;
}

static inline uint8_t wgh_rd_byte(wgh_rd *r)
{
    if (r->p >= r->end) {
        r->bad = true;
        return 0;
    }
    return *r->p++;
}

#endif
