/*
 * f32-conv2d-winograd.c: 3x3 stride-1 convolution by Winograd F(2x2, 3x3)
 * (wgk_winograd.h). Per image and block of 2x2 output tiles: input transform into 16
 * packed B matrices, 16 GEMMs on the packed micro-kernel, output transform with the
 * fused epilogue.
 */
#include "wgk_winograd.h"

/* V = B^T d B, B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]; d and v row-major 4x4. */
static inline void in_transform(const float *d, float *v)
{
    float t[16];
    for (int j = 0; j < 4; j++) {
        t[j] = d[j] - d[8 + j];
        t[4 + j] = d[4 + j] + d[8 + j];
        t[8 + j] = d[8 + j] - d[4 + j];
        t[12 + j] = d[4 + j] - d[12 + j];
    }
    for (int i = 0; i < 4; i++) {
        const float *r = t + 4 * i;
        v[4 * i] = r[0] - r[2];
        v[4 * i + 1] = r[1] + r[2];
        v[4 * i + 2] = r[2] - r[1];
        v[4 * i + 3] = r[1] - r[3];
    }
}

/* Input tile (4x4 at ih0, iw0 of channel plane x, zeros outside) -> 16 packed B
 * values at dst[xi * vx]. */
static void load_tile(const float *x, int H, int W, int ih0, int iw0, float *dst, size_t vx)
{
    float d[16], v[16];
    if (ih0 >= 0 && iw0 >= 0 && ih0 + 4 <= H && iw0 + 4 <= W) {
        const float *p = x + (size_t)ih0 * W + iw0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                d[4 * i + j] = p[(size_t)i * W + j];
    } else {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                const int ih = ih0 + i, iw = iw0 + j;
                d[4 * i + j] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[(size_t)ih * W + iw] : 0.0f;
            }
    }
    in_transform(d, v);
    for (int xi = 0; xi < 16; xi++)
        dst[xi * vx] = v[xi];
}

void wgk_f32_conv2d_winograd(const wgk_conv2d_args *a)
{
    const int C = a->C, M = a->M, H = a->H, W = a->W, OH = a->OH, OW = a->OW;
    const int TW = (OW + 1) / 2, T = ((OH + 1) / 2) * TW;
    const int nt = wgk_wino_block_tiles(C, M, T);
    const size_t vx = (size_t)C * nt, mx = (size_t)M * nt;
    const size_t wx = wgk_conv_pack_w_group((size_t)M, (size_t)C);
    const size_t pstride = (size_t)C * WGK_CONV_NR;
    float *V = a->scratch;       /* [16][nt/NR][C][NR]: packed B per position */
    float *Mo = V + 16 * vx;     /* [16][M][nt] */
    const float inf = __builtin_inff();
    for (int n = 0; n < a->N; n++) {
        const float *x = a->x + (size_t)n * C * H * W;
        const size_t yo = (size_t)n * M * OH * OW;
        for (int t0 = 0; t0 < T; t0 += nt) {
            const int cnt = T - t0 < nt ? T - t0 : nt;
            const int panels = (cnt + WGK_CONV_NR - 1) / WGK_CONV_NR;
            for (int c = 0; c < C; c++) {
                const float *xc = x + (size_t)c * H * W;
                for (int tl = 0; tl < panels * WGK_CONV_NR; tl++) {
                    float *dst = V + (size_t)(tl / WGK_CONV_NR) * pstride + (size_t)c * WGK_CONV_NR +
                                 tl % WGK_CONV_NR;
                    if (tl >= cnt) {
                        for (int xi = 0; xi < 16; xi++)
                            dst[xi * vx] = 0.0f;
                        continue;
                    }
                    const int t = t0 + tl, th = t / TW, tw = t - th * TW;
                    load_tile(xc, H, W, 2 * th - a->PT, 2 * tw - a->PL, dst, vx);
                }
            }
            for (int xi = 0; xi < 16; xi++)
                for (int m0 = 0; m0 < M; m0 += WGK_CONV_MR) {
                    const int mr = M - m0 < WGK_CONV_MR ? M - m0 : WGK_CONV_MR;
                    const float *ap = a->w + xi * wx + (size_t)(m0 / WGK_CONV_MR) * C * WGK_CONV_MR;
                    for (int p = 0; p < panels; p++)
                        wgk_f32_conv_ukernel(mr, WGK_CONV_NR, C, ap, V + xi * vx + (size_t)p * pstride,
                                             Mo + xi * mx + (size_t)m0 * nt + (size_t)p * WGK_CONV_NR,
                                             nt, NULL, NULL, 0, -inf, inf, 0);
                }
            /* y tile = A^T M A, A^T = [1 1 1 0; 0 1 -1 -1], then the epilogue. */
            for (int m = 0; m < M; m++) {
                const float *mm = Mo + (size_t)m * nt;
                const float b = a->bias ? a->bias[m] : 0.0f;
                const size_t ym = yo + (size_t)m * OH * OW;
                for (int tl = 0; tl < cnt; tl++) {
                    float s[16];
                    for (int xi = 0; xi < 16; xi++)
                        s[xi] = mm[xi * mx + tl];
                    float r[8];
                    for (int j = 0; j < 4; j++) {
                        r[j] = s[j] + s[4 + j] + s[8 + j];
                        r[4 + j] = s[4 + j] - s[8 + j] - s[12 + j];
                    }
                    float out[4] = {r[0] + r[1] + r[2], r[1] - r[2] - r[3], r[4] + r[5] + r[6],
                                    r[5] - r[6] - r[7]};
                    const int t = t0 + tl, th = t / TW, tw = t - th * TW;
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 2; j++) {
                            const int oh = 2 * th + i, ow = 2 * tw + j;
                            if (oh >= OH || ow >= OW)
                                continue;
                            const size_t o = ym + (size_t)oh * OW + ow;
                            float v = out[2 * i + j] + b;
                            if (a->res)
                                v += a->res[o];
                            v = v < a->min ? a->min : v;
                            a->y[o] = v > a->max ? a->max : v;
                        }
                }
            }
        }
    }
}
