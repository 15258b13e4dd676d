/*
 * cast-storage.c: wgk_cast_storage, Cast to and from the storage-only types of wgk_storage.h.
 * Each element is read as a float32 (float sources, float storage types) or an int64 (integer
 * and bool sources, int4/int2 storage), then written through the exact conversions of
 * wgk_storage.h, or through wgk_cast for an ordinary destination type.
 */
#include "wgk_data.h"
#include "wgk_storage.h"

enum { DT_F32 = 1, DT_I64 = 7, DT_F16 = 10, DT_F64 = 11 };

static int src_is_float(int dt)
{
    return dt == DT_F32 || dt == DT_F16 || dt == DT_F64 ||
           (wgk_storage_dtype(dt) && !wgk_storage_is_int(dt));
}

static uint32_t code_at(const uint8_t *p, int dt, uint32_t i)
{
    if (dt == WGK_DT_BFLOAT16)
        return (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;
    return p[i];
}

static void put_code(uint8_t *p, int dt, uint32_t i, uint32_t c)
{
    if (dt == WGK_DT_BFLOAT16) {
        p[2 * i] = (uint8_t)c;
        p[2 * i + 1] = (uint8_t)(c >> 8);
    } else {
        p[i] = (uint8_t)c;
    }
}

void wgk_cast_storage(void *y, int y_dtype, const void *x, int x_dtype, uint32_t n, int saturate,
                      int round_mode)
{
    const uint8_t *xp = x;
    uint8_t *yp = y;
    const uint32_t xs = x_dtype == DT_F64 || x_dtype == DT_I64 || x_dtype == 13 ? 8
                        : x_dtype == DT_F32 || x_dtype == 6 || x_dtype == 12 ? 4
                        : x_dtype == DT_F16 || x_dtype == 4 || x_dtype == 5 || x_dtype == WGK_DT_BFLOAT16 ? 2 : 1;
    const uint32_t ys = y_dtype == DT_F64 || y_dtype == DT_I64 || y_dtype == 13 ? 8
                        : y_dtype == DT_F32 || y_dtype == 6 || y_dtype == 12 ? 4
                        : y_dtype == DT_F16 || y_dtype == 4 || y_dtype == 5 || y_dtype == WGK_DT_BFLOAT16 ? 2 : 1;
    for (uint32_t i = 0; i < n; i++) {
        float f = 0;
        int64_t v = 0;
        const int fl = src_is_float(x_dtype);
        if (wgk_storage_dtype(x_dtype)) {
            uint32_t c = code_at(xp, x_dtype, i);
            if (fl)
                f = wgk_storage_to_f32(x_dtype, c);
            else
                v = x_dtype == WGK_DT_INT4 || x_dtype == WGK_DT_INT2 ? (int8_t)c : (uint8_t)c;
        } else if (fl) {
            wgk_cast(&f, DT_F32, xp + (size_t)i * xs, x_dtype, 1);
        } else {
            wgk_cast(&v, DT_I64, xp + (size_t)i * xs, x_dtype, 1);
        }
        if (wgk_storage_dtype(y_dtype)) {
            uint32_t c;
            if (wgk_storage_is_int(y_dtype))
                c = fl ? wgk_f32_to_storage(y_dtype, f, saturate, round_mode) : wgk_int_to_small_int(y_dtype, v);
            else
                c = wgk_f32_to_storage(y_dtype, fl ? f : (float)v, saturate, round_mode);
            put_code(yp, y_dtype, i, c);
        } else if (fl) {
            wgk_cast(yp + (size_t)i * ys, y_dtype, &f, DT_F32, 1);
        } else {
            wgk_cast(yp + (size_t)i * ys, y_dtype, &v, DT_I64, 1);
        }
    }
}
