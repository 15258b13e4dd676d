/*
 * host.h: the host library's private types (runtime, model, session) shared by
 * runtime.c, model.c and session.c. Nothing outside src/host includes this.
 *
 * Threading: a runtime may be used from several threads only if each thread uses its
 * own sessions and the caller serialises calls that can fail (they write rt->err).
 */
#ifndef WGH_HOST_H
#define WGH_HOST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <wasmtime.h>

#include "data_split.h"
#include "inspect.h"
#include "wasmgraph.h"

struct wg_runtime {
    wasm_engine_t *engine;
    wg_runtime_options opts;
    char err[1024];
    /* Time limit: a watchdog thread bumps the engine epoch every tick_ms while at least
     * one run is active; a run's deadline is deadline_ticks epochs after it starts. */
    bool has_watchdog;
    pthread_t watchdog;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int active_runs;
    bool stop;
    uint64_t tick_ms, deadline_ticks;
    uint64_t ticks;         /* epochs the watchdog has counted */
    struct wgh_call *calls; /* the calls on a shared memory now running (wgh_call) */
};

struct wg_model {
    wg_runtime *rt;
    char *name;             /* file path or caller's name, for messages */
    wgh_module_info info;
    wasmtime_module_t *module;
    /* Loaded from a file with its data segments split off (data_split.h): wasmtime
     * compiled only split.code, and each session reads the segments from data_fd into
     * its linear memory. data_fd is -1 otherwise. The size and modification time tell
     * whether the file changed since it was loaded. */
    int data_fd;
    wgh_split split;
    int64_t file_size, file_mtime_s, file_mtime_ns;
};

typedef struct wgh_worker wgh_worker;

struct wg_session {
    wg_model *m;
    wasmtime_store_t *store;
    wasmtime_context_t *ctx;
    wasmtime_instance_t instance;
    wasmtime_memory_t memory;
    wasmtime_func_t run;
    wasmtime_func_t step; /* wg_profile_step, set when the model has profile steps */
    uint32_t *in_off, *out_off;
    /* ABI 2 (session_dims.c): where the module's wg_dims array is, each symbol's value
     * (-1: not given), and the input shapes given (in_given[i]; dims in in_dims). */
    uint32_t dims_off;
    int64_t *sym_val, *sym_cur;
    bool *in_given;
    int64_t (*in_dims)[WG_MAX_RANK];
    /* Inputs that may be given empty (docs/abi.md "Empty inputs"): where the module's
     * wg_input_empty array is (0: none) and which inputs the next run gives empty. */
    uint32_t empty_off;
    bool *in_empty;
    /* Resident KV caches (cache_pairs.c): where the module's wg_cache_mode array is, the
     * mode of the next runs and the rows each pair's region holds (host's count). */
    uint32_t cache_off;
    wg_cache_mode cache_mode;
    int64_t *cache_rows;
    /* Data-dependent output dims (ABI 2 {"max": N}): wg_output_dims_ptr, and each output's
     * actual dims as the last run reported them (checked against the metadata). */
    wasmtime_func_t out_dims_fn;
    int64_t (*out_dims)[WG_MAX_RANK];
    /* The linear memory (it never moves: a module's maximum is its minimum). */
    uint8_t *mem_base;
    uint64_t mem_size;
    /* A threaded module (threads.c): its shared memory, the run's thread count and the
     * other threads; n_threads is 0 for a single-threaded module. */
    wasmtime_sharedmemory_t *shmem;
    int n_threads, n_workers;
    wgh_worker *workers;
    wasmtime_func_t begin_fn, run_thread_fn, abort_fn;
    bool has_sync, quit;
    pthread_mutex_t mu;
    pthread_cond_t job_cv, done_cv;
    uint64_t job_gen;
    int job_k0, job_k1, job_threads, job_pending;
    /* Copies of job_gen and job_pending that threads read without the mutex, to spin a
     * while before they sleep on a condition variable (threads.c WGH_SPIN_READS); the
     * mutex-guarded fields decide. */
    atomic_uint_fast64_t job_posted;
    atomic_int job_left;
    double cpu_ms0; /* thread 0's CPU time in wg_run_thread, all runs */
};

/* session_dims.c: finds wg_dims_ptr and allocates the sizes' state (ABI 2; nothing for 1). */
wg_status wgh_session_dims_init(wg_session *s);
void wgh_session_dims_free(wg_session *s);
/* Resolves the symbols from what was given, checks them, writes them into wg_dims. */
wg_status wgh_session_write_dims(wg_session *s);
/* After a run of a module with data-dependent output dims: reads every output's actual dims
 * (wg_output_dims_ptr) and checks them against the metadata (WG_ERR_ABI past a bound). */
wg_status wgh_session_read_out_dims(wg_session *s);
/* cache_pairs.c: finds wg_cache_mode_ptr (a module with "cache_pairs"), checks it; before
 * each run, checks the lengths against the regions and writes the modes; after a run,
 * counts the rows the regions hold. */
wg_status wgh_session_cache_init(wg_session *s);
void wgh_session_cache_free(wg_session *s);
wg_status wgh_session_write_cache(wg_session *s);
void wgh_session_cache_ran(wg_session *s);
/* The error of a run that returned a nonzero status from fname (session.c): its number,
 * name and meaning, and for WGK_ERR_EMPTY_INPUT the inputs the run was given empty. */
wg_status wgh_status_error(wg_session *s, const char *fname, int32_t status);
/* Calls an export with 0 or 1 i32 argument, giving its i32 result (session.c). */
wg_status wgh_call_i32(wg_session *s, const wasmtime_func_t *f, const char *fname, bool has_arg, int32_t arg,
                       int32_t *result);

/* Formats a message into rt->err and returns st. */
wg_status wgh_error(wg_runtime *rt, wg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Takes a wasmtime error (deleting it) into rt->err as "<prefix>: <message>". */
wg_status wgh_wasmtime_error(wg_runtime *rt, wg_status st, wasmtime_error_t *e, const char *prefix);
/* Turns a trap (deleting it) into a status: an epoch interrupt is WG_ERR_LIMIT, others
 * WG_ERR_TRAP; the message names model, function, trap code and wasmtime's text. */
wg_status wgh_trap_error(wg_runtime *rt, wasm_trap_t *trap, const char *model, const char *func);

/* Same, into buf instead of rt->err (for threads other than the caller's). */
/* The time limit's message ("run exceeded the time limit of N ms") into buf; WG_ERR_LIMIT. */
wg_status wgh_limit_text(const wg_runtime *rt, const char *model, const char *func, char *buf, size_t len);
wg_status wgh_trap_text(const wg_runtime *rt, wasm_trap_t *trap, const char *model, const char *func, char *buf,
                        size_t len);

/* Threaded modules (threads.c): the session's shared memory (before instantiation), its
 * threads (after; n from the runtime options, at most the module's), a run of steps
 * [k0, k1) on all of them, and stopping them (idempotent, also after a failed start). */
wg_status wgh_threads_memory(wg_session *s);
wg_status wgh_threads_start(wg_session *s);
wg_status wgh_threads_run(wg_session *s, int k0, int k1, const char *fname);
void wgh_threads_stop(wg_session *s);

/* One call into wasm while a time limit is set. A call on a threaded module's shared
 * memory is listed on the runtime, so that the watchdog can wake its thread should it
 * sleep in a wait past the deadline (runtime.c). */
typedef struct wgh_call {
    struct wgh_call *next;
    wasmtime_sharedmemory_t *shmem;
    uint64_t next_wake; /* the tick at which the watchdog wakes it (again) */
    bool waking;        /* the watchdog is waking it now: the call may not leave the list */
    bool woken;         /* it had to: the call ran past its time limit, whatever it returns */
} wgh_call;

/* Brackets one call into wasm when a time limit is set: arms/disarms the watchdog and
 * sets the store's deadline; shmem is the memory the call runs on when it is shared
 * (NULL otherwise). */
void wgh_run_begin(wg_runtime *rt, wasmtime_context_t *ctx, wgh_call *call, wasmtime_sharedmemory_t *shmem);
bool wgh_run_end(wg_runtime *rt, wgh_call *call); /* true: overdue, see wgh_call.woken */

/* Wakes every thread waiting in mem; how many woke (scripts/wasmtime-capi/lib.rs: the one
 * call the C API lacks). */
uint64_t wgh_shared_memory_wake_all(const wasmtime_sharedmemory_t *mem);

#endif
