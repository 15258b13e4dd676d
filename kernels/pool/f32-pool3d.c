/*
 * f32-pool3d.c: max / average pooling over up to 3 spatial dims with MaxPool indices
 * (see wgk_poolnd.h). Direct loops with a bounds test per tap.
 */
#include "wgk_poolnd.h"

void wgk_f32_maxpool3d(const wgk_poolnd_args *a)
{
    const size_t isz = (size_t)a->in[0] * a->in[1] * a->in[2];
    size_t oi = 0;
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * isz;
        for (int o0 = 0; o0 < a->out[0]; o0++)
            for (int o1 = 0; o1 < a->out[1]; o1++)
                for (int o2 = 0; o2 < a->out[2]; o2++, oi++) {
                    float m = -__builtin_inff();
                    int64_t at = -1;
                    int b0 = 0, b1 = 0, b2 = 0;
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
                                if (at < 0 || v > m || (v != v && m == m)) {
                                    m = v;
                                    at = 0;
                                    b0 = i0;
                                    b1 = i1;
                                    b2 = i2;
                                }
                            }
                        }
                    }
                    a->y[oi] = m;
                    if (a->indices) {
                        int64_t pos;
                        if (a->storage_order)
                            pos = ((int64_t)b2 * a->in[1] + b1) * a->in[0] + b0;
                        else
                            pos = ((int64_t)b0 * a->in[1] + b1) * a->in[2] + b2;
                        a->indices[oi] = (int64_t)p * (int64_t)isz + pos;
                    }
                }
    }
}

void wgk_f32_avgpool3d(const wgk_poolnd_args *a)
{
    const size_t isz = (size_t)a->in[0] * a->in[1] * a->in[2];
    size_t oi = 0;
    for (int p = 0; p < a->NC; p++) {
        const float *x = a->x + (size_t)p * isz;
        for (int o0 = 0; o0 < a->out[0]; o0++)
            for (int o1 = 0; o1 < a->out[1]; o1++)
                for (int o2 = 0; o2 < a->out[2]; o2++, oi++) {
                    float s = 0.0f;
                    int inside = 0, padded = 0;
                    for (int k0 = 0; k0 < a->k[0]; k0++) {
                        const int i0 = o0 * a->s[0] - a->pb[0] + k0 * a->d[0];
                        for (int k1 = 0; k1 < a->k[1]; k1++) {
                            const int i1 = o1 * a->s[1] - a->pb[1] + k1 * a->d[1];
                            for (int k2 = 0; k2 < a->k[2]; k2++) {
                                const int i2 = o2 * a->s[2] - a->pb[2] + k2 * a->d[2];
                                /* inside image + pads: a ceil_mode overhang is not counted */
                                if (i0 < a->in[0] + a->pe[0] && i1 < a->in[1] + a->pe[1] &&
                                    i2 < a->in[2] + a->pe[2])
                                    padded++;
                                if (i0 < 0 || i0 >= a->in[0] || i1 < 0 || i1 >= a->in[1] ||
                                    i2 < 0 || i2 >= a->in[2])
                                    continue;
                                s += x[((size_t)i0 * a->in[1] + i1) * a->in[2] + i2];
                                inside++;
                            }
                        }
                    }
                    const int cnt = a->count_include_pad ? padded : inside;
                    a->y[oi] = cnt > 0 ? s / (float)cnt : 0.0f;
                }
    }
}
