/*
 * generate.c: text generation with a KV cache on a decoder session (wg_session_generate,
 * docs/generate.md). The decoder is a module compiled from a Hugging Face-style decoder
 * file (optimum-onnx or onnxruntime-genai): inputs input_ids [batch, seq], optionally
 * attention_mask [batch, past + seq] and position_ids [batch, seq], and for every layer
 * past_key_values.<rest> [batch, heads, past, head_dim]; outputs logits [batch, seq or
 * 1, vocab] and present.<rest> for each past input. The first run takes the prompt with an
 * empty past; each later run one token, with the previous run's presents as its pasts.
 *
 * An encoder-decoder (Whisper: wg_generate_options.encoder) runs its encoder once and its
 * merged decoder (optimum-onnx's decoder_model_merged: an If on use_cache_branch) as the
 * loop: inputs encoder_hidden_states [batch, encoder_sequence_length, h] (the encoder's
 * output, every run) and use_cache_branch bool [1] (false on the first run, true after),
 * and for the cross-attention past_key_values.N.encoder.* [batch, heads,
 * encoder_sequence_length, head_dim]: empty on the first run (docs/abi.md "Empty inputs":
 * that run's branch computes them from encoder_hidden_states), the first run's
 * present.N.encoder.* on the second, and left as they are after it (the later runs'
 * branch passes no such presents on).
 *
 * A module that keeps its cache (cache pairs, docs/abi.md "Resident KV caches") runs the
 * loop with it resident unless wg_generate_options.copy_cache: each run gives the pasts'
 * length alone, writes nothing into them and reads no present.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/dtype.h"
#include "host.h"

#define PAST_PREFIX "past_key_values"
#define PRESENT_PREFIX "present"
#define STATES "encoder_hidden_states"
#define BRANCH "use_cache_branch"

/* Where each of the decoder's values is: input and output indices (-1: absent). */
typedef struct decoder {
    int ids, mask, pos, logits;
    int states, branch;  /* an encoder-decoder's encoder_hidden_states and use_cache_branch */
    size_t n_cache;
    int *past, *present; /* n_cache pairs */
    int *cache_axis;     /* the axis of each past input that grows (or, cross, the encoder's) */
    bool *cross;         /* a past of the encoder's keys and values (past_key_values.N.encoder.*) */
    bool resident;       /* the module keeps every pair's cache: the pasts are given by length alone */
    int64_t states_dims[WG_MAX_RANK]; /* the encoder's output, fed as encoder_hidden_states */
    int states_rank;
} decoder;

static void decoder_free(decoder *d)
{
    free(d->past);
    free(d->present);
    free(d->cache_axis);
    free(d->cross);
}

static int find_output(const wg_model *m, const char *name)
{
    for (size_t j = 0; j < wg_model_num_outputs(m); j++)
        if (!strcmp(wg_model_output(m, j)->name, name))
            return (int)j;
    return -1;
}

static bool is_int_index(wg_dtype t) { return t == WG_DT_INT64 || t == WG_DT_INT32; }

/* The growing axis of a past input: its symbolic dim after the batch (dim 0). */
static int cache_axis_of(const wg_tensor_info *t)
{
    for (int d = 1; d < t->rank; d++)
        if (t->sym[d] >= 0)
            return d;
    return -1;
}

/* Binds the model's inputs and outputs by name, refusing what the loop cannot feed; with
 * an encoder (seq2seq), the inputs of a merged decoder too, and refuses a decoder without
 * them. */
static wg_status bind_decoder(wg_runtime *rt, const wg_model *m, bool seq2seq, decoder *d)
{
    const size_t n_in = wg_model_num_inputs(m);
    *d = (decoder){.ids = -1, .mask = -1, .pos = -1, .logits = find_output(m, "logits"), .states = -1, .branch = -1};
    d->past = calloc(n_in + 1, sizeof *d->past);
    d->present = calloc(n_in + 1, sizeof *d->present);
    d->cache_axis = calloc(n_in + 1, sizeof *d->cache_axis);
    d->cross = calloc(n_in + 1, sizeof *d->cross);
    if (!d->past || !d->present || !d->cache_axis || !d->cross)
        return wgh_error(rt, WG_ERR_NOMEM, "generate: out of memory");
    if (d->logits < 0)
        return wgh_error(rt, WG_ERR_INVALID, "generate: the model has no output 'logits'");
    const wg_tensor_info *lt = wg_model_output(m, (size_t)d->logits);
    if (lt->rank != 3 || (lt->dtype != WG_DT_FLOAT && lt->dtype != WG_DT_FLOAT16))
        return wgh_error(rt, WG_ERR_INVALID, "generate: output 'logits' is not a float32 or float16 [batch, seq, vocab]");
    for (size_t i = 0; i < n_in; i++) {
        const wg_tensor_info *t = wg_model_input(m, i);
        const bool index2 = is_int_index(t->dtype) && t->rank == 2;
        if (!strcmp(t->name, "input_ids") && index2) {
            d->ids = (int)i;
        } else if (!strcmp(t->name, "attention_mask") && index2) {
            d->mask = (int)i;
        } else if (!strcmp(t->name, "position_ids") && index2) {
            d->pos = (int)i;
        } else if (seq2seq && !strcmp(t->name, STATES) && t->rank == 3) {
            d->states = (int)i;
        } else if (seq2seq && !strcmp(t->name, BRANCH) && t->dtype == WG_DT_BOOL && t->rank == 1 && t->dims[0] == 1) {
            d->branch = (int)i;
        } else if (!strncmp(t->name, PAST_PREFIX, strlen(PAST_PREFIX))) {
            char out[512];
            snprintf(out, sizeof out, "%s%s", PRESENT_PREFIX, t->name + strlen(PAST_PREFIX));
            const int o = find_output(m, out);
            const int axis = cache_axis_of(t);
            if (o < 0)
                return wgh_error(rt, WG_ERR_INVALID, "generate: input '%s' has no output '%s' to feed it", t->name, out);
            if (axis < 0)
                return wgh_error(rt, WG_ERR_INVALID,
                                 "generate: input '%s' has no symbolic length (compile with --dim "
                                 "past_sequence_length=0..N)", t->name);
            d->past[d->n_cache] = (int)i;
            d->present[d->n_cache] = o;
            d->cross[d->n_cache] = seq2seq && strstr(t->name, ".encoder.");
            d->cache_axis[d->n_cache++] = axis;
        } else if (!seq2seq && (!strcmp(t->name, STATES) || !strcmp(t->name, BRANCH))) {
            return wgh_error(rt, WG_ERR_INVALID,
                             "generate: input '%s' is an encoder-decoder's (a merged decoder): give its encoder "
                             "(--encoder ENCODER.wasm --input-features FILE)", t->name);
        } else {
            return wgh_error(rt, WG_ERR_INVALID,
                             "generate: input '%s' is none a %s loop feeds (input_ids, attention_mask, "
                             "position_ids, " PAST_PREFIX ".*%s)", t->name, seq2seq ? "merged decoder" : "decoder",
                             seq2seq ? ", " STATES ", " BRANCH : "");
        }
    }
    if (d->ids < 0)
        return wgh_error(rt, WG_ERR_INVALID, "generate: the model has no input 'input_ids' of int64 or int32 [batch, seq]");
    if (seq2seq && (d->states < 0 || d->branch < 0))
        return wgh_error(rt, WG_ERR_INVALID,
                         "generate: the decoder has no input '%s': an encoder's decoder must be the merged one "
                         "(decoder_model_merged*.onnx: " STATES " [batch, encoder_sequence_length, h], "
                         BRANCH " bool [1], " PAST_PREFIX ".*)", d->states < 0 ? STATES : BRANCH);
    return WG_OK;
}

/* Runs the encoder on the inputs its caller wrote and checks that its one output (or
 * last_hidden_state) fits the decoder's encoder_hidden_states; notes its shape in d. */
static wg_status run_encoder(wg_session *s, wg_session *enc, decoder *d)
{
    wg_runtime *rt = s->m->rt;
    const wg_model *em = enc->m;
    int o = find_output(em, "last_hidden_state");
    if (o < 0 && wg_model_num_outputs(em) == 1)
        o = 0;
    if (o < 0)
        return wgh_error(rt, WG_ERR_INVALID, "generate: the encoder %s has no output 'last_hidden_state'", em->name);
    const wg_tensor_info *out = wg_model_output(em, (size_t)o), *in = wg_model_input(s->m, (size_t)d->states);
    if (out->dtype != in->dtype || out->rank != in->rank)
        return wgh_error(rt, WG_ERR_INVALID,
                         "generate: the encoder's output '%s' (%s, rank %d) is not the decoder's input '" STATES
                         "' (%s, rank %d)", out->name, wg_dtype_name(out->dtype), out->rank, wg_dtype_name(in->dtype),
                         in->rank);
    wg_status st = wg_session_run(enc);
    if (st) {
        char why[sizeof rt->err];
        snprintf(why, sizeof why, "%s", wg_last_error(enc->m->rt));
        return wgh_error(rt, st, "generate: the encoder: %s", why);
    }
    size_t bytes;
    st = wg_session_output_shape(enc, (size_t)o, d->states_dims, &d->states_rank, &bytes);
    if (!st)
        st = wg_session_set_input_shape(s, (size_t)d->states, d->states_dims, d->states_rank);
    if (st) {
        char why[sizeof rt->err];
        snprintf(why, sizeof why, "%s", rt->err);
        return wgh_error(rt, st, "generate: the encoder's output '%s' as the decoder's '" STATES "': %s", out->name,
                         why);
    }
    memcpy(wg_session_input(s, (size_t)d->states), wg_session_output(enc, (size_t)o), bytes);
    return WG_OK;
}

static void put_index(wg_dtype t, void *dst, size_t i, int64_t v)
{
    if (t == WG_DT_INT64)
        ((int64_t *)dst)[i] = v;
    else
        ((int32_t *)dst)[i] = (int32_t)v;
}

/* Writes input i as [1, n] holding first + k at k (step 0: values[k] when values given). */
static wg_status put_row(wg_session *s, int i, const int64_t *values, int64_t first, size_t n)
{
    const wg_tensor_info *t = wg_model_input(s->m, (size_t)i);
    const int64_t dims[2] = {1, (int64_t)n};
    wg_status st = wg_session_set_input_shape(s, (size_t)i, dims, 2);
    if (st)
        return st;
    void *p = wg_session_input(s, (size_t)i);
    for (size_t k = 0; k < n; k++)
        put_index(t->dtype, p, k, values ? values[k] : first + (int64_t)k);
    return WG_OK;
}

/* Feeds run `step` (0: the first): tokens (n of them) at positions past .. past + n - 1;
 * the caches hold past positions (the first run: empty ones). An encoder-decoder's cross
 * pasts are empty on the first run, the first run's presents on the second, and stay. */
static wg_status feed(wg_session *s, const decoder *d, const int64_t *tokens, size_t n, int64_t past, int step)
{
    wg_status st = put_row(s, d->ids, tokens, 0, n);
    if (!st && d->mask >= 0) {
        const wg_tensor_info *t = wg_model_input(s->m, (size_t)d->mask);
        const int64_t dims[2] = {1, past + (int64_t)n};
        st = wg_session_set_input_shape(s, (size_t)d->mask, dims, 2);
        for (int64_t k = 0; !st && k < dims[1]; k++)
            put_index(t->dtype, wg_session_input(s, (size_t)d->mask), (size_t)k, 1);
    }
    if (!st && d->pos >= 0)
        st = put_row(s, d->pos, NULL, past, n);
    if (!st && d->branch >= 0)
        *(uint8_t *)wg_session_input(s, (size_t)d->branch) = step > 0;
    if (!st && d->states >= 0) /* written once by run_encoder; its shape every run */
        st = wg_session_set_input_shape(s, (size_t)d->states, d->states_dims, d->states_rank);
    for (size_t c = 0; !st && c < d->n_cache; c++) {
        const size_t i = (size_t)d->past[c], o = (size_t)d->present[c];
        if (step == 0 || (d->cross[c] && step > 1)) {
            const wg_tensor_info *t = wg_model_input(s->m, i);
            int64_t dims[WG_MAX_RANK];
            memcpy(dims, t->dims, sizeof dims);
            dims[0] = 1;
            dims[d->cache_axis[c]] = step == 0 ? 0 : d->states_dims[1];
            st = wg_session_set_input_shape(s, i, dims, t->rank);
            continue;
        }
        /* the previous run's present is this run's past (both pinned in memory, apart);
         * resident, the module has its rows: the past's shape alone */
        int64_t dims[WG_MAX_RANK];
        int rank;
        size_t bytes;
        st = wg_session_output_shape(s, o, dims, &rank, &bytes);
        if (!st)
            st = wg_session_set_input_shape(s, i, dims, rank);
        if (!st && !d->resident)
            memcpy(wg_session_input(s, i), wg_session_output(s, o), bytes);
    }
    return st;
}

/* Can the loop run with the cache resident: is every cache the loop feeds (none of them an
 * encoder's) one of the module's cache pairs, with the present it feeds back? */
static bool cache_resident(const wg_model *m, const decoder *d)
{
    const wg_model_info *info = wg_model_get_info(m);
    bool all = d->n_cache > 0;
    for (size_t c = 0; all && c < d->n_cache; c++) {
        bool pair = false;
        for (size_t k = 0; k < info->num_cache_pairs && !pair; k++)
            pair = info->cache_pairs[k].past == (size_t)d->past[c] &&
                   info->cache_pairs[k].present == (size_t)d->present[c];
        all = pair && !d->cross[c];
    }
    return all;
}

/* xorshift64*: the same draws for the same seed on every machine. */
static double next_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * UINT64_C(2685821657736338717)) >> 11) / 9007199254740992.0;
}

typedef struct scored {
    double p;
    int64_t id;
} scored;

static int by_prob_desc(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    return x->p > y->p ? -1 : x->p < y->p ? 1 : (x->id > y->id) - (x->id < y->id);
}

/* The next token from one row of logits: the first largest when greedy (temperature 0);
 * otherwise a draw from softmax(logits / temperature), cut to the top_k most likely (0:
 * all), then to the fewest whose probabilities sum to top_p (0 or 1: all). */
static int64_t pick(const float *logit, size_t vocab, const wg_generate_options *o, uint64_t *rng, scored *work)
{
    size_t best = 0;
    for (size_t v = 1; v < vocab; v++)
        if (logit[v] > logit[best])
            best = v;
    if (!(o->temperature > 0))
        return (int64_t)best;
    double sum = 0;
    for (size_t v = 0; v < vocab; v++) {
        work[v].id = (int64_t)v;
        work[v].p = exp(((double)logit[v] - logit[best]) / o->temperature);
        sum += work[v].p;
    }
    qsort(work, vocab, sizeof *work, by_prob_desc);
    size_t keep = o->top_k > 0 && (size_t)o->top_k < vocab ? (size_t)o->top_k : vocab;
    if (o->top_p > 0 && o->top_p < 1) {
        double acc = 0;
        for (size_t k = 0; k < keep; k++) {
            acc += work[k].p / sum;
            if (acc >= o->top_p) {
                keep = k + 1;
                break;
            }
        }
    }
    double kept = 0;
    for (size_t k = 0; k < keep; k++)
        kept += work[k].p;
    double u = next_uniform(rng) * kept;
    for (size_t k = 0; k < keep; k++) {
        u -= work[k].p;
        if (u < 0)
            return work[k].id;
    }
    return work[keep - 1].id;
}

/* The last row of the logits as float32, into row. */
static void last_logits(wg_session *s, const decoder *d, float *row, size_t vocab)
{
    int64_t dims[WG_MAX_RANK];
    int rank;
    wg_session_output_shape(s, (size_t)d->logits, dims, &rank, NULL);
    const size_t at = (size_t)(dims[1] - 1) * vocab;
    const wg_tensor_info *t = wg_model_output(s->m, (size_t)d->logits);
    const void *p = wg_session_output(s, (size_t)d->logits);
    for (size_t v = 0; v < vocab; v++)
        row[v] = t->dtype == WG_DT_FLOAT16 ? wg_f16_to_f32(((const uint16_t *)p)[at + v]) : ((const float *)p)[at + v];
}

static bool is_stop(const wg_generate_options *o, int64_t id)
{
    for (size_t k = 0; k < o->n_stop_ids; k++)
        if (o->stop_ids[k] == id)
            return true;
    return false;
}

wg_status wg_session_generate(wg_session *s, const int64_t *prompt, size_t n_prompt, const wg_generate_options *o,
                              wg_token_callback on_token, void *user)
{
    wg_runtime *rt = s->m->rt;
    if (!prompt || !n_prompt || !o || o->max_new_tokens < 0 || !(o->temperature >= 0) || o->top_k < 0 ||
        !(o->top_p >= 0 && o->top_p <= 1))
        return wgh_error(rt, WG_ERR_INVALID,
                         "generate: needs a prompt of at least one token, max_new_tokens >= 0, temperature >= 0, "
                         "top_k >= 0 and top_p in [0, 1]");
    decoder d;
    wg_status st = bind_decoder(rt, s->m, o->encoder != NULL, &d);
    if (!st && o->encoder)
        st = run_encoder(s, o->encoder, &d);
    const size_t vocab = st ? 0 : (size_t)wg_model_output(s->m, (size_t)d.logits)->dims[2];
    float *row = st ? NULL : malloc(vocab * sizeof *row);
    scored *work = st ? NULL : malloc(vocab * sizeof *work);
    if (!st && (!row || !work))
        st = wgh_error(rt, WG_ERR_NOMEM, "generate: out of memory");
    const wg_cache_mode mode0 = s->cache_mode;
    if (!st && !o->copy_cache && cache_resident(s->m, &d)) {
        d.resident = true; /* the first run (past 0) starts the regions */
        st = wg_session_set_cache_mode(s, WG_CACHE_RESIDENT);
    }
    uint64_t rng = o->seed ? o->seed : UINT64_C(0x9e3779b97f4a7c15);
    int64_t past = 0, token = 0;
    for (int k = 0; !st && k < o->max_new_tokens; k++) {
        const bool first = k == 0;
        st = first ? feed(s, &d, prompt, n_prompt, 0, 0) : feed(s, &d, &token, 1, past, k);
        if (!st)
            st = wg_session_run(s);
        if (st) {
            /* say which step and how long the cache was: a past beyond the compiled range
             * is refused there, naming the symbol and its range */
            char why[sizeof rt->err];
            snprintf(why, sizeof why, "%s", rt->err);
            st = wgh_error(rt, st, "generate: token %d (past %lld): %s", k + 1, (long long)past, why);
            break;
        }
        past += first ? (int64_t)n_prompt : 1;
        last_logits(s, &d, row, vocab);
        token = pick(row, vocab, o, &rng, work);
        if ((on_token && !on_token(token, user)) || is_stop(o, token))
            break;
    }
    s->cache_mode = mode0;
    free(row);
    free(work);
    decoder_free(&d);
    return st;
}
