/*
 * test_host.c: the host library (src/host) on the fixture modules of tests/host.
 *
 * The fixtures are built by tests/host/build_fixtures.sh into $WG_HOST_FIXTURES
 * (default build/host-fixtures, built on demand from the repository root). Checks:
 * a good model runs and gives the right values; every bad module is refused with the
 * right status and a message naming the problem; traps, nonzero status, memory and
 * time limits; and a runtime stays usable after a timeout.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "host/inspect.h"
#include "../test.h"
#include "wasmgraph.h"

static char fixdir[512];

static const char *fx(const char *name)
{
    static char path[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s.wasm", fixdir, name);
    return path[k];
}

static bool setup_fixtures(void)
{
    const char *env = getenv("WG_HOST_FIXTURES");
    snprintf(fixdir, sizeof fixdir, "%s", env && *env ? env : "build/host-fixtures");
    struct stat sb;
    if (stat(fx("add_one"), &sb) == 0)
        return true;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "sh tests/host/build_fixtures.sh '%s'", fixdir);
    return system(cmd) == 0 && stat(fx("add_one"), &sb) == 0;
}

/* A runtime with the default options; failing to make one is a failed check. */
static wg_runtime *new_runtime(void)
{
    wg_runtime *rt = NULL;
    CHECK(wg_runtime_new(NULL, &rt) == WG_OK, "runtime");
    return rt;
}

/* A fixture open on a runtime: the runtime, the fixture's model and its session (NULL
 * until open_fx opens them). */
typedef struct fixture {
    wg_runtime *rt;
    wg_model *m;
    wg_session *s;
} fixture;

/* Loads fixture name on f->rt (a new default runtime when NULL) and makes a session on it;
 * a failure is a failed check. */
static bool open_fx(fixture *f, const char *name)
{
    if (!f->rt)
        f->rt = new_runtime();
    if (wg_model_load(f->rt, fx(name), &f->m) || wg_session_new(f->m, &f->s)) {
        CHECK(0, "%s: cannot load: %s", name, wg_last_error(f->rt));
        return false;
    }
    return true;
}

/* Frees what open_fx opened but the runtime (f ready for another open_fx on it). */
static void close_fx(fixture *f)
{
    wg_session_free(f->s);
    wg_model_free(f->m);
    f->s = NULL;
    f->m = NULL;
}

/* Loads fixture name and expects status want with msg in the message. */
static void expect_load(wg_runtime *rt, const char *name, wg_status want, const char *msg)
{
    wg_model *m = NULL;
    wg_status st = wg_model_load(rt, fx(name), &m);
    CHECK(st == want, "%s: status %s, want %s (%s)", name, wg_status_str(st), wg_status_str(want),
          wg_last_error(rt));
    CHECK(strstr(wg_last_error(rt), msg), "%s: message '%s' lacks '%s'", name, wg_last_error(rt), msg);
    CHECK(st == WG_OK || m == NULL, "%s: model returned on failure", name);
    wg_model_free(m);
}

/* Loads fixture name and expects session creation to fail with want and msg. */
static void expect_session(wg_runtime *rt, const char *name, wg_status want, const char *msg)
{
    fixture f = {0};
    wg_status st = wg_model_load(rt, fx(name), &f.m);
    CHECK(st == WG_OK, "%s: load failed: %s", name, wg_last_error(rt));
    if (st)
        return;
    st = wg_session_new(f.m, &f.s);
    CHECK(st == want, "%s: session status %s, want %s (%s)", name, wg_status_str(st),
          wg_status_str(want), wg_last_error(rt));
    CHECK(strstr(wg_last_error(rt), msg), "%s: message '%s' lacks '%s'", name, wg_last_error(rt), msg);
    close_fx(&f);
}

/* Loads and runs fixture name; expects the run to give want with msg. */
static void expect_run(wg_runtime *rt, const char *name, wg_status want, const char *msg)
{
    fixture f = {.rt = rt};
    if (!open_fx(&f, name))
        goto done;
    wg_status st = wg_session_run(f.s);
    CHECK(st == want, "%s: run status %s, want %s (%s)", name, wg_status_str(st), wg_status_str(want),
          wg_last_error(rt));
    CHECK(strstr(wg_last_error(rt), msg), "%s: message '%s' lacks '%s'", name, wg_last_error(rt), msg);
done:
    close_fx(&f);
}

/* Runs add_one on rt and checks y = x + 1; returns false when anything failed. */
static bool run_add_one(wg_runtime *rt)
{
    fixture f = {.rt = rt};
    bool ok = false;
    if (!open_fx(&f, "add_one"))
        goto done;
    float x[4] = {1.5f, -2, 0, 1e6f};
    memcpy(wg_session_input(f.s, 0), x, sizeof x);
    for (int rep = 0; rep < 2; rep++) {
        wg_status st = wg_session_run(f.s);
        CHECK(st == WG_OK, "run: %s", wg_last_error(rt));
        if (st)
            goto done;
        const float *y = wg_session_output(f.s, 0);
        for (int i = 0; i < 4; i++)
            CHECK(y[i] == x[i] + 1, "y[%d] = %g, want %g", i, y[i], x[i] + 1);
    }
    ok = true;
done:
    close_fx(&f);
    return ok;
}

TEST(status_names)
{
    CHECK(!strcmp(wg_status_str(WG_OK), "ok"), "%s", wg_status_str(WG_OK));
    CHECK(!strcmp(wg_status_str(WG_ERR_TRAP), "trap"), "%s", wg_status_str(WG_ERR_TRAP));
    CHECK(!strcmp(wg_status_str((wg_status)99), "unknown status"), "out of range");
}

TEST(add_one_runs_and_reports_metadata)
{
    wg_runtime *rt = new_runtime();
    wg_model *m = NULL;
    wg_status st = wg_model_load(rt, fx("add_one"), &m);
    CHECK(st == WG_OK, "load: %s", wg_last_error(rt));
    if (!st) {
        CHECK(wg_model_num_inputs(m) == 1 && wg_model_num_outputs(m) == 1, "counts");
        const wg_tensor_info *x = wg_model_input(m, 0), *y = wg_model_output(m, 0);
        CHECK(!strcmp(x->name, "x") && x->dtype == WG_DT_FLOAT && x->rank == 1 && x->dims[0] == 4 &&
                  x->bytes == 16, "input info");
        CHECK(!strcmp(y->name, "y") && y->bytes == 16, "output info");
        CHECK(wg_model_input(m, 1) == NULL && wg_model_output(m, 1) == NULL, "out of range info");
        CHECK(strstr(wg_model_metadata_json(m), "\"name\":\"add_one\""), "json %s",
              wg_model_metadata_json(m));
        wg_session *s = NULL;
        CHECK(wg_session_new(m, &s) == WG_OK, "session: %s", wg_last_error(rt));
        CHECK(s && wg_session_input(s, 1) == NULL && wg_session_output(s, 1) == NULL,
              "out of range pointers");
        wg_session_free(s);
    }
    wg_model_free(m);
    run_add_one(rt);
    CHECK(!strcmp(wg_last_error(rt), ""), "error after success: %s", wg_last_error(rt));
    wg_runtime_free(rt);
}

TEST(profile_steps)
{
    fixture f = {0};
    /* A module without steps: 0 steps, and stepping is refused. */
    if (!open_fx(&f, "add_one"))
        goto done;
    CHECK(wg_model_num_steps(f.m) == 0 && wg_model_step_label(f.m, 0) == NULL, "add_one has steps");
    CHECK(wg_session_run_step(f.s, 0) == WG_ERR_INVALID && strstr(wg_last_error(f.rt), "not compiled with --profile"),
          "step on add_one: %s", wg_last_error(f.rt));
    close_fx(&f);
    if (!open_fx(&f, "profile"))
        goto done;
    CHECK(wg_model_num_steps(f.m) == 2, "steps %zu", wg_model_num_steps(f.m));
    CHECK(!strcmp(wg_model_step_label(f.m, 0), "Add half1") && !strcmp(wg_model_step_label(f.m, 1), "Add half2") &&
              wg_model_step_label(f.m, 2) == NULL,
          "labels");
    float x[4] = {1, 2, 3, 4};
    memcpy(wg_session_input(f.s, 0), x, sizeof x);
    const float *y = wg_session_output(f.s, 0);
    CHECK(wg_session_run_step(f.s, 0) == WG_OK && y[3] == 4.5f, "step 0: %s", wg_last_error(f.rt));
    CHECK(wg_session_run_step(f.s, 1) == WG_OK && y[3] == 5.0f, "step 1: %s", wg_last_error(f.rt));
    CHECK(wg_session_run_step(f.s, 2) == WG_ERR_INVALID && strstr(wg_last_error(f.rt), "step 2 out of range"),
          "step 2: %s", wg_last_error(f.rt));
    CHECK(wg_session_run(f.s) == WG_OK && y[0] == 2.0f, "run: %s", wg_last_error(f.rt));
done:
    close_fx(&f);
    /* "profile" in the metadata needs the two exports, and their count must match. */
    expect_load(f.rt, "profile_no_exports", WG_ERR_ABI, "no export `wg_profile_steps`");
    expect_session(f.rt, "profile_count", WG_ERR_ABI, "wg_profile_steps() returns 2 but the metadata lists 3");
    wg_runtime_free(f.rt);
}

TEST(two_inputs)
{
    fixture f = {0};
    if (!open_fx(&f, "add2"))
        goto done;
    CHECK(!strcmp(wg_model_input(f.m, 1)->name, "b") && wg_model_input(f.m, 1)->rank == 2, "input b");
    float *a = wg_session_input(f.s, 0), *b = wg_session_input(f.s, 1);
    for (int i = 0; i < 6; i++) {
        a[i] = (float)i;
        b[i] = 10.0f * (float)i;
    }
    CHECK(wg_session_run(f.s) == WG_OK, "run: %s", wg_last_error(f.rt));
    const float *sum = wg_session_output(f.s, 0);
    for (int i = 0; i < 6; i++)
        CHECK(sum[i] == 11.0f * (float)i, "sum[%d] = %g", i, sum[i]);
done:
    close_fx(&f);
    wg_runtime_free(f.rt);
}

TEST(bad_files_are_refused_at_load)
{
    wg_runtime *rt = new_runtime();
    expect_load(rt, "does_not_exist", WG_ERR_IO, "does_not_exist.wasm");
    expect_load(rt, "empty", WG_ERR_FORMAT, "empty.wasm: the file is empty");
    expect_load(rt, "not_wasm", WG_ERR_FORMAT, "not a WebAssembly module");
    expect_load(rt, "no_section", WG_ERR_ABI, "not a wasmgraph module: no `wasmgraph` custom section");
    expect_load(rt, "abi3_meta", WG_ERR_ABI, "module ABI version 3, this host supports 1..2");
    expect_load(rt, "import", WG_ERR_ABI, "imports env.host_log");
    expect_load(rt, "no_run", WG_ERR_ABI, "no export `wg_run`");
    expect_load(rt, "bad_type", WG_ERR_ABI, "export `wg_run` has type (i32) -> (i32)");
    expect_load(rt, "bad_json", WG_ERR_FORMAT, "invalid JSON");
    expect_load(rt, "bad_bytes", WG_ERR_FORMAT, "says bytes 12");
    wg_runtime_free(rt);
}

TEST(truncated_and_corrupt_bytes)
{
    wg_runtime *rt = new_runtime();
    uint8_t *bytes;
    size_t len;
    char err[300];
    if (wgh_read_file(fx("add_one"), &bytes, &len, err, sizeof err)) {
        CHECK(0, "%s", err);
        wg_runtime_free(rt);
        return;
    }
    wg_model *m = NULL;
    /* Cut inside the sections: our scan sees a section running past the end. */
    wg_status st = wg_model_load_bytes(rt, bytes, len / 2, "half.wasm", &m);
    CHECK(st == WG_ERR_FORMAT && strstr(wg_last_error(rt), "half.wasm: section"), "%s: %s",
          wg_status_str(st), wg_last_error(rt));
    /* Wrong version field. */
    bytes[4] = 2;
    st = wg_model_load_bytes(rt, bytes, len, "v2.wasm", &m);
    CHECK(st == WG_ERR_FORMAT && strstr(wg_last_error(rt), "version"), "%s", wg_last_error(rt));
    bytes[4] = 1;
    /* Corrupt the code section body: wasmtime refuses it and we pass its message on. */
    for (size_t i = 8; i + 1 < len; i++)
        if (bytes[i] == 10) { /* code section id, then size: smash the first body's opcodes */
            size_t body = i + 4;
            if (body + 4 < len) {
                bytes[body + 2] = 0xff;
                bytes[body + 3] = 0xff;
            }
            break;
        }
    st = wg_model_load_bytes(rt, bytes, len, "corrupt.wasm", &m);
    CHECK(st != WG_OK && m == NULL, "corrupt module accepted");
    free(bytes);
    wg_runtime_free(rt);
}

TEST(session_checks_the_instance)
{
    wg_runtime *rt = new_runtime();
    expect_session(rt, "abi2", WG_ERR_ABI, "wg_abi_version() returns 2 but the metadata says ABI 1");
    expect_session(rt, "huge_input", WG_ERR_ABI, "past the end of memory");
    wg_runtime_free(rt);
}

TEST(traps_and_status)
{
    wg_runtime *rt = new_runtime();
    expect_run(rt, "unreachable", WG_ERR_TRAP, "wg_run trapped: unreachable executed");
    expect_run(rt, "oob", WG_ERR_TRAP, "wg_run trapped: out of bounds memory access");
    expect_run(rt, "recurse", WG_ERR_TRAP, "wg_run trapped: stack overflow");
    expect_run(rt, "status3", WG_ERR_TRAP, "wg_run returned status 3");
    /* The runtime is still fine after traps. */
    CHECK(run_add_one(rt), "add_one after traps");
    wg_runtime_free(rt);
}

TEST(memory_limit)
{
    wg_runtime *rt;
    wg_runtime_options o = {.memory_limit_bytes = 16u << 20};
    CHECK(wg_runtime_new(&o, &rt) == WG_OK, "runtime");
    expect_load(rt, "big_memory", WG_ERR_LIMIT, "67108864 bytes of memory, more than the limit");
    CHECK(run_add_one(rt), "small model under the limit");
    wg_runtime_free(rt);
    CHECK(wg_runtime_new(NULL, &rt) == WG_OK, "runtime");
    expect_session(rt, "big_memory", WG_OK, "");
    wg_runtime_free(rt);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

TEST(time_limit_stops_a_loop_and_the_runtime_survives)
{
    wg_runtime *rt;
    wg_runtime_options o = {.time_limit_ms = 200};
    CHECK(wg_runtime_new(&o, &rt) == WG_OK, "runtime");
    fixture f = {.rt = rt};
    if (!open_fx(&f, "loop"))
        goto done;
    for (int rep = 0; rep < 2; rep++) {
        double t0 = now_ms();
        wg_status st = wg_session_run(f.s);
        double dt = now_ms() - t0;
        CHECK(st == WG_ERR_LIMIT, "status %s: %s", wg_status_str(st), wg_last_error(rt));
        CHECK(strstr(wg_last_error(rt), "run exceeded the time limit of 200 ms"), "%s",
              wg_last_error(rt));
        CHECK(dt >= 195 && dt < 1500, "stopped after %.0f ms", dt);
    }
    /* The same runtime loads and runs another model within the limit. */
    CHECK(run_add_one(rt), "add_one after a timeout");
done:
    close_fx(&f);
    wg_runtime_free(rt);
}

int main(void)
{
    if (!setup_fixtures()) {
        fprintf(stderr, "test_host: cannot build fixtures in %s\n", fixdir);
        return 1;
    }
    RUN(status_names);
    RUN(add_one_runs_and_reports_metadata);
    RUN(two_inputs);
    RUN(profile_steps);
    RUN(bad_files_are_refused_at_load);
    RUN(truncated_and_corrupt_bytes);
    RUN(session_checks_the_instance);
    RUN(traps_and_status);
    RUN(memory_limit);
    RUN(time_limit_stops_a_loop_and_the_runtime_survives);
    return test_summary("host");
}
