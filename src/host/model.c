/* model.c: loading a module: our own ABI checks (inspect.c), then wasmtime compiles it.
 * From a file, the module is mapped rather than read, and its data segments are left out
 * of what wasmtime compiles when possible (data_split.h): sessions read them from the
 * file. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pread, mmap, O_CLOEXEC, st_mtim */
#endif
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Inspects the module and compiles it; with data_fd >= 0 (bytes mapped from that file),
 * compiles only the code when the data can be split off, and then takes ownership of
 * data_fd. On failure *out is NULL and data_fd is still the caller's. */
static wg_status load(wg_runtime *rt, const uint8_t *bytes, size_t len, const char *name,
                      int data_fd, const struct stat *sb, wg_model **out)
{
    wg_status st;
    char err[900];
    wasmtime_error_t *e;
    *out = NULL;
    if (!name)
        name = "<module>";
    wg_model *m = calloc(1, sizeof *m);
    if (!m)
        return wgh_error(rt, WG_ERR_NOMEM, "%s: out of memory", name);
    m->rt = rt;
    m->data_fd = -1;
    if (!(m->name = malloc(strlen(name) + 1))) {
        st = wgh_error(rt, WG_ERR_NOMEM, "%s: out of memory", name);
        goto fail;
    }
    strcpy(m->name, name);
    st = wgh_inspect(bytes, len, rt->opts.memory_limit_bytes, &m->info, err, sizeof err);
    if (st) {
        wgh_error(rt, st, "%s: %s", name, err);
        goto fail;
    }
    bool split = false;
    if (data_fd >= 0 &&
        wgh_split_data(bytes, len, m->info.memory_min_bytes, &m->split, &split) != WG_OK) {
        st = wgh_error(rt, WG_ERR_NOMEM, "%s: out of memory", name);
        goto fail;
    }
    if (split)
        e = wasmtime_module_new(rt->engine, m->split.code, m->split.code_len, &m->module);
    else
        e = wasmtime_module_new(rt->engine, bytes, len, &m->module);
    if (e) {
        /* Our scan passed, so a refusal here is invalid code or an engine problem; wasmtime
         * reports both the same way, and validation failures are by far the likely one. */
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s: wasmtime cannot compile the module", name);
        st = wgh_wasmtime_error(rt, WG_ERR_FORMAT, e, prefix);
        goto fail;
    }
    if (split) {
        /* The code is compiled: only the segment table is needed from here on. */
        free(m->split.code);
        m->split.code = NULL;
        m->data_fd = data_fd;
        m->file_size = (int64_t)sb->st_size;
        m->file_mtime_s = (int64_t)sb->st_mtim.tv_sec;
        m->file_mtime_ns = (int64_t)sb->st_mtim.tv_nsec;
    }
    rt->err[0] = 0;
    *out = m;
    return WG_OK;
fail:
    wg_model_free(m);
    return st;
}

wg_status wg_model_load_bytes(wg_runtime *rt, const uint8_t *bytes, size_t len, const char *name,
                              wg_model **out)
{
    /* The caller may free bytes after this: wasmtime keeps what it needs (no split). */
    return load(rt, bytes, len, name, -1, NULL, out);
}

wg_status wg_model_load(wg_runtime *rt, const char *path, wg_model **out)
{
    uint8_t *bytes;
    size_t len;
    char err[900];
    struct stat sb;
    wg_status st;
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return wgh_error(rt, WG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size <= SIZE_MAX) {
        /* A regular file is mapped: our scan reads only its headers and small sections,
         * and when the data is split off the weights are never mapped in at all. */
        len = (size_t)sb.st_size;
        void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            st = load(rt, map, len, path, fd, &sb, out);
            munmap(map, len);
            if (!*out || (*out)->data_fd != fd)
                close(fd);
            return st;
        }
    }
    /* Pipes, empty files, or no mapping: read it all (this also reports empty files). */
    close(fd);
    st = wgh_read_file(path, &bytes, &len, err, sizeof err);
    if (st)
        return wgh_error(rt, st, "%s", err);
    st = load(rt, bytes, len, path, -1, NULL, out);
    free(bytes); /* wasmtime keeps its own copy of what it needs */
    return st;
}

void wg_model_free(wg_model *m)
{
    if (!m)
        return;
    if (m->module)
        wasmtime_module_delete(m->module);
    wgh_module_info_free(&m->info);
    wgh_split_free(&m->split);
    if (m->data_fd >= 0)
        close(m->data_fd);
    free(m->name);
    free(m);
}

size_t wg_model_num_inputs(const wg_model *m)
{
    return m->info.meta.n_inputs;
}

size_t wg_model_num_outputs(const wg_model *m)
{
    return m->info.meta.n_outputs;
}

const wg_tensor_info *wg_model_input(const wg_model *m, size_t i)
{
    return i < m->info.meta.n_inputs ? &m->info.meta.inputs[i] : NULL;
}

const wg_tensor_info *wg_model_output(const wg_model *m, size_t i)
{
    return i < m->info.meta.n_outputs ? &m->info.meta.outputs[i] : NULL;
}

const char *wg_model_metadata_json(const wg_model *m)
{
    return m->info.meta.json;
}

size_t wg_model_num_steps(const wg_model *m)
{
    return m->info.meta.n_steps;
}

const char *wg_model_step_label(const wg_model *m, size_t k)
{
    return k < m->info.meta.n_steps ? m->info.meta.steps[k] : NULL;
}
