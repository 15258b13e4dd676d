/*
 * inspect.h: everything the host checks about a module file before compiling it.
 *
 * wgh_inspect() reads the wasm sections (wasm_scan.h), parses the `wasmgraph` metadata
 * JSON, and checks the ABI as docs/abi.md "What hosts check" lists it: one metadata
 * section, valid UTF-8 JSON of the documented schema within the limits of wasmgraph.h
 * (WG_ABI_MAX_*), no imports, the required exports with their function types (and the
 * optional ones, when present, with theirs), one plain 32-bit memory. The JS loader
 * (js/wasmgraph.mjs, inspect) makes the same checks; tests/abi/ holds the fixtures both
 * run. wg_model_load() calls it before it hands the bytes to wasmtime; wg_model_inspect()
 * (`wasmgraph info`) calls it alone, so it never compiles.
 */
#ifndef WGH_INSPECT_H
#define WGH_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

typedef struct wgh_meta {
    char *json;                 /* the section text, NUL-terminated copy */
    int64_t abi;
    char *name, *producer, *compiler; /* "" when absent, never NULL after success */
    int64_t opset;              /* -1 when absent */
    wg_tensor_info *inputs, *outputs; /* names owned (cast away const to free) */
    size_t n_inputs, n_outputs;
    bool has_options, simd, relaxed_simd;
    int64_t opt_level;          /* -1 when absent */
    int64_t arena_bytes, weight_bytes, memory_bytes, weights_base; /* -1 when absent */
    bool has_step_weights;      /* the metadata has a "step_weights" array */
    uint64_t *step_weights;     /* n_run_steps of them */
    size_t n_run_steps;
    bool has_profile;           /* the metadata has a "profile" array */
    char **steps;               /* profile step labels "OpType name", n_steps of them */
    size_t n_steps;
    wg_symbol_info *symbols;    /* ABI 2 "symbols" (names owned), n_symbols of them */
    size_t n_symbols;
    /* ABI 2 "sum" of a symbol that is a graph input's dim_param expression (`past + seq`):
     * its value must be plus + sum of c[t] * symbols[sym[t]] (sums[k].n == 0: none). */
    struct wgh_sym_sum {
        int n;
        int sym[8];
        int64_t c[8];
        int64_t plus;
    } *sums;
    bool has_bounded;           /* ABI 2: an output has a data-dependent {"max": N} dim */
    bool has_empty;             /* an input has "may_be_empty": true (wg_input_empty_ptr) */
    int64_t threads;            /* "threads": the most threads (a threaded module); 0 when absent */
    wg_cache_pair_info *cache_pairs; /* "cache_pairs" (cache_pairs.c), n_cache_pairs of them */
    size_t n_cache_pairs;
} wgh_meta;

typedef struct wgh_module_info {
    wgh_meta meta;
    uint64_t memory_min_bytes; /* the module's declared initial memory */
    bool memory_has_max;
    uint64_t memory_max_bytes;
    size_t file_bytes;
    wg_model_info pub; /* the public view (wasmgraph.h), pointing into meta */
} wgh_module_info;

/* Parses metadata JSON text into *out (zeroed first; freed on failure). Errors: WG_ERR_ABI
 * for a wrong abi version, WG_ERR_FORMAT for text that is not the expected JSON. */
wg_status wgh_meta_parse(const char *text, size_t len, wgh_meta *out, char *err, size_t errlen);
void wgh_meta_free(wgh_meta *m);
/* The metadata's "cache_pairs" (docs/abi.md "Resident KV caches") into m, after its inputs
 * and outputs: WG_ERR_FORMAT for an entry out of the rules (cache_pairs.c). */
struct wg_json;
wg_status wgh_parse_cache_pairs(const struct wg_json *j, wgh_meta *m, char *err, size_t errlen);

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
