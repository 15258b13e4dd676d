/* metadata.c: the JSON carried by the module's `wasmgraph` custom section (docs/abi.md
 * "Metadata"): ABI 1, or ABI 2 for a threaded module and for one with a version-2 feature
 * (wgc_module_abi: symbolic or run-time dims, sequence or optional graph values).
 * Profile builds add "profile": one {"op","name","output"} per step, that is per live node
 * in graph order, the same walk as generate.c's; steps whose kernel the selection step
 * chose also name it: "kernel" (its label in src/ir/kernels.def) and, when the module's
 * first run runs another one, "first_run_kernel". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "../ir/kernels.h"
#include "sym_exports.h"
#include "../ir/cache_pairs.h"
#include "../ir/symdim.h"

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool failed;
} sbuf;

static void add(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1024;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->failed = true;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static void addf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(sbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void add_string(sbuf *b, const char *s)
{
    add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            add(b, esc, 2);
        } else if (*p < 0x20) {
            addf(b, "\\u%04x", *p);
        } else {
            add(b, (const char *)p, 1);
        }
    }
    add(b, "\"", 1);
}

static void add_tensors(sbuf *b, const wgc_graph *g, const int *ts, int n, bool inputs)
{
    add(b, "[", 1);
    for (int k = 0; k < n; k++) {
        const wgc_tensor *x = &g->tensors[ts[k]];
        const char *open = k ? ",{\"name\":" : "{\"name\":";
        add(b, open, strlen(open));
        add_string(b, x->name);
        addf(b, ",\"dtype\":\"%s\",\"shape\":[", wg_dtype_name(x->dtype));
        for (int d = 0; d < x->shape.rank; d++) {
            int sym = wgc_sym_plain(g, &x->shape, d);
            if (d)
                add(b, ",", 1);
            if (wgc_output_dim_reported(g, &x->shape, d)) { /* ABI 2: told after the run, {"max": bound} */
                addf(b, "{\"max\":%lld}", (long long)x->shape.dims[d]);
            } else if (sym >= 0) { /* ABI 2: a host symbol (or its multiple's step * unit), {"sym": NAME} */
                add(b, "{\"sym\":", 7);
                add_string(b, g->syms[sym].name);
                add(b, "}", 1);
            } else {
                addf(b, "%lld", (long long)x->shape.dims[d]);
            }
        }
        addf(b, "],\"bytes\":%lld", (long long)(wgc_numel(&x->shape) * (int64_t)wg_dtype_size(x->dtype)));
        if (x->value_of >= 0) { /* part of a sequence or optional (docs/abi.md, ABI 2) */
            const wgc_tensor *v = &g->tensors[x->value_of];
            bool holds_seq = v->kind == WGC_KIND_SEQUENCE ||
                             (v->n_elems == 1 && g->tensors[v->elems[0]].kind == WGC_KIND_SEQUENCE);
            add(b, ",\"value\":{\"name\":", strlen(",\"value\":{\"name\":"));
            add_string(b, v->name);
            addf(b, ",\"kind\":\"%s\",\"holds\":\"%s\",\"part\":", v->kind == WGC_KIND_SEQUENCE ? "sequence" : "optional",
                 holds_seq ? "sequence" : "tensor");
            if (x->value_part < 0)
                add(b, "\"present\"}", strlen("\"present\"}"));
            else
                addf(b, "%d}", x->value_part);
        }
        if (inputs && wgc_input_may_be_empty(g, k)) /* docs/abi.md "Empty inputs" */
            add(b, ",\"may_be_empty\":true", strlen(",\"may_be_empty\":true"));
        add(b, "}", 1);
    }
    add(b, "]", 1);
}

int wgc_module_abi(const wgc_graph *g)
{
    if (g->n_syms)
        return 2;
    for (int k = 0; k < g->n_inputs; k++)
        if (g->tensors[g->inputs[k]].value_of >= 0)
            return 2;
    for (int k = 0; k < g->n_outputs; k++)
        if (g->tensors[g->outputs[k]].value_of >= 0)
            return 2;
    return 1;
}

static void add_profile(sbuf *b, const wgc_graph *g)
{
    add(b, ",\"profile\":[", strlen(",\"profile\":["));
    bool first = true;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        i = wgc_step_last(g, i); /* an If/Loop/Scan is one step, named by its node */
        const wgc_node *n = &g->nodes[i];
        const char *out = n->n_outputs > 0 && n->outputs[0] >= 0 ? g->tensors[n->outputs[0]].name : "";
        const char *open = first ? "{\"op\":" : ",{\"op\":";
        add(b, open, strlen(open));
        add_string(b, n->op_type);
        add(b, ",\"name\":", strlen(",\"name\":"));
        add_string(b, n->name);
        add(b, ",\"output\":", strlen(",\"output\":"));
        add_string(b, out);
        if (n->impl.kernel) {
            add(b, ",\"kernel\":", strlen(",\"kernel\":"));
            add_string(b, wgc_kernel_label(n->impl.kernel));
        }
        if (n->impl.first_run) {
            add(b, ",\"first_run_kernel\":", strlen(",\"first_run_kernel\":"));
            add_string(b, wgc_kernel_label(n->impl.first_run));
        }
        add(b, "}", 1);
        first = false;
    }
    add(b, "]", 1);
}

/* "cache_pairs" (docs/abi.md "Resident KV caches"): the past and present of each pair, its
 * concat axis and the rows of one outer slice its region holds. */
static void add_cache_pairs(sbuf *b, const wgc_graph *g)
{
    const int n = wgc_cache_pairs(g, NULL, 0);
    wgc_cache_pair *p = n ? malloc(sizeof *p * (size_t)n) : NULL;
    if (!n || !p) {
        b->failed |= n > 0;
        free(p);
        return;
    }
    wgc_cache_pairs(g, p, n);
    add(b, ",\"cache_pairs\":[", strlen(",\"cache_pairs\":["));
    for (int k = 0; k < n; k++)
        addf(b, "%s{\"past\":%d,\"present\":%d,\"axis\":%d,\"capacity\":%lld}", k ? "," : "", p[k].input,
             p[k].output, p[k].axis, (long long)p[k].capacity);
    add(b, "]", 1);
    free(p);
}

/* "step_weights": per step of wg_run_step, the bytes of the weights segment (at
 * "weights_base") that it and the steps before it read. */
static void add_step_weights(sbuf *b, const wgc_emitter *e)
{
    add(b, ",\"step_weights\":[", strlen(",\"step_weights\":["));
    for (int k = 0; k < e->n_steps; k++)
        addf(b, k ? ",%llu" : "%llu", (unsigned long long)e->step_weights[k]);
    add(b, "]", 1);
}

char *wgc_metadata_json(const wgc_graph *g, const wgc_codegen_options *opt, const wgc_layout *layout, const wgc_emitter *e)
{
    sbuf b = {0};
    addf(&b, "{\"abi\":%d,", opt->threads ? 2 : wgc_module_abi(g));
    if (wgc_sym_n_host(g)) { /* ABI 2 */
        add(&b, "\"symbols\":[", 11);
        for (int k = 0; k < wgc_sym_n_host(g); k++) {
            add(&b, k ? ",{\"name\":" : "{\"name\":", k ? 9 : 8);
            add_string(&b, g->syms[k].name);
            addf(&b, ",\"min\":%lld,\"max\":%lld", (long long)g->syms[k].min, (long long)g->syms[k].max);
            if (g->syms[k].step > 1) /* the multiples of step only (compile --dim NAME=MIN..MAX:STEP) */
                addf(&b, ",\"step\":%lld", (long long)g->syms[k].step);
            if (g->syms[k].n_terms) { /* a dim_param `past + seq`: plus + sum of c * symbol, checked */
                add(&b, ",\"sum\":{\"terms\":[", strlen(",\"sum\":{\"terms\":["));
                for (int t = 0; t < g->syms[k].n_terms; t++) {
                    addf(&b, "%s[%lld,", t ? "," : "", (long long)g->syms[k].term_c[t]);
                    add_string(&b, g->syms[g->syms[k].term[t]].name);
                    add(&b, "]", 1);
                }
                addf(&b, "],\"plus\":%lld}", (long long)g->syms[k].plus);
            }
            add(&b, "}", 1);
        }
        add(&b, "],", 2);
    }
    add(&b, "\"name\":", 7);
    add_string(&b, g->name && g->name[0] ? g->name : "model");
    add(&b, ",\"producer\":", strlen(",\"producer\":"));
    add_string(&b, g->producer);
    addf(&b, ",\"opset\":%d,\"inputs\":", g->opset);
    add_tensors(&b, g, g->inputs, g->n_inputs, true);
    add(&b, ",\"outputs\":", strlen(",\"outputs\":"));
    add_tensors(&b, g, g->outputs, g->n_outputs, false);
    addf(&b, ",\"options\":{\"simd\":%s,\"relaxed_simd\":%s,\"opt_level\":%d}", opt->simd ? "true" : "false",
         opt->relaxed_simd ? "true" : "false", opt->opt_level);
    addf(&b, ",\"arena_bytes\":%llu,\"weight_bytes\":%llu,\"memory_bytes\":%u,\"weights_base\":%u",
         (unsigned long long)layout->arena_bytes, (unsigned long long)layout->weight_bytes,
         layout->memory_bytes, layout->weights_base);
    add_step_weights(&b, e);
    add_cache_pairs(&b, g);
    if (opt->threads) /* docs/abi.md "Threads": the most threads wg_run_begin takes */
        addf(&b, ",\"threads\":%d", opt->threads);
    if (opt->profile)
        add_profile(&b, g);
    if (opt->preprocess_json) { /* compile --preprocess: the image preprocessing the model wants */
        add(&b, ",\"preprocess\":", strlen(",\"preprocess\":"));
        add(&b, opt->preprocess_json, strlen(opt->preprocess_json));
    }
    if (opt->generation_json) { /* compile DIR: the model folder's generation defaults */
        add(&b, ",\"generation\":", strlen(",\"generation\":"));
        add(&b, opt->generation_json, strlen(opt->generation_json));
    }
    add(&b, ",\"compiler\":\"wasmgraph " WG_VERSION "\"}", strlen(",\"compiler\":\"wasmgraph " WG_VERSION "\"}"));
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
