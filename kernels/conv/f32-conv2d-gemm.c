/* f32-conv2d-gemm.c: convolutions lowered to GEMM: direct 1x1 and im2col + GEMM. */
#include "wgk_conv.h"

/* Y[m, hw] = W_g[m, k] x B[k, hw] + epilogue, for group g of the image at out_off. */
static void run_gemm(const wgk_conv2d_args *a, int g_index, const float *b, int K, int ldb,
                     size_t out_off)
{
    const int mg = a->M / a->groups, hw = a->OH * a->OW;
    const int rm = a->w_rowmajor;
    const float *wg = rm ? a->w + (size_t)g_index * mg * K
                         : a->w + (size_t)g_index * wgk_pack_a_size((size_t)mg, (size_t)K);
    wgk_gemm_args g = {
        .M = mg, .N = hw, .K = K,
        .a = wg, .a_panel = K * WGK_GEMM_MR, .a_k = rm ? 1 : WGK_GEMM_MR, .a_m = rm ? K : 1,
        .b = b, .ldb = ldb,
        .c = a->y + out_off, .ldc = hw,
        .bias = a->bias ? a->bias + (out_off / (size_t)hw) % (size_t)a->M : NULL,
        .bias_m = 1, .bias_n = 0,
        .res = a->res ? a->res + out_off : NULL, .ldr = hw,
        .alpha = 1.0f, .beta = 1.0f, .min = a->min, .max = a->max,
    };
    a->gemm(&g);
}

void wgk_f32_conv2d_1x1(const wgk_conv2d_args *a)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups, hw = a->H * a->W;
    for (int n = 0; n < a->N; n++)
        for (int g = 0; g < a->groups; g++) {
            const float *x = a->x + ((size_t)n * a->C + (size_t)g * cg) * hw;
            run_gemm(a, g, x, cg, hw, ((size_t)n * a->M + (size_t)g * mg) * hw);
        }
}

/* cols[(c*KH + kh)*KW + kw][oh*OW + ow] = x[c][oh*SH - PT + kh*DH][ow*SW - PL + kw*DW], 0 outside. */
static void im2col(const wgk_conv2d_args *a, const float *x, int cg, float *cols)
{
    const int OH = a->OH, OW = a->OW;
    for (int c = 0; c < cg; c++)
        for (int kh = 0; kh < a->KH; kh++)
            for (int kw = 0; kw < a->KW; kw++) {
                float *row = cols + (((size_t)c * a->KH + kh) * a->KW + kw) * OH * OW;
                const int offw = kw * a->DW - a->PL;
                int lo, hi;
                wgk_valid_range(OW, a->SW, offw, a->W, &lo, &hi);
                for (int oh = 0; oh < OH; oh++) {
                    float *out = row + (size_t)oh * OW;
                    const int ih = oh * a->SH - a->PT + kh * a->DH;
                    if (ih < 0 || ih >= a->H) {
                        for (int ow = 0; ow < OW; ow++)
                            out[ow] = 0.0f;
                        continue;
                    }
                    const float *in = x + ((size_t)c * a->H + ih) * a->W + offw;
                    for (int ow = 0; ow < lo; ow++)
                        out[ow] = 0.0f;
                    if (a->SW == 1)
                        for (int ow = lo; ow < hi; ow++)
                            out[ow] = in[ow];
                    else
                        for (int ow = lo; ow < hi; ow++)
                            out[ow] = in[ow * a->SW];
                    for (int ow = hi; ow < OW; ow++)
                        out[ow] = 0.0f;
                }
            }
}

void wgk_f32_conv2d_im2col(const wgk_conv2d_args *a)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups, hw = a->OH * a->OW;
    const int K = cg * a->KH * a->KW;
    for (int n = 0; n < a->N; n++)
        for (int g = 0; g < a->groups; g++) {
            const float *x = a->x + ((size_t)n * a->C + (size_t)g * cg) * a->H * a->W;
            im2col(a, x, cg, a->scratch);
            run_gemm(a, g, a->scratch, K, hw, ((size_t)n * a->M + (size_t)g * mg) * hw);
        }
}
