/*
 * wasmgraph.h: run models compiled by `wasmgraph compile` (module ABI versions 1 and 2,
 * docs/abi.md) on wasmtime.
 *
 * A compiled model is one WebAssembly module that imports nothing (a threaded one, built
 * with `compile --threads`, imports only its shared memory). This library loads it,
 * checks its exports and metadata (the `wasmgraph` custom section), instantiates it
 * and runs it. Inputs and outputs live in the module's linear memory: the host writes
 * input bytes where wg_session_input() points and reads outputs where
 * wg_session_output() points, with no extra copy.
 *
 *     wg_runtime *rt; wg_model *m; wg_session *s;
 *     if (wg_runtime_new(NULL, &rt)) return 1;
 *     if (wg_model_load(rt, "lenet.wasm", &m)) { puts(wg_last_error(rt)); ... }
 *     if (wg_session_new(m, &s)) ...
 *     memcpy(wg_session_input(s, 0), pixels, wg_model_input(m, 0)->bytes);
 *     if (wg_session_run(s)) { puts(wg_last_error(rt)); ... }
 *     const float *logits = wg_session_output(s, 0);
 *     wg_session_free(s); wg_model_free(m); wg_runtime_free(rt);
 *
 * Every function that can fail returns wg_status (WG_OK is 0); wg_last_error() then
 * holds a message naming the file, export, tensor or trap (wg_model_inspect, which needs
 * no runtime, writes its message into a buffer instead). Nothing aborts the process.
 * What a module must look like, and every check made here, is docs/abi.md.
 * Objects are owned by the caller of the _new or _load call that made them and are
 * freed in reverse order: sessions, then models, then the runtime.
 */
#ifndef WASMGRAPH_H
#define WASMGRAPH_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The module ABI versions the hosts load: WG_ABI_VERSION_MIN to WG_ABI_VERSION
 * (docs/abi.md). Version 1: every shape fixed. Version 2 adds symbolic dimensions
 * (compile --dim, wg_dims_ptr), sequences and optionals as graph values, output dims the
 * run decides (wg_output_dims_ptr) and threads (compile --threads: a shared, imported
 * memory). A module states version 2 only when it uses one of these: a static model
 * still compiles to version 1. */
#define WG_ABI_VERSION 2
#define WG_ABI_VERSION_MIN 1
#define WG_VERSION "0.1.0"

typedef enum wg_status {
    WG_OK = 0,
    WG_ERR_IO,          /* a file is missing, unreadable or could not be written */
    WG_ERR_FORMAT,      /* bytes that are not what they claim (ONNX, wasm, .pb, .npy) */
    WG_ERR_UNSUPPORTED, /* an operator, attribute or dtype the compiler does not handle */
    WG_ERR_INVALID,     /* a model or argument that breaks a rule (shape, name, size) */
    WG_ERR_ABI,         /* a wasm module that does not follow the wasmgraph ABI */
    WG_ERR_TRAP,        /* the module trapped or returned a nonzero status */
    WG_ERR_LIMIT,       /* a memory cap or time limit was hit */
    WG_ERR_NOMEM,       /* an allocation failed */
    WG_ERR_TOOL,        /* clang / wasm-ld failed or could not be started */
    WG_ERR_ENGINE,      /* wasmtime refused the module or failed internally */
    WG_STATUS_COUNT
} wg_status;

/* Element types use ONNX's TensorProto.DataType numbers. */
typedef enum wg_dtype {
    WG_DT_UNDEFINED = 0,
    WG_DT_FLOAT = 1,
    WG_DT_UINT8 = 2,
    WG_DT_INT8 = 3,
    WG_DT_UINT16 = 4,
    WG_DT_INT16 = 5,
    WG_DT_INT32 = 6,
    WG_DT_INT64 = 7,
    WG_DT_STRING = 8,
    WG_DT_BOOL = 9,
    WG_DT_FLOAT16 = 10,
    WG_DT_DOUBLE = 11,
    WG_DT_UINT32 = 12,
    WG_DT_UINT64 = 13,
    /* Storage types: converted by Cast/CastLike, never computed with. Each element takes
     * whole bytes in module memory (bfloat16 two, the others one; the 4- and 2-bit types
     * unpacked, int4/int2 as a sign-extended int8, uint4/uint2 as a uint8, float4e2m1 as
     * its code), so an input or output buffer holds one byte per element for them. */
    WG_DT_BFLOAT16 = 16,
    WG_DT_FLOAT8E4M3FN = 17,
    WG_DT_FLOAT8E4M3FNUZ = 18,
    WG_DT_FLOAT8E5M2 = 19,
    WG_DT_FLOAT8E5M2FNUZ = 20,
    WG_DT_UINT4 = 21,
    WG_DT_INT4 = 22,
    WG_DT_FLOAT4E2M1 = 23,
    WG_DT_FLOAT8E8M0 = 24,
    WG_DT_UINT2 = 25,
    WG_DT_INT2 = 26,
} wg_dtype;

/* Limits of the module ABI, both versions (docs/abi.md "Limits"): a module whose metadata
 * goes past one is refused as WG_ERR_FORMAT. The JS loader has the same values (LIMITS in
 * js/wasmgraph.mjs, checked against these by tests/js/test_abi.mjs). */
#define WG_MAX_RANK 8                        /* dimensions per tensor */
#define WG_ABI_MAX_TENSORS 1024              /* inputs, and outputs, per model */
#define WG_ABI_MAX_DIM 2147483647            /* one dimension: 2^31 - 1 */
#define WG_ABI_MAX_ELEMENTS 4294967295u      /* elements per tensor: 2^32 - 1 */
#define WG_ABI_MAX_STEPS 1048576             /* "step_weights" and "profile" entries: 2^20 */

#define WG_ABI_MAX_SYMBOLS 8               /* ABI 2: entries of the metadata's "symbols" */

/* What a graph value is: a tensor, or (ABI 2) a sequence or optional made of several
 * module inputs or outputs (docs/abi.md "Sequences and optionals"). */
typedef enum wg_value_kind { WG_VALUE_TENSOR = 0, WG_VALUE_SEQUENCE = 1, WG_VALUE_OPTIONAL = 2 } wg_value_kind;

/* wg_tensor_info.sym[d] of an output dimension whose size the run decides (NonZero,
 * Unique, ...; metadata {"max": N}): at most dims[d]; wg_session_output_shape gives it. */
#define WG_DIM_BOUNDED (-2)

typedef struct wg_tensor_info {
    const char *name;
    wg_dtype dtype;
    int rank;
    int64_t dims[WG_MAX_RANK]; /* a symbolic dimension: its maximum */
    size_t bytes;              /* at the maxima: the size of the tensor's buffer */
    int sym[WG_MAX_RANK];      /* ABI 2: the symbol (index into wg_model_info.symbols) of a
                                * symbolic dimension, -1 for a fixed one, WG_DIM_BOUNDED for
                                * a data-dependent one of an output (dims[d] is its bound) */
    /* When this tensor is part of a sequence or optional graph value (else value is NULL,
     * value_kind WG_VALUE_TENSOR): the value's name, its kind, what an optional holds
     * (WG_VALUE_TENSOR or WG_VALUE_SEQUENCE; a sequence holds tensors), and the part:
     * element index, or -1 for an optional's presence flag (a bool scalar, 1 = present). */
    const char *value;
    wg_value_kind value_kind, value_holds;
    int value_part;
    /* An input the module lets a host give empty: size 0 along a symbolic dimension whose
     * symbol other inputs (or wg_session_set_dim) give another value; only bodies of the
     * graph (If branches, loop bodies) read it, and one that does when it is empty stops
     * the run with status 18, WGK_ERR_EMPTY_INPUT (docs/abi.md "Empty inputs"). */
    bool may_be_empty;
} wg_tensor_info;

/* A KV-cache pair of a decoder (docs/abi.md "Resident KV caches"): input `past`'s only
 * reader is a Concat along `axis` whose output is output `present`; the module keeps a
 * region holding the present at up to `capacity` rows along the axis. */
typedef struct wg_cache_pair_info {
    size_t past, present; /* input and output indices */
    int axis;
    int64_t capacity;
} wg_cache_pair_info;

/* ABI 2: a symbolic dimension and its range (`wasmgraph compile --dim NAME=MIN..MAX`, or
 * NAME=MIN..MAX:STEP: then only the multiples of step in range; 1 otherwise). */
typedef struct wg_symbol_info {
    const char *name;
    int64_t min, max;
    int64_t step;
} wg_symbol_info;

typedef struct wg_runtime wg_runtime;
typedef struct wg_model wg_model;
typedef struct wg_session wg_session;

typedef struct wg_runtime_options {
    size_t memory_limit_bytes; /* 0: no cap beyond what the module declares */
    uint64_t time_limit_ms;    /* 0: no limit on one wg_session_run */
    /* false (default): a session maps the module's page-aligned weights from the file,
     * copy-on-write, so creating it costs no copy and its weight pages are shared with
     * the page cache; the file must then stay as it is (not truncated or rewritten in
     * place) while sessions live. true: weights are read into the session's memory. */
    bool copy_weights;
    /* Threads a session of a threaded module (compile --threads) runs on: 0 or 1 one, the
     * caller's; N: the caller's and N - 1 the session starts when it is created (at most
     * the module's "threads"; wg_session_threads says how many). Modules built without
     * --threads run on the caller's thread whatever this says. */
    int threads;
} wg_runtime_options;

/* Returns a static string for a status ("ok", "i/o error", ...). */
const char *wg_status_str(wg_status st);

wg_status wg_runtime_new(const wg_runtime_options *opts, wg_runtime **out);
void wg_runtime_free(wg_runtime *rt);
/* The detail of the last failure on this runtime; "" when none. Owned by rt. */
const char *wg_last_error(const wg_runtime *rt);

/* Loads, validates and compiles a module file. A regular file is mapped, not read, and
 * when its weights are plain data segments only the code is compiled: the file then stays
 * open while the model lives and each wg_session_new puts the weights from it straight
 * into the session's memory: mapped copy-on-write where they are page-aligned in the file
 * (unless wg_runtime_options.copy_weights), else read. One copy of the weights per session
 * at most, none kept elsewhere.
 * If the file is changed or replaced in place after loading, wg_session_new fails with
 * WG_ERR_IO rather than reading other bytes: load it again. */
wg_status wg_model_load(wg_runtime *rt, const char *path, wg_model **out);
/* Same, from bytes the caller keeps ownership of. */
wg_status wg_model_load_bytes(wg_runtime *rt, const uint8_t *bytes, size_t len, const char *name,
                              wg_model **out);
void wg_model_free(wg_model *m);
size_t wg_model_num_inputs(const wg_model *m);
size_t wg_model_num_outputs(const wg_model *m);
const wg_tensor_info *wg_model_input(const wg_model *m, size_t i);
const wg_tensor_info *wg_model_output(const wg_model *m, size_t i);
/* The raw JSON text of the module's `wasmgraph` custom section. Owned by m. */
const char *wg_model_metadata_json(const wg_model *m);

/*
 * Reading a module without running it. wg_model_inspect reads a module file's sections
 * and its `wasmgraph` metadata and makes every check wg_model_load makes before it
 * compiles (docs/abi.md "What hosts check"), but compiles and instantiates nothing and
 * needs no runtime (`wasmgraph info` uses it). The checks that need an instance
 * (what wg_abi_version() and the pointer exports return) are wg_session_new's.
 */
typedef struct wg_model_info {
    int abi;                             /* the metadata's "abi": 1 or 2 */
    const char *name, *producer, *compiler; /* "" when the metadata has none */
    int64_t opset;                       /* -1 when absent */
    bool has_options, simd, relaxed_simd; /* "options"; the two flags false when absent */
    int64_t opt_level;                   /* -1 when absent */
    int64_t arena_bytes, weight_bytes, memory_bytes, weights_base; /* -1 when absent */
    size_t num_inputs, num_outputs;
    const wg_tensor_info *inputs, *outputs;
    size_t num_run_steps;   /* entries of "step_weights" (wg_run_steps()); 0 when absent */
    const uint64_t *step_weights; /* num_run_steps of them; NULL when absent */
    size_t num_profile_steps; /* entries of "profile" (a --profile build); 0 otherwise */
    uint64_t memory_min_bytes; /* the initial memory the module declares */
    int max_threads;        /* a threaded module (compile --threads): the most threads it runs on;
                             * 0 for a single-threaded one */
    size_t file_bytes;
    const char *metadata_json; /* the section's JSON text, NUL-terminated */
    size_t num_symbols;        /* ABI 2: the metadata's "symbols"; 0 for ABI 1 */
    const wg_symbol_info *symbols;
    size_t num_cache_pairs;    /* the metadata's "cache_pairs"; 0 when absent */
    const wg_cache_pair_info *cache_pairs;
} wg_model_info;

/* Reads and checks the module file at path. On success *out is the caller's, freed with
 * wg_model_info_free, and every pointer in it lives as long as it. On failure *out is
 * NULL, the status says why (WG_ERR_IO, WG_ERR_FORMAT, WG_ERR_ABI, WG_ERR_NOMEM) and err
 * (when not NULL) holds a one-line message naming path, truncated to errlen bytes. */
wg_status wg_model_inspect(const char *path, wg_model_info **out, char *err, size_t errlen);
/* Same, from bytes the caller keeps ownership of (only read during the call); name is
 * for messages (NULL: "<module>"). */
wg_status wg_model_inspect_bytes(const uint8_t *bytes, size_t len, const char *name,
                                 wg_model_info **out, char *err, size_t errlen);
void wg_model_info_free(wg_model_info *info);
/* A loaded model's metadata, as wg_model_inspect gives it. Owned by m. */
const wg_model_info *wg_model_get_info(const wg_model *m);

/* One instance of the module. */
wg_status wg_session_new(wg_model *m, wg_session **out);
void wg_session_free(wg_session *s);
/* The threads s runs on (1 for a module built without --threads). */
int wg_session_threads(const wg_session *s);
/* CPU time thread t of a threaded session has spent in its share of all runs so far, in
 * ms: the per-thread balance of the split. A thread waiting at the module's barrier first
 * reads a while, which counts, then sleeps, which does not. -1 for a session on one
 * thread or t out of range. */
double wg_session_thread_cpu_ms(wg_session *s, int t);
/* Where input/output i lives in linear memory; NULL when i is out of range. */
void *wg_session_input(wg_session *s, size_t i);
const void *wg_session_output(wg_session *s, size_t i);
/* Runs the graph once on the inputs in memory. A nonzero status from the module is
 * WG_ERR_TRAP, with its number and name in the message ("wg_run returned status 2
 * (WGK_ERR_INDEX: ...)", docs/abi.md "Statuses"). */
wg_status wg_session_run(wg_session *s);

/*
 * Symbolic dimensions (module ABI 2, docs/abi.md). A module compiled with --dim runs at
 * every size in its symbols' ranges; its inputs' and outputs' buffers have room for the
 * maxima, and tensors are dense at their actual sizes (a [batch, seq] input at batch 2,
 * seq 9 is its buffer's first 18 elements). Before wg_session_run, give the sizes either
 * per symbol or per input (or both); symbols given by neither are at their maxima:
 *
 *     int64_t dims[2] = {2, 9};
 *     wg_session_set_input_shape(s, 0, dims, 2);   // input_ids [batch, seq]
 *     wg_session_set_input_shape(s, 1, dims, 2);   // attention_mask
 *     ... write 18 elements to each input, wg_session_run(s) ...
 *     wg_session_output_shape(s, 0, out_dims, &rank); // [2, 9, 128]
 *
 * wg_session_run checks, before the module runs, that each symbol is in its range and
 * that every given shape agrees (WG_ERR_INVALID naming the input and the symbol
 * otherwise); the module checks the ranges again itself (WGK_ERR_DIMS). On ABI 1
 * modules these calls accept only the fixed shapes. An input whose wg_tensor_info has
 * may_be_empty may be given 0 along a symbol that other inputs give another value (a merged
 * decoder's encoder pasts on its first step): wg_session_run tells the module it is empty,
 * and a run whose branch reads it fails with status 18, WGK_ERR_EMPTY_INPUT, naming it
 * (docs/abi.md "Empty inputs").
 */
/* The runtime the session's model was loaded on (for wg_last_error). */
wg_runtime *wg_session_runtime(const wg_session *s);
/* Sets symbol `name` to value; WG_ERR_INVALID for an unknown name or a value out of range. */
wg_status wg_session_set_dim(wg_session *s, const char *name, int64_t value);
/* Gives input i's actual shape (rank dims): fixed dims must match, symbolic ones be in
 * range (or 0, for an input that may be empty); the symbols are taken from it at the next
 * run. WG_ERR_INVALID otherwise. */
wg_status wg_session_set_input_shape(wg_session *s, size_t i, const int64_t *dims, int rank);
/* Output i's actual shape at the current sizes (after wg_session_run: the run's, with the
 * data-dependent dims the module reported), into dims (WG_MAX_RANK entries) and *rank;
 * *bytes (when not NULL) its size. */
wg_status wg_session_output_shape(const wg_session *s, size_t i, int64_t *dims, int *rank,
                                  size_t *bytes);

/*
 * Resident KV caches (docs/abi.md "Resident KV caches"). A decoder whose pasts are read only
 * by the Concats that make its presents has cache pairs (wg_model_info.cache_pairs); the
 * module then keeps each present in a region of its memory, and a session may run with
 * its cache there:
 *
 *     wg_session_set_cache_mode(s, WG_CACHE_RESIDENT);
 *     ... each run: the pasts' shapes (or wg_session_set_dim) give the past length P, but
 *     nothing is written to the past inputs nor read from the presents: the module reads
 *     rows 0..P-1 from its regions and writes the new rows after them ...
 *
 * WG_CACHE_COPY (the default) runs as a module without pairs does; WG_CACHE_LOAD takes the
 * pasts from their inputs and also keeps the presents in the regions, so that the next
 * run may be resident. A resident run of a past P longer than the rows the regions hold
 * (P + new rows of the last resident or load run), or P + new rows beyond a region's
 * capacity, is refused (WG_ERR_INVALID) before anything runs.
 */
typedef enum wg_cache_mode { WG_CACHE_COPY = 0, WG_CACHE_RESIDENT = 1, WG_CACHE_LOAD = 2 } wg_cache_mode;
/* Sets the mode of every cache pair for the following runs; WG_ERR_INVALID for a module
 * without cache pairs (WG_CACHE_COPY is always accepted) or another mode. */
wg_status wg_session_set_cache_mode(wg_session *s, wg_cache_mode mode);
/* The rows the session's regions hold (of pair 0; all pairs hold the same in a decoder),
 * 0 before any resident or load run or without pairs. */
int64_t wg_session_cache_rows(const wg_session *s);

/*
 * Per-node profiling. A module compiled with `wasmgraph compile --profile` runs its graph
 * as numbered steps, one per node that survived compilation, in order; wg_session_run runs
 * them all, and wg_session_run_step runs one, so a caller can time each (`wasmgraph
 * profile`). Step k reads what steps before it wrote: run steps 0..n-1 in order, as
 * wg_session_run does (constant outputs are only written by wg_session_run).
 *
 *     for (size_t k = 0; k < wg_model_num_steps(m); k++)
 *         if (wg_session_run_step(s, k)) { puts(wg_last_error(rt)); ... }
 */
/* The number of steps; 0 for a module compiled without --profile. */
size_t wg_model_num_steps(const wg_model *m);
/* Step k's label "OpType node_name" (e.g. "Conv conv1"); NULL when k is out of range.
 * Owned by m. */
const char *wg_model_step_label(const wg_model *m, size_t k);
/* Runs step k (wg_profile_step(k); on a session of several threads, that step on all of
 * them) with the same trap and time-limit handling as wg_session_run (the time limit
 * applies to the one step). WG_ERR_INVALID when the module has no steps or k is out of
 * range. */
wg_status wg_session_run_step(wg_session *s, size_t k);

/*
 * Text generation with a KV cache (docs/generate.md). s is a session of a decoder module
 * (an optimum-onnx or onnxruntime-genai decoder file compiled with --dim ranges): inputs
 * input_ids [batch, seq] (int64 or int32), optionally attention_mask [batch, past + seq]
 * and position_ids [batch, seq], and past_key_values.* [batch, heads, past, head_dim] with a
 * symbolic past; outputs logits [batch, seq, vocab] (float32 or float16) and present.*
 * for every past input. The first run takes the prompt with an empty past, each later run
 * the token just chosen with the previous presents as its pasts; batch 1. With
 * wg_generate_options.encoder, s is an encoder-decoder's merged decoder (Whisper: the
 * encoder runs once, its output feeds encoder_hidden_states; docs/generate.md "Whisper").
 *
 *     wg_generate_options o = {.max_new_tokens = 32};          // greedy
 *     wg_session_generate(s, prompt, n, &o, print_token, NULL);
 *
 * on_token (may be NULL) gets each new token as it is chosen and returns false to stop.
 * Generation also stops after max_new_tokens, or after a token of stop_ids (given to
 * on_token first). Greedy (temperature 0) takes the first largest logit; otherwise a token
 * is drawn from softmax(logits / temperature) cut to the top_k most likely (0: all) and to
 * the fewest whose probabilities reach top_p (0 or 1: all), by a generator seeded with
 * seed (0: a fixed default). A model the loop cannot feed (another input, no logits, a past
 * of fixed length) is WG_ERR_INVALID naming it; a cache longer than the module's range is
 * the session's WG_ERR_INVALID naming the symbol and its range, prefixed by the token.
 */
typedef struct wg_generate_options {
    int max_new_tokens;
    double temperature;
    int top_k;
    double top_p;
    uint64_t seed;
    const int64_t *stop_ids;
    size_t n_stop_ids;
    /* An encoder-decoder (Whisper; NULL: a decoder-only model): a session of its encoder,
     * whose inputs the caller has written (input_features), run once before the loop. s is
     * then its merged decoder (optimum-onnx's decoder_model_merged: input_ids,
     * encoder_hidden_states, use_cache_branch, past_key_values.N.{decoder,encoder}.*), the
     * prompt its first tokens (decoder_start_token_id, then the forced ids). */
    wg_session *encoder;
    /* false (default): when the module keeps its KV cache (cache pairs, docs/abi.md
     * "Resident KV caches"), the loop runs with it resident (WG_CACHE_RESIDENT): the pasts
     * are given by their length alone and no present is copied. true: the presents are
     * copied into the pasts after each run, as for a module without pairs. */
    bool copy_cache;
} wg_generate_options;
typedef bool (*wg_token_callback)(int64_t token, void *user);
wg_status wg_session_generate(wg_session *s, const int64_t *prompt, size_t n_prompt, const wg_generate_options *o,
                              wg_token_callback on_token, void *user);

#ifdef __cplusplus
}
#endif
#endif
