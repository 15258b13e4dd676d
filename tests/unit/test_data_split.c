/*
 * test_data_split.c: the host's data-segment split (src/host/data_split.c) and the
 * sessions that read the split-off segments from the file (src/host/session.c).
 *
 * Checks: which modules are split (active segments only, nothing after the data section,
 * no start function or data count section, segments inside the initial memory, exact
 * parse) and that the code part is the module minus its data section; that a model
 * loaded from a file (split) starts with the same memory contents and gives the same
 * results as the same bytes loaded whole; and that a file changed after loading is
 * refused when a session is created, not read silently.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "host/data_split.h"
#include "host/inspect.h"
#include "wasmgraph.h"

/* A module assembled from sections; enough structure for the splitter, not valid code. */
typedef struct mod {
    uint8_t b[4096];
    size_t n;
} mod;

static void mod_init(mod *m)
{
    static const uint8_t head[8] = {0, 'a', 's', 'm', 1, 0, 0, 0};
    memcpy(m->b, head, 8);
    m->n = 8;
}

static void mod_section(mod *m, uint8_t id, const uint8_t *payload, size_t len)
{
    m->b[m->n++] = id;
    m->b[m->n++] = (uint8_t)len; /* tests keep sections under 128 bytes */
    memcpy(m->b + m->n, payload, len);
    m->n += len;
}

static const uint8_t memsec[] = {1, 0, 1};              /* one memory, min 1 page */
static const uint8_t custom[] = {3, 'a', 'b', 'c', 9};  /* custom section "abc" */
/* Two active segments: at 16 "hello" (flags 0) and at 100 "xy" (flags 2, memory 0). */
static const uint8_t data2[] = {2, 0, 0x41, 16, 0x0b, 5, 'h', 'e', 'l', 'l', 'o',
                                2, 0, 0x41, 0xe4, 0x00, 0x0b, 2, 'x', 'y'};

static bool split_of(const mod *m, wgh_split *s)
{
    bool ok = false;
    wg_status st = wgh_split_data(m->b, m->n, 65536, s, &ok);
    CHECK(st == WG_OK, "status %d", st);
    return ok;
}

TEST(active_segments_are_split_off)
{
    mod m, want;
    wgh_split s;
    mod_init(&m);
    mod_section(&m, 5, memsec, sizeof memsec);
    mod_section(&m, 11, data2, sizeof data2);
    mod_section(&m, 0, custom, sizeof custom);
    mod_init(&want);
    mod_section(&want, 5, memsec, sizeof memsec);
    mod_section(&want, 0, custom, sizeof custom);
    CHECK(split_of(&m, &s), "not split");
    CHECK(s.n_segs == 2 && s.data_bytes == 7, "%zu segments, %llu bytes", s.n_segs,
          (unsigned long long)s.data_bytes);
    if (s.n_segs == 2) {
        CHECK(s.segs[0].mem_off == 16 && s.segs[0].len == 5 &&
                  !memcmp(m.b + s.segs[0].file_off, "hello", 5), "segment 0");
        CHECK(s.segs[1].mem_off == 100 && s.segs[1].len == 2 &&
                  !memcmp(m.b + s.segs[1].file_off, "xy", 2), "segment 1");
    }
    CHECK(s.code_len == want.n && s.code && !memcmp(s.code, want.b, want.n),
          "code part is not the module minus its data section (%zu vs %zu bytes)", s.code_len,
          want.n);
    wgh_split_free(&s);
}

/* Builds memory + extra section (id, payload) placed before or after data2, and expects
 * no split. */
static void expect_whole(const char *what, uint8_t id, const uint8_t *p, size_t len, bool after)
{
    mod m;
    wgh_split s;
    mod_init(&m);
    mod_section(&m, 5, memsec, sizeof memsec);
    if (!after)
        mod_section(&m, id, p, len);
    mod_section(&m, 11, data2, sizeof data2);
    if (after)
        mod_section(&m, id, p, len);
    CHECK(!split_of(&m, &s), "%s: split", what);
    CHECK(!s.code && !s.segs, "%s: something left to free", what);
}

TEST(modules_that_must_be_compiled_whole)
{
    static const uint8_t start[] = {0};
    static const uint8_t count[] = {2};
    expect_whole("start function", 8, start, sizeof start, false);
    expect_whole("data count section", 12, count, sizeof count, false);
    expect_whole("a second data section", 11, data2, sizeof data2, true);
    expect_whole("a code section after data", 10, count, sizeof count, true);
    static const uint8_t passive[] = {1, 1, 2, 'h', 'i'};
    static const uint8_t mem1[] = {1, 2, 1, 0x41, 0, 0x0b, 1, 'h'};
    static const uint8_t global_off[] = {1, 0, 0x23, 0, 0x0b, 1, 'h'};
    static const uint8_t too_far[] = {1, 0, 0x41, 0xff, 0xff, 0x03, 0x0b, 2, 'h', 'i'};
    static const uint8_t negative[] = {1, 0, 0x41, 0x7f, 0x0b, 1, 'h'};
    static const uint8_t trailing[] = {1, 0, 0x41, 0, 0x0b, 1, 'h', 0};
    static const uint8_t short_len[] = {1, 0, 0x41, 0, 0x0b, 5, 'h'};
    static const uint8_t big_count[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    const struct { const char *what; const uint8_t *p; size_t n; } cases[] = {
        {"passive segment", passive, sizeof passive},
        {"memory 1", mem1, sizeof mem1},
        {"global.get offset", global_off, sizeof global_off},
        {"segment past the initial memory", too_far, sizeof too_far},
        {"offset -1", negative, sizeof negative},
        {"trailing byte", trailing, sizeof trailing},
        {"length past the section", short_len, sizeof short_len},
        {"absurd count", big_count, sizeof big_count},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mod m;
        wgh_split s;
        mod_init(&m);
        mod_section(&m, 5, memsec, sizeof memsec);
        mod_section(&m, 11, cases[i].p, cases[i].n);
        CHECK(!split_of(&m, &s), "%s: split", cases[i].what);
    }
    mod m;
    wgh_split s;
    mod_init(&m);
    mod_section(&m, 5, memsec, sizeof memsec);
    CHECK(!split_of(&m, &s), "no data section: split");
    m.n -= 1; /* a section that runs past the end of the file */
    CHECK(!split_of(&m, &s), "truncated: split");
}

/* --- End to end, on the add_one host fixture with a data section appended. --- */

static char tmpdir[] = "/tmp/wg-test-split-XXXXXX";
static uint8_t *fixture;
static size_t fixture_len;

/* add_one.wasm + a data section filling [1024, 1024 + 16 KiB) with 2.0f: the fixture has
 * no data of its own, so its input and output (zero-initialised statics) start at 2. */
static bool make_fixture(void)
{
    const char *env = getenv("WG_HOST_FIXTURES");
    char path[600], err[900];
    snprintf(path, sizeof path, "%s/add_one.wasm", env && *env ? env : "build/host-fixtures");
    struct stat sb;
    if (stat(path, &sb) != 0) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "sh tests/host/build_fixtures.sh '%s'",
                 env && *env ? env : "build/host-fixtures");
        if (system(cmd) != 0)
            return false;
    }
    uint8_t *b;
    size_t n;
    if (wgh_read_file(path, &b, &n, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    const size_t dlen = 16384;
    /* id, size (3-byte LEB), count 1, flags 0, i32.const 1024 (2-byte LEB), end, len. */
    uint8_t head[] = {11, 0, 0, 0, 1, 0, 0x41, 0x80, 0x08, 0x0b, 0x80, 0x80, 0x01};
    size_t size = sizeof head - 4 + dlen;
    head[1] = (uint8_t)(0x80 | (size & 0x7f));
    head[2] = (uint8_t)(0x80 | ((size >> 7) & 0x7f));
    head[3] = (uint8_t)(size >> 14);
    fixture = malloc(n + sizeof head + dlen);
    if (!fixture) {
        free(b);
        return false;
    }
    memcpy(fixture, b, n);
    memcpy(fixture + n, head, sizeof head);
    float two = 2.0f;
    for (size_t i = 0; i < dlen; i += 4)
        memcpy(fixture + n + sizeof head + i, &two, 4);
    fixture_len = n + sizeof head + dlen;
    free(b);
    return mkdtemp(tmpdir) != NULL;
}

/* Writes the fixture module to tmpdir/name; path gets the file's path. */
static bool write_fixture(char *path, size_t len, const char *name)
{
    snprintf(path, len, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(fixture, 1, fixture_len, f) == fixture_len;
    if (f)
        ok = !fclose(f) && ok;
    return ok;
}

/* A runtime with the default options; failing to make one is a failed check. */
static wg_runtime *new_runtime(void)
{
    wg_runtime *rt = NULL;
    CHECK(wg_runtime_new(NULL, &rt) == WG_OK, "runtime");
    return rt;
}

/* Runs a session of m: the input and output before the run, and the output after. */
static void run_once(wg_runtime *rt, wg_model *m, float before[2][4], float after[4])
{
    wg_session *s = NULL;
    CHECK(wg_session_new(m, &s) == WG_OK, "session: %s", wg_last_error(rt));
    if (!s)
        return;
    memcpy(before[0], wg_session_input(s, 0), 16);
    memcpy(before[1], wg_session_output(s, 0), 16);
    CHECK(wg_session_run(s) == WG_OK, "run: %s", wg_last_error(rt));
    memcpy(after, wg_session_output(s, 0), 16);
    wg_session_free(s);
}

TEST(split_load_equals_whole_load)
{
    char path[600];
    CHECK(write_fixture(path, sizeof path, "with_data.wasm"), "cannot write %s", path);
    wg_runtime *rt = new_runtime();
    wg_model *whole = NULL, *split = NULL;
    CHECK(wg_model_load_bytes(rt, fixture, fixture_len, "whole", &whole) == WG_OK, "whole: %s",
          wg_last_error(rt));
    CHECK(wg_model_load(rt, path, &split) == WG_OK, "split: %s", wg_last_error(rt));
    if (whole && split) {
        float b1[2][4], a1[4], b2[2][4], a2[4];
        run_once(rt, whole, b1, a1);
        run_once(rt, split, b2, a2);
        CHECK(b1[0][0] == 2.0f && b1[1][3] == 2.0f, "whole: data not in memory (%g, %g)",
              b1[0][0], b1[1][3]);
        CHECK(!memcmp(b1, b2, sizeof b1), "memory before the run differs (%g vs %g)", b1[0][0],
              b2[0][0]);
        CHECK(!memcmp(a1, a2, sizeof a1) && a2[0] == 3.0f, "outputs differ: %g vs %g", a1[0],
              a2[0]);
        /* Two sessions of one split model each get their own copy. */
        run_once(rt, split, b2, a2);
        CHECK(b2[0][0] == 2.0f && a2[0] == 3.0f, "second session: %g, %g", b2[0][0], a2[0]);
    }
    wg_model_free(whole);
    wg_model_free(split);
    wg_runtime_free(rt);
    remove(path);
}

TEST(a_file_changed_after_loading_is_refused)
{
    char path[600];
    CHECK(write_fixture(path, sizeof path, "changed.wasm"), "cannot write %s", path);
    wg_runtime *rt = new_runtime();
    wg_model *m = NULL;
    CHECK(wg_model_load(rt, path, &m) == WG_OK, "load: %s", wg_last_error(rt));
    FILE *f = fopen(path, "ab");
    CHECK(f && fputc(0, f) == 0 && !fclose(f), "cannot append to %s", path);
    if (m) {
        wg_session *s = NULL;
        wg_status st = wg_session_new(m, &s);
        CHECK(st == WG_ERR_IO && !s, "status %s", wg_status_str(st));
        CHECK(strstr(wg_last_error(rt), "changed since the model was loaded") &&
                  strstr(wg_last_error(rt), "changed.wasm"), "message: %s", wg_last_error(rt));
    }
    wg_model_free(m);
    wg_runtime_free(rt);
    remove(path);
}

int main(void)
{
    RUN(active_segments_are_split_off);
    RUN(modules_that_must_be_compiled_whole);
    if (!make_fixture()) {
        fprintf(stderr, "test_data_split: cannot make the fixture module\n");
        return 1;
    }
    RUN(split_load_equals_whole_load);
    RUN(a_file_changed_after_loading_is_refused);
    free(fixture);
    rmdir(tmpdir);
    return test_summary("data_split");
}
