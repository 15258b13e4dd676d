/*
 * test_threads.c: the C host's threaded sessions (src/host/threads.c) under stress, on
 * modules compiled here with --threads (docs/abi.md "Threads"). Checks:
 *   - a threaded module on 1, 2 and 3 threads gives the single-threaded module's bits;
 *   - sessions created and freed idle (never run, or after a run), many times;
 *   - 4 application threads running 3-thread sessions of their own at the same time,
 *     many runs each, every output bit-identical;
 *   - a time limit that every run exceeds stops the run on all threads with
 *     WG_ERR_LIMIT, and the session runs again afterwards;
 *   - a corrupt threaded module whose thread 0 waits for ever (memory.atomic.wait32 with
 *     no timeout, on a value nobody changes) is stopped by the time limit: wasmtime's
 *     epoch never reaches a thread inside a wait, so this needs the watchdog's wake-up
 *     (src/host/runtime.c wake_overdue); without it the run would hang;
 *   - asking for more threads than the module has gives the module's count;
 *   - an ABI-1 module ignores the thread count.
 * The models: LeNet-5 (models/, packed convs and GEMMs) and, for the time limit,
 * SqueezeNet 1.1 from ../shared when present (else LeNet with a 1 ms limit too).
 * Run under `make sanitize` too (ASan/UBSan/LSan), which sees leaks and races on the
 * host's own memory.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/compile/compile.h"
#include "../test.h"
#include "wasmgraph.h"

static const char *const LENET = "models/lenet5-fashion.onnx";
static char dir[512], one_path[600], thr_path[600];

static bool build(const char *model, const char *out, int threads)
{
    wgc_options opt = {.model_path = model, .output_path = out, .opt_level = 2, .simd = true, .quiet = true,
                       .threads = threads};
    wgc_summary sum;
    char err[1200];
    wg_status st = wgc_compile(&opt, &sum, err, sizeof err);
    CHECK(st == WG_OK, "compile %s: %s", model, err);
    return st == WG_OK;
}

static wg_runtime *runtime(int threads, uint64_t time_limit_ms)
{
    wg_runtime_options o = {.threads = threads, .time_limit_ms = time_limit_ms};
    wg_runtime *rt = NULL;
    CHECK(wg_runtime_new(&o, &rt) == WG_OK, "runtime");
    return rt;
}

/* Fills input 0 with a pattern that depends on seed. */
static void fill(wg_session *s, const wg_model *m, unsigned seed)
{
    float *x = wg_session_input(s, 0);
    size_t n = wg_model_input(m, 0)->bytes / sizeof(float);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((i * 2654435761u + seed) % 1000) / 500.0f - 1.0f;
}

/* Output 0 of one run on seed's input, on a session of path with `threads` threads. */
static bool reference(const char *path, int threads, unsigned seed, float *out, size_t cap, size_t *n)
{
    wg_runtime *rt = runtime(threads, 0);
    wg_model *m = NULL;
    wg_session *s = NULL;
    bool ok = rt && !wg_model_load(rt, path, &m) && !wg_session_new(m, &s);
    CHECK(ok, "%s: %s", path, rt ? wg_last_error(rt) : "no runtime");
    if (ok) {
        fill(s, m, seed);
        ok = wg_session_run(s) == WG_OK;
        CHECK(ok, "run: %s", wg_last_error(rt));
        *n = wg_model_output(m, 0)->bytes / sizeof(float);
        ok = ok && *n <= cap;
        if (ok)
            memcpy(out, wg_session_output(s, 0), *n * sizeof(float));
    }
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
    return ok;
}

TEST(same_bits_on_1_2_3_threads)
{
    static float want[4096], got[4096];
    size_t nw = 0, ng = 0;
    if (!reference(one_path, 0, 7, want, 4096, &nw))
        return;
    for (int t = 1; t <= 3; t++) {
        if (!reference(thr_path, t, 7, got, 4096, &ng))
            return;
        CHECK(ng == nw && !memcmp(want, got, nw * sizeof(float)), "%d threads: outputs differ", t);
    }
}

TEST(sessions_freed_idle)
{
    wg_runtime *rt = runtime(3, 0);
    wg_model *m = NULL;
    if (!rt || wg_model_load(rt, thr_path, &m)) {
        CHECK(0, "load: %s", rt ? wg_last_error(rt) : "");
        wg_runtime_free(rt);
        return;
    }
    for (int k = 0; k < 40; k++) {
        wg_session *s = NULL;
        if (wg_session_new(m, &s)) {
            CHECK(0, "session %d: %s", k, wg_last_error(rt));
            break;
        }
        CHECK(wg_session_threads(s) == 3, "session %d runs on %d threads", k, wg_session_threads(s));
        if (k % 2) {
            fill(s, m, (unsigned)k);
            CHECK(wg_session_run(s) == WG_OK, "run: %s", wg_last_error(rt));
        }
        wg_session_free(s); /* idle: never run, or after its run */
    }
    wg_model_free(m);
    wg_runtime_free(rt);
}

typedef struct job {
    wg_session *s;
    const wg_model *m;
    const float *want;
    size_t n;
    int runs, bad;
} job;

static void *app_thread(void *arg)
{
    job *j = arg;
    for (int r = 0; r < j->runs; r++) {
        fill(j->s, j->m, 7);
        if (wg_session_run(j->s) != WG_OK || memcmp(wg_session_output(j->s, 0), j->want, j->n * sizeof(float)))
            j->bad++;
    }
    return NULL;
}

TEST(concurrent_runs_on_separate_sessions)
{
    enum { APPS = 4 };
    static float want[4096];
    size_t n = 0;
    if (!reference(one_path, 0, 7, want, 4096, &n))
        return;
    wg_runtime *rt = runtime(3, 0);
    wg_model *m = NULL;
    wg_session *s[APPS] = {0};
    job jobs[APPS];
    pthread_t tid[APPS];
    bool ok = rt && !wg_model_load(rt, thr_path, &m);
    for (int k = 0; ok && k < APPS; k++)
        ok = !wg_session_new(m, &s[k]);
    CHECK(ok, "sessions: %s", rt ? wg_last_error(rt) : "");
    int started = 0;
    for (int k = 0; ok && k < APPS; k++) {
        jobs[k] = (job){s[k], m, want, n, 25, 0};
        if (pthread_create(&tid[k], NULL, app_thread, &jobs[k]))
            break;
        started++;
    }
    CHECK(!ok || started == APPS, "started %d application threads", started);
    for (int k = 0; k < started; k++) {
        pthread_join(tid[k], NULL);
        CHECK(jobs[k].bad == 0, "session %d: %d of %d runs failed or differed", k, jobs[k].bad, jobs[k].runs);
    }
    for (int k = 0; k < APPS; k++)
        wg_session_free(s[k]);
    wg_model_free(m);
    wg_runtime_free(rt);
}

TEST(time_limit_stops_every_thread)
{
    char sq[700], sq_thr[700];
    struct stat sb;
    const char *model = "../shared/data/squeezenet1.1-caffe2/squeezenet1.1_bgr_fp32_from_fp16.onnx";
    snprintf(sq_thr, sizeof sq_thr, "%s/squeezenet-threads.wasm", dir);
    if (stat(model, &sb) == 0) {
        if (stat(sq_thr, &sb) != 0 && !build(model, sq_thr, 3))
            return;
        snprintf(sq, sizeof sq, "%s", sq_thr);
    } else {
        snprintf(sq, sizeof sq, "%s", thr_path);
    }
    wg_runtime *rt = runtime(3, 1);
    wg_model *m = NULL;
    wg_session *s = NULL;
    if (!rt || wg_model_load(rt, sq, &m) || wg_session_new(m, &s)) {
        CHECK(0, "%s: %s", sq, rt ? wg_last_error(rt) : "");
    } else {
        int limited = 0;
        for (int k = 0; k < 3; k++) { /* the session stays usable: each run is stopped again */
            fill(s, m, 1);
            wg_status st = wg_session_run(s);
            CHECK(st == WG_ERR_LIMIT || st == WG_OK, "run %d: status %d: %s", k, st, wg_last_error(rt));
            if (st == WG_ERR_LIMIT) {
                limited++;
                CHECK(strstr(wg_last_error(rt), "time limit of 1 ms"), "message: %s", wg_last_error(rt));
            }
        }
        /* SqueezeNet takes tens of ms: a 1 ms limit stops it (LeNet may finish in time). */
        CHECK(limited > 0 || strcmp(sq, thr_path) == 0, "no run of %s was stopped by a 1 ms limit", sq);
    }
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
}

/* A threaded module by the ABI's rules (docs/abi.md "Threads") whose wg_run_thread waits
 * for ever on thread 0 and returns at once on the others, as a corrupt module might. */
static const char WAIT_FOREVER_WAT[] =
    "(module\n"
    "  (import \"env\" \"memory\" (memory $m 1 1 shared))\n"
    "  (export \"memory\" (memory $m))\n"
    "  (func (export \"wg_abi_version\") (result i32) i32.const 2)\n"
    "  (func (export \"wg_input_ptr\") (param i32) (result i32) i32.const 1024)\n"
    "  (func (export \"wg_output_ptr\") (param i32) (result i32) i32.const 2048)\n"
    "  (func (export \"wg_run\") (result i32) i32.const 0)\n"
    "  (func (export \"wg_run_steps\") (result i32) i32.const 2)\n"
    "  (func (export \"wg_run_step\") (param i32) (result i32) i32.const 0)\n"
    "  (func (export \"wg_threads_max\") (result i32) i32.const 2)\n"
    "  (func (export \"wg_thread_init\") (param i32) (result i32) i32.const 0)\n"
    "  (func (export \"wg_run_begin\") (param i32) (result i32) i32.const 0)\n"
    "  (func (export \"wg_threads_abort\") (result i32) i32.const 0)\n"
    "  (func (export \"wg_run_thread\") (param i32 i32 i32) (result i32)\n"
    "    local.get 0\n"
    "    i32.eqz\n"
    "    if\n"
    "      i32.const 64\n"
    "      i32.const 0\n"
    "      i64.const -1\n"
    "      memory.atomic.wait32\n"
    "      drop\n"
    "    end\n"
    "    i32.const 0))\n";

static const char WAIT_FOREVER_META[] =
    "{\"abi\":2,\"threads\":2,\"name\":\"wait-forever\",\"producer\":\"tests/unit/test_threads.c\","
    "\"opset\":13,\"inputs\":[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[1,4],\"bytes\":16}],"
    "\"outputs\":[{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[1,4],\"bytes\":16}],"
    "\"options\":{\"simd\":false,\"relaxed_simd\":false,\"opt_level\":2},\"arena_bytes\":32,"
    "\"weight_bytes\":64,\"memory_bytes\":65536,\"weights_base\":16384,\"step_weights\":[0,64],"
    "\"compiler\":\"tests\"}";

/* WAIT_FOREVER_WAT assembled by wabt's wat2wasm (scripts/setup.sh installs it) with the
 * metadata appended as the `wasmgraph` section; false (and a CHECK) when that fails. */
static bool write_wait_forever(const char *path)
{
    char wat_path[700], cmd[1600];
    snprintf(wat_path, sizeof wat_path, "%s.wat", path);
    FILE *f = fopen(wat_path, "w");
    CHECK(f != NULL, "cannot write %s", wat_path);
    if (!f)
        return false;
    fputs(WAIT_FOREVER_WAT, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "wat2wasm --enable-threads '%s' -o '%s'", wat_path, path);
    int rc = system(cmd);
    CHECK(rc == 0, "%s failed", cmd);
    if (rc)
        return false;
    f = fopen(path, "ab");
    CHECK(f != NULL, "cannot append to %s", path);
    if (!f)
        return false;
    const size_t n = strlen(WAIT_FOREVER_META), body = 1 + 9 + n; /* name length, name, JSON */
    fputc(0, f); /* custom section, its size as LEB128 */
    for (size_t v = body; v; v >>= 7)
        fputc((int)((v & 0x7f) | (v >> 7 ? 0x80 : 0)), f);
    fputc(9, f);
    fputs("wasmgraph", f);
    fputs(WAIT_FOREVER_META, f);
    fclose(f);
    return true;
}

TEST(time_limit_stops_a_thread_waiting_for_ever)
{
    char path[700];
    snprintf(path, sizeof path, "%s/wait-forever.wasm", dir);
    if (!write_wait_forever(path))
        return;
    wg_runtime *rt = runtime(2, 20);
    wg_model *m = NULL;
    wg_session *s = NULL;
    if (!rt || wg_model_load(rt, path, &m) || wg_session_new(m, &s)) {
        CHECK(0, "%s: %s", path, rt ? wg_last_error(rt) : "");
    } else {
        for (int k = 0; k < 2; k++) { /* and again: the session survives it */
            wg_status st = wg_session_run(s);
            CHECK(st == WG_ERR_LIMIT, "run %d: status %d (%s), want the time limit", k, st, wg_last_error(rt));
            CHECK(strstr(wg_last_error(rt), "time limit of 20 ms"), "message: %s", wg_last_error(rt));
        }
    }
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
}

TEST(thread_count_is_the_modules_at_most)
{
    wg_runtime *rt = runtime(8, 0);
    wg_model *m = NULL, *m1 = NULL;
    wg_session *s = NULL, *s1 = NULL;
    if (rt && !wg_model_load(rt, thr_path, &m) && !wg_session_new(m, &s) && !wg_model_load(rt, one_path, &m1) &&
        !wg_session_new(m1, &s1)) {
        CHECK(wg_session_threads(s) == 3, "a module for 3 threads runs on %d", wg_session_threads(s));
        CHECK(wg_session_threads(s1) == 1, "an ABI-1 module runs on %d", wg_session_threads(s1));
    } else {
        CHECK(0, "%s", rt ? wg_last_error(rt) : "");
    }
    wg_session_free(s);
    wg_session_free(s1);
    wg_model_free(m);
    wg_model_free(m1);
    wg_runtime_free(rt);
}

int main(void)
{
    const char *b = getenv("BUILD");
    snprintf(dir, sizeof dir, "%s/threads-tests", b && *b ? b : "build");
    mkdir(dir, 0755);
    snprintf(one_path, sizeof one_path, "%s/lenet.wasm", dir);
    snprintf(thr_path, sizeof thr_path, "%s/lenet-threads.wasm", dir);
    if (!build(LENET, one_path, 0) || !build(LENET, thr_path, 3))
        return test_summary("threads");
    RUN(same_bits_on_1_2_3_threads);
    RUN(sessions_freed_idle);
    RUN(concurrent_runs_on_separate_sessions);
    RUN(time_limit_stops_every_thread);
    RUN(time_limit_stops_a_thread_waiting_for_ever);
    RUN(thread_count_is_the_modules_at_most);
    return test_summary("threads");
}
