/*
 * generate.c: writes the module's C source.
 *
 * Layout of linear memory, fixed here and baked into the code as constants:
 *   [0, 16384)                      unused (keeps address 0 invalid for tensors)
 *   [16384, +weight_bytes)          weights, a data segment, packed as the kernels read them
 *                                   (page-aligned here and in the file: hosts may map it)
 *   [prepared_base, +prepared_bytes) prepared weights (wgc_prepared): zero at instantiation,
 *                                   no bytes in the file; filled by the ops' code on the
 *                                   first or second run (Winograd filters, transformed from the
 *                                   packed filters in the weights segment: 16/9 or 36/9 larger, so
 *                                   storing them would make the file much larger
 *                                   (docs/performance.md); float16
 *                                   weights widened on the first run of the step that
 *                                   reads them, emitter.c)
 *   [arena_base, +arena_bytes)      inputs, outputs, intermediates, scratch
 *   [cache_base, +cache_bytes)      the KV-cache regions (ir/cache_pairs.h): no bytes in the
 *                                   file; a pair's Concat keeps its present there when the
 *                                   host asks (docs/abi.md "Resident KV caches")
 *   [global_base, ...)              the kernels' and ops' static data (WGC_STATIC_DATA_BUDGET
 *                                   + wgc_static_data), then the stack (wasm-ld)
 *   threaded builds, then:          the other threads' stacks, then one packed-B GEMM
 *                                   broadcast buffer per thread (threads.c: not static data,
 *                                   which wasm-ld writes into the file when memory is imported)
 *
 * The exports this file writes, their types and the statuses they return are the module
 * ABI, documented in docs/abi.md (the contract both hosts are written from; change it
 * there first). In short: each live node's code is one case of an exported
 * `wg_run_step(k)` (an If, Loop or Scan with all of its bodies' nodes is one; the copies
 * of constant outputs, when there are any, one more), `wg_run_steps()` is the count,
 * and wg_run calls the steps in order. The metadata's "step_weights" (metadata.c) gives,
 * per step, how many bytes of the weights segment the steps up to it read: weights are
 * placed in the order the nodes first use them, so that is the segment's length once the
 * step is emitted. A host that copies the weights
 * itself may then run the first steps while later weights are still being read
 * (js/wasmgraph.mjs, streamWeights). A profile build (`compile --profile`) also exports
 * `wg_profile_steps()` (the node steps) and `wg_profile_step(k)`, and its metadata's
 * "profile" array names them (metadata.c walks the same live nodes in the same order).
 * Wrapping is safe because emit hooks keep their declarations inside their own `{ ... }`
 * (two nodes of one op would otherwise clash in wg_run too) and #undef what they
 * #define; a `return` of a status from a node (kernels/include/wgk_status.h, e.g.
 * WGK_ERR_INDEX) returns it from the step, and wg_run passes it on. A step number out of
 * range returns WGK_ERR_NO_STEP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_gemm.h"
#include "../ops/op.h"
#include "../ops/sym.h"
#include "codegen.h"
#include "sym_exports.h"
#include "../ir/cache_pairs.h"
#include "../ir/symdim.h"

typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = true;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t nc = t->cap ? t->cap : 8192;
        while (nc < t->len + (size_t)n + 1)
            nc *= 2;
        char *ns = realloc(t->s, nc);
        if (!ns) {
            t->failed = true;
            return;
        }
        t->s = ns;
        t->cap = nc;
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The module ABI's limits (wasmgraph.h WG_ABI_MAX_*, docs/abi.md) on what the metadata
 * describes: a model past one would compile to a module no host loads, so it is refused
 * here. Tensor sizes past the elements limit cannot fit wasm32 memory and are refused by
 * the layout below. */
static wg_status check_abi_limits(wgc_graph *g)
{
    const struct {
        const char *what;
        const int *ts;
        int n;
    } lists[] = {{"input", g->inputs, g->n_inputs}, {"output", g->outputs, g->n_outputs}};
    for (int l = 0; l < 2; l++) {
        if (lists[l].n > WG_ABI_MAX_TENSORS)
            return wgc_error(g, NULL, WG_ERR_UNSUPPORTED,
                             "the model has %d %ss; the module ABI allows at most %d",
                             lists[l].n, lists[l].what, WG_ABI_MAX_TENSORS);
        for (int k = 0; k < lists[l].n; k++) {
            const wgc_tensor *x = &g->tensors[lists[l].ts[k]];
            for (int d = 0; d < x->shape.rank; d++)
                if (x->shape.dims[d] > WG_ABI_MAX_DIM)
                    return wgc_error(g, NULL, WG_ERR_UNSUPPORTED,
                                     "graph %s '%s' has dimension %d of %lld; the module ABI "
                                     "allows at most %d", lists[l].what, x->name, d,
                                     (long long)x->shape.dims[d], WG_ABI_MAX_DIM);
        }
    }
    return WG_OK;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Graph outputs that no node writes (constants, or inputs passed through) are copied
 * into their slots at the end of wg_run. */
static void emit_output_copies(wgc_emitter *e, wgc_graph *g)
{
    for (int k = 0; k < g->n_outputs; k++) {
        int t = g->outputs[k];
        wgc_tensor *y = &g->tensors[t];
        int64_t bytes = wgc_numel(&y->shape) * (int64_t)wg_dtype_size(y->dtype);
        if (y->data) {
            const char *w;
            if (wgc_weight(e, y->data, (size_t)bytes, &w) == WG_OK)
                wgc_emit(e, "memcpy(A(%lld), %s, %lld); /* constant output %s */\n",
                         (long long)y->addr, w, (long long)bytes, y->name);
            else
                e->failed = true;
        }
    }
}

/* The step function: span[2k], span[2k+1] bound step k's code in e->body. Returns
 * WGK_ERR_NO_STEP (-1) past the last one. A profile build also gets its node steps by the
 * names `wasmgraph profile` uses. */
static void put_steps(text *t, const wgc_emitter *e, const size_t *span, const int *halves, int n_steps,
                      int n_node_steps, bool profile, bool dims)
{
    put(t, "__attribute__((export_name(\"wg_run_steps\"))) int wg_run_steps(void) { return %d; }\n\n", n_steps);
    put(t, "__attribute__((export_name(\"wg_run_step\"))) int wg_run_step(int k)\n{\n");
    if (dims) /* ABI 2: every step first checks the symbols the host wrote (sym_exports.c) */
        put(t, "    if (wg_check_dims())\n        return WGK_ERR_DIMS;\n");
    put(t, "    switch (k) {\n");
    for (int k = 0; k < n_steps; k++) {
        put(t, "    case %d: {\n", k);
        /* The float16 weights this step placed (emitter.c), widened on its first run. */
        if (halves[2 * k + 1] > halves[2 * k]) {
            put(t, "    static int widened;\n    if (!widened) {\n");
            for (int h = halves[2 * k]; h < halves[2 * k + 1]; h++)
                put(t, "        wgk_f16_widen(W(%llu), P(%llu), %llu);\n", (unsigned long long)e->halves[h].woff,
                    (unsigned long long)e->halves[h].poff, (unsigned long long)e->halves[h].n);
            put(t, "        widened = 1;\n    }\n");
        }
        put(t, "%.*s    } break;\n", (int)(span[2 * k + 1] - span[2 * k]), e->body + span[2 * k]);
    }
    put(t, "    default: return WGK_ERR_NO_STEP;\n    }\n    return 0;\n}\n\n");
    if (profile) {
        put(t, "__attribute__((export_name(\"wg_profile_steps\"))) int wg_profile_steps(void) { return %d; }\n\n",
            n_node_steps);
        put(t, "__attribute__((export_name(\"wg_profile_step\"))) int wg_profile_step(int k)\n{\n"
               "    return k >= 0 && k < %d ? wg_run_step(k) : WGK_ERR_NO_STEP;\n}\n\n",
            n_node_steps);
    }
}

wg_status wgc_generate_c(wgc_graph *g, const wgc_plan *plan, const wgc_codegen_options *opt, wgc_emitter *e,
                         wgc_layout *layout, char **src)
{
    text t = {0};
    wg_status st = WG_OK;
    size_t *span = NULL; /* [start, end) of each step's code in e->body */
    int *halves = NULL;  /* [start, end) of each step's float16 weights in e->halves */
    wgc_step_kind *kind = NULL; /* threaded builds: how the step runs (threads.c) */
    char *thr = NULL;
    int n_steps = 0;
    *src = NULL;
    if ((st = check_abi_limits(g)) || (g->n_syms && (st = wgc_sym_check_boundary(g))))
        return st;
    /* One step per live node and one for the output copies. */
    if (!(span = malloc(sizeof *span * 2 * (size_t)(g->n_nodes + 1))) ||
        !(halves = malloc(sizeof *halves * 2 * (size_t)(g->n_nodes + 1))) ||
        !(e->step_weights = malloc(sizeof *e->step_weights * (size_t)(g->n_nodes + 1))) ||
        !(kind = calloc((size_t)(g->n_nodes + 1), sizeof *kind))) {
        st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        size_t start = e->len;
        halves[2 * n_steps] = e->n_halves;
        e->split = false;
        /* one step per live node, except that an If, Loop or Scan with its bodies is one
         * (whose nodes a threaded build runs on thread 0 alone: e->single) */
        const int last = wgc_step_last(g, i);
        e->single = last > i;
        size_t code = 0; /* bytes emitted beyond the nodes' comments */
        for (; i <= last; i++) {
            wgc_node *n = &g->nodes[i];
            if (n->dead)
                continue;
            e->node = i;
            wgc_emit(e, "/* %s: %s */\n", n->op_type, n->name);
            const size_t node_start = e->len;
            /* a node of symbolic shapes runs on sizes read at run time (ops/sym_emit.c) */
            if ((st = g->n_syms && wgc_sym_node(g, n) ? wgc_sym_emit(e, g, n)
                                                      : wgc_op_hooks(n->op)->emit(e, g, n)))
                goto fail;
            if (n->op == WGC_OP_BODY_BEGIN || n->op == WGC_OP_BODY_ELSE)
                wgc_emit_empty_checks(e, g, i); /* inputs given empty that this body reads */
            code += e->len - node_start;
        }
        i = last;
        e->single = false;
        kind[n_steps] = e->split ? WGC_STEP_SPLIT : code ? WGC_STEP_THREAD0 : WGC_STEP_EMPTY;
        span[2 * n_steps] = start;
        span[2 * n_steps + 1] = e->len;
        halves[2 * n_steps + 1] = e->n_halves;
        e->step_weights[n_steps++] = e->wlen;
    }
    const int n_node_steps = n_steps;
    size_t copies_start = e->len;
    const int copies_halves = e->n_halves;
    e->node = -1;
    emit_output_copies(e, g);
    if (e->len > copies_start) {
        span[2 * n_steps] = copies_start;
        span[2 * n_steps + 1] = e->len;
        halves[2 * n_steps] = copies_halves;
        halves[2 * n_steps + 1] = e->n_halves;
        e->step_weights[n_steps++] = e->wlen;
    }
    e->n_steps = n_steps;
    if (e->failed) {
        st = wgc_error(g, NULL, WG_ERR_NOMEM, "code generation failed (out of memory or unplanned tensor)");
        goto fail;
    }

    wgc_static_data(e, sizeof(int32_t) * 2 * (size_t)wgc_cache_pairs(g, NULL, 0)); /* sym_exports.c's arrays */
    layout->weights_base = WGC_WEIGHTS_BASE;
    layout->weight_bytes = e->wlen;
    layout->prepared_bytes = e->plen;
    layout->arena_bytes = (uint64_t)plan->arena_bytes;
    uint64_t prepared_base = align_up(WGC_WEIGHTS_BASE + e->wlen, 64);
    uint64_t arena_base = align_up(prepared_base + e->plen, 64);
    uint64_t cache_base = align_up(arena_base + (uint64_t)plan->arena_bytes, 64);
    layout->cache_bytes = (uint64_t)wgc_cache_bytes(g);
    uint64_t global_base = align_up(cache_base + layout->cache_bytes, 64);
    /* A threaded module's GEMM broadcast buffers lie past the stacks (threads.c): the
     * kernels' own (f32-gemm-splat-buffer.c) is not linked, and its room is not kept. */
    const uint64_t static_budget =
        WGC_STATIC_DATA_BUDGET - (opt->threads ? (uint64_t)WGK_GEMM_SPLAT_FLOATS * sizeof(float) : 0);
    uint64_t memory = align_up(global_base + static_budget + e->static_bytes + WGC_STACK_BYTES, 65536);
    const uint64_t stacks_base = memory; /* threaded builds: the other threads' stacks */
    uint64_t splat_base = 0;             /* then one GEMM broadcast buffer per thread */
    uint64_t thread_scratch_base = 0;    /* then each thread's scratch region (plan.h) */
    if (opt->threads) {
        splat_base = align_up(stacks_base + (uint64_t)(opt->threads - 1) * WGC_THREAD_STACK_BYTES, 64);
        thread_scratch_base = splat_base + (uint64_t)opt->threads * WGK_GEMM_SPLAT_FLOATS * sizeof(float);
        memory = align_up(thread_scratch_base + (uint64_t)opt->threads * (uint64_t)plan->thread_scratch_bytes,
                          65536);
    }
    if (memory > (uint64_t)4 << 30 || memory > 0xffff0000u) {
        st = wgc_error(g, NULL, WG_ERR_INVALID,
                       "the model needs %llu bytes of memory (weights %llu + prepared weights %llu + "
                       "arena %llu + KV-cache regions %llu); wasm32 allows 4 GiB",
                       (unsigned long long)memory, (unsigned long long)e->wlen,
                       (unsigned long long)e->plen, (unsigned long long)plan->arena_bytes,
                       (unsigned long long)layout->cache_bytes);
        goto fail;
    }
    layout->prepared_base = (uint32_t)prepared_base;
    layout->arena_base = (uint32_t)arena_base;
    layout->cache_base = (uint32_t)cache_base;
    layout->global_base = (uint32_t)global_base;
    layout->memory_bytes = (uint32_t)memory;

    put(&t, "/* Generated by `wasmgraph compile` from %s; do not edit. */\n", opt->model_path);
    put(&t, "#include \"wgk.h\"\n\n");
    put(&t, "#define W(o) ((void *)(uintptr_t)(%uu + (o)))\n", layout->weights_base);
    put(&t, "#define P(o) ((void *)(uintptr_t)(%uu + (o)))\n", layout->prepared_base);
    put(&t, "#define A(o) ((void *)(uintptr_t)(%uu + (o)))\n", layout->arena_base);
    put(&t, "#define C(o) ((void *)(uintptr_t)(%uu + (o)))\n\n", layout->cache_base);
    put(&t, "__attribute__((export_name(\"wg_abi_version\"))) int wg_abi_version(void) { return %d; }\n\n",
        opt->threads ? 2 : wgc_module_abi(g));
    if (g->n_syms) {
        char *dims = wgc_sym_exports_c(g);
        if (!dims) {
            st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory writing the C source");
            goto fail;
        }
        put(&t, "%s", dims);
        free(dims);
    }
    if (wgc_sym_any_runtime(g) || wgc_outputs_report_dims(g)) {
        char *od = wgc_output_dims_c(g);
        if (!od) {
            st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory writing the C source");
            goto fail;
        }
        put(&t, "%s", od);
        free(od);
    }
    put(&t, "__attribute__((export_name(\"wg_input_ptr\"))) int wg_input_ptr(int i)\n{\n    switch (i) {\n");
    for (int k = 0; k < g->n_inputs; k++)
        put(&t, "    case %d: return (int)(uintptr_t)A(%lld); /* %s */\n", k,
            (long long)g->tensors[g->inputs[k]].addr, g->tensors[g->inputs[k]].name);
    put(&t, "    default: return 0;\n    }\n}\n\n");
    put(&t, "__attribute__((export_name(\"wg_output_ptr\"))) int wg_output_ptr(int i)\n{\n    switch (i) {\n");
    for (int k = 0; k < g->n_outputs; k++)
        put(&t, "    case %d: return (int)(uintptr_t)A(%lld); /* %s */\n", k,
            (long long)g->tensors[g->outputs[k]].addr, g->tensors[g->outputs[k]].name);
    put(&t, "    default: return 0;\n    }\n}\n\n");
    if (opt->threads) {
        if (!(thr = wgc_threads_source(e->body, span, kind, n_steps, n_node_steps, opt->profile, g->n_syms > 0,
                                       opt->threads, (uint32_t)stacks_base, (uint32_t)splat_base,
                                       (uint32_t)thread_scratch_base, (uint32_t)plan->thread_scratch_bytes))) {
            st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory writing the C source");
            goto fail;
        }
        put(&t, "%s", thr);
    } else {
        put_steps(&t, e, span, halves, n_steps, n_node_steps, opt->profile, g->n_syms > 0);
        put(&t, "__attribute__((export_name(\"wg_run\"))) int wg_run(void)\n{\n");
        put(&t, "    for (int k = 0; k < %d; k++) {\n        int status = wg_run_step(k);\n"
                "        if (status)\n            return status;\n    }\n", n_steps);
        put(&t, "    return 0;\n}\n");
    }
    if (t.failed) {
        st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory writing the C source");
        goto fail;
    }
    *src = t.s;
    t.s = NULL;
fail:
    free(t.s);
    free(span);
    free(halves);
    free(kind);
    free(thr);
    return st;
}
