/* session.c: one instance of a model: its store, exports and tensor addresses. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pread, mmap, O_CLOEXEC, st_mtim */
#endif
#include "host.h"
#include "../../kernels/include/wgk_status.h"
#include "../common/dtype.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Looks up a function export (its type was checked by inspect.c before compiling). */
static wg_status get_func(wg_session *s, const char *name, wasmtime_func_t *out)
{
    wasmtime_extern_t ext;
    if (!wasmtime_instance_export_get(s->ctx, &s->instance, name, strlen(name), &ext))
        return wgh_error(s->m->rt, WG_ERR_ABI, "%s: no export `%s`", s->m->name, name);
    if (ext.kind != WASMTIME_EXTERN_FUNC) {
        wasmtime_extern_delete(&ext);
        return wgh_error(s->m->rt, WG_ERR_ABI, "%s: export `%s` is not a function", s->m->name, name);
    }
    *out = ext.of.func;
    return WG_OK;
}

/* The memory offset a pointer export (`wg_dims_ptr`, `wg_input_empty_ptr`, ...) returns. */
static wg_status export_offset(wg_session *s, const char *name, uint32_t *off)
{
    wasmtime_func_t f;
    int32_t p;
    wg_status st = get_func(s, name, &f);
    if (!st && !(st = wgh_call_i32(s, &f, name, false, 0, &p)))
        *off = (uint32_t)p;
    return st;
}

/* Maps the whole pages of a data segment from the module file over its place in linear
 * memory (private, copy-on-write: writes stay in the session). Returns the bytes mapped:
 * 0 when the segment is small, not page-aligned in the file or in memory (modules
 * before the aligned layout), or mmap refuses; the caller reads the rest. */
static uint64_t map_data(wg_session *s, const wgh_segment *g, uint8_t *dst)
{
    const long page = sysconf(_SC_PAGESIZE);
    if (s->m->rt->opts.copy_weights || page <= 0 || g->len < 16 * (uint64_t)page ||
        (uintptr_t)dst % (uintptr_t)page || g->file_off % (uint64_t)page)
        return 0;
    const uint64_t len = g->len / (uint64_t)page * (uint64_t)page;
    if (len > SIZE_MAX)
        return 0;
    void *r = mmap(dst, (size_t)len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                   s->m->data_fd, (off_t)g->file_off);
    return r == MAP_FAILED ? 0 : len;
}

/* Asks for transparent huge pages on the linear memory (the kernel here gives them only
 * on request). The module's arena and its first-run Winograd filters are tens of MiB
 * first touched during the first run: in 2 MiB pages that takes several times fewer
 * page faults and less time, and leaves fewer TLB misses for every run after (on a VM,
 * touching memory the host has never backed costs more either way; docs/performance.md).
 * Advice only: failure changes nothing. The pages mapped from the file later (map_data)
 * stay small. */
static void advise_huge_pages(wg_session *s)
{
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t base = (uintptr_t)s->mem_base;
    uintptr_t end = base + (uintptr_t)s->mem_size;
    uintptr_t lo = (base + huge - 1) & ~(huge - 1), hi = end & ~(huge - 1);
#ifdef MADV_HUGEPAGE
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)lo, (void)hi;
#endif
}

/* Does what instantiation did not (the data was split off, see data_split.h): puts each
 * data segment from the module file into linear memory, mapped (map_data) or read. */
static wg_status copy_data(wg_session *s)
{
    wg_model *m = s->m;
    struct stat sb;
    if (fstat(m->data_fd, &sb))
        return wgh_error(m->rt, WG_ERR_IO, "%s: cannot stat: %s", m->name, strerror(errno));
    if ((int64_t)sb.st_size != m->file_size || (int64_t)sb.st_mtim.tv_sec != m->file_mtime_s ||
        (int64_t)sb.st_mtim.tv_nsec != m->file_mtime_ns)
        return wgh_error(m->rt, WG_ERR_IO,
                         "%s: the file changed since the model was loaded (now %lld bytes, was "
                         "%lld): load it again",
                         m->name, (long long)sb.st_size, (long long)m->file_size);
    uint8_t *mem = s->mem_base;
    uint64_t size = s->mem_size;
    for (size_t i = 0; i < m->split.n_segs; i++) {
        const wgh_segment *g = &m->split.segs[i];
        if (g->mem_off + g->len > size) /* checked against the declared minimum at load */
            return wgh_error(m->rt, WG_ERR_ABI,
                             "%s: data segment %zu (%llu bytes at %llu) does not fit in memory "
                             "(%llu bytes)",
                             m->name, i, (unsigned long long)g->len,
                             (unsigned long long)g->mem_off, (unsigned long long)size);
        uint64_t done = map_data(s, g, mem + g->mem_off);
        while (done < g->len) {
            size_t want = (size_t)(g->len - done < (1u << 30) ? g->len - done : 1u << 30);
            ssize_t got = pread(m->data_fd, mem + g->mem_off + done, want, (off_t)(g->file_off + done));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return wgh_error(m->rt, WG_ERR_IO,
                                 "%s: cannot read data segment %zu at byte %llu: %s", m->name, i,
                                 (unsigned long long)(g->file_off + done),
                                 got < 0 ? strerror(errno) : "unexpected end of file");
            done += (uint64_t)got;
        }
    }
    return WG_OK;
}

/* Gets the address of tensor i (input or output) and checks it lies inside memory and
 * is aligned to its element size (as the JS loader's typed-array views need). */
static wg_status tensor_addr(wg_session *s, const char *fname, size_t i, const wg_tensor_info *t,
                             uint32_t *out)
{
    wasmtime_func_t f;
    int32_t ptr;
    wg_status st = get_func(s, fname, &f);
    if (!st)
        st = wgh_call_i32(s, &f, fname, true, (int32_t)i, &ptr);
    if (st)
        return st;
    uint64_t mem = s->mem_size;
    uint64_t p = (uint32_t)ptr;
    if (p + t->bytes > mem)
        return wgh_error(s->m->rt, WG_ERR_ABI,
                         "%s: %s(%zu) = %llu, so tensor '%s' (%zu bytes) would end at byte %llu, "
                         "past the end of memory (%llu bytes): the metadata does not match the "
                         "module",
                         s->m->name, fname, i, (unsigned long long)p, t->name, t->bytes,
                         (unsigned long long)(p + t->bytes), (unsigned long long)mem);
    size_t esize = wg_dtype_size(t->dtype);
    if (esize > 1 && p % esize)
        return wgh_error(s->m->rt, WG_ERR_ABI,
                         "%s: %s(%zu) = %llu is not aligned to %zu bytes for tensor '%s'",
                         s->m->name, fname, i, (unsigned long long)p, esize, t->name);
    *out = (uint32_t)p;
    return WG_OK;
}

wg_status wg_session_new(wg_model *m, wg_session **out)
{
    wg_runtime *rt = m->rt;
    wg_status st;
    wasm_trap_t *trap = NULL;
    wasmtime_extern_t ext;
    wasmtime_func_t f;
    int32_t version;
    *out = NULL;
    wg_session *s = calloc(1, sizeof *s);
    if (!s)
        return wgh_error(rt, WG_ERR_NOMEM, "%s: out of memory", m->name);
    s->m = m;
    s->in_off = calloc(m->info.meta.n_inputs + 1, sizeof *s->in_off);
    s->out_off = calloc(m->info.meta.n_outputs + 1, sizeof *s->out_off);
    s->store = wasmtime_store_new(rt->engine, NULL, NULL);
    if (!s->in_off || !s->out_off || !s->store) {
        st = wgh_error(rt, WG_ERR_NOMEM, "%s: out of memory creating a session", m->name);
        goto fail;
    }
    s->ctx = wasmtime_store_context(s->store);
    if (rt->opts.memory_limit_bytes)
        wasmtime_store_limiter(s->store, (int64_t)rt->opts.memory_limit_bytes, -1, -1, -1, -1);
    /* With epoch interruption on, a store starts with deadline 0 (trap at once): give calls
     * outside wg_session_run plenty of room; the watchdog only ticks during calls. */
    if (rt->has_watchdog)
        wasmtime_context_set_epoch_deadline(s->ctx, UINT64_C(1) << 40);
    const bool threaded = m->info.meta.threads > 0;
    if (threaded && (st = wgh_threads_memory(s))) /* threads.c: the memory all threads import */
        goto fail;
    wasmtime_extern_t imp = {.kind = WASMTIME_EXTERN_SHAREDMEMORY, .of.sharedmemory = s->shmem};
    wgh_call call;
    wgh_run_begin(rt, s->ctx, &call, s->shmem);
    wasmtime_error_t *e = wasmtime_instance_new(s->ctx, m->module, threaded ? &imp : NULL, threaded ? 1 : 0,
                                                &s->instance, &trap);
    const bool overdue = wgh_run_end(rt, &call);
    if (e) {
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s: cannot instantiate", m->name);
        st = wgh_wasmtime_error(rt, rt->opts.memory_limit_bytes ? WG_ERR_LIMIT : WG_ERR_ENGINE, e,
                                prefix);
        goto fail;
    }
    if (trap) {
        st = wgh_trap_error(rt, trap, m->name, "instantiation");
        goto fail;
    }
    if (overdue) {
        st = wgh_limit_text(rt, m->name, "instantiation", rt->err, sizeof rt->err);
        goto fail;
    }
    if (!threaded) {
        if (!wasmtime_instance_export_get(s->ctx, &s->instance, "memory", 6, &ext) ||
            ext.kind != WASMTIME_EXTERN_MEMORY) {
            st = wgh_error(rt, WG_ERR_ABI, "%s: no memory export `memory`", m->name);
            goto fail;
        }
        s->memory = ext.of.memory;
        s->mem_base = wasmtime_memory_data(s->ctx, &s->memory);
        s->mem_size = wasmtime_memory_data_size(s->ctx, &s->memory);
    }
    advise_huge_pages(s);
    if (m->data_fd >= 0 && (st = copy_data(s)))
        goto fail;
    if ((st = get_func(s, "wg_abi_version", &f)) ||
        (st = wgh_call_i32(s, &f, "wg_abi_version", false, 0, &version)))
        goto fail;
    if (version != m->info.meta.abi) {
        st = wgh_error(rt, WG_ERR_ABI,
                       "%s: wg_abi_version() returns %d but the metadata says ABI %lld", m->name,
                       version, (long long)m->info.meta.abi);
        goto fail;
    }
    for (size_t i = 0; i < m->info.meta.n_inputs; i++)
        if ((st = tensor_addr(s, "wg_input_ptr", i, &m->info.meta.inputs[i], &s->in_off[i])))
            goto fail;
    for (size_t i = 0; i < m->info.meta.n_outputs; i++)
        if ((st = tensor_addr(s, "wg_output_ptr", i, &m->info.meta.outputs[i], &s->out_off[i])))
            goto fail;
    if ((st = get_func(s, "wg_run", &s->run)))
        goto fail;
    if (m->info.meta.n_symbols && (st = export_offset(s, "wg_dims_ptr", &s->dims_off))) /* ABI 2 */
        goto fail;
    if (m->info.meta.has_empty && /* docs/abi.md "Empty inputs" */
        (st = export_offset(s, "wg_input_empty_ptr", &s->empty_off)))
        goto fail;
    if (m->info.meta.n_cache_pairs && /* docs/abi.md "Resident KV caches" */
        (st = export_offset(s, "wg_cache_mode_ptr", &s->cache_off)))
        goto fail;
    if (m->info.meta.has_bounded && (st = get_func(s, "wg_output_dims_ptr", &s->out_dims_fn)))
        goto fail;
    if ((st = wgh_session_dims_init(s)) || (st = wgh_session_cache_init(s)))
        goto fail;
    if (m->info.meta.has_step_weights) {
        int32_t n_steps;
        if ((st = get_func(s, "wg_run_steps", &f)) ||
            (st = wgh_call_i32(s, &f, "wg_run_steps", false, 0, &n_steps)))
            goto fail;
        if (n_steps < 0 || (size_t)n_steps != m->info.meta.n_run_steps) {
            st = wgh_error(rt, WG_ERR_ABI,
                           "%s: wg_run_steps() returns %d but the metadata's step_weights has %zu "
                           "entries",
                           m->name, n_steps, m->info.meta.n_run_steps);
            goto fail;
        }
    }
    if (m->info.meta.has_profile) {
        int32_t n_steps;
        if ((st = get_func(s, "wg_profile_step", &s->step)) || (st = get_func(s, "wg_profile_steps", &f)) ||
            (st = wgh_call_i32(s, &f, "wg_profile_steps", false, 0, &n_steps)))
            goto fail;
        if (n_steps < 0 || (size_t)n_steps != m->info.meta.n_steps) {
            st = wgh_error(rt, WG_ERR_ABI,
                           "%s: wg_profile_steps() returns %d but the metadata lists %zu profile steps",
                           m->name, n_steps, m->info.meta.n_steps);
            goto fail;
        }
    }
    /* Last: the other threads' instances see the weights already in the memory. */
    if (threaded && (st = wgh_threads_start(s)))
        goto fail;
    rt->err[0] = 0;
    *out = s;
    return WG_OK;
fail:
    wg_session_free(s);
    return st;
}

void wg_session_free(wg_session *s)
{
    if (!s)
        return;
    wgh_threads_stop(s);
    if (s->store)
        wasmtime_store_delete(s->store);
    if (s->shmem)
        wasmtime_sharedmemory_delete(s->shmem);
    free(s->in_off);
    free(s->out_off);
    wgh_session_dims_free(s);
    wgh_session_cache_free(s);
    free(s);
}

void *wg_session_input(wg_session *s, size_t i)
{
    if (i >= s->m->info.meta.n_inputs)
        return NULL;
    return s->mem_base + s->in_off[i];
}

const void *wg_session_output(wg_session *s, size_t i)
{
    if (i >= s->m->info.meta.n_outputs)
        return NULL;
    return s->mem_base + s->out_off[i];
}

/* Calls wg_run or wg_profile_step(k): a trap, the time limit or a nonzero status is an error. */
static wg_status run_func(wg_session *s, const wasmtime_func_t *f, const char *fname, bool has_arg,
                          int32_t arg)
{
    int32_t status;
    wg_status st = wgh_call_i32(s, f, fname, has_arg, arg, &status);
    if (st)
        return st;
    return status ? wgh_status_error(s, fname, status) : WG_OK;
}

wg_status wgh_status_error(wg_session *s, const char *fname, int32_t status)
{
    const char *name = wgk_status_name(status);
    char empty[512] = "";
    size_t len = 0;
    for (size_t i = 0; status == WGK_ERR_EMPTY_INPUT && s->in_empty && i < s->m->info.meta.n_inputs; i++)
        if (s->in_empty[i] && len < sizeof empty)
            len += (size_t)snprintf(empty + len, sizeof empty - len, "%s'%s'", len ? ", " : "; given empty: ",
                                    s->m->info.meta.inputs[i].name);
    return wgh_error(s->m->rt, WG_ERR_TRAP, "%s: %s returned status %d (%s: %s%s)", s->m->name, fname, status,
                     name ? name : "unknown status", name ? wgk_status_meaning(status) : "not in this host's list",
                     empty);
}

wg_status wg_session_run(wg_session *s)
{
    wg_status st = wgh_session_write_dims(s); /* ABI 2: the sizes, checked before anything runs */
    if (!st)
        st = wgh_session_write_cache(s); /* the KV caches' modes, their lengths checked */
    if (st)
        return st;
    if (s->n_threads > 1)
        st = wgh_threads_run(s, 0, (int)s->m->info.meta.n_run_steps, "wg_run_thread");
    else
        st = run_func(s, &s->run, "wg_run", false, 0);
    if (!st)
        st = wgh_session_read_out_dims(s); /* ABI 2: data-dependent output dims */
    if (!st)
        wgh_session_cache_ran(s);
    return st;
}

wg_status wg_session_run_step(wg_session *s, size_t k)
{
    const wg_model *m = s->m;
    if (!m->info.meta.has_profile)
        return wgh_error(m->rt, WG_ERR_INVALID, "%s was not compiled with --profile", m->name);
    if (k >= m->info.meta.n_steps)
        return wgh_error(m->rt, WG_ERR_INVALID, "%s: profile step %zu out of range (the module has %zu)",
                         m->name, k, m->info.meta.n_steps);
    if (s->n_threads > 1) /* profile steps are the first run steps */
        return wgh_threads_run(s, (int)k, (int)k + 1, "wg_run_thread");
    return run_func(s, &s->step, "wg_profile_step", true, (int32_t)k);
}
