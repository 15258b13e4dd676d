/*
 * cast.c: wgk_cast between numeric dtypes and the software float16 conversions.
 *
 * Every element goes through double (float sources) or int64 (integer sources), which is
 * exact for every pair; float to integer saturates to int64 first (NaN gives 0, no trap:
 * plain wasm float-to-int conversion traps out of range; uint64 keeps values from 2^63 up)
 * and then wraps to the narrower type; float64 to float16 rounds once. The conversions are
 * wgk_convert.h's, which the compiler's constant folder uses too. Common pairs have
 * direct loops.
 */
#include "wgk_convert.h"
#include "wgk_f16.h"
#include "wgk_data.h"

enum { DT_F32 = 1, DT_U8 = 2, DT_I8 = 3, DT_U16 = 4, DT_I16 = 5, DT_I32 = 6, DT_I64 = 7,
       DT_BOOL = 9, DT_F16 = 10, DT_F64 = 11, DT_U32 = 12, DT_U64 = 13 };

/* The conversions themselves are wgk_convert.h's, shared with the compiler's folding. */
float wgk_f16_to_f32(uint16_t h)
{
    return wgk_cvt_f16_to_f32(h);
}

uint16_t wgk_f32_to_f16(float f)
{
    return wgk_cvt_f32_to_f16(f);
}

static int is_float(int dt) { return dt == DT_F32 || dt == DT_F16 || dt == DT_F64; }

static double load_f(const char *p, int dt, size_t i)
{
    switch (dt) {
    case DT_F32: { float v; memcpy(&v, p + i * 4, 4); return v; }
    case DT_F64: { double v; memcpy(&v, p + i * 8, 8); return v; }
    default: { uint16_t h; memcpy(&h, p + i * 2, 2); return wgk_f16_to_f32(h); }
    }
}

static int64_t load_i(const char *p, int dt, size_t i)
{
    switch (dt) {
    case DT_U8: return (uint8_t)p[i];
    case DT_I8: return (int8_t)p[i];
    case DT_BOOL: return p[i] != 0;
    case DT_U16: { uint16_t v; memcpy(&v, p + i * 2, 2); return v; }
    case DT_I16: { int16_t v; memcpy(&v, p + i * 2, 2); return v; }
    case DT_I32: { int32_t v; memcpy(&v, p + i * 4, 4); return v; }
    case DT_U32: { uint32_t v; memcpy(&v, p + i * 4, 4); return v; }
    default: { int64_t v; memcpy(&v, p + i * 8, 8); return v; } /* int64, uint64 (wraps) */
    }
}

static void store_i(char *p, int dt, size_t i, int64_t v)
{
    switch (dt) {
    case DT_U8: case DT_I8: p[i] = (char)(uint8_t)v; break;
    case DT_BOOL: p[i] = v != 0; break;
    case DT_U16: case DT_I16: { uint16_t w = (uint16_t)v; memcpy(p + i * 2, &w, 2); break; }
    case DT_I32: case DT_U32: { uint32_t w = (uint32_t)v; memcpy(p + i * 4, &w, 4); break; }
    case DT_F32: { float w = (float)v; memcpy(p + i * 4, &w, 4); break; }
    case DT_F64: { double w = (double)v; memcpy(p + i * 8, &w, 8); break; }
    case DT_F16: { uint16_t w = wgk_f32_to_f16((float)v); memcpy(p + i * 2, &w, 2); break; }
    default: memcpy(p + i * 8, &v, 8); break;
    }
}

static void store_f(char *p, int dt, size_t i, double v)
{
    switch (dt) {
    case DT_F32: { float w = (float)v; memcpy(p + i * 4, &w, 4); break; }
    case DT_F64: memcpy(p + i * 8, &v, 8); break;
    case DT_F16: { uint16_t w = wgk_cvt_f64_to_f16(v); memcpy(p + i * 2, &w, 2); break; }
    case DT_BOOL: p[i] = v != 0; break;
    case DT_U64: { uint64_t w = wgk_cvt_f64_to_u64_sat(v); memcpy(p + i * 8, &w, 8); break; }
    default: store_i(p, dt, i, wgk_cvt_f64_to_i64_sat(v)); break;
    }
}

void wgk_cast(void *WGK_RESTRICT y, int y_dtype, const void *WGK_RESTRICT x, int x_dtype,
              size_t n)
{
    char *yp = y;
    const char *xp = x;
    if (x_dtype == y_dtype && x_dtype == DT_F32) {
        /* a float16 model's casts at its float32 inputs and outputs, float32 on both sides
         * once src/passes/lower_fp16.c has widened the graph (the KV cache's, every step) */
        __builtin_memcpy(y, x, n * sizeof(float));
        return;
    }
    if (x_dtype == DT_F16 && y_dtype == DT_F32) {
        wgk_f16_widen(x, y, n); /* the same conversion, 8 at a time */
        return;
    }
    if (x_dtype == DT_F32 && y_dtype == DT_F16) {
        const float *s = x;
        uint16_t *d = y;
        for (size_t i = 0; i < n; i++)
            d[i] = wgk_f32_to_f16(s[i]);
        return;
    }
    if (x_dtype == DT_I32 && y_dtype == DT_F32) {
        /* MatMulInteger's products on their way to the scale (dynamically quantized models):
         * f32x4.convert_i32x4_s rounds to nearest like the scalar conversion. */
        const int32_t *s = x;
        float *d = y;
        size_t i = 0;
#ifdef __wasm_simd128__
        for (; i + 4 <= n; i += 4)
            wasm_v128_store(d + i, wasm_f32x4_convert_i32x4(wasm_v128_load(s + i)));
#endif
        for (; i < n; i++)
            d[i] = (float)s[i];
        return;
    }
    if (x_dtype == DT_I64 && y_dtype == DT_F32) {
        const int64_t *s = x;
        float *d = y;
        for (size_t i = 0; i < n; i++)
            d[i] = (float)s[i];
        return;
    }
    if (is_float(x_dtype)) {
        for (size_t i = 0; i < n; i++)
            store_f(yp, y_dtype, i, load_f(xp, x_dtype, i));
        return;
    }
    if (x_dtype == DT_U64 && is_float(y_dtype)) {
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, xp + i * 8, 8);
            store_f(yp, y_dtype, i, (double)v);
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        store_i(yp, y_dtype, i, load_i(xp, x_dtype, i));
}
