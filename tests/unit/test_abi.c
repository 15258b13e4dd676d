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
        CHECK(info && (info->abi == WG_ABI_VERSION || info->abi == WG_ABI_VERSION_VALUES) && info->num_outputs > 0 && info->metadata_json,
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
              WG_ABI_MAX_ELEMENTS == 4294967295u && WG_ABI_MAX_STEPS == (1 << 20),
          "an ABI limit changed: update docs/abi.md and js/wasmgraph.mjs with it");
}

int main(void)
{
    RUN(fixtures);
    RUN(limits);
    return test_summary("abi");
}
