/*
 * if_values.c: an If whose outputs are sequences or optionals carries their element tensors.
 *
 * A sequence is a list of element tensors fixed at compile time (src/ir/values.c), so an If
 * output that is a sequence is as many tensor outputs, one per element, each copied from
 * the taken branch's element like any tensor output; both branches must give as many
 * elements, of the same dtypes and shapes. An optional is its value's tensors (a tensor, or
 * a sequence's elements) and, unless both branches hold a value known at compile time, its
 * presence flag: a bool output copied from the branch's flag (a constant when the branch's
 * presence is known). A branch that gives an empty optional writes none of the value's
 * tensors (its inputs are -1). wgc_if_flatten rewrites the If so that its outputs and
 * branch inputs list these tensors (still 1 + 2 * n_outputs inputs: control_flow.h); the
 * ONNX outputs become values over the new tensors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_flow.h"

typedef struct parts {
    int *out, *th, *el; /* output k copies then-input th[k] or else-input el[k] */
    int n, cap;
} parts;

static bool push(parts *p, int y, int t, int f)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        int *o = realloc(p->out, sizeof(int) * (size_t)cap);
        if (o)
            p->out = o;
        int *t2 = o ? realloc(p->th, sizeof(int) * (size_t)cap) : NULL;
        if (t2)
            p->th = t2;
        int *f2 = t2 ? realloc(p->el, sizeof(int) * (size_t)cap) : NULL;
        if (!f2)
            return false;
        p->el = f2;
        p->cap = cap;
    }
    p->out[p->n] = y;
    p->th[p->n] = t;
    p->el[p->n++] = f;
    return true;
}

/* A new output tensor "<y><suffix>" of the If at index iff. */
static int new_part(wgc_graph *g, int iff, int y, const char *suffix, int dtype, const wgc_shape *s)
{
    int e = wgc_tensor_add_derived(g, g->tensors[y].name, suffix);
    if (e < 0)
        return -1;
    wgc_tensor *x = &g->tensors[e];
    x->dtype = dtype;
    x->shape = *s;
    x->has_shape = true;
    x->producer = iff;
    return e;
}

static wg_status nomem(wgc_graph *g, int iff)
{
    return wgc_error(g, &g->nodes[iff], WG_ERR_NOMEM, "out of memory");
}

/* Sequence v's element list and count, or NULL and 0 for no sequence (v < 0). */
static const int *elems_of(const wgc_graph *g, int v, int *n)
{
    *n = v >= 0 ? g->tensors[v].n_elems : 0;
    return v >= 0 ? g->tensors[v].elems : NULL;
}

/* Parts for value lists a (then) and b (else) of na / nb elements (NULL: the branch gives
 * none); the new output elements into elems (count *n). */
static wg_status element_parts(wgc_graph *g, int iff, int k, int y, const int *a, int na,
                               const int *b, int nb, parts *p, int **elems, int *n)
{
    if (a && b && na != nb)
        return wgc_error(g, &g->nodes[iff], WG_ERR_UNSUPPORTED,
                         "output %d: the then branch gives a sequence of %d elements, the else branch "
                         "of %d; a sequence whose length is decided at run time is not supported",
                         k, na, nb);
    const int count = a ? na : nb;
    const int *ref = a ? a : b;
    *n = count;
    if (!(*elems = malloc(sizeof(int) * (size_t)(count ? count : 1))))
        return nomem(g, iff);
    char suffix[32];
    for (int j = 0; j < count; j++) {
        snprintf(suffix, sizeof suffix, "[%d]", j);
        const int r = ref[j];
        if (g->tensors[r].kind != WGC_KIND_TENSOR)
            return wgc_error(g, &g->nodes[iff], WG_ERR_UNSUPPORTED,
                             "output %d: a sequence of sequences or optionals is not supported", k);
        int e = new_part(g, iff, y, suffix, g->tensors[r].dtype, &g->tensors[r].shape);
        if (e < 0 || !push(p, e, a ? a[j] : -1, b ? b[j] : -1))
            return nomem(g, iff);
        (*elems)[j] = e;
    }
    return WG_OK;
}

static wg_status sequence_parts(wgc_graph *g, int iff, int k, int y, int t, int f, parts *p)
{
    const int ref = t >= 0 ? t : f;
    int *elems = NULL, count = 0;
    int na, nb;
    const int *a = elems_of(g, t, &na), *b = elems_of(g, f, &nb);
    wg_status st = element_parts(g, iff, k, y, a, na, b, nb, p, &elems, &count);
    if (!st)
        st = wgc_value_set(g, y, WGC_KIND_SEQUENCE, g->tensors[ref].dtype, elems, count, -1);
    free(elems);
    return st;
}

/* Branch optional v's presence flag as a tensor: its run-time flag, or a constant; -1 for
 * no branch, -2 when out of memory. */
static int flag_of(wgc_graph *g, int v)
{
    if (v < 0)
        return -1;
    if (g->tensors[v].present >= 0)
        return g->tensors[v].present;
    int c = wgc_tensor_add_derived(g, g->tensors[v].name, "[present]");
    uint8_t *one = malloc(1);
    if (c < 0 || !one) {
        free(one);
        return -2;
    }
    *one = g->tensors[v].n_elems == 1;
    wgc_shape scalar = {0};
    wgc_tensor_set_const(g, c, WG_DT_BOOL, &scalar, one);
    return c;
}

static wg_status optional_parts(wgc_graph *g, int iff, int k, int y, int t, int f, parts *p)
{
    const int vt = t >= 0 && g->tensors[t].n_elems ? g->tensors[t].elems[0] : -1;
    const int vf = f >= 0 && g->tensors[f].n_elems ? g->tensors[f].elems[0] : -1;
    const int ref = vt >= 0 ? vt : vf, dtype = g->tensors[t >= 0 ? t : f].dtype;
    wg_status st;
    if (ref < 0) /* neither branch holds a value */
        return wgc_value_set(g, y, WGC_KIND_OPTIONAL, dtype, NULL, 0, -1);
    const int kind = g->tensors[ref].kind;
    if (vt >= 0 && vf >= 0 && g->tensors[vt].kind != g->tensors[vf].kind)
        return wgc_error(g, &g->nodes[iff], WG_ERR_UNSUPPORTED,
                         "output %d: one branch's optional holds a tensor, the other's a sequence", k);
    if (kind == WGC_KIND_OPTIONAL)
        return wgc_error(g, &g->nodes[iff], WG_ERR_UNSUPPORTED, "output %d: an optional of an optional", k);
    int held;
    if (kind == WGC_KIND_SEQUENCE) {
        int *elems = NULL, count = 0;
        int na, nb;
        const int *a = elems_of(g, vt, &na), *b = elems_of(g, vf, &nb);
        st = element_parts(g, iff, k, y, a, na, b, nb, p, &elems, &count);
        if (!st && (held = wgc_tensor_add_derived(g, g->tensors[y].name, "[sequence]")) < 0)
            st = nomem(g, iff);
        if (!st)
            st = wgc_value_set(g, held, WGC_KIND_SEQUENCE, g->tensors[ref].dtype, elems, count, -1);
        free(elems);
        if (st)
            return st;
    } else {
        if ((held = new_part(g, iff, y, "[0]", g->tensors[ref].dtype, &g->tensors[ref].shape)) < 0 ||
            !push(p, held, vt, vf))
            return nomem(g, iff);
    }
    /* both branches hold a value known at compile time: the If's is known too */
    const bool known = (t < 0 || (g->tensors[t].present < 0 && vt >= 0)) &&
                       (f < 0 || (g->tensors[f].present < 0 && vf >= 0));
    int flag = -1;
    if (!known) {
        const int ft = flag_of(g, t), ff = flag_of(g, f);
        const wgc_shape scalar = {0};
        if (ft == -2 || ff == -2 || (flag = new_part(g, iff, y, "[present]", WG_DT_BOOL, &scalar)) < 0 ||
            !push(p, flag, ft, ff))
            return nomem(g, iff);
    }
    return wgc_value_set(g, y, WGC_KIND_OPTIONAL, g->tensors[ref].dtype, &held, 1, flag);
}

static const char *kind_name(int kind)
{
    return kind == WGC_KIND_TENSOR ? "tensor" : kind == WGC_KIND_SEQUENCE ? "sequence" : "optional";
}

wg_status wgc_if_flatten(wgc_graph *g, wgc_node *n)
{
    const int iff = (int)(n - g->nodes), n_out = n->n_outputs;
    bool any = false;
    for (int k = 0; k < 2 * n_out && k + 1 < n->n_inputs; k++)
        any |= n->inputs[1 + k] >= 0 && g->tensors[n->inputs[1 + k]].kind != WGC_KIND_TENSOR;
    if (!any || n->n_inputs != 1 + 2 * n_out)
        return WG_OK;
    parts p = {0};
    wg_status st = WG_OK;
    for (int k = 0; k < n_out && !st; k++) {
        const int y = g->nodes[iff].outputs[k], t = g->nodes[iff].inputs[1 + k];
        const int f = g->nodes[iff].inputs[1 + n_out + k];
        const int kt = t >= 0 ? g->tensors[t].kind : -1, kf = f >= 0 ? g->tensors[f].kind : -1;
        const int kind = kt >= 0 ? kt : kf;
        if (kt >= 0 && kf >= 0 && kt != kf)
            st = wgc_error(g, &g->nodes[iff], WG_ERR_UNSUPPORTED,
                           "output %d: the then branch gives a %s, the else branch a %s", k,
                           kind_name(kt), kind_name(kf));
        else if (kind == WGC_KIND_TENSOR || kind < 0)
            st = push(&p, y, t, f) ? WG_OK : nomem(g, iff);
        else if (y < 0)
            continue; /* an output nobody reads: nothing to carry */
        else if (kind == WGC_KIND_SEQUENCE)
            st = sequence_parts(g, iff, k, y, t, f, &p);
        else
            st = optional_parts(g, iff, k, y, t, f, &p);
    }
    int *ins = st ? NULL : malloc(sizeof(int) * (size_t)(1 + 2 * p.n));
    if (!st && !ins)
        st = nomem(g, iff);
    if (!st) {
        ins[0] = g->nodes[iff].inputs[0];
        for (int k = 0; k < p.n; k++) {
            ins[1 + k] = p.th[k];
            ins[1 + p.n + k] = p.el[k];
        }
        if (!(st = wgc_node_set_inputs(g, &g->nodes[iff], ins, 1 + 2 * p.n)))
            st = wgc_node_set_outputs(g, &g->nodes[iff], p.out, p.n);
    }
    free(ins);
    free(p.out);
    free(p.th);
    free(p.el);
    return st;
}
