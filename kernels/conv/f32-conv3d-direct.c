/*
 * f32-conv3d-direct.c: direct N-D (up to 3 spatial dims) convolution and transposed
 * convolution (see wgk_convnd.h). Out-of-image taps are clipped per output row.
 */
#include "wgk_convnd.h"

static float clampf(float v, float lo, float hi)
{
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* bias, then the residual, are added after the taps' sum; then the clamp */
static float conv3d_finish(const wgk_convnd_args *a, float s, int m, size_t yi)
{
    s += a->bias ? a->bias[m] : 0.0f;
    if (a->res)
        s += a->res[yi];
    return clampf(s, a->min, a->max);
}

#define CONV3D_NAME wgk_f32_conv3d_direct
#define CONV3D_ARGS wgk_convnd_args
#define CONV3D_T float
#define CONV3D_ACC float
#define CONV3D_INIT(a, m) 0.0f
#define CONV3D_MAC(s, xv, wv) ((s) += (xv) * (wv))
#define CONV3D_STORE(a, s, m, yi) ((a)->y[yi] = conv3d_finish((a), (s), (m), (yi)))
#include "conv3d-direct-loops.h"

void wgk_f32_deconv3d_direct(const wgk_convnd_args *a)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups;
    const size_t isz = (size_t)a->in[0] * a->in[1] * a->in[2];
    const size_t osz = (size_t)a->out[0] * a->out[1] * a->out[2];
    const size_t ksz = (size_t)a->k[0] * a->k[1] * a->k[2];
    for (int n = 0; n < a->N; n++) {
        for (int m = 0; m < a->M; m++) {
            float *y = a->y + ((size_t)n * a->M + m) * osz;
            const float b = a->bias ? a->bias[m] : 0.0f;
            for (size_t i = 0; i < osz; i++)
                y[i] = b;
        }
        for (int c = 0; c < a->C; c++) {
            const int g = c / cg;
            const float *x = a->x + ((size_t)n * a->C + c) * isz;
            for (int mm = 0; mm < mg; mm++) {
                const int m = g * mg + mm;
                float *y = a->y + ((size_t)n * a->M + m) * osz;
                const float *w = a->w + ((size_t)c * mg + mm) * ksz;
                size_t ii = 0;
                for (int i0 = 0; i0 < a->in[0]; i0++)
                    for (int i1 = 0; i1 < a->in[1]; i1++)
                        for (int i2 = 0; i2 < a->in[2]; i2++, ii++) {
                            const float v = x[ii];
                            for (int k0 = 0; k0 < a->k[0]; k0++) {
                                const int o0 = i0 * a->s[0] - a->p[0] + k0 * a->d[0];
                                if (o0 < 0 || o0 >= a->out[0])
                                    continue;
                                for (int k1 = 0; k1 < a->k[1]; k1++) {
                                    const int o1 = i1 * a->s[1] - a->p[1] + k1 * a->d[1];
                                    if (o1 < 0 || o1 >= a->out[1])
                                        continue;
                                    float *yr = y + ((size_t)o0 * a->out[1] + o1) * a->out[2];
                                    const float *wr = w + ((size_t)k0 * a->k[1] + k1) * a->k[2];
                                    for (int k2 = 0; k2 < a->k[2]; k2++) {
                                        const int o2 = i2 * a->s[2] - a->p[2] + k2 * a->d[2];
                                        if (o2 >= 0 && o2 < a->out[2])
                                            yr[o2] += v * wr[k2];
                                    }
                                }
                            }
                        }
            }
        }
    }
    const size_t total = (size_t)a->N * a->M * osz;
    for (size_t i = 0; i < total; i++) {
        float v = a->y[i] + (a->res ? a->res[i] : 0.0f);
        a->y[i] = clampf(v, a->min, a->max);
    }
}
