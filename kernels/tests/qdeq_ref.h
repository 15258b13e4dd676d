/*
 * qdeq_ref.h: the int8 conv kernels' float tail (wgk_qdeq.h) checked against the nodes it
 * replaces, computed here from the direct int32 sums: Cast, Mul by the scale (one, or one
 * per output channel), Add of the bias, Clip (Relu: [0, inf]), Add of the residual, each
 * rounded in float32, and the [min, max] that DynamicQuantizeLinear scans for (starting
 * from 0, NaN never taken). Variants: the ordinary (scalar scale, bias, Relu; per-channel
 * scales, Clip and a residual) and the extreme (scales of 1e30 and 3e38, so sums overflow
 * to infinities; biases of -inf and +inf, so some outputs are NaN; -0.0 biases).
 */
#ifndef QDEQ_REF_H
#define QDEQ_REF_H

#include "wgk_qdeq.h"

#ifndef DQ_MAX
#define DQ_MAX 65536
#endif
#define DQ_VARIANTS 4
static float DQ_Y[DQ_MAX], DQ_Y2[DQ_MAX], DQ_REF[DQ_MAX], DQ_RES[DQ_MAX], DQ_SCALE[1024], DQ_BIAS[1024];

/* Variant v's tail for M output channels and ny outputs, writing DQ_Y (or y), its range
 * into range (set to 0 here). */
static wgk_q8_deq dq_setup(int v, int M, size_t ny, float *y, float *range)
{
    for (int m = 0; m < M && m < 1024; m++) {
        DQ_SCALE[m] = v == 2 ? 1e30f : v == 3 ? 3e38f : 1e-4f * (float)(1 + (m * 37) % 23);
        DQ_BIAS[m] = v == 3 ? (m % 3 == 0 ? -__builtin_inff() : m % 3 == 1 ? __builtin_inff() : -0.0f)
                            : (float)((m * 53) % 17) * 0.37f - 3.0f;
    }
    for (size_t i = 0; i < ny; i++)
        DQ_RES[i] = (float)((i * 7919) % 211) * 0.05f - 5.0f;
    range[0] = range[1] = 0.0f;
    wgk_q8_deq d = {.y = y, .scale = DQ_SCALE, .scale_per_m = v == 1 || v == 3, .bias = v == 2 ? NULL : DQ_BIAS,
                    .clamp = v == 0 || v == 1 || v == 3, .lo = v == 1 ? -3.0f : 0.0f,
                    .hi = v == 1 ? 5.0f : __builtin_inff(), .res = v == 1 ? DQ_RES : NULL, .range = range};
    return d;
}

/* The nodes' float32 results from the sums acc [N][M][plane] into ref, and their range. */
static void dq_reference(const wgk_q8_deq *d, const int32_t *acc, int N, int M, size_t plane, float *ref,
                         float range[2])
{
    range[0] = range[1] = 0.0f;
    for (int n = 0; n < N; n++)
        for (int m = 0; m < M; m++)
            for (size_t p = 0; p < plane; p++) {
                const size_t i = ((size_t)n * (size_t)M + (size_t)m) * plane + p;
                float v = (float)acc[i];                          /* Cast */
                v = v * d->scale[d->scale_per_m ? m : 0];          /* Mul */
                if (d->bias)
                    v = v + d->bias[m];                            /* Add */
                if (d->clamp) {                                    /* Clip */
                    v = v < d->lo ? d->lo : v;
                    v = v > d->hi ? d->hi : v;
                }
                if (d->res)
                    v = v + d->res[i];                             /* Add */
                ref[i] = v;
                if (v > range[1])
                    range[1] = v;
                if (v < range[0])
                    range[0] = v;
            }
}

/* The same bits, or both NaN (wasm leaves a NaN's sign to the engine). */
static int dq_same(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        __builtin_memcpy(&x, a + i, 4);
        __builtin_memcpy(&y, b + i, 4);
        if (x != y && !(a[i] != a[i] && b[i] != b[i]))
            return 0;
    }
    return 1;
}

#endif
