/*
 * f32-winograd-gemm.c: what every Winograd kernel shares (wgk_winograd.h): the GEMM step
 * over the npos transformed matrices (wgk_winograd_gemm, a thread's rows of it
 * wgk_winograd_gemm_rows) and the loop over groups (wgk_winograd_per_group).
 */
#include "wgk_winograd.h"

/* Few tiles (at most 2 panels: ResNet's 14x14 F(4x4) and 7x7 F(2x2) layers): broadcast
 * each group of 4 tiles' transformed input (cheap: few tiles) rather than each weight
 * panel (the weights stream past the tile groups, each pair of 4-row panels one 8-wide B
 * operand), and store the tiles transposed into Mo. The weight-broadcast path would
 * reuse each broadcast for only 1-2 tiles (the shuffle micro-kernel instead: slower per
 * tile). */
static void gemm_few_tiles(const float *w, size_t wx, int npos, int m_lo, int m_hi, int C, const float *V, size_t vx,
                           float *Mo, size_t mx, int nt, int ncols, float *As)
{
    const int groups = ncols / 4;
    for (int xi = 0; xi < npos; xi++) {
        const float *v = V + xi * vx;
        for (int g = 0; g < groups; g++)
            wgk_conv_splat_strided(v + 4 * g, (size_t)nt, C, As + (size_t)g * C * 16);
        /* Group by group: the group's broadcast tiles (C x 16) stay in L1 while the
         * weights (M x C, in L2) stream past them; weights outer and groups inner read
         * the groups (64 KiB at C = 256) from L2 instead, twice the bytes per multiply
         * (slower on the 14x14 256-channel F(4x4) layers). */
        for (int g = 0; g < groups; g++)
            for (int m0 = m_lo; m0 < m_hi; m0 += 2 * WGK_CONV_MR) {
                const float *b = w + xi * wx + (size_t)(m0 / WGK_CONV_MR) * C * WGK_CONV_MR;
                wgk_f32_conv_ukernel_splat_t(C, As + (size_t)g * C * 16, b, WGK_CONV_MR, (size_t)C * WGK_CONV_MR,
                                             Mo + xi * mx + (size_t)m0 * nt + 4 * g, nt, 0);
            }
    }
}

void wgk_winograd_gemm(const float *w, size_t wx, int npos, int M, int C, const float *V, size_t vx,
                   float *Mo, size_t mx, int nt, int ncols, float *As)
{
    wgk_winograd_gemm_rows(w, wx, npos, M, 0, M, C, V, vx, Mo, mx, nt, ncols, As);
}

void wgk_winograd_gemm_rows(const float *w, size_t wx, int npos, int M, int m_lo, int m_hi, int C, const float *V,
                            size_t vx, float *Mo, size_t mx, int nt, int ncols, float *As)
{
    const float inf = __builtin_inff();
    /* The path is chosen on the whole M, so every thread's rows take the same one. */
    if (ncols <= 2 * WGK_CONV_NR && ncols % 4 == 0 && M % (2 * WGK_CONV_MR) == 0) {
        gemm_few_tiles(w, wx, npos, m_lo, m_hi, C, V, vx, Mo, mx, nt, ncols, As);
        return;
    }
    for (int xi = 0; xi < npos; xi++)
        for (int m0 = m_lo; m0 < m_hi; m0 += WGK_CONV_MR) {
            const int mr = M - m0 < WGK_CONV_MR ? M - m0 : WGK_CONV_MR;
            const float *ap = w + xi * wx + (size_t)(m0 / WGK_CONV_MR) * C * WGK_CONV_MR;
            float *mo = Mo + xi * mx + (size_t)m0 * nt;
            wgk_conv_splat_a(ap, C, As);
            wgk_f32_conv_ukernel_splat_rows(mr, ncols, C, As, V + xi * vx, (size_t)nt, mo, nt, NULL, NULL, 0, -inf,
                                            inf, 0);
        }
}

int wgk_winograd_per_group(const wgk_conv2d_args *a, void (*kernel)(const wgk_conv2d_args *),
                       size_t wgroup)
{
    if (a->groups <= 1)
        return 0;
    const int cg = a->C / a->groups, mg = a->M / a->groups;
    const size_t in = (size_t)a->H * a->W, out = (size_t)a->OH * a->OW;
    for (int n = 0; n < a->N; n++)
        for (int g = 0; g < a->groups; g++) {
            wgk_conv2d_args s = *a;
            s.N = 1;
            s.C = cg;
            s.M = mg;
            s.groups = 1;
            s.x = a->x + ((size_t)n * a->C + (size_t)g * cg) * in;
            s.w = a->w + (size_t)g * wgroup;
            s.bias = a->bias ? a->bias + (size_t)g * mg : NULL;
            s.res = a->res ? a->res + ((size_t)n * a->M + (size_t)g * mg) * out : NULL;
            s.y = a->y + ((size_t)n * a->M + (size_t)g * mg) * out;
            kernel(&s);
        }
    return 1;
}
