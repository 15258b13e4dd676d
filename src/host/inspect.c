/* inspect.c: see inspect.h. */
#include "inspect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/dtype.h"
#include "../common/fail.h"
#include "../common/json.h"
#include "wasm_scan.h"

#include <stddef.h>

wg_status wgh_read_file(const char *path, uint8_t **out, size_t *len, char *err, size_t errlen)
{
    wg_status st = WG_OK;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    FILE *f = fopen(path, "rb");
    *out = NULL;
    *len = 0;
    if (!f)
        return wg_fail(err, errlen, WG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* Read in growing chunks rather than trusting a seek: pipes and /dev/stdin work too. */
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            uint8_t *nb = realloc(buf, nc);
            if (!nb) {
                st = wg_fail(err, errlen, WG_ERR_NOMEM, "%s: out of memory after %zu bytes", path, n);
                goto fail;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (!got)
            break;
    }
    if (ferror(f)) {
        st = wg_fail(err, errlen, WG_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        goto fail;
    }
    if (!n) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "%s: the file is empty", path);
        goto fail;
    }
    fclose(f);
    *out = buf;
    *len = n;
    return WG_OK;
fail:
    free(buf);
    fclose(f);
    return st;
}

static char *dup_or_empty(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static void free_tensors(wg_tensor_info *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++) {
        free((char *)t[i].name);
        free((char *)t[i].value);
    }
    free(t);
}

void wgh_meta_free(wgh_meta *m)
{
    free(m->json);
    free(m->name);
    free(m->producer);
    free(m->compiler);
    free_tensors(m->inputs, m->n_inputs);
    free_tensors(m->outputs, m->n_outputs);
    free(m->step_weights);
    for (size_t i = 0; m->steps && i < m->n_steps; i++)
        free(m->steps[i]);
    free(m->steps);
    for (size_t i = 0; m->symbols && i < m->n_symbols; i++)
        free((char *)m->symbols[i].name);
    free(m->symbols);
    free(m->sums);
    free(m->cache_pairs);
    memset(m, 0, sizeof *m);
}

/* Reads an optional non-negative integer member; -1 when absent. */
static bool opt_int(const wg_json *j, const char *key, int64_t *out)
{
    const wg_json *v = wg_json_get(j, key);
    *out = -1;
    return !v || (wg_json_int(v, out) && *out >= 0);
}

/* The optional "value" member of an input or output (ABI 2, docs/abi.md "Sequences and
 * optionals"): {"name", "kind": "sequence"|"optional", "holds": "tensor"|"sequence",
 * "part": element index or "present"}. The parts of one value are consecutive, elements
 * numbered from 0 in order, an optional's flag last and a bool scalar; prev is the entry
 * before t (NULL for the first). */
static wg_status parse_value(const wg_json *e, const char *what, wg_tensor_info *t,
                             const wg_tensor_info *prev, char *err, size_t errlen)
{
    const wg_json *v = wg_json_get(e, "value");
    t->value_part = 0;
    if (!v)
        return WG_OK;
    const char *name = wg_json_str(wg_json_get(v, "name"));
    const char *kind = wg_json_str(wg_json_get(v, "kind"));
    const char *holds = wg_json_str(wg_json_get(v, "holds"));
    const wg_json *part = wg_json_get(v, "part");
    int64_t idx = -1;
    bool ok = v->type == WG_JSON_OBJECT && name && *name && kind && holds && part &&
              (!strcmp(kind, "sequence") || !strcmp(kind, "optional")) &&
              (!strcmp(holds, "tensor") || !strcmp(holds, "sequence")) &&
              (!strcmp(kind, "optional") || !strcmp(holds, "sequence")) &&
              ((wg_json_int(part, &idx) && idx >= 0 && idx < WG_ABI_MAX_TENSORS) ||
               (wg_json_str(part) && !strcmp(wg_json_str(part), "present") && !strcmp(kind, "optional")));
    if (!ok)
        return wg_fail(err, errlen, WG_ERR_FORMAT,
                       "metadata: %s '%s' has a \"value\" that is not {\"name\", \"kind\": "
                       "\"sequence\"|\"optional\", \"holds\", \"part\"}",
                       what, t->name);
    if (!(t->value = dup_or_empty(name)))
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
    t->value_kind = !strcmp(kind, "sequence") ? WG_VALUE_SEQUENCE : WG_VALUE_OPTIONAL;
    t->value_holds = !strcmp(holds, "sequence") ? WG_VALUE_SEQUENCE : WG_VALUE_TENSOR;
    t->value_part = (int)idx;
    /* parts in order: element k follows element k - 1 of the same value, the flag last */
    bool same = prev && prev->value && !strcmp(prev->value, t->value);
    bool follows = same && prev->value_part >= 0 &&
                   (idx < 0 ? true : idx == prev->value_part + 1) && prev->value_kind == t->value_kind;
    if (same ? !follows : idx > 0)
        return wg_fail(err, errlen, WG_ERR_FORMAT,
                       "metadata: %s '%s' is part %lld of value '%s' out of order", what, t->name,
                       (long long)idx, t->value);
    if (idx < 0 && (t->dtype != WG_DT_BOOL || t->rank != 0))
        return wg_fail(err, errlen, WG_ERR_FORMAT,
                       "metadata: %s '%s', the presence flag of '%s', is not a bool scalar", what,
                       t->name, t->value);
    return WG_OK;
}

/* ABI 2 "symbols": [{"name", "min", "max"[, "step"]}...], unique names, 0 <= min <= max <
 * 2^31, a step dividing both. */
static wg_status parse_symbols(const wg_json *j, wgh_meta *out, char *err, size_t errlen)
{
    const wg_json *arr = wg_json_get(j, "symbols");
    if (!arr)
        return WG_OK;
    if (arr->type != WG_JSON_ARRAY || arr->n > WG_ABI_MAX_SYMBOLS)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: \"symbols\" is not an array of at most %d",
                       WG_ABI_MAX_SYMBOLS);
    if (!(out->symbols = calloc(arr->n ? arr->n : 1, sizeof *out->symbols)) ||
        !(out->sums = calloc(arr->n ? arr->n : 1, sizeof *out->sums)))
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
    out->n_symbols = arr->n;
    for (size_t i = 0; i < arr->n; i++) {
        const wg_json *e = &arr->items[i];
        const char *name = wg_json_str(wg_json_get(e, "name"));
        wg_symbol_info *y = &out->symbols[i];
        if (!name || !*name)
            return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: symbols[%zu] has no name", i);
        if (!(y->name = dup_or_empty(name)))
            return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(out->symbols[k].name, name))
                return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: two symbols are called '%s'", name);
        if (!wg_json_int(wg_json_get(e, "min"), &y->min) || !wg_json_int(wg_json_get(e, "max"), &y->max) ||
            y->min < 0 || y->max < y->min || y->max > WG_ABI_MAX_DIM)
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                           "metadata: symbol '%s' needs integers 0 <= min <= max < 2^31", name);
        y->step = 1;
        const wg_json *step = wg_json_get(e, "step");
        if (step && (!wg_json_int(step, &y->step) || y->step < 1 || y->min % y->step || y->max % y->step))
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                           "metadata: symbol '%s' has a step that is not an integer >= 1 dividing min and max",
                           name);
    }
    /* "sum": {"terms": [[c, NAME]...], "plus": p}, over symbols other than sums */
    for (size_t i = 0; i < arr->n; i++) {
        const wg_json *sum = wg_json_get(&arr->items[i], "sum");
        const wg_json *terms = sum ? wg_json_get(sum, "terms") : NULL;
        struct wgh_sym_sum *u = &out->sums[i];
        if (!sum)
            continue;
        if (!terms || terms->type != WG_JSON_ARRAY || terms->n < 1 || terms->n > 8 ||
            !wg_json_int(wg_json_get(sum, "plus"), &u->plus))
            return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: symbol '%s' has a \"sum\" that is not "
                           "{\"terms\": [[c, name]...] (1 to 8), \"plus\": integer}", out->symbols[i].name);
        for (size_t t = 0; t < terms->n; t++) {
            const wg_json *e = &terms->items[t];
            const char *tn = e->type == WG_JSON_ARRAY && e->n == 2 ? wg_json_str(&e->items[1]) : NULL;
            int k = -1;
            for (size_t j = 0; tn && j < arr->n; j++)
                if (!strcmp(out->symbols[j].name, tn) && !wg_json_get(&arr->items[j], "sum"))
                    k = (int)j;
            if (k < 0 || !wg_json_int(&e->items[0], &u->c[t]))
                return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: symbol '%s': sum term %zu is not [c, name] "
                               "of another symbol", out->symbols[i].name, t);
            u->sym[t] = k;
        }
        u->n = (int)terms->n;
    }
    return WG_OK;
}

static int find_symbol(const wgh_meta *m, const char *name)
{
    for (size_t k = 0; name && k < m->n_symbols; k++)
        if (!strcmp(m->symbols[k].name, name))
            return (int)k;
    return -1;
}

/* what is "input" or "output"; the JSON key is its plural. */
static wg_status parse_tensors(const wg_json *j, const char *what, const wgh_meta *meta,
                               wg_tensor_info **out, size_t *n_out, char *err, size_t errlen)
{
    char key[16];
    snprintf(key, sizeof key, "%ss", what);
    const wg_json *arr = wg_json_get(j, key);
    if (!arr || arr->type != WG_JSON_ARRAY)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: \"%s\" is missing or not an array", key);
    if (arr->n > WG_ABI_MAX_TENSORS)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: %zu %s (at most %d)", arr->n, key,
                    WG_ABI_MAX_TENSORS);
    wg_tensor_info *t = calloc(arr->n ? arr->n : 1, sizeof *t);
    if (!t)
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
    *out = t;
    *n_out = arr->n;
    for (size_t i = 0; i < arr->n; i++) {
        const wg_json *e = &arr->items[i];
        const char *name = wg_json_str(wg_json_get(e, "name"));
        const char *dtype = wg_json_str(wg_json_get(e, "dtype"));
        const wg_json *shape = wg_json_get(e, "shape");
        int64_t bytes;
        if (!name || !*name)
            return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: %s[%zu] has no name", what, i);
        if (!(t[i].name = dup_or_empty(name)))
            return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(t[k].name, name))
                return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: two %s are called '%s'", key,
                            name);
        t[i].dtype = dtype ? (wg_dtype)wg_dtype_from_name(dtype) : WG_DT_UNDEFINED;
        size_t esize = wg_dtype_size(t[i].dtype);
        /* Only the names the compiler writes: not wg_dtype_from_name's alias "float". */
        if (!esize || strcmp(wg_dtype_name(t[i].dtype), dtype))
            return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: %s '%s' has dtype '%s'", what, name,
                        dtype ? dtype : "(none)");
        if (!shape || shape->type != WG_JSON_ARRAY || shape->n > WG_MAX_RANK)
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                        "metadata: %s '%s' has no shape array of rank <= %d", what, name,
                        WG_MAX_RANK);
        t[i].rank = (int)shape->n;
        /* Sizes fit wasm32 memory: every product stays below 2^32. */
        uint64_t numel = 1;
        for (size_t d = 0; d < WG_MAX_RANK; d++)
            t[i].sym[d] = -1;
        for (size_t d = 0; d < shape->n; d++) {
            int64_t v;
            const wg_json *item = &shape->items[d];
            if (item->type == WG_JSON_OBJECT && meta->abi >= 2 && wg_json_get(item, "max")) {
                /* ABI 2: {"max": N}, an output's data-dependent dim of at most N */
                if (!wg_json_int(wg_json_get(item, "max"), &v) || v < 0 || v > WG_ABI_MAX_DIM ||
                    item->n != 1 || strcmp(what, "output"))
                    return wg_fail(err, errlen, WG_ERR_FORMAT,
                                   "metadata: %s '%s' dimension %zu: {\"max\": N} needs an integer N in "
                                   "[0, 2^31) and belongs to outputs only", what, name, d);
                t[i].sym[d] = WG_DIM_BOUNDED;
            } else if (item->type == WG_JSON_OBJECT && meta->abi >= 2) { /* ABI 2: {"sym": NAME} */
                int k = find_symbol(meta, wg_json_str(wg_json_get(item, "sym")));
                if (k < 0)
                    return wg_fail(err, errlen, WG_ERR_FORMAT,
                                   "metadata: %s '%s' dimension %zu names no symbol of \"symbols\"",
                                   what, name, d);
                t[i].sym[d] = k;
                v = meta->symbols[k].max;
            } else if (!wg_json_int(item, &v) || v < 0 || v > WG_ABI_MAX_DIM)
                return wg_fail(err, errlen, WG_ERR_FORMAT,
                            "metadata: %s '%s' dimension %zu is not an integer in [0, 2^31)", what,
                            name, d);
            t[i].dims[d] = v;
            numel *= (uint64_t)v;
            if (numel > WG_ABI_MAX_ELEMENTS)
                return wg_fail(err, errlen, WG_ERR_FORMAT,
                            "metadata: %s '%s' has more than 2^32 elements", what, name);
        }
        uint64_t expect = numel * esize;
        if (!wg_json_int(wg_json_get(e, "bytes"), &bytes) || bytes < 0 || (uint64_t)bytes != expect)
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                        "metadata: %s '%s' says bytes %lld but %llu elements of %s make %llu", what,
                        name, (long long)bytes, (unsigned long long)numel, dtype,
                        (unsigned long long)expect);
        t[i].bytes = (size_t)expect;
        wg_status st = parse_value(e, what, &t[i], i ? &t[i - 1] : NULL, err, errlen);
        if (st)
            return st;
        /* "may_be_empty": true, an input the host may give empty (docs/abi.md "Empty inputs") */
        const wg_json *me = wg_json_get(e, "may_be_empty");
        bool sym = false;
        for (int d = 0; d < t[i].rank; d++)
            sym |= t[i].sym[d] >= 0;
        if (me && (!wg_json_bool(me, &t[i].may_be_empty) || strcmp(what, "input") || !sym))
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                           "metadata: %s '%s' has \"may_be_empty\", which only a boolean of an input with a "
                           "symbolic dimension may have", what, name);
    }
    return WG_OK;
}

/* The optional "profile" array of a profile build: [{"op","name","output"}...], one per
 * step; keeps "op name" labels. */
static wg_status parse_profile(const wg_json *j, wgh_meta *out, char *err, size_t errlen)
{
    const wg_json *arr = wg_json_get(j, "profile");
    if (!arr)
        return WG_OK;
    if (arr->type != WG_JSON_ARRAY)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: \"profile\" is not an array");
    if (arr->n > WG_ABI_MAX_STEPS)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: %zu profile steps (at most %d)", arr->n,
                    WG_ABI_MAX_STEPS);
    out->has_profile = true;
    if (!(out->steps = calloc(arr->n ? arr->n : 1, sizeof *out->steps)))
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
    out->n_steps = arr->n;
    for (size_t i = 0; i < arr->n; i++) {
        const char *op = wg_json_str(wg_json_get(&arr->items[i], "op"));
        const char *name = wg_json_str(wg_json_get(&arr->items[i], "name"));
        const wg_json *output = wg_json_get(&arr->items[i], "output");
        if (!op || !name || (output && output->type != WG_JSON_STRING))
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                        "metadata: profile step %zu needs string members \"op\" and \"name\"", i);
        size_t n = strlen(op) + 1 + strlen(name) + 1;
        if (!(out->steps[i] = malloc(n)))
            return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
        snprintf(out->steps[i], n, "%s %s", op, name);
    }
    return WG_OK;
}

/* The optional "step_weights": one entry per wg_run_step step, the bytes of the weights
 * segment that step and those before it read: integers, never decreasing, at most
 * "weight_bytes" when that is given. */
static wg_status parse_step_weights(const wg_json *j, wgh_meta *out, char *err, size_t errlen)
{
    const wg_json *arr = wg_json_get(j, "step_weights");
    if (!arr)
        return WG_OK;
    if (arr->type != WG_JSON_ARRAY)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: \"step_weights\" is not an array");
    if (arr->n > WG_ABI_MAX_STEPS)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: %zu step_weights (at most %d)", arr->n,
                    WG_ABI_MAX_STEPS);
    out->has_step_weights = true;
    if (!(out->step_weights = calloc(arr->n ? arr->n : 1, sizeof *out->step_weights)))
        return wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
    out->n_run_steps = arr->n;
    for (size_t k = 0; k < arr->n; k++) {
        int64_t v;
        int64_t prev = k ? (int64_t)out->step_weights[k - 1] : 0;
        if (!wg_json_int(&arr->items[k], &v) || v < prev ||
            (out->weight_bytes >= 0 && v > out->weight_bytes))
            return wg_fail(err, errlen, WG_ERR_FORMAT,
                        "metadata: step_weights[%zu] is not an integer in [%lld, weight_bytes]", k,
                        (long long)prev);
        out->step_weights[k] = (uint64_t)v;
    }
    return WG_OK;
}

/* Whether s[0..len) is UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF), as the JS loader's TextDecoder({fatal: true}) requires. */
static bool is_utf8(const uint8_t *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        uint8_t c = s[i];
        size_t n;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xe0) == 0xc0)
            n = 1, cp = c & 0x1f, min = 0x80;
        else if ((c & 0xf0) == 0xe0)
            n = 2, cp = c & 0x0f, min = 0x800;
        else if ((c & 0xf8) == 0xf0)
            n = 3, cp = c & 0x07, min = 0x10000;
        else
            return false;
        if (len - i <= n)
            return false;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

/* An optional member that must be a string when present. */
static bool opt_str(const wg_json *j, const char *key)
{
    const wg_json *v = wg_json_get(j, key);
    return !v || v->type == WG_JSON_STRING;
}

wg_status wgh_meta_parse(const char *text, size_t len, wgh_meta *out, char *err, size_t errlen)
{
    wg_status st = WG_OK;
    char jerr[200];
    memset(out, 0, sizeof *out);
    wg_json *j = NULL;
    if (!is_utf8((const uint8_t *)text, len)) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "metadata (`wasmgraph` section) is not valid UTF-8");
        goto fail;
    }
    j = wg_json_parse(text, len, jerr, sizeof jerr);
    if (!j) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "metadata (`wasmgraph` section): %s", jerr);
        goto fail;
    }
    if (j->type != WG_JSON_OBJECT) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "metadata (`wasmgraph` section) is not a JSON object");
        goto fail;
    }
    if (!wg_json_int(wg_json_get(j, "abi"), &out->abi)) {
        st = wg_fail(err, errlen, WG_ERR_ABI, "metadata has no integer \"abi\" version");
        goto fail;
    }
    /* "threads": N (docs/abi.md "Threads"), ABI 2 only. */
    const wg_json *thr = wg_json_get(j, "threads");
    if (out->abi < WG_ABI_VERSION_MIN || out->abi > WG_ABI_VERSION) {
        st = wg_fail(err, errlen, WG_ERR_ABI, "module ABI version %lld, this host supports %d..%d",
                  (long long)out->abi, WG_ABI_VERSION_MIN, WG_ABI_VERSION);
        goto fail;
    }
    if (thr) {
        if (!wg_json_int(thr, &out->threads) || out->threads < 1 || out->threads > 1024) {
            st = wg_fail(err, errlen, WG_ERR_ABI, "metadata: \"threads\" must be an integer 1..1024");
            goto fail;
        }
        if (out->abi < 2) {
            st = wg_fail(err, errlen, WG_ERR_ABI, "metadata: \"threads\" needs ABI version %d, the module says %lld",
                         2, (long long)out->abi);
            goto fail;
        }
    }
    if (!(out->json = malloc(len + 1))) {
        st = wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(out->json, text, len);
    out->json[len] = 0;
    if (!opt_str(j, "name") || !opt_str(j, "producer") || !opt_str(j, "compiler")) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: name, producer and compiler must be strings");
        goto fail;
    }
    out->name = dup_or_empty(wg_json_str(wg_json_get(j, "name")));
    out->producer = dup_or_empty(wg_json_str(wg_json_get(j, "producer")));
    out->compiler = dup_or_empty(wg_json_str(wg_json_get(j, "compiler")));
    if (!out->name || !out->producer || !out->compiler) {
        st = wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (!opt_int(j, "opset", &out->opset) || !opt_int(j, "arena_bytes", &out->arena_bytes) ||
        !opt_int(j, "weight_bytes", &out->weight_bytes) ||
        !opt_int(j, "memory_bytes", &out->memory_bytes) ||
        !opt_int(j, "weights_base", &out->weights_base)) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT,
                  "metadata: opset, arena_bytes, weight_bytes, memory_bytes and weights_base must "
                  "be non-negative integers");
        goto fail;
    }
    const wg_json *opts = wg_json_get(j, "options");
    out->opt_level = -1;
    if (opts) {
        out->has_options = true;
        const wg_json *simd = wg_json_get(opts, "simd"), *rsimd = wg_json_get(opts, "relaxed_simd");
        if (opts->type != WG_JSON_OBJECT || (simd && !wg_json_bool(simd, &out->simd)) ||
            (rsimd && !wg_json_bool(rsimd, &out->relaxed_simd)) ||
            !opt_int(opts, "opt_level", &out->opt_level)) {
            st = wg_fail(err, errlen, WG_ERR_FORMAT,
                      "metadata: \"options\" must be an object with booleans simd, relaxed_simd "
                      "and an integer opt_level");
            goto fail;
        }
    }
    if (out->abi >= 2 && (st = parse_symbols(j, out, err, errlen)))
        goto fail;
    st = parse_tensors(j, "input", out, &out->inputs, &out->n_inputs, err, errlen);
    if (st)
        goto fail;
    st = parse_tensors(j, "output", out, &out->outputs, &out->n_outputs, err, errlen);
    if (st)
        goto fail;
    for (size_t i = 0; i < out->n_outputs; i++)
        for (int d = 0; d < out->outputs[i].rank; d++)
            out->has_bounded |= out->outputs[i].sym[d] == WG_DIM_BOUNDED;
    for (size_t i = 0; i < out->n_inputs; i++)
        out->has_empty |= out->inputs[i].may_be_empty;
    if (!out->n_outputs) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: the model has no outputs");
        goto fail;
    }
    if ((st = parse_step_weights(j, out, err, errlen)) || (st = parse_profile(j, out, err, errlen)) ||
        (st = wgh_parse_cache_pairs(j, out, err, errlen)))
        goto fail;
    wg_json_free(j);
    return WG_OK;
fail:
    wg_json_free(j);
    wgh_meta_free(out);
    return st;
}

/* The public view of info (wg_model_info), pointing into info->meta. */
static void fill_public(wgh_module_info *info)
{
    const wgh_meta *m = &info->meta;
    info->pub = (wg_model_info){
        .abi = (int)m->abi,
        .name = m->name,
        .producer = m->producer,
        .compiler = m->compiler,
        .opset = m->opset,
        .has_options = m->has_options,
        .simd = m->simd,
        .relaxed_simd = m->relaxed_simd,
        .opt_level = m->opt_level,
        .arena_bytes = m->arena_bytes,
        .weight_bytes = m->weight_bytes,
        .memory_bytes = m->memory_bytes,
        .weights_base = m->weights_base,
        .num_inputs = m->n_inputs,
        .num_outputs = m->n_outputs,
        .inputs = m->inputs,
        .outputs = m->outputs,
        .num_run_steps = m->n_run_steps,
        .step_weights = m->has_step_weights ? m->step_weights : NULL,
        .num_profile_steps = m->n_steps,
        .memory_min_bytes = info->memory_min_bytes,
        .max_threads = (int)m->threads,
        .file_bytes = info->file_bytes,
        .metadata_json = m->json,
        .num_symbols = m->n_symbols,
        .symbols = m->symbols,
        .num_cache_pairs = m->n_cache_pairs,
        .cache_pairs = m->cache_pairs,
    };
}

/* Checks that export name is a function of type (i32 x n_params) -> i32. */
static wg_status check_func_export(const wgh_wasm *w, const char *name, uint32_t n_params,
                                   char *err, size_t errlen)
{
    const wgh_export *e = wgh_wasm_export(w, name);
    if (!e)
        return wg_fail(err, errlen, WG_ERR_ABI, "not a wasmgraph module: no export `%s`", name);
    if (e->kind != WGH_EXT_FUNC)
        return wg_fail(err, errlen, WG_ERR_ABI, "export `%s` is a %s, expected a function", name,
                    wgh_kind_name(e->kind));
    const wgh_functype *t = wgh_wasm_func_type(w, e->index);
    if (!t)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "export `%s` names function %u, which has no type",
                    name, e->index);
    bool ok = t->n_params == n_params && t->n_results == 1 && t->results[0] == 0x7f;
    for (uint32_t k = 0; ok && k < n_params; k++)
        ok = t->params[k] == 0x7f;
    if (!ok) {
        char got[128];
        return wg_fail(err, errlen, WG_ERR_ABI, "export `%s` has type %s, expected %s", name,
                    wgh_functype_str(t, got, sizeof got), n_params ? "(i32) -> (i32)" : "() -> (i32)");
    }
    return WG_OK;
}

wg_status wgh_inspect(const uint8_t *bytes, size_t len, uint64_t memory_limit,
                      wgh_module_info *out, char *err, size_t errlen)
{
    wgh_wasm w;
    memset(out, 0, sizeof *out);
    wg_status st = wgh_wasm_scan(bytes, len, &w, err, errlen);
    if (st)
        return st;
    if (!w.meta) {
        st = wg_fail(err, errlen, WG_ERR_ABI, "not a wasmgraph module: no `wasmgraph` custom section");
        goto fail;
    }
    if (w.n_meta_sections > 1) {
        st = wg_fail(err, errlen, WG_ERR_ABI, "%d `wasmgraph` custom sections, expected one",
                  w.n_meta_sections);
        goto fail;
    }
    st = wgh_meta_parse((const char *)w.meta, w.meta_len, &out->meta, err, errlen);
    if (st)
        goto fail;
    const bool threaded = out->meta.threads > 0;
    if (threaded && (!w.memory_imported || !w.memory_shared || !w.memory_has_max)) {
        st = wg_fail(err, errlen, WG_ERR_ABI,
                     "the metadata says \"threads\" but the module does not import a shared memory with a "
                     "maximum as its only import");
        goto fail;
    }
    if (w.n_imports && !threaded) {
        st = wg_fail(err, errlen, WG_ERR_ABI,
                  "the module imports %s (a %s)%s; wasmgraph modules must have no imports",
                  w.first_import, wgh_kind_name(w.first_import_kind),
                  w.n_imports > 1 ? " and more" : "");
        goto fail;
    }
    const wgh_export *mem = wgh_wasm_export(&w, "memory");
    if (!mem) {
        st = wg_fail(err, errlen, WG_ERR_ABI, "not a wasmgraph module: no export `memory`");
        goto fail;
    }
    if (mem->kind != WGH_EXT_MEMORY || !w.has_memory || mem->index != 0) {
        st = wg_fail(err, errlen, WG_ERR_ABI, "export `memory` is a %s, expected the module's memory",
                  wgh_kind_name(mem->kind));
        goto fail;
    }
    if (w.memory64 || (w.memory_shared && !threaded)) {
        st = wg_fail(err, errlen, WG_ERR_ABI, "the module's memory is %s; ABI v1 needs a plain 32-bit memory",
                  w.memory64 ? "64-bit" : "shared");
        goto fail;
    }
    if ((st = check_func_export(&w, "wg_abi_version", 0, err, errlen)) ||
        (st = check_func_export(&w, "wg_input_ptr", 1, err, errlen)) ||
        (st = check_func_export(&w, "wg_output_ptr", 1, err, errlen)) ||
        (st = check_func_export(&w, "wg_run", 0, err, errlen)) ||
        (out->meta.n_symbols && (st = check_func_export(&w, "wg_dims_ptr", 0, err, errlen))) ||
        (out->meta.has_bounded && (st = check_func_export(&w, "wg_output_dims_ptr", 1, err, errlen))) ||
        (out->meta.has_empty && (st = check_func_export(&w, "wg_input_empty_ptr", 0, err, errlen))) ||
        (out->meta.n_cache_pairs && (st = check_func_export(&w, "wg_cache_mode_ptr", 0, err, errlen))))
        goto fail;
    if (threaded && ((st = check_func_export(&w, "wg_thread_init", 1, err, errlen)) ||
                     (st = check_func_export(&w, "wg_run_begin", 1, err, errlen)) ||
                     (st = check_func_export(&w, "wg_run_thread", 3, err, errlen)) ||
                     (st = check_func_export(&w, "wg_threads_abort", 0, err, errlen))))
        goto fail;
    /* The step exports: required by the metadata that describes them, and of the ABI's
     * type whenever present. */
    static const struct {
        const char *name;
        uint32_t n_params;
        size_t needed_by; /* offsetof the wgh_meta flag that requires it */
    } optional[] = {
        {"wg_run_steps", 0, offsetof(wgh_meta, has_step_weights)},
        {"wg_run_step", 1, offsetof(wgh_meta, has_step_weights)},
        {"wg_profile_steps", 0, offsetof(wgh_meta, has_profile)},
        {"wg_profile_step", 1, offsetof(wgh_meta, has_profile)},
    };
    for (size_t k = 0; k < sizeof optional / sizeof optional[0]; k++) {
        bool needed = *(const bool *)((const char *)&out->meta + optional[k].needed_by);
        if ((needed || wgh_wasm_export(&w, optional[k].name)) &&
            (st = check_func_export(&w, optional[k].name, optional[k].n_params, err, errlen)))
            goto fail;
    }
    if (memory_limit && w.memory_min_bytes > memory_limit) {
        st = wg_fail(err, errlen, WG_ERR_LIMIT,
                  "the module needs %llu bytes of memory, more than the limit of %llu bytes",
                  (unsigned long long)w.memory_min_bytes, (unsigned long long)memory_limit);
        goto fail;
    }
    out->memory_min_bytes = w.memory_min_bytes;
    out->memory_has_max = w.memory_has_max;
    out->memory_max_bytes = w.memory_max_bytes;
    out->file_bytes = len;
    fill_public(out);
    wgh_wasm_free(&w);
    return WG_OK;
fail:
    wgh_wasm_free(&w);
    wgh_meta_free(&out->meta);
    return st;
}

void wgh_module_info_free(wgh_module_info *info)
{
    wgh_meta_free(&info->meta);
    memset(info, 0, sizeof *info);
}
