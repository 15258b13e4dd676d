/*
 * range.c: Range(start, limit, delta) (numpy arange semantics: element i is start + i *
 * delta, count max(ceil((limit - start) / delta), 0)). Constant inputs fold. Symbolic
 * start and limit by 1 whose difference is a product or a sum of symbols, never negative
 * (arange(seq), arange(past, past + seq)), give a symbolic length (range_sym_infer). Integer
 * inputs computed at run time otherwise (arange(past, past + seq)) give a run-time length
 * (module ABI 2 "Run-time output dims"), bounded through their values' bounds
 * (ir/valrange.h); the module computes it, checks it against the bound (WGK_ERR_SIZE_BOUND;
 * a delta of 0 is WGK_ERR_INDEX) and fills the output.
 */
#include "range.h"

#include <math.h>
#include <stdio.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/emit_and_fold.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"
#include "helpers/sym_code.h"
#include "sym.h"

bool wgc_range_is_runtime(const wgc_graph *g, const wgc_node *n)
{
    if (n->op != WGC_OP_RANGE || n->n_inputs < 3)
        return false;
    const wgc_tensor *s = &g->tensors[n->inputs[0]], *l = &g->tensors[n->inputs[1]], *d = &g->tensors[n->inputs[2]];
    if (!s->data || !l->data || !d->data)
        return true;
    /* symbolic values the symbolic rule does not take: anything but arange(start, limit)
     * by 1 whose length limit - start is a product or a sum of symbols at least 0 at every
     * size (arange(seq), arange(past, past + seq)) */
    if (!(s->symval || l->symval || d->symval))
        return false;
    if (d->symval || wgc_const_int(d, 0) != 1 || wg_dtype_is_float(s->dtype))
        return true;
    wgc_dimx a = wgc_symval_at(l, 0), b = wgc_symval_at(s, 0);
    b.c = -b.c;
    return !wgc_dimx_add_ok(g, a, b) || wgc_dimx_sum_min(g, a, b) < 0;
}

/* The bound on the length: ceil((limit - start) / delta) at its largest over the values'
 * bounds, the delta's keeping one sign. */
static wg_status runtime_length_bound(wgc_graph *g, const wgc_node *n, int64_t *bound)
{
    static const char *what[] = {"start", "limit", "delta"};
    wgc_vrange r[3];
    for (int i = 0; i < 3; i++)
        if (!wgc_vrange_at(g, wgc_in(g, n, i), 0, &r[i]))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "%s input '%s' is computed at run time and nothing bounds its values, which "
                             "decide the size of output dim 0", what[i], wgc_in(g, n, i)->name);
    if (r[2].lo <= 0 && r[2].hi >= 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "delta '%s' may be 0 or change sign (%lld..%lld)",
                         wgc_in(g, n, 2)->name, (long long)r[2].lo, (long long)r[2].hi);
    double span = r[2].lo > 0 ? (double)r[1].hi - (double)r[0].lo : (double)r[0].hi - (double)r[1].lo;
    double step = r[2].lo > 0 ? (double)r[2].lo : -(double)r[2].hi;
    double c = ceil(span / step);
    if (!(c < (double)((int64_t)1 << 31)))
        return wgc_error(g, n, WG_ERR_LIMIT, "its length may reach %g, past 2^31", c);
    *bound = c > 0 ? (int64_t)c : 0;
    return WG_OK;
}

static wg_status range_infer(wgc_graph *g, wgc_node *n)
{
    static const int dts[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, 0};
    static const char *what[] = {"start", "limit", "delta"};
    wg_status st = wgc_check_arity(g, n, 3, 3, 1, 1);
    for (int i = 0; i < 3 && !st; i++)
        st = wgc_check_input(g, n, i, dts);
    for (int i = 0; i < 3 && !st; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (t->dtype != wgc_in(g, n, 0)->dtype || wgc_numel(&t->shape) != 1)
            return wgc_error(g, n, WG_ERR_INVALID, "%s must be a scalar of start's dtype %s", what[i],
                             wg_dtype_name(wgc_in(g, n, 0)->dtype));
        if (!wg_dtype_is_float(t->dtype) && wgc_range_is_runtime(g, n))
            continue; /* bounded below */
        st = wgc_loop_need_const(g, n, i, what[i]);
    }
    if (st)
        return st;
    int dt = wgc_in(g, n, 0)->dtype;
    if (wgc_range_is_runtime(g, n)) {
        int64_t bound;
        int sym;
        if ((st = runtime_length_bound(g, n, &bound)) ||
            (st = wgc_sym_add_runtime(g, n, n->outputs[0], 0, bound, &sym)))
            return st;
        wgc_shape y = {.rank = 1};
        wgc_shape_set_runtime(&y, 0, sym, bound);
        wgc_set_output(g, n, 0, dt, &y);
        return WG_OK;
    }
    int64_t count;
    if (wg_dtype_is_float(dt)) {
        double s = wgc_elem_get_f(wgc_in(g, n, 0)->data, dt, 0),
               l = wgc_elem_get_f(wgc_in(g, n, 1)->data, dt, 0),
               d = wgc_elem_get_f(wgc_in(g, n, 2)->data, dt, 0);
        double c = ceil((l - s) / d);
        if (d == 0 || !(c < 1e12))
            return wgc_error(g, n, WG_ERR_INVALID, "range %g..%g step %g has no finite length", s, l, d);
        count = c > 0 ? (int64_t)c : 0;
    } else {
        int64_t s = wgc_const_int(wgc_in(g, n, 0), 0), l = wgc_const_int(wgc_in(g, n, 1), 0),
                d = wgc_const_int(wgc_in(g, n, 2), 0);
        if (d == 0)
            return wgc_error(g, n, WG_ERR_INVALID, "delta is 0");
        /* ceil division with the sign of delta, in a range that cannot overflow */
        double c = ceil(((double)l - (double)s) / (double)d);
        count = c > 0 ? (int64_t)c : 0;
    }
    wgc_shape y = {.rank = 1, .dims = {count}};
    wgc_set_output(g, n, 0, dt, &y);
    return WG_OK;
}

static wg_status range_fold(wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    int dt = y->dtype;
    void *data = wgc_elem_alloc(g, n, dt, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int64_t m = y->shape.dims[0];
    if (wg_dtype_is_float(dt)) {
        double s = wgc_elem_get_f(wgc_in(g, n, 0)->data, dt, 0),
               d = wgc_elem_get_f(wgc_in(g, n, 2)->data, dt, 0);
        for (int64_t i = 0; i < m; i++)
            wgc_elem_set_f(data, dt, i, s + (double)i * d);
    } else {
        int64_t s = wgc_const_int(wgc_in(g, n, 0), 0), d = wgc_const_int(wgc_in(g, n, 2), 0);
        for (int64_t i = 0; i < m; i++)
            wgc_elem_set_i(data, dt, i, s + i * d);
    }
    wgc_tensor_set_const(g, n->outputs[0], dt, &y->shape, data);
    return WG_OK;
}

wg_status wgc_range_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    const char *ct = y->dtype == WG_DT_INT64 ? "int64_t" : y->dtype == WG_DT_INT32 ? "int32_t" : "int16_t";
    char sb[160], lb[160], db[160];
    /* unsigned differences: values outside their bounds wrap instead of overflowing, and
     * the length check below still holds the writes in the buffer */
    wgc_emit(e, "{\nconst int64_t s = %s, l = %s, d = %s;\n", wgc_int_elem_expr(e, g, n->inputs[0], 0, sb, sizeof sb),
             wgc_int_elem_expr(e, g, n->inputs[1], 0, lb, sizeof lb), wgc_int_elem_expr(e, g, n->inputs[2], 0, db, sizeof db));
    wgc_emit(e, "if (d == 0)\n    return WGK_ERR_INDEX;\n"
                "const uint64_t c = d > 0 ? (l > s ? ((uint64_t)l - (uint64_t)s - 1) / (uint64_t)d + 1 : 0)\n"
                "                         : (s > l ? ((uint64_t)s - (uint64_t)l - 1) / (0 - (uint64_t)d) + 1 : 0);\n"
                "if (c > %lldULL)\n    return WGK_ERR_SIZE_BOUND;\n", (long long)y->shape.dims[0]);
    const int sym = wgc_shape_first_sym(&y->shape, 0);
    if (sym >= 0)
        wgc_emit(e, "wg_dims[%d] = (int32_t)c;\n", sym);
    wgc_emit(e, "%s *py = (%s *)%s;\nfor (uint64_t i = 0; i < c; i++)\n    py[i] = (%s)(s + (int64_t)i * d);\n}\n",
             ct, ct, wgc_ptr(e, g, n->outputs[0]), ct);
    return WG_OK;
}

static wg_status range_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (wgc_range_is_runtime(g, n))
        return wgc_range_runtime_emit(e, g, n);
    return wgc_emit_folded_only(e, g, n);
}

/* ---- symbolic dims (sym.h) ---- */

static wg_status range_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    const wgc_tensor *lim = wgc_in(g, n, 1), *d = wgc_in(g, n, 2);
    if (wgc_range_is_runtime(g, n))
        return WG_OK; /* a length decided in the module (range_infer gave it) */
    if (d->symval || !x->data || !d->data || !lim->data)
        return wgc_sym_refuse(g, n, "only a symbolic start and limit");
    wgc_dimx l = wgc_symval_at(lim, 0), s0 = wgc_symval_at(x, 0), len;
    int64_t step = wgc_const_int(d, 0);
    s0.c = -s0.c;
    if (step != 1 || !wgc_dimx_add_sym(g, n, l, s0, &len) || wgc_dimx_min(g, &len) < 0)
        return g->n_syms == WGC_MAX_SYMS ? WG_ERR_LIMIT
                                         : wgc_sym_refuse(g, n, "a symbolic range needs delta 1 and limit >= start");
    wgc_shape_set_dim(g, &y, 0, len);
    return wgc_sym_set_out(g, n, 0, &y);
}

/* Range(start, limit, delta) of a symbolic length: start + i * delta (start and delta
 * constant, the length symbolic: range_sym_infer). */
static wg_status range_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0), *s0 = wgc_in(g, n, 0), *d = wgc_in(g, n, 2);
    const char *ty = wgc_sym_c_type(y->dtype);
    if (!ty || !s0->data || !d->data || d->symval || (y->dtype != WG_DT_INT64 && y->dtype != WG_DT_INT32))
        return wgc_sym_refuse(g, n, "a start or delta computed at run time, or a float range");
    char sb[160];
    wgc_int_elem_expr(e, g, n->inputs[0], 0, sb, sizeof sb);
    wgc_emit(e, "{\n%s *py = (%s *)%s;\nfor (int32_t i = 0, n = %s; i < n; i++) py[i] = (%s)(%s + (int64_t)i * %lld);\n}\n",
             ty, ty, wgc_ptr(e, g, n->outputs[0]), wgc_sym_numel(e, y), ty, sb, (long long)wgc_const_int(d, 0));
    return WG_OK;
}

/* Its length decided in the module: its own emit hook writes the code and the size. */
static bool range_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && wgc_range_is_runtime(g, n);
}

const wgc_op_def wgc_op_range = {
    .infer = range_infer,
    .fold = range_fold,
    .emit = range_emit,
    .sym = {.infer = range_sym_infer, .emit = range_sym_emit, .takes = range_sym_takes},
};
