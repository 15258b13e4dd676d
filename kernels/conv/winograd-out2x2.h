/*
 * winograd-out2x2.h: the driver shared by the Winograd kernels with 2x2 output tiles,
 * F(2x2, 3x3) (f32-conv2d-winograd-f2x3.c) and the 3x3 stride-2 transform
 * (f32-conv2d-winograd-f2x3s2.c). Per image and block of tiles: input transform of every
 * channel's tile windows into npos packed B matrices, the GEMMs (wgk_winograd_gemm), output
 * transform with the epilogue. The kernels pass their transforms in a constant struct;
 * the driver is inlined into each, so the calls are direct.
 */
#ifndef WGK_WINOGRAD_2X2_H
#define WGK_WINOGRAD_2X2_H

#include "wgk_winograd.h"
#include "winograd-store.h"

typedef struct wino2x2 {
    int npos;  /* transform positions (matrices) */
    int step;  /* input pixels from one tile's window to the next's (2 * stride) */
    int win;   /* window rows and columns */
    /* One tile's window at (ih0, iw0) of plane x (zeros outside) -> its npos values at
     * dst[xi * vx]. */
    void (*in_tile)(const float *x, int H, int W, int ih0, int iw0, float *dst, size_t vx);
    /* s[0 .. npos) of one tile -> its 2x2 outputs, row-major. */
    void (*out_one)(const float *s, float *out);
#ifdef __wasm_simd128__
    /* Four tiles of one row inside the image (win rows, 3 * step + win columns), lane k =
     * tile k; and their output transform and epilogue (all 2x8 outputs inside y). */
    void (*in_tiles4)(const float *x, int W, int ih0, int iw0, float *dst, size_t vx);
    void (*out_tiles4)(const float *mm, size_t mx, float *y, const float *res, int OW, float b, float lo,
                         float hi);
#endif
} wino2x2;

/* a: one group; nt tiles per block; the weight prepared for k (wgk_conv_pack_w_group
 * floats per matrix). */
WGK_INLINE void wgk_winograd_out2x2_run(const wgk_conv2d_args *a, const wino2x2 *k, int nt)
{
    const int C = a->C, M = a->M, H = a->H, W = a->W, OH = a->OH, OW = a->OW, npos = k->npos;
    const int TW = (OW + 1) / 2, T = ((OH + 1) / 2) * TW;
    const size_t vx = (size_t)C * nt + WGK_WINOGRAD_SKEW, mx = (size_t)M * nt + WGK_WINOGRAD_SKEW;
    const size_t wx = wgk_conv_pack_w_group((size_t)M, (size_t)C);
    float *V = a->scratch;     /* [npos][C][nt]: row c = channel c's tiles (wgk_winograd_gemm) */
    float *Mo = V + npos * vx; /* [npos][M][nt] */
    float *As = Mo + npos * mx; /* broadcasts (wgk_winograd_gemm) */
    int t_lo, t_hi, m_lo, m_hi; /* the share (wgk_split_winograd): tiles, or output channels */
    if (!wgk_share_ranges(a->share, M, T, &m_lo, &m_hi, &t_lo, &t_hi))
        return;
    for (int n = 0; n < a->N; n++) {
        const float *x = a->x + (size_t)n * C * H * W;
        const size_t yo = (size_t)n * M * OH * OW;
        for (int t0 = t_lo; t0 < t_hi; t0 += nt) {
            const int cnt = t_hi - t0 < nt ? t_hi - t0 : nt;
            const int panels = (cnt + WGK_CONV_NR - 1) / WGK_CONV_NR;
            for (int c = 0; c < C; c++) {
                const float *xc = x + (size_t)c * H * W;
                for (int tl = 0; tl < panels * WGK_CONV_NR; tl++) {
                    float *dst = V + (size_t)c * nt + tl;
                    if (tl >= cnt) {
                        for (int xi = 0; xi < npos; xi++)
                            dst[xi * vx] = 0.0f;
                        continue;
                    }
                    const int t = t0 + tl, th = t / TW, tw = t - th * TW;
                    const int ih0 = k->step * th - a->PT, iw0 = k->step * tw - a->PL;
#ifdef __wasm_simd128__
                    /* 4 tiles of one row, inside the image. */
                    if (tl + 4 <= cnt && tw + 4 <= TW && ih0 >= 0 &&
                        ih0 + k->win <= H && iw0 >= 0 && iw0 + 3 * k->step + k->win <= W) {
                        k->in_tiles4(xc, W, ih0, iw0, dst, vx);
                        tl += 3;
                        continue;
                    }
#endif
                    k->in_tile(xc, H, W, ih0, iw0, dst, vx);
                }
            }
            /* Columns up to a multiple of 4: a last half panel costs half (the output
             * transforms read 4 adjacent columns). */
            const int ncols = (cnt + 3) / 4 * 4;
            wgk_winograd_gemm_rows(a->w, wx, npos, M, m_lo, m_hi, C, V, vx, Mo, mx, nt, ncols, As);
            for (int m = m_lo; m < m_hi; m++) {
                const float *mm = Mo + (size_t)m * nt;
                const float b = a->bias ? a->bias[m] : 0.0f;
                const size_t ym = yo + (size_t)m * OH * OW;
                for (int tl = 0; tl < cnt; tl++) {
                    const int t = t0 + tl, th = t / TW, tw = t - th * TW;
#ifdef __wasm_simd128__
                    if (tl + 4 <= cnt && tw + 4 <= TW && 2 * tw + 8 <= OW && 2 * th + 2 <= OH) {
                        const size_t o = ym + (size_t)(2 * th) * OW + 2 * tw;
                        k->out_tiles4(mm + tl, mx, a->y + o, a->res ? a->res + o : NULL, OW, b, a->min, a->max);
                        tl += 3;
                        continue;
                    }
#endif
                    float s[25], out[4];
                    for (int xi = 0; xi < npos; xi++)
                        s[xi] = mm[xi * mx + tl];
                    k->out_one(s, out);
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

#endif
