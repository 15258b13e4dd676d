/*
 * f32-conv2d-winograd-prepare.c: the Winograd filter transforms U = G g G^T of F(2x2, 3x3),
 * F(4x4, 3x3), F(3x3, 4x4), F(2x2, 5x5) and 3x3 stride 2 (wgk_winograd.h), written straight into the packed layout the Winograd
 * kernels read. Modules run these once, on the first Winograd run of each conv, so that
 * the file carries the 9-float filters instead of the 16- or 36-float transformed ones.
 *
 * Packed layout (wgk_conv_pack_w per position): matrix xi starts at xi * wx
 * (wx = wgk_conv_pack_w_group(M, C)); in it, panel p = m / MR holds
 * dst[(p*C + c)*MR + r] = U_xi[p*MR + r][c]. The filters come packed the same way
 * (wgk_conv_pack_w, k = c*taps + tap: the layout the direct packed conv reads, so one
 * copy in the module serves both paths), so with MR = 4 each tap of the 4 filters of a
 * panel at one input channel is one v128: the SIMD path transforms 4 filters at once
 * (lane r = filter p*4 + r) into one v128 per position.
 */
#include "wgk_winograd.h"

#ifdef __wasm_simd128__

typedef v128_t vec;
#define ADD wasm_f32x4_add
#define SUB wasm_f32x4_sub
#define MUL(k, v) wasm_f32x4_mul(wasm_f32x4_splat(k), (v))

#else

typedef float vec;
#define ADD(p, q) ((p) + (q))
#define SUB(p, q) ((p) - (q))
#define MUL(k, v) ((k) * (v))

#endif

/* o[0..3 * os] = G x (x0, x1, x2) of F(2x2): G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]. */
static inline void g4(vec x0, vec x1, vec x2, vec *o, int os)
{
    const vec s = MUL(0.5f, ADD(x0, x2)), h = MUL(0.5f, x1);
    o[0] = x0;
    o[os] = ADD(s, h);
    o[2 * os] = SUB(s, h);
    o[3 * os] = x2;
}

/* o[0..5 * os] = G x (x0, x1, x2) of F(4x4): G = [1/4 0 0; -1/6 -1/6 -1/6;
 * -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]. */
static inline void g6(vec x0, vec x1, vec x2, vec *o, int os)
{
    /* 5 multiplies: a = (x0/4 + x2)/6, b = x1/12 = -h/2. */
    const vec q = MUL(0.25f, x0), s = MUL(-1.0f / 6, ADD(x0, x2)), h = MUL(-1.0f / 6, x1);
    const vec a = MUL(1.0f / 6, ADD(q, x2)), b = MUL(-0.5f, h);
    o[0] = q;
    o[os] = ADD(s, h);
    o[2 * os] = SUB(s, h);
    o[3 * os] = ADD(a, b);
    o[4 * os] = SUB(a, b);
    o[5 * os] = x2;
}

/* o[0..5 * os] = the rows of G that F(2x2, 5x5) and F(3x3, 4x4) share, from x0, the sums
 * e (even taps) and d (odd taps), e2 and d2 (the same with tap i weighted 2^i), and the
 * last tap. */
static inline void g6_rows(vec x0, vec e, vec d, vec e2, vec d2, vec last, vec *o, int os)
{
    o[0] = MUL(0.25f, x0);
    o[os] = MUL(-1.0f / 6, ADD(e, d));
    o[2 * os] = MUL(-1.0f / 6, SUB(e, d));
    o[3 * os] = MUL(1.0f / 24, ADD(e2, d2));
    o[4 * os] = MUL(1.0f / 24, SUB(e2, d2));
    o[5 * os] = last;
}

/* o[0..5 * os] = G x (x0 .. x4) of F(2x2, 5x5): G = [1/4 0 0 0 0; -1/6 (1 1 1 1 1);
 * -1/6 (1 -1 1 -1 1); 1/24 (1 2 4 8 16); 1/24 (1 -2 4 -8 16); 0 0 0 0 1]. */
static inline void g6_5(const vec *x, int xs, vec *o, int os)
{
    const vec x0 = x[0], x1 = x[xs], x2 = x[2 * xs], x3 = x[3 * xs], x4 = x[4 * xs];
    const vec e = ADD(ADD(x0, x2), x4), d = ADD(x1, x3);
    const vec e2 = ADD(ADD(x0, MUL(4.0f, x2)), MUL(16.0f, x4)), d2 = ADD(MUL(2.0f, x1), MUL(8.0f, x3));
    g6_rows(x0, e, d, e2, d2, x4, o, os);
}

/* o[0..5 * os] = G x (x0 .. x3) of F(3x3, 4x4): G = [1/4 0 0 0; -1/6 (1 1 1 1);
 * -1/6 (1 -1 1 -1); 1/24 (1 2 4 8); 1/24 (1 -2 4 -8); 0 0 0 1]. */
static inline void g6_4(const vec *x, int xs, vec *o, int os)
{
    const vec x0 = x[0], x1 = x[xs], x2 = x[2 * xs], x3 = x[3 * xs];
    const vec e = ADD(x0, x2), d = ADD(x1, x3);
    const vec e2 = ADD(x0, MUL(4.0f, x2)), d2 = ADD(MUL(2.0f, x1), MUL(8.0f, x3));
    g6_rows(x0, e, d, e2, d2, x3, o, os);
}

/* o[0..4 * os] = G x (x0, x1, x2) of the stride-2 transform: G = [0 1 0; 0 1 0; 1 0 0;
 * 1 0 1; 0 0 1]. */
static inline void g5(vec x0, vec x1, vec x2, vec *o, int os)
{
    o[0] = x1;
    o[os] = x1;
    o[2 * os] = x0;
    o[3 * os] = ADD(x0, x2);
    o[4 * os] = x2;
}

/* u (n x n row-major, element xi at u[xi * us]) = G g G^T of the r x r filter g
 * (row-major vecs): n = 4, r = 3 (F(2x2, 3x3)); n = 6, r = 3 (F(4x4, 3x3)); n = 6,
 * r = 4 (F(3x3, 4x4)); n = 6, r = 5 (F(2x2, 5x5)); n = 5, r = 3 (stride 2). */
static inline void transform(const vec *g, int n, int r, vec *u, int us)
{
    vec t[30]; /* G g: n x r, row-major */
    for (int j = 0; j < r; j++) {
        if (r == 5)
            g6_5(g + j, 5, t + j, 5);
        else if (r == 4)
            g6_4(g + j, 4, t + j, 4);
        else if (n == 5)
            g5(g[j], g[3 + j], g[6 + j], t + j, 3);
        else if (n == 4)
            g4(g[j], g[3 + j], g[6 + j], t + j, 3);
        else
            g6(g[j], g[3 + j], g[6 + j], t + j, 3);
    }
    for (int i = 0; i < n; i++) { /* row i of (G g) G^T */
        if (r == 5)
            g6_5(t + 5 * i, 1, u + 6 * i * us, us);
        else if (r == 4)
            g6_4(t + 4 * i, 1, u + 6 * i * us, us);
        else if (n == 5)
            g5(t[3 * i], t[3 * i + 1], t[3 * i + 2], u + 5 * i * us, us);
        else if (n == 4)
            g4(t[3 * i], t[3 * i + 1], t[3 * i + 2], u + 4 * i * us, us);
        else
            g6(t[3 * i], t[3 * i + 1], t[3 * i + 2], u + 6 * i * us, us);
    }
}

/* Input channels per block: the SIMD path transforms CB channels of one panel into a
 * local buffer, then writes each position's CB vectors (CB * 16 bytes, whole cache lines)
 * in one go. Storing each filter's 36 vectors straight away instead touches 36 lines
 * whose addresses differ by a multiple of 4 KiB, all in the same L1 set, and each line
 * is evicted before its 4 stores are done: much slower (ResNet-50 v2's filters on
 * wasmtime). */
#define CB 16

/* The n*n transformed, packed matrices of the packed filters w (wgk_conv_pack_w layout
 * of one group, Kg = C * r * r) into dst. Inlined into the callers so that n and r are
 * constants and the transforms unroll. */
static inline __attribute__((always_inline)) void prepare(const float *w, int M, int C, int n, int r,
                                                          float *dst)
{
    const size_t wx = wgk_conv_pack_w_group((size_t)M, (size_t)C);
    const int npos = n * n, taps = r * r;
    for (int p = 0; p * WGK_CONV_MR < M; p++) {
        /* Panel p of the filters: [c][tap][MR], rows past M already zero. */
        const float *src = w + (size_t)p * C * taps * WGK_CONV_MR;
        float *d = dst + (size_t)p * C * WGK_CONV_MR;
#ifdef __wasm_simd128__
        for (int c0 = 0; c0 < C; c0 += CB) {
            const int nc = C - c0 < CB ? C - c0 : CB;
            vec buf[36][CB];
            for (int k = 0; k < nc; k++) {
                const float *s = src + (size_t)(c0 + k) * taps * WGK_CONV_MR;
                vec g[25];
                for (int t = 0; t < taps; t++)
                    g[t] = wasm_v128_load(s + t * WGK_CONV_MR);
                transform(g, n, r, &buf[0][k], CB);
            }
            for (int xi = 0; xi < npos; xi++) {
                float *o = d + xi * wx + (size_t)c0 * WGK_CONV_MR;
                for (int k = 0; k < nc; k++)
                    wasm_v128_store(o + k * WGK_CONV_MR, buf[xi][k]);
            }
        }
#else
        for (int c = 0; c < C; c++, d += WGK_CONV_MR)
            for (int k = 0; k < WGK_CONV_MR; k++) {
                const float *s = src + (size_t)c * taps * WGK_CONV_MR + k;
                vec g[25], u[36];
                for (int t = 0; t < taps; t++)
                    g[t] = s[t * WGK_CONV_MR];
                transform(g, n, r, u, 1);
                for (int xi = 0; xi < npos; xi++)
                    d[xi * wx + k] = u[xi];
            }
#endif
    }
}

void wgk_winograd_f2x3_prepare_w(const float *w, int M, int C, float *dst)
{
    prepare(w, M, C, 4, 3, dst);
}

void wgk_winograd_f4x3_prepare_w(const float *w, int M, int C, float *dst)
{
    prepare(w, M, C, 6, 3, dst);
}

void wgk_winograd_f3x4_prepare_w(const float *w, int M, int C, float *dst)
{
    prepare(w, M, C, 6, 4, dst);
}

void wgk_winograd_f2x5_prepare_w(const float *w, int M, int C, float *dst)
{
    prepare(w, M, C, 6, 5, dst);
}

void wgk_winograd_f2x3s2_prepare_w(const float *w, int M, int C, float *dst)
{
    prepare(w, M, C, 5, 3, dst);
}
