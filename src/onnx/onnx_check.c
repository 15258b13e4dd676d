/*
 * onnx_check.c: the graph-level checks that follow reading an ONNX graph: every value a
 * node reads exists, graph outputs exist, and the nodes are put in topological order
 * (Kahn's algorithm, always taking the ready node that came first in the file, so a
 * graph that is already sorted keeps its order). A cycle is reported by its nodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_proto.h"

/* A binary min-heap of node indices. */
typedef struct heap {
    int *v;
    int n;
} heap;

static void heap_push(heap *h, int x)
{
    int i = h->n++;
    h->v[i] = x;
    while (i > 0 && h->v[(i - 1) / 2] > h->v[i]) {
        int p = (i - 1) / 2, t = h->v[p];
        h->v[p] = h->v[i];
        h->v[i] = t;
        i = p;
    }
}

static int heap_pop(heap *h)
{
    int top = h->v[0];
    h->v[0] = h->v[--h->n];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->v[l] < h->v[m])
            m = l;
        if (r < h->n && h->v[r] < h->v[m])
            m = r;
        if (m == i)
            break;
        int t = h->v[m];
        h->v[m] = h->v[i];
        h->v[i] = t;
        i = m;
    }
    return top;
}

static bool is_available(const wgc_tensor *t)
{
    return t->is_input || t->data || t->producer >= 0;
}

/* Describes one cycle among the nodes that never became ready: walk from one of them to
 * a producer that is also stuck until a node repeats. */
static wg_status report_cycle(const wgc_onnx_ctx *c, const wgc_graph *g, const int *indeg)
{
    int start = -1;
    for (int i = 0; i < g->n_nodes && start < 0; i++)
        if (indeg[i] > 0)
            start = i;
    int *seen = calloc((size_t)g->n_nodes, sizeof *seen); /* step number + 1 */
    int *path = malloc(sizeof(int) * (size_t)g->n_nodes);
    if (!seen || !path || start < 0) {
        free(seen);
        free(path);
        return wgc_onnx_fail(c, WG_ERR_INVALID, "the graph has a cycle");
    }
    int len = 0, cur = start;
    while (!seen[cur]) {
        seen[cur] = len + 1;
        path[len++] = cur;
        int next = -1;
        const wgc_node *n = &g->nodes[cur];
        for (int k = 0; k < n->n_inputs && next < 0; k++) {
            if (n->inputs[k] < 0)
                continue;
            int p = g->tensors[n->inputs[k]].producer;
            if (p >= 0 && indeg[p] > 0)
                next = p;
        }
        if (next < 0)
            break; /* cannot happen: a stuck node waits for a stuck producer */
        cur = next;
    }
    char msg[600];
    size_t used = 0;
    msg[0] = 0;
    /* path[seen[cur]-1 .. len-1] is the cycle, walked backwards (consumer -> producer) */
    int from = seen[cur] ? seen[cur] - 1 : 0;
    for (int i = len - 1; i >= from && used < sizeof msg - 64; i--) {
        const wgc_node *n = &g->nodes[path[i]];
        int w = snprintf(msg + used, sizeof msg - used, "'%s' (%s) -> ", n->name, n->op_type);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (used < sizeof msg)
        snprintf(msg + used, sizeof msg - used, "'%s'", g->nodes[path[len - 1]].name);
    free(seen);
    free(path);
    return wgc_onnx_fail(c, WG_ERR_INVALID, "the graph has a cycle: %s", msg);
}

wg_status wgc_onnx_check_and_sort(const wgc_onnx_ctx *c, wgc_graph *g)
{
    wg_status st = WG_OK;
    int nn = g->n_nodes, nt = g->n_tensors;
    int *indeg = NULL, *cons_start = NULL, *cons = NULL, *order = NULL;
    wgc_node *sorted = NULL;
    heap h = {NULL, 0};

    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            if (n->inputs[k] >= 0 && !is_available(&g->tensors[n->inputs[k]]))
                return wgc_onnx_fail(c, WG_ERR_INVALID,
                                     "node '%s' (%s) reads '%s', which no node produces (and which "
                                     "is not a graph input or initializer)",
                                     n->name, n->op_type, g->tensors[n->inputs[k]].name);
        }
    }
    for (int k = 0; k < g->n_outputs; k++)
        if (!is_available(&g->tensors[g->outputs[k]]))
            return wgc_onnx_fail(c, WG_ERR_INVALID,
                                 "graph output '%s' is not produced by any node, and is neither "
                                 "an input nor an initializer",
                                 g->tensors[g->outputs[k]].name);
    if (nn == 0)
        return WG_OK;

    /* consumers of each tensor, as a CSR list of node indices (one entry per input edge) */
    indeg = calloc((size_t)nn, sizeof *indeg);
    cons_start = calloc((size_t)nt + 1, sizeof *cons_start);
    order = malloc(sizeof(int) * (size_t)nn);
    h.v = malloc(sizeof(int) * (size_t)nn);
    if (!indeg || !cons_start || !order || !h.v)
        goto nomem;
    size_t edges = 0;
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            int t = n->inputs[k];
            if (t >= 0 && g->tensors[t].producer >= 0) {
                cons_start[t + 1]++;
                indeg[i]++;
                edges++;
            }
        }
    }
    for (int t = 0; t < nt; t++)
        cons_start[t + 1] += cons_start[t];
    cons = malloc(sizeof(int) * (edges ? edges : 1));
    int *fill = calloc((size_t)nt, sizeof *fill);
    if (!cons || !fill) {
        free(fill);
        goto nomem;
    }
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++) {
            int t = n->inputs[k];
            if (t >= 0 && g->tensors[t].producer >= 0)
                cons[cons_start[t] + fill[t]++] = i;
        }
    }
    free(fill);

    for (int i = 0; i < nn; i++)
        if (indeg[i] == 0)
            heap_push(&h, i);
    int done = 0;
    while (h.n) {
        int i = heap_pop(&h);
        order[done++] = i;
        const wgc_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_outputs; k++) {
            int t = n->outputs[k];
            if (t < 0)
                continue;
            for (int e = cons_start[t]; e < cons_start[t + 1]; e++)
                if (--indeg[cons[e]] == 0)
                    heap_push(&h, cons[e]);
        }
    }
    if (done < nn) {
        st = report_cycle(c, g, indeg);
        goto done;
    }

    sorted = malloc(sizeof *sorted * (size_t)nn);
    if (!sorted)
        goto nomem;
    for (int i = 0; i < nn; i++)
        sorted[i] = g->nodes[order[i]];
    memcpy(g->nodes, sorted, sizeof *sorted * (size_t)nn);
    for (int t = 0; t < nt; t++)
        g->tensors[t].producer = -1;
    for (int i = 0; i < nn; i++)
        for (int k = 0; k < g->nodes[i].n_outputs; k++)
            if (g->nodes[i].outputs[k] >= 0)
                g->tensors[g->nodes[i].outputs[k]].producer = i;
    goto done;
nomem:
    st = wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory while sorting %d nodes", nn);
done:
    free(indeg);
    free(cons_start);
    free(cons);
    free(order);
    free(h.v);
    free(sorted);
    return st;
}
