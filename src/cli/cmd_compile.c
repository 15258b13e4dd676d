/* cmd_compile.c: `wasmgraph compile MODEL.onnx -o MODEL.wasm [options]`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compile/compile.h"
#include "cli.h"
#include "preprocess.h"

static const char usage[] =
    "usage: wasmgraph compile MODEL.onnx -o MODEL.wasm [-O0|-O1|-O2|-O3] [--no-simd]\n"
    "                         [--relaxed-simd] [--shape NAME=1x3x224x224]... [--emit-c DIR] [--quiet]\n"
    "                         [--const NAME=FILE.pb]...  (graph input NAME becomes that constant)\n"
    "                         [--profile]  (one exported step per node, for `wasmgraph profile`)\n"
    "                         [--threads [--max-threads N]]  (a module that splits its work among\n"
    "                         up to N threads, default " WGC_THREADS_DEFAULT_STR ", on a shared memory; docs/abi.md \"Threads\")\n"
    "                         [--preprocess \"--size 256 --crop --bgr ...\"]  (classify's image\n"
    "                         options, recorded in the metadata as the model's defaults)\n"
    "errors print as 'wasmgraph: error (STATUS): ...' where STATUS names the wg_status\n"
    "(e.g. 'unsupported' for an operator, attribute or dtype the compiler does not handle);\n"
    "exit status: 0 ok, 1 compile error, 2 bad command line.\n";

/* Parses "1x3x224x224" into s; false on anything else. */
static bool parse_dims(const char *text, wgc_shape *s)
{
    s->rank = 0;
    if (!*text)
        return true; /* "NAME=" is a scalar */
    const char *p = text;
    while (*p) {
        if (s->rank == WG_MAX_RANK)
            return false;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0 || v > ((long long)1 << 40))
            return false;
        s->dims[s->rank++] = v;
        if (*end == 'x' || *end == 'X' || *end == ',')
            end++;
        else if (*end)
            return false;
        p = end;
    }
    return true;
}

/* The command; *prep_json: the --preprocess metadata text it allocated (caller frees). */
static int compile_cmd(int argc, char **argv, char **prep_json)
{
    wgc_options opt = {.opt_level = 2, .simd = true};
    bool threads = false;
    int max_threads = 0;
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
            if (!eq || eq == spec || opt.n_shapes == WGC_MAX_SHAPE_OVERRIDES) {
                fprintf(stderr, "wasmgraph: error: --shape wants NAME=DIMS (e.g. data=1x3x224x224), got '%s'\n", spec);
                return 2;
            }
            wgc_shape_override *o = &opt.shapes[opt.n_shapes];
            if (!parse_dims(eq + 1, &o->shape)) {
                fprintf(stderr, "wasmgraph: error: --shape %s: dims must look like 1x3x224x224\n", spec);
                return 2;
            }
            *eq = 0;
            o->name = spec;
            opt.n_shapes++;
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
    if (max_threads && !threads) {
        fprintf(stderr, "wasmgraph: error: --max-threads needs --threads\n");
        return 2;
    }
    if (threads)
        opt.threads = max_threads ? max_threads : WGC_THREADS_DEFAULT;
    if (opt.relaxed_simd && !opt.simd) {
        fprintf(stderr, "wasmgraph: error: --relaxed-simd needs SIMD; drop --no-simd\n");
        return 2;
    }
    char err[1200];
    wgc_summary s;
    wg_status st = wgc_compile(&opt, &s, err, sizeof err);
    if (st) {
        /* The status name lets scripts tell "unsupported" from real failures. */
        fprintf(stderr, "wasmgraph: error (%s): %s\n", wg_status_str(st), err);
        return 1;
    }
    if (!opt.quiet)
        printf("compiled %s -> %s: %d nodes (%d folded or fused), weights %.2f MiB, arena %.2f MiB, "
               "memory %.2f MiB, module %.2f MiB, %.2f s\n",
               opt.model_path, opt.output_path, s.nodes, s.folded, (double)s.weight_bytes / 1048576.0,
               (double)s.arena_bytes / 1048576.0, (double)s.memory_bytes / 1048576.0,
               (double)s.module_bytes / 1048576.0, s.seconds);
    return 0;
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
