/*
 * sym_infer.c: the driver of symbolic dimensions through the ops (compile --dim; sym.h,
 * symdim.h).
 *
 * The op's own infer hook runs first, at the symbols' maxima: it checks attributes and
 * dtypes and gives every output its size at the maxima. wgc_sym_infer then gives the
 * outputs their symbolic dimensions by the op's sym.infer hook, or by the common rule of
 * a trait of its ops.def row (same shape, broadcasting, per sample, sliding windows), or
 * refuses the node, naming it and the symbol: an op without a rule never sees a symbolic
 * dimension, so none computes a wrong size. wgc_sym_fold does the same for the folded
 * shape arithmetic (Shape -> Gather -> Unsqueeze -> Concat -> Reshape ...) through the
 * op's sym.foldable and sym.values hooks: values that depend on symbols are carried as
 * monomials (wgc_tensor.symval) next to their values at the maxima.
 */
#include "sym.h"

#include <stdlib.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/host_elements.h"

bool wgc_sym_runs_at_maxima(const wgc_graph *g, const wgc_node *n)
{
    if (!wgc_op_takes(g, n, WGC_AT_MAXIMA))
        return false;
    for (int k = 1; k < n->n_inputs; k++) /* Clip's bounds: scalars of fixed size */
        if (n->inputs[k] >= 0 && (wgc_shape_is_sym(&g->tensors[n->inputs[k]].shape) ||
                                  g->tensors[n->inputs[k]].symval))
            return false;
    return n->n_outputs == 1 && n->inputs[0] >= 0 && !g->tensors[n->inputs[0]].symval;
}

/* The symbolic output shape computed by a rule must agree with the op's own at the maxima. */
wg_status wgc_sym_set_out(wgc_graph *g, const wgc_node *n, int i, const wgc_shape *s)
{
    wgc_tensor *y = wgc_out(g, n, i);
    char a[128], b[128];
    if (!y)
        return WG_OK;
    if (s->rank != y->shape.rank || memcmp(s->dims, y->shape.dims, sizeof(int64_t) * (size_t)s->rank))
        return wgc_error(g, n, WG_ERR_INVALID,
                         "symbolic shape %s of output '%s' disagrees with %s at the maxima "
                         "(internal error)", wgc_shape_str(s, a, sizeof a), y->name,
                         wgc_shape_str(&y->shape, b, sizeof b));
    for (int d = 0; d < s->rank; d++) { /* a sum symbol as a size must never be negative */
        wgc_dimx x = wgc_dimx_of(g, s, d);
        if (wgc_dim_is_sym(s, d) && wgc_dimx_min(g, &x) < 0 && x.c > 0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "dimension %d of output '%s' would be %s, below 0 at some "
                             "sizes in range", d, y->name, wgc_dimx_str(g, &x, a, sizeof a));
    }
    y->shape = *s;
    return WG_OK;
}

wgc_tensor *wgc_sym_out0(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (y0)
        *y = wgc_sym_dims_of(&y0->shape);
    return y0;
}

wgc_shape wgc_sym_dims_of(const wgc_shape *s)
{
    wgc_shape r = *s;
    memset(r.sym, 0, sizeof r.sym);
    return r;
}

/* Reshape, Unsqueeze, Squeeze, Flatten of a symbolic tensor: the dims of the output at the
 * maxima are matched to the input's in order, each symbolic input dim with one output dim
 * of its size; fixed dims regroup freely between them. Refused when a symbolic dim would
 * merge with or split from another. */
wg_status wgc_sym_regroup(wgc_graph *g, const wgc_node *n, const wgc_shape *x, wgc_shape *y)
{
    int j = 0;
    for (int d = 0; d < x->rank; d++) {
        if (!wgc_dim_is_sym(x, d))
            continue;
        /* the fixed product before d in x must be matched by y's before its slot */
        int64_t px = 1, py = 1;
        for (int i = 0; i < d; i++)
            px *= x->dims[i];
        int slot = -1;
        for (int i = 0; i < y->rank; i++) {
            if (py == px && y->dims[i] == x->dims[d] && i >= j) {
                slot = i;
                break;
            }
            py *= y->dims[i];
        }
        if (slot < 0)
            return wgc_sym_refuse(g, n, "the reshape merges or splits a symbolic dimension");
        memcpy(y->sym[slot], x->sym[d], WGC_MAX_SYMS);
        j = slot + 1;
    }
    return WG_OK;
}

/* A shape given by a (symbolic) 1-D value tensor. */
void wgc_sym_shape_of_values(const wgc_graph *g, const wgc_tensor *v, wgc_shape *s)
{
    s->rank = (int)wgc_numel(&v->shape);
    for (int i = 0; i < s->rank; i++)
        wgc_shape_set_dim(g, s, i, wgc_symval_at(v, i));
}

wgc_sym_folds wgc_sym_passes_values(const wgc_graph *g, const wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return WGC_SYM_NO_FOLD;
    return n->inputs[0] >= 0 && g->tensors[n->inputs[0]].symval ? WGC_SYM_FOLDS : WGC_SYM_NO_FOLD;
}

wg_status wgc_sym_copy_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    for (int64_t i = 0; i < count; i++)
        v[i] = wgc_symval_at(x, i);
    return WG_OK;
}

wg_status wgc_sym_copy_int_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status st = wgc_sym_int_values_only(g, n);
    return st ? st : wgc_sym_copy_values(g, n, v, count);
}

wg_status wgc_sym_regroup_rule(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        return WG_OK;
    wgc_shape y = wgc_sym_dims_of(&y0->shape);
    wg_status st;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "symbolic axes");
    /* regroup refuses a squeezed symbolic dim: its size may be other than 1 */
    if ((st = wgc_sym_regroup(g, n, &wgc_in(g, n, 0)->shape, &y)))
        return st;
    return wgc_sym_set_out(g, n, 0, &y);
}

bool wgc_sym_takes_planes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_PER_SAMPLE || (t == WGC_WINDOW && g->tensors[n->inputs[0]].shape.rank >= 3);
}

wg_status wgc_sym_runtime_sizes(wgc_graph *g, wgc_node *n,
                                wg_status (*shape)(wgc_graph *g, const wgc_node *n, wgc_shape *y))
{
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    wg_status st;
    if (wgc_in(g, n, 0)->symval)
        return wgc_sym_refuse(g, n, "its input holds symbolic values");
    if ((st = shape(g, n, &y)))
        return st;
    return wgc_sym_set_out(g, n, 0, &y);
}

wg_status wgc_sym_same_shape(wgc_graph *g, wgc_node *n)
{
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, NULL);
    wgc_shape y = wgc_in(g, n, 0)->shape;
    return wgc_sym_set_out(g, n, 0, &y);
}

wg_status wgc_sym_batch_rule(wgc_graph *g, wgc_node *n)
{
    wg_status st;
    for (int i = 0; i < n->n_outputs; i++) {
        if (n->outputs[i] < 0)
            continue;
        wgc_shape o = wgc_sym_dims_of(&wgc_out(g, n, i)->shape);
        if ((st = wgc_sym_batch_infer(g, n, &o, i)) || (st = wgc_sym_set_out(g, n, i, &o)))
            return st;
    }
    return WG_OK;
}

/* The common rules of the traits, in this order, for an op without a sym.infer hook. */
static wg_status trait_rule(wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        return WG_OK;
    wg_status st;
    if (wgc_op_takes(g, n, WGC_SAME_SHAPE) || wgc_sym_runs_at_maxima(g, n))
        return wgc_sym_same_shape(g, n);
    if (wgc_sym_batch_op(g, n))
        return wgc_sym_batch_rule(g, n);
    if (wgc_sym_window_op(g, n)) {
        wgc_shape y = wgc_sym_dims_of(&y0->shape);
        if ((st = wgc_sym_window_infer(g, n, &y)))
            return st;
        return wgc_sym_set_out(g, n, 0, &y);
    }
    if (wgc_op_takes(g, n, WGC_BROADCASTS)) {
        /* an operand holding symbolic values is written at its actual values where the
         * node runs (helpers/sym_code.c wgc_sym_operand) */
        wgc_shape b = wgc_in(g, n, 0)->shape;
        for (int i = 1; i < n->n_inputs; i++)
            if (!wgc_broadcast_checked(g, &b, &wgc_in(g, n, i)->shape, &b)) /* checked: sym_emit.c */
                return wgc_sym_refuse(g, n, "its operands broadcast a symbolic dimension against a "
                                            "fixed one or another symbol");
        return wgc_sym_set_out(g, n, 0, &b);
    }
    return wgc_sym_batch_refuse(g, n);
}

bool wgc_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    const wgc_op_def *h = wgc_op_hooks(n->op);
    return h->sym.foldable && h->fold && h->sym.foldable(g, n) != WGC_SYM_NO_FOLD;
}

wg_status wgc_sym_infer(wgc_graph *g, wgc_node *n)
{
    int k;
    /* no symbolic input: the op's own shapes stand (a data-dependent op's run-time
     * symbols are its own, set by its infer hook) */
    if (!wgc_sym_has_sym_input_at(g, n, &k) && !wgc_sym_has_symval_input(g, n))
        return WG_OK;
    if (wgc_sym_foldable(g, n))
        return WG_OK; /* shape arithmetic: wgc_sym_fold gives the values */
    const wgc_op_sym *s = &wgc_op_hooks(n->op)->sym;
    return s->infer ? s->infer(g, n) : trait_rule(g, n);
}

/* ---- folding shape arithmetic ------------------------------------------------------ */

wg_status wgc_sym_int_values_only(wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    if (y && (y->dtype == WG_DT_FLOAT || y->dtype == WG_DT_DOUBLE))
        return wgc_sym_refuse(g, n, "float symbolic values (a Cast of shape arithmetic) other than their arithmetic");
    return WG_OK;
}

wg_status wgc_sym_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_op_sym *h = &wgc_op_hooks(n->op)->sym;
    if (h->foldable(g, n) == WGC_SYM_DECIDED)
        return WG_OK; /* the folded constant stands at every size */
    wgc_tensor *y = wgc_out(g, n, 0);
    if (!y || !y->data || n->n_outputs != 1)
        return wgc_sym_refuse(g, n, NULL);
    const bool fl = y->dtype == WG_DT_FLOAT || y->dtype == WG_DT_DOUBLE;
    if (y->dtype != WG_DT_INT64 && y->dtype != WG_DT_INT32 && !fl)
        return wgc_sym_refuse(g, n, "symbolic values of a non-integer type");
    int64_t count = wgc_numel(&y->shape);
    wgc_dimx *v = malloc(sizeof *v * (size_t)(count ? count : 1));
    if (!v)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    wg_status st = h->values(g, n, v, count);
    for (int64_t i = 0; !st && i < count; i++)
        if (fl ? (double)wgc_dimx_max(g, &v[i]) != wgc_elem_get_f(y->data, y->dtype, i)
               : wgc_dimx_max(g, &v[i]) != wgc_const_int(y, i))
            st = wgc_error(g, n, WG_ERR_INVALID, "symbolic value %lld disagrees with the folded one "
                           "(internal error)", (long long)i);
    if (!st) {
        wgc_shape s = y->shape;
        st = wgc_tensor_set_symval(g, n->outputs[0], y->dtype, &s, v);
    }
    free(v);
    return st;
}
