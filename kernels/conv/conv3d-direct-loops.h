/*
 * conv3d-direct-loops.h: the loop nest of a direct convolution over 3 spatial dims
 * (out-of-image taps skipped), written once for f32-conv3d-direct.c and
 * s32-conv3d-direct.c, which include it after defining:
 *   CONV3D_NAME                the function, taking `const CONV3D_ARGS *a`
 *   CONV3D_ARGS                wgk_convnd_args or wgk_s32_conv_args (same geometry members)
 *   CONV3D_T, CONV3D_ACC       the element type of x and w; the accumulator's type
 *   CONV3D_INIT(a, m)          the accumulator's start for output channel m
 *   CONV3D_MAC(s, xv, wv)      s += xv * wv, in the accumulator's arithmetic
 *   CONV3D_STORE(a, s, m, yi)  writes sum s of output channel m to a->y[yi]
 * The order of the additions is fixed (channels, then taps in row-major order), so
 * each kernel's results do not depend on how it is compiled.
 */
void CONV3D_NAME(const CONV3D_ARGS *a)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups;
    const size_t isz = (size_t)a->in[0] * a->in[1] * a->in[2];
    const size_t osz = (size_t)a->out[0] * a->out[1] * a->out[2];
    const size_t ksz = (size_t)a->k[0] * a->k[1] * a->k[2];
    for (int n = 0; n < a->N; n++)
        for (int m = 0; m < a->M; m++) {
            const int g = m / mg;
            const size_t y0 = ((size_t)n * a->M + m) * osz;
            size_t oi = 0;
            for (int o0 = 0; o0 < a->out[0]; o0++)
                for (int o1 = 0; o1 < a->out[1]; o1++)
                    for (int o2 = 0; o2 < a->out[2]; o2++, oi++) {
                        CONV3D_ACC s = CONV3D_INIT(a, m);
                        for (int c = 0; c < cg; c++) {
                            const CONV3D_T *x = a->x + ((size_t)n * a->C + (size_t)g * cg + c) * isz;
                            const CONV3D_T *w = a->w + ((size_t)m * cg + c) * ksz;
                            for (int k0 = 0; k0 < a->k[0]; k0++) {
                                const int i0 = o0 * a->s[0] - a->p[0] + k0 * a->d[0];
                                if (i0 < 0 || i0 >= a->in[0])
                                    continue;
                                for (int k1 = 0; k1 < a->k[1]; k1++) {
                                    const int i1 = o1 * a->s[1] - a->p[1] + k1 * a->d[1];
                                    if (i1 < 0 || i1 >= a->in[1])
                                        continue;
                                    const CONV3D_T *xr = x + ((size_t)i0 * a->in[1] + i1) * a->in[2];
                                    const CONV3D_T *wr = w + ((size_t)k0 * a->k[1] + k1) * a->k[2];
                                    for (int k2 = 0; k2 < a->k[2]; k2++) {
                                        const int i2 = o2 * a->s[2] - a->p[2] + k2 * a->d[2];
                                        if (i2 >= 0 && i2 < a->in[2])
                                            CONV3D_MAC(s, xr[i2], wr[k2]);
                                    }
                                }
                            }
                        }
                        CONV3D_STORE(a, s, m, y0 + oi);
                    }
        }
}

#undef CONV3D_NAME
#undef CONV3D_ARGS
#undef CONV3D_T
#undef CONV3D_ACC
#undef CONV3D_INIT
#undef CONV3D_MAC
#undef CONV3D_STORE
