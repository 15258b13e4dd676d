/* json.c: see json.h. A recursive-descent parser with a depth limit. */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

typedef struct parser {
    const char *s;
    size_t len, pos;
    char *err;
    size_t errlen;
    bool failed;
} parser;

static bool fail(parser *p, const char *fmt, ...)
{
    if (p->failed)
        return false;
    p->failed = true;
    if (p->err && p->errlen) {
        char msg[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(p->err, p->errlen, "invalid JSON at byte %zu: %s", p->pos, msg);
    }
    return false;
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
        p->pos++;
}

static void free_value(wg_json *j)
{
    if (!j)
        return;
    free(j->str);
    for (size_t i = 0; i < j->n; i++) {
        free_value(&j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    memset(j, 0, sizeof *j);
}

void wg_json_free(wg_json *j)
{
    if (!j)
        return;
    free_value(j);
    free(j);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_hex4(parser *p, unsigned *out)
{
    if (p->len - p->pos < 4)
        return fail(p, "truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p->s[p->pos + k]);
        if (h < 0)
            return fail(p, "bad hex digit in \\u escape");
        v = v * 16 + (unsigned)h;
    }
    p->pos += 4;
    *out = v;
    return true;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Parses a string literal starting at the opening quote; *out malloc'ed. */
static bool parse_string(parser *p, char **out, size_t *out_len)
{
    p->pos++; /* opening quote */
    size_t start = p->pos;
    /* The decoded string is never longer than the literal. */
    size_t end = start;
    while (end < p->len && p->s[end] != '"') {
        if (p->s[end] == '\\')
            end++;
        end++;
    }
    if (end >= p->len)
        return fail(p, "unterminated string");
    char *o = malloc(end - start + 1);
    if (!o)
        return fail(p, "out of memory");
    size_t n = 0;
    while (p->s[p->pos] != '"') {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20) {
            free(o);
            return fail(p, "control character in string");
        }
        if (c != '\\') {
            o[n++] = (char)c;
            p->pos++;
            continue;
        }
        p->pos++;
        char e = p->s[p->pos++];
        switch (e) {
        case '"': o[n++] = '"'; break;
        case '\\': o[n++] = '\\'; break;
        case '/': o[n++] = '/'; break;
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (!read_hex4(p, &cp)) {
                free(o);
                return false;
            }
            if (cp >= 0xd800 && cp < 0xdc00 && p->len - p->pos >= 6 && p->s[p->pos] == '\\' &&
                p->s[p->pos + 1] == 'u') {
                unsigned lo;
                p->pos += 2;
                if (!read_hex4(p, &lo)) {
                    free(o);
                    return false;
                }
                if (lo >= 0xdc00 && lo < 0xe000)
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            /* A \uXXXX literal is 6 bytes and decodes to at most 4 (8 bytes for a pair). */
            n += put_utf8(o + n, cp);
            break;
        }
        default:
            free(o);
            return fail(p, "bad escape \\%c", e);
        }
    }
    p->pos++; /* closing quote */
    o[n] = 0;
    *out = o;
    *out_len = n;
    return true;
}

static bool parse_value(parser *p, wg_json *v, int depth);

static bool parse_number(parser *p, wg_json *v)
{
    size_t start = p->pos;
    bool integer = true;
    if (p->s[p->pos] == '-')
        p->pos++;
    if (p->pos >= p->len || !(p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
        return fail(p, "bad number");
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c >= '0' && c <= '9') {
        } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
            integer = false;
        } else {
            break;
        }
        p->pos++;
    }
    char buf[64];
    size_t n = p->pos - start;
    if (n >= sizeof buf)
        return fail(p, "number too long");
    memcpy(buf, p->s + start, n);
    buf[n] = 0;
    char *end;
    v->type = WG_JSON_NUMBER;
    v->num = strtod(buf, &end);
    if (*end)
        return fail(p, "bad number '%s'", buf);
    if (integer) {
        errno = 0;
        long long i = strtoll(buf, &end, 10);
        if (!errno && !*end) {
            v->is_int = true;
            v->i = i;
        }
    }
    return true;
}

static bool grow(parser *p, wg_json *v, size_t *cap, bool with_keys)
{
    if (v->n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 4;
    wg_json *items = realloc(v->items, nc * sizeof *items);
    if (!items)
        return fail(p, "out of memory");
    v->items = items;
    if (with_keys) {
        char **keys = realloc(v->keys, nc * sizeof *keys);
        if (!keys)
            return fail(p, "out of memory");
        v->keys = keys;
    }
    *cap = nc;
    return true;
}

static bool parse_container(parser *p, wg_json *v, int depth, bool object)
{
    char close = object ? '}' : ']';
    size_t cap = 0;
    v->type = object ? WG_JSON_OBJECT : WG_JSON_ARRAY;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return true;
    }
    for (;;) {
        char *key = NULL;
        size_t key_len;
        skip_ws(p);
        if (object) {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail(p, "expected a member name");
            if (!parse_string(p, &key, &key_len))
                return false;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(key);
                return fail(p, "expected ':'");
            }
            p->pos++;
        }
        if (!grow(p, v, &cap, object)) {
            free(key);
            return false;
        }
        memset(&v->items[v->n], 0, sizeof v->items[0]);
        if (object)
            v->keys[v->n] = key;
        v->n++; /* counted before parsing so free_value releases a half-parsed member */
        if (!parse_value(p, &v->items[v->n - 1], depth + 1))
            return false;
        skip_ws(p);
        if (p->pos >= p->len)
            return fail(p, "unterminated %s", object ? "object" : "array");
        if (p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->s[p->pos] == close) {
            p->pos++;
            return true;
        }
        return fail(p, "expected ',' or '%c'", close);
    }
}

static bool parse_literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
        return fail(p, "unexpected character '%c'", p->s[p->pos]);
    p->pos += n;
    return true;
}

static bool parse_value(parser *p, wg_json *v, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return fail(p, "nested deeper than %d", JSON_MAX_DEPTH);
    skip_ws(p);
    if (p->pos >= p->len)
        return fail(p, "unexpected end of text");
    char c = p->s[p->pos];
    switch (c) {
    case '{': return parse_container(p, v, depth, true);
    case '[': return parse_container(p, v, depth, false);
    case '"':
        v->type = WG_JSON_STRING;
        return parse_string(p, &v->str, &v->len);
    case 't': v->type = WG_JSON_BOOL; v->b = true; return parse_literal(p, "true");
    case 'f': v->type = WG_JSON_BOOL; v->b = false; return parse_literal(p, "false");
    case 'n': v->type = WG_JSON_NULL; return parse_literal(p, "null");
    default: return parse_number(p, v);
    }
}

wg_json *wg_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    parser p = {text, len, 0, err, errlen, false};
    wg_json *j = calloc(1, sizeof *j);
    if (!j) {
        fail(&p, "out of memory");
        return NULL;
    }
    if (!parse_value(&p, j, 0))
        goto fail;
    skip_ws(&p);
    if (p.pos != p.len) {
        fail(&p, "trailing characters after the value");
        goto fail;
    }
    return j;
fail:
    wg_json_free(j);
    return NULL;
}

const wg_json *wg_json_get(const wg_json *j, const char *key)
{
    if (!j || j->type != WG_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key))
            return &j->items[i];
    return NULL;
}

const wg_json *wg_json_at(const wg_json *j, size_t i)
{
    if (!j || j->type != WG_JSON_ARRAY || i >= j->n)
        return NULL;
    return &j->items[i];
}

bool wg_json_int(const wg_json *j, int64_t *out)
{
    if (!j || j->type != WG_JSON_NUMBER || !j->is_int)
        return false;
    *out = j->i;
    return true;
}

const char *wg_json_str(const wg_json *j)
{
    return j && j->type == WG_JSON_STRING ? j->str : NULL;
}

bool wg_json_bool(const wg_json *j, bool *out)
{
    if (!j || j->type != WG_JSON_BOOL)
        return false;
    *out = j->b;
    return true;
}

void wg_json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c == '\r')
            fputs("\\r", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
