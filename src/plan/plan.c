/*
 * plan.c: lifetime-based arena allocation (greedy by size, best offset).
 *
 * Each buffer has a lifetime [first, last] in node steps and a size. Buffers are placed
 * largest first, each at the lowest offset where it overlaps no already placed buffer
 * whose lifetime intersects its own. This is the classic offset-planning heuristic; it
 * is within a few percent of optimal on CNNs and runs in O(n^2), fine for thousands.
 */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "../ops/op.h"

typedef struct buffer {
    int64_t size, offset;
    int first, last;
    int tensor; /* or -1 for scratch */
    int node;   /* scratch owner */
} buffer;

static int64_t align_up(int64_t v)
{
    return (v + WGC_ALIGN - 1) / WGC_ALIGN * WGC_ALIGN;
}

static int by_size_desc(const void *a, const void *b)
{
    const buffer *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    return x->first - y->first;
}

static int by_offset(const void *a, const void *b)
{
    const buffer *x = *(buffer *const *)a, *y = *(buffer *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void wgc_plan_free(wgc_plan *plan)
{
    free(plan->scratch_offset);
    free(plan->scratch_bytes);
    plan->scratch_offset = plan->scratch_bytes = NULL;
}

wg_status wgc_plan_memory(wgc_graph *g, wgc_plan *plan)
{
    wg_status st = WG_OK;
    int nt = g->n_tensors, nn = g->n_nodes;
    buffer *bufs = calloc((size_t)(nt + nn + 1), sizeof *bufs);
    buffer **placed = calloc(2 * (size_t)(nt + nn + 1), sizeof *placed); /* placed list + live list */
    int *first = malloc(sizeof(int) * (size_t)(nt + 1));
    int *last = malloc(sizeof(int) * (size_t)(nt + 1));
    memset(plan, 0, sizeof *plan);
    plan->scratch_offset = malloc(sizeof(int64_t) * (size_t)(nn + 1));
    plan->scratch_bytes = calloc((size_t)(nn + 1), sizeof(int64_t));
    if (!bufs || !placed || !first || !last || !plan->scratch_offset || !plan->scratch_bytes) {
        st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory planning memory");
        goto fail;
    }
    for (int t = 0; t < nt; t++) {
        first[t] = INT32_MAX;
        last[t] = -1;
        g->tensors[t].addr = -1;
    }
    /* Lifetimes in steps: graph inputs live from step -1, outputs until step nn. */
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        plan->scratch_offset[i] = -1;
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_outputs; k++) {
            int t = n->outputs[k];
            if (t >= 0 && first[t] > i)
                first[t] = i;
            if (t >= 0 && last[t] < i)
                last[t] = i;
        }
        for (int k = -1; k < n->n_inputs; k++) {
            int t = k < 0 ? n->residual : n->inputs[k];
            if (t >= 0 && last[t] < i)
                last[t] = i;
            if (t >= 0 && first[t] > i)
                first[t] = i;
        }
        const wgc_op_def *op = wgc_op_hooks(n->op);
        if (op && op->scratch)
            plan->scratch_bytes[i] = (int64_t)op->scratch(g, n);
    }
    for (int k = 0; k < g->n_inputs; k++)
        first[g->inputs[k]] = -1, last[g->inputs[k]] = nn;
    for (int k = 0; k < g->n_outputs; k++) {
        int t = g->outputs[k];
        if (first[t] > nn)
            first[t] = nn; /* a constant or input exposed as output: copied at the end */
        last[t] = nn;
    }
    int nb = 0;
    for (int t = 0; t < nt; t++) {
        wgc_tensor *x = &g->tensors[t];
        bool is_graph_output = false;
        for (int k = 0; k < g->n_outputs; k++)
            is_graph_output |= g->outputs[k] == t;
        if (last[t] < 0 || (x->data && !is_graph_output))
            continue;
        int64_t bytes = wgc_numel(&x->shape) * (int64_t)wg_dtype_size(x->dtype);
        /* Inputs and outputs are pinned for the whole run so that the host can read and
         * write them outside wg_run. */
        bool pinned = x->is_input || is_graph_output;
        bufs[nb++] = (buffer){align_up(bytes ? bytes : 1), -1, pinned ? -1 : first[t],
                              pinned ? nn : last[t], t, -1};
    }
    for (int i = 0; i < nn; i++)
        if (plan->scratch_bytes[i] > 0)
            bufs[nb++] = (buffer){align_up(plan->scratch_bytes[i]), -1, i, i, -1, i};
    qsort(bufs, (size_t)nb, sizeof *bufs, by_size_desc);
    int np = 0;
    int64_t arena = 0;
    for (int b = 0; b < nb; b++) {
        buffer *x = &bufs[b];
        /* Collect placed buffers live at the same time, sorted by offset; take the first
         * gap that fits. */
        int nl = 0;
        buffer **live = placed + np; /* scratch space after the placed list */
        for (int p = 0; p < np; p++)
            if (placed[p]->first <= x->last && x->first <= placed[p]->last)
                live[nl++] = placed[p];
        qsort(live, (size_t)nl, sizeof *live, by_offset);
        int64_t off = 0;
        for (int p = 0; p < nl; p++) {
            if (live[p]->offset - off >= x->size)
                break;
            if (live[p]->offset + live[p]->size > off)
                off = live[p]->offset + live[p]->size;
        }
        x->offset = off;
        if (off + x->size > arena)
            arena = off + x->size;
        placed[np++] = x;
    }
    for (int b = 0; b < nb; b++) {
        if (bufs[b].tensor >= 0)
            g->tensors[bufs[b].tensor].addr = bufs[b].offset;
        else
            plan->scratch_offset[bufs[b].node] = bufs[b].offset;
    }
    plan->arena_bytes = arena;
fail:
    free(bufs);
    free(placed);
    free(first);
    free(last);
    if (st)
        wgc_plan_free(plan);
    return st;
}
