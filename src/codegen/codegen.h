/*
 * codegen.h: from a planned graph to a module file.
 *
 *   wgc_generate_c     the C source of the module (kernel calls, exports) + weights blob
 *   wgc_build_module   clang-19 + wasm-ld-19 on that source, then wgc_finish_module
 *   wgc_finish_module  appends the weights data segment and the `wasmgraph` metadata
 *                      section to the linked module (see wasm_module.c)
 */
#ifndef WGC_CODEGEN_H
#define WGC_CODEGEN_H

#include "emitter.h"

/* What code generation is told: the driver (compile/compile.c) fills it from the
 * command's options (compile/options.h), which codegen does not see. */
typedef struct wgc_codegen_options {
    const char *model_path;  /* named in the generated C */
    const char *output_path; /* the module file to write */
    const char *emit_c_dir;  /* keep the generated C here; NULL: temporary only */
    int opt_level;           /* 0..3 */
    bool simd, relaxed_simd;
    bool profile;            /* export wg_profile_steps/wg_profile_step (generate.c) */
    int threads;             /* a threaded module for up to this many threads (threads.c); 0: not */
    const char *preprocess_json; /* NULL, or a JSON object stored as the metadata's "preprocess" */
    const char *generation_json; /* NULL, or a JSON object stored as the metadata's "generation" */
} wgc_codegen_options;

/* Memory layout of a module (byte addresses). */
typedef struct wgc_layout {
    uint32_t weights_base;  /* weights segment start (fixed, WGC_WEIGHTS_BASE) */
    uint32_t prepared_base; /* prepared-weights region, after the weights (not in the file) */
    uint32_t arena_base;    /* arena start, after the prepared weights */
    uint32_t cache_base;    /* the KV-cache regions (ir/cache_pairs.h), after the arena */
    uint32_t global_base;   /* where wasm-ld places the kernels' static data */
    uint32_t memory_bytes;  /* initial = maximum memory */
    uint64_t weight_bytes, prepared_bytes, arena_bytes, cache_bytes;
} wgc_layout;

/* Weights start at this address in linear memory, and their bytes start at a multiple of
 * WGC_WEIGHTS_ALIGN in the module file (wasm_module.c pads before the data section), so
 * that a host may map them from the file instead of copying (16 KiB: the page size of
 * 4 KiB and 16 KiB page systems alike). */
#define WGC_WEIGHTS_ALIGN 16384u
#define WGC_WEIGHTS_BASE WGC_WEIGHTS_ALIGN
#define WGC_STACK_BYTES (1u << 20)
/* The kernels' and ops' static data: the packed-B GEMM's broadcast buffer (1 MiB,
 * WGK_GEMM_SPLAT_FLOATS; threaded modules keep theirs past the stacks and reserve 128 KiB
 * only) and 128 KiB for the rest. */
#define WGC_STATIC_DATA_BUDGET (1152u << 10)

/* Threaded modules (threads.c): each thread but thread 0 (wasm-ld's stack) has a stack
 * of this size above the static data. */
#define WGC_THREAD_STACK_BYTES WGC_STACK_BYTES

/* How a threaded module runs a step (threads.c): on thread 0 alone, on every thread
 * (its node asked to: wgc_part, wgc_sync), or not at all (no code: a Concat or Reshape
 * the memory plan made free), which then needs no barrier either side. */
typedef enum { WGC_STEP_THREAD0, WGC_STEP_SPLIT, WGC_STEP_EMPTY } wgc_step_kind;

/* The steps, barrier and thread exports of a threaded module (malloc'ed C text; NULL when
 * out of memory): step k's code is body[span[2k], span[2k+1]), kind[k] how it runs;
 * worker stacks start at stacks_base, the threads' GEMM broadcast buffers
 * (WGK_GEMM_SPLAT_FLOATS each) at splat_base, their scratch regions (plan.h,
 * thread_scratch bytes each) at thread_scratch_base; dims: the module has symbols, whose
 * values a run checks before any step (sym_exports.c wg_check_dims). */
char *wgc_threads_source(const char *body, const size_t *span, const wgc_step_kind *kind, int n_steps,
                         int n_node_steps, bool profile, bool dims, int threads, uint32_t stacks_base,
                         uint32_t splat_base, uint32_t thread_scratch_base, uint32_t thread_scratch);

/* Turns the linked module's imported memory into a shared one, in place (threaded
 * builds; wasm_module.c). */
wg_status wgc_share_memory(wgc_graph *g, uint8_t *wasm, size_t len);

/* Runs every live node's emit hook and assembles the module's C source into *src
 * (malloc'ed, caller frees). Fills e (weights) and *layout. */
wg_status wgc_generate_c(wgc_graph *g, const wgc_plan *plan, const wgc_codegen_options *opt, wgc_emitter *e,
                         wgc_layout *layout, char **src);

/* The ABI version of g's module: 2 when it has symbolic dimensions or a graph input or
 * output is part of a sequence or optional (docs/abi.md "Version 2"), else 1. */
int wgc_module_abi(const wgc_graph *g);
/* The JSON for the `wasmgraph` custom section (malloc'ed); e: after wgc_generate_c. */
char *wgc_metadata_json(const wgc_graph *g, const wgc_codegen_options *opt, const wgc_layout *layout, const wgc_emitter *e);

/* Compiles src and links it with the kernel library into the module file opt->output_path,
 * adding weights and metadata; writes atomically (temporary file, then rename). */
wg_status wgc_build_module(wgc_graph *g, const wgc_codegen_options *opt, const char *src,
                           const wgc_emitter *e, const wgc_layout *layout);

/* Given the bytes of a linked module, returns a new module with an active data segment
 * holding `weights` at address `base` and a custom section `wasmgraph` with `json`. */
wg_status wgc_finish_module(wgc_graph *g, const uint8_t *wasm, size_t len, const uint8_t *weights,
                            size_t weight_len, uint32_t base, const char *json, uint8_t **out,
                            size_t *out_len);

#endif
