/* data_split.c: see data_split.h. Every read is bounds-checked; anything unexpected means
 * "do not split", never an error. */
#include "data_split.h"
#include "wasm_read.h"

#include <stdlib.h>
#include <string.h>

typedef wgh_rd rd;

/* u32 fields: at most 5 LEB128 bytes. */
static uint32_t rd_u32(rd *r)
{
    return wgh_rd_u32(r, 5);
}

/* A signed LEB128 i32 (i32.const's immediate). */
static int32_t rd_s32(rd *r)
{
    int64_t v;
    if (!wg_sleb128_read(&r->p, r->end, 5, &v) || v < INT32_MIN || v > INT32_MAX) {
        r->bad = true;
        return 0;
    }
    return (int32_t)v;
}

#define rd_byte wgh_rd_byte

/* Parses the data section payload [p, end) into segments; false when it is not one we can
 * take out (or not well-formed). base is the module start, for file offsets. */
static bool parse_data(const uint8_t *base, const uint8_t *p, const uint8_t *end, uint64_t mem_min,
                       wgh_split *out)
{
    rd r = {p, end, false};
    uint32_t n = rd_u32(&r);
    /* Each segment takes at least 4 bytes: a bound on n before allocating. */
    if (r.bad || n > (size_t)(end - p) / 4)
        return false;
    out->segs = calloc(n ? n : 1, sizeof *out->segs);
    if (!out->segs)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t flags = rd_u32(&r);
        if (flags == 2 && rd_u32(&r) != 0) /* explicit memory index: only memory 0 */
            return false;
        if (r.bad || (flags != 0 && flags != 2))
            return false; /* passive segments (1) are for memory.init */
        if (rd_byte(&r) != 0x41) /* i32.const */
            return false;
        uint32_t off = (uint32_t)rd_s32(&r);
        if (rd_byte(&r) != 0x0b) /* end */
            return false;
        uint32_t len = rd_u32(&r);
        if (r.bad || (size_t)(r.end - r.p) < len)
            return false;
        /* A segment past the initial memory makes instantiation fail: wasmtime says so. */
        if ((uint64_t)off + len > mem_min)
            return false;
        out->segs[i] = (wgh_segment){off, (uint64_t)(r.p - base), len};
        out->data_bytes += len;
        r.p += len;
    }
    out->n_segs = n;
    return r.p == r.end;
}

wg_status wgh_split_data(const uint8_t *bytes, size_t len, uint64_t mem_min, wgh_split *out,
                         bool *split)
{
    memset(out, 0, sizeof *out);
    *split = false;
    if (len < 8)
        return WG_OK;
    rd r = {bytes + 8, bytes + len, false};
    const uint8_t *data = NULL, *data_end = NULL, *data_payload = NULL;
    while (r.p < r.end) {
        const uint8_t *start = r.p;
        uint8_t id = rd_byte(&r);
        uint32_t size = rd_u32(&r);
        if (r.bad || (size_t)(r.end - r.p) < size)
            goto no;
        const uint8_t *payload = r.p;
        r.p += size;
        if (id == 0)
            continue;
        if (data || id == 8 || id == 12) /* after data, start function, data count */
            goto no;
        if (id == 11) {
            data = start;
            data_payload = payload;
            data_end = r.p;
        }
    }
    if (!data)
        goto no;
    if (!parse_data(bytes, data_payload, data_end, mem_min, out))
        goto no;
    size_t keep = len - (size_t)(data_end - data);
    out->code = malloc(keep);
    if (!out->code) {
        wgh_split_free(out);
        return WG_ERR_NOMEM;
    }
    memcpy(out->code, bytes, (size_t)(data - bytes));
    memcpy(out->code + (data - bytes), data_end, (size_t)(bytes + len - data_end));
    out->code_len = keep;
    *split = true;
    return WG_OK;
no:
    wgh_split_free(out);
    return WG_OK;
}

void wgh_split_free(wgh_split *s)
{
    free(s->code);
    free(s->segs);
    memset(s, 0, sizeof *s);
}
