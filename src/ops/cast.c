/* cast.c: Cast between numeric dtypes (float16 and bool included), and to and from the
 * storage-only types (bfloat16, float8, float8e8m0, float4e2m1, int4/uint4, int2/uint2:
 * kernels/include/wgk_storage.h, which the fold shares with the kernel), honouring `saturate`
 * (float8) and `round_mode` (float8e8m0, Cast-24). */
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_storage.h"
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "cast.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "sym.h"
#include "versions.h"

const int wgc_cast_dtypes[] = {
    WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8, WG_DT_INT16, WG_DT_INT32, WG_DT_INT64,
    WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, WG_DT_BOOL, WG_DT_BFLOAT16,
    WG_DT_FLOAT8E4M3FN, WG_DT_FLOAT8E4M3FNUZ, WG_DT_FLOAT8E5M2, WG_DT_FLOAT8E5M2FNUZ, WG_DT_UINT4,
    WG_DT_INT4, WG_DT_FLOAT4E2M1, WG_DT_FLOAT8E8M0, WG_DT_UINT2, WG_DT_INT2, 0,
};

bool wgc_cast_supported(int dtype)
{
    for (const int *d = wgc_cast_dtypes; *d; d++)
        if (*d == dtype)
            return true;
    return false;
}

wg_status wgc_cast_round_mode(wgc_graph *g, const wgc_node *n, int *mode)
{
    /* bfloat16: Cast-19 / CastLike-19 round to nearest even; the versions before left it
     * open and ONNX's tests of them (libonnx-testdata) truncate. round_mode is float8e8m0's. */
    const wgc_tensor *y = wgc_out(g, n, 0);
    if (y && y->dtype == WG_DT_BFLOAT16) {
        *mode = wgc_op_version(n) < 19 ? WGK_ROUND_DOWN : WGK_ROUND_NEAREST;
        return WG_OK;
    }
    const char *rm = wgc_attr_str(n, "round_mode", "up");
    *mode = !strcmp(rm, "up") ? WGK_ROUND_UP : !strcmp(rm, "down") ? WGK_ROUND_DOWN
          : !strcmp(rm, "nearest") ? WGK_ROUND_NEAREST : -1;
    if (*mode < 0)
        return wgc_error(g, n, WG_ERR_INVALID, "round_mode '%s' (up, down or nearest)", rm);
    return WG_OK;
}

/* Storage-type element i of data as float (float types) or int64 (integer ones). */
static void storage_get(const void *data, int dt, int64_t i, float *f, int64_t *v)
{
    const uint8_t *p = data;
    uint32_t c = dt == WG_DT_BFLOAT16 ? (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8 : p[i];
    if (wgk_storage_is_int(dt))
        *v = dt == WG_DT_INT4 || dt == WG_DT_INT2 ? (int8_t)c : (uint8_t)c;
    else
        *f = wgk_storage_to_f32(dt, c);
}

static void storage_set(void *data, int dt, int64_t i, uint32_t c)
{
    uint8_t *p = data;
    if (dt == WG_DT_BFLOAT16) {
        p[2 * i] = (uint8_t)c;
        p[2 * i + 1] = (uint8_t)(c >> 8);
    } else {
        p[i] = (uint8_t)c;
    }
}

/* The fold of a Cast from or to a storage type, element by element as the kernel does. */
static wg_status storage_fold(wgc_graph *g, wgc_node *n, const wgc_tensor *x, wgc_tensor *y, void *data)
{
    int rm;
    wg_status st = wgc_cast_round_mode(g, n, &rm);
    if (st)
        return st;
    const int sat = n->op == WGC_OP_CAST || n->op == WGC_OP_CAST_LIKE ? (int)wgc_attr_int(n, "saturate", 1) : 1;
    int64_t count = wgc_numel(&y->shape);
    const bool xfl = wgk_storage_dtype(x->dtype) ? !wgk_storage_is_int(x->dtype) : wg_dtype_is_float(x->dtype);
    for (int64_t i = 0; i < count; i++) {
        float f = 0;
        int64_t v = 0;
        if (wgk_storage_dtype(x->dtype))
            storage_get(x->data, x->dtype, i, &f, &v);
        else if (xfl)
            f = (float)wgc_elem_get_f(x->data, x->dtype, i);
        else
            v = wgc_elem_get_i(x->data, x->dtype, i);
        if (wgk_storage_dtype(y->dtype)) {
            uint32_t c = wgk_storage_is_int(y->dtype) && !xfl ? wgk_int_to_small_int(y->dtype, v)
                         : wgk_f32_to_storage(y->dtype, xfl ? f : (float)v, sat, rm);
            storage_set(data, y->dtype, i, c);
        } else if (xfl) {
            wgc_elem_set_f(data, y->dtype, i, f);
        } else {
            wgc_elem_set_i(data, y->dtype, i, v);
        }
    }
    return WG_OK;
}

static wg_status cast_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, wgc_cast_dtypes);
    if (st)
        return st;
    const wgc_attr *to = wgc_attr_find(n, "to");
    if (!to)
        return wgc_error(g, n, WG_ERR_INVALID, "has no 'to' attribute");
    int rm;
    if ((st = wgc_cast_round_mode(g, n, &rm)))
        return st;
    if (to->i > INT32_MAX || to->i < 0 || !wgc_cast_supported((int)to->i))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "cast to dtype %lld (%s)", (long long)to->i,
                         to->i > INT32_MAX ? "unknown" : wg_dtype_name((int)to->i));
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, (int)to->i, &x->shape);
    return WG_OK;
}

wg_status wgc_cast_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data)
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    if (wgk_storage_dtype(x->dtype) || wgk_storage_dtype(y->dtype)) {
        wg_status st = storage_fold(g, n, x, y, data);
        if (st) {
            free(data);
            return st;
        }
        wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
        return WG_OK;
    }
    int64_t count = wgc_numel(&y->shape);
    /* Through double from float sources, through int64 from integer ones (exact). */
    for (int64_t i = 0; i < count; i++) {
        if (wg_dtype_is_float(x->dtype))
            wgc_elem_set_f(data, y->dtype, i, wgc_elem_get_f(x->data, x->dtype, i));
        else if (x->dtype == WG_DT_UINT64 && wg_dtype_is_float(y->dtype))
            wgc_elem_set_f(data, y->dtype, i, wgc_elem_get_f(x->data, x->dtype, i));
        else
            wgc_elem_set_i(data, y->dtype, i, wgc_elem_get_i(x->data, x->dtype, i));
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

wg_status wgc_cast_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    if (x->dtype == y->dtype) {
        wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
        return WG_OK;
    }
    size_t count = (size_t)wgc_numel(&y->shape);
    if (count == 0)
        return WG_OK;
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    if (wgk_storage_dtype(x->dtype) || wgk_storage_dtype(y->dtype)) {
        int rm;
        wg_status st = wgc_cast_round_mode(g, n, &rm);
        if (st)
            return st;
        if (count > UINT32_MAX)
            return wgc_error(g, n, WG_ERR_LIMIT, "%zu elements", count);
        wgc_emit(e, "wgk_cast_storage(%s, %d, %s, %d, %zuu, %d, %d);\n", py, y->dtype, px, x->dtype,
                 count, (int)wgc_attr_int(n, "saturate", 1), rm);
        return WG_OK;
    }
    wgc_emit(e, "wgk_cast(%s, %d, %s, %d, %zu);\n", py, y->dtype, px, x->dtype, count);
    return WG_OK;
}

/* ---- symbolic dims (sym.h): output 0 takes input 0's shape (WGC_SAME_SHAPE) ---- */

static wg_status cast_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    const wgc_tensor *x = wgc_in(g, n, 0);
    /* to float or double too (an old exporter's Upsample scales: a ratio of two such
     * casts, which folds where it is constant at every size, elementwise_binary.c) */
    if (y->dtype != WG_DT_INT64 && y->dtype != WG_DT_INT32 && y->dtype != WG_DT_FLOAT &&
        y->dtype != WG_DT_DOUBLE)
        return wgc_sym_refuse(g, n, "a cast of symbolic values to a type other than an integer or float");
    for (int64_t i = 0; i < count; i++)
        v[i] = wgc_symval_at(x, i);
    return WG_OK;
}

static wg_status cast_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    /* float16 too: the casts at a float16 model's inputs and outputs (passes/lower_fp16.c) */
    if (x->dtype == WG_DT_STRING || y->dtype == WG_DT_STRING || wg_dtype_size(x->dtype) == 0 ||
        x->dtype > WG_DT_UINT64 || y->dtype > WG_DT_UINT64)
        return wgc_sym_refuse(g, n, "this pair of dtypes");
    wgc_emit(e, "wgk_cast(%s, %d, %s, %d, (size_t)%s);\n", wgc_ptr(e, g, n->outputs[0]), y->dtype,
             wgc_ptr(e, g, n->inputs[0]), x->dtype, wgc_sym_numel(e, y));
    return WG_OK;
}

/* Bounds of integer values computed at run time (ir/valrange.h): a Cast between integer
 * types keeps input 0's, unless they may wrap in the narrower output type. */
static bool cast_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                            wgc_vrange *out, int64_t count)
{
    if (!wgc_vrange_same_elems(g, n, y, out, count))
        return false;
    if (wg_dtype_size(y->dtype) < 8)
        for (int64_t i = 0; i < count; i++) {
            const int64_t lim = (int64_t)1 << (8 * wg_dtype_size(y->dtype) - 1);
            if (out[i].lo < -lim || out[i].hi >= lim)
                return false; /* it may wrap */
        }
    return true;
}

const wgc_op_def wgc_op_cast = {
    .infer = cast_infer,
    .fold = wgc_cast_fold,
    .emit = wgc_cast_emit,
    .sym = {.emit = cast_sym_emit,
            .foldable = wgc_sym_passes_values,
            .values = cast_sym_values,
            .bounds = cast_sym_bounds},
};
