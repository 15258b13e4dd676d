/* dtype.c: see dtype.h. */
#include "dtype.h"
#include "../../kernels/include/wgk_convert.h"

#include <math.h>
#include <string.h>

static const struct {
    size_t size;
    const char *name;
} dtypes[] = {
    [WG_DT_UNDEFINED] = {0, "undefined"}, [WG_DT_FLOAT] = {4, "float32"},
    [WG_DT_UINT8] = {1, "uint8"},         [WG_DT_INT8] = {1, "int8"},
    [WG_DT_UINT16] = {2, "uint16"},       [WG_DT_INT16] = {2, "int16"},
    [WG_DT_INT32] = {4, "int32"},         [WG_DT_INT64] = {8, "int64"},
    [WG_DT_STRING] = {0, "string"},       [WG_DT_BOOL] = {1, "bool"},
    [WG_DT_FLOAT16] = {2, "float16"},     [WG_DT_DOUBLE] = {8, "float64"},
    [WG_DT_UINT32] = {4, "uint32"},       [WG_DT_UINT64] = {8, "uint64"},
    [14] = {0, "complex64"},              [15] = {0, "complex128"},
    [WG_DT_BFLOAT16] = {2, "bfloat16"},   [WG_DT_FLOAT8E4M3FN] = {1, "float8e4m3fn"},
    [WG_DT_FLOAT8E4M3FNUZ] = {1, "float8e4m3fnuz"}, [WG_DT_FLOAT8E5M2] = {1, "float8e5m2"},
    [WG_DT_FLOAT8E5M2FNUZ] = {1, "float8e5m2fnuz"}, [WG_DT_UINT4] = {1, "uint4"},
    [WG_DT_INT4] = {1, "int4"},           [WG_DT_FLOAT4E2M1] = {1, "float4e2m1"},
    [WG_DT_FLOAT8E8M0] = {1, "float8e8m0"}, [WG_DT_UINT2] = {1, "uint2"},
    [WG_DT_INT2] = {1, "int2"},           [27] = {0, "float6e2m3"},
    [28] = {0, "float6e3m2"},
};
#define N_DTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

size_t wg_dtype_size(int dt)
{
    return dt >= 0 && dt < N_DTYPES ? dtypes[dt].size : 0;
}

const char *wg_dtype_name(int dt)
{
    if (dt >= 0 && dt < N_DTYPES && dtypes[dt].name)
        return dtypes[dt].name;
    return "unknown";
}

int wg_dtype_from_name(const char *name)
{
    if (!strcmp(name, "float"))
        return WG_DT_FLOAT;
    for (int dt = 1; dt < N_DTYPES; dt++)
        if (dtypes[dt].size && !strcmp(name, dtypes[dt].name))
            return dt;
    return WG_DT_UNDEFINED;
}

bool wg_dtype_is_storage(int dt)
{
    return dt >= WG_DT_BFLOAT16 && dt <= WG_DT_INT2;
}

int wg_dtype_packed_bits(int dt)
{
    switch (dt) {
    case WG_DT_UINT4: case WG_DT_INT4: case WG_DT_FLOAT4E2M1: return 4;
    case WG_DT_UINT2: case WG_DT_INT2: return 2;
    default: return 0;
    }
}

bool wg_dtype_is_float(int dt)
{
    return dt == WG_DT_FLOAT || dt == WG_DT_FLOAT16 || dt == WG_DT_DOUBLE;
}

/* The kernels' conversions (kernels/include/wgk_convert.h): folded and run-time values
 * are bit-identical. */
float wg_f16_to_f32(uint16_t h)
{
    return wgk_cvt_f16_to_f32(h);
}

uint16_t wg_f32_to_f16(float f)
{
    return wgk_cvt_f32_to_f16(f);
}

bool wg_f32_all_f16_within(const float *f, size_t n, float max_abs)
{
    for (size_t i = 0; i < n; i++) {
        const float r = wg_f16_to_f32(wg_f32_to_f16(f[i]));
        if (!(fabsf(f[i]) <= max_abs) || memcmp(&r, &f[i], sizeof r))
            return false;
    }
    return true;
}
