/* emit_and_fold.c: helpers shared by the elementwise and data-movement op files (see emit_and_fold.h). */
#include "emit_and_fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_elements.h"

const int wgc_numeric_dtypes[] = {WG_DT_FLOAT,  WG_DT_UINT8,  WG_DT_INT8,    WG_DT_UINT16,
                                  WG_DT_INT16,  WG_DT_INT32,  WG_DT_INT64,   WG_DT_BOOL,
                                  WG_DT_FLOAT16, WG_DT_DOUBLE, WG_DT_UINT32, WG_DT_UINT64, 0};

const char *wgc_i32_list(char *buf, size_t cap, const int64_t *v, int n)
{
    size_t len = (size_t)snprintf(buf, cap, "(const int32_t[]){");
    if (n == 0)
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "1");
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (len < cap)
        snprintf(buf + len, cap - len, "}");
    return buf;
}

int wgc_bcast_plan(const wgc_shape *a, const wgc_shape *b, const wgc_shape *y, int64_t *dims,
                   int64_t *sa, int64_t *sb)
{
    /* Strides of a and b aligned to y's rank (numpy: align trailing dims). */
    int64_t fa[WG_MAX_RANK], fb[WG_MAX_RANK];
    int64_t st_a = 1, st_b = 1;
    for (int d = y->rank - 1; d >= 0; d--) {
        int da = d - (y->rank - a->rank), db = d - (y->rank - b->rank);
        int64_t na = da >= 0 ? a->dims[da] : 1, nb = db >= 0 ? b->dims[db] : 1;
        fa[d] = na == 1 ? 0 : st_a;
        fb[d] = nb == 1 ? 0 : st_b;
        st_a *= na;
        st_b *= nb;
    }
    /* Drop unit dims, then merge dim d into the previous kept dim when both operands
     * continue contiguously (or both stay broadcast) across the boundary. */
    int r = 0;
    for (int d = 0; d < y->rank; d++) {
        if (y->dims[d] == 1)
            continue;
        if (r > 0 && sa[r - 1] == fa[d] * y->dims[d] && sb[r - 1] == fb[d] * y->dims[d]) {
            dims[r - 1] *= y->dims[d];
            sa[r - 1] = fa[d];
            sb[r - 1] = fb[d];
            continue;
        }
        dims[r] = y->dims[d];
        sa[r] = fa[d];
        sb[r] = fb[d];
        r++;
    }
    if (r == 0) {
        dims[0] = 1;
        sa[0] = 0;
        sb[0] = 0;
        r = 1;
    }
    return r;
}

wg_status wgc_check_i32_numel(wgc_graph *g, const wgc_node *n, const wgc_tensor *t)
{
    if (wgc_numel(&t->shape) >= ((int64_t)1 << 31)) {
        char buf[128];
        return wgc_error(g, n, WG_ERR_LIMIT, "tensor '%s' (%s) has 2^31 or more elements",
                         t->name, wgc_shape_str(&t->shape, buf, sizeof buf));
    }
    return WG_OK;
}

wg_status wgc_emit_start(wgc_graph *g, const wgc_node *n, wg_status st, const wgc_tensor *t,
                         bool *empty)
{
    if (!st)
        st = wgc_check_i32_numel(g, n, t);
    if (empty)
        *empty = wgc_numel(&t->shape) == 0;
    return st;
}

void wgc_emit_copy(wgc_emitter *e, wgc_graph *g, int in_t, int out_t)
{
    const wgc_tensor *o = &g->tensors[out_t];
    size_t bytes = (size_t)wgc_numel(&o->shape) * wg_dtype_size(o->dtype);
    if (bytes == 0)
        return;
    const char *pi = wgc_ptr(e, g, in_t), *po = wgc_ptr(e, g, out_t);
    if (strcmp(pi, po) != 0)
        wgc_emit(e, "memcpy(%s, %s, %zu);\n", po, pi, bytes);
}

void wgc_emit_fused_act(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int t)
{
    if (n->act == WGC_ACT_NONE)
        return;
    const char *p = wgc_ptr(e, g, t);
    size_t count = (size_t)wgc_numel(&g->tensors[t].shape);
    if (n->act == WGC_ACT_RELU)
        wgc_emit(e, "wgk_f32_relu(%s, %s, %zu);\n", p, p, count);
    else
        wgc_emit(e, "wgk_f32_clip(%s, %s, %zu, %s, %s);\n", p, p, count, wgc_float(e, n->act_min),
                 wgc_float(e, n->act_max));
}

wg_status wgc_fold_copy(wgc_graph *g, const wgc_node *n, int i, const void *bytes)
{
    wgc_tensor *o = wgc_out(g, n, i);
    if (!o)
        return WG_OK;
    void *data = wgc_elem_alloc(g, n, o->dtype, &o->shape);
    if (!data)
        return WG_ERR_NOMEM;
    memcpy(data, bytes, (size_t)wgc_numel(&o->shape) * wg_dtype_size(o->dtype));
    wgc_tensor_set_const(g, n->outputs[i], o->dtype, &o->shape, data);
    return WG_OK;
}

wg_status wgc_fold_to_scalar(wgc_graph *g, wgc_node *n, int dtype, int64_t v)
{
    void *d = malloc(wg_dtype_size(dtype));
    if (!d)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    if (dtype == WG_DT_BOOL)
        *(bool *)d = v != 0;
    else
        *(int64_t *)d = v;
    wgc_shape scalar = {0};
    wgc_tensor_set_const(g, n->outputs[0], dtype, &scalar, d);
    n->dead = true;
    return WG_OK;
}

wg_status wgc_add_element_output(wgc_graph *g, const wgc_node *n, int k, int dtype, const wgc_shape *s,
                                 int *t)
{
    const wgc_shape shape = *s; /* s may point into g->tensors, which a new tensor moves */
    char suffix[32];
    snprintf(suffix, sizeof suffix, "[%d]", k);
    int e = wgc_tensor_add_derived(g, g->tensors[n->outputs[0]].name, suffix);
    if (e < 0)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    wgc_tensor *y = &g->tensors[e];
    y->dtype = dtype;
    y->shape = shape;
    y->has_shape = true;
    y->producer = (int)(n - g->nodes);
    *t = e;
    return WG_OK;
}

wg_status wgc_fold_same_bytes(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    return x->data ? wgc_fold_copy(g, n, 0, x->data) : WG_ERR_UNSUPPORTED;
}

wg_status wgc_emit_same_bytes(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
    return WG_OK;
}

wg_status wgc_emit_folded_only(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    (void)e;
    return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                     "%s that could not be folded to a constant (only constant inputs are supported)",
                     n->op_type);
}

const char *wgc_int_elem_expr(wgc_emitter *e, wgc_graph *g, int t, int64_t i, char *buf, size_t cap)
{
    const wgc_tensor *x = &g->tensors[t];
    if (x->symval)
        snprintf(buf, cap, "(int64_t)%s", wgc_dimx_expr(e, &x->symval[i]));
    else if (x->data)
        snprintf(buf, cap, "%lldLL", (long long)wgc_const_int(x, i));
    else
        snprintf(buf, cap, "(int64_t)((const %s *)%s)[%lld]", x->dtype == WG_DT_INT32 ? "int32_t" : "int64_t",
                 wgc_ptr(e, g, t), (long long)i);
    return buf;
}
