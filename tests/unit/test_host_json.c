/* test_host_json.c: the JSON reader (src/common/json.c) and the metadata parser built on it
 * (wgh_meta_parse in src/host/inspect.c): values, escapes, errors with offsets, and every
 * metadata rule (abi, dtype, bytes = numel * size, names). */
#include <string.h>

#include "../test.h"
#include "common/json.h"
#include "host/inspect.h"

TEST(json_values)
{
    const char *t = " {\"a\": [1, -2, 3.5e2, true, false, null], \"s\": \"x\\\"\\u00e9\\ud83d\\ude00\\n\","
                    " \"o\": {}, \"big\": 9007199254740993} ";
    char err[200];
    wg_json *j = wg_json_parse(t, strlen(t), err, sizeof err);
    CHECK(j, "%s", err);
    if (!j)
        return;
    const wg_json *a = wg_json_get(j, "a");
    int64_t i;
    bool b;
    CHECK(a && a->n == 6, "array");
    CHECK(wg_json_int(wg_json_at(a, 1), &i) && i == -2, "int");
    CHECK(!wg_json_int(wg_json_at(a, 2), &i) && wg_json_at(a, 2)->num == 350, "double");
    CHECK(wg_json_bool(wg_json_at(a, 3), &b) && b, "true");
    CHECK(wg_json_at(a, 5)->type == WG_JSON_NULL && !wg_json_at(a, 6), "null, range");
    CHECK(!strcmp(wg_json_str(wg_json_get(j, "s")), "x\"\xc3\xa9\xf0\x9f\x98\x80\n"), "escapes '%s'",
          wg_json_str(wg_json_get(j, "s")));
    CHECK(wg_json_get(j, "o")->type == WG_JSON_OBJECT && !wg_json_get(j, "missing"), "object");
    CHECK(wg_json_int(wg_json_get(j, "big"), &i) && i == 9007199254740993LL, "int64 exact");
    wg_json_free(j);
}

TEST(json_errors)
{
    static const char *bad[] = {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "tru", "[1] x", "{\"a\":01x}",
                                "\"\\q\"", "[\"\x01\"]"};
    char err[200];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        wg_json *j = wg_json_parse(bad[k], strlen(bad[k]), err, sizeof err);
        CHECK(!j && strstr(err, "invalid JSON at byte"), "'%s' accepted or no message: %s", bad[k], err);
        wg_json_free(j);
    }
    char deep[200];
    memset(deep, '[', sizeof deep);
    CHECK(!wg_json_parse(deep, sizeof deep, err, sizeof err) && strstr(err, "nested"), "depth: %s", err);
}

static wg_status meta(const char *text, wgh_meta *m, char *err)
{
    return wgh_meta_parse(text, strlen(text), m, err, 300);
}

#define T(n, d, s, b) "{\"name\":\"" n "\",\"dtype\":\"" d "\",\"shape\":[" s "],\"bytes\":" b "}"

TEST(metadata_rules)
{
    wgh_meta m;
    char err[300];
    wg_status st = meta("{\"abi\":1,\"name\":\"sq\",\"opset\":13,\"inputs\":[" T("data", "float16", "1,3,2,2", "24")
                        "],\"outputs\":[" T("prob", "float32", "1,10", "40") "],\"options\":{\"simd\":true,"
                        "\"relaxed_simd\":false,\"opt_level\":3},\"arena_bytes\":100}", &m, err);
    CHECK(st == WG_OK, "%s", err);
    if (!st) {
        CHECK(!strcmp(m.name, "sq") && m.opset == 13 && m.simd && !m.relaxed_simd && m.opt_level == 3,
              "fields");
        CHECK(m.arena_bytes == 100 && m.weight_bytes == -1 && !strcmp(m.producer, ""), "optional fields");
        CHECK(m.n_inputs == 1 && m.inputs[0].dtype == WG_DT_FLOAT16 && m.inputs[0].rank == 4 &&
                  m.inputs[0].bytes == 24, "input");
        wgh_meta_free(&m);
    }
    struct { const char *text; wg_status st; const char *msg; } cases[] = {
        {"{\"abi\":3}", WG_ERR_ABI, "module ABI version 3, this host supports 1..2"},
        {"{\"abi\":0}", WG_ERR_ABI, "module ABI version 0, this host supports 1..2"},
        {"{\"name\":\"x\"}", WG_ERR_ABI, "no integer \"abi\""},
        {"[1]", WG_ERR_FORMAT, "not a JSON object"},
        {"{\"abi\":1,\"outputs\":[]}", WG_ERR_FORMAT, "\"inputs\" is missing"},
        {"{\"abi\":1,\"inputs\":[],\"outputs\":[]}", WG_ERR_FORMAT, "no outputs"},
        {"{\"abi\":1,\"inputs\":[" T("x", "float32", "2", "4") "],\"outputs\":[]}", WG_ERR_FORMAT,
         "input 'x' says bytes 4 but 2 elements of float32 make 8"},
        {"{\"abi\":1,\"inputs\":[" T("x", "complex", "2", "4") "],\"outputs\":[]}", WG_ERR_FORMAT,
         "dtype 'complex'"},
        {"{\"abi\":1,\"inputs\":[" T("x", "int8", "-1", "4") "],\"outputs\":[]}", WG_ERR_FORMAT,
         "dimension 0"},
        {"{\"abi\":1,\"inputs\":[" T("x", "int8", "1", "1") "," T("x", "int8", "1", "1") "],\"outputs\":[]}",
         WG_ERR_FORMAT, "two inputs are called 'x'"},
        {"{\"abi\":1,\"inputs\":[" T("x", "int8", "65536,65536", "4294967296") "],\"outputs\":[]}",
         WG_ERR_FORMAT, "more than 2^32"},
        {"{\"abi\":1,\"options\":[],\"inputs\":[],\"outputs\":[" T("y", "int8", "1", "1") "]}",
         WG_ERR_FORMAT, "\"options\" must be an object"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        st = meta(cases[k].text, &m, err);
        CHECK(st == cases[k].st && strstr(err, cases[k].msg), "case %zu: status %d, '%s' lacks '%s'", k,
              (int)st, err, cases[k].msg);
    }
}

int main(void)
{
    RUN(json_values);
    RUN(json_errors);
    RUN(metadata_rules);
    return test_summary("host_json");
}
