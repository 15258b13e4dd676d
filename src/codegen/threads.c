/*
 * threads.c: the run-time part of a threaded module (`compile --threads`): the steps as
 * one function of (step, thread, thread count), the barrier between steps and the
 * exports hosts drive threads with. The ABI is docs/abi.md "Threads"; how work is split
 * inside a step is docs/performance.md "Threads".
 *
 * Every thread runs every step. A step whose node asked for it (wgc_part, wgc_sync) runs
 * on all threads, each computing its share of the output; any other step runs on
 * thread 0 only. Between two steps of which either is split, all threads meet at a
 * barrier (memory.atomic.wait32 / notify on a counter in linear memory: a waiting thread
 * reads the counter for a bounded number of times, then sleeps; it never spins for
 * longer, and a time limit reaches a sleeping thread through the host, see
 * docs/abi.md "Threads"); consecutive thread-0 steps need none, and steps without code
 * (a Concat the memory plan made free) do not count. (The wait has no timeout:
 * with a 1 ms timeout and a loop, threaded runs in Node hung now and then, cause not
 * found; tests/js/test_threads.mjs shows it within a few runs.)
 *
 * Failures: a step that returns a status records the first one (wg_first_status) and
 * goes to the barrier; every thread leaving a barrier returns that status if one is set.
 * A barrier is left only when all threads reached it, so every thread learns of a
 * failure at the same barrier and none is left waiting. A thread that traps never
 * reaches the barrier: its host then calls wg_threads_abort(), which wakes the others
 * with WGK_ERR_THREAD_ABORT.
 *
 * Memory: each thread's stack is its own (wg_thread_init sets this instance's
 * __stack_pointer: wasm globals are per instance, the memory is shared), below them the
 * kernels' static data and the arena; past them each thread's GEMM broadcast buffer and
 * scratch region, where the split nodes' scratch lies (plan.h scratch_per_thread,
 * emitter.c wgc_scratch).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"

/* The runtime: fixed text, then the per-module constants. */
static const char runtime[] =
    "/* Threads (src/codegen/threads.c; docs/abi.md \"Threads\") */\n"
    "#define WG_PART ((wgk_part){wg_t, wg_n})\n"
    "/* wgk_f32_gemm_pb's broadcast buffers, one per thread, past the stacks (not static\n"
    " * data: wasm-ld writes that into the file when the memory is imported); thread 0's is\n"
    " * also the one of calls that bring none (wgk_gemm_splat_buffer). */\n"
    "#define WG_SPLAT ((float *)(uintptr_t)(WG_SPLAT_BASE + (unsigned)wg_t * WGK_GEMM_SPLAT_FLOATS * 4u))\n"
    "float *wgk_gemm_splat_buffer(void) { return (float *)(uintptr_t)WG_SPLAT_BASE; }\n"
    "/* A stop marker: the status is in wg_first_status (or the run was aborted). */\n"
    "#define WG_STOP (-2147483647 - 1)\n"
    "#define WG_SYNC() do { if (wg_barrier(wg_t, wg_n)) return WG_STOP; } while (0)\n"
    "/* Phase reads a thread makes at a barrier before it sleeps, adapted per thread between\n"
    " * these bounds: doubled after a wait the reads outlasted, halved after one they did not\n"
    " * (the thread then slept). Waking a sleeping thread costs a futex round trip, tens of\n"
    " * microseconds, more in V8 than in wasmtime, so on as many threads as cores a long spin\n"
    " * saves most wake-ups. Oversubscribed (more threads than cores) the spinner holds a\n"
    " * core another thread needs and its waits outlast the reads, so the budget falls to\n"
    " * the minimum. The measurements behind the bounds: docs/performance.md, \"Threads\".\n"
    " * Timing only: no result depends on it. */\n"
    "#define WG_SPINS_MIN 65536\n"
    "#define WG_SPINS_MAX 1048576\n"
    "\n"
    "static int wg_nthreads = 1, wg_arrived, wg_phase, wg_abort, wg_first_status;\n"
    "static int wg_spins[WG_MAX_THREADS];\n"
    "\n"
    "static int wg_result(void)\n"
    "{\n"
    "    if (__atomic_load_n(&wg_abort, __ATOMIC_SEQ_CST))\n"
    "        return WGK_ERR_THREAD_ABORT;\n"
    "    return __atomic_load_n(&wg_first_status, __ATOMIC_SEQ_CST);\n"
    "}\n"
    "\n"
    "/* Waits, as thread t, until the phase moves on from `phase`: reads it up to wg_spins[t]\n"
    " * times, then sleeps; adapts wg_spins[t] (WG_SPINS_MIN..MAX) to how that went. */\n"
    "static void wg_wait_phase(int t, int phase)\n"
    "{\n"
    "    int spins = wg_spins[t] ? wg_spins[t] : WG_SPINS_MAX, i = 0;\n"
    "    while (i < spins && __atomic_load_n(&wg_phase, __ATOMIC_SEQ_CST) == phase)\n"
    "        i++;\n"
    "    if (i < spins) {\n"
    "        wg_spins[t] = spins < WG_SPINS_MAX / 2 ? 2 * spins : WG_SPINS_MAX;\n"
    "        return;\n"
    "    }\n"
    "    wg_spins[t] = spins > 2 * WG_SPINS_MIN ? spins / 2 : WG_SPINS_MIN;\n"
    "    while (__atomic_load_n(&wg_phase, __ATOMIC_SEQ_CST) == phase)\n"
    "        __builtin_wasm_memory_atomic_wait32(&wg_phase, phase, -1);\n"
    "}\n"
    "\n"
    "/* All n threads meet (this one is thread t); returns wg_result() once they have. The last\n"
    " * to arrive resets the count before it moves the phase on, so no thread counts into the\n"
    " * next barrier early. */\n"
    "static int wg_barrier(int t, int n)\n"
    "{\n"
    "    if (n > 1) {\n"
    "        const int phase = __atomic_load_n(&wg_phase, __ATOMIC_SEQ_CST);\n"
    "        if (__atomic_load_n(&wg_abort, __ATOMIC_SEQ_CST))\n"
    "            return WGK_ERR_THREAD_ABORT;\n"
    "        if (__atomic_add_fetch(&wg_arrived, 1, __ATOMIC_SEQ_CST) == n) {\n"
    "            __atomic_store_n(&wg_arrived, 0, __ATOMIC_SEQ_CST);\n"
    "            __atomic_add_fetch(&wg_phase, 1, __ATOMIC_SEQ_CST);\n"
    "            __builtin_wasm_memory_atomic_notify(&wg_phase, 0xffffffffu);\n"
    "        } else {\n"
    "            wg_wait_phase(t, phase);\n"
    "        }\n"
    "    }\n"
    "    return wg_result();\n"
    "}\n"
    "\n"
    "static void wg_fail(int status)\n"
    "{\n"
    "    int none = 0;\n"
    "    __atomic_compare_exchange_n(&wg_first_status, &none, status, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\n"
    "}\n"
    "\n"
    "/* Before a run, on one thread: n threads will run it. A module with symbolic dims\n"
    " * checks the host's sizes here, once for all threads (WG_DIMS_BAD, sym_exports.c); a\n"
    " * run whose sizes are out of range then runs no step on any thread. */\n"
    "static int wg_dims_bad;\n"
    "static int wg_reset(int n)\n"
    "{\n"
    "    wg_nthreads = n;\n"
    "    wg_dims_bad = WG_DIMS_BAD();\n"
    "    __atomic_store_n(&wg_arrived, 0, __ATOMIC_SEQ_CST);\n"
    "    __atomic_store_n(&wg_abort, 0, __ATOMIC_SEQ_CST);\n"
    "    __atomic_store_n(&wg_first_status, 0, __ATOMIC_SEQ_CST);\n"
    "    return wg_dims_bad ? WGK_ERR_DIMS : 0;\n"
    "}\n"
    "\n";

/* Steps [k0, k1) as thread t of n; wg_sync_after[k]: whether step k is followed by a
 * barrier (always after the range's last). */
static const char run_range[] =
    "static int wg_run_range(int t, int n, int k0, int k1)\n"
    "{\n"
    "    for (int k = k0; k < k1; k++) {\n"
    "        int s = wg_step(k, t, n);\n"
    "        if (s == WG_STOP)\n"
    "            return wg_result();\n"
    "        if (s)\n"
    "            wg_fail(s);\n"
    "        if (s || k == k1 - 1 || wg_sync_after[k]) {\n"
    "            int b = wg_barrier(t, n);\n"
    "            if (b)\n"
    "                return b;\n"
    "        }\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "\n"
    "__attribute__((export_name(\"wg_threads_max\"))) int wg_threads_max(void) { return WG_MAX_THREADS; }\n"
    "\n"
    "/* Once per instance, before anything else runs on it: thread t's own stack. */\n"
    "__attribute__((export_name(\"wg_thread_init\"))) int wg_thread_init(int t)\n"
    "{\n"
    "    if (t < 0 || t >= WG_MAX_THREADS)\n"
    "        return WGK_ERR_THREADS;\n"
    "    if (t > 0) {\n"
    "        unsigned sp = WG_STACKS_BASE + (unsigned)t * WG_THREAD_STACK; /* its top */\n"
    "        __asm__ volatile(\".globaltype __stack_pointer, i32\\n\"\n"
    "                         \"local.get %0\\n\"\n"
    "                         \"global.set __stack_pointer\" ::\"r\"(sp));\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "\n"
    "/* Before each threaded run, while no thread is in the module: n threads will run. */\n"
    "__attribute__((export_name(\"wg_run_begin\"))) int wg_run_begin(int n)\n"
    "{\n"
    "    if (n < 1 || n > WG_MAX_THREADS)\n"
    "        return WGK_ERR_THREADS;\n"
    "    return wg_reset(n);\n"
    "}\n"
    "\n"
    "/* Thread t's part of steps [k0, k1), all wg_run_begin's n threads at once. */\n"
    "__attribute__((export_name(\"wg_run_thread\"))) int wg_run_thread(int t, int k0, int k1)\n"
    "{\n"
    "    if (t < 0 || t >= wg_nthreads || k0 < 0 || k0 > k1 || k1 > WG_STEPS)\n"
    "        return WGK_ERR_THREADS;\n"
    "    if (wg_dims_bad)\n"
    "        return WGK_ERR_DIMS;\n"
    "    return wg_run_range(t, wg_nthreads, k0, k1);\n"
    "}\n"
    "\n"
    "/* A host whose thread trapped or was stopped: the others return WGK_ERR_THREAD_ABORT. */\n"
    "__attribute__((export_name(\"wg_threads_abort\"))) int wg_threads_abort(void)\n"
    "{\n"
    "    __atomic_store_n(&wg_abort, 1, __ATOMIC_SEQ_CST);\n"
    "    __atomic_add_fetch(&wg_phase, 1, __ATOMIC_SEQ_CST);\n"
    "    __builtin_wasm_memory_atomic_notify(&wg_phase, 0xffffffffu);\n"
    "    return 0;\n"
    "}\n"
    "\n"
    "/* One thread, as in a module built without --threads. */\n"
    "__attribute__((export_name(\"wg_run_step\"))) int wg_run_step(int k)\n"
    "{\n"
    "    if (k < 0 || k >= WG_STEPS)\n"
    "        return WGK_ERR_NO_STEP;\n"
    "    if (wg_reset(1))\n"
    "        return WGK_ERR_DIMS;\n"
    "    int s = wg_step(k, 0, 1);\n"
    "    return s == WG_STOP ? wg_result() : s;\n"
    "}\n"
    "\n"
    "__attribute__((export_name(\"wg_run\"))) int wg_run(void)\n"
    "{\n"
    "    if (wg_reset(1))\n"
    "        return WGK_ERR_DIMS;\n"
    "    return wg_run_range(0, 1, 0, WG_STEPS);\n"
    "}\n"
    "\n";

char *wgc_threads_source(const char *body, const size_t *span, const wgc_step_kind *kind, int n_steps,
                         int n_node_steps, bool profile, bool dims, int threads, uint32_t stacks_base,
                         uint32_t splat_base, uint32_t thread_scratch_base, uint32_t thread_scratch)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    fprintf(f, "#define WG_MAX_THREADS %d\n#define WG_STEPS %d\n", threads, n_steps);
    /* Thread t > 0: [base + (t - 1) * size, base + t * size), growing down from its top. */
    fprintf(f, "#define WG_STACKS_BASE %uu\n", stacks_base);
    fprintf(f, "#define WG_THREAD_STACK %uu\n", WGC_THREAD_STACK_BYTES);
    fprintf(f, "#define WG_SPLAT_BASE %uu\n", splat_base);
    /* The scratch of a split node: its thread's own region (plan.h scratch_per_thread). */
    fprintf(f, "#define WG_THREAD_SCRATCH(t) ((void *)(uintptr_t)(%uu + (unsigned)(t) * %uu))\n",
            thread_scratch_base, thread_scratch);
    fprintf(f, "#define WG_DIMS_BAD() %s\n", dims ? "wg_check_dims()" : "0");
    fputs(runtime, f);
    /* A barrier follows step k when it has code and it or the next step with code runs on
     * every thread; empty steps between them change nothing (SqueezeNet's Concats cost
     * two barriers each before). */
    fprintf(f, "static const unsigned char wg_sync_after[%d] = {", n_steps ? n_steps : 1);
    for (int k = 0; k < n_steps; k++) {
        int next = k + 1;
        while (next < n_steps && kind[next] == WGC_STEP_EMPTY)
            next++;
        const bool sync = kind[k] != WGC_STEP_EMPTY &&
                          (kind[k] == WGC_STEP_SPLIT || (next < n_steps && kind[next] == WGC_STEP_SPLIT));
        fprintf(f, "%s%d", k ? ", " : "", sync ? 1 : 0);
    }
    fprintf(f, "%s};\n\n", n_steps ? "" : "0");
    fputs("static int wg_step(int k, int wg_t, int wg_n)\n{\n    (void)wg_n;\n    switch (k) {\n", f);
    for (int k = 0; k < n_steps; k++) {
        const int n = (int)(span[2 * k + 1] - span[2 * k]);
        if (kind[k] == WGC_STEP_SPLIT)
            fprintf(f, "    case %d: {\n%.*s    } break;\n", k, n, body + span[2 * k]);
        else
            fprintf(f, "    case %d: if (wg_t == 0) {\n%.*s    } break;\n", k, n, body + span[2 * k]);
    }
    fputs("    default: return WGK_ERR_NO_STEP;\n    }\n    return 0;\n}\n\n", f);
    fputs(run_range, f);
    fprintf(f, "__attribute__((export_name(\"wg_run_steps\"))) int wg_run_steps(void) { return %d; }\n\n", n_steps);
    if (profile) {
        fprintf(f, "__attribute__((export_name(\"wg_profile_steps\"))) int wg_profile_steps(void) { return %d; }\n\n",
                n_node_steps);
        fprintf(f, "__attribute__((export_name(\"wg_profile_step\"))) int wg_profile_step(int k)\n{\n"
                   "    return k >= 0 && k < %d ? wg_run_step(k) : WGK_ERR_NO_STEP;\n}\n\n",
                n_node_steps);
    }
    if (fclose(f)) {
        free(out);
        return NULL;
    }
    return out;
}
