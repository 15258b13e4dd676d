/* cmd_generate.c: `wasmgraph generate`: token ids from a decoder module with a KV cache
 * (wg_session_generate, docs/generate.md), streamed to stdout as they are chosen; the
 * timing of the prompt's run and of the decode steps on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/json.h"
#include "wasmgraph.h"

static const char usage[] =
    "wasmgraph generate MODEL.wasm --prompt-ids ID,ID,... [--max-new-tokens 20]\n"
    "                       [--greedy | --temperature T [--top-k K] [--top-p P] [--seed S]]\n"
    "                       [--stop-ids ID,...] [--warmup] [--time-limit-ms N] [--memory-limit-mb N] [--threads N]\n"
    "  MODEL.wasm: a decoder compiled with --dim ranges for its sequence and past lengths\n"
    "  (input_ids, attention_mask, position_ids, past_key_values.* -> logits, present.*).\n"
    "  Prints the new ids as they come, one line; the prompt's run and the per-token time\n"
    "  of the decode steps go to stderr. --warmup first generates 2 tokens from the same prompt,\n"
    "  untimed, so that the timing leaves out a session's first-run costs (bench/generate).";

/* A comma-separated list of non-negative integers into a new array. */
static int64_t *parse_ids(const char *s, size_t *n)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int64_t *ids = malloc(cap * sizeof *ids);
    *n = 0;
    if (!ids)
        return NULL;
    for (const char *p = s;;) {
        uint64_t v;
        char num[32];
        size_t len = strcspn(p, ",");
        if (!len || len >= sizeof num)
            break;
        memcpy(num, p, len);
        num[len] = 0;
        if (!wg_cli_parse_u64(num, 0, INT64_MAX, &v))
            break;
        ids[(*n)++] = (int64_t)v;
        if (!p[len])
            return ids;
        p += len + 1;
    }
    free(ids);
    return NULL;
}

static bool parse_real(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

typedef struct stream {
    double t_last, prefill_ms, *lat;
    size_t n;
} stream;

static bool print_token(int64_t token, void *user)
{
    stream *st = user;
    const double now = wg_cli_now_ms();
    if (st->n == 0)
        st->prefill_ms = now - st->t_last;
    else
        st->lat[st->n - 1] = now - st->t_last;
    st->n++;
    printf(st->n > 1 ? " %lld" : "%lld", (long long)token);
    fflush(stdout);
    st->t_last = wg_cli_now_ms(); /* the next step's time starts after the printing */
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A module compiled from a model folder keeps its generation defaults (metadata
 * "generation"): its eos ids stop generation unless --stop-ids says otherwise, and the
 * prompt and new tokens must fit its max_length (fewer new tokens are made). 0, or 1
 * after a message. */
static int generation_defaults(const wg_model *m, wg_generate_options *g, int64_t **stops, size_t n_prompt)
{
    const char *text = wg_model_metadata_json(m);
    char err[128];
    wg_json *meta = text ? wg_json_parse(text, strlen(text), err, sizeof err) : NULL;
    const wg_json *gen = wg_json_get(meta, "generation"), *eos = wg_json_get(gen, "eos_token_id");
    int64_t max_length, v;
    int rc = 0;
    if (eos && eos->type == WG_JSON_ARRAY && !*stops && eos->n && (*stops = calloc(eos->n, sizeof **stops))) {
        for (size_t k = 0; k < eos->n; k++)
            if (wg_json_int(wg_json_at(eos, k), &v))
                (*stops)[g->n_stop_ids++] = v;
        g->stop_ids = *stops;
    }
    if (wg_json_int(wg_json_get(gen, "max_length"), &max_length)) {
        if ((int64_t)n_prompt >= max_length)
            rc = wg_cli_fail("the prompt's %zu tokens leave no room in the model's max_length %lld", n_prompt,
                             (long long)max_length);
        else if ((int64_t)n_prompt + g->max_new_tokens > max_length)
            g->max_new_tokens = (int)(max_length - (int64_t)n_prompt);
    }
    wg_json_free(meta);
    return rc;
}

int wg_cmd_generate(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    const char *model = NULL;
    wg_runtime_options opts = {0};
    wg_generate_options g = {.max_new_tokens = 20};
    int64_t *prompt = NULL, *stops = NULL;
    size_t n_prompt = 0;
    bool greedy = false, sampling = false, warmup = false;
    int rc = 1;
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *s = NULL;
    stream st = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t u;
        double r;
        if (!strcmp(a, "--prompt-ids")) {
            free(prompt);
            if (!val || !(prompt = parse_ids(val, &n_prompt))) {
                rc = wg_cli_usage(usage, "--prompt-ids needs token ids separated by commas (1,15043,3186)");
                goto done;
            }
            i++;
        } else if (!strcmp(a, "--stop-ids")) {
            free(stops);
            if (!val || !(stops = parse_ids(val, &g.n_stop_ids))) {
                rc = wg_cli_usage(usage, "--stop-ids needs token ids separated by commas");
                goto done;
            }
            g.stop_ids = stops;
            i++;
        } else if (!strcmp(a, "--max-new-tokens") || !strcmp(a, "--top-k") || !strcmp(a, "--seed")) {
            const bool seed = !strcmp(a, "--seed");
            if (!val || !wg_cli_parse_u64(val, 0, seed ? UINT64_MAX : 1000000, &u)) {
                rc = wg_cli_usage(usage, "%s needs an integer from 0 to %s", a, seed ? "2^64 - 1" : "1000000");
                goto done;
            }
            if (seed)
                g.seed = u;
            else if (!strcmp(a, "--top-k"))
                g.top_k = (int)u;
            else
                g.max_new_tokens = (int)u;
            sampling |= !strcmp(a, "--top-k") || seed;
            i++;
        } else if (!strcmp(a, "--temperature") || !strcmp(a, "--top-p")) {
            const bool temp = !strcmp(a, "--temperature");
            if (!parse_real(val, temp ? 0 : 0, temp ? 100 : 1, &r)) {
                rc = wg_cli_usage(usage, "%s needs a number from 0 to %s", a, temp ? "100" : "1");
                goto done;
            }
            if (temp)
                g.temperature = r;
            else
                g.top_p = r;
            sampling = true;
            i++;
        } else if (!strcmp(a, "--greedy")) {
            greedy = true;
        } else if (!strcmp(a, "--warmup")) {
            warmup = true;
        } else if (wg_cli_other_arg(usage, argc, argv, &i, &model, &opts, NULL)) {
            rc = 2;
            goto done;
        }
    }
    if (!model || !prompt) {
        rc = wg_cli_usage(usage, model ? "no --prompt-ids given" : "no model given");
        goto done;
    }
    if (greedy && sampling) {
        rc = wg_cli_usage(usage, "--greedy takes no --temperature, --top-k, --top-p or --seed");
        goto done;
    }
    if (sampling && !(g.temperature > 0)) {
        rc = wg_cli_usage(usage, "sampling (--top-k, --top-p, --seed) needs a --temperature above 0");
        goto done;
    }
    wg_status status = wg_runtime_new(&opts, &rt);
    if (status) {
        rc = wg_cli_fail("cannot start the wasm engine: %s", wg_status_str(status));
        goto done;
    }
    if (wg_model_load(rt, model, &m) || wg_session_new(m, &s)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (wg_cli_check_threads(model, &opts, s))
        goto done;
    if (generation_defaults(m, &g, &stops, n_prompt))
        goto done;
    st.lat = malloc(((size_t)g.max_new_tokens + 1) * sizeof *st.lat);
    if (!st.lat) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    if (warmup) {
        wg_generate_options w = g;
        w.max_new_tokens = g.max_new_tokens < 2 ? g.max_new_tokens : 2;
        if (wg_session_generate(s, prompt, n_prompt, &w, NULL, NULL)) {
            rc = wg_cli_fail("%s", wg_last_error(rt));
            goto done;
        }
    }
    st.t_last = wg_cli_now_ms();
    status = wg_session_generate(s, prompt, n_prompt, &g, print_token, &st);
    if (st.n)
        printf("\n");
    if (status) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (st.n) {
        fprintf(stderr, "prompt: %zu tokens in %.2f ms", n_prompt, st.prefill_ms);
        if (st.n > 1) {
            qsort(st.lat, st.n - 1, sizeof *st.lat, cmp_double);
            const double med = st.lat[(st.n - 1) / 2];
            fprintf(stderr, "; decode: %zu tokens, median %.2f ms/token (%.1f tokens/s)", st.n - 1, med, 1000.0 / med);
        }
        fprintf(stderr, "\n");
    }
    rc = 0;
done:
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
    free(st.lat);
    free(prompt);
    free(stops);
    return rc;
}
