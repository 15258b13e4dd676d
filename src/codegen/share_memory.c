/*
 * share_memory.c: makes a threaded module's imported memory shared (toolchain.c links it
 * with --import-memory but not --shared-memory, see there for why).
 *
 * The import section's memory entry is (module name, field name, 0x02, limits); limits
 * flags 0x01 (minimum and maximum) become 0x03 (shared, which requires a maximum: the
 * layout sets maximum = minimum). Same length, so the bytes change in place. The active
 * data segments then initialise the memory each time a thread's instance is created;
 * hosts create them all before the first run (docs/abi.md "Threads").
 */
#include "../common/leb128.h"
#include "codegen.h"

static bool read_leb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    return wg_leb128_read(p, end, 10, v);
}

static bool skip_name(const uint8_t **p, const uint8_t *end)
{
    uint64_t n;
    if (!read_leb(p, end, &n) || n > (uint64_t)(end - *p))
        return false;
    *p += n;
    return true;
}

wg_status wgc_share_memory(wgc_graph *g, uint8_t *wasm, size_t len)
{
    const uint8_t *p = wasm + 8, *end = wasm + len;
    if (len < 8)
        return wgc_error(g, NULL, WG_ERR_TOOL, "wasm-ld produced something that is not a wasm module");
    while (p < end) {
        const uint8_t id = *p++;
        uint64_t size, count;
        if (!read_leb(&p, end, &size) || size > (uint64_t)(end - p))
            break;
        const uint8_t *body = p, *body_end = p + size;
        p = body_end;
        if (id != 2) /* the import section */
            continue;
        if (!read_leb(&body, body_end, &count) || count != 1)
            break;
        if (!skip_name(&body, body_end) || !skip_name(&body, body_end) || body + 2 > body_end || body[0] != 0x02 ||
            body[1] != 0x01)
            break;
        wasm[body + 1 - wasm] = 0x03;
        return WG_OK;
    }
    return wgc_error(g, NULL, WG_ERR_TOOL,
                     "wasm-ld's module does not import exactly one memory with a maximum size: cannot make "
                     "it shared");
}
