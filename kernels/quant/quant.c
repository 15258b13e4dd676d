/*
 * quant.c: quantize / dequantize / widen / int32 GEMM / requantize (see wgk_quant.h; the
 * int32 convolution is kernels/conv/s32-conv3d-direct.c). Plain loops, exact; the uint8 /
 * int8 quantize and dequantize of QDQ models go to the SIMD runs of q8-linear-runs.c
 * wherever a run of elements shares its parameters.
 */
#include <stdbool.h>

#include "wgk_qdeq.h"
#include "wgk_quant.h"

static size_t param(wgk_qaxis ax, size_t i)
{
    return ax.per_axis ? (i / (size_t)ax.inner) % (size_t)ax.axis : 0;
}

static int32_t load_i(const void *p, int dt, size_t i)
{
    if (!p)
        return 0;
    if (dt == 2)
        return ((const uint8_t *)p)[i];
    if (dt == 3)
        return ((const int8_t *)p)[i];
    return ((const int32_t *)p)[i];
}

/* Saturates the rounded value v into dtype dt and stores it. */
static void store_sat(void *p, int dt, size_t i, double v)
{
    if (dt == 2) {
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        ((uint8_t *)p)[i] = (uint8_t)v;
    } else if (dt == 3) {
        v = v < -128 ? -128 : v > 127 ? 127 : v;
        ((int8_t *)p)[i] = (int8_t)v;
    } else {
        v = v < -2147483648.0 ? -2147483648.0 : v > 2147483647.0 ? 2147483647.0 : v;
        ((int32_t *)p)[i] = (int32_t)v;
    }
}

/* Runs of `inner` elements share a parameter: long enough for the SIMD runs? */
static bool q8_runs(int dt, wgk_qaxis ax)
{
    return (dt == 2 || dt == 3) && (!ax.per_axis || ax.inner >= 16);
}

void wgk_quantize_linear(const float *x, void *y, int ydt, size_t n, const float *scale,
                         const void *zp, wgk_qaxis ax)
{
    if (q8_runs(ydt, ax)) {
        const size_t run = ax.per_axis ? (size_t)ax.inner : n;
        for (size_t i = 0; i < n; i += run) {
            const size_t j = param(ax, i), len = n - i < run ? n - i : run;
            wgk_q8_quantize_run(x + i, (uint8_t *)y + i, ydt, len, scale[j], load_i(zp, ydt, j));
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const size_t j = param(ax, i);
        /* x / scale in float32 as the reference does, then round half to even */
        const float q = __builtin_rintf(x[i] / scale[j]);
        double v = (double)load_i(zp, ydt, j);
        if (q == q) /* NaN has no defined result; it gives the zero point */
            v += (double)q;
        store_sat(y, ydt, i, v);
    }
}

void wgk_dequantize_linear(const void *x, int xdt, float *y, size_t n, const float *scale,
                           const void *zp, wgk_qaxis ax)
{
    if (q8_runs(xdt, ax)) {
        const size_t run = ax.per_axis ? (size_t)ax.inner : n;
        for (size_t i = 0; i < n; i += run) {
            const size_t j = param(ax, i), len = n - i < run ? n - i : run;
            wgk_q8_dequantize_run((const uint8_t *)x + i, xdt, y + i, len, scale[j], load_i(zp, xdt, j));
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const size_t j = param(ax, i);
        /* the difference is exact in int64 (int32 x minus int32 zero point) */
        const int64_t d = (int64_t)load_i(x, xdt, i) - (int64_t)load_i(zp, xdt, j);
        y[i] = (float)d * scale[j];
    }
}

void wgk_q_widen(const void *x, int xdt, int32_t *y, size_t n, const void *zp, wgk_qaxis ax)
{
    for (size_t i = 0; i < n; i++)
        y[i] = load_i(x, xdt, i) - load_i(zp, xdt, param(ax, i));
}

void wgk_s32_gemm(int batch, int M, int N, int K, const int32_t *A, size_t a_stride,
                  const int32_t *B, size_t b_stride, int32_t *C)
{
    for (int b = 0; b < batch; b++) {
        const int32_t *a = A + (size_t)b * a_stride, *bb = B + (size_t)b * b_stride;
        int32_t *c = C + (size_t)b * M * N;
        for (int m = 0; m < M; m++) {
            uint32_t *row = (uint32_t *)(c + (size_t)m * N);
            for (int j = 0; j < N; j++)
                row[j] = 0;
            for (int k = 0; k < K; k++) {
                const uint32_t av = (uint32_t)a[(size_t)m * K + k];
                const int32_t *br = bb + (size_t)k * N;
                for (int j = 0; j < N; j++)
                    row[j] += av * (uint32_t)br[j]; /* wraps like int32 accumulation */
            }
        }
    }
}

void wgk_requantize(const int32_t *acc, void *y, int ydt, size_t n, const float *sa,
                    const float *sb, wgk_qaxis ax_b, const float *sy, const void *zy)
{
    const int32_t z = load_i(zy, ydt, 0);
    if (q8_runs(ydt, ax_b)) {
        const size_t run = ax_b.per_axis ? (size_t)ax_b.inner : n;
        for (size_t i = 0; i < n; i += run) {
            const size_t len = n - i < run ? n - i : run;
            wgk_q8_requantize_run(acc + i, (uint8_t *)y + i, ydt, len, sa[0] * sb[param(ax_b, i)] / sy[0], z);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const float mult = sa[0] * sb[param(ax_b, i)] / sy[0];
        const double v = __builtin_rint((double)acc[i] * (double)mult) + (double)z;
        store_sat(y, ydt, i, v);
    }
}

void wgk_q8_dequantize_sums(const int32_t *acc, int N, int M, size_t plane, const wgk_q8_deq *d)
{
    float mn = 0.0f, mx = 0.0f;
    for (int n = 0; n < N; n++)
        for (int m = 0; m < M; m++) {
            const size_t at = ((size_t)n * (size_t)M + (size_t)m) * plane;
            for (size_t i = 0; i < plane; i++) {
                const float v = wgk_q8_deq1(d, m, at + i, acc[at + i]); /* read before y's write */
                d->y[at + i] = v;
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
        }
    if (d->range) {
        d->range[0] = mn < d->range[0] ? mn : d->range[0];
        d->range[1] = mx > d->range[1] ? mx : d->range[1];
    }
}
