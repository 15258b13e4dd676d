/*
 * emit.h: what op emitters use to write the body of wg_run(). The interface lives here,
 * with the ops that call it; src/codegen/emitter.c implements it. (Layers: ops below plan
 * below codegen; nothing in src/ops includes src/codegen or src/plan.)
 *
 * The generated C file includes kernels/include/wgk.h and defines three address
 * macros, A(offset) for the arena (inputs, outputs, intermediates, scratch),
 * W(offset) for the weights segment and P(offset) for the prepared-weights region; all
 * give a `void *`. wgc_ptr() returns the expression for a tensor ("A(4096)"), placing a
 * constant tensor's bytes in the weights segment the first time it is asked for.
 * wgc_weight() adds bytes that an op packed itself (a transposed or blocked filter,
 * folded bias). wgc_prepared() reserves zero-filled memory that is not in the module
 * file, for weights an op derives at run time (once, on the first run) because the
 * derived form is much larger than the original (Winograd filters: 16/9 or 36/9).
 *
 * Strings returned by wgc_ptr/wgc_scratch stay valid for the next 16 calls: use them
 * directly in one wgc_emit() call.
 */
#ifndef WGC_EMIT_H
#define WGC_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "../ir/ir.h"

typedef struct wgc_emitter wgc_emitter;

/* Compile options that change the code (read-only for emitters). */
typedef struct wgc_target {
    bool simd;         /* SIMD128 kernels available */
    bool relaxed_simd; /* relaxed SIMD (fused multiply-add) */
    int opt_level;     /* 0..3 */
    int threads;       /* compile --threads: the most threads the module runs on; 0: a
                        * single-threaded module (its code unchanged by any of the below) */
} wgc_target;

const wgc_target *wgc_emit_target(const wgc_emitter *e);
/* Appends formatted C to the body of wg_run (indentation is added by the emitter). */
void wgc_emit(wgc_emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Address expression of tensor t (an index into g->tensors). */
const char *wgc_ptr(wgc_emitter *e, wgc_graph *g, int t);
/* Address expression of this node's scratch area (size from the op's scratch hook). */
const char *wgc_scratch(wgc_emitter *e);
/* Copies bytes into the weights segment (64-byte aligned) and sets *expr to its address
 * expression. Returns WG_ERR_NOMEM on allocation failure. */
wg_status wgc_weight(wgc_emitter *e, const void *data, size_t bytes, const char **expr);
/* wgc_weight for bytes that are not float32 values (float16 panels a kernel reads as
 * they are): placed as given, never stored as float16 for widening (emitter.c). */
wg_status wgc_weight_bytes(wgc_emitter *e, const void *data, size_t bytes, const char **expr);
/* Bytes that a layout made of constant tensor t (the packing step's, pack_weight.c) which
 * more than one node reads, placed once as wgc_weight_bytes places them: wgc_weight_keep
 * places them for (t, layout) and sets *expr to their address; wgc_weight_recall sets it to
 * the address of those placed for (t, layout) and returns true, or returns false when there
 * are none (one layout per tensor: keeping another replaces it). */
wg_status wgc_weight_keep(wgc_emitter *e, int t, int layout, const void *data, size_t bytes, const char **expr);
bool wgc_weight_recall(wgc_emitter *e, int t, int layout, const char **expr);
/* Reserves bytes (64-byte aligned) in the prepared-weights region and sets *expr to its
 * address expression ("P(offset)"). The region is zero when the module is instantiated
 * and costs no bytes in the file; the op's code fills it, typically behind a
 * `static int` flag in its own `{ }` block so that it happens on the first run only.
 * Returns WG_ERR_LIMIT if the region would pass 4 GiB. */
wg_status wgc_prepared(wgc_emitter *e, size_t bytes, const char **expr);
/* Per-sample loops (ops/sym_batch.c): between wgc_ptr_vary and wgc_ptr_vary_end,
 * wgc_ptr gives tensor t's address plus the C variable wg_sample times stride bytes; while any
 * does, wgc_ptrs_vary is true and arguments naming tensors must be built by code, not
 * static data. wgc_ptr_vary returns false when no more tensors fit (WGC_VARY_MAX). */
#define WGC_VARY_MAX 8
bool wgc_ptr_vary(wgc_emitter *e, int t, int64_t stride);
void wgc_ptr_vary_end(wgc_emitter *e);
bool wgc_ptrs_vary(const wgc_emitter *e);
/* Makes room in the module's static data for bytes more of `static const` objects that
 * the op's code declares: call arguments known at compile time (a kernel's argument
 * struct) are built by no code that way, which keeps wg_run short for wasmtime to
 * compile (docs/performance.md).
 * Overestimate (e.g. the host's sizeof: pointers are 8 bytes, wasm32's 4). */
void wgc_static_data(wgc_emitter *e, size_t bytes);
/* Symbolic dimensions (module ABI 2): the C expression (of type int) of the product of
 * dims [d0, d1) of s at run time: a literal when they are fixed, else of the module's
 * wg_dims[] (the symbols' values, checked against their ranges before any step runs). */
const char *wgc_dims_expr(wgc_emitter *e, const wgc_shape *s, int d0, int d1);
/* Dims [d0, d1) of s as C for an op's code that serves fixed and symbolic shapes alike:
 * the literal product when all are fixed (what static code prints), else wgc_dims_expr. */
const char *wgc_size_expr(wgc_emitter *e, const wgc_shape *s, int d0, int d1);
/* The C int expression of one symbolic value (c times symbols read from wg_dims). */
const char *wgc_dimx_expr(wgc_emitter *e, const wgc_dimx *x);
/* Threaded modules (compile --threads, docs/performance.md "Threads"). Every thread runs
 * every step; a node's code runs on thread 0 alone unless the node asks otherwise by
 * one of these, and then on all threads, with the C variables wg_t (this thread) and
 * wg_n (the run's thread count) in scope:
 *   wgc_emit_split_guard  `if (RULE(&ARGS, WG_PART))`: kernel k's split rule
 *              (kernels.def, kernels/include/wgk_split.h) sets this thread's share in the
 *              args variable ARGS; the kernel's call follows, the statement it guards
 *              (skipped when the share is empty). For a node that splits
 *              (wgc_node_splits); marks it split
 *   wgc_emit_args_call  a call of kernel k on args given as initializer fields:
 *              `SYMBOL(&(const TYPE){FIELDS}EXTRA);`, or with `split`, the same on a
 *              variable behind the split guard
 *   wgc_emit_part_range  for an op whose emitted code splits its output itself: emits
 *              `int lo, hi;` set to this thread's units [lo, hi) of [0, total) in steps
 *              of `unit` (wgk_part_range); marks the node split; _expr: total is a C
 *              expression (symbolic sizes, read at run time)
 *   wgc_sync   emits a barrier inside the node's code (every thread waits until all
 *              reach it); marks the node split
 * wgc_split_pays is the one rule for those ops: a threaded build, at least two
 * independent units (rows, planes, blocks) and WGC_SPLIT_MIN_ELEMENTS outputs.
 * Both are for threaded builds only (wgc_threaded); a single-threaded build must emit
 * what it always did. wgc_scratch gives each thread its own copy of the node's scratch. */
bool wgc_threaded(const wgc_emitter *e);
void wgc_emit_split_guard(wgc_emitter *e, wgc_kernel k, const char *args);
void wgc_emit_args_call(wgc_emitter *e, wgc_kernel k, bool split, const char *symbol, const char *type,
                        const char *fields, const char *extra);
void wgc_emit_part_range(wgc_emitter *e, int64_t total, int unit);
void wgc_emit_part_range_expr(wgc_emitter *e, const char *total, int unit);
bool wgc_split_pays(const wgc_emitter *e, int64_t units, int64_t elements);
void wgc_sync(wgc_emitter *e);
/* Has the step's code emitted so far asked to run on every thread (a split kernel call,
 * wgc_emit_part_range, wgc_sync)? */
bool wgc_step_splits(const wgc_emitter *e);
/* Formats a float so that C reads back the same bits ("1.5f", "-INFINITY", "NAN"). */
const char *wgc_float(wgc_emitter *e, float v);

#endif
