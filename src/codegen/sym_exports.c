/* sym_exports.c: the exports and checks of a module with symbolic dims (sym_exports.h). */
#include "sym_exports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/cache_pairs.h"
#include "../ir/symdim.h"

int wgc_sym_plain(const wgc_graph *g, const wgc_shape *s, int d)
{
    wgc_dimx x = wgc_dimx_of(g, s, d);
    int sym = -1, count = 0;
    for (int k = 0; k < WGC_MAX_SYMS; k++)
        if (x.p[k]) {
            sym = k;
            count += x.p[k];
        }
    if (count != 1)
        return -1;
    /* step * unit is the host's multiple itself (--dim h=32..960:32) */
    for (int k = 0; k < wgc_sym_n_host(g); k++)
        if (g->syms[k].unit == sym && g->syms[k].unit >= 0 && x.c == g->syms[k].step)
            return k;
    return x.c == 1 ? sym : -1;
}

wg_status wgc_sym_check_boundary(wgc_graph *g)
{
    char buf[96];
    for (int k = 0; k < g->n_inputs; k++) {
        const wgc_tensor *x = &g->tensors[g->inputs[k]];
        for (int d = 0; d < x->shape.rank; d++) {
            const int sym = wgc_sym_plain(g, &x->shape, d);
            if (wgc_dim_is_sym(&x->shape, d) && (sym < 0 || g->syms[sym].runtime)) {
                wgc_dimx v = wgc_dimx_of(g, &x->shape, d);
                return wgc_error(g, NULL, WG_ERR_UNSUPPORTED,
                                 "graph input '%s' has dimension %d of size %s; module ABI 2 describes a "
                                 "symbolic dimension of a graph input only as one symbol", x->name, d,
                                 wgc_dimx_str(g, &v, buf, sizeof buf));
            }
        }
    }
    return WG_OK;
}

bool wgc_output_dim_reported(const wgc_graph *g, const wgc_shape *s, int d)
{
    if (!wgc_dim_is_sym(s, d))
        return false;
    const int sym = wgc_sym_plain(g, s, d);
    return sym < 0 || g->syms[sym].runtime;
}

bool wgc_outputs_report_dims(const wgc_graph *g)
{
    for (int k = 0; k < g->n_outputs; k++) {
        const wgc_shape *s = &g->tensors[g->outputs[k]].shape;
        for (int d = 0; d < s->rank; d++)
            if (wgc_output_dim_reported(g, s, d))
                return true;
    }
    return false;
}

/* live[r]: the region whose code runs region r's nodes (r = 0..n_regions): r when its
 * marker is live; else (a folded If's branch, an unrolled or removed body) the region that
 * holds its construct, and so on out (0: the main graph). Malloc'ed; NULL when out of
 * memory. */
static int *live_regions(const wgc_graph *g)
{
    const size_t n = (size_t)g->n_regions + 1;
    int *marker = malloc(sizeof(int) * n), *live = malloc(sizeof(int) * n);
    if (!marker || !live) {
        free(marker);
        free(live);
        return NULL;
    }
    for (size_t r = 0; r < n; r++)
        marker[r] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *x = &g->nodes[i];
        if ((x->op == WGC_OP_BODY_BEGIN || x->op == WGC_OP_BODY_ELSE) && x->region >= 0 && (size_t)x->region < n &&
            marker[x->region] < 0)
            marker[x->region] = i;
    }
    for (size_t r0 = 0; r0 < n; r0++) {
        int r = (int)r0;
        for (size_t hops = 0; r > 0 && hops < n; hops++) {
            const int m = marker[r], end = m >= 0 && !g->nodes[m].dead ? -2 : m >= 0 ? wgc_body_end(g, m) : -1;
            if (end == -2)
                break;
            r = end >= 0 ? g->nodes[end].region : 0;
        }
        live[r0] = r;
    }
    free(marker);
    return live;
}

/* Whether input k may be empty, with live from live_regions (NULL: out of memory, no). */
static bool may_be_empty(const wgc_graph *g, const int *live, int k)
{
    const int t = g->inputs[k];
    if (!live || !wgc_shape_is_sym(&g->tensors[t].shape))
        return false;
    for (int r = 0; r < g->n_input_reads; r++)
        if (g->input_reads[2 * r] == t && live[g->input_reads[2 * r + 1]] == 0)
            return false;
    return true;
}

bool wgc_input_may_be_empty(const wgc_graph *g, int k)
{
    int *live = live_regions(g);
    const bool yes = may_be_empty(g, live, k);
    free(live);
    return yes;
}

bool wgc_inputs_may_be_empty(const wgc_graph *g)
{
    int *live = live_regions(g);
    bool any = false;
    for (int k = 0; k < g->n_inputs && !any; k++)
        any = may_be_empty(g, live, k);
    free(live);
    return any;
}

void wgc_emit_empty_checks(wgc_emitter *e, const wgc_graph *g, int marker)
{
    const int region = g->nodes[marker].region;
    int *live = live_regions(g);
    if (!live) {
        e->failed = true;
        return;
    }
    for (int k = 0; k < g->n_inputs; k++) {
        const int t = g->inputs[k];
        bool reads = false;
        for (int r = 0; r < g->n_input_reads && !reads; r++)
            reads = g->input_reads[2 * r] == t && live[g->input_reads[2 * r + 1]] == region;
        if (reads && may_be_empty(g, live, k))
            wgc_emit(e, "if (wg_input_empty[%d]) /* %s, given empty, is read here */\n"
                        "    return WGK_ERR_EMPTY_INPUT;\n", k, g->tensors[t].name);
    }
    free(live);
}

char *wgc_sym_exports_c(const wgc_graph *g)
{
    size_t cap = 3072 + (size_t)g->n_syms * (384 + WGC_SUM_TERMS * 48), len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s + len, cap - len,
                            "/* ABI 2: the symbols' values, written by the host before wg_run */\n"
                            "static int32_t wg_dims[%d] = {", g->n_syms);
    /* (the run-time symbols after the host's: the nodes deciding them write them) */
    for (int k = 0; k < g->n_syms; k++)
        len += (size_t)snprintf(s + len, cap - len, "%s%lld", k ? ", " : "", (long long)g->syms[k].max);
    len += (size_t)snprintf(s + len, cap - len,
                            "};\n\n__attribute__((export_name(\"wg_dims_ptr\"))) int wg_dims_ptr(void) "
                            "{ return (int)(uintptr_t)wg_dims; }\n\n"
                            "/* A sliding window's output size over x (symdim.h wgc_window_size). */\n"
                            "static inline int32_t wg_window_size(int64_t x, int64_t add, int64_t stride, "
                            "int ceil, int64_t pb)\n{\n"
                            "    const int64_t span = x + add;\n"
                            "    if (span < 0)\n        return 0;\n"
                            "    int64_t out = (ceil ? (span + stride - 1) / stride : span / stride) + 1;\n"
                            "    if (ceil && (out - 1) * stride >= x + pb)\n        out--;\n"
                            "    return (int32_t)out;\n}\n\n"
                            "/* Nonzero when a symbol is outside its range: no step then runs, so no "
                            "size the host gives can make the module read or write out of bounds. The "
                            "sliding windows' sizes are computed here, from the host's. */\n"
                            "static int wg_check_dims(void)\n{\n");
    for (int k = 0; k < g->n_syms; k++) {
        const wgc_symbol *y = &g->syms[k];
        if (y->n_terms) { /* a sum: computed (derived), or the host's checked against its terms */
            len += (size_t)snprintf(s + len, cap - len, y->derived ? "    wg_dims[%d] = (int32_t)(%lldLL" :
                                    "    if (wg_dims[%d] != %lldLL", k, (long long)y->plus);
            for (int t = 0; t < y->n_terms; t++)
                len += (size_t)snprintf(s + len, cap - len, " + %lldLL * wg_dims[%d]", (long long)y->term_c[t],
                                        y->term[t]);
            len += (size_t)snprintf(s + len, cap - len, y->derived ? ");\n" : ")\n        return 1;\n");
        } else if (y->derived)
            len += (size_t)snprintf(s + len, cap - len,
                                    "    wg_dims[%d] = wg_window_size(%lldLL * wg_dims[%d], %lldLL, %lldLL, %d, %lldLL);\n",
                                    k, (long long)y->from_c, y->from, (long long)y->add, (long long)y->stride,
                                    y->ceil, (long long)y->pb);
        len += (size_t)snprintf(s + len, cap - len, "    if (wg_dims[%d] < %lld || wg_dims[%d] > %lld) /* %s */\n"
                                "        return 1;\n", k, (long long)y->min, k,
                                (long long)y->max, y->name);
        if (y->step > 1 && !y->runtime)
            len += (size_t)snprintf(s + len, cap - len, "    if (wg_dims[%d] %% %lld) /* a multiple of %lld */\n"
                                    "        return 1;\n", k, (long long)y->step, (long long)y->step);
    }
    len += (size_t)snprintf(s + len, cap - len, "    return 0;\n}\n\n");
    if (wgc_inputs_may_be_empty(g)) /* 1 for an input the host gives empty (docs/abi.md "Empty inputs") */
        len += (size_t)snprintf(s + len, cap - len, "static int32_t wg_input_empty[%d];\n\n"
                                "__attribute__((export_name(\"wg_input_empty_ptr\"))) int wg_input_empty_ptr(void) "
                                "{ return (int)(uintptr_t)wg_input_empty; }\n\n", g->n_inputs);
    const int pairs = wgc_cache_pairs(g, NULL, 0);
    if (pairs) /* the host's mode per KV-cache pair, and the rows each region holds (docs/abi.md
                * "Resident KV caches", ops/helpers/cache_concat.c) */
        snprintf(s + len, cap - len, "static int32_t wg_cache_mode[%d], wg_cache_rows[%d];\n\n"
                 "__attribute__((export_name(\"wg_cache_mode_ptr\"))) int wg_cache_mode_ptr(void) "
                 "{ return (int)(uintptr_t)wg_cache_mode; }\n\n", pairs, pairs);
    return s;
}

/* "(c * wg_dims[k] * ...)" of dimension d of s. */
static int put_dim(char *s, size_t cap, const wgc_graph *g, const wgc_shape *sh, int d)
{
    wgc_dimx x = wgc_dimx_of(g, sh, d);
    int n = snprintf(s, cap, "(%lld", (long long)x.c);
    for (int k = 0; k < g->n_syms; k++)
        for (int p = 0; p < x.p[k]; p++)
            n += snprintf(s + n, cap > (size_t)n ? cap - (size_t)n : 0, " * wg_dims[%d]", k);
    n += snprintf(s + n, cap > (size_t)n ? cap - (size_t)n : 0, ")");
    return n;
}

char *wgc_output_dims_c(const wgc_graph *g)
{
    size_t cap = 1024 + (size_t)g->n_outputs * (WG_MAX_RANK * (48 + (size_t)g->n_syms * 16) + 128), len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s + len, cap - len,
                            "/* ABI 2: the actual dims of output i after a run (data-dependent sizes) */\n"
                            "static int32_t wg_out_dims[%d][%d];\n\n"
                            "__attribute__((export_name(\"wg_output_dims_ptr\"))) int wg_output_dims_ptr(int i)\n"
                            "{\n    int32_t *d;\n    switch (i) {\n",
                            g->n_outputs ? g->n_outputs : 1, WG_MAX_RANK);
    for (int k = 0; k < g->n_outputs; k++) {
        const wgc_shape *sh = &g->tensors[g->outputs[k]].shape;
        len += (size_t)snprintf(s + len, cap - len, "    case %d: /* %s */\n        d = wg_out_dims[%d];\n", k,
                                g->tensors[g->outputs[k]].name, k);
        for (int d = 0; d < sh->rank; d++) {
            len += (size_t)snprintf(s + len, cap - len, "        d[%d] = ", d);
            len += (size_t)put_dim(s + len, cap - len, g, sh, d);
            len += (size_t)snprintf(s + len, cap - len, ";\n");
        }
        len += (size_t)snprintf(s + len, cap - len, "        return (int)(uintptr_t)d;\n");
        if (len >= cap) {
            free(s);
            return NULL;
        }
    }
    len += (size_t)snprintf(s + len, cap - len, "    default: return 0;\n    }\n}\n\n");
    if (len >= cap) {
        free(s);
        return NULL;
    }
    return s;
}
