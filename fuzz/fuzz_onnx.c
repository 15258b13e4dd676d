/*
 * fuzz_onnx.c: libFuzzer target for the compiler. Each input is written to a model file in
 * a private temporary folder and compiled with wgc_compile_graph (reader, shape inference,
 * folding, passes), then, when that succeeds, through the memory plan and every op's emit
 * hook into C source (wgc_generate_c; clang and wasm-ld are not run). Any status is fine;
 * only a crash, a sanitizer report, a leak or a hang is a finding.
 *
 * Models whose constants exceed FUZZ_MAX_CONST_BYTES stop before code generation: packing
 * hundreds of MiB of weights under ASan takes longer than libFuzzer's timeout on a loaded
 * machine (the AlexNet seed makes 232 MiB from a 4 KiB file), and finds nothing the small
 * models do not.
 *
 * The folder holds nothing but the model, so external-data locations the fuzzer invents
 * can only reach the model file itself (or fail to open).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* kill, dirent */
#endif

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "compile/compile.h"
#include "plan/plan.h"

static char model_path[256];

#define FUZZ_MAX_CONST_BYTES (32 << 20)

/* The bytes of every constant the graph holds (folded ones included). */
static int64_t constant_bytes(const wgc_graph *g)
{
    int64_t total = 0;
    for (int i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].data)
            total += wgc_numel(&g->tensors[i].shape) * (int64_t)wg_dtype_size(g->tensors[i].dtype);
    return total;
}

static void remove_folder(void)
{
    unlink(model_path);
    char *slash = strrchr(model_path, '/');
    if (slash) {
        *slash = 0;
        rmdir(model_path);
    }
}

/* Folders of fuzzer processes that died without their atexit (crashes, kills in fork
 * mode) are named after a pid that no longer exists: remove them. */
static void remove_stale_folders(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        char *end;
        if (strncmp(e->d_name, "wgfuzz-onnx-", 12))
            continue;
        pid = strtol(e->d_name + 12, &end, 10);
        if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s/model.onnx", base, e->d_name);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s", base, e->d_name);
        rmdir(path);
    }
    closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* /dev/shm keeps the per-input write off the disk when it exists. */
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    remove_stale_folders(base);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/wgfuzz-onnx-%ld", base, (long)getpid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        perror("fuzz_onnx: mkdir");
        abort();
    }
    snprintf(model_path, sizeof model_path, "%s/model.onnx", dir);
    atexit(remove_folder);
    return 0;
}

static int write_model(const uint8_t *data, size_t size)
{
    FILE *f = fopen(model_path, "wb");
    if (!f)
        return -1;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    int rc = fclose(f);
    return n == size && rc == 0 ? 0 : -1;
}

/* The back half short of clang: plan, emitters, C source. A failure needs a message. */
static void generate(wgc_graph *g, const wgc_options *opt)
{
    wgc_plan plan;
    wgc_emitter e;
    wgc_layout layout;
    char *src = NULL;
    bool have_emitter = false;
    memset(&plan, 0, sizeof plan);
    memset(&layout, 0, sizeof layout);
    g->err[0] = 0;
    wgc_target target = {.simd = opt->simd, .opt_level = opt->opt_level};
    wg_status st = wgc_plan_memory(g, &plan);
    if (!st) {
        st = wgc_emitter_init(&e, g, &plan, &target);
        have_emitter = st == WG_OK;
    }
    const wgc_codegen_options copt = wgc_codegen_options_of(opt);
    if (!st)
        st = wgc_generate_c(g, &plan, &copt, &e, &layout, &src);
    if (st != WG_OK && g->err[0] == 0) {
        fprintf(stderr, "fuzz_onnx: code generation status %d with an empty message\n", (int)st);
        abort();
    }
    free(src);
    if (have_emitter)
        wgc_emitter_free(&e);
    wgc_plan_free(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (write_model(data, size) != 0) {
        perror("fuzz_onnx: cannot write the model file");
        abort();
    }
    wgc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.model_path = model_path;
    opt.output_path = "/dev/null";
    opt.opt_level = 2;
    opt.simd = true;
    opt.quiet = true;
    wgc_graph *g = NULL;
    char err[1024];
    err[0] = 0;
    wg_status st = wgc_compile_graph(&opt, &g, err, sizeof err);
    /* A failure must come with a message, and must not leave a graph behind. */
    if (st != WG_OK && (err[0] == 0 || g != NULL)) {
        fprintf(stderr, "fuzz_onnx: status %d with %s\n", (int)st,
                g ? "a graph returned" : "an empty message");
        abort();
    }
    if (st == WG_OK && g == NULL) {
        fprintf(stderr, "fuzz_onnx: WG_OK without a graph\n");
        abort();
    }
    if (st == WG_OK && constant_bytes(g) <= FUZZ_MAX_CONST_BYTES)
        generate(g, &opt);
    wgc_graph_free(g);
    return 0;
}
