/*
 * wasm_scan.h: reads the parts of a wasm binary the host checks before compiling it.
 *
 * We read the module's sections ourselves (not through wasmtime) so that a file that is
 * not a wasmgraph module is refused with a precise message, and so `wasmgraph info` can
 * show the metadata without compiling anything. Only the type, import, function, memory,
 * export and custom sections are decoded; the rest is skipped by size. Nothing here is
 * a full validator: wasmtime validates the module when it compiles it.
 */
#ifndef WGH_WASM_SCAN_H
#define WGH_WASM_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

/* Export kinds, as in the binary format. */
enum { WGH_EXT_FUNC = 0, WGH_EXT_TABLE = 1, WGH_EXT_MEMORY = 2, WGH_EXT_GLOBAL = 3, WGH_EXT_TAG = 4 };

#define WGH_MAX_SIG 8 /* params/results recorded per function type; more marks it "long" */

typedef struct wgh_functype {
    uint32_t n_params, n_results;
    uint8_t params[WGH_MAX_SIG], results[WGH_MAX_SIG]; /* value type bytes (0x7f = i32) */
} wgh_functype;

typedef struct wgh_export {
    const uint8_t *name; /* into the module bytes, not NUL-terminated */
    uint32_t name_len;
    uint8_t kind;
    uint32_t index;
} wgh_export;

typedef struct wgh_wasm {
    /* The `wasmgraph` custom section payload (after its name), into the module bytes. */
    const uint8_t *meta;
    size_t meta_len;
    int n_meta_sections;
    /* Imports: how many, and the first one's "module.name" and kind. */
    uint32_t n_imports;
    char first_import[160];
    uint8_t first_import_kind;
    /* Types, and the type index of every function defined in the module. */
    wgh_functype *types;
    uint32_t n_types;
    uint32_t *func_types;
    uint32_t n_funcs;
    /* The first defined (or the imported) memory: initial and maximum size in bytes. */
    bool has_memory;
    uint64_t memory_min_bytes;
    bool memory_has_max;
    uint64_t memory_max_bytes;
    bool memory64, memory_shared;
    bool memory_imported; /* the only import, and the memory (threaded modules) */
    wgh_export *exports;
    uint32_t n_exports;
} wgh_wasm;

/* Scans bytes[0..len). On failure returns WG_ERR_FORMAT (or NOMEM) with the reason in err,
 * and *out holds nothing to free. On success free with wgh_wasm_free. */
wg_status wgh_wasm_scan(const uint8_t *bytes, size_t len, wgh_wasm *out, char *err, size_t errlen);
void wgh_wasm_free(wgh_wasm *w);

/* The export called name, or NULL. */
const wgh_export *wgh_wasm_export(const wgh_wasm *w, const char *name);
/* The type of function index fi (imports excluded, since modules we accept have none);
 * NULL when out of range. */
const wgh_functype *wgh_wasm_func_type(const wgh_wasm *w, uint32_t fi);
/* "(i32) -> i32" style text of a type, into buf. */
const char *wgh_functype_str(const wgh_functype *t, char *buf, size_t len);
/* "function", "memory", ... */
const char *wgh_kind_name(uint8_t kind);

#endif
