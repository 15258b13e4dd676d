/* wasm_scan.c: see wasm_scan.h. Every read is bounds-checked against its section. */
#include "wasm_scan.h"
#include "wasm_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fail.h"

typedef wgh_rd rd;

/* An unsigned LEB128 for a max_bits-bit field, one byte of slack allowed. */
static uint64_t rd_leb(rd *r, int max_bits)
{
    return wgh_rd_uleb(r, (max_bits + 13) / 7);
}

static uint32_t rd_u32(rd *r)
{
    return wgh_rd_u32(r, (32 + 13) / 7);
}

#define rd_byte wgh_rd_byte

/* A name: returns its bytes in place; *len its length. */
static const uint8_t *rd_name(rd *r, uint32_t *len)
{
    *len = rd_u32(r);
    if (r->bad || (size_t)(r->end - r->p) < *len) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *s = r->p;
    r->p += *len;
    return s;
}

/* A value type; reference types with a heap type (0x63/0x64) take a signed LEB more. */
static uint8_t rd_valtype(rd *r)
{
    uint8_t t = rd_byte(r);
    if (t == 0x63 || t == 0x64)
        rd_leb(r, 33);
    return t;
}

static wg_status scan_types(rd *r, wgh_wasm *w, char *err, size_t errlen)
{
    uint32_t n = rd_u32(r);
    if (r->bad || n > (size_t)(r->end - r->p))
        return wg_fail(err, errlen, WG_ERR_FORMAT, "type section: bad count");
    w->types = calloc(n ? n : 1, sizeof *w->types);
    if (!w->types)
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory reading %u types", n);
    w->n_types = n;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        uint8_t form = rd_byte(r);
        if (form != 0x60)
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                        "type section: type %u has form 0x%02x (only plain function types, 0x60, "
                        "are supported)", i, form);
        wgh_functype *t = &w->types[i];
        for (int side = 0; side < 2; side++) {
            uint32_t c = rd_u32(r);
            uint8_t *dst = side ? t->results : t->params;
            for (uint32_t k = 0; k < c && !r->bad; k++) {
                uint8_t v = rd_valtype(r);
                if (k < WGH_MAX_SIG)
                    dst[k] = v;
            }
            if (side)
                t->n_results = c;
            else
                t->n_params = c;
        }
    }
    return r->bad ? wg_fail(err, errlen, WG_ERR_FORMAT, "type section is truncated") : WG_OK;
}

static wg_status scan_memtype(rd *r, wgh_wasm *w, const char *where, char *err, size_t errlen);

static wg_status scan_imports(rd *r, wgh_wasm *w, char *err, size_t errlen)
{
    w->n_imports = rd_u32(r);
    if (w->n_imports && !r->bad) {
        uint32_t ml, nl;
        const uint8_t *m = rd_name(r, &ml);
        const uint8_t *nm = rd_name(r, &nl);
        uint8_t kind = rd_byte(r);
        if (!r->bad) {
            snprintf(w->first_import, sizeof w->first_import, "%.*s.%.*s", (int)(ml > 70 ? 70 : ml),
                     (const char *)m, (int)(nl > 70 ? 70 : nl), (const char *)nm);
            w->first_import_kind = kind;
            /* A threaded module's one import, its memory (docs/abi.md "Threads"). */
            if (kind == 2 && w->n_imports == 1) {
                w->memory_imported = true;
                return scan_memtype(r, w, "memory import", err, errlen);
            }
        }
    }
    /* The rest is not decoded: a module with any other import is refused anyway. */
    return r->bad ? wg_fail(err, errlen, WG_ERR_FORMAT, "import section is truncated") : WG_OK;
}

static wg_status scan_funcs(rd *r, wgh_wasm *w, char *err, size_t errlen)
{
    uint32_t n = rd_u32(r);
    if (r->bad || n > (size_t)(r->end - r->p))
        return wg_fail(err, errlen, WG_ERR_FORMAT, "function section: bad count");
    w->func_types = calloc(n ? n : 1, sizeof *w->func_types);
    if (!w->func_types)
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory reading %u functions", n);
    w->n_funcs = n;
    for (uint32_t i = 0; i < n && !r->bad; i++)
        w->func_types[i] = rd_u32(r);
    return r->bad ? wg_fail(err, errlen, WG_ERR_FORMAT, "function section is truncated") : WG_OK;
}

/* A memory type (limits flags, minimum, maximum, page size), from the memory section or
 * a memory import (`where` names it in messages). */
static wg_status scan_memtype(rd *r, wgh_wasm *w, const char *where, char *err, size_t errlen)
{
    uint8_t flags = rd_byte(r);
    if (flags & ~0x0fu)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: unknown limits flags 0x%02x", where, flags);
    w->memory_shared = flags & 2;
    w->memory64 = flags & 4;
    uint64_t min = rd_leb(r, 64), max = 0;
    w->memory_has_max = flags & 1;
    if (w->memory_has_max)
        max = rd_leb(r, 64);
    uint32_t page_log2 = 16;
    if (flags & 8)
        page_log2 = rd_u32(r);
    if (r->bad)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s is truncated", where);
    if (page_log2 > 16)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: page size 2^%u", where, page_log2);
    /* Cap the page counts so the byte sizes cannot overflow; wasmtime rejects such sizes. */
    uint64_t cap = UINT64_C(1) << (63 - page_log2);
    w->has_memory = true;
    w->memory_min_bytes = (min > cap ? cap : min) << page_log2;
    w->memory_max_bytes = (max > cap ? cap : max) << page_log2;
    return WG_OK;
}

static wg_status scan_memory(rd *r, wgh_wasm *w, char *err, size_t errlen)
{
    uint32_t n = rd_u32(r);
    if (!n || r->bad)
        return r->bad ? wg_fail(err, errlen, WG_ERR_FORMAT, "memory section is truncated") : WG_OK;
    return scan_memtype(r, w, "memory section", err, errlen);
}

static wg_status scan_exports(rd *r, wgh_wasm *w, char *err, size_t errlen)
{
    uint32_t n = rd_u32(r);
    if (r->bad || n > (size_t)(r->end - r->p))
        return wg_fail(err, errlen, WG_ERR_FORMAT, "export section: bad count");
    w->exports = calloc(n ? n : 1, sizeof *w->exports);
    if (!w->exports)
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory reading %u exports", n);
    w->n_exports = n;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        wgh_export *e = &w->exports[i];
        e->name = rd_name(r, &e->name_len);
        e->kind = rd_byte(r);
        e->index = rd_u32(r);
    }
    return r->bad ? wg_fail(err, errlen, WG_ERR_FORMAT, "export section is truncated") : WG_OK;
}

wg_status wgh_wasm_scan(const uint8_t *bytes, size_t len, wgh_wasm *out, char *err, size_t errlen)
{
    static const uint8_t magic[4] = {0, 'a', 's', 'm'};
    wg_status st = WG_OK;
    memset(out, 0, sizeof *out);
    if (len < 8 || memcmp(bytes, magic, 4))
        return wg_fail(err, errlen, WG_ERR_FORMAT, "not a WebAssembly module (no \\0asm magic)");
    uint32_t version = (uint32_t)bytes[4] | (uint32_t)bytes[5] << 8 | (uint32_t)bytes[6] << 16 |
                       (uint32_t)bytes[7] << 24;
    if (version != 1)
        return wg_fail(err, errlen, WG_ERR_FORMAT,
                    "WebAssembly binary version 0x%08x, expected 1 (a component or a newer format?)",
                    version);
    rd top = {bytes + 8, bytes + len, false};
    uint32_t seen = 0; /* known section ids met so far: each may appear once */
    while (top.p < top.end) {
        size_t sec_at = (size_t)(top.p - bytes);
        uint8_t id = rd_byte(&top);
        uint32_t size = rd_u32(&top);
        if (top.bad || size > (size_t)(top.end - top.p)) {
            st = wg_fail(err, errlen, WG_ERR_FORMAT,
                      "section %u at byte %zu runs past the end of the file (%zu bytes)", id,
                      sec_at, len);
            goto fail;
        }
        if (id != 0 && id < 32) {
            if (seen & (UINT32_C(1) << id)) {
                st = wg_fail(err, errlen, WG_ERR_FORMAT, "section %u at byte %zu appears twice", id,
                          sec_at);
                goto fail;
            }
            seen |= UINT32_C(1) << id;
        }
        rd r = {top.p, top.p + size, false};
        top.p += size;
        switch (id) {
        case 0: {
            uint32_t nl;
            const uint8_t *nm = rd_name(&r, &nl);
            if (r.bad) {
                st = wg_fail(err, errlen, WG_ERR_FORMAT, "custom section at byte %zu has a bad name",
                          sec_at);
                goto fail;
            }
            if (nl == 9 && !memcmp(nm, "wasmgraph", 9)) {
                if (!out->n_meta_sections) {
                    out->meta = r.p;
                    out->meta_len = (size_t)(r.end - r.p);
                }
                out->n_meta_sections++;
            }
            break;
        }
        case 1: st = scan_types(&r, out, err, errlen); break;
        case 2: st = scan_imports(&r, out, err, errlen); break;
        case 3: st = scan_funcs(&r, out, err, errlen); break;
        case 5: st = scan_memory(&r, out, err, errlen); break;
        case 7: st = scan_exports(&r, out, err, errlen); break;
        default: break;
        }
        if (st)
            goto fail;
    }
    return WG_OK;
fail:
    wgh_wasm_free(out);
    return st;
}

void wgh_wasm_free(wgh_wasm *w)
{
    free(w->types);
    free(w->func_types);
    free(w->exports);
    memset(w, 0, sizeof *w);
}

const wgh_export *wgh_wasm_export(const wgh_wasm *w, const char *name)
{
    size_t n = strlen(name);
    for (uint32_t i = 0; i < w->n_exports; i++)
        if (w->exports[i].name_len == n && !memcmp(w->exports[i].name, name, n))
            return &w->exports[i];
    return NULL;
}

const wgh_functype *wgh_wasm_func_type(const wgh_wasm *w, uint32_t fi)
{
    if (fi >= w->n_funcs || w->func_types[fi] >= w->n_types)
        return NULL;
    return &w->types[w->func_types[fi]];
}

static const char *valtype_name(uint8_t t)
{
    switch (t) {
    case 0x7f: return "i32";
    case 0x7e: return "i64";
    case 0x7d: return "f32";
    case 0x7c: return "f64";
    case 0x7b: return "v128";
    case 0x70: return "funcref";
    case 0x6f: return "externref";
    default: return "ref";
    }
}

const char *wgh_functype_str(const wgh_functype *t, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int side = 0; side < 2; side++) {
        uint32_t c = side ? t->n_results : t->n_params;
        const uint8_t *v = side ? t->results : t->params;
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, side ? " -> (" : "(");
        for (uint32_t k = 0; k < c; k++) {
            const char *nm = k < WGH_MAX_SIG ? valtype_name(v[k]) : "...";
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", k ? ", " : "", nm);
            if (k >= WGH_MAX_SIG)
                break;
        }
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ")");
    }
    return buf;
}

const char *wgh_kind_name(uint8_t kind)
{
    switch (kind) {
    case WGH_EXT_FUNC: return "function";
    case WGH_EXT_TABLE: return "table";
    case WGH_EXT_MEMORY: return "memory";
    case WGH_EXT_GLOBAL: return "global";
    case WGH_EXT_TAG: return "tag";
    default: return "unknown kind";
    }
}
