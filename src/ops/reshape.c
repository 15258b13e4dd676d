/*
 * reshape.c: Reshape. The shape input (opset >= 5; the `shape` attribute before) must be
 * constant once folding has run: 0 copies the input dim (unless allowzero = 1), -1 is
 * inferred from the element count.
 */
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

static wg_status reshape_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 2, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t want[WG_MAX_RANK];
    int64_t rank;
    const wgc_tensor *s = wgc_in(g, n, 1);
    if (s) {
        static const int i64[] = {WG_DT_INT64, 0};
        if ((st = wgc_check_input(g, n, 1, i64)))
            return st;
        if (!s->data)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "shape input '%s' is computed at run time; only shapes known at "
                             "compile time are supported (set input shapes with --shape)",
                             s->name);
        if (s->shape.rank != 1)
            return wgc_error(g, n, WG_ERR_INVALID, "shape input '%s' must be 1-D", s->name);
        rank = s->shape.dims[0];
        if (rank > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output rank %lld exceeds %d",
                             (long long)rank, WG_MAX_RANK);
        for (int64_t i = 0; i < rank; i++)
            want[i] = wgc_const_int(s, i);
    } else {
        size_t cnt;
        const int64_t *v = wgc_attr_ints(n, "shape", &cnt);
        if (!v)
            return wgc_error(g, n, WG_ERR_INVALID, "has neither a shape input nor attribute");
        if (cnt > WG_MAX_RANK)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output rank %zu exceeds %d", cnt,
                             WG_MAX_RANK);
        rank = (int64_t)cnt;
        for (size_t i = 0; i < cnt; i++)
            want[i] = v[i];
    }
    bool allowzero = wgc_attr_int(n, "allowzero", 0) != 0;
    wgc_shape y = {.rank = (int)rank};
    int infer_at = -1;
    int64_t known = 1;
    for (int i = 0; i < y.rank; i++) {
        int64_t v = want[i];
        if (v == 0 && !allowzero) {
            if (i >= x->shape.rank)
                return wgc_error(g, n, WG_ERR_INVALID,
                                 "shape[%d] = 0 copies a dim the rank-%d input does not have", i,
                                 x->shape.rank);
            v = x->shape.dims[i];
        }
        if (v == -1) {
            if (infer_at >= 0)
                return wgc_error(g, n, WG_ERR_INVALID, "shape has more than one -1");
            infer_at = i;
            v = 1;
        } else if (v < 0) {
            return wgc_error(g, n, WG_ERR_INVALID, "shape[%d] = %lld is invalid", i,
                             (long long)v);
        }
        y.dims[i] = v;
        if (__builtin_mul_overflow(known, v, &known)) /* a made-up shape: no UB */
            return wgc_error(g, n, WG_ERR_INVALID,
                             "shape[%d] = %lld makes the element count overflow", i, (long long)v);
    }
    int64_t total = wgc_numel(&x->shape);
    if (infer_at >= 0) {
        if (known == 0 || total % known)
            return wgc_error(g, n, WG_ERR_INVALID,
                             "cannot infer the -1 dim: %lld elements over a known product %lld",
                             (long long)total, (long long)known);
        y.dims[infer_at] = total / known;
    }
    if (wgc_numel(&y) != total) {
        char a[96], b[96];
        return wgc_error(g, n, WG_ERR_INVALID, "cannot reshape %s into %s",
                         wgc_shape_str(&x->shape, a, sizeof a), wgc_shape_str(&y, b, sizeof b));
    }
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* Reshape whose shape input holds symbolic values: its entries, 0 copying the input dim
 * and -1 the rest of the element count (an exact monomial quotient). */
static wg_status reshape_symval(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    wgc_dimx total = wgc_dimx_const(1), known = wgc_dimx_const(1);
    for (int d = 0; d < x->shape.rank; d++)
        total = wgc_dimx_mul(total, wgc_dimx_of(g, &x->shape, d));
    int infer_at = -1;
    bool allowzero = wgc_attr_int(n, "allowzero", 0) != 0;
    for (int i = 0; i < y->rank; i++) {
        wgc_dimx v = wgc_symval_at(s, i);
        if (wgc_dimx_is_const(&v) && v.c == 0 && !allowzero)
            v = wgc_dimx_of(g, &x->shape, i);
        if (wgc_dimx_is_const(&v) && v.c == -1) {
            infer_at = i;
            continue;
        }
        wgc_shape_set_dim(g, y, i, v);
        known = wgc_dimx_mul(known, v);
    }
    if (infer_at >= 0) {
        wgc_dimx q;
        if (!wgc_dimx_div(total, known, &q))
            return wgc_sym_refuse(g, n, "the -1 of its shape is not a product of the symbols");
        wgc_shape_set_dim(g, y, infer_at, q);
    } else {
        wgc_dimx q;
        if (!wgc_dimx_div(total, known, &q) || !wgc_dimx_eq(&q, &(wgc_dimx){.c = 1}))
            return wgc_sym_refuse(g, n, "its shape does not hold the input's element count at every size");
    }
    return WG_OK;
}

static wg_status reshape_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    wg_status st;
    /* a shape input, constant or symbolic: its -1 is what is left of the symbolic
     * element count, and a shape that holds it only at the maxima is refused */
    const wgc_tensor *s = wgc_in(g, n, 1);
    if (s && s->data) {
        if ((st = reshape_symval(g, n, &y)))
            return st;
    } else if ((st = wgc_sym_regroup(g, n, &x->shape, &y))) {
        return st;
    }
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_reshape = WGC_SAME_BYTES_OP_DEF(reshape_infer, reshape_sym_infer);
