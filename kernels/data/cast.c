/*
 * cast.c: wgk_cast between numeric dtypes and the software float16 conversions.
 *
 * Every element goes through double (float sources) or int64 (integer sources), which is
 * exact for every pair; float to integer saturates to int64 first (NaN gives 0, no trap:
 * plain wasm float-to-int conversion traps out of range) and then wraps to the narrower
 * type, like the compiler's constant folder. Common pairs have direct loops.
 */
#include "wgk_data.h"

enum { DT_F32 = 1, DT_U8 = 2, DT_I8 = 3, DT_U16 = 4, DT_I16 = 5, DT_I32 = 6, DT_I64 = 7,
       DT_BOOL = 9, DT_F16 = 10, DT_F64 = 11, DT_U32 = 12, DT_U64 = 13 };

float wgk_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    if (e == 0x1f) {
        bits = sign | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        bits = sign | ((e + 112u) << 23) | (m << 13);
    } else if (m != 0) {
        /* Subnormal half: m * 2^-24 is exact in float. */
        float f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t wgk_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) /* NaN: keep it quiet */
        return (uint16_t)(sign | 0x7e00u);
    if (ax >= 0x477ff000u) /* >= 65520 rounds to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {
        /* Result is subnormal or zero: round ax * 2^24 to an integer, nearest even.
         * The float multiply is exact and the integer part fits easily. */
        float a;
        memcpy(&a, &ax, 4);
        float s = a * 16777216.0f; /* in [0, 1024) */
        uint32_t q = (uint32_t)s;
        float frac = s - (float)q;
        if (frac > 0.5f || (frac == 0.5f && (q & 1)))
            q++;
        return (uint16_t)(sign | q);
    }
    /* Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even. */
    uint32_t r = ax - 0x38000000u; /* exponent 127 -> 15 */
    uint32_t keep = r >> 13, rest = r & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (keep & 1)))
        keep++; /* a carry into the exponent is the right answer */
    return (uint16_t)(sign | keep);
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

static int64_t sat_i64(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
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
    case DT_F16: { uint16_t w = wgk_f32_to_f16((float)v); memcpy(p + i * 2, &w, 2); break; }
    case DT_BOOL: p[i] = v != 0; break;
    default: store_i(p, dt, i, sat_i64(v)); break;
    }
}

void wgk_cast(void *WGK_RESTRICT y, int y_dtype, const void *WGK_RESTRICT x, int x_dtype,
              size_t n)
{
    char *yp = y;
    const char *xp = x;
    if (x_dtype == DT_F16 && y_dtype == DT_F32) {
        const uint16_t *s = x;
        float *d = y;
        for (size_t i = 0; i < n; i++)
            d[i] = wgk_f16_to_f32(s[i]);
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
        if (x_dtype == DT_F64 && y_dtype == DT_F16) { /* round once, not via float */
            for (size_t i = 0; i < n; i++) {
                double v = load_f(xp, x_dtype, i);
                float f = (float)v;
                /* Round to odd: truncate toward zero and set the lowest bit when inexact,
                 * so float's rounding cannot create (or remove) a half-precision tie. */
                if ((double)f != v && v == v) {
                    uint32_t b;
                    memcpy(&b, &f, 4);
                    if (__builtin_fabs((double)f) > __builtin_fabs(v))
                        b -= 1;
                    b |= 1;
                    memcpy(&f, &b, 4);
                }
                uint16_t h = wgk_f32_to_f16(f);
                memcpy(yp + i * 2, &h, 2);
            }
            return;
        }
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
