/* kv_resident.c: runs a decoder (input_ids, optionally attention_mask and position_ids,
 * past_key_values.* -> logits, present.*) step by step in two sessions, one copying each
 * run's presents into the next run's pasts and one with its cache resident in the module
 * (WG_CACHE_RESIDENT, docs/abi.md "Resident KV caches"), feeding both the greedy token of
 * the first, and checks that every step's logits and presents are the same bytes; then that
 * a resident past beyond the compiled range is refused. Used by tests/models.sh (21b).
 *
 *     kv_resident MODEL.wasm STEPS ID,ID,...   ->  "MODEL: N steps identical; ..." or exit 1 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasmgraph.h"

typedef struct feed {
    int ids, mask, pos;
    size_t n_past, past[WG_ABI_MAX_TENSORS], present[WG_ABI_MAX_TENSORS];
} feed;

static int find(const wg_model *m, const char *name, bool out)
{
    const size_t n = out ? wg_model_num_outputs(m) : wg_model_num_inputs(m);
    for (size_t i = 0; i < n; i++)
        if (!strcmp((out ? wg_model_output(m, i) : wg_model_input(m, i))->name, name))
            return (int)i;
    return -1;
}

static void put_row(wg_session *s, const wg_model *m, int i, const int64_t *v, int64_t first, size_t n)
{
    const int64_t dims[2] = {1, (int64_t)n};
    wg_session_set_input_shape(s, (size_t)i, dims, 2);
    for (size_t k = 0; k < n; k++) {
        const int64_t x = v ? v[k] : first + (int64_t)k;
        if (wg_model_input(m, (size_t)i)->dtype == WG_DT_INT64)
            ((int64_t *)wg_session_input(s, (size_t)i))[k] = x;
        else
            ((int32_t *)wg_session_input(s, (size_t)i))[k] = (int32_t)x;
    }
}

/* One run of session s on n tokens after past ones; copy: the presents into the pasts. */
static wg_status step(wg_session *s, const wg_model *m, const feed *f, const int64_t *tok, size_t n, int64_t past,
                      bool copy)
{
    put_row(s, m, f->ids, tok, 0, n);
    if (f->mask >= 0) {
        int64_t *ones = malloc(sizeof *ones * (size_t)(past + (int64_t)n));
        for (int64_t k = 0; k < past + (int64_t)n; k++)
            ones[k] = 1;
        put_row(s, m, f->mask, ones, 0, (size_t)(past + (int64_t)n));
        free(ones);
    }
    if (f->pos >= 0)
        put_row(s, m, f->pos, NULL, past, n);
    for (size_t c = 0; c < f->n_past; c++) {
        const wg_tensor_info *t = wg_model_input(m, f->past[c]);
        int64_t dims[WG_MAX_RANK];
        int rank;
        size_t bytes = 0;
        memcpy(dims, t->dims, sizeof dims);
        dims[0] = 1;
        dims[2] = past;
        if (copy && past)
            wg_session_output_shape(s, f->present[c], dims, &rank, &bytes);
        wg_status st = wg_session_set_input_shape(s, f->past[c], dims, t->rank);
        if (st)
            return st;
        if (copy && bytes)
            memcpy(wg_session_input(s, f->past[c]), wg_session_output(s, f->present[c]), bytes);
    }
    return wg_session_run(s);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: kv_resident MODEL.wasm STEPS ID,ID,...\n");
        return 2;
    }
    int64_t prompt[256];
    size_t n_prompt = 0;
    for (char *p = argv[3]; *p && n_prompt < 256; p += *p == ',')
        prompt[n_prompt++] = strtoll(p, &p, 10);
    const int steps = atoi(argv[2]);
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *a = NULL, *b = NULL;
    int rc = 1;
    if (wg_runtime_new(NULL, &rt) || wg_model_load(rt, argv[1], &m) || wg_session_new(m, &a) ||
        wg_session_new(m, &b) || wg_session_set_cache_mode(b, WG_CACHE_RESIDENT)) {
        fprintf(stderr, "kv_resident: %s\n", rt ? wg_last_error(rt) : "no runtime");
        goto done;
    }
    feed f = {.ids = find(m, "input_ids", false), .mask = find(m, "attention_mask", false),
              .pos = find(m, "position_ids", false)};
    const wg_model_info *info = wg_model_get_info(m);
    for (size_t k = 0; k < info->num_cache_pairs; k++) {
        f.past[f.n_past] = info->cache_pairs[k].past;
        f.present[f.n_past++] = info->cache_pairs[k].present;
    }
    const int logits = find(m, "logits", true);
    if (f.ids < 0 || logits < 0 || !f.n_past || f.n_past + 1 + (f.mask >= 0) + (f.pos >= 0) != wg_model_num_inputs(m)) {
        fprintf(stderr, "kv_resident: %s: not a decoder whose every past is a cache pair\n", argv[1]);
        goto done;
    }
    int64_t past = 0, tok = 0;
    for (int k = 0; k < steps; k++) {
        const int64_t *t = k ? &tok : prompt;
        const size_t n = k ? 1 : n_prompt;
        if (step(a, m, &f, t, n, past, true) || step(b, m, &f, t, n, past, false)) {
            fprintf(stderr, "kv_resident: step %d: %s\n", k, wg_last_error(rt));
            goto done;
        }
        int64_t dims[WG_MAX_RANK];
        int rank;
        size_t bytes;
        wg_session_output_shape(a, (size_t)logits, dims, &rank, &bytes);
        if (memcmp(wg_session_output(a, (size_t)logits), wg_session_output(b, (size_t)logits), bytes)) {
            fprintf(stderr, "kv_resident: %s: step %d (past %lld): the resident logits differ\n", argv[1], k,
                    (long long)past);
            goto done;
        }
        for (size_t c = 0; c < f.n_past; c++) {
            wg_session_output_shape(a, f.present[c], dims, &rank, &bytes);
            if (memcmp(wg_session_output(a, f.present[c]), wg_session_output(b, f.present[c]), bytes)) {
                fprintf(stderr, "kv_resident: %s: step %d: the resident present %zu differs\n", argv[1], k, c);
                goto done;
            }
        }
        const size_t vocab = (size_t)wg_model_output(m, (size_t)logits)->dims[2];
        wg_session_output_shape(a, (size_t)logits, dims, &rank, NULL);
        const float *row = (const float *)wg_session_output(a, (size_t)logits) + (size_t)(dims[1] - 1) * vocab;
        size_t best = 0;
        for (size_t v = 1; v < vocab; v++)
            best = row[v] > row[best] ? v : best;
        past += (int64_t)n;
        tok = (int64_t)best;
    }
    /* a past beyond the compiled range: refused, naming the symbol */
    int64_t beyond = -1;
    for (size_t k = 0; k < info->num_symbols; k++)
        if (wg_model_input(m, f.past[0])->sym[2] == (int)k)
            beyond = info->symbols[k].max + 1;
    const wg_status st = step(b, m, &f, &tok, 1, beyond, false);
    printf("%s: %d steps, logits and presents identical in both modes; a past of %lld: %s\n", argv[1], steps,
           (long long)beyond, st == WG_ERR_INVALID ? wg_last_error(rt) : "NOT REFUSED");
    rc = st == WG_ERR_INVALID ? 0 : 1;
done:
    wg_session_free(a);
    wg_session_free(b);
    wg_model_free(m);
    wg_runtime_free(rt);
    return rc;
}
