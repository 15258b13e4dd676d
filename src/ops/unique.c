/*
 * unique.c: Unique. Its output shapes depend on the values: a constant input is computed
 * on the host (infer counts, fold writes); a run-time one gives the unique count as a
 * run-time symbol bounded by the slice count (ir/symdim.h; the input may then be of
 * symbolic or data-dependent size, uq_sym_infer), which the generated code
 * (unique_emit: grouping by first occurrence, then for sorted=1 an insertion sort of the
 * groups) writes into wg_dims. Without axis the input is flattened; with axis the slices along it are
 * compared element by element. sorted = 1 orders the unique values ascending, else by
 * first occurrence. Outputs: Y, indices (first occurrence), inverse_indices, counts.
 */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "helpers/inline_loops.h"
#include "../ir/symdim.h"
#include "sym.h"

typedef struct uq_view {
    const char *data;
    int dtype;
    size_t es;
    int64_t outer, n, inner; /* [outer][n][inner]: n slices of outer * inner elements */
} uq_view;

static double elem_f(const uq_view *v, int64_t i)
{
    switch (v->dtype) {
    case WG_DT_FLOAT: { float x; memcpy(&x, v->data + i * 4, 4); return x; }
    case WG_DT_DOUBLE: { double x; memcpy(&x, v->data + i * 8, 8); return x; }
    default: { uint16_t h; memcpy(&h, v->data + i * 2, 2); return wg_f16_to_f32(h); }
    }
}

/* Compares element i and j (flat indices) by value. */
static int elem_cmp(const uq_view *v, int64_t i, int64_t j)
{
    if (wg_dtype_is_float(v->dtype)) {
        double a = elem_f(v, i), b = elem_f(v, j);
        return a < b ? -1 : a > b ? 1 : 0;
    }
    if (v->dtype == WG_DT_UINT64) {
        uint64_t a, b;
        memcpy(&a, v->data + i * 8, 8);
        memcpy(&b, v->data + j * 8, 8);
        return a < b ? -1 : a > b ? 1 : 0;
    }
    wgc_tensor t = {.dtype = v->dtype, .data = (void *)v->data};
    int64_t a = wgc_const_int(&t, i), b = wgc_const_int(&t, j);
    return a < b ? -1 : a > b ? 1 : 0;
}

/* Compares slices a and b lexicographically. */
static int slice_cmp(const uq_view *v, int64_t a, int64_t b)
{
    for (int64_t o = 0; o < v->outer; o++)
        for (int64_t k = 0; k < v->inner; k++) {
            int c = elem_cmp(v, (o * v->n + a) * v->inner + k, (o * v->n + b) * v->inner + k);
            if (c)
                return c;
        }
    return 0;
}

/* Stable merge sort of idx[0..n) by slice value. */
static void msort(const uq_view *v, int64_t *idx, int64_t *tmp, int64_t n)
{
    if (n < 2)
        return;
    int64_t h = n / 2, i = 0, j = h, k = 0;
    msort(v, idx, tmp, h);
    msort(v, idx + h, tmp, n - h);
    while (i < h && j < n)
        tmp[k++] = slice_cmp(v, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, sizeof *idx * (size_t)n);
}

typedef struct uq_result {
    int64_t u;       /* unique count */
    int64_t *first;  /* [u] first occurrence of each unique slice, in output order */
    int64_t *inv;    /* [n] output position of each input slice */
    int64_t *counts; /* [u] */
} uq_result;

static void uq_free(uq_result *r)
{
    free(r->first);
    free(r->inv);
    free(r->counts);
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, uq_view *v)
{
    static const int dts[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8, WG_DT_INT16, WG_DT_INT32,
                              WG_DT_INT64, WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, WG_DT_BOOL, 0};
    wg_status st = wgc_check_present_inputs(g, n, 1, 1, 4, dts);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    v->data = x->data;
    v->dtype = x->dtype;
    v->es = wg_dtype_size(x->dtype);
    v->outer = v->inner = 1;
    v->n = wgc_numel(&x->shape);
    const wgc_attr *ax = wgc_attr_find(n, "axis");
    if (ax) {
        int64_t a = ax->i, r = x->shape.rank;
        if (a < -r || a >= r)
            return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d", (long long)a,
                             x->shape.rank);
        if (a < 0)
            a += r;
        v->n = x->shape.dims[a];
        for (int d = 0; d < r; d++) {
            if (d < a)
                v->outer *= x->shape.dims[d];
            else if (d > a)
                v->inner *= x->shape.dims[d];
        }
    }
    if (x->data && v->n * v->outer * v->inner > ((int64_t)1 << 24))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' is too large to fold", x->name);
    return WG_OK;
}

static wg_status uq_run(wgc_graph *g, const wgc_node *n, const uq_view *v, uq_result *r)
{
    memset(r, 0, sizeof *r);
    const int64_t N = v->n;
    const size_t sz = sizeof(int64_t) * (size_t)(N ? N : 1);
    int64_t *idx = malloc(sz), *tmp = malloc(sz);
    r->first = malloc(sz), r->inv = malloc(sz), r->counts = calloc(1, sz);
    if (!idx || !tmp || !r->first || !r->inv || !r->counts) {
        free(idx);
        free(tmp);
        uq_free(r);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < N; i++)
        idx[i] = i;
    msort(v, idx, tmp, N);
    /* groups of equal slices in sorted order; the first of each is its first occurrence */
    int64_t *grp = tmp; /* grp[slice] = sorted group number */
    for (int64_t i = 0; i < N; i++) {
        if (i == 0 || slice_cmp(v, idx[i - 1], idx[i]))
            r->first[r->u++] = idx[i];
        grp[idx[i]] = r->u - 1;
    }
    int64_t *pos = idx; /* pos[group] = output position */
    if (wgc_attr_int(n, "sorted", 1)) {
        for (int64_t k = 0; k < r->u; k++)
            pos[k] = k;
    } else {
        /* output order = order of first occurrence: walk the input, number new groups */
        int64_t next = 0;
        for (int64_t k = 0; k < r->u; k++)
            pos[k] = -1;
        for (int64_t i = 0; i < N; i++)
            if (pos[grp[i]] < 0)
                pos[grp[i]] = next++;
        for (int64_t i = 0; i < N; i++) /* first occurrences in output order */
            if (r->first[grp[i]] == i)
                r->counts[pos[grp[i]]] = i; /* counts used as temporary */
        memcpy(r->first, r->counts, sizeof(int64_t) * (size_t)r->u);
        memset(r->counts, 0, sizeof(int64_t) * (size_t)r->u);
    }
    for (int64_t i = 0; i < N; i++) {
        r->inv[i] = pos[grp[i]];
        r->counts[r->inv[i]]++;
    }
    free(idx);
    free(tmp);
    return WG_OK;
}

/* The view and the result of n (both hooks need them). */
static wg_status analyse(wgc_graph *g, const wgc_node *n, uq_view *v, uq_result *r)
{
    wg_status st = resolve(g, n, v);
    return st ? st : uq_run(g, n, v, r);
}

/* The outputs' shapes for unique count u (sym >= 0: run-time symbol sym, at most u). */
static void set_shapes(wgc_graph *g, wgc_node *n, const uq_view *v, int64_t u, int sym)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y = {.rank = 1, .dims = {u}}, c = {.rank = 1, .dims = {u}};
    const wgc_attr *ax = wgc_attr_find(n, "axis");
    int at = 0;
    if (ax) {
        y = x->shape;
        at = (int)(ax->i < 0 ? ax->i + y.rank : ax->i);
        y.dims[at] = u;
    }
    if (sym >= 0 || (v->n && !x->data)) {
        wgc_shape_set_runtime(&y, at, sym, u);
        wgc_shape_set_runtime(&c, 0, sym, u);
    }
    wgc_set_output(g, n, 0, x->dtype, &y);
    wgc_set_output(g, n, 1, WG_DT_INT64, &c);
    wgc_set_output(g, n, 2, WG_DT_INT64, &(wgc_shape){.rank = 1, .dims = {v->n}});
    wgc_set_output(g, n, 3, WG_DT_INT64, &c);
}

/* The tensor a run-time unique count is keyed by: the first of outputs 0, 1, 3 (-1: none). */
static int count_tensor(const wgc_node *n)
{
    static const int which[] = {0, 1, 3};
    for (int k = 0; k < 3; k++)
        if (which[k] < n->n_outputs && n->outputs[which[k]] >= 0)
            return n->outputs[which[k]];
    return -1;
}

static wg_status uq_infer(wgc_graph *g, wgc_node *n)
{
    uq_view v;
    uq_result r;
    wg_status st = resolve(g, n, &v);
    if (st)
        return st;
    if (!v.data) { /* run time: at most v.n unique slices (none when the input is empty) */
        int sym = -1, t = count_tensor(n);
        if (t >= 0 && (st = wgc_sym_add_runtime(g, n, t, 0, v.n, &sym)))
            return st;
        set_shapes(g, n, &v, v.n, sym);
        return WG_OK;
    }
    if ((st = uq_run(g, n, &v, &r)))
        return st;
    set_shapes(g, n, &v, r.u, -1);
    uq_free(&r);
    return WG_OK;
}

static wg_status uq_fold(wgc_graph *g, wgc_node *n)
{
    uq_view v;
    uq_result r;
    wg_status st = analyse(g, n, &v, &r);
    if (st)
        return st;
    const wgc_tensor *y = wgc_out(g, n, 0);
    char *yd = malloc((size_t)(r.u * v.outer * v.inner) * v.es + 1);
    if (!yd) {
        uq_free(&r);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    const size_t row = (size_t)v.inner * v.es;
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t k = 0; k < r.u; k++)
            memcpy(yd + ((size_t)(o * r.u + k)) * row, v.data + ((size_t)(o * v.n + r.first[k])) * row, row);
    if (y)
        wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, yd);
    else
        free(yd);
    int64_t *arrs[3] = {r.first, r.inv, r.counts};
    for (int i = 1; i < 4; i++) {
        const wgc_tensor *t = wgc_out(g, n, i);
        if (t) {
            wgc_tensor_set_const(g, n->outputs[i], WG_DT_INT64, &t->shape, arrs[i - 1]);
            arrs[i - 1] = NULL;
        }
    }
    for (int i = 0; i < 3; i++)
        free(arrs[i]);
    return WG_OK;
}

static size_t uq_scratch(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *inv = n->n_outputs > 2 && n->outputs[2] >= 0 ? &g->tensors[n->outputs[2]] : NULL;
    int64_t N = inv ? inv->shape.dims[0] : wgc_numel(&g->tensors[n->inputs[0]].shape);
    return (size_t)(5 * N + 1) * sizeof(int32_t);
}

/* A run-time Unique over N slices [outer][N][inner]: groups by first occurrence (first[],
 * grp[] of each slice, cnt[]), then, for sorted=1, the groups in ascending slice order
 * (order[], rank[]), O(N^2) compares in all; then the outputs densely at the count. */
static wg_status uq_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    uq_view v;
    wg_status st = resolve(g, n, &v);
    if (st)
        return st;
    if (v.data) /* folded; an output nothing reads may still be live here */
        return wgc_emit_folded_only(e, g, n);
    const char *ct = wgc_ctype(v.dtype);
    if (!ct)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "Unique of %s computed at run time", wg_dtype_name(v.dtype));
    if (v.n == 0)
        return WG_OK;
    const int t = count_tensor(n);
    const int sym = t >= 0 ? wgc_shape_runtime_sym(g, &g->tensors[t].shape) : -1; /* not x's symbols */
    const long long NMAX = v.n;
    const bool sorted = wgc_attr_int(n, "sorted", 1) != 0;
    /* the view's sizes as C: an input of symbolic or data-dependent dims at its actual ones */
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_attr *ax = wgc_attr_find(n, "axis");
    const int r = x->shape.rank, a = ax ? (int)(ax->i < 0 ? ax->i + r : ax->i) : -1;
    char co[96], cn[96], ci[96];
    snprintf(co, sizeof co, "%s", a < 0 ? "1" : wgc_dims_expr(e, &x->shape, 0, a));
    snprintf(cn, sizeof cn, "%s", wgc_dims_expr(e, &x->shape, a < 0 ? 0 : a, a < 0 ? r : a + 1));
    snprintf(ci, sizeof ci, "%s", a < 0 ? "1" : wgc_dims_expr(e, &x->shape, a + 1, r));
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\n", ct, wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "const int32_t N = %s, O = %s, I = %s;\n", cn, co, ci);
    wgc_emit(e, "int32_t *first = (int32_t *)%s, *grp = first + %lld, *cnt = grp + %lld, *order = cnt + %lld, "
                "*rank = order + %lld;\nint32_t u = 0;\n", wgc_scratch(e), NMAX, NMAX, NMAX, NMAX);
    /* WG_CMP(a, b, r): slices a and b compared lexicographically, into int r (its own
     * names start with w, so that a and b may use the callers' variables) */
    wgc_emit(e, "#define WG_CMP(a, b, r) do { r = 0; for (int32_t wo = 0; wo < O && !r; wo++) "
                "for (int32_t wk = 0; wk < I && !r; wk++) { T wa = px[((size_t)wo * N + (a)) * I + wk], "
                "wb = px[((size_t)wo * N + (b)) * I + wk]; r = wa < wb ? -1 : wa > wb ? 1 : 0; } } while (0)\n");
    wgc_emit(e, "for (int32_t i = 0; i < N; i++) {\n    int32_t j = 0, r = 1;\n"
                "    for (; j < u; j++) { WG_CMP(first[j], i, r); if (!r) break; }\n"
                "    if (r) { first[u] = i; cnt[u] = 0; j = u++; }\n    grp[i] = j;\n    cnt[j]++;\n}\n");
    wgc_emit(e, "for (int32_t j = 0; j < u; j++) order[j] = j;\n");
    if (sorted)
        wgc_emit(e, "for (int32_t j = 1; j < u; j++) {\n    int32_t w = order[j], p = j, r;\n"
                    "    while (p > 0) { WG_CMP(first[order[p - 1]], first[w], r); if (r <= 0) break; "
                    "order[p] = order[p - 1]; p--; }\n    order[p] = w;\n}\n");
    wgc_emit(e, "for (int32_t j = 0; j < u; j++) rank[order[j]] = j;\n#undef WG_CMP\n");
    if (sym >= 0)
        wgc_emit(e, "wg_dims[%d] = u;\n", sym);
    if (n->outputs[0] >= 0)
        wgc_emit(e, "{\nT *py = (T *)%s;\nfor (int32_t o = 0; o < O; o++)\nfor (int32_t j = 0; j < u; j++)\n"
                    "for (int32_t k = 0; k < I; k++)\n"
                    "    py[((size_t)o * u + j) * I + k] = px[((size_t)o * N + first[order[j]]) * I + k];\n}\n",
                 wgc_ptr(e, g, n->outputs[0]));
    if (n->n_outputs > 1 && n->outputs[1] >= 0)
        wgc_emit(e, "for (int32_t j = 0; j < u; j++) ((int64_t *)%s)[j] = first[order[j]];\n",
                 wgc_ptr(e, g, n->outputs[1]));
    if (n->n_outputs > 2 && n->outputs[2] >= 0)
        wgc_emit(e, "for (int32_t i = 0; i < N; i++) ((int64_t *)%s)[i] = rank[grp[i]];\n",
                 wgc_ptr(e, g, n->outputs[2]));
    if (n->n_outputs > 3 && n->outputs[3] >= 0)
        wgc_emit(e, "for (int32_t j = 0; j < u; j++) ((int64_t *)%s)[j] = cnt[order[j]];\n",
                 wgc_ptr(e, g, n->outputs[3]));
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* Unique over a symbolic input: Y keeps x's dims but the axis (the unique count, its own
 * run-time symbol from uq_infer; flattened: [count]), indices and counts are [count], the
 * inverse indices one per slice: x's axis length, or its element count. Any of its
 * outputs may be the one read: no check of output 0 first. */
static wg_status uq_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int axis = -1;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "an input holding symbolic values");
    const wgc_attr *ax = wgc_attr_find(n, "axis");
    if (ax)
        axis = (int)(ax->i < 0 ? ax->i + x->shape.rank : ax->i);
    wg_status st;
    wgc_tensor *y = wgc_out(g, n, 0), *inv = n->n_outputs > 2 ? wgc_out(g, n, 2) : NULL;
    if (y && axis >= 0) {
        wgc_shape o = y->shape;
        for (int d = 0; d < o.rank; d++)
            if (d != axis)
                memcpy(o.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
        if ((st = wgc_sym_set_out(g, n, 0, &o)))
            return st;
    }
    if (inv) {
        wgc_shape o = inv->shape;
        wgc_dimx len = wgc_dimx_const(1);
        for (int d = axis < 0 ? 0 : axis; d < (axis < 0 ? x->shape.rank : axis + 1); d++)
            len = wgc_dimx_mul(len, wgc_dimx_of(g, &x->shape, d));
        wgc_shape_set_dim(g, &o, 0, len);
        if ((st = wgc_sym_set_out(g, n, 2, &o)))
            return st;
    }
    return WG_OK;
}

/* Its count decided at run time: its own emit hook reads its input's sizes at run time
 * itself (uq_sym_infer took the shapes), unless that input holds symbolic values. */
static bool uq_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && !g->tensors[n->inputs[0]].symval;
}

const wgc_op_def wgc_op_unique = {
    .infer = uq_infer,
    .fold = uq_fold,
    .emit = uq_emit,
    .scratch = uq_scratch,
    .sym = {.infer = uq_sym_infer, .takes = uq_sym_takes},
};
