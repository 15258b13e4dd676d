/* index_loops.c: helpers for ops that emit their own index loops (see index_loops.h). */
#include "index_loops.h"

#include <stdio.h>
#include <string.h>

#include "../../ir/valrange.h"
#include "inline_loops.h"

const char *wgc_loop_bits(int dtype)
{
    switch (wg_dtype_size(dtype)) {
    case 1: return "uint8_t";
    case 2: return "uint16_t";
    case 4: return "uint32_t";
    case 8: return "uint64_t";
    default: return NULL;
    }
}

int wgc_upstream_input(const wgc_graph *g, int t, int depth)
{
    const wgc_tensor *x = &g->tensors[t];
    if (x->data)
        return -1;
    if (x->is_input)
        return t;
    if (x->producer < 0 || depth > 32)
        return -1;
    const wgc_node *p = &g->nodes[x->producer];
    for (int k = 0; k < p->n_inputs; k++)
        if (p->inputs[k] >= 0) {
            int r = wgc_upstream_input(g, p->inputs[k], depth + 1);
            if (r >= 0)
                return r;
        }
    return -1;
}

wg_status wgc_loop_need_const(wgc_graph *g, const wgc_node *n, int i, const char *what)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    if (!t)
        return wgc_error(g, n, WG_ERR_INVALID, "%s input (#%d) is missing", what, i);
    if (t->data)
        return WG_OK;
    int gi = t->is_input ? n->inputs[i] : wgc_upstream_input(g, n->inputs[i], 0);
    if (gi >= 0 && !t->is_input)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "%s input '%s' is not constant: it depends on graph input '%s', and '%s' is "
                         "computed at run time; only constant values are supported",
                         what, t->name, g->tensors[gi].name, g->tensors[gi].name);
    return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                     "%s input '%s' is computed at run time; only constant values are supported",
                     what, t->name);
}

wg_status wgc_loop_const_scalar(wgc_graph *g, const wgc_node *n, int i, const char *what,
                                int64_t *v)
{
    wg_status st = wgc_loop_need_const(g, n, i, what);
    if (st)
        return st;
    if (wgc_numel(&wgc_in(g, n, i)->shape) != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "%s must hold one value", what);
    *v = wgc_const_int(wgc_in(g, n, i), 0);
    return WG_OK;
}

wg_status wgc_loop_scalar_input(wgc_graph *g, const wgc_node *n, int i, const char *what, int64_t dflt, int64_t *v,
                                bool *runtime)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    *v = dflt;
    *runtime = t && !t->data;
    if (!t)
        return WG_OK;
    if (*runtime)
        return wgc_numel(&t->shape) != 1 ? wgc_error(g, n, WG_ERR_INVALID, "%s must hold one value", what) : WG_OK;
    return wgc_loop_const_scalar(g, n, i, what, v);
}

void wgc_loop_for(wgc_emitter *e, const char *var, int r, const int64_t *dims)
{
    for (int d = 0; d < r; d++)
        wgc_emit(e, "for (int32_t %s%d = 0; %s%d < %lld; %s%d++)\n", var, d, var, d,
                 (long long)dims[d], var, d);
}

const char *wgc_loop_offset(char *buf, size_t cap, const char *var, int r, const int64_t *st,
                            int64_t base)
{
    int len = snprintf(buf, cap, "%lld", (long long)base);
    for (int d = 0; d < r && len > 0 && (size_t)len < cap; d++)
        if (st[d])
            len += snprintf(buf + len, cap - (size_t)len, " + %s%d * %lld", var, d,
                            (long long)st[d]);
    return buf;
}


int wgc_scatter_reduction(const wgc_node *n)
{
    static const char *names[] = {"none", "add", "mul", "max", "min"};
    const char *r = wgc_attr_str(n, "reduction", "none");
    for (int k = 0; k < WGC_SCATTER_BAD; k++)
        if (!strcmp(r, names[k]))
            return k;
    return WGC_SCATTER_BAD;
}

wg_status wgc_check_gather_scatter_inputs(wgc_graph *g, const wgc_node *n, bool gather, const int *idx_dtypes)
{
    wg_status st = wgc_check_arity(g, n, gather ? 2 : 3, gather ? 2 : 3, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, wgc_gen_dtypes);
    if (!st)
        st = wgc_check_input(g, n, 1, idx_dtypes);
    if (!st && !gather)
        st = wgc_check_input(g, n, 2, wgc_gen_dtypes);
    return st;
}

bool wgc_gather_scatter_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, wgc_vrange *out,
                               int64_t count)
{
    return (n->op == WGC_OP_GATHER_ELEMENTS || n->op == WGC_OP_GATHER_ND) &&
           wgc_vrange_of_input0(g, n, y, out, count);
}

wg_status wgc_emit_scatter_update(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int red, const char *close)
{
    const char *update = wgc_scatter_statement(red);
    if (!update)
        return wgc_no_case(g, n, "the scatter reduction");
    wgc_emit(e, "%s", update);
    wgc_emit(e, "%s", close);
    return WG_OK;
}

const char *wgc_scatter_statement(int red)
{
    switch (red) {
    case WGC_SCATTER_NONE: return "*q = u;\n";
    case WGC_SCATTER_ADD: return "*q = (TD)(*q + u);\n";
    case WGC_SCATTER_MUL: return "*q = (TD)(*q * u);\n";
    case WGC_SCATTER_MAX: return "if (u > *q) *q = u;\n";
    case WGC_SCATTER_MIN: return "if (u < *q) *q = u;\n";
    default: return NULL;
    }
}
