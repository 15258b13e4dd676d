/*
 * wgk_convert.h: the one float16 conversion and the one saturating float-to-integer cast,
 * header-only, shared by the kernels (compiled for wasm32: kernels/data/cast.c) and the
 * compiler's constant folding on the host (src/common/dtype.c,
 * src/ops/helpers/host_elements.c), so that a folded constant and the same value computed
 * at run time are bit-identical by construction. Plain C on integers and IEEE floats: no
 * libc, no FP environment.
 */
#ifndef WGK_CONVERT_H
#define WGK_CONVERT_H

#include <stdint.h>

/* A float as its IEEE bits and back (shared with wgk_storage.h). */
static inline float wgk__f32_bits(uint32_t b)
{
    float f;
    __builtin_memcpy(&f, &b, 4);
    return f;
}
static inline uint32_t wgk__bits_f32(float f)
{
    uint32_t b;
    __builtin_memcpy(&b, &f, 4);
    return b;
}

/* float16 bits -> float (exact). */
static inline float wgk_cvt_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    if (e == 0x1f) {
        bits = sign | 0x7f800000u | (m << 13); /* inf or NaN */
    } else if (e != 0) {
        bits = sign | ((e + 112u) << 23) | (m << 13);
    } else if (m != 0) {
        /* Subnormal half: m * 2^-24 is exact in float. */
        float f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    } else {
        bits = sign;
    }
    return wgk__f32_bits(bits);
}

/* float -> float16 bits, rounding to nearest even; NaN stays a (quiet) NaN, overflow is
 * infinity. */
static inline uint16_t wgk_cvt_f32_to_f16(float f)
{
    uint32_t x = wgk__bits_f32(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) /* NaN: keep it quiet */
        return (uint16_t)(sign | 0x7e00u);
    if (ax >= 0x477ff000u) /* >= 65520 rounds to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        if (ax < 0x33000000u) /* below half the smallest subnormal: zero */
            return sign;
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - (ax >> 23); /* 14..24 */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (q & 1)))
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

/* double -> float16 bits, rounded once (nearest even) rather than through float: the
 * narrowing to float rounds to odd (truncate, set the lowest bit when inexact), so it
 * cannot create or remove a half-precision tie. */
static inline uint16_t wgk_cvt_f64_to_f16(double v)
{
    float f = (float)v;
    if ((double)f != v && v == v) {
        uint32_t b = wgk__bits_f32(f);
        if (__builtin_fabs((double)f) > __builtin_fabs(v))
            b -= 1;
        b |= 1;
        f = wgk__f32_bits(b);
    }
    return wgk_cvt_f32_to_f16(f);
}

/* double -> int64, saturating; NaN gives 0 (plain wasm float-to-int traps out of range).
 * Narrower integer types take the low bits of this (wrap), as a C cast from int64. */
static inline int64_t wgk_cvt_f64_to_i64_sat(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* double -> uint64: exact below 2^64 for values from 2^63 up, saturating at 2^64 - 1;
 * below 2^63 as wgk_cvt_f64_to_i64_sat (negative values wrap). */
static inline uint64_t wgk_cvt_f64_to_u64_sat(double v)
{
    if (v >= 9223372036854775808.0)
        return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
    return (uint64_t)wgk_cvt_f64_to_i64_sat(v);
}

#endif
