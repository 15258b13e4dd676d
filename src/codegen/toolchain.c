/*
 * toolchain.c: runs clang-19 and wasm-ld-19 on the generated C and writes the module.
 *
 * The kernel library is prebuilt by `make` into one archive per variant and opt level
 * (libwgk-{simd,scalar,relaxed}-O{0..3}.a), so a compile only builds the small graph
 * file. Tools and kernel locations can be overridden with WASMGRAPH_CLANG,
 * WASMGRAPH_WASM_LD and WASMGRAPH_KERNELS (a folder with include/ and lib/).
 * wasm-ld is called directly, never through clang's driver, so binaryen's wasm-opt
 * (which rejects relaxed-SIMD opcodes) is never run behind our back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"

/* Set by the Makefile to the build tree; WASMGRAPH_KERNELS overrides both. */
#ifndef WG_KERNEL_INCLUDE_DIR
#define WG_KERNEL_INCLUDE_DIR "kernels/include"
#endif
#ifndef WG_KERNEL_LIB_DIR
#define WG_KERNEL_LIB_DIR "build/kernels/lib"
#endif

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? v : dflt;
}

/* Runs argv; stderr+stdout go to log_path. Returns the exit status, or -1 if it could
 * not be started. */
static int run_tool(char *const argv[], const char *log_path)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void read_log_head(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

static wg_status write_file(wgc_graph *g, const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return wgc_error(g, NULL, WG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    bool ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok)
        return wgc_error(g, NULL, WG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return WG_OK;
}

static wg_status read_file(wgc_graph *g, const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) < 0) {
        if (f)
            fclose(f);
        return wgc_error(g, NULL, WG_ERR_TOOL, "cannot read %s", path);
    }
    *data = malloc((size_t)st.st_size + 1);
    if (!*data) {
        fclose(f);
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory reading %s", path);
    }
    *len = fread(*data, 1, (size_t)st.st_size, f);
    fclose(f);
    return WG_OK;
}

static int remove_tree_file(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return unlink(p);
}

wg_status wgc_build_module(wgc_graph *g, const wgc_codegen_options *opt, const char *src, const wgc_emitter *e,
                           const wgc_layout *layout)
{
    wg_status st = WG_OK;
    char tmpdir[] = "/tmp/wasmgraph-XXXXXX";
    char c_path[4200], o_path[4200], wasm_path[4200], log_path[4200], out_tmp[4200];
    char inc[4200], lib[4200], a1[64], a2[64], a3[64], a4[64], msg[700];
    uint8_t *linked = NULL, *final = NULL;
    size_t linked_len = 0, final_len = 0;
    char *json = NULL;
    bool have_tmp = false;

    if (!mkdtemp(tmpdir))
        return wgc_error(g, NULL, WG_ERR_IO, "cannot create a temporary folder: %s", strerror(errno));
    have_tmp = true;
    const char *src_dir = opt->emit_c_dir ? opt->emit_c_dir : tmpdir;
    if (opt->emit_c_dir)
        mkdir(opt->emit_c_dir, 0755);
    snprintf(c_path, sizeof c_path, "%s/model.c", src_dir);
    snprintf(o_path, sizeof o_path, "%s/model.o", tmpdir);
    snprintf(wasm_path, sizeof wasm_path, "%s/linked.wasm", tmpdir);
    snprintf(log_path, sizeof log_path, "%s/tool.log", tmpdir);
    if ((st = write_file(g, c_path, src, strlen(src))))
        goto fail;

    const char *kdir = getenv("WASMGRAPH_KERNELS");
    const char *variant = opt->relaxed_simd ? "relaxed" : opt->simd ? "simd" : "scalar";
    if (kdir && kdir[0]) {
        snprintf(inc, sizeof inc, "-I%s/include", kdir);
        snprintf(lib, sizeof lib, "%s/lib/libwgk-%s-O%d.a", kdir, variant, opt->opt_level);
    } else {
        snprintf(inc, sizeof inc, "-I%s", WG_KERNEL_INCLUDE_DIR);
        snprintf(lib, sizeof lib, "%s/libwgk-%s-O%d.a", WG_KERNEL_LIB_DIR, variant, opt->opt_level);
    }
    if (access(lib, R_OK) != 0) {
        st = wgc_error(g, NULL, WG_ERR_TOOL, "kernel library %s is missing (run `make`, or set WASMGRAPH_KERNELS)", lib);
        goto fail;
    }
    char olevel[8];
    snprintf(olevel, sizeof olevel, "-O%d", opt->opt_level);
    const char *clang = env_or("WASMGRAPH_CLANG", "clang-19");
    char *cc[32];
    int n = 0;
    cc[n++] = (char *)clang;
    cc[n++] = "--target=wasm32";
    cc[n++] = "-nostdlib";
    cc[n++] = "-ffreestanding";
    cc[n++] = "-std=c11";
    cc[n++] = olevel;
    if (opt->simd || opt->relaxed_simd)
        cc[n++] = "-msimd128";
    if (opt->relaxed_simd)
        cc[n++] = "-mrelaxed-simd";
    if (opt->threads) /* the barrier's atomics (threads.c); the kernels need none */
        cc[n++] = "-matomics";
    cc[n++] = inc;
    cc[n++] = "-c";
    cc[n++] = c_path;
    cc[n++] = "-o";
    cc[n++] = o_path;
    cc[n] = NULL;
    int rc = run_tool(cc, log_path);
    if (rc != 0) {
        read_log_head(log_path, msg, sizeof msg);
        st = wgc_error(g, NULL, WG_ERR_TOOL, rc < 0 || rc == 127 ? "cannot run %s: %s" : "%s failed on the generated C: %s",
                       clang, msg);
        goto fail;
    }
    const char *ld = env_or("WASMGRAPH_WASM_LD", "wasm-ld-19");
    snprintf(a1, sizeof a1, "--global-base=%u", layout->global_base);
    snprintf(a2, sizeof a2, "--initial-memory=%u", layout->memory_bytes);
    snprintf(a3, sizeof a3, "--max-memory=%u", layout->memory_bytes);
    snprintf(a4, sizeof a4, "stack-size=%u", WGC_STACK_BYTES);
    char *lc[24];
    n = 0;
    lc[n++] = (char *)ld;
    lc[n++] = "--no-entry";
    lc[n++] = "--strip-debug";
    lc[n++] = a1;
    lc[n++] = a2;
    lc[n++] = a3;
    lc[n++] = "-z";
    lc[n++] = a4;
    if (opt->threads) {
        /* Imported (and exported as "memory", like every module's). Not --shared-memory:
         * it would make every data segment passive, initialised by a start function,
         * where hosts map or stream the weights segment only when it is active and no
         * start function runs (data_split.h, js/wasmgraph.mjs); the import is made
         * shared after linking (wgc_share_memory), which is all that flag changes for
         * a module whose only mutable static data is zero-initialised. */
        lc[n++] = "--import-memory";
        lc[n++] = "--export-memory";
    }
    lc[n++] = o_path;
    lc[n++] = lib;
    lc[n++] = "-o";
    lc[n++] = wasm_path;
    lc[n] = NULL;
    rc = run_tool(lc, log_path);
    if (rc != 0) {
        read_log_head(log_path, msg, sizeof msg);
        st = wgc_error(g, NULL, WG_ERR_TOOL, rc < 0 || rc == 127 ? "cannot run %s: %s" : "%s failed: %s", ld, msg);
        goto fail;
    }
    if ((st = read_file(g, wasm_path, &linked, &linked_len)))
        goto fail;
    if (opt->threads && (st = wgc_share_memory(g, linked, linked_len)))
        goto fail;
    json = wgc_metadata_json(g, opt, layout, e);
    if (!json) {
        st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory writing metadata");
        goto fail;
    }
    if ((st = wgc_finish_module(g, linked, linked_len, e->weights, e->wlen, layout->weights_base, json,
                                &final, &final_len)))
        goto fail;
    /* Atomic: a reader of output_path sees the old file or the whole new one. */
    snprintf(out_tmp, sizeof out_tmp, "%s.tmp-%d", opt->output_path, (int)getpid());
    if ((st = write_file(g, out_tmp, final, final_len))) {
        unlink(out_tmp);
        goto fail;
    }
    if (rename(out_tmp, opt->output_path) != 0) {
        st = wgc_error(g, NULL, WG_ERR_IO, "cannot write %s: %s", opt->output_path, strerror(errno));
        unlink(out_tmp);
        goto fail;
    }
fail:
    free(linked);
    free(final);
    free(json);
    if (have_tmp) {
        if (!opt->emit_c_dir)
            remove_tree_file(tmpdir, "model.c");
        remove_tree_file(tmpdir, "model.o");
        remove_tree_file(tmpdir, "linked.wasm");
        remove_tree_file(tmpdir, "tool.log");
        rmdir(tmpdir);
    }
    return st;
}
