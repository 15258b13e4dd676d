/*
 * inspect.h: everything the host checks about a module file before compiling it.
 *
 * wgh_inspect() reads the wasm sections (wasm_scan.h), parses the `wasmgraph` metadata
 * JSON, and checks the ABI: metadata version, no imports, the five required exports
 * with their function types, one 32-bit memory; a module whose metadata has a "profile"
 * array (`compile --profile`) must also export wg_profile_steps () -> i32 and
 * wg_profile_step (i32) -> i32. wg_model_load() calls it before it hands
 * the bytes to wasmtime; `wasmgraph info` calls it alone, so it never compiles.
 */
#ifndef WGH_INSPECT_H
#define WGH_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

#define WGH_MAX_TENSORS 1024 /* inputs or outputs per model: more means broken metadata */
#define WGH_MAX_STEPS (1 << 20) /* profile steps (live nodes) per model */

typedef struct wgh_meta {
    char *json;                 /* the section text, NUL-terminated copy */
    int64_t abi;
    char *name, *producer, *compiler; /* "" when absent, never NULL after success */
    int64_t opset;              /* -1 when absent */
    wg_tensor_info *inputs, *outputs; /* names owned (cast away const to free) */
    size_t n_inputs, n_outputs;
    bool has_options, simd, relaxed_simd;
    int64_t opt_level;          /* -1 when absent */
    int64_t arena_bytes, weight_bytes, memory_bytes; /* -1 when absent */
    bool has_profile;           /* the metadata has a "profile" array */
    char **steps;               /* profile step labels "OpType name", n_steps of them */
    size_t n_steps;
} wgh_meta;

typedef struct wgh_module_info {
    wgh_meta meta;
    uint64_t memory_min_bytes; /* the module's declared initial memory */
    bool memory_has_max;
    uint64_t memory_max_bytes;
    size_t file_bytes;
} wgh_module_info;

/* Parses metadata JSON text into *out (zeroed first; freed on failure). Errors: WG_ERR_ABI
 * for a wrong abi version, WG_ERR_FORMAT for text that is not the expected JSON. */
wg_status wgh_meta_parse(const char *text, size_t len, wgh_meta *out, char *err, size_t errlen);
void wgh_meta_free(wgh_meta *m);

/* Checks module bytes as described above; memory_limit (0: none) refuses modules whose
 * initial memory is larger (WG_ERR_LIMIT). Messages do not name the file: callers prefix it.
 * On success free *out with wgh_module_info_free; on failure there is nothing to free. */
wg_status wgh_inspect(const uint8_t *bytes, size_t len, uint64_t memory_limit,
                      wgh_module_info *out, char *err, size_t errlen);
void wgh_module_info_free(wgh_module_info *info);

/* Reads a whole file into a malloc'ed buffer. WG_ERR_IO (missing, unreadable) or
 * WG_ERR_FORMAT (empty) with a message naming path. */
wg_status wgh_read_file(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen);

#endif
