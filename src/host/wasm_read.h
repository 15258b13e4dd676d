/*
 * wasm_read.h: the bounds-checked reader of wasm binary fields shared by the module
 * scanner (wasm_scan.c) and the data-segment splitter (data_split.c). A read past `end`
 * or a malformed number sets `bad` and returns 0; callers check `bad` once per item.
 */
#ifndef WGH_WASM_READ_H
#define WGH_WASM_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/leb128.h"

typedef struct wgh_rd {
    const uint8_t *p, *end;
    bool bad;
} wgh_rd;

/* An unsigned LEB128 of at most max_bytes bytes (more than 64 bits is malformed). */
static inline uint64_t wgh_rd_uleb(wgh_rd *r, int max_bytes)
{
    uint64_t v;
    if (wg_leb128_read(&r->p, r->end, max_bytes, &v))
        return v;
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
