/*
 * wasm_module.c: adds the weights data segment and the metadata section to a module that
 * wasm-ld linked.
 *
 * Weights go in as one more active segment of the data section, at a fixed address
 * below the arena; the bytes are copied once from the packer's buffer into the file,
 * so the module starts with its weights already in their final layout (no C array
 * literal, no initialisation code). When a DataCount section is present, its count
 * is raised by one. The `wasmgraph` custom section goes last.
 *
 * A custom section "wasmgraph.pad" right before the data section makes the weight bytes
 * start at a multiple of WGC_WEIGHTS_ALIGN in the file: with the segment's address
 * aligned too, the host maps them into linear memory (copy-on-write) instead of reading
 * them (session.c).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/leb128.h"
#include "codegen.h"

#define leb_size wg_leb128_size
#define put_leb wg_leb128_put

/* Writes a custom section "wasmgraph.pad" sized so that `ahead` bytes after it the file
 * offset (from o) is a multiple of WGC_WEIGHTS_ALIGN. At most WGC_WEIGHTS_ALIGN + 20 bytes. */
static uint8_t *put_pad(uint8_t *o, uint8_t *op, size_t ahead)
{
    static const char pad_name[] = "wasmgraph.pad";
    const size_t name_len = sizeof pad_name - 1;
    for (size_t fill = 0;; fill++) {
        size_t payload = 1 + name_len + fill;
        size_t total = 1 + leb_size(payload) + payload;
        if (((size_t)(op - o) + total + ahead) % WGC_WEIGHTS_ALIGN)
            continue;
        *op++ = 0;
        op = put_leb(op, payload);
        *op++ = (uint8_t)name_len;
        memcpy(op, pad_name, name_len);
        op += name_len;
        memset(op, 0, fill);
        return op + fill;
    }
}

static bool read_leb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    return wg_leb128_read(p, end, 10, v);
}

wg_status wgc_finish_module(wgc_graph *g, const uint8_t *wasm, size_t len, const uint8_t *weights,
                            size_t weight_len, uint32_t base, const char *json, uint8_t **out,
                            size_t *out_len)
{
    if (len < 8 || memcmp(wasm, "\0asm\1\0\0\0", 8))
        return wgc_error(g, NULL, WG_ERR_TOOL, "wasm-ld produced something that is not a wasm module");
    /* Our segment: flags 0 (active, memory 0), i32.const base, end, size, bytes. */
    uint8_t seg_head[16], *sp = seg_head;
    *sp++ = 0x00;
    *sp++ = 0x41; /* i32.const */
    sp = wg_sleb128_put(sp, (int32_t)base); /* i32.const takes a signed LEB128 */
    *sp++ = 0x0b;
    sp = put_leb(sp, weight_len);
    size_t seg_len = (size_t)(sp - seg_head) + weight_len;
    size_t json_len = strlen(json);
    static const char name[] = "wasmgraph";
    size_t custom_payload = 1 + (sizeof name - 1) + json_len;
    size_t cap = len + seg_len + 64 + custom_payload + 16 + WGC_WEIGHTS_ALIGN + 32;
    uint8_t *o = malloc(cap), *op = o;
    if (!o)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory writing the module (%zu bytes)", cap);
    memcpy(op, wasm, 8);
    op += 8;
    /* Does wasm-ld's output have a data section of its own? If not, ours goes right after
     * the code section: custom sections such as "name" must follow it (wasm2c checks). */
    bool has_data = false;
    for (const uint8_t *q = wasm + 8; q < wasm + len;) {
        uint8_t id = *q++;
        uint64_t size;
        if (!read_leb(&q, wasm + len, &size) || size > (uint64_t)(wasm + len - q))
            goto bad;
        has_data |= id == 11;
        q += size;
    }
    const uint8_t *p = wasm + 8, *end = wasm + len;
    while (p < end) {
        uint8_t id = *p++;
        uint64_t size;
        if (!read_leb(&p, end, &size) || size > (uint64_t)(end - p))
            goto bad;
        const uint8_t *body = p, *body_end = p + size;
        p = body_end;
        if (id == 12) { /* DataCount */
            uint64_t count;
            const uint8_t *q = body;
            if (!read_leb(&q, body_end, &count))
                goto bad;
            *op++ = 12;
            op = put_leb(op, leb_size(count + 1));
            op = put_leb(op, count + 1);
            continue;
        }
        if (id == 11) { /* Data: append our segment to wasm-ld's */
            uint64_t count;
            const uint8_t *q = body;
            if (!read_leb(&q, body_end, &count))
                goto bad;
            size_t rest = (size_t)(body_end - q);
            size_t body_len = leb_size(count + 1) + rest + seg_len;
            op = put_pad(o, op, 1 + leb_size(body_len) + leb_size(count + 1) + rest +
                                    (size_t)(sp - seg_head));
            *op++ = 11;
            op = put_leb(op, leb_size(count + 1) + rest + seg_len);
            op = put_leb(op, count + 1);
            memcpy(op, q, rest);
            op += rest;
            memcpy(op, seg_head, (size_t)(sp - seg_head));
            op += sp - seg_head;
            if (weight_len)
                memcpy(op, weights, weight_len);
            op += weight_len;
            continue;
        }
        *op++ = id;
        op = put_leb(op, size);
        memcpy(op, body, size);
        op += size;
        if (id == 10 && !has_data) { /* Code: a data section of our own follows */
            size_t body_len = leb_size(1) + seg_len;
            op = put_pad(o, op, 1 + leb_size(body_len) + leb_size(1) + (size_t)(sp - seg_head));
            *op++ = 11;
            op = put_leb(op, leb_size(1) + seg_len);
            op = put_leb(op, 1);
            memcpy(op, seg_head, (size_t)(sp - seg_head));
            op += sp - seg_head;
            if (weight_len)
                memcpy(op, weights, weight_len);
            op += weight_len;
        }
    }
    *op++ = 0;
    op = put_leb(op, custom_payload);
    *op++ = (uint8_t)(sizeof name - 1);
    memcpy(op, name, sizeof name - 1);
    op += sizeof name - 1;
    memcpy(op, json, json_len);
    op += json_len;
    *out = o;
    *out_len = (size_t)(op - o);
    return WG_OK;
bad:
    free(o);
    return wgc_error(g, NULL, WG_ERR_TOOL, "wasm-ld produced a malformed module");
}
