/* cmd_compile.c: `wasmgraph compile MODEL.onnx -o MODEL.wasm [options]`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compile/compile.h"
#include "cli.h"
#include "hub_folder.h"
#include "preprocess.h"

static const char usage[] =
    "usage: wasmgraph compile MODEL.onnx -o MODEL.wasm [-O0|-O1|-O2|-O3] [--no-simd]\n"
    "                         [--relaxed-simd] [--shape NAME=1x3x224x224]... [--emit-c DIR] [--quiet]\n"
    "                         (a sequence input's elements: --shape NAME=4x3+2x3, or [] for none)\n"
    "                         [--dim SYM=MIN..MAX]...  (keep dimension SYM symbolic: a dim_param of\n"
    "                         the model, or a name in --shape, e.g. --shape ids=batchxseq or\n"
    "                         ids=batch,seq; one module then runs at every size in the range;\n"
    "                         SYM=MIN..MAX:STEP: the multiples of STEP only, e.g. h=32..960:32;\n"
    "                         or the bounds of integer graph input SYM's values, 0 <= MIN, where\n"
    "                         they decide a size: Pad's pads, Expand's shape, Tile's repeats,\n"
    "                         Range's bounds, ConstantOfShape's shape)\n"
    "                         [--const NAME=FILE.pb]...  (graph input NAME becomes that constant)\n"
    "       wasmgraph compile DIR -o MODEL.wasm [--variant fp32|fp16|q8|q4|q4f16|...] [--max-length N]\n"
    "                         (a model folder: config.json, onnx/model*.onnx; its decoder with\n"
    "                         batch 1 and sequence and cache ranges from the config, up to\n"
    "                         N tokens, default min(max_position_embeddings, 1024); options above;\n"
    "                         a Whisper folder: its merged decoder into MODEL.wasm and its encoder\n"
    "                         into MODEL-encoder.wasm, which the decoder names, for `generate`)\n"
    "                         [--profile]  (one exported step per node, for `wasmgraph profile`)\n"
    "                         [--threads [--max-threads N]]  (a module that splits its work among\n"
    "                         up to N threads, default " WGC_THREADS_DEFAULT_STR ", on a shared memory; docs/abi.md \"Threads\")\n"
    "                         [--preprocess \"--size 256 --crop --bgr ...\"]  (classify's image\n"
    "                         options, recorded in the metadata as the model's defaults)\n"
    "errors print as 'wasmgraph: error (STATUS): ...' where STATUS names the wg_status\n"
    "(e.g. 'unsupported' for an operator, attribute or dtype the compiler does not handle);\n"
    "exit status: 0 ok, 1 compile error, 2 bad command line.\n";

/* Parses "1x3x224x224" into o->shape; a dim that is a name ("batchxseq", or with commas
 * "batch,seq" when a name holds an x) is symbolic: dims[d] = -1, o->dim_name[d] the name.
 * False on anything else. */
static bool parse_dims(const char *text, wgc_shape_override *o)
{
    wgc_dims_spec *s = &o->shape;
    s->rank = 0;
    if (!*text)
        return true; /* "NAME=" is a scalar */
    bool commas = strchr(text, ',') != NULL;
    const char *p = text;
    while (*p) {
        if (s->rank == WG_MAX_RANK)
            return false;
        char *end;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') {
            size_t n = commas ? strcspn(p, ",") : strcspn(p, "xX");
            if (n >= WGC_SYM_NAME)
                return false;
            memcpy(o->dim_name[s->rank], p, n);
            o->dim_name[s->rank][n] = 0;
            for (size_t i = 0; i < n; i++)
                if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
                      (p[i] >= '0' && p[i] <= '9') || p[i] == '_' || p[i] == '.' || p[i] == '-'))
                    return false;
            s->dims[s->rank++] = -1;
            end = (char *)p + n;
        } else {
            errno = 0;
            long long v = strtoll(p, &end, 10);
            if (end == p || errno || v < 0 || v > ((long long)1 << 40))
                return false;
            s->dims[s->rank++] = v;
        }
        if (*end == ',' || (!commas && (*end == 'x' || *end == 'X')))
            end++;
        else if (*end)
            return false;
        p = end;
    }
    return true;
}

/* "DIMS" (symbolic names allowed, see parse_dims) or a sequence's "DIMS+DIMS+..." (fixed
 * dims only; "[]": no elements) into o. */
static bool parse_shape_list(char *text, wgc_shape_override *o)
{
    o->n_elems = 0;
    if (!strcmp(text, "[]")) {
        o->shape.rank = 0;
        return true;
    }
    if (!strchr(text, '+')) {
        if (!parse_dims(text, o))
            return false;
        o->elems[o->n_elems++] = o->shape;
        return true;
    }
    for (char *p = text;;) {
        char *plus = strchr(p, '+');
        if (plus)
            *plus = 0;
        wgc_shape_override one = {0};
        bool ok = o->n_elems < WGC_MAX_SEQ_SHAPES && parse_dims(p, &one);
        for (int d = 0; ok && d < one.shape.rank; d++)
            ok = one.shape.dims[d] >= 0; /* a sequence's elements have fixed dims */
        if (plus)
            *plus = '+';
        if (!ok)
            return false;
        o->elems[o->n_elems++] = one.shape;
        if (!plus)
            break;
        p = plus + 1;
    }
    o->shape = o->elems[0];
    return true;
}

/* Parses "NAME=MIN..MAX" or "NAME=MIN..MAX:STEP" (the multiples of STEP in range; MIN
 * and MAX multiples of it) into d; false on anything else. */
static bool parse_dim_range(const char *text, wgc_symbol *d)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= WGC_SYM_NAME)
        return false;
    memcpy(d->name, text, (size_t)(eq - text));
    d->name[eq - text] = 0;
    char *end;
    errno = 0;
    long long lo = strtoll(eq + 1, &end, 10);
    if (end == eq + 1 || errno || end[0] != '.' || end[1] != '.')
        return false;
    const char *hi_text = end + 2;
    long long hi = strtoll(hi_text, &end, 10);
    if (end == hi_text || errno || lo < 0 || hi < lo || hi > WG_ABI_MAX_DIM)
        return false;
    long long step = 1;
    if (*end == ':') {
        const char *step_text = end + 1;
        step = strtoll(step_text, &end, 10);
        if (end == step_text || errno || step < 1 || step > WG_ABI_MAX_DIM || lo % step || hi % step || lo < step)
            return false;
    }
    if (*end)
        return false;
    d->min = lo;
    d->max = hi;
    d->step = step;
    return true;
}

/* Adds the ranges of dflt (n of them) that no --dim of opt gives. */
static void default_dims(wgc_options *opt, const wg_hub_dim *dflt, int n)
{
    for (int d = 0; d < n; d++) {
        bool given = false;
        for (int k = 0; k < opt->n_dims; k++)
            given |= !strcmp(opt->dims[k].name, dflt[d].name);
        char spec[96];
        snprintf(spec, sizeof spec, "%s=%lld..%lld", dflt[d].name, (long long)dflt[d].min, (long long)dflt[d].max);
        if (!given && opt->n_dims < WG_ABI_MAX_SYMBOLS && parse_dim_range(spec, &opt->dims[opt->n_dims]))
            opt->n_dims++;
    }
}

/* Compiles one module and prints its summary and notes; 0, or 1 after a message. */
static int compile_one(wgc_options *opt)
{
    char err[1200];
    wgc_summary s;
    wg_status st = wgc_compile(opt, &s, err, sizeof err);
    if (st) {
        /* The status name lets scripts tell "unsupported" from real failures. */
        fprintf(stderr, "wasmgraph: error (%s): %s\n", wg_status_str(st), err);
        return 1;
    }
    if (!opt->quiet)
        printf("compiled %s -> %s: %d nodes (%d folded or fused), weights %.2f MiB, arena %.2f MiB, "
               "memory %.2f MiB, module %.2f MiB, %.2f s\n",
               opt->model_path, opt->output_path, s.nodes, s.folded, (double)s.weight_bytes / 1048576.0,
               (double)s.arena_bytes / 1048576.0, (double)s.memory_bytes / 1048576.0,
               (double)s.module_bytes / 1048576.0, s.seconds);
    for (const char *p = s.notes; *p;) { /* each note, even with -q: it changes what runs */
        const char *end = strchr(p, '\n');
        int len = end ? (int)(end - p) : (int)strlen(p);
        fprintf(stderr, "wasmgraph: note: %.*s\n", len, p);
        p += len + (end != NULL);
    }
    return 0;
}

/* compile DIR (a model folder, hub_folder.h): the decoder file of the variant, its
 * sequence and cache ranges from the config (each unless a --dim gives it: batch 1, a
 * prompt of up to L tokens, a cache of up to L - 1) and the generation defaults; a
 * Whisper folder's encoder first, with its own ranges (batch 1) and the other options. */
static int compile_hub(wgc_options *opt, const char *variant, int64_t max_length)
{
    static wg_hub h; /* its strings outlive the options that point into them */
    if (wg_hub_read(opt->model_path, variant, max_length, opt->output_path, &h))
        return 1;
    if (h.encoder_onnx[0]) {
        wgc_options enc = *opt;
        enc.model_path = h.encoder_onnx;
        enc.output_path = h.encoder_wasm;
        enc.n_dims = enc.n_shapes = enc.n_consts = 0; /* --dim, --shape, --const are the decoder's */
        enc.emit_c_dir = NULL;
        enc.preprocess_json = NULL;
        default_dims(&enc, h.encoder_dims, h.n_encoder_dims);
        if (compile_one(&enc))
            return 1;
    }
    opt->model_path = h.onnx;
    opt->generation_json = h.generation_json;
    default_dims(opt, h.dims, h.n_dims);
    return compile_one(opt);
}

/* The command; *prep_json: the --preprocess metadata text it allocated (caller frees). */
static int compile_cmd(int argc, char **argv, char **prep_json)
{
    wgc_options opt = {.opt_level = 2, .simd = true};
    bool threads = false;
    int max_threads = 0;
    const char *variant = NULL; /* compile DIR: which file of the folder */
    int64_t max_length = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") && i + 1 < argc) {
            opt.output_path = argv[++i];
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
            opt.opt_level = a[2] - '0';
        } else if (!strcmp(a, "--no-simd")) {
            opt.simd = false;
        } else if (!strcmp(a, "--relaxed-simd")) {
            opt.relaxed_simd = true;
        } else if (!strcmp(a, "--emit-c") && i + 1 < argc) {
            opt.emit_c_dir = argv[++i];
        } else if (!strcmp(a, "--preprocess") && i + 1 < argc) {
            wg_cli_prep prep = wg_cli_prep_defaults();
            if (wg_cli_prep_parse(usage, argv[++i], &prep))
                return 2;
            free(*prep_json);
            if (!(opt.preprocess_json = *prep_json = wg_cli_prep_json(&prep))) {
                fprintf(stderr, "wasmgraph: error: out of memory\n");
                return 1;
            }
        } else if (!strcmp(a, "--variant") && i + 1 < argc) {
            variant = argv[++i];
        } else if (!strcmp(a, "--max-length") && i + 1 < argc) {
            uint64_t v;
            if (!wg_cli_parse_u64(argv[++i], 1, WG_ABI_MAX_DIM / 2, &v)) {
                fprintf(stderr, "wasmgraph: error: --max-length wants 1..%d, got '%s'\n", WG_ABI_MAX_DIM / 2, argv[i]);
                return 2;
            }
            max_length = (int64_t)v;
        } else if (!strcmp(a, "--profile")) {
            opt.profile = true;
        } else if (!strcmp(a, "--threads")) {
            threads = true;
        } else if (!strcmp(a, "--max-threads") && i + 1 < argc) {
            char *end;
            errno = 0;
            long v = strtol(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || v < 1 || v > WGC_THREADS_LIMIT) {
                fprintf(stderr, "wasmgraph: error: --max-threads wants 1..%d, got '%s'\n", WGC_THREADS_LIMIT,
                        argv[i]);
                return 2;
            }
            max_threads = (int)v;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            opt.quiet = true;
        } else if (!strcmp(a, "--shape") && i + 1 < argc) {
            char *spec = argv[++i];
            char *eq = strrchr(spec, '=');
            if (opt.n_shapes == WGC_MAX_SHAPE_OVERRIDES) {
                fprintf(stderr, "wasmgraph: error: at most %d --shape options; to fix a dimension that many inputs "
                        "share, give its symbol one value with --dim NAME=N..N\n", WGC_MAX_SHAPE_OVERRIDES);
                return 2;
            }
            if (!eq || eq == spec) {
                fprintf(stderr, "wasmgraph: error: --shape wants NAME=DIMS (e.g. data=1x3x224x224), got '%s'\n", spec);
                return 2;
            }
            wgc_shape_override *o = &opt.shapes[opt.n_shapes];
            if (!parse_shape_list(eq + 1, o)) {
                fprintf(stderr, "wasmgraph: error: --shape %s: dims must look like 1x3x224x224 (or "
                        "name symbolic dims: batchxseq, batch,seq; a sequence's elements: 4x3+2x3, "
                        "at most %d; no elements: [])\n", spec, WGC_MAX_SEQ_SHAPES);
                return 2;
            }
            *eq = 0;
            o->name = spec;
            opt.n_shapes++;
        } else if (!strcmp(a, "--dim") && i + 1 < argc) {
            const char *spec = argv[++i];
            if (opt.n_dims == WG_ABI_MAX_SYMBOLS || !parse_dim_range(spec, &opt.dims[opt.n_dims])) {
                fprintf(stderr, "wasmgraph: error: --dim wants NAME=MIN..MAX with 0 <= MIN <= MAX "
                        "<= %d (1 <= MIN for a dimension; at most %d of them), or NAME=MIN..MAX:STEP "
                        "for the multiples of STEP (MIN and MAX multiples of it), got '%s'\n", WG_ABI_MAX_DIM,
                        WG_ABI_MAX_SYMBOLS, spec);
                return 2;
            }
            for (int k = 0; k < opt.n_dims; k++)
                if (!strcmp(opt.dims[k].name, opt.dims[opt.n_dims].name)) {
                    fprintf(stderr, "wasmgraph: error: --dim %s is given twice\n", opt.dims[k].name);
                    return 2;
                }
            opt.n_dims++;
        } else if (!strcmp(a, "--const") && i + 1 < argc) {
            char *spec = argv[++i];
            char *eq = strchr(spec, '=');
            if (!eq || eq == spec || !eq[1] || opt.n_consts == WGC_MAX_SHAPE_OVERRIDES) {
                fprintf(stderr, "wasmgraph: error: --const wants NAME=FILE.pb, got '%s'\n", spec);
                return 2;
            }
            *eq = 0;
            opt.consts[opt.n_consts].name = spec;
            opt.consts[opt.n_consts++].path = eq + 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "wasmgraph: error: unknown option '%s'\n%s", a, usage);
            return 2;
        } else if (!opt.model_path) {
            opt.model_path = a;
        } else {
            fprintf(stderr, "wasmgraph: error: unexpected argument '%s'\n%s", a, usage);
            return 2;
        }
    }
    if (!opt.model_path || !opt.output_path) {
        fputs(usage, stderr);
        return 2;
    }
    if ((variant || max_length) && !wg_hub_is_folder(opt.model_path)) {
        fprintf(stderr, "wasmgraph: error: --variant and --max-length are for a model folder (compile DIR)\n");
        return 2;
    }
    if (max_threads && !threads) {
        fprintf(stderr, "wasmgraph: error: --max-threads needs --threads\n");
        return 2;
    }
    for (int j = 0; j < opt.n_dims; j++)
        for (int k = 0; k < opt.n_consts; k++)
            if (!strcmp(opt.dims[j].name, opt.consts[k].name)) {
                fprintf(stderr, "wasmgraph: error: --dim %s and --const %s name the same input: bound its "
                        "values or bind them, not both\n", opt.dims[j].name, opt.consts[k].name);
                return 2;
            }
    if (threads)
        opt.threads = max_threads ? max_threads : WGC_THREADS_DEFAULT;
    if (opt.relaxed_simd && !opt.simd) {
        fprintf(stderr, "wasmgraph: error: --relaxed-simd needs SIMD; drop --no-simd\n");
        return 2;
    }
    return wg_hub_is_folder(opt.model_path) ? compile_hub(&opt, variant, max_length) : compile_one(&opt);
}

int wg_cmd_compile(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    char *prep_json = NULL;
    int rc = compile_cmd(argc, argv, &prep_json);
    free(prep_json);
    return rc;
}
