/*
 * test_abi.c: the C host on the module ABI fixtures (tests/abi/fixtures.tsv; the JS loader
 * runs the same rows in tests/js/test_abi.mjs). Each row gives the stage where the host
 * must refuse the module (or "ok": it loads, gets a session and runs with status 0), the
 * verdict (the status) and a fragment of the message. A module refused at inspection is
 * refused alike by wg_model_inspect, wg_model_inspect_bytes and wg_model_load.
 *
 * The fixtures are written by tests/abi/make_fixtures.py into $WG_ABI_FIXTURES (default
 * build/abi-fixtures; tests/run.sh does it). Rows whose file is missing fail, except the
 * real_* ones when no real module was built (make_fixtures.py run without a wasmgraph).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "host/inspect.h"
#include "wasmgraph.h"

/* The message with backticks read as quotes: the hosts quote names differently. */
static bool has_fragment(const char *msg, const char *frag)
{
    char norm[1024];
    snprintf(norm, sizeof norm, "%s", msg);
    for (char *p = norm; *p; p++)
        if (*p == '`')
            *p = '\'';
    return strstr(norm, frag) != NULL;
}

static wg_status verdict_status(const char *v)
{
    if (!strcmp(v, "format"))
        return WG_ERR_FORMAT;
    if (!strcmp(v, "abi"))
        return WG_ERR_ABI;
    if (!strcmp(v, "status"))
        return WG_ERR_TRAP;
    return WG_OK;
}

/* Checks one row through every stage up to the one it names (the CHECKs say what failed). */
static void check_row(wg_runtime *rt, const char *dir, const char *file, const char *stage,
                      const char *verdict, const char *frag)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    const wg_status want = verdict_status(verdict);
    const bool at_inspect = !strcmp(stage, "inspect");

    wg_model_info *info = NULL;
    wg_status st = wg_model_inspect(path, &info, err, sizeof err);
    CHECK(st == (at_inspect ? want : WG_OK), "%s: wg_model_inspect: %s (%s)", file, wg_status_str(st),
          st ? err : "accepted");
    if (at_inspect && st)
        CHECK(has_fragment(err, frag), "%s: '%s' lacks '%s'", file, err, frag);
    if (!st) {
        CHECK(info && info->abi >= WG_ABI_VERSION_MIN && info->abi <= WG_ABI_VERSION && info->num_outputs > 0 && info->metadata_json,
              "%s: inspected info", file);
        wg_model_info_free(info);
    }

    /* The same verdict from bytes. */
    uint8_t *bytes;
    size_t len;
    if (wgh_read_file(path, &bytes, &len, err, sizeof err) == WG_OK) {
        wg_status sb = wg_model_inspect_bytes(bytes, len, file, &info, err, sizeof err);
        CHECK(sb == st, "%s: from bytes %s, from the file %s", file, wg_status_str(sb), wg_status_str(st));
        if (!sb)
            wg_model_info_free(info);
        free(bytes);
    }

    wg_model *m = NULL;
    wg_session *s = NULL;
    st = wg_model_load(rt, path, &m);
    CHECK(st == (at_inspect ? want : WG_OK), "%s: wg_model_load: %s (%s)", file, wg_status_str(st),
          wg_last_error(rt));
    if (at_inspect) {
        if (st)
            CHECK(has_fragment(wg_last_error(rt), frag), "%s: '%s' lacks '%s'", file, wg_last_error(rt),
                  frag);
        goto done;
    }
    if (st)
        goto done;
    CHECK(wg_model_get_info(m)->num_outputs == wg_model_num_outputs(m), "%s: wg_model_get_info", file);
    const bool at_session = !strcmp(stage, "session");
    st = wg_session_new(m, &s);
    CHECK(st == (at_session ? want : WG_OK), "%s: wg_session_new: %s (%s)", file, wg_status_str(st),
          wg_last_error(rt));
    if (at_session || st) {
        if (st)
            CHECK(has_fragment(wg_last_error(rt), frag), "%s: '%s' lacks '%s'", file, wg_last_error(rt),
                  frag);
        goto done;
    }
    st = wg_session_run(s);
    const bool at_run = !strcmp(stage, "run");
    CHECK(st == (at_run ? want : WG_OK), "%s: wg_session_run: %s (%s)", file, wg_status_str(st),
          wg_last_error(rt));
    if (at_run && st)
        CHECK(has_fragment(wg_last_error(rt), frag), "%s: '%s' lacks '%s'", file, wg_last_error(rt), frag);
done:
    wg_session_free(s);
    wg_model_free(m);
}

TEST(fixtures)
{
    const char *env = getenv("WG_ABI_FIXTURES");
    const char *dir = env && *env ? env : "build/abi-fixtures";
    const char *table = getenv("WG_ABI_TABLE");
    FILE *f = fopen(table && *table ? table : "tests/abi/fixtures.tsv", "r");
    CHECK(f, "cannot open the fixture table (run from the repository root)");
    if (!f)
        return;
    wg_runtime *rt;
    if (wg_runtime_new(NULL, &rt)) {
        CHECK(0, "wg_runtime_new failed");
        fclose(f);
        return;
    }
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/real_ok.wasm", dir);
    FILE *real = fopen(probe, "rb");
    if (real)
        fclose(real);
    char line[1024];
    int rows = 0, skipped = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *file = strtok(line, "\t"), *stage = strtok(NULL, "\t"), *verdict = strtok(NULL, "\t");
        char *frag = strtok(NULL, "\t");
        CHECK(file && stage && verdict, "malformed row '%s'", line);
        if (!file || !stage || !verdict)
            continue;
        if (!real && !strncmp(file, "real_", 5)) {
            skipped++;
            continue;
        }
        check_row(rt, dir, file, stage, verdict, frag ? frag : "");
        rows++;
    }
    fclose(f);
    wg_runtime_free(rt);
    CHECK(rows >= 40, "only %d fixture rows ran", rows);
    printf("abi fixtures: %d rows checked, %d real_* rows skipped (no real module)\n", rows, skipped);
}

/* The limits are the values docs/abi.md gives (and the JS loader's LIMITS). */
TEST(limits)
{
    CHECK(WG_MAX_RANK == 8 && WG_ABI_MAX_TENSORS == 1024 && WG_ABI_MAX_DIM == 2147483647 &&
              WG_ABI_MAX_ELEMENTS == 4294967295u && WG_ABI_MAX_STEPS == (1 << 20) &&
              WG_ABI_MAX_SYMBOLS == 8,
          "an ABI limit changed: update docs/abi.md and js/wasmgraph.mjs with it");
}

/* The path of ABI fixture NAME: in WG_ABI_FIXTURES, else build/abi-fixtures. */
static void fixture_path(char *path, size_t size, const char *name)
{
    const char *env = getenv("WG_ABI_FIXTURES");
    snprintf(path, size, "%s/%s", env && *env ? env : "build/abi-fixtures", name);
}

/* A runtime, model and session of fixture NAME; false (a failed check) when one fails. */
static bool open_fixture(const char *name, wg_runtime **rt, wg_model **m, wg_session **s)
{
    char path[1024];
    fixture_path(path, sizeof path, name);
    *rt = NULL, *m = NULL, *s = NULL;
    if (!wg_runtime_new(NULL, rt) && !wg_model_load(*rt, path, m) && !wg_session_new(*m, s))
        return true;
    CHECK(0, "%s: %s", path, *rt ? wg_last_error(*rt) : "no runtime");
    return false;
}

/* Symbolic dims (ABI 2) in the C host, on the fixture v2_ok.wasm (symbol n in 1..4, x and
 * y of [n, 4] float32 at 1024 and 2048, wg_dims_ptr() = 4096, wg_run computes nothing):
 * the session writes the sizes into wg_dims before the run and refuses sizes out of
 * range, fixed dims that differ and inputs that disagree, as the JS loader does
 * (tests/js/test_dims.mjs). */
TEST(symbolic_dims)
{
    wg_runtime *rt;
    wg_model *m;
    wg_session *s;
    if (!open_fixture("v2_ok.wasm", &rt, &m, &s))
        goto done;
    const wg_model_info *info = wg_model_get_info(m);
    CHECK(info->abi == 2 && info->num_symbols == 1 && !strcmp(info->symbols[0].name, "n") &&
              info->symbols[0].min == 1 && info->symbols[0].max == 4,
          "symbols not read");
    CHECK(info->inputs[0].sym[0] == 0 && info->inputs[0].sym[1] == -1 && info->inputs[0].dims[0] == 4,
          "input dims not read as [n, 4]");
    /* wg_dims sits 3072 bytes after input 0 (at 1024) */
    const int32_t *dims = (const int32_t *)((const uint8_t *)wg_session_input(s, 0) + 3072);
    int64_t shape[WG_MAX_RANK] = {2, 4};
    int rank = 0;
    size_t bytes = 0;
    CHECK(!wg_session_set_input_shape(s, 0, shape, 2) && !wg_session_run(s) && dims[0] == 2,
          "n = 2 not written: %s", wg_last_error(rt));
    CHECK(!wg_session_output_shape(s, 0, shape, &rank, &bytes) && rank == 2 && shape[0] == 2 &&
              shape[1] == 4 && bytes == 32,
          "output shape at n = 2");
    int64_t bad[2] = {5, 4}, fixed[2] = {2, 3};
    CHECK(wg_session_set_input_shape(s, 0, bad, 2) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "symbol 'n' = 5 is outside its range 1..4"),
          "n = 5 accepted: %s", wg_last_error(rt));
    CHECK(wg_session_set_input_shape(s, 0, fixed, 2) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "dimension 1 is 3, the model fixes it at 4"),
          "a fixed dim of 3 accepted: %s", wg_last_error(rt));
    CHECK(wg_session_set_dim(s, "n", 3) == WG_OK && wg_session_run(s) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "has n = 2 (dimension 0), but wg_session_set_dim gives 3"),
          "disagreeing sizes accepted: %s", wg_last_error(rt));
    CHECK(dims[0] == 2, "a refused run wrote the dims");
    CHECK(wg_session_set_dim(s, "m", 1) == WG_ERR_INVALID && wg_session_set_dim(s, "n", 0) == WG_ERR_INVALID,
          "an unknown symbol or n = 0 accepted");
done:
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
}

/* Empty inputs (docs/abi.md "Empty inputs"): v2_empty_ok.wasm's x and e are [n, 4], n in
 * 0..4, e may be given empty; wg_run returns 18 when e is flagged empty and x[0] != 0. */
TEST(empty_inputs)
{
    wg_runtime *rt;
    wg_model *m;
    wg_session *s;
    if (!open_fixture("v2_empty_ok.wasm", &rt, &m, &s))
        goto done;
    const wg_model_info *info = wg_model_get_info(m);
    CHECK(!info->inputs[0].may_be_empty && info->inputs[1].may_be_empty, "may_be_empty not read");
    /* x at 1024, wg_dims at 4096, wg_input_empty at 4352 */
    float *x = wg_session_input(s, 0);
    const int32_t *dims = (const int32_t *)((const uint8_t *)x + 3072);
    const int32_t *empty = (const int32_t *)((const uint8_t *)x + 3328);
    int64_t two[2] = {2, 4}, zero[2] = {0, 4}, three[2] = {3, 4};
    x[0] = 0;
    CHECK(!wg_session_set_input_shape(s, 0, two, 2) && !wg_session_set_input_shape(s, 1, zero, 2) &&
              !wg_session_run(s) && dims[0] == 2 && empty[0] == 0 && empty[1] == 1,
          "e given empty at n = 2 not taken: %s", wg_last_error(rt));
    x[0] = 1; /* the module's branch that reads e */
    CHECK(wg_session_run(s) == WG_ERR_TRAP &&
              strstr(wg_last_error(rt), "status 18 (WGK_ERR_EMPTY_INPUT: ") &&
              strstr(wg_last_error(rt), "; given empty: 'e')"),
          "a read of the empty e not reported: %s", wg_last_error(rt));
    CHECK(!wg_session_set_input_shape(s, 1, three, 2) && wg_session_run(s) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "input 'e' has n = 3 (dimension 0), but input 'x' gives 2"),
          "e of neither 0 nor n accepted: %s", wg_last_error(rt));
    CHECK(!wg_session_set_input_shape(s, 0, zero, 2) && !wg_session_set_input_shape(s, 1, two, 2) &&
              wg_session_run(s) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "input 'e' has n = 2 (dimension 0), but input 'x' gives 0 (input 'x' "
                                        "may not be empty: the model reads it outside If branches and loop bodies)"),
          "x given empty accepted: %s", wg_last_error(rt));
    CHECK(!wg_session_set_input_shape(s, 1, zero, 2) && !wg_session_run(s) && dims[0] == 0 && empty[1] == 0,
          "both at n = 0 is no empty input: %s", wg_last_error(rt));
    CHECK(!wg_session_set_input_shape(s, 0, two, 2) && !wg_session_set_input_shape(s, 1, two, 2) &&
              !wg_session_run(s) && dims[0] == 2 && empty[1] == 0,
          "e given again not cleared: %s", wg_last_error(rt));
done:
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
}

/* Resident KV caches (docs/abi.md "Resident KV caches"): v2_cache_ok.wasm's past [p, 4]
 * (p in 0..3) and present [t, 4] (t = p + 1) are one pair of capacity 4; wg_cache_mode at
 * 4400. The host writes the mode before each run and refuses a resident past longer than
 * the rows the region holds, as the JS loader does (tests/js/test_cache.mjs). */
TEST(cache_pairs)
{
    wg_runtime *rt;
    wg_model *m;
    wg_session *s;
    if (!open_fixture("v2_cache_ok.wasm", &rt, &m, &s))
        goto done;
    const wg_model_info *info = wg_model_get_info(m);
    CHECK(info->num_cache_pairs == 1 && info->cache_pairs[0].past == 0 && info->cache_pairs[0].present == 0 &&
              info->cache_pairs[0].axis == 0 && info->cache_pairs[0].capacity == 4,
          "cache_pairs not read");
    const int32_t *mode = (const int32_t *)((const uint8_t *)wg_session_input(s, 0) + 3376); /* 1024 + 3376 */
    CHECK(!wg_session_set_dim(s, "p", 2) && !wg_session_run(s) && *mode == 0 && wg_session_cache_rows(s) == 0,
          "a copying run: %s", wg_last_error(rt));
    CHECK(wg_session_set_cache_mode(s, (wg_cache_mode)3) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "cache mode 3 is none of copy (0), resident (1), load (2)"),
          "mode 3 accepted: %s", wg_last_error(rt));
    CHECK(!wg_session_set_cache_mode(s, WG_CACHE_RESIDENT) && wg_session_run(s) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "KV cache 'past': a resident past of 2 rows, but the module's region holds 0"),
          "a resident past the region does not hold accepted: %s", wg_last_error(rt));
    CHECK(!wg_session_set_dim(s, "p", 0) && !wg_session_run(s) && *mode == 1 && wg_session_cache_rows(s) == 1,
          "a resident run from past 0: %s", wg_last_error(rt));
    CHECK(!wg_session_set_dim(s, "p", 1) && !wg_session_run(s) && wg_session_cache_rows(s) == 2,
          "a resident run of past 1: %s", wg_last_error(rt));
    CHECK(!wg_session_set_dim(s, "p", 3) && wg_session_run(s) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "a resident past of 3 rows, but the module's region holds 2"),
          "a resident past of 3 accepted: %s", wg_last_error(rt));
    CHECK(wg_session_set_dim(s, "p", 4) == WG_ERR_INVALID &&
              strstr(wg_last_error(rt), "symbol 'p' = 4 is outside its range 0..3"),
          "a past beyond the range accepted: %s", wg_last_error(rt));
    CHECK(!wg_session_set_cache_mode(s, WG_CACHE_LOAD) && !wg_session_run(s) && *mode == 2 &&
              wg_session_cache_rows(s) == 4,
          "a load run: %s", wg_last_error(rt));
done:
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
}

/* Data-dependent output dims (docs/abi.md "Run-time output dims"): v2_outdims_ok.wasm's y
 * is [1, {"max": 4}] and wg_output_dims_ptr reports [1, 3]; v2_outdims_over.wasm reports 5. */
TEST(output_dims)
{
    char ok[1024], over[1024];
    fixture_path(ok, sizeof ok, "v2_outdims_ok.wasm");
    fixture_path(over, sizeof over, "v2_outdims_over.wasm");
    wg_runtime *rt = NULL;
    wg_model *m = NULL, *m2 = NULL;
    wg_session *s = NULL, *s2 = NULL;
    if (wg_runtime_new(NULL, &rt) || wg_model_load(rt, ok, &m) || wg_session_new(m, &s) ||
        wg_model_load(rt, over, &m2) || wg_session_new(m2, &s2)) {
        CHECK(0, "%s: %s", ok, rt ? wg_last_error(rt) : "no runtime");
        goto done;
    }
    const wg_tensor_info *y = &wg_model_get_info(m)->outputs[0];
    CHECK(y->rank == 2 && y->sym[0] == -1 && y->sym[1] == WG_DIM_BOUNDED && y->dims[1] == 4 && y->bytes == 16,
          "output dims not read as [1, <=4]");
    int64_t shape[WG_MAX_RANK];
    int rank = 0;
    size_t bytes = 0;
    CHECK(!wg_session_output_shape(s, 0, shape, &rank, &bytes) && rank == 2 && shape[1] == 4 && bytes == 16,
          "before a run: not the bound");
    CHECK(!wg_session_run(s) && !wg_session_output_shape(s, 0, shape, &rank, &bytes) && rank == 2 &&
              shape[0] == 1 && shape[1] == 3 && bytes == 12,
          "the reported dims [1, 3] not given: %s", wg_last_error(rt));
    CHECK(wg_session_run(s2) == WG_ERR_ABI &&
              strstr(wg_last_error(rt), "output 'y' dimension 1 is 5 after the run (wg_output_dims_ptr), "
                                        "but the metadata bounds it at 4"),
          "dims past the bound accepted: %s", wg_last_error(rt));
done:
    wg_session_free(s2);
    wg_model_free(m2);
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
}

int main(void)
{
    RUN(fixtures);
    RUN(limits);
    RUN(symbolic_dims);
    RUN(empty_inputs);
    RUN(cache_pairs);
    RUN(output_dims);
    return test_summary("abi");
}
