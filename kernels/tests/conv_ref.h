/*
 * conv_ref.h: the naive 2-D convolution every conv kernel test compares against:
 * NCHW input a->x, weights Wt in ONNX layout [M][C/groups][KH][KW], groups, strides,
 * dilations, pads, bias, residual and min/max clamp, accumulated in double, then the
 * post-ops (HardSwish, affine) as wgk_post4 applies them. Writes Want.
 */
#ifndef WGKT_CONV_REF_H
#define WGKT_CONV_REF_H

#include "wgk.h"

/* The epilogue cases every conv kernel test runs (WGKT_EPI_CASES of them): 0 none, 1 bias,
 * 2 bias+res+relu, 3 res+clip, 4 bias+res then HardSwish and affine, 5 res+clip then
 * HardSwish (4, 5: for kernels that apply post-ops), 6 res alone (a ResNet block's last
 * conv). */
#define WGKT_EPI_CASES 7

static inline void wgkt_conv_epilogue(wgk_conv2d_args *a, int epi, const float *bias, const float *res)
{
    a->bias = epi == 1 || epi == 2 || epi == 4 ? bias : NULL;
    a->res = epi >= 2 ? res : NULL;
    a->min = epi == 2 ? 0.0f : epi == 3 || epi == 5 ? -0.25f : -INFINITY;
    a->max = epi == 3 || epi == 5 ? 0.5f : INFINITY;
    a->post = epi == 4 ? WGK_POST_HARDSWISH | WGK_POST_AFFINE : epi == 5 ? WGK_POST_HARDSWISH : 0;
    a->post_scale = 0.75f;
    a->post_shift = -0.125f;
}

/* a's input, epilogue case (wgkt_conv_epilogue), output and scratch. */
static inline void wgkt_conv_bind(wgk_conv2d_args *a, int epi, const float *x, const float *bias, const float *res,
                                  float *y, float *scratch)
{
    a->x = x;
    wgkt_conv_epilogue(a, epi, bias, res);
    a->y = y;
    a->scratch = scratch;
}

/* A conv layer as the tests list it: batch, channels, input size, output channels, kernel,
 * strides, dilations, pads (top, left, bottom, right) and groups. */
typedef struct wgkt_conv_shape {
    int N, C, H, W, M, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR, groups;
} wgkt_conv_shape;

/* The layers every GEMM-style conv kernel test runs (initializers of wgkt_conv_shape, in
 * the field order N C H W M KH KW SH SW DH DW PT PL PB PR groups): 1x1 with stride 1 and
 * no pad (direct packing), and general ones (kernel sizes, strides, dilation, uneven
 * pads, groups). */
#define WGKT_CONV_SHAPES_1X1 \
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, \
    {1, 3, 5, 7, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, \
    {2, 8, 4, 4, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, \
    {1, 6, 3, 11, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3}, \
    {1, 37, 9, 9, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}
#define WGKT_CONV_SHAPES_GENERAL \
    {1, 1, 5, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, \
    {1, 3, 11, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, \
    {2, 4, 8, 8, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, \
    {1, 3, 16, 16, 7, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1}, \
    {1, 5, 9, 10, 6, 3, 2, 1, 3, 2, 1, 0, 2, 1, 0, 1}, \
    {1, 4, 7, 7, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2}, \
    {1, 6, 6, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3}, \
    {1, 8, 9, 9, 4, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1}, \
    {1, 3, 4, 4, 2, 5, 5, 1, 1, 1, 1, 2, 1, 0, 2, 1}, \
    {1, 2, 1, 9, 3, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1}, \
    {1, 16, 14, 14, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, \
    {1, 3, 6, 6, 4, 2, 2, 3, 3, 1, 1, 0, 0, 1, 1, 1}

/* The arguments of layer s with its output size, no epilogue and no buffers yet. */
static inline wgk_conv2d_args wgkt_conv_args(const wgkt_conv_shape *s)
{
    wgk_conv2d_args a = {
        .N = s->N, .C = s->C, .H = s->H, .W = s->W, .M = s->M, .KH = s->KH, .KW = s->KW,
        .SH = s->SH, .SW = s->SW, .DH = s->DH, .DW = s->DW, .PT = s->PT, .PL = s->PL,
        .groups = s->groups, .min = -INFINITY, .max = INFINITY,
    };
    a.OH = (s->H + s->PT + s->PB - ((s->KH - 1) * s->DH + 1)) / s->SH + 1;
    a.OW = (s->W + s->PL + s->PR - ((s->KW - 1) * s->DW + 1)) / s->SW + 1;
    return a;
}

static inline void wgkt_conv2d_reference(const wgk_conv2d_args *a, const float *Wt, float *Want)
{
    const int cg = a->C / a->groups, mg = a->M / a->groups;
    for (int n = 0; n < a->N; n++)
        for (int m = 0; m < a->M; m++)
            for (int oh = 0; oh < a->OH; oh++)
                for (int ow = 0; ow < a->OW; ow++) {
                    double s = a->bias ? a->bias[m] : 0.0;
                    int g = m / mg;
                    for (int c = 0; c < cg; c++)
                        for (int kh = 0; kh < a->KH; kh++)
                            for (int kw = 0; kw < a->KW; kw++) {
                                int ih = oh * a->SH - a->PT + kh * a->DH;
                                int iw = ow * a->SW - a->PL + kw * a->DW;
                                if (ih < 0 || ih >= a->H || iw < 0 || iw >= a->W)
                                    continue;
                                s += (double)a->x[((n * a->C + g * cg + c) * a->H + ih) * a->W + iw] *
                                     Wt[((m * cg + c) * a->KH + kh) * a->KW + kw];
                            }
                    size_t o = (((size_t)n * a->M + m) * a->OH + oh) * a->OW + ow;
                    float v = (float)s + (a->res ? a->res[o] : 0.0f);
                    v = v < a->min ? a->min : v;
                    v = v > a->max ? a->max : v;
                    if (a->post & WGK_POST_HARDSWISH) {
                        float t = v / 6.0f + 0.5f;
                        v *= t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
                    }
                    if (a->post & WGK_POST_AFFINE)
                        v = v * a->post_scale + a->post_shift;
                    Want[o] = v;
                }
}

/* p[0..n) = pseudo-random values in [-1, 1) (wgkt_rand). */
static inline void wgkt_fill(float *p, int n, uint32_t *seed)
{
    for (int i = 0; i < n; i++)
        p[i] = wgkt_rand(seed);
}

/* A conv test's buffers before a check: pseudo-random input, weight, bias and residual;
 * NaN in the scratch (garbage there must not reach the result); 1000 in y and the 8
 * floats past it (a write past y shows). */
static inline void wgkt_conv_buffers(uint32_t *seed, float *x, int nx, float *w, int nw, float *bias, int nb,
                                     float *res, float *y, int ny, float *scratch, int nscratch)
{
    wgkt_fill(x, nx, seed);
    wgkt_fill(w, nw, seed);
    wgkt_fill(bias, nb, seed);
    wgkt_fill(res, ny, seed);
    for (int i = 0; i < nscratch; i++)
        scratch[i] = __builtin_nanf("");
    for (int i = 0; i < ny + 8; i++)
        y[i] = 1000.0f;
}

/* The conv tests' absolute tolerance: 1e-5, growing with the square root of the
 * reduction length K (with rtol 1e-4). */
static inline float wgkt_conv_atol(int K)
{
    float atol = 1e-5f;
    for (int k = 1; k * k < K; k++)
        atol = 1e-5f * (float)(k + 1);
    return atol;
}

/* Whether y[0..n) matches want (rtol 1e-4, atol); logs the first mismatch with the
 * conv's shape, the epilogue case and what (a kernel or variant name). */
static inline int wgkt_conv_matches(const float *y, const float *want, int n, float atol,
                                    const wgk_conv2d_args *a, int epi, const char *what)
{
    for (int i = 0; i < n; i++)
        if (!wgkt_close(y[i], want[i], 1e-4f, atol)) {
            WGKT_CHECK_CLOSE(y[i], want[i], 1e-4f, atol, what);
            const int v[] = {i, a->C, a->H, a->W, a->M, a->KH, a->KW, a->SH, a->groups, epi};
            static const char *const k[] = {"  at index ", " C=", " H=", " W=", " M=", " K=", "x",
                                            " stride=", " groups=", " epi="};
            for (int j = 0; j < 10; j++) {
                wgkt_log(k[j]);
                wgkt_log_int(v[j]);
            }
            wgkt_log("\n");
            return 0;
        }
    return 1;
}

/* The second output (wgk_conv2d_args.y2) of the kernels that write it (packed, Strassen,
 * few-pixel), by epilogue case: 1 in place (y2 == y), 2 its own buffer with a clamp to
 * [0, 3], 3 its own buffer unclamped, the others none; a pseudo-random affine, and 1000 in
 * y2 and the 8 floats past its n (a write past it shows). */
static inline void wgkt_conv_out2_setup(wgk_conv2d_args *a, int epi, float *y2, int n, float *affine,
                                        uint32_t *seed)
{
    a->y2 = epi == 1 ? a->y : epi == 2 || epi == 3 ? y2 : NULL;
    a->y2_affine = affine;
    a->y2_min = epi == 2 ? 0.0f : -INFINITY;
    a->y2_max = epi == 2 ? 3.0f : INFINITY;
    wgkt_fill(affine, 2 * a->M, seed);
    for (int i = 0; i < n + 8 && a->y2 == y2; i++)
        y2[i] = 1000.0f;
}

/* Whether y matches want (wgkt_conv_matches) and y2, when set, want's channel affine and
 * clamp (computed into want2); in place, y holds only the second. */
static inline int wgkt_conv_matches2(const wgk_conv2d_args *a, const float *want, float *want2, int n, float atol,
                                     int epi, const char *what)
{
    if (!a->y2)
        return wgkt_conv_matches(a->y, want, n, atol, a, epi, what);
    const int P = a->OH * a->OW;
    for (int i = 0; i < n; i++) {
        const int m = (i / P) % a->M;
        float v = want[i] * a->y2_affine[m] + a->y2_affine[a->M + m];
        v = v < a->y2_min ? a->y2_min : v;
        want2[i] = v > a->y2_max ? a->y2_max : v;
    }
    if (a->y2 == a->y)
        return wgkt_conv_matches(a->y, want2, n, atol, a, epi, what);
    return wgkt_conv_matches(a->y, want, n, atol, a, epi, what) &&
           wgkt_conv_matches(a->y2, want2, n, atol, a, epi, what) && a->y2[n] == 1000.0f;
}

/* The packed 4x8 kernels' check (wgk_f32_conv2d_packed, _strassen, _fewpix): the ONNX
 * weight wt (K per output channel) packed into wp by wgk_conv_pack_w, a second output by
 * epilogue case (wgkt_conv_out2_setup), conv run on a, and whether y (and y2) match the
 * naive convolution's want; y must keep its sentinel past ysize. */
static inline int wgkt_conv_packed_matches(void (*conv)(const wgk_conv2d_args *), wgk_conv2d_args *a,
                                           const float *wt, int K, float *wp, int epi, float *y2, int ysize,
                                           float *affine, uint32_t *seed, const float *want, float *want2,
                                           const char *what)
{
    wgk_conv_pack_w(wt, (size_t)a->M, (size_t)K, (size_t)a->groups, wp);
    a->w = wp;
    wgkt_conv_out2_setup(a, epi, y2, ysize, affine, seed);
    conv(a);
    return wgkt_conv_matches2(a, want, want2, ysize, wgkt_conv_atol(K), epi, what) && a->y[ysize] == 1000.0f;
}

/* Runs conv on the shares its split rule (wgk_split.h) gives n threads, one after
 * another, into a->y (filled with -1234.5 first) and says whether the result has want's
 * bits: what every thread count must give (each output element computed by one share, as
 * in the whole call). */
static inline int wgkt_conv_parts_match(void (*conv)(const wgk_conv2d_args *),
                                        int (*split)(wgk_conv2d_args *, wgk_part), const wgk_conv2d_args *a,
                                        const float *want, int ysize, int n)
{
    for (int i = 0; i < ysize; i++)
        a->y[i] = -1234.5f;
    for (int t = 0; t < n; t++) {
        wgk_conv2d_args share = *a;
        if (split(&share, (wgk_part){t, n}))
            conv(&share);
    }
    return wgkt_same_bits(a->y, want, ysize);
}

#endif
