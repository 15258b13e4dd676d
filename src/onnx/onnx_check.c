/*
 * onnx_check.c: the graph-level checks that follow reading an ONNX graph: every value a
 * node reads exists, graph outputs exist, and the nodes are put in topological order
 * (Kahn's algorithm, always taking the ready node that came first in the file, so a
 * graph that is already sorted keeps its order). A cycle is reported by its nodes.
 *
 * Bodies (If, Loop, Scan) are sorted each on their own: a body's node that reads a value
 * of an outer graph makes the node that owns the body (or the owner's owner, up to that
 * graph) depend on the value's producer. The final order then lays every body out just
 * before the node that owns it (an If's then branch before its else branch), its marker
 * first: the flattened form ir.h describes (wgc_body). onnx_bodies.c then links them.
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

/* The order of a control-flow node's bodies in the final order: then, else, the rest. */
static int body_rank(const wgc_attr *a)
{
    return !strcmp(a->name, "then_branch") ? 0 : !strcmp(a->name, "else_branch") ? 1 : 2;
}

/* Appends region r's nodes, in sorted order, to out (each control-flow node after its
 * bodies). by_region lists each region's nodes in sorted order (CSR: start[r]..start[r+1]). */
static void lay_out(const wgc_graph *g, const int *start, const int *by_region, int r, int *out,
                    int *n_out)
{
    for (int e = start[r]; e < start[r + 1]; e++) {
        const wgc_node *n = &g->nodes[by_region[e]];
        for (int rank = 0; rank < 3; rank++)
            for (int a = 0; a < n->n_attrs; a++)
                if (n->attrs[a].body && body_rank(&n->attrs[a]) == rank)
                    lay_out(g, start, by_region, n->attrs[a].body->region, out, n_out);
        out[(*n_out)++] = by_region[e];
    }
}

/* The node that reads a value of region `from` for node i: i itself, or the control-flow
 * node (owner of owner ...) in region `from` whose body holds i. -1 when i is not inside
 * region `from` (the value belongs to a body i cannot see). */
static int lift(const wgc_graph *g, const int *owner, int i, int from)
{
    for (int depth = 0; depth <= g->n_regions; depth++) {
        int r = g->nodes[i].region;
        if (r == from)
            return i;
        if (r == 0)
            return -1;
        i = owner[r];
    }
    return -1;
}

wg_status wgc_onnx_check_and_sort(const wgc_onnx_ctx *c, wgc_graph *g)
{
    wg_status st = WG_OK;
    int nn = g->n_nodes, nt = g->n_tensors, nr = g->n_regions;
    int *indeg = NULL, *cons_start = NULL, *cons = NULL, *order = NULL;
    int *owner = NULL, *reader_of = NULL, *region_start = NULL, *by_region = NULL;
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

    /* the control-flow node that owns each region */
    owner = malloc(sizeof(int) * ((size_t)nr + 1));
    if (!owner)
        goto nomem;
    owner[0] = -1;
    for (int i = 0; i < nn; i++)
        for (int a = 0; a < g->nodes[i].n_attrs; a++)
            if (g->nodes[i].attrs[a].body)
                owner[g->nodes[i].attrs[a].body->region] = i;
    /* consumers of each tensor, as a CSR list of node indices (one entry per input edge):
     * the reader itself, or the node of the producer's graph whose body holds it */
    indeg = calloc((size_t)nn, sizeof *indeg);
    cons_start = calloc((size_t)nt + 1, sizeof *cons_start);
    order = malloc(sizeof(int) * (size_t)nn);
    h.v = malloc(sizeof(int) * (size_t)nn);
    size_t n_edges = 0;
    for (int i = 0; i < nn; i++)
        n_edges += (size_t)g->nodes[i].n_inputs;
    reader_of = malloc(sizeof(int) * (n_edges ? n_edges : 1));
    if (!indeg || !cons_start || !order || !h.v || !reader_of)
        goto nomem;
    size_t edges = 0, e_in = 0;
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++, e_in++) {
            int t = n->inputs[k];
            reader_of[e_in] = -1;
            if (t < 0 || g->tensors[t].producer < 0)
                continue;
            const int p = g->tensors[t].producer;
            const int a = lift(g, owner, i, g->nodes[p].region);
            if (a < 0) {
                st = wgc_onnx_fail(c, WG_ERR_INVALID,
                                   "node '%s' (%s) reads '%s', a value of the body of node '%s' "
                                   "(%s), which it is not inside",
                                   n->name, n->op_type, g->tensors[t].name,
                                   g->nodes[owner[g->nodes[p].region]].name,
                                   g->nodes[owner[g->nodes[p].region]].op_type);
                goto done;
            }
            if (a == p && a != i) { /* (a node reading its own output: a cycle, reported below) */
                st = wgc_onnx_fail(c, WG_ERR_INVALID,
                                   "the graph has a cycle: node '%s' (%s) reads '%s', an output of "
                                   "node '%s' (%s) whose body it is in",
                                   n->name, n->op_type, g->tensors[t].name, g->nodes[p].name,
                                   g->nodes[p].op_type);
                goto done;
            }
            reader_of[e_in] = a;
            cons_start[t + 1]++;
            indeg[a]++;
            edges++;
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
    e_in = 0;
    for (int i = 0; i < nn; i++) {
        const wgc_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs; k++, e_in++)
            if (reader_of[e_in] >= 0)
                cons[cons_start[n->inputs[k]] + fill[n->inputs[k]]++] = reader_of[e_in];
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

    /* each region's nodes in sorted order, then laid out body by body */
    region_start = calloc((size_t)nr + 2, sizeof *region_start);
    by_region = malloc(sizeof(int) * (size_t)nn);
    sorted = malloc(sizeof *sorted * (size_t)nn);
    if (!region_start || !by_region || !sorted)
        goto nomem;
    for (int i = 0; i < nn; i++)
        region_start[g->nodes[i].region + 1]++;
    for (int r = 0; r <= nr; r++)
        region_start[r + 1] += region_start[r];
    /* every count in indeg reached zero: it becomes the fill position of each region (a
     * region holds at least its marker node, so there are fewer regions than nodes) */
    int *at = indeg;
    memcpy(at, region_start, sizeof(int) * ((size_t)nr + 1));
    for (int i = 0; i < nn; i++)
        by_region[at[g->nodes[order[i]].region]++] = order[i];
    int laid = 0;
    lay_out(g, region_start, by_region, 0, order, &laid);
    if (laid != nn) {
        st = wgc_onnx_fail(c, WG_ERR_INVALID, "internal error: %d of %d nodes laid out", laid, nn);
        goto done;
    }
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
    free(owner);
    free(reader_of);
    free(region_start);
    free(by_region);
    return st;
}
