/*
 * values.c: sequence and optional values in the IR (see ir.h, wgc_tensor.kind).
 *
 * A sequence's element count and every element's shape are fixed at compile time, so a
 * sequence is a list of ordinary tensors: the ops that build one (SequenceConstruct,
 * SequenceInsert, SplitToSequence, ...) only rearrange that list or write new element
 * tensors, and the ops that read one list its elements among their own inputs, so tensor
 * lifetimes, the memory plan and code generation see nothing but tensors. The value
 * itself has shape [0] and takes no memory. An optional is the same with at most one
 * value and a presence that is either known or a bool tensor read at run time.
 *
 * At the graph boundary (wgc_values_expand_boundary) a sequence or optional becomes its
 * element tensors and presence flag, consecutive among the module's inputs or outputs
 * and marked with the value they belong to (docs/abi.md, "Sequences and optionals").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static int *copy_ints(const int *v, int n)
{
    int *c = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (c && n)
        memcpy(c, v, sizeof(int) * (size_t)n);
    return c;
}

wg_status wgc_value_set(wgc_graph *g, int t, int kind, int dtype, const int *elems, int n, int present)
{
    int *c = copy_ints(elems, n);
    if (!c)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    wgc_tensor *x = &g->tensors[t];
    free(x->elems);
    x->elems = c;
    x->n_elems = n;
    x->kind = kind;
    x->present = present;
    x->dtype = dtype ? dtype : WG_DT_FLOAT;
    x->shape.rank = 1;
    x->shape.dims[0] = 0;
    x->has_shape = true;
    return WG_OK;
}

wg_status wgc_node_set_inputs(wgc_graph *g, wgc_node *n, const int *v, int count)
{
    int *c = copy_ints(v, count);
    if (!c)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    free(n->inputs);
    n->inputs = c;
    n->n_inputs = count;
    return WG_OK;
}

wg_status wgc_node_set_outputs(wgc_graph *g, wgc_node *n, const int *v, int count)
{
    int *c = copy_ints(v, count);
    if (!c)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    free(n->outputs);
    n->outputs = c;
    n->n_outputs = count;
    return WG_OK;
}

int wgc_in_kind(const wgc_graph *g, const wgc_node *n, int i)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return WGC_KIND_TENSOR;
    return g->tensors[n->inputs[i]].kind;
}

int wgc_tensor_add_derived(wgc_graph *g, const char *base, const char *suffix)
{
    char name[512];
    snprintf(name, sizeof name, "%s%s", base, suffix);
    for (int k = 1; wgc_tensor_find(g, name) >= 0; k++)
        snprintf(name, sizeof name, "%s%s#%d", base, suffix, k);
    return wgc_tensor_add(g, name);
}

/* Appends t to *list (grown by realloc). */
static bool push(int **list, int *n, int t)
{
    int *nl = realloc(*list, sizeof(int) * (size_t)(*n + 1));
    if (!nl)
        return false;
    nl[(*n)++] = t;
    *list = nl;
    return true;
}

/* The parts of value v at the boundary, in order: the elements (an optional's value's
 * elements, or its tensor), then an optional's presence flag. parts[k] = tensor, idx[k]
 * = part index (-1: the flag). A known presence becomes a constant bool flag. */
static wg_status value_parts(wgc_graph *g, int v, int **parts, int **idx, int *n)
{
    int ni = *n;
    const wgc_tensor *x = &g->tensors[v];
    int holder = v;
    if (x->kind == WGC_KIND_OPTIONAL && x->n_elems == 1 && g->tensors[x->elems[0]].kind == WGC_KIND_SEQUENCE)
        holder = x->elems[0];
    if (g->tensors[holder].kind == WGC_KIND_OPTIONAL && g->tensors[holder].n_elems == 1 &&
        g->tensors[g->tensors[holder].elems[0]].kind == WGC_KIND_OPTIONAL)
        return wgc_error(g, NULL, WG_ERR_UNSUPPORTED, "graph value '%s': an optional of an optional",
                         g->tensors[v].name);
    for (int j = 0; j < g->tensors[holder].n_elems; j++)
        if (!push(parts, n, g->tensors[holder].elems[j]) || !push(idx, &ni, j))
            return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    if (g->tensors[v].kind != WGC_KIND_OPTIONAL)
        return WG_OK;
    int flag = g->tensors[v].present;
    if (flag < 0) { /* known at compile time: a constant flag */
        bool *one = malloc(1);
        if (!one || (flag = wgc_tensor_add_derived(g, g->tensors[v].name, "[present]")) < 0) {
            free(one);
            return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
        }
        *one = g->tensors[v].n_elems == 1;
        wgc_shape scalar = {0};
        wgc_tensor_set_const(g, flag, WG_DT_BOOL, &scalar, one);
    }
    if (!push(parts, n, flag) || !push(idx, &ni, -1))
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    return WG_OK;
}

/* A copy of tensor p (an appended Identity node) named after value v's part j. */
static int copy_part(wgc_graph *g, int v, int p, int j)
{
    char suffix[32];
    if (j < 0)
        snprintf(suffix, sizeof suffix, "[present]");
    else
        snprintf(suffix, sizeof suffix, "[%d]", j);
    int c = wgc_tensor_add_derived(g, g->tensors[v].name, suffix);
    if (c < 0)
        return -1;
    int node = wgc_node_add(g, g->tensors[c].name, "Identity", "", &p, 1, &c, 1);
    if (node < 0)
        return -1;
    wgc_tensor *y = &g->tensors[c];
    const wgc_tensor *x = &g->tensors[p];
    y->dtype = x->dtype;
    y->shape = x->shape;
    y->has_shape = true;
    y->producer = node;
    return c;
}

static wg_status expand(wgc_graph *g, int **list, int *count, bool outputs)
{
    int *nl = NULL, n = 0;
    wg_status st = WG_OK;
    for (int i = 0; i < *count; i++) {
        int v = (*list)[i];
        if (g->tensors[v].kind == WGC_KIND_TENSOR) {
            if (!push(&nl, &n, v))
                goto nomem;
            continue;
        }
        int *parts = NULL, *idx = NULL, np = 0;
        if ((st = value_parts(g, v, &parts, &idx, &np))) {
            free(parts);
            free(idx);
            goto fail;
        }
        if (!np) { /* no part would carry it: the module's values would be misnumbered */
            free(parts);
            free(idx);
            st = wgc_error(g, NULL, WG_ERR_UNSUPPORTED,
                           "graph %s '%s' is an empty sequence, which a module cannot carry (no "
                           "element to stand for it)%s",
                           outputs ? "output" : "input", g->tensors[v].name,
                           outputs ? "" : "; bind the input with --const");
            goto fail;
        }
        for (int k = 0; k < np; k++) {
            int p = parts[k];
            if (outputs) {
                bool shared = g->tensors[p].is_input || g->tensors[p].data || g->tensors[p].is_output;
                for (int q = 0; q < n && !shared; q++)
                    shared = nl[q] == p;
                if (shared && (p = copy_part(g, v, p, idx[k])) < 0) {
                    free(parts);
                    free(idx);
                    goto nomem;
                }
                g->tensors[p].is_output = true;
            }
            g->tensors[p].value_of = v;
            g->tensors[p].value_part = idx[k];
            if (!push(&nl, &n, p)) {
                free(parts);
                free(idx);
                goto nomem;
            }
        }
        free(parts);
        free(idx);
        if (outputs)
            g->tensors[v].is_output = false;
    }
    free(*list);
    *list = nl;
    *count = n;
    return WG_OK;
nomem:
    st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
fail:
    free(nl);
    return st;
}

wg_status wgc_values_expand_boundary(wgc_graph *g)
{
    wg_status st = expand(g, &g->inputs, &g->n_inputs, false);
    return st ? st : expand(g, &g->outputs, &g->n_outputs, true);
}
