/*
 * eye_like.c: EyeLike: a 2-D tensor shaped like the input (whose values are not read)
 * with ones on the diagonal shifted by k and zeros elsewhere, of dtype `dtype` (default:
 * the input's; float16 computes as float32).
 */
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"

static wg_status eye_like_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_gen_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->shape.rank != 2)
        return wgc_error(g, n, WG_ERR_INVALID, "input rank %d, EyeLike needs 2", x->shape.rank);
    int64_t dt = wgc_attr_int(n, "dtype", x->dtype);
    if (dt == WG_DT_FLOAT16)
        dt = WG_DT_FLOAT;
    if (dt <= 0 || dt > INT32_MAX || !wgc_ctype((int)dt))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "dtype %lld", (long long)dt);
    wgc_set_output(g, n, 0, (int)dt, &x->shape);
    return WG_OK;
}

/* Attribute k, clamped to [-rows, cols]: beyond that the diagonal misses the matrix either
 * way, and the index arithmetic of fold and emit stays far from overflow. */
static int64_t diag_k(const wgc_node *n, int64_t rows, int64_t cols)
{
    int64_t k = wgc_attr_int(n, "k", 0);
    return k < -rows ? -rows : k > cols ? cols : k;
}

static wg_status eye_like_fold(wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape); /* zeroed */
    if (!data)
        return WG_ERR_NOMEM;
    int64_t rows = y->shape.dims[0], cols = y->shape.dims[1], k = diag_k(n, rows, cols);
    for (int64_t i = 0; i < rows; i++)
        if (i + k >= 0 && i + k < cols)
            wgc_elem_set_i(data, y->dtype, i * cols + i + k, 1);
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

static wg_status eye_like_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    wg_status st = wgc_check_i32_numel(g, n, y);
    if (st)
        return st;
    int64_t rows = y->shape.dims[0], cols = y->shape.dims[1], k = diag_k(n, rows, cols);
    size_t bytes = (size_t)wgc_numel(&y->shape) * wg_dtype_size(y->dtype);
    if (!bytes)
        return WG_OK;
    const char *ct = wgc_ctype(y->dtype);
    wgc_emit(e, "{\n%s *py = (%s *)%s;\nmemset(py, 0, %zu);\n", ct, ct, wgc_ptr(e, g, n->outputs[0]), bytes);
    int64_t lo = k < 0 ? -k : 0, hi = cols - k < rows ? cols - k : rows; /* rows i with 0 <= i + k < cols */
    if (hi > lo)
        wgc_emit(e, "for (int32_t i = %lld; i < %lld; i++) py[i * %lld + i + %lld] = 1;\n",
                 (long long)lo, (long long)hi, (long long)cols, (long long)k);
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_eye_like = {.infer = eye_like_infer, .fold = eye_like_fold, .emit = eye_like_emit};
