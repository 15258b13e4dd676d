/* model.c: loading a module: our own ABI checks (inspect.c), then wasmtime compiles it. */
#include "host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

wg_status wg_model_load_bytes(wg_runtime *rt, const uint8_t *bytes, size_t len, const char *name,
                              wg_model **out)
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
    e = wasmtime_module_new(rt->engine, bytes, len, &m->module);
    if (e) {
        /* Our scan passed, so a refusal here is invalid code or an engine problem; wasmtime
         * reports both the same way, and validation failures are by far the likely one. */
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s: wasmtime cannot compile the module", name);
        st = wgh_wasmtime_error(rt, WG_ERR_FORMAT, e, prefix);
        goto fail;
    }
    rt->err[0] = 0;
    *out = m;
    return WG_OK;
fail:
    wg_model_free(m);
    return st;
}

wg_status wg_model_load(wg_runtime *rt, const char *path, wg_model **out)
{
    uint8_t *bytes;
    size_t len;
    char err[900];
    *out = NULL;
    wg_status st = wgh_read_file(path, &bytes, &len, err, sizeof err);
    if (st)
        return wgh_error(rt, st, "%s", err);
    st = wg_model_load_bytes(rt, bytes, len, path, out);
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
