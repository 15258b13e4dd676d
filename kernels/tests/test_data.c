/*
 * test_data.c: data-movement kernels against naive index arithmetic: transpose of ranks
 * 1..5 with every element size, row copies (Concat), pad in all three modes with
 * negative (cropping) pads, gather with int32/int64 and negative indices, and dtype
 * conversion including float16 (every half value round-trips) and saturating float->int.
 */
#include "wgk.h"
#include "wgkt.h"

#define MAXN 4096

static uint8_t src[MAXN * 8], dst[MAXN * 8];

static void fill_bytes(void)
{
    for (int i = 0; i < MAXN * 8; i++)
        src[i] = (uint8_t)(i * 131 + 7);
}

static int32_t numel(int rank, const int32_t *d)
{
    int32_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= d[i];
    return n;
}

static void test_transpose(void)
{
    static const struct {
        int rank;
        int32_t dims[5], perm[5];
    } cases[] = {
        {1, {7}, {0}},
        {2, {5, 9}, {1, 0}},
        {3, {2, 3, 5}, {2, 0, 1}},
        {3, {2, 3, 5}, {0, 2, 1}},
        {4, {1, 3, 4, 5}, {0, 2, 3, 1}},
        {4, {2, 3, 4, 5}, {3, 2, 1, 0}},
        {5, {2, 3, 1, 4, 3}, {4, 1, 3, 0, 2}},
        {4, {2, 3, 4, 5}, {0, 1, 2, 3}},
    };
    fill_bytes();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (size_t es = 1; es <= 8; es *= 2) {
            int rank = cases[k].rank;
            const int32_t *xd = cases[k].dims, *perm = cases[k].perm;
            int32_t n = numel(rank, xd), xs[5], yd[5];
            wgk_transpose(dst, src, es, rank, xd, perm);
            int32_t s = 1;
            for (int d = rank - 1; d >= 0; d--) {
                xs[d] = s;
                s *= xd[d];
            }
            for (int d = 0; d < rank; d++)
                yd[d] = xd[perm[d]];
            int ok = 1;
            for (int32_t i = 0; i < n; i++) {
                int32_t r = i, off = 0;
                for (int d = rank - 1; d >= 0; d--) {
                    off += (r % yd[d]) * xs[perm[d]];
                    r /= yd[d];
                }
                for (size_t b = 0; b < es; b++)
                    ok &= dst[(size_t)i * es + b] == src[(size_t)off * es + b];
            }
            WGKT_CHECK(ok, "transpose matches naive indexing");
            if (!ok) {
                wgkt_log("  case ");
                wgkt_log_int((long long)k);
                wgkt_log(" esize ");
                wgkt_log_int((long long)es);
                wgkt_log("\n");
            }
        }
    }
}

static void test_copy_rows(void)
{
    /* Concat of [2,3,4] and [2,5,4] floats on axis 1 into [2,8,4]. */
    float a[24], b[40], y[64];
    for (int i = 0; i < 24; i++)
        a[i] = (float)i;
    for (int i = 0; i < 40; i++)
        b[i] = 100.0f + (float)i;
    wgk_copy_rows(y, 32 * 4, a, 12 * 4, 2, 12 * 4);
    wgk_copy_rows((char *)y + 12 * 4, 32 * 4, b, 20 * 4, 2, 20 * 4);
    int ok = 1;
    for (int o = 0; o < 2; o++)
        for (int j = 0; j < 8; j++)
            for (int i = 0; i < 4; i++) {
                float want = j < 3 ? a[(o * 3 + j) * 4 + i] : b[(o * 5 + j - 3) * 4 + i];
                ok &= y[(o * 8 + j) * 4 + i] == want;
            }
    WGKT_CHECK(ok, "concat by row copies");
}

static int32_t map_ref(int32_t i, int32_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == WGK_PAD_CONSTANT)
        return -1;
    if (mode == WGK_PAD_EDGE)
        return i < 0 ? 0 : n - 1;
    return i < 0 ? -i : 2 * (n - 1) - i;
}

static void test_pad(void)
{
    static const struct {
        int rank;
        int32_t dims[4], begin[4], end[4];
    } cases[] = {
        {1, {5}, {2}, {3}},
        {2, {3, 4}, {1, 2}, {2, 3}},
        {4, {1, 2, 3, 4}, {0, 0, 1, 1}, {0, 0, 2, 3}},
        {2, {4, 5}, {-1, 2}, {1, -2}},
        {3, {2, 3, 4}, {1, 0, 3}, {0, 2, 0}},
        {2, {3, 3}, {0, 0}, {0, 0}},
    };
    uint32_t seed = 3;
    float x[256], y[1024];
    for (int i = 0; i < 256; i++)
        x[i] = wgkt_rand(&seed);
    float value = -7.5f;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int mode = 0; mode < 3; mode++) {
            int rank = cases[k].rank;
            const int32_t *xd = cases[k].dims, *bg = cases[k].begin, *en = cases[k].end;
            int32_t yd[4], xs[4];
            for (int d = 0; d < rank; d++)
                yd[d] = xd[d] + bg[d] + en[d];
            int32_t s = 1;
            for (int d = rank - 1; d >= 0; d--) {
                xs[d] = s;
                s *= xd[d];
            }
            /* Reflect needs pads smaller than the dim. */
            int skip = 0;
            for (int d = 0; d < rank; d++)
                skip |= mode == WGK_PAD_REFLECT && (bg[d] >= xd[d] || en[d] >= xd[d]);
            if (skip)
                continue;
            wgk_pad(y, x, 4, rank, xd, bg, en, mode, &value);
            int ok = 1;
            int32_t n = numel(rank, yd);
            for (int32_t i = 0; i < n; i++) {
                int32_t r = i, off = 0, border = 0;
                for (int d = rank - 1; d >= 0; d--) {
                    int32_t m = map_ref(r % yd[d] - bg[d], xd[d], mode);
                    r /= yd[d];
                    if (m < 0)
                        border = 1;
                    else
                        off += m * xs[d];
                }
                ok &= y[i] == (border ? value : x[off]);
            }
            WGKT_CHECK(ok, "pad matches naive indexing");
            if (!ok) {
                wgkt_log("  case ");
                wgkt_log_int((long long)k);
                wgkt_log(" mode ");
                wgkt_log_int(mode);
                wgkt_log("\n");
            }
        }
}

static void test_gather(void)
{
    /* x [3,4,2] float, axis 1, indices [[0,-1],[2,1],[3,-4]] -> y [3,3,2,2] */
    float x[24], y[36];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i;
    int64_t i64[6] = {0, -1, 2, 1, 3, -4};
    int32_t i32[6] = {0, -1, 2, 1, 3, -4};
    for (int variant = 0; variant < 2; variant++) {
        int st = variant ? wgk_gather(y, x, i32, 4, 6, 3, 4, 8)
                         : wgk_gather(y, x, i64, 8, 6, 3, 4, 8);
        WGKT_CHECK(st == 0, "gather status 0 for valid indices");
        int ok = 1;
        for (int o = 0; o < 3; o++)
            for (int j = 0; j < 6; j++) {
                int64_t v = i64[j] < 0 ? i64[j] + 4 : i64[j];
                for (int k = 0; k < 2; k++)
                    ok &= y[(o * 6 + j) * 2 + k] == x[(o * 4 + v) * 2 + k];
            }
        WGKT_CHECK(ok, "gather matches naive indexing");
    }
    int64_t bad[2] = {1, 4};
    WGKT_CHECK(wgk_gather(y, x, bad, 8, 2, 3, 4, 8) == WGK_ERR_INDEX,
               "gather reports an out-of-range index");
    WGKT_CHECK(y[2] == 0.0f && y[3] == 0.0f, "out-of-range slab is zero-filled");
}

static uint16_t f2h(float f)
{
    uint16_t h;
    wgk_cast(&h, 10, &f, 1, 1);
    return h;
}

static void test_cast(void)
{
    /* float16 known values. */
    WGKT_CHECK(f2h(1.0f) == 0x3c00, "f16(1) = 0x3c00");
    WGKT_CHECK(f2h(-2.0f) == 0xc000, "f16(-2) = 0xc000");
    WGKT_CHECK(f2h(65504.0f) == 0x7bff, "f16 max");
    WGKT_CHECK(f2h(65519.0f) == 0x7bff, "65519 rounds down to the max");
    WGKT_CHECK(f2h(65520.0f) == 0x7c00, "65520 overflows to inf");
    WGKT_CHECK(f2h(0.1f) == 0x2e66, "f16(0.1) = 0x2e66");
    WGKT_CHECK(f2h(5.9604645e-8f) == 0x0001, "smallest subnormal");
    WGKT_CHECK(f2h(2.9802322e-8f) == 0x0000, "half the smallest subnormal ties to even 0");
    WGKT_CHECK(f2h(8.9406967e-8f) == 0x0002, "1.5 x smallest subnormal ties to even 2");
    WGKT_CHECK(f2h(-0.0f) == 0x8000, "negative zero");
    WGKT_CHECK(f2h(INFINITY) == 0x7c00 && f2h(-INFINITY) == 0xfc00, "infinities");
    WGKT_CHECK((f2h(NAN) & 0x7c00) == 0x7c00 && (f2h(NAN) & 0x3ff), "NaN stays NaN");
    WGKT_CHECK(f2h(1.0009765625f + 0.00048828125f) == 0x3c02, "tie rounds to even (up)");
    WGKT_CHECK(f2h(1.0f + 0.00048828125f) == 0x3c00, "tie rounds to even (down)");
    /* Every half that is not NaN survives f16 -> f32 -> f16. */
    int ok = 1;
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue;
        uint16_t hv = (uint16_t)h, back;
        float f;
        wgk_cast(&f, 1, &hv, 10, 1);
        wgk_cast(&back, 10, &f, 1, 1);
        ok &= back == hv;
    }
    WGKT_CHECK(ok, "every float16 round-trips through float32");
    float f;
    uint16_t h1 = 0x0001;
    wgk_cast(&f, 1, &h1, 10, 1);
    WGKT_CHECK(f == 5.9604645e-8f, "f16 subnormal to f32");

    /* float -> int: truncation toward zero, NaN -> 0, saturation instead of a trap. */
    float fx[6] = {-3.7f, 3.7f, NAN, 1e30f, -1e30f, 255.0f};
    int64_t l[6];
    wgk_cast(l, 7, fx, 1, 6);
    WGKT_CHECK(l[0] == -3 && l[1] == 3 && l[2] == 0, "f32 -> i64 truncates, NaN gives 0");
    WGKT_CHECK(l[3] == INT64_MAX && l[4] == INT64_MIN, "f32 -> i64 saturates");
    int32_t i[6];
    wgk_cast(i, 6, fx, 1, 6);
    WGKT_CHECK(i[0] == -3 && i[1] == 3 && i[5] == 255, "f32 -> i32");
    uint8_t u[6], bl[6];
    wgk_cast(u, 2, fx, 1, 6);
    WGKT_CHECK(u[5] == 255, "f32 -> u8");
    wgk_cast(bl, 9, fx, 1, 6);
    WGKT_CHECK(bl[0] == 1 && bl[2] == 1 && bl[5] == 1, "f32 -> bool is x != 0");
    float zero = 0.0f;
    wgk_cast(bl, 9, &zero, 1, 1);
    WGKT_CHECK(bl[0] == 0, "0 -> false");
    /* int64 -> int32 wraps, int32 -> float, bool -> float, int8 sign extension. */
    int64_t big[3] = {((int64_t)1 << 32) + 5, -1, 16777217};
    wgk_cast(i, 6, big, 7, 3);
    WGKT_CHECK(i[0] == 5 && i[1] == -1, "i64 -> i32 wraps");
    float g[3];
    wgk_cast(g, 1, big, 7, 3);
    WGKT_CHECK(g[1] == -1.0f && g[2] == 16777216.0f, "i64 -> f32 rounds to nearest even");
    int8_t s8[2] = {-128, 127};
    int16_t s16[2];
    wgk_cast(s16, 5, s8, 3, 2);
    WGKT_CHECK(s16[0] == -128 && s16[1] == 127, "i8 -> i16 sign-extends");
    double dd[2] = {1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11};
    uint16_t hh[2];
    wgk_cast(hh, 10, dd, 11, 2);
    WGKT_CHECK(hh[0] == 0x3c01 && hh[1] == 0x3c00, "f64 -> f16 rounds once (no double rounding)");
    /* int32 -> float, the SIMD body (4) and the tail (3): round to nearest even. */
    int32_t i7[7] = {16777217, -16777219, 2147483647, -2147483647 - 1, 0, 16777219, -7};
    float f7[7];
    wgk_cast(f7, 1, i7, 6, 7);
    WGKT_CHECK(f7[0] == 16777216.0f && f7[1] == -16777220.0f && f7[2] == 2147483648.0f &&
               f7[3] == -2147483648.0f && f7[4] == 0.0f && f7[5] == 16777220.0f && f7[6] == -7.0f,
               "i32 -> f32 rounds to nearest even, SIMD body and tail alike");
}

static void test_memory(void)
{
    uint8_t buf[100];
    for (int i = 0; i < 100; i++)
        buf[i] = (uint8_t)i;
    memmove(buf + 3, buf, 90); /* overlapping, dst above src */
    int ok = 1;
    for (int i = 0; i < 90; i++)
        ok &= buf[i + 3] == i;
    WGKT_CHECK(ok, "memmove backwards overlap");
    for (int i = 0; i < 100; i++)
        buf[i] = (uint8_t)i;
    memmove(buf, buf + 5, 90); /* dst below src */
    ok = 1;
    for (int i = 0; i < 90; i++)
        ok &= buf[i] == i + 5;
    WGKT_CHECK(ok, "memmove forward overlap");
    memset(buf + 1, 0xab, 37);
    WGKT_CHECK(buf[0] == 5 && buf[1] == 0xab && buf[37] == 0xab && buf[38] == 43, "memset");
    for (int n = 0; n < 70; n++) {
        for (int i = 0; i < 100; i++)
            buf[i] = 0;
        memcpy(buf + 1, src, (size_t)n);
        ok = buf[0] == 0 && buf[n + 1] == 0;
        for (int i = 0; i < n; i++)
            ok &= buf[i + 1] == src[i];
        WGKT_CHECK(ok, "memcpy of every length 0..69 at an odd address");
    }
}

static void run(void)
{
    test_transpose();
    test_copy_rows();
    test_pad();
    test_gather();
    test_cast();
    test_memory();
}

WGKT_MAIN("data", run)
