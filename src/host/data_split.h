/*
 * data_split.h: takes a module's weights (its active data segments) out of what wasmtime
 * compiles, so the host can copy them into linear memory itself.
 *
 * Why: wasmgraph modules carry their weights as one data segment (ResNet-50: ~98 MB,
 * VGG-19: ~549 MB). Handed the whole file, wasmtime keeps its own copy of every segment in
 * the compiled module (and a memory image built from it), next to the host's copy of the
 * file and the instance's linear memory: up to three copies of the weights in the process,
 * and copying them costs most of the load time. Compiling only the code (a few KB) and
 * reading each segment from the file straight into linear memory (pread, no mapping)
 * leaves one copy, the one the model runs on.
 *
 * A module is split only when that is exactly equivalent to instantiating it whole: no
 * start function (nothing runs between instantiation and the copy), no data count section
 * (no memory.init / data.drop), only active segments for memory 0 with an i32.const
 * offset, each inside the initial memory, and a data section that parses exactly and is
 * the last non-custom section. Anything else is compiled whole, and wasmtime reports any
 * problem as before.
 */
#ifndef WGH_DATA_SPLIT_H
#define WGH_DATA_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

typedef struct wgh_segment {
    uint64_t mem_off;  /* where in linear memory */
    uint64_t file_off; /* where its bytes start in the module file */
    uint64_t len;
} wgh_segment;

typedef struct wgh_split {
    uint8_t *code; /* the module without its data section (malloc'ed) */
    size_t code_len;
    wgh_segment *segs;
    size_t n_segs;
    uint64_t data_bytes; /* sum of the segments' lengths */
} wgh_split;

/* Splits bytes[0..len) (already accepted by wgh_inspect) whose initial memory is mem_min
 * bytes. Sets *split to whether it did; when false, *out holds nothing. WG_ERR_NOMEM is
 * the only failure. Free a split with wgh_split_free. */
wg_status wgh_split_data(const uint8_t *bytes, size_t len, uint64_t mem_min, wgh_split *out,
                         bool *split);
void wgh_split_free(wgh_split *s);

#endif
