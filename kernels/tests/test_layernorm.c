/*
 * test_layernorm.c: wgk_f32_layernorm and wgk_f32_rmsnorm against a two-pass loop in
 * double: row lengths 1..9, 31, 384, 385 (SIMD body and tails), 1 and 3 rows, with and
 * without beta, mean and invstd outputs, rows with a mean 1000 standard deviations away
 * from 0 (the one-read statistics must not cancel), constant rows (variance 0: y = beta),
 * and in place (y = x). rtol 1e-5, atol 1e-6 (the model tests' 1e-4 / 1e-5 with room).
 */
#include "wgk_norm.h"
#include "wgkt.h"

#define CAP (3 * 385)
static float X[CAP], Y[CAP], G[385], B[385], MEAN[3], INV[3];
static uint32_t seed = 1234;

static double sqrt_d(double v) { return __builtin_sqrt(v); }

static void one(int rows, int n, int with_beta, int kind, int in_place, int rms)
{
    for (int i = 0; i < rows * n; i++) {
        float r = wgkt_rand(&seed);
        X[i] = kind == 0 ? 3.0f * r : kind == 1 ? 1000.0f + r : 2.5f;
    }
    for (int k = 0; k < n; k++) {
        G[k] = 1.0f + 0.5f * wgkt_rand(&seed);
        B[k] = 0.3f * wgkt_rand(&seed);
    }
    static float x0[CAP];
    for (int i = 0; i < rows * n; i++)
        x0[i] = X[i];
    float *out = in_place ? X : Y;
    const float eps = 1e-5f;
    if (rms)
        wgk_f32_rmsnorm(X, G, out, rows, n, eps);
    else
        wgk_f32_layernorm(X, G, with_beta ? B : NULL, out, rows, n, eps, MEAN, INV);
    int ok = 1;
    for (int o = 0; o < rows; o++) {
        const float *xr = x0 + o * n;
        double m = 0, v = 0;
        for (int k = 0; k < n; k++)
            m += xr[k];
        m = rms ? 0 : m / n;
        for (int k = 0; k < n; k++)
            v += (xr[k] - m) * (xr[k] - m);
        double r = 1.0 / sqrt_d(v / n + eps);
        for (int k = 0; k < n; k++) {
            double want = (xr[k] - m) * r * G[k] + (with_beta && !rms ? B[k] : 0);
            ok &= wgkt_close(out[o * n + k], (float)want, 1e-5f, 1e-6f);
        }
        if (!rms)
            ok &= wgkt_close(MEAN[o], (float)m, 1e-6f, 0) && wgkt_close(INV[o], (float)r, 1e-5f, 0);
    }
    WGKT_CHECK(ok, rms ? "rmsnorm equals the double loop" : "layernorm equals the double loop");
    if (!ok) {
        int v[6] = {rows, n, with_beta, kind, in_place, rms};
        wgkt_log("  rows n beta kind in_place rms: ");
        for (int i = 0; i < 6; i++) {
            wgkt_log_int(v[i]);
            wgkt_log(" ");
        }
        wgkt_log("\n");
    }
}

static void run(void)
{
    static const int ns[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 384, 385};
    for (unsigned i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int rows = 1; rows <= 3; rows += 2)
            for (int kind = 0; kind < 3; kind++)
                for (int flags = 0; flags < 4; flags++) {
                    one(rows, ns[i], flags & 1, kind, flags >> 1, 0);
                    if (kind != 1) /* no mean to cancel in RMSNorm */
                        one(rows, ns[i], 0, kind, flags >> 1, 1);
                }
}

WGKT_MAIN("layernorm", run)
