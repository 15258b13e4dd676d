/* cmd_generate.c: `wasmgraph generate`: token ids from a decoder module with a KV cache,
 * or from an encoder-decoder's (Whisper: an encoder run once over log-mel features, then
 * its merged decoder) (wg_session_generate, docs/generate.md), streamed to stdout as they
 * are chosen; the timing of the prompt's run and of the decode steps on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/json.h"
#include "wasmgraph.h"

static const char usage[] =
    "wasmgraph generate MODEL.wasm --prompt-ids ID,ID,... [--max-new-tokens 20]\n"
    "                       [--greedy | --temperature T [--top-k K] [--top-p P] [--seed S]]\n"
    "                       [--stop-ids ID,...] [--warmup] [--copy-cache] [--time-limit-ms N] [--memory-limit-mb N]\n"
    "                       [--threads N]\n"
    "wasmgraph generate DECODER.wasm [--encoder ENCODER.wasm] --input-features FILE(.npy|.pb)\n"
    "                       [--forced-ids ID,...] [the options above but --prompt-ids]\n"
    "  MODEL.wasm: a decoder compiled with --dim ranges for its sequence and past lengths\n"
    "  (input_ids, attention_mask, position_ids, past_key_values.* -> logits, present.*).\n"
    "  DECODER.wasm: an encoder-decoder's merged decoder (Whisper's decoder_model_merged):\n"
    "  ENCODER.wasm runs once on FILE (log-mel features, [1, 80, 3000] for Whisper), then the\n"
    "  decoder from --forced-ids (decoder_start_token_id, then the forced language, task and\n"
    "  no-timestamps ids, e.g. 50258,50259,50359,50363). A pair compiled from a model folder\n"
    "  (compile DIR) needs neither --encoder nor --forced-ids: the decoder names its encoder\n"
    "  and keeps the folder's forced ids.\n"
    "  Prints the new ids as they come, one line; the prompt's run and the per-token time\n"
    "  of the decode steps go to stderr. --warmup first generates 2 tokens from the same prompt,\n"
    "  untimed, so that the timing leaves out a session's first-run costs (bench/generate).\n"
    "  A module that keeps its KV cache (docs/abi.md \"Resident KV caches\") runs with it resident;\n"
    "  --copy-cache copies each run's presents into the next run's pasts instead.";

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

/* An array of integers of a JSON value into a new array (*n of them); NULL when absent. */
static int64_t *json_ids(const wg_json *a, size_t *n)
{
    int64_t v, *ids = a && a->type == WG_JSON_ARRAY && a->n ? calloc(a->n, sizeof *ids) : NULL;
    *n = 0;
    for (size_t k = 0; ids && k < a->n; k++)
        if (wg_json_int(wg_json_at(a, k), &v))
            ids[(*n)++] = v;
    return ids;
}

typedef struct gen_args {
    const char *model, *encoder, *features;
    char encoder_path[4200]; /* the encoder the decoder's metadata names, beside it */
    wg_runtime_options opts;
    wg_generate_options g;
    int64_t *prompt, *stops, *forced;
    size_t n_prompt, n_forced;
    bool greedy, sampling, warmup;
} gen_args;

/* A module compiled from a model folder keeps its generation defaults (metadata
 * "generation"): its eos ids stop generation unless --stop-ids says otherwise, the prompt
 * and new tokens must fit its max_length (fewer new tokens are made), and an
 * encoder-decoder's decoder names its encoder (a file beside it) and keeps its forced ids.
 * 0, or 1 after a message. */
static int generation_defaults(const wg_model *m, gen_args *a)
{
    const char *text = wg_model_metadata_json(m);
    char err[128];
    wg_json *meta = text ? wg_json_parse(text, strlen(text), err, sizeof err) : NULL;
    const wg_json *gen = wg_json_get(meta, "generation");
    const char *enc = wg_json_str(wg_json_get(gen, "encoder"));
    int64_t max_length;
    int rc = 0;
    if (!a->stops && (a->stops = json_ids(wg_json_get(gen, "eos_token_id"), &a->g.n_stop_ids)))
        a->g.stop_ids = a->stops;
    if (!a->forced && !a->prompt)
        a->forced = json_ids(wg_json_get(gen, "forced_ids"), &a->n_forced);
    if (!a->encoder && enc && !strchr(enc, '/')) {
        const char *slash = strrchr(a->model, '/');
        snprintf(a->encoder_path, sizeof a->encoder_path, "%.*s%s", slash ? (int)(slash - a->model + 1) : 0, a->model,
                 enc);
        a->encoder = a->encoder_path;
    }
    const size_t n_prompt = a->prompt ? a->n_prompt : a->n_forced;
    if (wg_json_int(wg_json_get(gen, "max_length"), &max_length)) {
        if ((int64_t)n_prompt >= max_length)
            rc = wg_cli_fail("the prompt's %zu tokens leave no room in the model's max_length %lld", n_prompt,
                             (long long)max_length);
        else if ((int64_t)n_prompt + a->g.max_new_tokens > max_length)
            a->g.max_new_tokens = (int)(max_length - (int64_t)n_prompt);
    }
    wg_json_free(meta);
    return rc;
}

/* The options; 0, or 2 after a usage message. */
static int parse_args(int argc, char **argv, gen_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t u;
        double r;
        if (!strcmp(s, "--prompt-ids") || !strcmp(s, "--stop-ids") || !strcmp(s, "--forced-ids")) {
            int64_t **ids = s[2] == 'p' ? &a->prompt : s[2] == 's' ? &a->stops : &a->forced;
            size_t *n = s[2] == 'p' ? &a->n_prompt : s[2] == 's' ? &a->g.n_stop_ids : &a->n_forced;
            free(*ids);
            if (!val || !(*ids = parse_ids(val, n)))
                return wg_cli_usage(usage, "%s needs token ids separated by commas (1,15043,3186)", s);
            a->g.stop_ids = a->stops;
            i++;
        } else if (!strcmp(s, "--encoder") || !strcmp(s, "--input-features")) {
            if (!val)
                return wg_cli_usage(usage, "%s needs a file", s);
            *(s[2] == 'e' ? &a->encoder : &a->features) = val;
            i++;
        } else if (!strcmp(s, "--max-new-tokens") || !strcmp(s, "--top-k") || !strcmp(s, "--seed")) {
            const bool seed = !strcmp(s, "--seed");
            if (!val || !wg_cli_parse_u64(val, 0, seed ? UINT64_MAX : 1000000, &u))
                return wg_cli_usage(usage, "%s needs an integer from 0 to %s", s, seed ? "2^64 - 1" : "1000000");
            if (seed)
                a->g.seed = u;
            else if (!strcmp(s, "--top-k"))
                a->g.top_k = (int)u;
            else
                a->g.max_new_tokens = (int)u;
            a->sampling |= !strcmp(s, "--top-k") || seed;
            i++;
        } else if (!strcmp(s, "--temperature") || !strcmp(s, "--top-p")) {
            const bool temp = !strcmp(s, "--temperature");
            if (!parse_real(val, 0, temp ? 100 : 1, &r))
                return wg_cli_usage(usage, "%s needs a number from 0 to %s", s, temp ? "100" : "1");
            *(temp ? &a->g.temperature : &a->g.top_p) = r;
            a->sampling = true;
            i++;
        } else if (!strcmp(s, "--greedy")) {
            a->greedy = true;
        } else if (!strcmp(s, "--warmup")) {
            a->warmup = true;
        } else if (!strcmp(s, "--copy-cache")) {
            a->g.copy_cache = true;
        } else if (wg_cli_other_arg(usage, argc, argv, &i, &a->model, &a->opts, NULL)) {
            return 2;
        }
    }
    const bool seq2seq = a->encoder || a->features || a->forced;
    if (!a->model)
        return wg_cli_usage(usage, "no model given");
    if (seq2seq && a->prompt)
        return wg_cli_usage(usage, "an encoder-decoder's decoder starts from --forced-ids, not --prompt-ids");
    if (!seq2seq && !a->prompt)
        return wg_cli_usage(usage, "no --prompt-ids given (or, for an encoder-decoder, --input-features)");
    if (a->greedy && a->sampling)
        return wg_cli_usage(usage, "--greedy takes no --temperature, --top-k, --top-p or --seed");
    if (a->sampling && !(a->g.temperature > 0))
        return wg_cli_usage(usage, "sampling (--top-k, --top-p, --seed) needs a --temperature above 0");
    return 0;
}

static bool has_input(const wg_model *m, const char *name)
{
    for (size_t i = 0; i < wg_model_num_inputs(m); i++)
        if (!strcmp(wg_model_input(m, i)->name, name))
            return true;
    return false;
}

/* An encoder-decoder's encoder (a.encoder) loaded on rt with its input read from
 * a.features into a session, *em and *es; 0, or 1 after a message. */
static int open_encoder(wg_runtime *rt, gen_args *a, const wg_model *dec, wg_model **em, wg_session **es)
{
    if (!has_input(dec, "encoder_hidden_states"))
        return wg_cli_fail("%s: input 'encoder_hidden_states' missing: --encoder, --input-features and --forced-ids need an encoder-decoder's merged "
                           "decoder (decoder_model_merged*.onnx)", a->model);
    if (!a->encoder)
        return wg_cli_fail("%s is an encoder-decoder's decoder: give its encoder (--encoder ENCODER.wasm)", a->model);
    if (!a->features)
        return wg_cli_fail("%s is an encoder-decoder's decoder: give the encoder's input (--input-features "
                           "FILE.npy or .pb: log-mel features, [1, 80, 3000] for Whisper)", a->model);
    if (!a->forced)
        return wg_cli_fail("%s keeps no forced ids (compile it from its model folder): give the decoder's first "
                           "tokens with --forced-ids (Whisper: 50258,50259,50359,50363)", a->model);
    if (wg_model_load(rt, a->encoder, em) || wg_session_new(*em, es)) {
        if (a->encoder == a->encoder_path) /* named by the decoder's metadata */
            return wg_cli_fail("%s names its encoder %s: %s (or give one with --encoder)", a->model, a->encoder,
                               wg_last_error(rt));
        return wg_cli_fail("--encoder: %s", wg_last_error(rt));
    }
    if (wg_model_num_inputs(*em) != 1)
        return wg_cli_fail("%s: the encoder has %zu inputs; generate feeds one (input_features)", a->encoder,
                           wg_model_num_inputs(*em));
    const char *spec = a->features;
    if (wg_cli_load_inputs(*em, *es, &spec, 1, NULL))
        return 1; /* the message names the encoder, its input and the file */
    a->g.encoder = *es;
    a->prompt = a->forced;
    a->n_prompt = a->n_forced;
    a->forced = NULL;
    return 0;
}

/* Generates with the times on stderr; 0, or 1 after a message. */
static int run_timed(wg_session *s, gen_args *a)
{
    stream st = {.lat = malloc(((size_t)a->g.max_new_tokens + 1) * sizeof *st.lat)};
    wg_runtime *rt = wg_session_runtime(s);
    int rc = 1;
    if (!st.lat) {
        wg_cli_fail("out of memory");
        goto done;
    }
    if (a->warmup) {
        wg_generate_options w = a->g;
        w.max_new_tokens = a->g.max_new_tokens < 2 ? a->g.max_new_tokens : 2;
        if (wg_session_generate(s, a->prompt, a->n_prompt, &w, NULL, NULL)) {
            wg_cli_fail("%s", wg_last_error(rt));
            goto done;
        }
    }
    st.t_last = wg_cli_now_ms();
    const wg_status status = wg_session_generate(s, a->prompt, a->n_prompt, &a->g, print_token, &st);
    if (st.n)
        printf("\n");
    if (status) {
        wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (st.n) {
        fprintf(stderr, "%s: %zu tokens in %.2f ms", a->g.encoder ? "encoder and prompt" : "prompt", a->n_prompt,
                st.prefill_ms);
        if (st.n > 1) {
            qsort(st.lat, st.n - 1, sizeof *st.lat, cmp_double);
            const double med = st.lat[(st.n - 1) / 2];
            fprintf(stderr, "; decode: %zu tokens, median %.2f ms/token (%.1f tokens/s)", st.n - 1, med, 1000.0 / med);
        }
        fprintf(stderr, "\n");
    }
    rc = 0;
done:
    free(st.lat);
    return rc;
}

int wg_cmd_generate(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    gen_args a = {.g = {.max_new_tokens = 20}};
    int rc = parse_args(argc, argv, &a);
    wg_runtime *rt = NULL;
    wg_model *m = NULL, *em = NULL;
    wg_session *s = NULL, *es = NULL;
    if (rc)
        goto done;
    rc = 1;
    wg_status status = wg_runtime_new(&a.opts, &rt);
    if (status) {
        wg_cli_fail("cannot start the wasm engine: %s", wg_status_str(status));
        goto done;
    }
    if (wg_model_load(rt, a.model, &m) || wg_session_new(m, &s)) {
        wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (wg_cli_check_threads(a.model, &a.opts, s) || generation_defaults(m, &a))
        goto done;
    if (!a.prompt && open_encoder(rt, &a, m, &em, &es))
        goto done;
    rc = run_timed(s, &a);
done:
    wg_session_free(s);
    wg_model_free(m);
    wg_session_free(es);
    wg_model_free(em);
    wg_runtime_free(rt);
    free(a.prompt);
    free(a.stops);
    free(a.forced);
    return rc;
}
