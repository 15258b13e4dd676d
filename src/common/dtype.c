/* dtype.c: see dtype.h. */
#include "dtype.h"
#include "../../kernels/include/wgk_convert.h"

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
};

size_t wg_dtype_size(int dt)
{
    return dt >= 0 && dt <= WG_DT_UINT64 ? dtypes[dt].size : 0;
}

const char *wg_dtype_name(int dt)
{
    if (dt >= 0 && dt <= WG_DT_UINT64)
        return dtypes[dt].name;
    return "unknown";
}

int wg_dtype_from_name(const char *name)
{
    if (!strcmp(name, "float"))
        return WG_DT_FLOAT;
    for (int dt = 1; dt <= WG_DT_UINT64; dt++)
        if (!strcmp(name, dtypes[dt].name))
            return dt;
    return WG_DT_UNDEFINED;
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
