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

int wg_hub_read(const char *dir, const char *variant, int64_t max_length, wg_hub *h)
{
    int rc = 0;
    memset(h, 0, sizeof *h);
    wg_json *cfg = read_json(dir, "config.json", true, &rc), *gen = rc ? NULL : read_json(dir, "generation_config.json", false, &rc);
    if (rc || !cfg)
        goto done;
    /* transformers.js' names of the variants' files */
    const char *v = variant ? variant : "fp32";
    char file[256];
    if (!strcmp(v, "fp32"))
        snprintf(file, sizeof file, "model.onnx");
    else if (!strcmp(v, "q8"))
        snprintf(file, sizeof file, "model_quantized.onnx");
    else
        snprintf(file, sizeof file, "model_%s.onnx", v);
    snprintf(h->onnx, sizeof h->onnx, "%s/onnx/%s", dir, file);
    if (!is_file(h->onnx)) /* the test set's layout: DIR/<variant>/<file> */
        snprintf(h->onnx, sizeof h->onnx, "%s/%s/%s", dir, v, file);
    if (!is_file(h->onnx)) {
        rc = wg_cli_fail("%s: no %s in onnx/ (variant %s; transformers.js names them model.onnx, "
                         "model_quantized.onnx, model_fp16.onnx, model_q4.onnx ...)", dir, file, v);
        goto done;
    }
    const int64_t positions = int_of(cfg, NULL, "max_position_embeddings", int_of(cfg, NULL, "n_positions", 0));
    h->max_length = max_length > 0 ? max_length : positions > 0 && positions < WG_HUB_DEFAULT_LENGTH ? positions
                                                                                                   : WG_HUB_DEFAULT_LENGTH;
    if (positions > 0 && h->max_length > positions) {
        rc = wg_cli_fail("%s: --max-length %lld is past the model's %lld positions (max_position_embeddings)", dir,
                         (long long)h->max_length, (long long)positions);
        goto done;
    }
    char eos[512];
    eos_list(cfg, gen, eos, sizeof eos);
    snprintf(h->generation_json, sizeof h->generation_json,
             "{\"eos_token_id\":%s,\"bos_token_id\":%lld,\"max_length\":%lld}", eos,
             (long long)int_of(cfg, gen, "bos_token_id", -1), (long long)h->max_length);
done:
    wg_json_free(cfg);
    wg_json_free(gen);
    return rc;
}
