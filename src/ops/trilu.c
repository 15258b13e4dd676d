/*
 * trilu.c: Trilu: keeps the upper (upper=1, j - i >= k) or lower (j - i <= k) triangle of
 * the last two dims and zeroes the rest. k is an optional input (default 0): a constant is
 * compiled into the loop, one computed at run time is read by it (it decides no shape).
 * Symbolic dims (a causal mask over a sequence's length: ops.def's WGC_SAME_SHAPE): the
 * same loops over the run's sizes.
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/sym_code.h"

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

/* k when it is known at compile time (0 when omitted); *runtime says it is not. */
static wg_status get_k(wgc_graph *g, const wgc_node *n, int64_t *k, bool *runtime)
{
    return wgc_loop_scalar_input(g, n, 1, "k", 0, k, runtime);
}

static wg_status trilu_infer(wgc_graph *g, wgc_node *n)
{
    int64_t k;
    bool runtime;
    wg_status st = wgc_check_arity(g, n, 1, 2, 1, 1);
    if (!st)
        st = wgc_check_data_and_index(g, n, wgc_gen_dtypes);
    if (!st)
        st = get_k(g, n, &k, &runtime);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->shape.rank < 2)
        return wgc_error(g, n, WG_ERR_INVALID, "input rank %d is below 2", x->shape.rank);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

static bool keep(bool upper, int64_t i, int64_t j, int64_t k)
{
    return upper ? j - i >= k : j - i <= k;
}

static wg_status trilu_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t k;
    bool runtime;
    if (!x->data || get_k(g, n, &k, &runtime) || runtime)
        return WG_ERR_UNSUPPORTED;
    bool upper = wgc_attr_int(n, "upper", 1) != 0;
    int r = x->shape.rank;
    int64_t rows = x->shape.dims[r - 2], cols = x->shape.dims[r - 1], m = wgc_numel(&x->shape);
    size_t es = wg_dtype_size(x->dtype);
    char *data = wgc_elem_alloc(g, n, x->dtype, &x->shape); /* zeroed */
    if (!data)
        return WG_ERR_NOMEM;
    for (int64_t o = 0; o < m; o++) {
        int64_t j = o % cols, i = (o / cols) % rows;
        if (keep(upper, i, j, k))
            memcpy(data + o * (int64_t)es, (const char *)x->data + o * (int64_t)es, es);
    }
    wgc_tensor_set_const(g, n->outputs[0], x->dtype, &x->shape, data);
    return WG_OK;
}

static wg_status trilu_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t k;
    bool runtime;
    wg_status st = get_k(g, n, &k, &runtime);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    int64_t m = wgc_numel(&x->shape);
    if (m == 0)
        return WG_OK;
    bool upper = wgc_attr_int(n, "upper", 1) != 0;
    int r = x->shape.rank;
    int64_t dims[3] = {m / (x->shape.dims[r - 2] * x->shape.dims[r - 1]), x->shape.dims[r - 2],
                       x->shape.dims[r - 1]};
    const bool sym = wgc_shape_is_sym(&x->shape);
    const char *ct = wgc_loop_bits(x->dtype);
    wgc_emit(e, "{\nconst %s *px = (const %s *)%s;\n", ct, ct, wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "%s *py = (%s *)%s;\nint32_t o = 0;\n", ct, ct, wgc_ptr(e, g, n->outputs[0]));
    if (runtime)
        wgc_emit(e, "const int64_t k = (int64_t)*(const %s *)%s;\n",
                 wgc_in(g, n, 1)->dtype == WG_DT_INT64 ? "int64_t" : "int32_t", wgc_ptr(e, g, n->inputs[1]));
    else
        wgc_emit(e, "const int64_t k = %lldLL;\n", (long long)k);
    if (sym) { /* the run's sizes: matrices, rows, columns */
        char nb[256], nr[128];
        snprintf(nb, sizeof nb, "%s", wgc_dims_expr(e, &x->shape, 0, r - 2));
        snprintf(nr, sizeof nr, "%s", wgc_dims_expr(e, &x->shape, r - 2, r - 1));
        wgc_emit(e, "for (int32_t i0 = 0, n0 = %s; i0 < n0; i0++)\nfor (int32_t i1 = 0, n1 = %s; i1 < n1; i1++)\n"
                    "for (int32_t i2 = 0, n2 = %s; i2 < n2; i2++)\n",
                 nb, nr, wgc_dims_expr(e, &x->shape, r - 1, r));
    } else {
        wgc_loop_for(e, "i", 3, dims);
    }
    wgc_emit(e, "{\npy[o] = (int64_t)i2 - i1 %s k ? px[o] : 0;\no++;\n}\n}\n", upper ? ">=" : "<=");
    return WG_OK;
}

const wgc_op_def wgc_op_trilu = {.infer = trilu_infer, .fold = trilu_fold, .emit = trilu_emit,
                                 .sym = {.emit = trilu_emit}};
