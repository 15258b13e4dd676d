/* cmd_info.c: `wasmgraph info MODEL.wasm [--json]`: a module's metadata, read without
 * compiling the module (wg_model_inspect: the checks wg_model_load makes before compiling). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/dtype.h"

static const char usage[] = "wasmgraph info MODEL.wasm [--json]";

/* "[batch,seq,128]": a symbolic dim (ABI 2) by its symbol's name, a data-dependent one as "<=N". */
static const char *shape_text(const wg_model_info *m, const wg_tensor_info *t, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < t->rank && n < len; d++) {
        if (t->sym[d] >= 0 && (size_t)t->sym[d] < m->num_symbols)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", d ? "," : "", m->symbols[t->sym[d]].name);
        else if (t->sym[d] == WG_DIM_BOUNDED) /* data-dependent: decided by the run */
            n += (size_t)snprintf(buf + n, len - n, "%s<=%lld", d ? "," : "", (long long)t->dims[d]);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%lld", d ? "," : "", (long long)t->dims[d]);
    }
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

static void print_tensors(const wg_model_info *m, const char *what, const wg_tensor_info *t, size_t n)
{
    printf("%s:\n", what);
    for (size_t i = 0; i < n; i++) {
        char shape[160];
        printf("  %-20s %-8s %-20s %zu bytes%s", t[i].name, wg_dtype_name(t[i].dtype),
               shape_text(m, &t[i], shape, sizeof shape), t[i].bytes, m->num_symbols ? " at most" : "");
        if (t[i].value && t[i].value_part < 0) /* part of a sequence or optional (ABI 2) */
            printf("  (optional '%s': present flag)", t[i].value);
        else if (t[i].value)
            printf("  (%s '%s': element %d)", t[i].value_kind == WG_VALUE_SEQUENCE ? "sequence" : "optional",
                   t[i].value, t[i].value_part);
        if (t[i].may_be_empty) /* docs/abi.md "Empty inputs" */
            printf("  (may be empty)");
        printf("\n");
    }
}

static void print_bytes(const char *what, int64_t v)
{
    if (v < 0)
        printf("%-10s (not recorded)\n", what);
    else
        printf("%-10s %lld bytes (%.2f MiB)\n", what, (long long)v, (double)v / (1 << 20));
}

int wg_cmd_info(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return wg_cli_usage(usage, "unknown option '%s'", argv[i]);
        else if (path)
            return wg_cli_usage(usage, "more than one model given ('%s', '%s')", path, argv[i]);
        else
            path = argv[i];
    }
    if (!path)
        return wg_cli_usage(usage, "no model given");

    char err[1024];
    wg_model_info *m;
    if (wg_model_inspect(path, &m, err, sizeof err))
        return wg_cli_fail("%s", err);
    if (json) {
        printf("%s\n", m->metadata_json);
        wg_model_info_free(m);
        return 0;
    }
    printf("%-10s %s\n", "model:", *m->name ? m->name : "(unnamed)");
    printf("%-10s %s (%zu bytes)\n", "file:", path, m->file_bytes);
    printf("%-10s %s\n", "producer:", *m->producer ? m->producer : "(unknown)");
    if (m->opset >= 0)
        printf("%-10s %lld\n", "opset:", (long long)m->opset);
    printf("%-10s %s\n", "compiler:", *m->compiler ? m->compiler : "(unknown)");
    printf("%-10s ABI %d", "module:", m->abi);
    if (m->has_options) {
        printf(", %s", m->relaxed_simd ? "relaxed SIMD" : m->simd ? "SIMD128" : "scalar (no SIMD)");
        if (m->opt_level >= 0)
            printf(", -O%lld", (long long)m->opt_level);
    }
    if (m->max_threads)
        printf(", threads (up to %d, shared memory)", m->max_threads);
    printf("\n");
    if (m->num_run_steps || m->num_profile_steps)
        printf("%-10s %zu (wg_run_step)%s\n", "steps:", m->num_run_steps,
               m->num_profile_steps ? ", profile build" : "");
    if (m->num_symbols) {
        printf("%-10s", "symbols:");
        for (size_t k = 0; k < m->num_symbols; k++)
        {
            printf("%s %s=%lld..%lld", k ? "," : "", m->symbols[k].name, (long long)m->symbols[k].min,
                   (long long)m->symbols[k].max);
            if (m->symbols[k].step > 1)
                printf(":%lld", (long long)m->symbols[k].step);
        }
        printf("\n");
    }
    print_tensors(m, "inputs", m->inputs, m->num_inputs);
    print_tensors(m, "outputs", m->outputs, m->num_outputs);
    if (m->num_cache_pairs) /* docs/abi.md "Resident KV caches" */
        printf("%-10s %zu pairs kept in the module ('%s' -> '%s', ...), %lld rows each\n", "KV cache:",
               m->num_cache_pairs, m->inputs[m->cache_pairs[0].past].name, m->outputs[m->cache_pairs[0].present].name,
               (long long)m->cache_pairs[0].capacity);
    print_bytes("arena:", m->arena_bytes);
    print_bytes("weights:", m->weight_bytes);
    print_bytes("memory:", m->memory_bytes >= 0 ? m->memory_bytes : (int64_t)m->memory_min_bytes);
    if (m->memory_bytes >= 0 && (uint64_t)m->memory_bytes != m->memory_min_bytes)
        printf("%-10s the module declares %llu bytes of initial memory\n", "",
               (unsigned long long)m->memory_min_bytes);
    wg_model_info_free(m);
    return 0;
}
