/* fold_map.c: host evaluator for constant folding of the generic ops (see fold_map.h). */
#include "fold_map.h"

#include <stdlib.h>
#include <string.h>

#include "host_elements.h"
#include "emit_and_fold.h"

wgc_kind wgc_dtype_kind(int dtype)
{
    switch (dtype) {
    case WG_DT_FLOAT: case WG_DT_DOUBLE: case WG_DT_FLOAT16: return WGC_KIND_FLOAT;
    case WG_DT_INT8: case WG_DT_INT16: case WG_DT_INT32: case WG_DT_INT64: return WGC_KIND_SIGNED;
    default: return WGC_KIND_UNSIGNED;
    }
}

wgc_scalar wgc_scalar_get(const void *data, int dtype, int64_t i)
{
    wgc_scalar v;
    switch (wgc_dtype_kind(dtype)) {
    case WGC_KIND_FLOAT: v.f = wgc_elem_get_f(data, dtype, i); break;
    case WGC_KIND_SIGNED: v.i = wgc_elem_get_i(data, dtype, i); break;
    default: v.u = (uint64_t)wgc_elem_get_i(data, dtype, i); break; /* exact for uint64 too */
    }
    return v;
}

void wgc_scalar_set(void *data, int dtype, int64_t i, wgc_scalar v)
{
    switch (wgc_dtype_kind(dtype)) {
    case WGC_KIND_FLOAT: wgc_elem_set_f(data, dtype, i, v.f); break;
    case WGC_KIND_SIGNED: wgc_elem_set_i(data, dtype, i, v.i); break;
    default:
        if (dtype == WG_DT_BOOL)
            wgc_elem_set_i(data, dtype, i, v.u != 0);
        else
            wgc_elem_set_i(data, dtype, i, (int64_t)v.u); /* wraps to the width, as in C */
        break;
    }
}

/* Common checks of every fold: constant inputs, foldable dtypes, bounded output. */
static bool can_fold(wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    if (!y || !wgc_inputs_const(g, n) || !wgc_elem_supported(y->dtype) ||
        wgc_numel(&y->shape) > WGC_FOLD_MAX_NUMEL)
        return false;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        if (x && !wgc_elem_supported(x->dtype))
            return false;
    }
    return true;
}

double wgc_round_to(int dtype, double v)
{
    char one[8];
    wgc_elem_set_f(one, dtype, 0, v);
    return wgc_elem_get_f(one, dtype, 0);
}

wg_status wgc_fold_map(wgc_graph *g, wgc_node *n, wgc_scalar_fn fn, const void *ctx)
{
    if (n->n_inputs < 1 || !wgc_inputs_const(g, n))
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    if (!y || !wgc_elem_supported(y->dtype))
        return WG_ERR_UNSUPPORTED;
    int64_t largest_in = 0;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        if (!x || !wgc_elem_supported(x->dtype))
            return WG_ERR_UNSUPPORTED;
        if (wgc_numel(&x->shape) > largest_in)
            largest_in = wgc_numel(&x->shape);
    }
    if (wgc_numel(&y->shape) > WGC_FOLD_MAX_NUMEL && wgc_numel(&y->shape) > largest_in)
        return WG_ERR_UNSUPPORTED;
    /* Sum takes any number of inputs: one block for the tensors, kinds and values. */
    size_t nin = (size_t)n->n_inputs;
    const wgc_tensor **in = malloc(nin * (sizeof *in + sizeof(wgc_kind) + sizeof(wgc_scalar)));
    if (!in)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory folding");
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape); /* sets the error itself */
    if (!data) {
        free(in);
        return WG_ERR_NOMEM;
    }
    wgc_scalar *v = (wgc_scalar *)(in + nin);
    wgc_kind *kinds = (wgc_kind *)(v + nin);
    for (size_t k = 0; k < nin; k++) {
        in[k] = wgc_in(g, n, (int)k);
        kinds[k] = wgc_dtype_kind(in[k]->dtype);
    }
    wgc_map_args a = {n, kinds[0], wg_dtype_size(in[0]->dtype), in[0]->dtype, kinds, ctx};
    if (wgc_numel(&y->shape) > 0) {
        int64_t idx[WG_MAX_RANK] = {0}, i = 0;
        do {
            for (size_t k = 0; k < nin; k++)
                v[k] = wgc_scalar_get(in[k]->data, in[k]->dtype,
                                      wgc_bcast_offset(&in[k]->shape, &y->shape, idx));
            wgc_scalar_set(data, y->dtype, i++, fn(&a, v));
        } while (wgc_index_next(&y->shape, idx));
    }
    free(in);
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

wg_status wgc_fold_affine(wgc_graph *g, wgc_node *n, int r, const int64_t *dims,
                          const int64_t *strides, int64_t base)
{
    if (!can_fold(g, n) || r > 2 * WG_MAX_RANK)
        return WG_ERR_UNSUPPORTED;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    size_t es = wg_dtype_size(y->dtype);
    int64_t xn = wgc_numel(&x->shape);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int64_t count = 1;
    for (int d = 0; d < r; d++)
        count *= dims[d];
    int64_t idx[2 * WG_MAX_RANK] = {0};
    for (int64_t o = 0; o < count; o++) {
        int64_t off = base;
        for (int d = 0; d < r; d++)
            off += idx[d] * strides[d];
        if (off < 0 || off >= xn) { /* the view is planned in bounds; never read outside */
            free(data);
            return wgc_error(g, n, WG_ERR_INVALID, "folding reads element %lld of %lld (internal error)",
                             (long long)off, (long long)xn);
        }
        memcpy((char *)data + o * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
        for (int d = r - 1; d >= 0; d--) {
            if (++idx[d] < dims[d])
                break;
            idx[d] = 0;
        }
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}
