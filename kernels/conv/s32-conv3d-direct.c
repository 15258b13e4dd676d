/*
 * s32-conv3d-direct.c: the int32 convolution behind ConvInteger and QLinearConv (1-D, 2-D
 * and 3-D as 3-D, wgk_quant.h): direct loops with wrapping int32 accumulation, like
 * the rest of the quantized kernels exact rather than fast.
 */
#include "wgk_quant.h"

void wgk_s32_conv3d_direct(const wgk_s32_conv_args *a)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups;
    const size_t isz = (size_t)a->in[0] * a->in[1] * a->in[2];
    const size_t osz = (size_t)a->out[0] * a->out[1] * a->out[2];
    const size_t ksz = (size_t)a->k[0] * a->k[1] * a->k[2];
    for (int n = 0; n < a->N; n++)
        for (int m = 0; m < a->M; m++) {
            const int g = m / mg;
            int32_t *y = a->y + ((size_t)n * a->M + m) * osz;
            size_t oi = 0;
            for (int o0 = 0; o0 < a->out[0]; o0++)
                for (int o1 = 0; o1 < a->out[1]; o1++)
                    for (int o2 = 0; o2 < a->out[2]; o2++, oi++) {
                        uint32_t s = a->bias ? (uint32_t)a->bias[m] : 0u;
                        for (int c = 0; c < cg; c++) {
                            const int32_t *x = a->x + ((size_t)n * a->C + (size_t)g * cg + c) * isz;
                            const int32_t *w = a->w + ((size_t)m * cg + c) * ksz;
                            for (int k0 = 0; k0 < a->k[0]; k0++) {
                                const int i0 = o0 * a->s[0] - a->p[0] + k0 * a->d[0];
                                if (i0 < 0 || i0 >= a->in[0])
                                    continue;
                                for (int k1 = 0; k1 < a->k[1]; k1++) {
                                    const int i1 = o1 * a->s[1] - a->p[1] + k1 * a->d[1];
                                    if (i1 < 0 || i1 >= a->in[1])
                                        continue;
                                    const int32_t *xr = x + ((size_t)i0 * a->in[1] + i1) * a->in[2];
                                    const int32_t *wr = w + ((size_t)k0 * a->k[1] + k1) * a->k[2];
                                    for (int k2 = 0; k2 < a->k[2]; k2++) {
                                        const int i2 = o2 * a->s[2] - a->p[2] + k2 * a->d[2];
                                        if (i2 >= 0 && i2 < a->in[2])
                                            s += (uint32_t)xr[i2] * (uint32_t)wr[k2];
                                    }
                                }
                            }
                        }
                        y[oi] = (int32_t)s;
                    }
        }
}
