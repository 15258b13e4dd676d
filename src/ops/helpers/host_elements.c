/* host_elements.c: generic element access for host-side constant folding (see host_elements.h). */
#include "host_elements.h"
#include "../../../kernels/include/wgk_convert.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool wgc_elem_supported(int dtype)
{
    switch (dtype) {
    case WG_DT_FLOAT: case WG_DT_UINT8: case WG_DT_INT8: case WG_DT_UINT16: case WG_DT_INT16:
    case WG_DT_INT32: case WG_DT_INT64: case WG_DT_BOOL: case WG_DT_FLOAT16: case WG_DT_DOUBLE:
    case WG_DT_UINT32: case WG_DT_UINT64:
        return true;
    default:
        return false;
    }
}

/* Loads are through memcpy: constants that point into the mapped model may be unaligned. */
#define LOAD(T)                                                                            \
    do {                                                                                   \
        T v_;                                                                              \
        memcpy(&v_, (const char *)data + i * (int64_t)sizeof(T), sizeof(T));               \
        return v_;                                                                         \
    } while (0)

double wgc_elem_get_f(const void *data, int dtype, int64_t i)
{
    switch (dtype) {
    case WG_DT_FLOAT: LOAD(float);
    case WG_DT_DOUBLE: LOAD(double);
    case WG_DT_FLOAT16: {
        uint16_t h;
        memcpy(&h, (const char *)data + i * 2, 2);
        return wg_f16_to_f32(h);
    }
    case WG_DT_UINT64: LOAD(uint64_t);
    default: return (double)wgc_elem_get_i(data, dtype, i);
    }
}

/* Float to integer: the kernels' saturating cast (wgk_convert.h), so folding matches wgk_cast. */
#define sat_i64 wgk_cvt_f64_to_i64_sat

int64_t wgc_elem_get_i(const void *data, int dtype, int64_t i)
{
    switch (dtype) {
    case WG_DT_UINT8: LOAD(uint8_t);
    case WG_DT_INT8: LOAD(int8_t);
    case WG_DT_UINT16: LOAD(uint16_t);
    case WG_DT_INT16: LOAD(int16_t);
    case WG_DT_INT32: LOAD(int32_t);
    case WG_DT_INT64: LOAD(int64_t);
    case WG_DT_UINT32: LOAD(uint32_t);
    case WG_DT_UINT64: LOAD(uint64_t); /* wraps above INT64_MAX, like a C cast */
    case WG_DT_BOOL: {
        uint8_t b;
        memcpy(&b, (const char *)data + i, 1);
        return b != 0;
    }
    case WG_DT_FLOAT: case WG_DT_DOUBLE: case WG_DT_FLOAT16:
        return sat_i64(wgc_elem_get_f(data, dtype, i));
    default: return 0;
    }
}
#undef LOAD

#define STORE(T, val)                                                                      \
    do {                                                                                   \
        T v_ = (T)(val);                                                                   \
        memcpy((char *)data + i * (int64_t)sizeof(T), &v_, sizeof(T));                     \
    } while (0)

void wgc_elem_set_i(void *data, int dtype, int64_t i, int64_t v)
{
    switch (dtype) {
    case WG_DT_FLOAT: STORE(float, v); break;
    case WG_DT_DOUBLE: STORE(double, v); break;
    case WG_DT_FLOAT16: STORE(uint16_t, wg_f32_to_f16((float)v)); break;
    case WG_DT_UINT8: STORE(uint8_t, v); break;
    case WG_DT_INT8: STORE(int8_t, v); break;
    case WG_DT_UINT16: STORE(uint16_t, v); break;
    case WG_DT_INT16: STORE(int16_t, v); break;
    case WG_DT_INT32: STORE(int32_t, v); break;
    case WG_DT_INT64: STORE(int64_t, v); break;
    case WG_DT_UINT32: STORE(uint32_t, v); break;
    case WG_DT_UINT64: STORE(uint64_t, v); break;
    case WG_DT_BOOL: STORE(uint8_t, v != 0); break;
    default: break;
    }
}

void wgc_elem_set_f(void *data, int dtype, int64_t i, double v)
{
    switch (dtype) {
    case WG_DT_FLOAT: STORE(float, v); break;
    case WG_DT_DOUBLE: STORE(double, v); break;
    case WG_DT_FLOAT16: STORE(uint16_t, wgk_cvt_f64_to_f16(v)); break;
    case WG_DT_BOOL: STORE(uint8_t, v != 0); break;
    case WG_DT_UINT64: STORE(uint64_t, wgk_cvt_f64_to_u64_sat(v)); break;
    default: wgc_elem_set_i(data, dtype, i, sat_i64(v)); break;
    }
}
#undef STORE

void *wgc_elem_alloc(wgc_graph *g, const wgc_node *n, int dtype, const wgc_shape *s)
{
    int64_t numel;
    if (!wgc_numel_checked(s, &numel)) {
        wgc_error(g, n, WG_ERR_LIMIT, "folded output is too large");
        return NULL;
    }
    size_t bytes = (size_t)numel * wg_dtype_size(dtype);
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        wgc_error(g, n, WG_ERR_NOMEM, "out of memory folding %zu bytes", bytes);
    return p;
}

void wgc_shape_strides(const wgc_shape *s, int64_t *strides)
{
    int64_t st = 1;
    for (int d = s->rank - 1; d >= 0; d--) {
        strides[d] = st;
        st *= s->dims[d];
    }
}

int64_t wgc_bcast_offset(const wgc_shape *src, const wgc_shape *dst, const int64_t *idx)
{
    int64_t off = 0, st = 1;
    for (int d = src->rank - 1; d >= 0; d--) {
        int dd = d + dst->rank - src->rank;
        if (src->dims[d] != 1)
            off += idx[dd] * st;
        st *= src->dims[d];
    }
    return off;
}

bool wgc_index_next(const wgc_shape *s, int64_t *idx)
{
    for (int d = s->rank - 1; d >= 0; d--) {
        if (++idx[d] < s->dims[d])
            return true;
        idx[d] = 0;
    }
    return false;
}

bool wgc_norm_axis(int64_t axis, int rank, int *out)
{
    if (axis < -(int64_t)rank || axis >= rank)
        return false;
    *out = (int)(axis < 0 ? axis + rank : axis);
    return true;
}
