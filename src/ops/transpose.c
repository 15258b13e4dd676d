/* transpose.c: Transpose by `perm` (default: reverse the dims). */
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"

/* perm[rank] (rank: input 0's) from the attribute, checked to be a permutation; without
 * it, the dims reversed. */
static wg_status read_perm(wgc_graph *g, const wgc_node *n, int64_t *perm)
{
    const int rank = wgc_in(g, n, 0)->shape.rank;
    size_t cnt;
    const int64_t *p = wgc_attr_ints(n, "perm", &cnt);
    if (!p) {
        for (int d = 0; d < rank; d++)
            perm[d] = rank - 1 - d;
        return WG_OK;
    }
    if ((int)cnt != rank)
        return wgc_error(g, n, WG_ERR_INVALID, "perm has %zu entries for rank %d", cnt, rank);
    bool seen[WG_MAX_RANK] = {false};
    for (int d = 0; d < rank; d++) {
        if (p[d] < 0 || p[d] >= rank || seen[p[d]])
            return wgc_error(g, n, WG_ERR_INVALID, "perm is not a permutation (entry %d = %lld)",
                             d, (long long)p[d]);
        seen[p[d]] = true;
        perm[d] = p[d];
    }
    return WG_OK;
}

static wg_status transpose_infer(wgc_graph *g, wgc_node *n)
{
    int64_t perm[WG_MAX_RANK];
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_numeric_dtypes);
    if (!st)
        st = read_perm(g, n, perm);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y = {.rank = x->shape.rank};
    for (int d = 0; d < y.rank; d++)
        y.dims[d] = x->shape.dims[perm[d]];
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

/* x (shape xsh, elements of es bytes) transposed by perm into a new buffer of yshape (NULL:
 * out of memory). */
static void *permuted(wgc_graph *g, const wgc_node *n, const void *x, const wgc_shape *xsh, size_t es, int dtype,
                      const int64_t *perm, const wgc_shape *yshape)
{
    int64_t xs[WG_MAX_RANK], idx[WG_MAX_RANK] = {0};
    void *data = wgc_elem_alloc(g, n, dtype, yshape);
    if (!data)
        return NULL;
    wgc_shape_strides(xsh, xs);
    int64_t i = 0;
    if (wgc_numel(yshape) > 0) {
        do {
            int64_t off = 0;
            for (int d = 0; d < yshape->rank; d++)
                off += idx[d] * xs[perm[d]];
            memcpy((char *)data + i * (int64_t)es, (const char *)x + off * (int64_t)es, es);
            i++;
        } while (wgc_index_next(yshape, idx));
    }
    return data;
}

/* A Transpose of a folded DequantizeLinear's floats is the DequantizeLinear of its bytes
 * transposed alike: y keeps where it came from (wgc_tensor.from_dq), the bytes transposed
 * into a tensor of their own and the scale's axis moved with them, so that a kernel may
 * read the bytes (GEMM_PACKED_B_Q8: a q8 tied lm_head written DequantizeLinear then
 * Transpose). xi: the input's tensor. */
static wg_status keep_dq_origin(wgc_graph *g, wgc_node *n, int xi, const int64_t *perm)
{
    const wgc_tensor *x = &g->tensors[xi];
    if (!x->from_dq || !g->tensors[x->dq_x].data)
        return WG_OK;
    const int b = wgc_tensor_add_derived(g, g->tensors[n->outputs[0]].name, "/dq_bytes");
    if (b < 0)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    x = &g->tensors[xi]; /* the tensor array may have moved */
    const wgc_tensor *q = &g->tensors[x->dq_x];
    const wgc_shape yshape = g->tensors[n->outputs[0]].shape;
    void *bytes = permuted(g, n, q->data, &q->shape, wg_dtype_size(q->dtype), q->dtype, perm, &yshape);
    if (!bytes)
        return WG_ERR_NOMEM;
    const int dtype = q->dtype;
    wgc_tensor_set_const(g, b, dtype, &yshape, bytes);
    x = &g->tensors[xi];
    wgc_tensor *y = &g->tensors[n->outputs[0]];
    int axis = -1;
    for (int d = 0; d < yshape.rank && x->dq_axis >= 0; d++)
        if (perm[d] == x->dq_axis)
            axis = d;
    y->from_dq = true;
    y->dq_x = b;
    y->dq_scale = x->dq_scale;
    y->dq_zero = x->dq_zero;
    y->dq_axis = axis;
    return WG_OK;
}

static wg_status transpose_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data)
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    int64_t perm[WG_MAX_RANK];
    wg_status st = read_perm(g, n, perm);
    if (st)
        return st;
    void *data = permuted(g, n, x->data, &x->shape, wg_dtype_size(x->dtype), y->dtype, perm, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return keep_dq_origin(g, n, n->inputs[0], perm);
}

static wg_status transpose_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t perm[WG_MAX_RANK];
    wg_status st = read_perm(g, n, perm);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st || wgc_numel(&x->shape) == 0)
        return st;
    char ld[160], lp[160];
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    wgc_emit(e, "wgk_transpose(%s, %s, %zu, %d, %s, %s);\n", py, px, wg_dtype_size(x->dtype),
             x->shape.rank, wgc_i32_list(ld, sizeof ld, x->shape.dims, x->shape.rank),
             wgc_i32_list(lp, sizeof lp, perm, x->shape.rank));
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

static wg_status transpose_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    int64_t perm[WG_MAX_RANK];
    wg_status st = read_perm(g, n, perm);
    if (st)
        return st;
    for (int d = 0; d < y.rank; d++)
        memcpy(y.sym[d], x->shape.sym[perm[d]], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

static wg_status transpose_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t perm[WG_MAX_RANK];
    wg_status st = read_perm(g, n, perm);
    if (st)
        return st;
    wgc_emit(e, "{\n");
    wgc_sym_put_dims(e, &x->shape, "xd");
    wgc_emit(e, "const int32_t perm[%d] = {", x->shape.rank);
    for (int d = 0; d < x->shape.rank; d++)
        wgc_emit(e, "%s%d", d ? ", " : "", (int)perm[d]);
    wgc_emit(e, "};\nwgk_transpose(%s, %s, %zu, %d, xd, perm);\n}\n", wgc_ptr(e, g, n->outputs[0]),
             wgc_ptr(e, g, n->inputs[0]), wg_dtype_size(x->dtype), x->shape.rank);
    return WG_OK;
}

const wgc_op_def wgc_op_transpose = {
    .infer = transpose_infer,
    .fold = transpose_fold,
    .emit = transpose_emit,
    .sym = {.infer = transpose_sym_infer,
            .emit = transpose_sym_emit,
            .bounds = wgc_vrange_of_input0},
};
