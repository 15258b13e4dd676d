/* runtime.c: the wasmtime engine, the per-runtime error buffer, the time-limit watchdog,
 * and turning wasmtime errors and traps into statuses and messages. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_condattr_setclock */
#endif
#include "host.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

wg_status wgh_error(wg_runtime *rt, wg_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->err, sizeof rt->err, fmt, ap);
    va_end(ap);
    return st;
}

/* Copies a wasm byte vector's text (first line only) into buf, then frees the vector
 * (like take_trap_text: both take the message wasmtime handed over). */
static void take_first_line(wasm_byte_vec_t *v, char *buf, size_t len)
{
    size_t n = 0;
    while (n < v->size && n + 1 < len && v->data[n] && v->data[n] != '\n') {
        buf[n] = v->data[n];
        n++;
    }
    buf[n] = 0;
    wasm_byte_vec_delete(v);
}

wg_status wgh_wasmtime_error(wg_runtime *rt, wg_status st, wasmtime_error_t *e, const char *prefix)
{
    wasm_byte_vec_t msg;
    char text[600];
    wasmtime_error_message(e, &msg);
    take_first_line(&msg, text, sizeof text);
    wasmtime_error_delete(e);
    return wgh_error(rt, st, "%s: %s", prefix, text);
}

static const char *trap_code_name(wasmtime_trap_code_t code)
{
    switch (code) {
    case WASMTIME_TRAP_CODE_STACK_OVERFLOW: return "stack overflow";
    case WASMTIME_TRAP_CODE_MEMORY_OUT_OF_BOUNDS: return "out of bounds memory access";
    case WASMTIME_TRAP_CODE_HEAP_MISALIGNED: return "misaligned memory access";
    case WASMTIME_TRAP_CODE_TABLE_OUT_OF_BOUNDS: return "out of bounds table access";
    case WASMTIME_TRAP_CODE_INDIRECT_CALL_TO_NULL: return "indirect call to null";
    case WASMTIME_TRAP_CODE_BAD_SIGNATURE: return "indirect call signature mismatch";
    case WASMTIME_TRAP_CODE_INTEGER_OVERFLOW: return "integer overflow";
    case WASMTIME_TRAP_CODE_INTEGER_DIVISION_BY_ZERO: return "integer division by zero";
    case WASMTIME_TRAP_CODE_BAD_CONVERSION_TO_INTEGER: return "invalid conversion to integer";
    case WASMTIME_TRAP_CODE_UNREACHABLE_CODE_REACHED: return "unreachable executed";
    case WASMTIME_TRAP_CODE_INTERRUPT: return "interrupted";
    case WASMTIME_TRAP_CODE_OUT_OF_FUEL: return "out of fuel";
    default: return "trap";
    }
}

/* Condenses wasmtime's trap text, which looks like
 *     error while executing at wasm backtrace:
 *         0:     0xb3 - oob.wasm!wg_run
 *         ...
 *     Caused by:
 *         0: memory fault at wasm address 0xfffffff0 in linear memory of size 0x20000
 *         1: wasm trap: out of bounds memory access
 * into "memory fault at ...; at oob.wasm!wg_run": the causes (minus the "wasm trap:" line,
 * which the trap code already names) and the innermost frame; then frees v. */
static void take_trap_text(wasm_byte_vec_t *v, char *buf, size_t len)
{
    char frame[200] = "", causes[600] = "", first[300] = "";
    size_t nc = 0;
    bool in_causes = false, want_frame = false;
    size_t pos = 0;
    while (pos < v->size) {
        size_t end = pos;
        while (end < v->size && v->data[end] != '\n' && v->data[end])
            end++;
        const char *l = v->data + pos;
        size_t n = end - pos;
        pos = end + 1;
        while (n && (*l == ' ' || *l == '\t')) {
            l++;
            n--;
        }
        if (!n)
            continue;
        if (!first[0])
            snprintf(first, sizeof first, "%.*s", (int)n, l);
        if (n >= 10 && !memcmp(l, "Caused by:", 10)) {
            in_causes = true;
            continue;
        }
        if (n >= 15 && !memcmp(l + n - 15, "wasm backtrace:", 15)) {
            want_frame = true;
            continue;
        }
        if (want_frame) { /* "0:     0xb3 - oob.wasm!wg_run" */
            const char *dash = memchr(l, '-', n);
            if (dash && dash + 2 <= l + n)
                snprintf(frame, sizeof frame, "%.*s", (int)(l + n - dash - 2), dash + 2);
            want_frame = false;
        }
        if (!in_causes)
            continue;
        /* Drop the "N: " numbering of a multi-line cause list. */
        size_t k = 0;
        while (k < n && l[k] >= '0' && l[k] <= '9')
            k++;
        if (k && k + 1 < n && l[k] == ':' && l[k + 1] == ' ') {
            l += k + 2;
            n -= k + 2;
        }
        if (n >= 10 && !memcmp(l, "wasm trap:", 10))
            continue;
        if (nc < sizeof causes)
            nc += (size_t)snprintf(causes + nc, sizeof causes - nc, "%s%.*s", nc ? "; " : "", (int)n, l);
    }
    if (!causes[0] && !frame[0] && strncmp(first, "error while executing", 21))
        snprintf(causes, sizeof causes, "%s", first);
    snprintf(buf, len, "%s%s%s", causes, causes[0] && frame[0] ? "; " : "", frame[0] ? "at " : "");
    size_t m = strlen(buf);
    if (frame[0] && m < len)
        snprintf(buf + m, len - m, "%s", frame);
    wasm_byte_vec_delete(v);
}

wg_status wgh_trap_error(wg_runtime *rt, wasm_trap_t *trap, const char *model, const char *func)
{
    return wgh_trap_text(rt, trap, model, func, rt->err, sizeof rt->err);
}

wg_status wgh_limit_text(const wg_runtime *rt, const char *model, const char *func, char *buf, size_t len)
{
    snprintf(buf, len, "%s: %s: run exceeded the time limit of %llu ms", model, func,
             (unsigned long long)rt->opts.time_limit_ms);
    return WG_ERR_LIMIT;
}

wg_status wgh_trap_text(const wg_runtime *rt, wasm_trap_t *trap, const char *model, const char *func, char *buf,
                        size_t len)
{
    wasmtime_trap_code_t code;
    bool has_code = wasmtime_trap_code(trap, &code);
    wasm_message_t msg;
    char text[700];
    wasm_trap_message(trap, &msg);
    take_trap_text(&msg, text, sizeof text);
    wasm_trap_delete(trap);
    if (has_code && code == WASMTIME_TRAP_CODE_INTERRUPT && rt->opts.time_limit_ms)
        return wgh_limit_text(rt, model, func, buf, len);
    snprintf(buf, len, "%s: %s trapped: %s%s%s%s", model, func, has_code ? trap_code_name(code) : "trap",
             text[0] ? " (" : "", text, text[0] ? ")" : "");
    return WG_ERR_TRAP;
}

/* With rt->mu held. The epoch stops a thread only where it runs code, never inside
 * memory.atomic.wait (a module's barriers wait without a timeout until the last thread
 * arrives, and a corrupt module may wait for ever): a call on a shared memory still running a deadline after its own
 * deadline gets its waiters woken, and again each deadline after that, so they run on
 * into an epoch check and trap. One call per tick: the list may change while unlocked. */
static void wake_overdue(wg_runtime *rt)
{
    for (wgh_call *c = rt->calls; c; c = c->next) {
        if (c->waking || rt->ticks < c->next_wake)
            continue;
        c->waking = c->woken = true;
        c->next_wake = rt->ticks + rt->deadline_ticks;
        pthread_mutex_unlock(&rt->mu);
        (void)wgh_shared_memory_wake_all(c->shmem);
        pthread_mutex_lock(&rt->mu);
        c->waking = false;
        pthread_cond_broadcast(&rt->cv); /* wgh_run_end may be waiting for it */
        return;
    }
}

static void *watchdog_main(void *arg)
{
    wg_runtime *rt = arg;
    pthread_mutex_lock(&rt->mu);
    while (!rt->stop) {
        if (!rt->active_runs) {
            pthread_cond_wait(&rt->cv, &rt->mu);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t ns = (uint64_t)ts.tv_nsec + rt->tick_ms * 1000000u;
        ts.tv_sec += (time_t)(ns / 1000000000u);
        ts.tv_nsec = (long)(ns % 1000000000u);
        int rc = pthread_cond_timedwait(&rt->cv, &rt->mu, &ts);
        if (rc == ETIMEDOUT && rt->active_runs) {
            wasmtime_engine_increment_epoch(rt->engine);
            rt->ticks++;
            wake_overdue(rt);
        }
    }
    pthread_mutex_unlock(&rt->mu);
    return NULL;
}

/* Starts the watchdog; false when a pthread call fails (then nothing is left to clean). */
static bool watchdog_start(wg_runtime *rt)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca))
        return false;
    bool ok = !pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) && !pthread_cond_init(&rt->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (!ok)
        return false;
    if (pthread_mutex_init(&rt->mu, NULL)) {
        pthread_cond_destroy(&rt->cv);
        return false;
    }
    if (pthread_create(&rt->watchdog, NULL, watchdog_main, rt)) {
        pthread_mutex_destroy(&rt->mu);
        pthread_cond_destroy(&rt->cv);
        return false;
    }
    rt->has_watchdog = true;
    return true;
}

void wgh_run_begin(wg_runtime *rt, wasmtime_context_t *ctx, wgh_call *call, wasmtime_sharedmemory_t *shmem)
{
    *call = (wgh_call){.shmem = shmem};
    if (!rt->has_watchdog)
        return;
    pthread_mutex_lock(&rt->mu);
    wasmtime_context_set_epoch_deadline(ctx, rt->deadline_ticks);
    if (shmem) {
        call->next_wake = rt->ticks + 2 * rt->deadline_ticks;
        call->next = rt->calls;
        rt->calls = call;
    }
    /* Wake the watchdog only from idle: waking it mid-tick would restart its tick and,
     * with runs starting often on other threads, could postpone every deadline. (A
     * broadcast: a wgh_run_end may wait on the same condition.) */
    if (rt->active_runs++ == 0)
        pthread_cond_broadcast(&rt->cv);
    pthread_mutex_unlock(&rt->mu);
}

bool wgh_run_end(wg_runtime *rt, wgh_call *call)
{
    if (!rt->has_watchdog)
        return false;
    pthread_mutex_lock(&rt->mu);
    if (call->shmem) {
        while (call->waking)
            pthread_cond_wait(&rt->cv, &rt->mu);
        wgh_call **p = &rt->calls;
        while (*p && *p != call)
            p = &(*p)->next;
        if (*p)
            *p = call->next;
    }
    rt->active_runs--;
    pthread_mutex_unlock(&rt->mu);
    return call->woken;
}

/* Calls an export with 0 or 1 i32 argument, giving its i32 result. */
wg_status wgh_call_i32(wg_session *s, const wasmtime_func_t *f, const char *fname, bool has_arg, int32_t arg,
                       int32_t *result)
{
    wg_runtime *rt = s->m->rt;
    wasmtime_val_t a = {.kind = WASMTIME_I32, .of.i32 = arg}, r;
    wasm_trap_t *trap = NULL;
    wgh_call call;
    wgh_run_begin(rt, s->ctx, &call, s->shmem);
    wasmtime_error_t *e = wasmtime_func_call(s->ctx, f, &a, has_arg ? 1 : 0, &r, 1, &trap);
    const bool overdue = wgh_run_end(rt, &call);
    if (e) {
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s: calling %s failed", s->m->name, fname);
        return wgh_wasmtime_error(rt, WG_ERR_ENGINE, e, prefix);
    }
    if (trap)
        return wgh_trap_error(rt, trap, s->m->name, fname);
    if (overdue)
        return wgh_limit_text(rt, s->m->name, fname, rt->err, sizeof rt->err);
    if (r.kind != WASMTIME_I32)
        return wgh_error(rt, WG_ERR_ABI, "%s: %s did not return an i32", s->m->name, fname);
    *result = r.of.i32;
    return WG_OK;
}

wg_status wg_runtime_new(const wg_runtime_options *opts, wg_runtime **out)
{
    wg_runtime *rt = calloc(1, sizeof *rt);
    *out = NULL;
    if (!rt)
        return WG_ERR_NOMEM;
    if (opts)
        rt->opts = *opts;
    /* For measuring and for file systems where mapping is unwelcome (docs/command-line.md). */
    const char *cw = getenv("WASMGRAPH_COPY_WEIGHTS");
    if (cw && !strcmp(cw, "1"))
        rt->opts.copy_weights = true;
    wasm_config_t *cfg = wasm_config_new();
    if (!cfg)
        goto nomem;
    wasmtime_config_strategy_set(cfg, WASMTIME_STRATEGY_CRANELIFT);
    wasmtime_config_cranelift_opt_level_set(cfg, WASMTIME_OPT_LEVEL_SPEED);
    wasmtime_config_wasm_simd_set(cfg, true);
    wasmtime_config_wasm_relaxed_simd_set(cfg, true);
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
    /* `make tsan`: wasmtime (Rust, not instrumented) compiles on a thread pool whose
     * synchronisation TSan cannot see; compiling on the calling thread keeps its reports
     * to the host's own threads. */
    wasmtime_config_parallel_compilation_set(cfg, false);
#endif
#endif
    /* Threaded modules: atomics and a shared memory (docs/abi.md "Threads"). */
    wasmtime_config_wasm_threads_set(cfg, true);
    wasmtime_config_shared_memory_set(cfg, true);
    /* For `perf record`: JIT code symbols in /tmp/perf-PID.map (docs/command-line.md). */
    const char *pm = getenv("WASMGRAPH_PERFMAP");
    if (pm && !strcmp(pm, "1"))
        wasmtime_config_profiler_set(cfg, WASMTIME_PROFILING_STRATEGY_PERFMAP);
    /* Epoch checks cost a little on every loop back-edge: only with a time limit. */
    wasmtime_config_epoch_interruption_set(cfg, rt->opts.time_limit_ms > 0);
    rt->engine = wasm_engine_new_with_config(cfg); /* takes cfg */
    if (!rt->engine)
        goto nomem;
    if (rt->opts.time_limit_ms) {
        /* Ticks of about a twentieth of the limit (1..50 ms): the run stops between
         * limit and limit + one tick after it starts. */
        uint64_t tick = rt->opts.time_limit_ms / 20;
        rt->tick_ms = tick < 1 ? 1 : tick > 50 ? 50 : tick;
        rt->deadline_ticks = (rt->opts.time_limit_ms + rt->tick_ms - 1) / rt->tick_ms + 1;
        if (!watchdog_start(rt)) {
            wasm_engine_delete(rt->engine);
            free(rt);
            return WG_ERR_ENGINE;
        }
    }
    *out = rt;
    return WG_OK;
nomem:
    free(rt);
    return WG_ERR_NOMEM;
}

void wg_runtime_free(wg_runtime *rt)
{
    if (!rt)
        return;
    if (rt->has_watchdog) {
        pthread_mutex_lock(&rt->mu);
        rt->stop = true;
        pthread_cond_signal(&rt->cv);
        pthread_mutex_unlock(&rt->mu);
        pthread_join(rt->watchdog, NULL);
        pthread_mutex_destroy(&rt->mu);
        pthread_cond_destroy(&rt->cv);
    }
    wasm_engine_delete(rt->engine);
    free(rt);
}

const char *wg_last_error(const wg_runtime *rt)
{
    return rt ? rt->err : "no runtime";
}
