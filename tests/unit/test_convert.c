/*
 * test_convert.c: the shared conversion helpers (kernels/include/wgk_convert.h: float16 and
 * saturating casts, used by both the kernels and the compiler's folding; src/common/leb128.h)
 * on the cases that tell a right implementation from a near miss: every float16 value
 * through float and back, a float64 just above a float16 tie (rounding through float
 * would land on the tie and round to even), uint64 from 2^63 up, NaN and out-of-range
 * casts, and LEB128 round trips with the malformed encodings a reader must refuse.
 */
#include <math.h>
#include <string.h>

#include "../../kernels/include/wgk_convert.h"
#include "../../src/common/dtype.h"
#include "../../src/common/leb128.h"
#include "../../src/ops/helpers/host_elements.h"
#include "../test.h"

TEST(float16_round_trip)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = wgk_cvt_f16_to_f32((uint16_t)h);
        uint16_t back = wgk_cvt_f32_to_f16(f);
        bool nan = ((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff);
        if (nan ? !(f != f) || (back & 0x7fff) != 0x7e00 : back != h)
            bad++;
    }
    CHECK(bad == 0, "%d float16 values do not survive float and back", bad);
    CHECK(wgk_cvt_f32_to_f16(65519.0f) == 0x7bff && wgk_cvt_f32_to_f16(65520.0f) == 0x7c00,
          "overflow threshold");
    CHECK(wgk_cvt_f32_to_f16(5.9604644775390625e-8f) == 0x0001 &&
              wgk_cvt_f32_to_f16(2.98023223876953125e-8f) == 0x0000, "smallest subnormal, and its half (a tie to even: 0)");
    CHECK(wg_f32_to_f16(1.5f) == wgk_cvt_f32_to_f16(1.5f) && wg_f16_to_f32(0x3e00) == 1.5f,
          "the host's names are the shared conversion");
}

TEST(float64_to_float16_rounds_once)
{
    /* 1 + 2^-11 is the tie between float16 1.0 (0x3c00) and 1 + 2^-10 (0x3c01); a hair
     * above it must round up, but (float) alone drops the hair and lands on the tie. */
    double above = 1.0 + ldexp(1, -11) + ldexp(1, -40), below = 1.0 + ldexp(1, -11) - ldexp(1, -40);
    CHECK(wgk_cvt_f64_to_f16(above) == 0x3c01, "above the tie: 0x%04x", wgk_cvt_f64_to_f16(above));
    CHECK(wgk_cvt_f64_to_f16(below) == 0x3c00, "below the tie: 0x%04x", wgk_cvt_f64_to_f16(below));
    CHECK(wgk_cvt_f64_to_f16(1.0 + ldexp(1, -11)) == 0x3c00, "the tie itself goes to even");
    CHECK(wgk_cvt_f64_to_f16(1e300) == 0x7c00 && wgk_cvt_f64_to_f16(-1e300) == 0xfc00, "overflow");
    /* The folder stores float16 through the same function. */
    uint16_t h = 0;
    wgc_elem_set_f(&h, WG_DT_FLOAT16, 0, above);
    CHECK(h == 0x3c01, "folded float64 -> float16: 0x%04x", h);
}

TEST(saturating_casts)
{
    CHECK(wgk_cvt_f64_to_i64_sat(NAN) == 0, "NaN gives 0");
    CHECK(wgk_cvt_f64_to_i64_sat(1e300) == INT64_MAX && wgk_cvt_f64_to_i64_sat(-1e300) == INT64_MIN,
          "saturates");
    CHECK(wgk_cvt_f64_to_i64_sat(-2.9) == -2, "truncates toward zero");
    CHECK(wgk_cvt_f64_to_u64_sat(ldexp(1, 63)) == UINT64_C(1) << 63, "2^63 is exact in uint64");
    CHECK(wgk_cvt_f64_to_u64_sat(1e30) == UINT64_MAX, "saturates at 2^64 - 1");
    CHECK(wgk_cvt_f64_to_u64_sat(-1.0) == UINT64_MAX, "negative values wrap from int64");
    uint64_t u = 0;
    wgc_elem_set_f(&u, WG_DT_UINT64, 0, ldexp(1, 63) + ldexp(1, 11));
    CHECK(u == (UINT64_C(1) << 63) + 2048, "folded float -> uint64: %llu", (unsigned long long)u);
}

TEST(leb128)
{
    static const uint64_t values[] = {0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, UINT64_C(1) << 63,
                                      UINT64_MAX};
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        uint8_t buf[10];
        uint8_t *end = wg_leb128_put(buf, values[k]);
        const uint8_t *p = buf;
        uint64_t v = 0;
        CHECK((size_t)(end - buf) == wg_leb128_size(values[k]), "size of %llu", (unsigned long long)values[k]);
        CHECK(wg_leb128_read(&p, end, 10, &v) && v == values[k] && p == end, "round trip of %llu",
              (unsigned long long)values[k]);
    }
    static const int64_t svalues[] = {0, -1, 63, 64, -64, -65, INT32_MIN, INT32_MAX, 16384};
    for (size_t k = 0; k < sizeof svalues / sizeof svalues[0]; k++) {
        uint8_t buf[10];
        uint8_t *end = wg_sleb128_put(buf, svalues[k]);
        const uint8_t *p = buf;
        int64_t v = 0;
        CHECK(wg_sleb128_read(&p, end, 5, &v) && v == svalues[k] && p == end, "signed round trip of %lld",
              (long long)svalues[k]);
    }
    const uint8_t truncated[] = {0x80, 0x80}, too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
                  over_64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03};
    const uint8_t *p = truncated;
    uint64_t v;
    CHECK(!wg_leb128_read(&p, truncated + 2, 10, &v), "a truncated LEB128 is refused");
    p = too_long;
    CHECK(!wg_leb128_read(&p, too_long + 6, 5, &v), "six bytes where five are allowed are refused");
    p = over_64;
    CHECK(!wg_leb128_read(&p, over_64 + 10, 10, &v), "more than 64 bits is refused");
}

int main(void)
{
    RUN(float16_round_trip);
    RUN(float64_to_float16_rounds_once);
    RUN(saturating_casts);
    RUN(leb128);
    return test_summary("convert");
}
