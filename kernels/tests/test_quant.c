/*
 * test_quant.c: quantization kernels. Ties round to even and results saturate
 * (uint8 / int8), per-axis scales and zero points pick the right parameter, dequantize
 * inverts exactly on integers, the int32 GEMM and direct convolution match naive loops
 * (with broadcast batch and zero points), and requantize rounds half to even.
 */
#include "wgk_quant.h"
#include "wgkt.h"

static int32_t A[4096], B[4096], C[4096];
static uint8_t U[256];
static int8_t S8[256];
static float F[256];

static void quantize(void)
{
    static const float x[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000.0f, -1000.0f, 3.4f};
    const float scale = 1.0f;
    const uint8_t zu = 10;
    const int8_t zs = -3;
    static const int want_u[] = {10, 12, 12, 10, 8, 255, 0, 13};
    static const int want_s[] = {-3, -1, -1, -3, -5, 127, -128, 0};
    wgk_quantize_linear(x, U, 2, 8, &scale, &zu, (wgk_qaxis){0, 1, 1});
    wgk_quantize_linear(x, S8, 3, 8, &scale, &zs, (wgk_qaxis){0, 1, 1});
    int ok = 1;
    for (int i = 0; i < 8; i++)
        ok &= U[i] == want_u[i] && S8[i] == want_s[i];
    WGKT_CHECK(ok, "quantize rounds half to even and saturates");
    /* per axis: shape [2][3][2], axis 1 */
    const float sc[3] = {1.0f, 2.0f, 4.0f};
    const uint8_t zp[3] = {0, 1, 2};
    float xs[12];
    for (int i = 0; i < 12; i++)
        xs[i] = (float)(i * 4);
    wgk_quantize_linear(xs, U, 2, 12, sc, zp, (wgk_qaxis){1, 3, 2});
    ok = 1;
    for (int i = 0; i < 12; i++) {
        int j = (i / 2) % 3;
        int want = (int)(xs[i] / sc[j]) + zp[j];
        ok &= U[i] == (want > 255 ? 255 : want);
    }
    WGKT_CHECK(ok, "per-axis quantize uses scale/zero point of the axis index");
    wgk_dequantize_linear(U, 2, F, 12, sc, zp, (wgk_qaxis){1, 3, 2});
    ok = 1;
    for (int i = 0; i < 12; i++) {
        int j = (i / 2) % 3;
        ok &= F[i] == (float)(U[i] - zp[j]) * sc[j];
    }
    WGKT_CHECK(ok, "per-axis dequantize");
}

/* The runs of q8-linear-runs.c (SIMD on the SIMD build) against a plain loop of the
 * reference's float32 operations: lengths around the 16-lane blocks, ties, NaN, infinities,
 * values far past the range, both dtypes, a scale that is not a power of two, and
 * per-axis parameters whose runs are long enough for the SIMD path. */
static float ref_quant(float x, float s, int zp, float lo, float hi)
{
    float q = __builtin_rintf(x / s);
    double v = (double)zp + (q == q ? (double)q : 0.0);
    return (float)(v < lo ? lo : v > hi ? hi : v);
}

static void quantize_runs(void)
{
    static float x[203];
    static uint8_t y[203];
    static float back[203];
    const float inf = __builtin_inff(), nan = __builtin_nanf("");
    for (int i = 0; i < 203; i++)
        x[i] = (float)(i * 7919 % 613) * 0.37f - 100.0f + (i % 5 == 0 ? 0.5f * 0.3f : 0.0f);
    x[3] = nan, x[17] = inf, x[18] = -inf, x[40] = 3.0e30f, x[41] = -3.0e30f, x[60] = 0.15f, x[61] = -0.45f;
    const float s = 0.3f;
    int ok = 1, ok_d = 1;
    for (int dt = 2; dt <= 3; dt++) {
        const int zp = dt == 2 ? 131 : -9;
        const float lo = dt == 2 ? 0.0f : -128.0f, hi = dt == 2 ? 255.0f : 127.0f;
        for (size_t n = 0; n <= 203; n += n < 40 ? 1 : 23) {
            wgk_q8_quantize_run(x, y, dt, n, s, zp);
            for (size_t i = 0; i < n; i++) {
                const int got = dt == 2 ? y[i] : ((int8_t *)y)[i];
                ok &= got == (int)ref_quant(x[i], s, zp, lo, hi);
            }
            wgk_q8_dequantize_run(y, dt, back, n, s, zp);
            for (size_t i = 0; i < n; i++) {
                const int v = dt == 2 ? y[i] : ((int8_t *)y)[i];
                ok_d &= back[i] == (float)(v - zp) * s;
            }
        }
    }
    WGKT_CHECK(ok, "quantize runs: rint(x / s) + zp saturated, NaN -> zp, every length");
    WGKT_CHECK(ok_d, "dequantize runs: (x - zp) * s, every length");
    /* per axis, [2][3][20] on axis 1: runs of 20 go to the run kernels */
    const float sc[3] = {0.25f, 0.7f, 3.0f};
    const int8_t zs[3] = {-5, 0, 17};
    wgk_quantize_linear(x, y, 3, 120, sc, zs, (wgk_qaxis){1, 3, 20});
    wgk_dequantize_linear(y, 3, back, 120, sc, zs, (wgk_qaxis){1, 3, 20});
    ok = 1;
    for (int i = 0; i < 120; i++) {
        const int j = (i / 20) % 3, v = ((int8_t *)y)[i];
        ok &= v == (int)ref_quant(x[i], sc[j], zs[j], -128.0f, 127.0f) && back[i] == (float)(v - zs[j]) * sc[j];
    }
    WGKT_CHECK(ok, "per-axis quantize / dequantize on runs of 20");
}

static void gemm(void)
{
    /* batch 3 of a [M=4][K=5], b broadcast [5][6] */
    for (int i = 0; i < 60; i++)
        U[i] = (uint8_t)(i * 37 % 256);
    for (int i = 0; i < 30; i++)
        S8[i] = (int8_t)(i * 53 % 256 - 128);
    const uint8_t az[4] = {3, 200, 0, 255};
    const int8_t bz = -7;
    wgk_q_widen(U, 2, A, 60, az, (wgk_qaxis){1, 4, 5});
    wgk_q_widen(S8, 3, B, 30, &bz, (wgk_qaxis){0, 1, 1});
    wgk_s32_gemm(3, 4, 6, 5, A, 20, B, 0, C);
    int ok = 1;
    for (int b = 0; b < 3; b++)
        for (int m = 0; m < 4; m++)
            for (int n = 0; n < 6; n++) {
                int s = 0;
                for (int k = 0; k < 5; k++)
                    s += (U[b * 20 + m * 5 + k] - az[m]) * (S8[k * 6 + n] - bz);
                ok &= C[(b * 4 + m) * 6 + n] == s;
            }
    WGKT_CHECK(ok, "int32 GEMM with per-row zero points and a broadcast b");
    const float sa = 0.5f, sb = 1.0f, sy = 1.0f;
    const uint8_t zy = 100;
    int32_t acc[6] = {1, 3, 5, -3, 400, -400};
    static const int want[] = {100, 102, 102, 98, 255, 0};
    wgk_requantize(acc, U, 2, 6, &sa, &sb, (wgk_qaxis){0, 1, 1}, &sy, &zy);
    ok = 1;
    for (int i = 0; i < 6; i++)
        ok &= U[i] == want[i];
    WGKT_CHECK(ok, "requantize rounds half to even, adds the zero point, saturates");
}

static void conv(void)
{
    /* 1x2x5x5 input, 3x2x3x3 weight, stride 2, pad 1 */
    for (int i = 0; i < 50; i++)
        A[i] = i % 7 - 3;
    for (int i = 0; i < 54; i++)
        B[i] = i % 5 - 2;
    const int32_t bias[3] = {10, -20, 30};
    wgk_s32_conv_args a = {.N = 1, .C = 2, .M = 3, .groups = 1, .in = {1, 5, 5}, .out = {1, 3, 3},
                           .k = {1, 3, 3}, .s = {1, 2, 2}, .d = {1, 1, 1}, .p = {0, 1, 1},
                           .x = A, .w = B, .bias = bias, .y = C};
    wgk_s32_conv3d_direct(&a);
    int ok = 1;
    for (int m = 0; m < 3; m++)
        for (int oh = 0; oh < 3; oh++)
            for (int ow = 0; ow < 3; ow++) {
                int s = bias[m];
                for (int c = 0; c < 2; c++)
                    for (int kh = 0; kh < 3; kh++)
                        for (int kw = 0; kw < 3; kw++) {
                            int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
                            if (ih >= 0 && ih < 5 && iw >= 0 && iw < 5)
                                s += A[(c * 5 + ih) * 5 + iw] * B[((m * 2 + c) * 3 + kh) * 3 + kw];
                        }
                ok &= C[(m * 3 + oh) * 3 + ow] == s;
            }
    WGKT_CHECK(ok, "int32 direct convolution with bias and padding");
}

static void run(void)
{
    quantize();
    quantize_runs();
    gemm();
    conv();
}

WGKT_MAIN("quant", run)
