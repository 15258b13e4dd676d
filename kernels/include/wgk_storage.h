/*
 * wgk_storage.h: the storage-only element types of ONNX (bfloat16, the float8 types,
 * float8e8m0, float4e2m1, int4/uint4, int2/uint2) and their exact conversions to and from
 * float32. Header-only and freestanding, so the kernels (kernels/data/cast-storage.c) and
 * the compiler's constant folding (src/ops/cast.c) convert bit for bit alike.
 *
 * In memory every such element takes whole bytes: bfloat16 two, the others one (the 4- and
 * 2-bit types unpacked, one element per byte: int4/int2 as a sign-extended int8, uint4/uint2
 * as a uint8, float4e2m1 as its 4-bit code). Only tensor files and initializers pack them
 * (src/onnx/onnx_tensor.c, tensor_file.c). Conversions follow ONNX's reference (onnx.reference
 * Cast, i.e. ml_dtypes and onnx.numpy_helper): round to nearest even; with `saturate`, the
 * float8 types clamp out-of-range values (infinities included) to their largest finite value,
 * without it they give NaN (E5M2: infinity); float4e2m1 always clamps; float8e8m0 keeps only
 * the exponent, rounded as `round_mode` says (bfloat16: WGK_ROUND_DOWN truncates, for Cast
 * before version 19); integers truncate toward zero and wrap.
 */
#ifndef WGK_STORAGE_H
#define WGK_STORAGE_H

#include <stdint.h>

#include "wgk_convert.h" /* wgk__f32_bits, wgk__bits_f32 */

enum {
    WGK_DT_BFLOAT16 = 16, WGK_DT_F8E4M3FN = 17, WGK_DT_F8E4M3FNUZ = 18, WGK_DT_F8E5M2 = 19,
    WGK_DT_F8E5M2FNUZ = 20, WGK_DT_UINT4 = 21, WGK_DT_INT4 = 22, WGK_DT_F4E2M1 = 23,
    WGK_DT_F8E8M0 = 24, WGK_DT_UINT2 = 25, WGK_DT_INT2 = 26,
};

/* float8e8m0's round_mode */
enum { WGK_ROUND_UP = 0, WGK_ROUND_DOWN = 1, WGK_ROUND_NEAREST = 2 };

static inline int wgk_storage_dtype(int dt) { return dt >= WGK_DT_BFLOAT16 && dt <= WGK_DT_INT2; }
static inline int wgk_storage_is_int(int dt)
{
    return dt == WGK_DT_UINT4 || dt == WGK_DT_INT4 || dt == WGK_DT_UINT2 || dt == WGK_DT_INT2;
}

/* 2^k for -160 <= k <= 160, exact. */
static inline double wgk__pow2(int k)
{
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double d;
    __builtin_memcpy(&d, &b, 8);
    return d;
}

/* The minifloats: exponent and mantissa bits, bias, and how NaN / infinity are spelled. */
typedef struct wgk_minifloat {
    int e, m, bias;
    int fnuz;   /* NaN is 0x80 alone; no infinity, no negative zero */
    int ieee;   /* all-ones exponent: infinity (mantissa 0) or NaN (E5M2) */
    int fn;     /* all-ones exponent and mantissa is NaN, no infinity (E4M3FN) */
} wgk_minifloat;

static inline wgk_minifloat wgk__minifloat(int dt)
{
    switch (dt) {
    case WGK_DT_F8E4M3FN: return (wgk_minifloat){4, 3, 7, 0, 0, 1};
    case WGK_DT_F8E4M3FNUZ: return (wgk_minifloat){4, 3, 8, 1, 0, 0};
    case WGK_DT_F8E5M2: return (wgk_minifloat){5, 2, 15, 0, 1, 0};
    case WGK_DT_F8E5M2FNUZ: return (wgk_minifloat){5, 2, 16, 1, 0, 0};
    default: return (wgk_minifloat){2, 1, 1, 0, 0, 0}; /* float4e2m1: no NaN, no infinity */
    }
}

/* The largest finite value of a minifloat, as its code without sign. */
static inline uint32_t wgk__mf_max_code(wgk_minifloat f)
{
    uint32_t all = (1u << (f.e + f.m)) - 1;
    if (f.ieee)
        return all - (1u << f.m); /* exponent all ones is infinity/NaN */
    if (f.fn)
        return all - 1;
    return all; /* fnuz and float4: every code is a number */
}

static inline double wgk__mf_value(wgk_minifloat f, uint32_t mag)
{
    uint32_t e = mag >> f.m, m = mag & ((1u << f.m) - 1);
    if (e == 0)
        return (double)m * wgk__pow2(1 - f.bias - f.m);
    return (double)((1u << f.m) + m) * wgk__pow2((int)e - f.bias - f.m);
}

static inline float wgk_storage_to_f32(int dt, uint32_t code)
{
    switch (dt) {
    case WGK_DT_BFLOAT16: return wgk__f32_bits(code << 16);
    case WGK_DT_F8E8M0:
        return code == 0xff ? __builtin_nanf("") : (float)wgk__pow2((int)code - 127);
    case WGK_DT_UINT4: case WGK_DT_UINT2: return (float)(uint8_t)code;
    case WGK_DT_INT4: case WGK_DT_INT2: return (float)(int8_t)code;
    default: break;
    }
    wgk_minifloat f = wgk__minifloat(dt);
    const int bits = f.e + f.m;
    const uint32_t sign = (code >> bits) & 1, mag = code & ((1u << bits) - 1);
    if (f.fnuz && code == 0x80)
        return __builtin_nanf("");
    if (f.fn && mag == (1u << bits) - 1)
        return sign ? -__builtin_nanf("") : __builtin_nanf("");
    if (f.ieee && (mag >> f.m) == (1u << f.e) - 1) {
        if (mag & ((1u << f.m) - 1))
            return sign ? -__builtin_nanf("") : __builtin_nanf("");
        return sign ? -__builtin_inff() : __builtin_inff();
    }
    double v = wgk__mf_value(f, mag);
    return (float)(sign ? -v : v);
}

/* float -> minifloat code, round to nearest even. */
static inline uint32_t wgk__f32_to_mf(int dt, float x, int saturate)
{
    wgk_minifloat f = wgk__minifloat(dt);
    const int bits = f.e + f.m;
    const uint32_t xb = wgk__bits_f32(x), neg = xb >> 31, sign = neg << bits;
    /* NaN: fnuz 0x80; E5M2 S.11111.10 and E4M3FN S.1111.111 (ml_dtypes' quiet NaNs) */
    const uint32_t nan = f.fnuz ? 0x80u : f.ieee ? (sign | ((1u << bits) - 2)) : (sign | ((1u << bits) - 1));
    const uint32_t maxc = wgk__mf_max_code(f);
    if (dt == WGK_DT_F4E2M1)
        saturate = 1;
    if (x != x) /* float4 has no NaN: ml_dtypes gives -0 for +NaN and +0 for -NaN */
        return dt == WGK_DT_F4E2M1 ? (neg ? 0u : 8u) : nan;
    double a = x < 0 ? -(double)x : (double)x;
    if (a == __builtin_inf()) {
        if (saturate)
            return sign | maxc;
        return f.ieee ? (sign | (maxc + 1)) : nan;
    }
    /* the grid spacing at a: 2^(max(k, emin) - m), k = floor(log2 a) */
    const int emin = 1 - f.bias;
    int k = a == 0 ? emin : (int)((wgk__bits_f32((float)a) >> 23) & 0xff) - 127;
    if (a != 0 && k == -127) /* float subnormal: far below every minifloat's grid */
        k = emin;
    if (k < emin)
        k = emin;
    const double step = wgk__pow2(k - f.m);
    double q = a / step; /* exact: a power-of-two division */
    double r = (double)(uint64_t)q;
    double frac = q - r;
    if (frac > 0.5 || (frac == 0.5 && ((uint64_t)r & 1)))
        r += 1;
    double v = r * step;
    if (v > wgk__mf_value(f, maxc)) {
        if (saturate)
            return sign | maxc;
        return f.ieee ? (sign | (maxc + 1)) : nan;
    }
    if (v == 0)
        return f.fnuz ? 0u : sign;
    /* encode v: subnormal below 2^emin */
    uint32_t mag;
    if (v < wgk__pow2(emin)) {
        mag = (uint32_t)(v / wgk__pow2(emin - f.m));
    } else {
        int kv = (int)((wgk__bits_f32((float)v) >> 23) & 0xff) - 127;
        mag = ((uint32_t)(kv + f.bias) << f.m) | ((uint32_t)(v / wgk__pow2(kv - f.m)) - (1u << f.m));
    }
    return sign | mag;
}

static inline uint32_t wgk__f32_to_e8m0(float x, int saturate, int round_mode)
{
    const uint32_t b = wgk__bits_f32(x), e = (b >> 23) & 0xff, man = b & 0x7fffff;
    if (e == 0xff)
        return 0xff;
    uint32_t up = 0;
    if (round_mode == WGK_ROUND_UP) {
        up = man != 0;
    } else if (round_mode == WGK_ROUND_NEAREST) {
        uint32_t g = (b & 0x400000) != 0, r = (b & 0x200000) != 0, s = (b & 0x1fffff) != 0, lsb = e > 0;
        up = g && (r || s || lsb);
    }
    if (saturate && e == 0xfe)
        up = 0;
    return (e + up) & 0xff;
}

/* round_mode WGK_ROUND_DOWN truncates (Cast before version 19, which left the rounding
 * open; ONNX's tests of those versions truncate); otherwise round to nearest even. */
static inline uint32_t wgk__f32_to_bf16(float x, int round_mode)
{
    uint32_t b = wgk__bits_f32(x);
    if (round_mode == WGK_ROUND_DOWN)
        return b >> 16;
    if (x != x)
        return 0x7fc0u | ((b >> 16) & 0x8000u);
    b += 0x7fffu + ((b >> 16) & 1); /* round to nearest even */
    return b >> 16;
}

/* float -> integer storage: truncate toward zero, NaN and infinities give 0, then wrap to
 * the type's bits (as a sign-extended int8 for int4/int2). */
static inline uint32_t wgk__f32_to_small_int(int dt, float x)
{
    int64_t v = 0;
    if (x == x && x < 9.2e18f && x > -9.2e18f)
        v = (int64_t)x;
    const int bits = dt == WGK_DT_UINT4 || dt == WGK_DT_INT4 ? 4 : 2;
    uint32_t u = (uint32_t)v & ((1u << bits) - 1);
    if ((dt == WGK_DT_INT4 || dt == WGK_DT_INT2) && (u >> (bits - 1)))
        u |= 0xffu << bits; /* sign-extend into the byte */
    return u & 0xffu;
}

/* An integer -> integer storage (wrapping), e.g. Cast int8 -> int4. */
static inline uint32_t wgk_int_to_small_int(int dt, int64_t v)
{
    const int bits = dt == WGK_DT_UINT4 || dt == WGK_DT_INT4 ? 4 : 2;
    uint32_t u = (uint32_t)v & ((1u << bits) - 1);
    if ((dt == WGK_DT_INT4 || dt == WGK_DT_INT2) && (u >> (bits - 1)))
        u |= 0xffu << bits;
    return u & 0xffu;
}

/* The code (bfloat16: 16 bits; the others: one byte) of x in storage type dt. */
static inline uint32_t wgk_f32_to_storage(int dt, float x, int saturate, int round_mode)
{
    switch (dt) {
    case WGK_DT_BFLOAT16: return wgk__f32_to_bf16(x, round_mode);
    case WGK_DT_F8E8M0: return wgk__f32_to_e8m0(x, saturate, round_mode);
    case WGK_DT_UINT4: case WGK_DT_INT4: case WGK_DT_UINT2: case WGK_DT_INT2:
        return wgk__f32_to_small_int(dt, x);
    default: return wgk__f32_to_mf(dt, x, saturate);
    }
}

/* Cast where x_dtype or y_dtype (or both) is a storage type; the others are any numeric
 * dtype: floats go through float32 (float64 rounds to float32 first), integers and bool
 * through int64. n elements (kernels/data/cast-storage.c). */
void wgk_cast_storage(void *y, int y_dtype, const void *x, int x_dtype, uint32_t n, int saturate,
                      int round_mode);

#endif
