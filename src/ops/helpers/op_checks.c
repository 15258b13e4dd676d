/* op_checks.c: checks and helpers shared by the operator files (declared in ops/op.h). */
#include <stdio.h>
#include <string.h>

#include "../op.h"

wg_status wgc_check_arity(wgc_graph *g, const wgc_node *n, int min_in, int max_in, int min_out,
                          int max_out)
{
    if (n->n_inputs < min_in || n->n_inputs > max_in)
        return wgc_error(g, n, WG_ERR_INVALID, "has %d inputs, expected %d..%d", n->n_inputs,
                         min_in, max_in);
    if (n->n_outputs < min_out || n->n_outputs > max_out)
        return wgc_error(g, n, WG_ERR_INVALID, "has %d outputs, expected %d..%d", n->n_outputs,
                         min_out, max_out);
    for (int i = 0; i < min_in; i++)
        if (n->inputs[i] < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "required input %d is missing", i);
    for (int i = 0; i < min_out; i++)
        if (n->outputs[i] < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "required output %d is missing", i);
    return WG_OK;
}

wg_status wgc_check_attr_names(wgc_graph *g, const wgc_node *n, const char *const *names)
{
    for (int a = 0; a < n->n_attrs; a++) {
        int k = 0;
        while (names[k] && strcmp(names[k], n->attrs[a].name))
            k++;
        if (names[k])
            continue;
        char list[256] = "";
        size_t at = 0;
        for (k = 0; names[k] && at < sizeof list; k++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", names[k]);
        return wgc_error(g, n, WG_ERR_INVALID, "unknown attribute '%s' (%s%s)", n->attrs[a].name,
                         names[0] ? "the schema has " : "the schema has no attributes", list);
    }
    return WG_OK;
}

wg_status wgc_refuse_inputs_from(wgc_graph *g, const wgc_node *n, int first, const char *const *names, int n_names,
                                 const char *why)
{
    for (int i = first; i < n->n_inputs; i++)
        if (wgc_in(g, n, i))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input %d (%s%s) is not supported", i,
                             i < n_names ? names[i] : "unknown", why);
    return WG_OK;
}

wg_status wgc_bad_input_shape(wgc_graph *g, const wgc_node *n, int i, const char *role, const char *want)
{
    char s[128];
    const wgc_tensor *t = wgc_in(g, n, i);
    return wgc_error(g, n, WG_ERR_INVALID, "%s '%s' is %s: it must be %s", role, t->name,
                     wgc_shape_str(&t->shape, s, sizeof s), want);
}

wg_status wgc_check_input(wgc_graph *g, const wgc_node *n, int i, const int *dtypes)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return wgc_error(g, n, WG_ERR_INVALID, "input %d is missing", i);
    const wgc_tensor *t = &g->tensors[n->inputs[i]];
    if (!t->has_shape)
        return wgc_error(g, n, WG_ERR_INVALID, "input %d '%s' has no known shape", i, t->name);
    if (!dtypes)
        return WG_OK;
    for (const int *d = dtypes; *d; d++)
        if (*d == t->dtype)
            return WG_OK;
    char list[256];
    size_t len = 0;
    list[0] = '\0';
    for (const int *d = dtypes; *d && len + 1 < sizeof list; d++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                         wg_dtype_name(*d));
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input %d '%s' has dtype %s; supported: %s", i,
                     t->name, wg_dtype_name(t->dtype), list);
}

wg_status wgc_check_data_input(wgc_graph *g, const wgc_node *n, int min_in, int max_in,
                               const int *dtypes)
{
    wg_status st = wgc_check_arity(g, n, min_in, max_in, 1, 1);
    return st ? st : wgc_check_input(g, n, 0, dtypes);
}

wg_status wgc_check_layout_input(wgc_graph *g, const wgc_node *n, const int *dtypes, int min_rank,
                                 const char *layout)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->shape.rank < min_rank)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has rank %d, expected %s", x->name,
                         x->shape.rank, layout);
    return WG_OK;
}

wg_status wgc_infer_same_as_input(wgc_graph *g, const wgc_node *n, const int *dtypes)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

wg_status wgc_check_present_inputs(wgc_graph *g, const wgc_node *n, int min_in, int max_in,
                                   int max_out, const int *dtypes)
{
    wg_status st = wgc_check_arity(g, n, min_in, max_in, 1, max_out);
    for (int i = 0; i < max_in && !st; i++)
        if (i < min_in || wgc_in(g, n, i))
            st = wgc_check_input(g, n, i, dtypes);
    return st;
}

const int wgc_index_dtypes[] = {WG_DT_INT64, WG_DT_INT32, 0};

wg_status wgc_check_data_and_index(wgc_graph *g, const wgc_node *n, const int *dtypes)
{
    wg_status st = wgc_check_input(g, n, 0, dtypes);
    if (!st && wgc_in(g, n, 1))
        st = wgc_check_input(g, n, 1, wgc_index_dtypes);
    return st;
}

wg_status wgc_check_two_inputs(wgc_graph *g, const wgc_node *n, const int *dtypes0,
                               const int *dtypes1)
{
    wg_status st = wgc_check_arity(g, n, 2, 2, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, dtypes0);
    if (!st)
        st = wgc_check_input(g, n, 1, dtypes1);
    return st;
}

wg_status wgc_read_axis(wgc_graph *g, const wgc_node *n, int64_t dflt, int rank, int *axis)
{
    int64_t a = wgc_attr_int(n, "axis", dflt);
    if (a < -(int64_t)rank || a >= rank)
        return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d", (long long)a,
                         rank);
    *axis = (int)(a < 0 ? a + rank : a);
    return WG_OK;
}

wg_status wgc_check_const_indices(wgc_graph *g, const wgc_node *n, const wgc_tensor *ix, int axis,
                                  int64_t dim)
{
    if (!ix->data)
        return WG_OK;
    int64_t m = wgc_numel(&ix->shape);
    for (int64_t i = 0; i < m; i++) {
        int64_t v = wgc_const_int(ix, i);
        if (v < -dim || v >= dim)
            return wgc_error(g, n, WG_ERR_INVALID,
                             "index %lld (element %lld of '%s') is out of range for axis %d of size %lld",
                             (long long)v, (long long)i, ix->name, axis, (long long)dim);
    }
    return WG_OK;
}

void wgc_set_output(wgc_graph *g, const wgc_node *n, int i, int dtype, const wgc_shape *s)
{
    if (i >= n->n_outputs || n->outputs[i] < 0)
        return;
    wgc_tensor *t = &g->tensors[n->outputs[i]];
    t->dtype = dtype;
    t->shape = *s;
    t->has_shape = true;
}

wg_status wgc_no_case(wgc_graph *g, const wgc_node *n, const char *where)
{
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s has no case for %s (internal error)", where,
                     n->op_type);
}
