/* compile.h: the whole compiler, from an ONNX file to a module file. */
#ifndef WGC_COMPILE_H
#define WGC_COMPILE_H

#include <stdio.h>

#include "../codegen/codegen.h"
#include "options.h"

typedef struct wgc_summary {
    int nodes;            /* live nodes after the passes */
    int folded;           /* nodes removed by folding and passes */
    uint64_t arena_bytes, weight_bytes, memory_bytes, module_bytes;
    double seconds;
    /* Notes for the user, one per line: each If branch compiled as WGK_ERR_BRANCH
     * (ops/control_flow.c) and why; "" for none. Truncated to fit. */
    char notes[2048];
} wgc_summary;

/* Compiles opt->model_path into opt->output_path. On failure err holds the message. */
wg_status wgc_compile(const wgc_options *opt, wgc_summary *summary, char *err, size_t errlen);

/* Runs the reader and the passes only (no code generation): for tests and fuzzing.
 * On success *out is the optimised graph (caller frees with wgc_graph_free). */
wg_status wgc_compile_graph(const wgc_options *opt, wgc_graph **out, char *err, size_t errlen);
/* The part of opt that code generation reads. */
wgc_codegen_options wgc_codegen_options_of(const wgc_options *opt);

#endif
