/* options.h: what `wasmgraph compile` was asked to do. */
#ifndef WGC_OPTIONS_H
#define WGC_OPTIONS_H

#include <stdbool.h>

#include "../ir/ir.h"
#include "../passes/passes.h" /* wgc_shape_override */

/* --const NAME=FILE.pb: graph input NAME becomes a constant with FILE's value (it is no
 * longer an input of the module): a TensorProto, or for a sequence or optional input a
 * SequenceProto or OptionalProto (bind.c). For inputs an op needs at compile time (shapes,
 * axes, pads, repeats, a Loop's trip count...). */
typedef struct wgc_const_binding {
    const char *name;
    const char *path;
} wgc_const_binding;

/* compile --threads: the thread count a threaded module is built for unless
 * --max-threads says otherwise (each thread gets its own stack and copy of every node's
 * scratch, so the bound costs memory), and the most it may be built for. */
#define WGC_THREADS_DEFAULT 4
#define WGC_THREADS_DEFAULT_STR "4"
#define WGC_THREADS_LIMIT 64

typedef struct wgc_options {
    const char *model_path;
    const char *output_path;
    const char *emit_c_dir;  /* keep the generated C here; NULL: temporary only */
    int opt_level;           /* 0..3, default 2 */
    bool simd;               /* default true */
    bool relaxed_simd;
    bool quiet;              /* no compile summary */
    bool profile;            /* one exported step per node (wg_profile_step), see generate.c */
    int threads;             /* --threads [--max-threads N]: the most threads a threaded module
                              * runs on (codegen/threads.c); 0: single-threaded */
    const char *preprocess_json; /* NULL, or a JSON object stored as the metadata's "preprocess" */
    const char *generation_json; /* NULL, or a JSON object stored as the metadata's "generation" */
    wgc_shape_override shapes[WGC_MAX_SHAPE_OVERRIDES];
    int n_shapes;
    wgc_const_binding consts[WGC_MAX_SHAPE_OVERRIDES];
    int n_consts;
    /* --dim NAME=MIN..MAX: the range of symbolic dimension NAME, or, when NAME is an
     * integer graph input, the bounds of its values (ir/valrange.h) */
    wgc_symbol dims[WGC_MAX_SYMS];
    int n_dims;
} wgc_options;

/* Applies opt->consts to a freshly read graph (compile/bind.c). */
wg_status wgc_bind_consts(wgc_graph *g, const wgc_options *opt);
/* After an unsupported error: when g->err says "'NAME' is computed at run time" of a graph
 * input NAME (or "graph input 'NAME' is an empty sequence"), appends "[graph input #K
 * 'NAME': compile with --const NAME=FILE.pb]"; when it names a value computed from a graph
 * input of an integer type, the same for that input, after "(it is computed from graph
 * input 'NAME')". A value that decides a size ("nothing bounds its values") is offered
 * --dim NAME=MIN..MAX first. */
void wgc_hint_const_inputs(wgc_graph *g);

#endif
