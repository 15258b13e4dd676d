/*
 * f32-pool3d.c: max / average pooling over up to 3 spatial dims with MaxPool indices
 * (see wgk_poolnd.h). Direct loops with a bounds test per tap.
 */
#include "wgk_poolnd.h"

/* The max of output (o0, o1, o2)'s window over plane x, *pos its position in the plane
 * (in storage_order's order); NaN wins over numbers, the first of equals is kept. */
static float max_window(const wgk_poolnd_args *a, const float *x, int o0, int o1, int o2, int64_t *pos)
{
    float m = -__builtin_inff();
    int found = 0, b0 = 0, b1 = 0, b2 = 0;
    for (int k0 = 0; k0 < a->k[0]; k0++) {
        const int i0 = o0 * a->s[0] - a->pb[0] + k0 * a->d[0];
        if (i0 < 0 || i0 >= a->in[0])
            continue;
        for (int k1 = 0; k1 < a->k[1]; k1++) {
            const int i1 = o1 * a->s[1] - a->pb[1] + k1 * a->d[1];
            if (i1 < 0 || i1 >= a->in[1])
                continue;
            for (int k2 = 0; k2 < a->k[2]; k2++) {
                const int i2 = o2 * a->s[2] - a->pb[2] + k2 * a->d[2];
                if (i2 < 0 || i2 >= a->in[2])
                    continue;
                const float v = x[((size_t)i0 * a->in[1] + i1) * a->in[2] + i2];
                if (!found || v > m || (v != v && m == m)) {
                    m = v;
                    found = 1;
                    b0 = i0;
                    b1 = i1;
                    b2 = i2;
                }
            }
        }
    }
    *pos = a->storage_order ? ((int64_t)b2 * a->in[1] + b1) * a->in[0] + b0
                            : ((int64_t)b0 * a->in[1] + b1) * a->in[2] + b2;
    return m;
}

/* The average of output (o0, o1, o2)'s window over plane x. */
static float avg_window(const wgk_poolnd_args *a, const float *x, int o0, int o1, int o2)
{
    float s = 0.0f;
    int inside = 0, padded = 0;
    for (int k0 = 0; k0 < a->k[0]; k0++) {
        const int i0 = o0 * a->s[0] - a->pb[0] + k0 * a->d[0];
        for (int k1 = 0; k1 < a->k[1]; k1++) {
            const int i1 = o1 * a->s[1] - a->pb[1] + k1 * a->d[1];
            for (int k2 = 0; k2 < a->k[2]; k2++) {
                const int i2 = o2 * a->s[2] - a->pb[2] + k2 * a->d[2];
                /* inside image + pads: a ceil_mode overhang is not counted */
                if (i0 < a->in[0] + a->pe[0] && i1 < a->in[1] + a->pe[1] && i2 < a->in[2] + a->pe[2])
                    padded++;
                if (i0 < 0 || i0 >= a->in[0] || i1 < 0 || i1 >= a->in[1] || i2 < 0 || i2 >= a->in[2])
                    continue;
                s += x[((size_t)i0 * a->in[1] + i1) * a->in[2] + i2];
                inside++;
            }
        }
    }
    const int cnt = a->count_include_pad ? padded : inside;
    return cnt > 0 ? s / (float)cnt : 0.0f;
}

/* Every output of every plane, max (with indices) or average. */
static void pool3d(const wgk_poolnd_args *a, int is_max)
{
    const size_t isz = (size_t)a->in[0] * a->in[1] * a->in[2];
    size_t oi = 0;
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * isz;
        for (int o0 = 0; o0 < a->out[0]; o0++)
            for (int o1 = 0; o1 < a->out[1]; o1++)
                for (int o2 = 0; o2 < a->out[2]; o2++, oi++) {
                    if (!is_max) {
                        a->y[oi] = avg_window(a, x, o0, o1, o2);
                        continue;
                    }
                    int64_t pos;
                    a->y[oi] = max_window(a, x, o0, o1, o2, &pos);
                    if (a->indices)
                        a->indices[oi] = (int64_t)p * (int64_t)isz + pos;
                }
    }
}

void wgk_f32_maxpool3d(const wgk_poolnd_args *a) { pool3d(a, 1); }

void wgk_f32_avgpool3d(const wgk_poolnd_args *a) { pool3d(a, 0); }
