/*
 * test_norm.c: Softmax, LRN and the BatchNormalization kernels against naive loops with a
 * double-precision exp/log written here (no libm in the module): softmax along first,
 * middle and last axes (inner 1 and > 1, n = 1), large logits (stability), LRN with
 * even and odd sizes (asymmetric window), beta = 0.75 fast path and a general beta,
 * channel affine with residual and clamp, odd spatial sizes. rtol 1e-4, atol 1e-5
 * (LRN with general beta: rtol 1e-4 also, it goes through wgk_powf).
 */
#include "wgk_norm.h"
#include "wgkt.h"

#define CAP (1 << 16)
static float X[CAP], Y[CAP], R[CAP], P[4][1024], S[2][1024];
static uint32_t seed = 4242;

static double ref_exp(double x)
{
    if (x < -700)
        return 0;
    int k = 0;
    while (x > 0.5) {
        x -= 0.6931471805599453;
        k++;
    }
    while (x < -0.5) {
        x += 0.6931471805599453;
        k--;
    }
    double r = 1, t = 1;
    for (int i = 1; i < 25; i++) {
        t *= x / i;
        r += t;
    }
    for (; k > 0; k--)
        r *= 2;
    for (; k < 0; k++)
        r /= 2;
    return r;
}

static double ref_log(double x) /* x > 0 */
{
    int e = 0;
    while (x > 1.5) {
        x /= 2;
        e++;
    }
    while (x < 0.75) {
        x *= 2;
        e--;
    }
    double y = (x - 1) / (x + 1), y2 = y * y, s = 0, t = y;
    for (int i = 1; i < 80; i += 2) {
        s += t / i;
        t *= y2;
    }
    return 2 * s + e * 0.6931471805599453;
}

static void check_softmax(int outer, int n, int inner, float scale)
{
    int total = outer * n * inner;
    for (int i = 0; i < total; i++)
        X[i] = wgkt_rand(&seed) * scale;
    wgk_f32_softmax(X, Y, outer, n, inner);
    int bad = 0;
    for (int o = 0; o < outer; o++)
        for (int j = 0; j < inner; j++) {
            double m = -1e300, s = 0;
            for (int i = 0; i < n; i++)
                m = X[(o * n + i) * inner + j] > m ? X[(o * n + i) * inner + j] : m;
            for (int i = 0; i < n; i++)
                s += ref_exp(X[(o * n + i) * inner + j] - m);
            for (int i = 0; i < n; i++) {
                int idx = (o * n + i) * inner + j;
                float want = (float)(ref_exp(X[idx] - m) / s);
                if (!bad && !wgkt_close(Y[idx], want, 1e-4f, 1e-6f)) {
                    bad = 1;
                    WGKT_CHECK_CLOSE(Y[idx], want, 1e-4f, 1e-6f, "softmax");
                }
            }
        }
    WGKT_CHECK(!bad, "softmax matches the reference");
    /* Tiny terms are exact zeros, never subnormal (x86 computes with those in slow microcode assists). */
    int subnormal = 0;
    for (int i = 0; i < total; i++)
        subnormal += Y[i] != 0.0f && Y[i] < 1.17549435e-38f && Y[i] > -1.17549435e-38f;
    WGKT_CHECK(subnormal == 0, "softmax writes no subnormal value");
    /* in place */
    for (int i = 0; i < total; i++)
        R[i] = Y[i];
    wgk_f32_softmax(X, X, outer, n, inner);
    int same = 1;
    for (int i = 0; i < total; i++)
        same &= X[i] == R[i];
    WGKT_CHECK(same, "softmax in place gives the same result");
}

static void check_lrn(int N, int C, int inner, int size, float alpha, float beta, float bias)
{
    for (int i = 0; i < N * C * inner; i++)
        X[i] = wgkt_rand(&seed) * 3.0f;
    wgk_f32_lrn(X, Y, N, C, inner, size, alpha, beta, bias);
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < inner; i++) {
                double s = 0;
                /* ONNX: c - floor((size-1)/2) .. c + ceil((size-1)/2) */
                for (int cc = c - (size - 1) / 2; cc <= c + size / 2; cc++)
                    if (cc >= 0 && cc < C) {
                        double v = X[(n * C + cc) * inner + i];
                        s += v * v;
                    }
                double d = bias + alpha / size * s;
                int idx = (n * C + c) * inner + i;
                float want = (float)(X[idx] / ref_exp(beta * ref_log(d)));
                if (!bad && !wgkt_close(Y[idx], want, 1e-4f, 1e-5f)) {
                    bad = 1;
                    WGKT_CHECK_CLOSE(Y[idx], want, 1e-4f, 1e-5f, "lrn");
                    wgkt_log("  size=");
                    wgkt_log_int(size);
                    wgkt_log(" c=");
                    wgkt_log_int(c);
                    wgkt_log("\n");
                }
            }
    WGKT_CHECK(!bad, "lrn matches the reference");
}

static void check_affine(int N, int C, int inner, int use_res, float lo, float hi)
{
    for (int i = 0; i < N * C * inner; i++) {
        X[i] = wgkt_rand(&seed);
        R[i] = wgkt_rand(&seed);
    }
    for (int c = 0; c < C; c++)
        for (int k = 0; k < 4; k++)
            P[k][c] = wgkt_rand(&seed) + (k == 3 ? 1.5f : 0.0f); /* var > 0 */
    wgk_f32_batchnorm_params(P[0], P[1], P[2], P[3], 1e-5f, C, S[0], S[1]);
    int ok = 1;
    for (int c = 0; c < C; c++) {
        double sc = P[0][c] / ref_exp(0.5 * ref_log(P[3][c] + 1e-5));
        ok &= wgkt_close(S[0][c], (float)sc, 1e-5f, 1e-6f);
        ok &= wgkt_close(S[1][c], (float)(P[1][c] - P[2][c] * sc), 1e-5f, 1e-5f);
    }
    WGKT_CHECK(ok, "batchnorm_params: scale = gamma/sqrt(var+eps), shift = beta - mean*scale");
    wgk_f32_channel_affine(X, S[0], S[1], use_res ? R : 0, Y, N, C, inner, lo, hi);
    int bad = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < inner; i++) {
                int idx = (n * C + c) * inner + i;
                float v = X[idx] * S[0][c] + S[1][c] + (use_res ? R[idx] : 0.0f);
                v = v < lo ? lo : v > hi ? hi : v;
                if (!bad && !wgkt_close(Y[idx], v, 1e-5f, 1e-6f)) {
                    bad = 1;
                    WGKT_CHECK_CLOSE(Y[idx], v, 1e-5f, 1e-6f, "channel_affine");
                }
            }
    WGKT_CHECK(!bad, "channel_affine matches the reference");
}

static void run(void)
{
    check_softmax(1, 1, 1, 1.0f);
    check_softmax(1, 10, 1, 1.0f);
    check_softmax(3, 1000, 1, 5.0f);
    check_softmax(2, 7, 5, 1.0f);
    check_softmax(1, 3, 17, 2.0f);
    check_softmax(4, 9, 1, 80.0f); /* exp would overflow without the max shift */
    check_softmax(2, 6625, 1, 200.0f); /* a recogniser vocabulary; x - max far below -87 */
    check_softmax(1, 33, 8, 300.0f);
    check_lrn(1, 1, 1, 1, 1e-4f, 0.75f, 1.0f);
    check_lrn(2, 7, 5, 5, 1e-4f, 0.75f, 2.0f);
    check_lrn(1, 6, 9, 4, 0.5f, 0.75f, 1.0f);
    check_lrn(1, 5, 3, 3, 0.3f, 0.6f, 1.5f);
    check_lrn(1, 8, 2, 2, 1.0f, 1.0f, 0.5f);
    check_lrn(1, 6, 13, 5, 0.3f, 0.6f, 1.5f); /* SIMD positions with a general beta, then a tail */
    check_affine(1, 1, 1, 0, -INFINITY, INFINITY);
    check_affine(2, 5, 7, 0, -INFINITY, INFINITY);
    check_affine(1, 3, 16, 1, 0.0f, INFINITY);
    check_affine(2, 4, 9, 1, -0.5f, 0.5f);
}

WGKT_MAIN("norm", run)
