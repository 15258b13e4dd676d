/*
 * reshape.c: Reshape. The shape input (opset >= 5; the `shape` attribute before) must be
 * constant once folding has run: 0 copies the input dim (unless allowzero = 1), -1 is
 * inferred from the element count.
 */
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"

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

const wgc_op_def wgc_op_reshape = {reshape_infer, wgc_fold_same_bytes, wgc_emit_same_bytes, NULL};
