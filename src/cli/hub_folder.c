/* hub_folder.c: a Hugging Face-style model folder for `wasmgraph compile DIR` (hub_folder.h). */
#include "hub_folder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/json.h"

/* The file's bytes with a 0 after them, or NULL (missing: *missing set) after no message. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (!fseek(f, 0, SEEK_END)) {
        long n = ftell(f);
        if (n >= 0 && n < (1L << 24) && !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n + 1))) {
            *len = fread(buf, 1, (size_t)n, f);
            buf[*len] = 0;
        }
    }
    fclose(f);
    return buf;
}

/* dir/name parsed, or NULL: absent (optional) or, after a message, unreadable or not JSON. */
static wg_json *read_json(const char *dir, const char *name, bool required, int *rc)
{
    char path[4200], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) {
        if (required)
            *rc = wg_cli_fail("%s: cannot read %s (a model folder has config.json, onnx/*.onnx, tokenizer.json)",
                              dir, name);
        return NULL;
    }
    wg_json *j = wg_json_parse(text, len, err, sizeof err);
    free(text);
    if (!j || j->type != WG_JSON_OBJECT) {
        *rc = wg_cli_fail("%s: %s is not a JSON object%s%s", dir, name, j ? "" : ": ", j ? "" : err);
        wg_json_free(j);
        return NULL;
    }
    return j;
}

/* The integer member key of j, or the first found of cfg's then gen's; dflt when neither. */
static int64_t int_of(const wg_json *a, const wg_json *b, const char *key, int64_t dflt)
{
    int64_t v;
    if (b && wg_json_int(wg_json_get(b, key), &v))
        return v;
    if (a && wg_json_int(wg_json_get(a, key), &v))
        return v;
    return dflt;
}

/* Appends eos_token_id (an integer or a list of them: generation_config.json's first, then
 * config.json's) to out as a JSON array. */
static void eos_list(const wg_json *cfg, const wg_json *gen, char *out, size_t cap)
{
    const wg_json *e = gen ? wg_json_get(gen, "eos_token_id") : NULL;
    if (!e && cfg)
        e = wg_json_get(cfg, "eos_token_id");
    size_t n = (size_t)snprintf(out, cap, "[");
    int64_t v;
    if (e && e->type == WG_JSON_ARRAY) {
        for (size_t k = 0; k < e->n && n < cap; k++)
            if (wg_json_int(wg_json_at(e, k), &v))
                n += (size_t)snprintf(out + n, cap - n, "%s%lld", n > 1 ? "," : "", (long long)v);
    } else if (e && wg_json_int(e, &v)) {
        n += (size_t)snprintf(out + n, cap - n, "%lld", (long long)v);
    }
    if (n < cap)
        snprintf(out + n, cap - n, "]");
}

static bool is_file(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISREG(st.st_mode);
}

bool wg_hub_is_folder(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* dir's file stem+suffix of the variant (in onnx/ or <variant>/) into path; 0, or 1 after a
 * message naming the folder. */
static int find_file(const char *dir, const char *v, const char *stem, char *path, size_t cap)
{
    char file[256];
    if (!strcmp(v, "fp32"))
        snprintf(file, sizeof file, "%s.onnx", stem);
    else
        snprintf(file, sizeof file, "%s_%s.onnx", stem, !strcmp(v, "q8") ? "quantized" : v);
    snprintf(path, cap, "%s/onnx/%s", dir, file);
    if (!is_file(path)) /* the test set's layout: DIR/<variant>/<file> */
        snprintf(path, cap, "%s/%s/%s", dir, v, file);
    if (is_file(path))
        return 0;
    return wg_cli_fail("%s: no %s in onnx/ (variant %s; transformers.js names them %s.onnx, %s_quantized.onnx, "
                       "%s_fp16.onnx, %s_q4.onnx ...)", dir, file, v, stem, stem, stem, stem);
}

/* Whisper's first decoder tokens: decoder_start_token_id, then forced_decoder_ids' ids
 * ([[1, id], [2, id], ...]) in order of position, up to the first one not given (a null
 * language: detecting it is not done), as a JSON array into out. */
static void forced_list(const wg_json *cfg, const wg_json *gen, char *out, size_t cap)
{
    const int64_t start = int_of(cfg, gen, "decoder_start_token_id", -1);
    const wg_json *f = gen ? wg_json_get(gen, "forced_decoder_ids") : NULL;
    if (!f && cfg)
        f = wg_json_get(cfg, "forced_decoder_ids");
    size_t n = (size_t)snprintf(out, cap, "[%lld", (long long)start);
    for (int64_t pos = 1; f && f->type == WG_JSON_ARRAY && n < cap; pos++) {
        int64_t at, id;
        size_t k = 0;
        while (k < f->n && !(wg_json_int(wg_json_at(wg_json_at(f, k), 0), &at) && at == pos))
            k++;
        if (k == f->n || !wg_json_int(wg_json_at(wg_json_at(f, k), 1), &id))
            break;
        n += (size_t)snprintf(out + n, cap - n, ",%lld", (long long)id);
    }
    if (n < cap)
        snprintf(out + n, cap - n, "]");
}

static void set_dim(wg_hub_dim *d, const char *name, int64_t min, int64_t max)
{
    snprintf(d->name, sizeof d->name, "%s", name);
    d->min = min;
    d->max = max;
}

int wg_hub_read(const char *dir, const char *variant, int64_t max_length, const char *output, wg_hub *h)
{
    int rc = 0;
    memset(h, 0, sizeof *h);
    wg_json *cfg = read_json(dir, "config.json", true, &rc), *gen = rc ? NULL : read_json(dir, "generation_config.json", false, &rc);
    if (rc || !cfg)
        goto done;
    const char *type = wg_json_str(wg_json_get(cfg, "model_type"));
    const bool whisper = type && !strcmp(type, "whisper");
    bool enc_dec = false;
    if (!whisper && wg_json_bool(wg_json_get(cfg, "is_encoder_decoder"), &enc_dec) && enc_dec) {
        rc = wg_cli_fail("%s: an encoder-decoder of model_type '%s': compile DIR takes Whisper's only (compile its "
                         "files one by one, with --dim ranges)", dir, type ? type : "?");
        goto done;
    }
    /* transformers.js' names of the variants' files */
    const char *v = variant ? variant : "fp32";
    if (find_file(dir, v, whisper ? "decoder_model_merged" : "model", h->onnx, sizeof h->onnx) ||
        (whisper && find_file(dir, v, "encoder_model", h->encoder_onnx, sizeof h->encoder_onnx))) {
        rc = 1;
        goto done;
    }
    const int64_t positions = int_of(cfg, NULL, whisper ? "max_target_positions" : "max_position_embeddings",
                                     int_of(cfg, NULL, "n_positions", 0));
    h->max_length = max_length > 0 ? max_length : positions > 0 && positions < WG_HUB_DEFAULT_LENGTH ? positions
                                                                                                   : WG_HUB_DEFAULT_LENGTH;
    if (positions > 0 && h->max_length > positions) {
        rc = wg_cli_fail("%s: --max-length %lld is past the model's %lld positions (%s)", dir,
                         (long long)h->max_length, (long long)positions,
                         whisper ? "max_target_positions" : "max_position_embeddings");
        goto done;
    }
    char eos[512], more[4600] = "";
    eos_list(cfg, gen, eos, sizeof eos);
    set_dim(&h->dims[h->n_dims++], "batch_size", 1, 1);
    if (whisper) {
        char forced[512];
        const char *slash = strrchr(output, '/'), *base = slash ? slash + 1 : output;
        const size_t stem = strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".wasm") ? strlen(base) - 5 : strlen(base);
        snprintf(h->encoder_wasm, sizeof h->encoder_wasm, "%.*s-encoder.wasm", (int)(base - output + stem), output);
        forced_list(cfg, gen, forced, sizeof forced);
        snprintf(more, sizeof more, ",\"forced_ids\":%s,\"encoder\":\"%.*s-encoder.wasm\"", forced, (int)stem, base);
        set_dim(&h->dims[h->n_dims++], "encoder_sequence_length", 1, int_of(cfg, NULL, "max_source_positions", 1500));
        set_dim(&h->dims[h->n_dims++], "decoder_sequence_length", 1,
                h->max_length < WG_HUB_WHISPER_PROMPT ? h->max_length : WG_HUB_WHISPER_PROMPT);
        set_dim(&h->dims[h->n_dims++], "past_decoder_sequence_length", 0, h->max_length - 1);
        set_dim(&h->encoder_dims[h->n_encoder_dims++], "batch_size", 1, 1);
    } else {
        set_dim(&h->dims[h->n_dims++], "sequence_length", 1, h->max_length);
        set_dim(&h->dims[h->n_dims++], "past_sequence_length", 0, h->max_length - 1);
    }
    snprintf(h->generation_json, sizeof h->generation_json,
             "{\"eos_token_id\":%s,\"bos_token_id\":%lld,\"max_length\":%lld%s}", eos,
             (long long)int_of(cfg, gen, "bos_token_id", -1), (long long)h->max_length, more);
done:
    wg_json_free(cfg);
    wg_json_free(gen);
    return rc;
}
