/*
 * threads.c: the C host's side of threaded modules (docs/abi.md "Threads").
 *
 * A session of a threaded module owns one shared memory and one instance per thread,
 * each in its own store (a store is used by one thread at a time), all importing that
 * memory. Thread 0 is the caller's: its instance is the session's (s->instance, created
 * by session.c). Threads 1..n-1 are pthreads started when the session is created; each
 * instantiates the module in its own store, calls wg_thread_init(t) (its stack), then
 * sleeps on the session's condition variable until a run is posted, runs
 * wg_run_thread(t, k0, k1) and reports back. No thread is created per run.
 *
 * A run: wg_run_begin(n) on thread 0 (no thread is in the module then), post the job,
 * wg_run_thread(0, ...) on the caller's thread, wait for the others. When any thread
 * traps (the time limit is a trap too: every store has its own epoch deadline) its host
 * thread calls wg_threads_abort() on its instance, which wakes the others inside the
 * module with WGK_ERR_THREAD_ABORT; the run's error is then the trap, not the aborts.
 * Worker messages go to the worker's own buffer (rt->err belongs to the caller's thread)
 * and are copied into rt->err by the caller.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "host.h"
#include "../../kernels/include/wgk_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of the calling thread: a thread asleep at the module's barrier uses none, so
 * per-thread sums of it over runs show how evenly the work is split (bench --threads),
 * whatever else the machine runs. */
static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct wgh_worker {
    wg_session *s;
    int t;
    pthread_t thread;
    bool started;
    wasmtime_store_t *store;
    wasmtime_context_t *ctx;
    wasmtime_instance_t instance;
    wasmtime_func_t run_thread, abort_fn;
    /* The last job this worker finished, and how it went. */
    uint64_t done_gen;
    wg_status st;
    int32_t status; /* wg_run_thread's result when st == WG_OK */
    double cpu_ms;  /* CPU time spent in wg_run_thread, all runs */
    char err[700];
};

static bool get_export_func(wasmtime_context_t *ctx, wasmtime_instance_t *inst, const char *name,
                            wasmtime_func_t *out)
{
    wasmtime_extern_t ext;
    if (!wasmtime_instance_export_get(ctx, inst, name, strlen(name), &ext))
        return false;
    if (ext.kind != WASMTIME_EXTERN_FUNC) {
        wasmtime_extern_delete(&ext);
        return false;
    }
    *out = ext.of.func;
    return true;
}

/* Calls f(args) in ctx; a trap or an engine error is written to buf (with the time
 * limit's wording for an interrupt). */
static wg_status call_in(wg_session *s, wasmtime_context_t *ctx, const wasmtime_func_t *f, const char *fname,
                         const int32_t *args, size_t nargs, int32_t *result, char *buf, size_t len)
{
    wg_runtime *rt = s->m->rt;
    const char *model = s->m->name;
    wgh_call call;
    wasmtime_val_t a[3], r;
    for (size_t k = 0; k < nargs; k++)
        a[k] = (wasmtime_val_t){.kind = WASMTIME_I32, .of.i32 = args[k]};
    wasm_trap_t *trap = NULL;
    wgh_run_begin(rt, ctx, &call, s->shmem);
    wasmtime_error_t *e = wasmtime_func_call(ctx, f, a, nargs, &r, 1, &trap);
    const bool overdue = wgh_run_end(rt, &call);
    if (e) {
        wasm_byte_vec_t msg;
        wasmtime_error_message(e, &msg);
        snprintf(buf, len, "%s: calling %s failed: %.*s", model, fname, (int)(msg.size > 400 ? 400 : msg.size),
                 msg.data);
        wasm_byte_vec_delete(&msg);
        wasmtime_error_delete(e);
        return WG_ERR_ENGINE;
    }
    if (trap)
        return wgh_trap_text(rt, trap, model, fname, buf, len);
    if (overdue)
        return wgh_limit_text(rt, model, fname, buf, len);
    if (r.kind != WASMTIME_I32) {
        snprintf(buf, len, "%s: %s did not return an i32", model, fname);
        return WG_ERR_ABI;
    }
    *result = r.of.i32;
    return WG_OK;
}

static void abort_run(wg_session *s, wasmtime_context_t *ctx, const wasmtime_func_t *abort_fn)
{
    char ignored[64];
    int32_t r;
    /* The deadline may have passed already: give the call room of its own. */
    (void)call_in(s, ctx, abort_fn, "wg_threads_abort", NULL, 0, &r, ignored, sizeof ignored);
}

/* Reads of a flag a thread makes before it sleeps on a condition variable: waking a
 * sleeping thread costs a futex round trip, paid twice a run without them (a worker
 * waking for the run, thread 0 for the workers' end), which a short run notices. The
 * reads last less than one such wake-up here (docs/performance.md); a run posted later,
 * or a worker that finishes later, is waited for asleep as before. */
#define WGH_SPIN_READS 131072

static void *worker_main(void *arg)
{
    wgh_worker *w = arg;
    wg_session *s = w->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->job_gen == w->done_gen && !s->quit) { /* the next run may come soon */
            pthread_mutex_unlock(&s->mu);
            for (int i = 0; i < WGH_SPIN_READS && atomic_load_explicit(&s->job_posted, memory_order_acquire) ==
                                                      w->done_gen; i++)
                ;
            pthread_mutex_lock(&s->mu);
        }
        while (!s->quit && s->job_gen == w->done_gen)
            pthread_cond_wait(&s->job_cv, &s->mu);
        if (s->quit)
            break;
        const uint64_t gen = s->job_gen;
        const int32_t args[3] = {w->t, s->job_k0, s->job_k1};
        const bool in_run = w->t < s->job_threads;
        pthread_mutex_unlock(&s->mu);
        wg_status st = WG_OK;
        int32_t status = 0;
        if (in_run) {
            const double c0 = thread_cpu_ms();
            st = call_in(s, w->ctx, &w->run_thread, "wg_run_thread", args, 3, &status, w->err, sizeof w->err);
            w->cpu_ms += thread_cpu_ms() - c0;
            if (st)
                abort_run(s, w->ctx, &w->abort_fn);
        }
        pthread_mutex_lock(&s->mu);
        w->st = st;
        w->status = status;
        w->done_gen = gen;
        s->job_pending--;
        atomic_fetch_sub_explicit(&s->job_left, 1, memory_order_release);
        pthread_cond_broadcast(&s->done_cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Instantiates the module for thread t in a store of its own, on the session's memory. */
static wg_status worker_init(wg_session *s, wgh_worker *w, int t)
{
    wg_model *m = s->m;
    wg_runtime *rt = m->rt;
    w->s = s;
    w->t = t;
    if (!(w->store = wasmtime_store_new(rt->engine, NULL, NULL)))
        return wgh_error(rt, WG_ERR_NOMEM, "%s: out of memory creating thread %d's store", m->name, t);
    w->ctx = wasmtime_store_context(w->store);
    wasmtime_extern_t imp = {.kind = WASMTIME_EXTERN_SHAREDMEMORY, .of.sharedmemory = s->shmem};
    wasm_trap_t *trap = NULL;
    wgh_call call;
    wgh_run_begin(rt, w->ctx, &call, s->shmem);
    wasmtime_error_t *e = wasmtime_instance_new(w->ctx, m->module, &imp, 1, &w->instance, &trap);
    const bool overdue = wgh_run_end(rt, &call);
    if (e) {
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s: cannot instantiate thread %d", m->name, t);
        return wgh_wasmtime_error(rt, WG_ERR_ENGINE, e, prefix);
    }
    if (trap)
        return wgh_trap_error(rt, trap, m->name, "instantiation");
    if (overdue)
        return wgh_limit_text(rt, m->name, "instantiation", rt->err, sizeof rt->err);
    wasmtime_func_t init;
    if (!get_export_func(w->ctx, &w->instance, "wg_thread_init", &init) ||
        !get_export_func(w->ctx, &w->instance, "wg_run_thread", &w->run_thread) ||
        !get_export_func(w->ctx, &w->instance, "wg_threads_abort", &w->abort_fn))
        return wgh_error(rt, WG_ERR_ABI, "%s: thread exports missing", m->name);
    int32_t r;
    const int32_t arg = t;
    wg_status st = call_in(s, w->ctx, &init, "wg_thread_init", &arg, 1, &r, rt->err, sizeof rt->err);
    if (st)
        return st;
    if (r)
        return wgh_error(rt, WG_ERR_ABI, "%s: wg_thread_init(%d) returned status %d", m->name, t, r);
    return WG_OK;
}

wg_status wgh_threads_memory(wg_session *s)
{
    wg_model *m = s->m;
    wg_runtime *rt = m->rt;
    const uint64_t pages = m->info.memory_min_bytes / 65536;
    const uint64_t max_pages = m->info.memory_max_bytes / 65536;
    wasm_memorytype_t *ty = NULL;
    wasmtime_error_t *e = wasmtime_memorytype_new(pages, true, max_pages, false, true, 16, &ty);
    if (!e)
        e = wasmtime_sharedmemory_new(rt->engine, ty, &s->shmem);
    if (ty)
        wasm_memorytype_delete(ty);
    if (e) {
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s: cannot create the shared memory", m->name);
        return wgh_wasmtime_error(rt, WG_ERR_ENGINE, e, prefix);
    }
    s->mem_base = wasmtime_sharedmemory_data(s->shmem);
    s->mem_size = wasmtime_sharedmemory_data_size(s->shmem);
    return WG_OK;
}

wg_status wgh_threads_start(wg_session *s)
{
    wg_model *m = s->m;
    wg_runtime *rt = m->rt;
    int n = rt->opts.threads > 1 ? rt->opts.threads : 1;
    if (n > m->info.meta.threads)
        n = (int)m->info.meta.threads;
    s->n_threads = n;
    if (!get_export_func(s->ctx, &s->instance, "wg_run_begin", &s->begin_fn) ||
        !get_export_func(s->ctx, &s->instance, "wg_run_thread", &s->run_thread_fn) ||
        !get_export_func(s->ctx, &s->instance, "wg_threads_abort", &s->abort_fn))
        return wgh_error(rt, WG_ERR_ABI, "%s: thread exports missing", m->name);
    if (pthread_mutex_init(&s->mu, NULL))
        return wgh_error(rt, WG_ERR_ENGINE, "%s: cannot create a mutex", m->name);
    s->has_sync = true;
    if (pthread_cond_init(&s->job_cv, NULL)) {
        pthread_mutex_destroy(&s->mu);
        s->has_sync = false;
        return wgh_error(rt, WG_ERR_ENGINE, "%s: cannot create a condition variable", m->name);
    }
    if (pthread_cond_init(&s->done_cv, NULL)) {
        pthread_cond_destroy(&s->job_cv);
        pthread_mutex_destroy(&s->mu);
        s->has_sync = false;
        return wgh_error(rt, WG_ERR_ENGINE, "%s: cannot create a condition variable", m->name);
    }
    if (n <= 1)
        return WG_OK;
    if (!(s->workers = calloc((size_t)n - 1, sizeof *s->workers)))
        return wgh_error(rt, WG_ERR_NOMEM, "%s: out of memory", m->name);
    for (int t = 1; t < n; t++) {
        wgh_worker *w = &s->workers[t - 1];
        s->n_workers = t; /* freed by wgh_threads_stop from here on */
        wg_status st = worker_init(s, w, t);
        if (st)
            return st;
        if (pthread_create(&w->thread, NULL, worker_main, w))
            return wgh_error(rt, WG_ERR_ENGINE, "%s: cannot start thread %d", m->name, t);
        w->started = true;
    }
    return WG_OK;
}

void wgh_threads_stop(wg_session *s)
{
    if (s->has_sync) {
        pthread_mutex_lock(&s->mu);
        s->quit = true;
        pthread_cond_broadcast(&s->job_cv);
        pthread_mutex_unlock(&s->mu);
    }
    for (int k = 0; k < s->n_workers; k++) {
        wgh_worker *w = &s->workers[k];
        if (w->started)
            pthread_join(w->thread, NULL);
        if (w->store)
            wasmtime_store_delete(w->store);
    }
    free(s->workers);
    s->workers = NULL;
    s->n_workers = 0;
    if (s->has_sync) {
        pthread_cond_destroy(&s->job_cv);
        pthread_cond_destroy(&s->done_cv);
        pthread_mutex_destroy(&s->mu);
        s->has_sync = false;
    }
}

wg_status wgh_threads_run(wg_session *s, int k0, int k1, const char *fname)
{
    wg_model *m = s->m;
    wg_runtime *rt = m->rt;
    const int n = s->n_threads;
    int32_t status = 0;
    const int32_t nn = n;
    wg_status st = call_in(s, s->ctx, &s->begin_fn, "wg_run_begin", &nn, 1, &status, rt->err, sizeof rt->err);
    if (st)
        return st;
    if (status)
        return wgh_error(rt, WG_ERR_TRAP, "%s: wg_run_begin(%d) returned status %d", m->name, n, status);
    pthread_mutex_lock(&s->mu);
    s->job_k0 = k0;
    s->job_k1 = k1;
    s->job_threads = n;
    s->job_pending = s->n_workers;
    s->job_gen++;
    atomic_store_explicit(&s->job_left, s->n_workers, memory_order_relaxed);
    atomic_store_explicit(&s->job_posted, s->job_gen, memory_order_release);
    pthread_cond_broadcast(&s->job_cv);
    pthread_mutex_unlock(&s->mu);
    const int32_t args[3] = {0, k0, k1};
    char err0[700];
    const double c0 = thread_cpu_ms();
    st = call_in(s, s->ctx, &s->run_thread_fn, fname, args, 3, &status, err0, sizeof err0);
    s->cpu_ms0 += thread_cpu_ms() - c0;
    if (st)
        abort_run(s, s->ctx, &s->abort_fn);
    /* The workers leave the module's last barrier when thread 0 does. */
    for (int i = 0; i < WGH_SPIN_READS && atomic_load_explicit(&s->job_left, memory_order_acquire) > 0; i++)
        ;
    pthread_mutex_lock(&s->mu);
    while (s->job_pending)
        pthread_cond_wait(&s->done_cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    /* The first real failure: a trap or engine error (thread 0's, then the workers'), then
     * a status other than the aborts that a trap causes in the other threads. */
    if (st)
        return wgh_error(rt, st, "%s", err0);
    for (int k = 0; k < s->n_workers; k++)
        if (s->workers[k].st)
            return wgh_error(rt, s->workers[k].st, "%s (thread %d)", s->workers[k].err, k + 1);
    int32_t first = status;
    for (int k = 0; k < s->n_workers && (!first || first == WGK_ERR_THREAD_ABORT); k++)
        if (s->workers[k].status && s->workers[k].status != WGK_ERR_THREAD_ABORT)
            first = s->workers[k].status;
    return first ? wgh_status_error(s, fname, first) : WG_OK;
}

int wg_session_threads(const wg_session *s)
{
    return s->n_threads > 1 ? s->n_threads : 1;
}

double wg_session_thread_cpu_ms(wg_session *s, int t)
{
    if (s->n_threads <= 1 || t < 0 || t >= s->n_threads)
        return -1.0;
    if (t == 0)
        return s->cpu_ms0;
    pthread_mutex_lock(&s->mu); /* written by the worker when it reports a run */
    const double v = s->workers[t - 1].cpu_ms;
    pthread_mutex_unlock(&s->mu);
    return v;
}
