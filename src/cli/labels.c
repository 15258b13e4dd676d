/* labels.c: see labels.h. */
#include "labels.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/inspect.h" /* wgh_read_file */
#include "common/fail.h"

#define WG_MAX_LABELS 1000000

enum { FMT_PLAIN, FMT_CSV, FMT_SYNSET };

/* `123,` at the start of a line. */
static bool is_csv_line(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    return i > 0 && i < n && s[i] == ',';
}

/* `n01440764 ` at the start of a line. */
static bool is_synset_line(const char *s, size_t n)
{
    if (n < 10 || s[0] != 'n')
        return false;
    for (int i = 1; i < 9; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return s[9] == ' ' || s[9] == '\t';
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* The label part of a csv line after `idx,`: unquoted, with "" turned into ". */
static char *csv_field(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    if (!n || *s != '"')
        return dup_n(s, n);
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == '"') {
            if (i + 1 < n && s[i + 1] == '"') {
                d[k++] = '"';
                i++;
                continue;
            }
            break; /* closing quote: anything after it is ignored */
        }
        d[k++] = s[i];
    }
    d[k] = 0;
    return d;
}

static wg_status put(wg_labels *l, size_t *cap, size_t idx, char *label, const char *name, int line,
                     char *err, size_t errlen)
{
    if (!label)
        return wg_fail(err, errlen, WG_ERR_NOMEM, "%s: out of memory", name);
    if (idx >= WG_MAX_LABELS) {
        free(label);
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s:%d: class index %zu is too large", name, line, idx);
    }
    if (idx >= *cap) {
        size_t nc = *cap ? *cap : 1024;
        while (nc <= idx)
            nc *= 2;
        char **nn = realloc(l->names, nc * sizeof *nn);
        if (!nn) {
            free(label);
            return wg_fail(err, errlen, WG_ERR_NOMEM, "%s: out of memory", name);
        }
        memset(nn + *cap, 0, (nc - *cap) * sizeof *nn);
        l->names = nn;
        *cap = nc;
    }
    if (l->names[idx]) {
        free(label);
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s:%d: class %zu has a second label", name, line, idx);
    }
    l->names[idx] = label;
    if (idx + 1 > l->n)
        l->n = idx + 1;
    return WG_OK;
}

wg_status wg_labels_parse(const char *text, size_t len, const char *name, wg_labels *out,
                          char *err, size_t errlen)
{
    wg_status st = WG_OK;
    size_t cap = 0;
    int format = -1, line = 0;
    bool header_skipped = false;
    memset(out, 0, sizeof *out);
    size_t pos = 0;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) /* UTF-8 byte order mark */
        pos = 3;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        const char *s = text + pos;
        size_t n = end - pos;
        pos = end + 1;
        line++;
        while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (!n)
            continue;
        if (format < 0) {
            if (is_csv_line(s, n))
                format = FMT_CSV;
            else if (is_synset_line(s, n))
                format = FMT_SYNSET;
            else if (!header_skipped && memchr(s, ',', n) && pos < len) {
                /* A header like `id,label` if the next data line is csv. */
                size_t e2 = pos;
                while (e2 < len && text[e2] != '\n')
                    e2++;
                if (is_csv_line(text + pos, e2 - pos)) {
                    header_skipped = true;
                    continue;
                }
                format = FMT_PLAIN;
            } else
                format = FMT_PLAIN;
        }
        if (format == FMT_CSV) {
            if (!is_csv_line(s, n)) {
                st = wg_fail(err, errlen, WG_ERR_FORMAT, "%s:%d: expected `index,label`, got '%.*s'",
                          name, line, (int)(n < 60 ? n : 60), s);
                goto fail;
            }
            size_t idx = (size_t)strtoull(s, NULL, 10);
            const char *comma = memchr(s, ',', n);
            st = put(out, &cap, idx, csv_field(comma + 1, n - (size_t)(comma + 1 - s)), name, line,
                     err, errlen);
        } else if (format == FMT_SYNSET) {
            size_t k = 9;
            while (k < n && (s[k] == ' ' || s[k] == '\t'))
                k++;
            st = put(out, &cap, out->n, dup_n(s + k, n - k), name, line, err, errlen);
        } else {
            st = put(out, &cap, out->n, dup_n(s, n), name, line, err, errlen);
        }
        if (st)
            goto fail;
    }
    if (!out->n) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "%s: no labels in the file", name);
        goto fail;
    }
    return WG_OK;
fail:
    wg_labels_free(out);
    return st;
}

wg_status wg_labels_load(const char *path, wg_labels *out, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    wg_status st = wgh_read_file(path, &buf, &len, err, errlen);
    if (st)
        return st;
    st = wg_labels_parse((const char *)buf, len, path, out, err, errlen);
    free(buf);
    return st;
}

void wg_labels_free(wg_labels *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

const char *wg_labels_get(const wg_labels *l, size_t i)
{
    return i < l->n && l->names[i] ? l->names[i] : "?";
}
