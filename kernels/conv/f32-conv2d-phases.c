/*
 * f32-conv2d-phases.c: stride-2 convs with 7x7 or 8x8 filters as a stride-1 4x4 conv on
 * the input's four phases (wgk_winograd.h), run by F(3x3, 4x4) Winograd. Per image: the
 * phase planes of the zero-padded input into scratch, then the Winograd kernel on them.
 */
#include "wgk_winograd.h"

/* dst[(2p + q)*C + c][i][j] = x[c][2i + p - PT][2j + q - PL], zero outside the input;
 * planes PH x PW. */
static void split_phases(const float *x, int C, int H, int W, int PT, int PL, int PH, int PW, float *dst)
{
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++)
            for (int c = 0; c < C; c++) {
                const float *xc = x + (size_t)c * H * W;
                float *d = dst + ((size_t)(2 * p + q) * C + c) * PH * PW;
                /* Columns j with 0 <= 2j + q - PL < W: [j0, j1). */
                int j0 = (PL - q + 1) / 2, j1 = (W + PL - q + 1) / 2;
                j0 = j0 < 0 ? 0 : j0 > PW ? PW : j0;
                j1 = j1 < j0 ? j0 : j1 > PW ? PW : j1;
                for (int i = 0; i < PH; i++, d += PW) {
                    const int r = 2 * i + p - PT;
                    if (r < 0 || r >= H) {
                        for (int j = 0; j < PW; j++)
                            d[j] = 0.0f;
                        continue;
                    }
                    const float *xr = xc + (size_t)r * W;
                    for (int j = 0; j < j0; j++)
                        d[j] = 0.0f;
                    for (int j = j0; j < j1; j++)
                        d[j] = xr[2 * j + q - PL];
                    for (int j = j1; j < PW; j++)
                        d[j] = 0.0f;
                }
            }
}

void wgk_f32_conv2d_phases(const wgk_conv2d_args *a)
{
    wgk_conv2d_args p = wgk_conv_phases_geom(a);
    float *const planes = a->scratch;
    const size_t xs = (size_t)a->C * a->H * a->W, ys = (size_t)a->M * a->OH * a->OW;
    p.w = a->w;
    p.bias = a->bias;
    p.min = a->min;
    p.max = a->max;
    p.x = planes;
    p.scratch = planes + (size_t)p.C * p.H * p.W;
    p.share = a->share; /* the Winograd conv's share (wgk_split_conv2d_phases) */
    for (int n = 0; n < a->N; n++) {
        split_phases(a->x + n * xs, a->C, a->H, a->W, a->PT, a->PL, p.H, p.W, planes);
        p.y = a->y + n * ys;
        p.res = a->res ? a->res + n * ys : NULL;
        wgk_f32_conv2d_winograd_f3x4(&p);
    }
}
