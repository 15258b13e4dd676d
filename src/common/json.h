/*
 * json.h: a small JSON reader (a tree of values) and a string escaper for writers.
 *
 * Made for the module metadata (the `wasmgraph` custom section) and tool output; it
 * accepts standard JSON (RFC 8259) and nothing more. Numbers are kept as double and,
 * when they are integers written without fraction or exponent, also as int64.
 *
 *     char err[128];
 *     wg_json *j = wg_json_parse(text, len, err, sizeof err);
 *     if (!j) { fprintf(stderr, "%s\n", err); ... }
 *     int64_t abi;
 *     if (!wg_json_int(wg_json_get(j, "abi"), &abi)) ...
 *     wg_json_free(j);
 */
#ifndef WG_JSON_H
#define WG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum wg_json_type {
    WG_JSON_NULL, WG_JSON_BOOL, WG_JSON_NUMBER, WG_JSON_STRING, WG_JSON_ARRAY, WG_JSON_OBJECT
} wg_json_type;

typedef struct wg_json wg_json;
struct wg_json {
    wg_json_type type;
    bool b;
    double num;
    bool is_int;  /* NUMBER written as an integer that fits int64 */
    int64_t i;
    char *str;    /* STRING: NUL-terminated (may contain NULs from \u0000; len is exact) */
    size_t len;
    wg_json *items; /* ARRAY and OBJECT: n values */
    char **keys;    /* OBJECT: n keys */
    size_t n;
};

/* Parses text[0..len); NULL on failure with a message (with the byte offset) in err.
 * The tree is owned by the caller: wg_json_free. */
wg_json *wg_json_parse(const char *text, size_t len, char *err, size_t errlen);
void wg_json_free(wg_json *j);

/* Member key of object j; NULL when j is not an object or has no such key. */
const wg_json *wg_json_get(const wg_json *j, const char *key);
/* Element i of array j; NULL when out of range or not an array. */
const wg_json *wg_json_at(const wg_json *j, size_t i);
/* The value as an int64 / string / bool; false (or NULL) on a type mismatch or j NULL. */
bool wg_json_int(const wg_json *j, int64_t *out);
const char *wg_json_str(const wg_json *j);
bool wg_json_bool(const wg_json *j, bool *out);

/* Writes s as a JSON string literal (with quotes) to f. */
void wg_json_write_string(FILE *f, const char *s);

#endif
