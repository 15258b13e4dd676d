/*
 * plan.c: lifetime-based arena allocation (greedy by size, best offset).
 *
 * Each buffer has a lifetime [first, last] in node steps and a size. Buffers are placed
 * largest first, each at the lowest offset where it overlaps no already placed buffer
 * whose lifetime intersects its own. This is the classic offset-planning heuristic; it
 * is within a few percent of optimal on CNNs and runs in O(n^2), fine for thousands.
 * Concat inputs are placed inside the Concat's output where they can be
 * (alias_concat_inputs), so the Concat copies nothing.
 *
 * Control flow (ir.h wgc_body) runs a body's steps again and again, so lifetimes stretch
 * over it (extend_over_bodies): a value read inside a Loop or Scan body but made before
 * it lives until the Loop or Scan ends, and what an If, Loop or Scan writes (written
 * inside the construct: an If's then-branch copies, a Loop's scan outputs at each
 * iteration) lives from its first marker.
 */
#include "plan.h"
#include "../ir/symdim.h"

#include <stdlib.h>
#include <string.h>

#include "../ops/helpers/host_elements.h"
#include "../ir/kernels.h"
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

/* Concat inputs written in place: a Concat whose output is one slab per input (every
 * dim before the axis is 1) needs no copy if each input is produced into its slab. An
 * input qualifies when a live node before the Concat produces it (after the producer of
 * the previous qualifying input), nothing else reads it and it is not a graph output; it
 * then gets no buffer of its own, and the output's lifetime starts with the first such
 * producer. Returns how many inputs were aliased. */
/* The lifetimes of values around bodies, as the comment at the top says. */
static wg_status extend_over_bodies(wgc_graph *g, int *first, int *last)
{
    const int nn = g->n_nodes;
    int *end_of = malloc(sizeof(int) * (size_t)(nn + 1)), *loop_of = malloc(sizeof(int) * (size_t)(nn + 1));
    int *stack = malloc(sizeof(int) * (size_t)(nn + 1));
    if (!end_of || !loop_of || !stack) {
        free(end_of);
        free(loop_of);
        free(stack);
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory planning memory");
    }
    /* end_of[begin]: its node; loop_of[i]: the live Loop/Scan BodyBegin whose body holds i
     * most closely (-1: none) */
    int depth = 0;
    for (int i = 0; i < nn; i++) {
        end_of[i] = -1;
        if (wgc_is_body_begin(g->nodes[i].op))
            stack[depth++] = i;
        else if (wgc_is_body_end(g->nodes[i].op) && depth > 0)
            end_of[stack[--depth]] = i;
    }
    depth = 0;
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        if (wgc_is_body_end(n->op) && depth > 0)
            depth--;
        loop_of[i] = depth ? stack[depth - 1] : -1;
        if (wgc_is_body_begin(n->op)) {
            const int e = end_of[i];
            const bool loops = !n->dead && e >= 0 && g->nodes[e].op != WGC_OP_IF;
            stack[depth] = loops ? i : (depth ? stack[depth - 1] : -1);
            depth++;
        }
    }
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = -1; k < n->n_inputs; k++) {
            const int t = k < 0 ? n->residual : n->inputs[k];
            if (t < 0)
                continue;
            for (int b = loop_of[i]; b >= 0 && first[t] < b; b = loop_of[b])
                if (last[t] < end_of[b])
                    last[t] = end_of[b];
            /* a Scan reads its inputs at every step (and a Scan-8 its initial states at
             * every batch row): what a Loop or Scan's marker reads lives until its end */
            if (n->op == WGC_OP_BODY_BEGIN && end_of[i] >= 0 && g->nodes[end_of[i]].op != WGC_OP_IF &&
                last[t] < end_of[i])
                last[t] = end_of[i];
        }
        if (wgc_is_body_end(n->op)) {
            const int b = wgc_body_begin(g, i);
            if (b >= 0 && !g->nodes[b].dead)
                for (int k = 0; k < n->n_outputs; k++)
                    if (n->outputs[k] >= 0 && first[n->outputs[k]] > b)
                        first[n->outputs[k]] = b;
        }
    }
    free(end_of);
    free(loop_of);
    free(stack);
    return WG_OK;
}

static int alias_concat_inputs(wgc_graph *g, int *first)
{
    int count = 0;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        if (n->dead || n->op != WGC_OP_CONCAT || n->n_outputs != 1 || n->outputs[0] < 0)
            continue;
        const int out = n->outputs[0];
        const wgc_tensor *y = &g->tensors[out];
        int axis;
        /* a symbolic Concat's slices move with the sizes: it copies (ops/sym_emit.c) */
        /* (a stacking one, ConcatFromSequence's new_axis, copies: its slabs are not the
         * inputs' extents along the axis) */
        if (y->data || y->aliased || wgc_shape_is_sym(&y->shape) || wgc_attr_int(n, "new_axis", 0) ||
            !wgc_norm_axis(wgc_attr_int(n, "axis", 0), y->shape.rank, &axis))
            continue;
        bool one_slab = true;
        for (int d = 0; d < axis; d++)
            one_slab &= y->shape.dims[d] == 1;
        if (!one_slab)
            continue;
        int64_t inner = wg_dtype_size(y->dtype);
        for (int d = axis + 1; d < y->shape.rank; d++)
            inner *= y->shape.dims[d];
        int64_t at = 0;
        int prev = -1; /* producer of the last aliased input */
        for (int k = 0; k < n->n_inputs; k++) {
            const int t = n->inputs[k];
            wgc_tensor *x = &g->tensors[t];
            const int64_t bytes = x->shape.dims[axis] * inner;
            /* Producers in slab order: whatever a kernel might write past the end of its
             * slab is overwritten by the next slab's producer (or the Concat's copy). */
            if (!x->data && !x->is_input && !x->is_output && !x->aliased && x->n_uses == 1 && x->producer > prev &&
                x->producer < i && !g->nodes[x->producer].dead && t != out &&
                g->nodes[x->producer].region == n->region) {
                prev = x->producer;
                x->aliased = true;
                x->alias_of = out;
                x->alias_off = at;
                if (first[t] < first[out])
                    first[out] = first[t];
                count++;
            }
            at += bytes;
        }
    }
    return count;
}

/* The address of an aliased tensor: its host's (itself maybe aliased: nested Concats). */
static int64_t alias_addr(const wgc_graph *g, const wgc_tensor *x)
{
    int64_t off = 0;
    while (x->aliased) {
        off += x->alias_off;
        x = &g->tensors[x->alias_of];
    }
    return x->addr < 0 ? -1 : x->addr + off;
}

void wgc_plan_free(wgc_plan *plan)
{
    free(plan->scratch_offset);
    free(plan->scratch_bytes);
    free(plan->scratch_per_thread);
    plan->scratch_offset = plan->scratch_bytes = NULL;
    plan->scratch_per_thread = NULL;
}

wg_status wgc_plan_memory(wgc_graph *g, wgc_plan *plan)
{
    wg_status st = WG_OK;
    int nt = g->n_tensors, nn = g->n_nodes;
    buffer *bufs = calloc((size_t)(nt + nn + 1), sizeof *bufs);
    buffer **placed = calloc(2 * (size_t)(nt + nn + 1), sizeof *placed); /* placed list + live list */
    int *first = malloc(sizeof(int) * (size_t)(nt + 1));
    int *last = malloc(sizeof(int) * (size_t)(nt + 1));
    const int threads = plan->threads > 1 ? plan->threads : 1;
    memset(plan, 0, sizeof *plan);
    plan->threads = threads;
    plan->scratch_offset = malloc(sizeof(int64_t) * (size_t)(nn + 1));
    plan->scratch_bytes = calloc((size_t)(nn + 1), sizeof(int64_t));
    plan->scratch_per_thread = calloc((size_t)(nn + 1), sizeof(bool));
    if (!bufs || !placed || !first || !last || !plan->scratch_offset || !plan->scratch_bytes ||
        !plan->scratch_per_thread) {
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
        if (threads > 1 && plan->scratch_bytes[i] > 0 && wgc_node_scratch_per_thread(n)) {
            plan->scratch_per_thread[i] = true;
            plan->scratch_offset[i] = 0;
            const int64_t bytes = align_up(plan->scratch_bytes[i]);
            if (bytes > plan->thread_scratch_bytes)
                plan->thread_scratch_bytes = bytes;
        }
    }
    for (int k = 0; k < g->n_inputs; k++)
        first[g->inputs[k]] = -1, last[g->inputs[k]] = nn;
    for (int k = 0; k < g->n_outputs; k++) {
        int t = g->outputs[k];
        if (first[t] > nn)
            first[t] = nn; /* a constant or input exposed as output: copied at the end */
        last[t] = nn;
    }
    if ((st = extend_over_bodies(g, first, last)))
        goto fail;
    for (int t = 0; t < nt; t++)
        g->tensors[t].aliased = false;
    alias_concat_inputs(g, first);
    int nb = 0;
    for (int t = 0; t < nt; t++) {
        wgc_tensor *x = &g->tensors[t];
        bool is_graph_output = false;
        for (int k = 0; k < g->n_outputs; k++)
            is_graph_output |= g->outputs[k] == t;
        if (last[t] < 0 || (x->data && !is_graph_output) || x->aliased)
            continue;
        int64_t bytes = wgc_numel(&x->shape) * (int64_t)wg_dtype_size(x->dtype);
        /* Inputs and outputs are pinned for the whole run so that the host can read and
         * write them outside wg_run. */
        bool pinned = x->is_input || is_graph_output;
        bufs[nb++] = (buffer){align_up(bytes ? bytes : 1), -1, pinned ? -1 : first[t],
                              pinned ? nn : last[t], t, -1};
    }
    for (int i = 0; i < nn; i++)
        if (plan->scratch_bytes[i] > 0 && !plan->scratch_per_thread[i])
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
    for (int t = 0; t < nt; t++)
        if (g->tensors[t].aliased)
            g->tensors[t].addr = alias_addr(g, &g->tensors[t]);
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
