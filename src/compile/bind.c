/* bind.c: `--const NAME=FILE.pb`: turns graph inputs into constants before any pass runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../onnx/tensor_file.h"
#include "options.h"

/* A constant element "<value><suffix>" holding v (its data taken over). */
static int const_element(wgc_graph *g, int t, const char *suffix, wgc_value *v)
{
    int e = wgc_tensor_add_derived(g, g->tensors[t].name, suffix);
    if (e < 0)
        return -1;
    g->tensors[e].has_shape = true;
    wgc_tensor_set_const(g, e, v->dtype, &v->shape, v->data);
    v->data = NULL;
    return e;
}

/* Graph input t, a sequence or optional, becomes a constant value read from c's file (a
 * SequenceProto or OptionalProto): its elements constants, an optional's presence known. */
static wg_status bind_value(wgc_graph *g, int t, const wgc_const_binding *c)
{
    char err[600];
    const int kind = g->tensors[t].kind, dtype = g->tensors[t].dtype;
    const bool seq = kind == WGC_KIND_SEQUENCE || g->tensors[t].inner_kind == WGC_KIND_SEQUENCE;
    wg_value_file vf;
    if (wg_value_file_read_pb(c->path, kind == WGC_KIND_SEQUENCE ? WG_VALUE_SEQUENCE : WG_VALUE_OPTIONAL, &vf, err,
                              sizeof err))
        return wgc_error(g, NULL, WG_ERR_INVALID, "--const %s: %s", c->name, err);
    wg_status st = WG_OK;
    int *elems = malloc(sizeof(int) * (size_t)(vf.n_elems ? vf.n_elems : 1)), held = -1;
    if (!elems)
        st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    if (!st && vf.present && vf.holds_sequence != seq)
        st = wgc_error(g, NULL, WG_ERR_INVALID, "--const %s: %s holds a %s, the model declares %s", c->name,
                       c->path, vf.holds_sequence ? "sequence" : "tensor",
                       seq ? "a sequence" : "a tensor");
    for (int j = 0; !st && j < vf.n_elems; j++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "[%d]", j);
        if (dtype && vf.elems[j].dtype != dtype)
            st = wgc_error(g, NULL, WG_ERR_INVALID, "--const %s: element %d is %s, the model declares %s",
                           c->name, j, wg_dtype_name(vf.elems[j].dtype), wg_dtype_name(dtype));
        else if ((elems[j] = const_element(g, t, suffix, &vf.elems[j])) < 0)
            st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    }
    const int edt = dtype ? dtype : vf.n_elems ? g->tensors[elems[0]].dtype : WG_DT_FLOAT;
    if (!st && kind == WGC_KIND_SEQUENCE)
        st = wgc_value_set(g, t, WGC_KIND_SEQUENCE, edt, elems, vf.n_elems, -1);
    else if (!st && vf.present && seq) {
        if ((held = wgc_tensor_add_derived(g, g->tensors[t].name, "[sequence]")) < 0)
            st = wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
        else if (!(st = wgc_value_set(g, held, WGC_KIND_SEQUENCE, edt, elems, vf.n_elems, -1)))
            st = wgc_value_set(g, t, WGC_KIND_OPTIONAL, edt, &held, 1, -1);
    } else if (!st) { /* an optional tensor, or nothing */
        st = wgc_value_set(g, t, WGC_KIND_OPTIONAL, edt, elems, vf.present ? 1 : 0, -1);
    }
    if (!st)
        g->tensors[t].is_input = false;
    free(elems);
    wg_value_file_free(&vf);
    return st;
}

wg_status wgc_bind_consts(wgc_graph *g, const wgc_options *opt)
{
    char err[600], a[128], b[128];
    for (int k = 0; k < opt->n_consts; k++) {
        const wgc_const_binding *c = &opt->consts[k];
        int t = wgc_tensor_find(g, c->name), at = -1;
        for (int i = 0; i < g->n_inputs; i++)
            if (g->inputs[i] == t)
                at = i;
        if (t < 0 || at < 0)
            return wgc_error(g, NULL, WG_ERR_INVALID, "--const names '%s', which is not a graph input",
                             c->name);
        if (g->tensors[t].kind != WGC_KIND_TENSOR) {
            wg_status st = bind_value(g, t, c);
            if (st)
                return st;
            memmove(&g->inputs[at], &g->inputs[at + 1], sizeof(int) * (size_t)(g->n_inputs - at - 1));
            g->n_inputs--;
            continue;
        }
        wgc_value v;
        if (wg_tensor_file_read_pb(c->path, &v, NULL, err, sizeof err))
            return wgc_error(g, NULL, WG_ERR_INVALID, "--const %s: %s", c->name, err);
        wgc_tensor *x = &g->tensors[t];
        bool shape_ok = !x->has_shape || x->shape.rank == v.shape.rank;
        for (int d = 0; shape_ok && x->has_shape && d < x->shape.rank; d++)
            shape_ok = x->shape.dims[d] < 0 || x->shape.dims[d] == v.shape.dims[d];
        if ((x->dtype && x->dtype != v.dtype) || !shape_ok) {
            wgc_error(g, NULL, WG_ERR_INVALID, "--const %s: %s holds %s %s, the model declares %s %s",
                      c->name, c->path, wg_dtype_name(v.dtype), wgc_shape_str(&v.shape, a, sizeof a),
                      wg_dtype_name(x->dtype), wgc_shape_str(&x->shape, b, sizeof b));
            free(v.data);
            return WG_ERR_INVALID;
        }
        x->has_shape = true;
        x->is_input = false;
        wgc_tensor_set_const(g, t, v.dtype, &v.shape, v.data);
        memmove(&g->inputs[at], &g->inputs[at + 1], sizeof(int) * (size_t)(g->n_inputs - at - 1));
        g->n_inputs--;
    }
    return WG_OK;
}

/* The graph input (its index in g->inputs) of an integer type that tensor t's value is
 * computed from, the first met walking back through producers; -1 for none. Integer only:
 * a value that decides a shape comes from shape-like inputs, never from the data. */
static int integer_input_behind(const wgc_graph *g, int t)
{
    int *stack = malloc(sizeof(int) * (size_t)g->n_tensors), top = 0, found = -1;
    uint8_t *seen = calloc((size_t)g->n_tensors, 1);
    if (!stack || !seen) {
        free(stack);
        free(seen);
        return -1;
    }
    stack[top++] = t;
    seen[t] = 1;
    while (top && found < 0) {
        const int x = stack[--top];
        for (int i = 0; i < g->n_inputs && found < 0; i++)
            if (g->inputs[i] == x && (g->tensors[x].dtype == WG_DT_INT64 || g->tensors[x].dtype == WG_DT_INT32))
                found = i;
        const int p = g->tensors[x].producer;
        for (int k = 0; p >= 0 && k < g->nodes[p].n_inputs; k++) {
            const int y = g->nodes[p].inputs[k];
            if (y >= 0 && !seen[y]) {
                seen[y] = 1;
                stack[top++] = y; /* each tensor once: top < n_tensors */
            }
        }
    }
    free(stack);
    free(seen);
    return found;
}

/* The tensor named in "'NAME' is computed at run time" in g->err, or -1. */
static int runtime_value_named(const wgc_graph *g)
{
    const char *end = strstr(g->err, "' is computed at run time");
    if (!end)
        return -1;
    const char *start = end;
    while (start > g->err && start[-1] != '\'')
        start--;
    if (start == g->err)
        return -1;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
    return wgc_tensor_find(g, name);
}

/* The flag that makes input NAME's value known enough: a value that decides a size
 * ("nothing bounds its values": ops/pad.c, ops/affine_gather.c ...) needs only bounds on it. */
static void put_hint(wgc_graph *g, const char *prefix, int i, const char *name)
{
    size_t len = strlen(g->err);
    if (strstr(g->err, "nothing bounds its values"))
        snprintf(g->err + len, sizeof g->err - len,
                 "%s [graph input #%d '%s': compile with --dim %s=MIN..MAX to bound its values, or "
                 "--const %s=FILE.pb]", prefix, i, name, name, name);
    else
        snprintf(g->err + len, sizeof g->err - len, "%s [graph input #%d '%s': compile with --const %s=FILE.pb]",
                 prefix, i, name, name);
}

void wgc_hint_const_inputs(wgc_graph *g)
{
    char pat[300];
    for (int i = 0; i < g->n_inputs; i++) {
        const wgc_tensor *x = &g->tensors[g->inputs[i]];
        snprintf(pat, sizeof pat, "'%s' is computed at run time", x->name);
        if (!strstr(g->err, pat)) {
            /* an input known entirely at compile time: nothing of it can reach a module */
            snprintf(pat, sizeof pat, "graph input '%s' is an empty sequence", x->name);
            if (!strstr(g->err, pat))
                continue;
        }
        put_hint(g, "", i, x->name);
        return;
    }
    /* a value computed from a graph input: name the input it comes from */
    const int t = runtime_value_named(g);
    const int i = t >= 0 ? integer_input_behind(g, t) : -1;
    if (i < 0)
        return;
    const char *name = g->tensors[g->inputs[i]].name;
    char prefix[320];
    snprintf(prefix, sizeof prefix, " (it is computed from graph input '%.256s')", name);
    put_hint(g, prefix, i, name);
}
