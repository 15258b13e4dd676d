/*
 * f32-conv2d-winograd-f4x3-f2x5-f3x4.c: the Winograd convolutions on 6x6 input tiles
 * (wgk_winograd.h), which share the points 0, +-1, +-2, infinity and so the input
 * transform B^T d B: F(4x4, 3x3) for 3x3, F(3x3, 4x4) for 4x4 and F(2x2, 5x5) for 5x5
 * stride-1 convs (an m x m output tile every m input pixels; m = 4, 3 or 2). Per image and block of output
 * tiles: input transform of 6x6 tiles into 36 packed B matrices, 36 GEMMs on the packed
 * micro-kernel, output transform (A^T, m x 6) with the fused epilogue. SIMD builds
 * transform 4 tiles at once (lane k = tile k of a group of 4 packed columns), any tile
 * positions: every tile is read in place from a zero-padded copy of the rows its block
 * of tiles covers (one per channel and block), so edge tiles need no bounds tests.
 */
#include "wgk_winograd.h"

/* Output m x m tile o (+ bias, residual, clamp) at (oh0, ow0), clipped to OH x OW. Only
 * edge tiles come here: one copy instead of one inlined per output function (wasmtime
 * compiles the module's code at every load, so less code loads faster). */
static __attribute__((noinline)) void put_tile(const float *o, int m, float *y, const float *res, int OH,
                                               int OW, int oh0, int ow0, float b, float lo, float hi)
{
    for (int i = 0; i < m && oh0 + i < OH; i++)
        for (int j = 0; j < m && ow0 + j < OW; j++) {
            const size_t p = (size_t)(oh0 + i) * OW + ow0 + j;
            float v = o[m * i + j] + b;
            if (res)
                v += res[p];
            v = v < lo ? lo : v;
            y[p] = v > hi ? hi : v;
        }
}

#ifdef __wasm_simd128__

typedef v128_t vec;
#define ADD wasm_f32x4_add
#define SUB wasm_f32x4_sub
#define MUL(c, v) wasm_f32x4_mul(wasm_f32x4_splat(c), (v))

#else

typedef float vec;
#define ADD(p, q) ((p) + (q))
#define SUB(p, q) ((p) - (q))
#define MUL(c, v) ((c) * (v))

#endif

/* r = B^T d for 6 values (d[k*ds], r[k*rs]). */
static inline void bt6(const vec *d, int ds, vec *r, int rs)
{
    const vec d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds];
    const vec p = SUB(d4, d2), q = SUB(d3, d1);
    r[0] = ADD(d4, SUB(MUL(4.0f, d0), MUL(5.0f, d2)));
    r[rs] = SUB(ADD(d3, d4), MUL(4.0f, ADD(d1, d2)));
    r[2 * rs] = ADD(SUB(d4, d3), MUL(4.0f, SUB(d1, d2)));
    r[3 * rs] = ADD(p, MUL(2.0f, q));
    r[4 * rs] = SUB(p, MUL(2.0f, q));
    r[5 * rs] = ADD(d5, SUB(MUL(4.0f, d1), MUL(5.0f, d3)));
}

/* r = A^T s for 6 values -> 4 (F(4x4, 3x3)). */
static inline void at6(const vec *s, int ss, vec *r, int rs)
{
    const vec a = ADD(s[ss], s[2 * ss]), b = SUB(s[ss], s[2 * ss]);
    const vec c = ADD(s[3 * ss], s[4 * ss]), e = SUB(s[3 * ss], s[4 * ss]);
    r[0] = ADD(ADD(s[0], a), c);
    r[rs] = ADD(b, MUL(2.0f, e));
    r[2 * rs] = ADD(a, MUL(4.0f, c));
    r[3 * rs] = ADD(ADD(b, MUL(8.0f, e)), s[5 * ss]);
}

/* r = A^T s for 6 values -> 3 (F(3x3, 4x4)): A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0;
 * 0 1 1 4 4 1]. */
static inline void at6_3(const vec *s, int ss, vec *r, int rs)
{
    const vec a = ADD(s[ss], s[2 * ss]), c = ADD(s[3 * ss], s[4 * ss]);
    r[0] = ADD(ADD(s[0], a), c);
    r[rs] = ADD(SUB(s[ss], s[2 * ss]), MUL(2.0f, SUB(s[3 * ss], s[4 * ss])));
    r[2 * rs] = ADD(ADD(a, MUL(4.0f, c)), s[5 * ss]);
}

static inline void at6_2(const vec *s, int ss, vec *r, int rs);

/* r = A^T s for 6 values -> m (m = 4, 3 or 2, a constant after inlining). */
static inline void at6_m(const vec *s, int ss, vec *r, int rs, const int m)
{
    if (m == 4)
        at6(s, ss, r, rs);
    else if (m == 3)
        at6_3(s, ss, r, rs);
    else
        at6_2(s, ss, r, rs);
}

/* r = A^T s for 6 values -> 2 (F(2x2, 5x5)): A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 1]. */
static inline void at6_2(const vec *s, int ss, vec *r, int rs)
{
    r[0] = ADD(ADD(s[0], ADD(s[ss], s[2 * ss])), ADD(s[3 * ss], s[4 * ss]));
    r[rs] = ADD(ADD(SUB(s[ss], s[2 * ss]), MUL(2.0f, SUB(s[3 * ss], s[4 * ss]))), s[5 * ss]);
}

#ifdef __wasm_simd128__

/* Input transform of 4 tiles (tile k in lane k), tiles t0..t0+3 (only n of them real,
 * the rest zeros), read from the block's padded rows xp (row stride wp; tile t at row
 * m*(t/TW - th0), column m*(t%TW)), stored at dst[xi * vx] (4 adjacent packed columns). */
static void input4(const float *xp, int wp, int th0, int TW, int m, int t0, int n, float *dst, size_t vx)
{
    static const float zeros[36];
    const float *p[4];
    int s[4];
    for (int k = 0; k < 4; k++) {
        if (k >= n) {
            p[k] = zeros;
            s[k] = 0;
            continue;
        }
        const int t = t0 + k, th = t / TW, tw = t - th * TW;
        p[k] = xp + (size_t)(m * (th - th0)) * wp + m * tw;
        s[k] = wp;
    }
    /* Row i of the 4 tiles, transposed (lane k = tile k) and transformed at once (d B),
     * so only the 36 row results go through memory; then each column's B^T goes
     * straight to dst. (A d[36] -> t[36] -> v[36] chain kept three arrays on the wasm
     * stack: twice the loads and stores.) */
    vec t[36];
    for (int i = 0; i < 6; i++) {
        const float *r0 = p[0] + (size_t)i * s[0], *r1 = p[1] + (size_t)i * s[1];
        const float *r2 = p[2] + (size_t)i * s[2], *r3 = p[3] + (size_t)i * s[3];
        const vec q0 = wasm_v128_load(r0), q1 = wasm_v128_load(r1), q2 = wasm_v128_load(r2),
                  q3 = wasm_v128_load(r3);
        const vec h0 = wasm_v128_load64_zero(r0 + 4), h1 = wasm_v128_load64_zero(r1 + 4);
        const vec h2 = wasm_v128_load64_zero(r2 + 4), h3 = wasm_v128_load64_zero(r3 + 4);
        const vec a0 = wasm_i32x4_shuffle(q0, q1, 0, 4, 1, 5), a1 = wasm_i32x4_shuffle(q2, q3, 0, 4, 1, 5);
        const vec a2 = wasm_i32x4_shuffle(q0, q1, 2, 6, 3, 7), a3 = wasm_i32x4_shuffle(q2, q3, 2, 6, 3, 7);
        const vec u0 = wasm_i32x4_shuffle(h0, h1, 0, 4, 1, 5), u1 = wasm_i32x4_shuffle(h2, h3, 0, 4, 1, 5);
        const vec di[6] = {wasm_i32x4_shuffle(a0, a1, 0, 1, 4, 5), wasm_i32x4_shuffle(a0, a1, 2, 3, 6, 7),
                           wasm_i32x4_shuffle(a2, a3, 0, 1, 4, 5), wasm_i32x4_shuffle(a2, a3, 2, 3, 6, 7),
                           wasm_i32x4_shuffle(u0, u1, 0, 1, 4, 5), wasm_i32x4_shuffle(u0, u1, 2, 3, 6, 7)};
        bt6(di, 1, t + 6 * i, 1);
    }
    for (int j = 0; j < 6; j++) {
        vec v[6];
        bt6(t + j, 6, v, 1);
        for (int i = 0; i < 6; i++)
            wasm_v128_store(dst + (size_t)(6 * i + j) * vx, v[i]);
    }
}

/* o = A^T s A with s read from the GEMM output (s[xi] at mm + xi*mx): each row is
 * loaded and transformed at once, so no 36-vector copy of s passes through the wasm
 * stack. */
static inline void out_transform_mm(const float *mm, size_t mx, vec *o, const int m)
{
    vec r[24];
    for (int i = 0; i < 6; i++) {
        vec si[6];
        for (int j = 0; j < 6; j++)
            si[j] = wasm_v128_load(mm + (size_t)(6 * i + j) * mx);
        at6_m(si, 1, r + m * i, 1, m);
    }
    for (int j = 0; j < m; j++)
        at6_m(r + j, m, o + j, m, m);
}

/* y[q..q+3] = clamp(v + bias (+ res[q..q+3])): 4 outputs of a row. */
static inline void put4(vec v, float *y, const float *res, size_t q, vec bv, vec lv, vec hv)
{
    v = wasm_f32x4_add(v, bv);
    if (res)
        v = wasm_f32x4_add(v, wasm_v128_load(res + q));
    wasm_v128_store(y + q, wasm_f32x4_pmin(wasm_f32x4_pmax(v, lv), hv));
}

/* Output transform + epilogue of the n (1..4) tiles t0.. whose M values are the 4
 * adjacent columns mm[xi * mx + 0..3]. */
static void output4(const float *mm, size_t mx, float *y, const float *res, int OH, int OW, int TW,
                    int t0, int n, float b, float lo, float hi)
{
    vec o[16];
    out_transform_mm(mm, mx, o, 4);
    const vec bv = wasm_f32x4_splat(b), lv = wasm_f32x4_splat(lo), hv = wasm_f32x4_splat(hi);
    vec rows[4][4]; /* rows[k][i]: row i of tile k */
    for (int i = 0; i < 4; i++) {
        const vec *oi = o + 4 * i;
        const vec a0 = wasm_i32x4_shuffle(oi[0], oi[1], 0, 4, 1, 5), a1 = wasm_i32x4_shuffle(oi[2], oi[3], 0, 4, 1, 5);
        const vec a2 = wasm_i32x4_shuffle(oi[0], oi[1], 2, 6, 3, 7), a3 = wasm_i32x4_shuffle(oi[2], oi[3], 2, 6, 3, 7);
        rows[0][i] = wasm_i32x4_shuffle(a0, a1, 0, 1, 4, 5);
        rows[1][i] = wasm_i32x4_shuffle(a0, a1, 2, 3, 6, 7);
        rows[2][i] = wasm_i32x4_shuffle(a2, a3, 0, 1, 4, 5);
        rows[3][i] = wasm_i32x4_shuffle(a2, a3, 2, 3, 6, 7);
    }
    for (int k = 0; k < n; k++) {
        const int t = t0 + k, th = t / TW, tw = t - th * TW;
        const int oh0 = 4 * th, ow0 = 4 * tw;
        if (oh0 + 4 <= OH && ow0 + 4 <= OW) {
            for (int i = 0; i < 4; i++)
                put4(rows[k][i], y, res, (size_t)(oh0 + i) * OW + ow0, bv, lv, hv);
        } else {
            float tmp[16];
            for (int i = 0; i < 4; i++)
                wasm_v128_store(tmp + 4 * i, rows[k][i]);
            put_tile(tmp, 4, y, res, OH, OW, oh0, ow0, b, lo, hi);
        }
    }
}

/* The n tiles t0.. of an m x m output transform, tile k in lane k of o[xi], one by one
 * through put_tile (tiles off the 4-tile fast paths). */
static void put_tiles(const vec *o, int m, float *y, const float *res, int OH, int OW, int TW, int t0, int n,
                      float b, float lo, float hi)
{
    float lanes[9][4]; /* lanes[xi][k]: output xi (m*i + j) of tile k */
    for (int xi = 0; xi < m * m; xi++)
        wasm_v128_store(lanes[xi], o[xi]);
    for (int k = 0; k < n; k++) {
        const int t = t0 + k, h = t / TW, w = t - h * TW;
        float tile[9];
        for (int xi = 0; xi < m * m; xi++)
            tile[xi] = lanes[xi][k];
        put_tile(tile, m, y, res, OH, OW, m * h, m * w, b, lo, hi);
    }
}

/* The same for F(2x2, 5x5): 2x2 tiles. Four tiles side by side in one row of tiles are
 * 8 adjacent outputs in each of 2 rows (one interleave of o[2i], o[2i+1] per row). */
static void output4_2(const float *mm, size_t mx, float *y, const float *res, int OH, int OW,
                      int TW, int t0, int n, float b, float lo, float hi)
{
    vec o[4];
    out_transform_mm(mm, mx, o, 2);
    const int th = t0 / TW, tw = t0 - th * TW;
    const int oh0 = 2 * th, ow0 = 2 * tw;
    if (n == 4 && tw + 4 <= TW && oh0 + 2 <= OH && ow0 + 8 <= OW) {
        const vec bv = wasm_f32x4_splat(b), lv = wasm_f32x4_splat(lo), hv = wasm_f32x4_splat(hi);
        for (int i = 0; i < 2; i++) {
            const size_t q = (size_t)(oh0 + i) * OW + ow0;
            put4(wasm_i32x4_shuffle(o[2 * i], o[2 * i + 1], 0, 4, 1, 5), y, res, q, bv, lv, hv);
            put4(wasm_i32x4_shuffle(o[2 * i], o[2 * i + 1], 2, 6, 3, 7), y, res, q + 4, bv, lv, hv);
        }
        return;
    }
    put_tiles(o, 2, y, res, OH, OW, TW, t0, n, b, lo, hi);
}

/* The same for F(3x3, 4x4): 3x3 tiles. Four tiles side by side in one row of tiles are
 * 12 adjacent outputs in each of 3 rows, put together from the 4 tiles' lanes by two
 * shuffles per vector. */
static void output4_3(const float *mm, size_t mx, float *y, const float *res, int OH, int OW,
                      int TW, int t0, int n, float b, float lo, float hi)
{
    vec o[9];
    out_transform_mm(mm, mx, o, 3);
    const int th = t0 / TW, tw = t0 - th * TW;
    const int oh0 = 3 * th, ow0 = 3 * tw;
    if (n == 4 && tw + 4 <= TW && oh0 + 3 <= OH && ow0 + 12 <= OW) {
        const vec bv = wasm_f32x4_splat(b), lv = wasm_f32x4_splat(lo), hv = wasm_f32x4_splat(hi);
        for (int i = 0; i < 3; i++) {
            /* vj: column j of row i, lane k = tile k; the row is v0[0] v1[0] v2[0] v0[1] ... */
            const vec v0 = o[3 * i], v1 = o[3 * i + 1], v2 = o[3 * i + 2];
            const vec t01 = wasm_i32x4_shuffle(v0, v1, 0, 4, 1, 5), t12 = wasm_i32x4_shuffle(v1, v2, 1, 5, 2, 6);
            const vec t3 = wasm_i32x4_shuffle(v0, v1, 3, 7, 3, 7);
            const size_t p = (size_t)(oh0 + i) * OW + ow0;
            put4(wasm_i32x4_shuffle(t01, v2, 0, 1, 4, 2), y, res, p, bv, lv, hv);
            put4(wasm_i32x4_shuffle(t12, v0, 0, 1, 6, 2), y, res, p + 4, bv, lv, hv);
            put4(wasm_i32x4_shuffle(t3, v2, 6, 0, 1, 7), y, res, p + 8, bv, lv, hv);
        }
        return;
    }
    put_tiles(o, 3, y, res, OH, OW, TW, t0, n, b, lo, hi);
}

#define GROUP 4

#else

/* V = B^T d B of 6x6 d (row-major) into dst[xi * vx], xi = 6*i + j. */
static inline void in_transform(const vec *d, float *dst, size_t vx)
{
    vec t[36], v[36];
    for (int i = 0; i < 6; i++)
        bt6(d + 6 * i, 1, t + 6 * i, 1); /* rows: d B */
    for (int j = 0; j < 6; j++)
        bt6(t + j, 6, v + j, 6); /* columns: B^T (d B) */
#ifdef __wasm_simd128__
    for (int xi = 0; xi < 36; xi++)
        wasm_v128_store(dst + xi * vx, v[xi]);
#else
    for (int xi = 0; xi < 36; xi++)
        dst[xi * vx] = v[xi];
#endif
}

static void input4(const float *xp, int wp, int th0, int TW, int m, int t0, int n, float *dst, size_t vx)
{
    float d[36];
    const int th = t0 / TW, tw = t0 - th * TW;
    const float *p = xp + (size_t)(m * (th - th0)) * wp + m * tw;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            d[6 * i + j] = n < 1 ? 0.0f : p[(size_t)i * wp + j];
    in_transform(d, dst, vx);
}

/* o = A^T s A, 6x6 -> m x m (row-major), m = 4, 3 or 2 (a constant after inlining). */
static inline void out_transform(const vec *s, vec *o, const int m)
{
    vec r[24];
    for (int i = 0; i < 6; i++) /* rows: s A -> 6 x m */
        at6_m(s + 6 * i, 1, r + m * i, 1, m);
    for (int j = 0; j < m; j++)
        at6_m(r + j, m, o + j, m, m);
}

/* One tile (GROUP 1), m x m outputs. */
static inline void output1(const float *mm, size_t mx, float *y, const float *res, int OH, int OW,
                           int TW, int t0, float b, float lo, float hi, const int m)
{
    float s[36], o[16];
    for (int xi = 0; xi < 36; xi++)
        s[xi] = mm[xi * mx];
    out_transform(s, o, m);
    const int th = t0 / TW, tw = t0 - th * TW;
    put_tile(o, m, y, res, OH, OW, m * th, m * tw, b, lo, hi);
}

static void output4(const float *mm, size_t mx, float *y, const float *res, int OH, int OW, int TW,
                    int t0, int n, float b, float lo, float hi)
{
    (void)n;
    output1(mm, mx, y, res, OH, OW, TW, t0, b, lo, hi, 4);
}

static void output4_2(const float *mm, size_t mx, float *y, const float *res, int OH, int OW,
                      int TW, int t0, int n, float b, float lo, float hi)
{
    (void)n;
    output1(mm, mx, y, res, OH, OW, TW, t0, b, lo, hi, 2);
}

static void output4_3(const float *mm, size_t mx, float *y, const float *res, int OH, int OW,
                      int TW, int t0, int n, float b, float lo, float hi)
{
    (void)n;
    output1(mm, mx, y, res, OH, OW, TW, t0, b, lo, hi, 3);
}

#define GROUP 1

#endif

/* One group (wgk_winograd_per_group splits grouped convs), output tiles of m x m. */
static inline __attribute__((always_inline)) void winograd_tile6(const wgk_conv2d_args *a, const int m)
{
    const int C = a->C, M = a->M, H = a->H, W = a->W, OH = a->OH, OW = a->OW;
    const int TW = (OW + m - 1) / m, T = ((OH + m - 1) / m) * TW;
    const int nt = wgk_winograd_f4x3_block_tiles(C, M, T);
    const size_t vx = (size_t)C * nt + WGK_WINOGRAD_SKEW, mx = (size_t)M * nt + WGK_WINOGRAD_SKEW;
    const size_t wx = wgk_conv_pack_w_group((size_t)M, (size_t)C);
    float *V = a->scratch;   /* [36][C][nt]: row c = channel c's tiles (wgk_winograd_gemm) */
    float *Mo = V + 36 * vx; /* [36][M][nt] */
    float *As = Mo + 36 * mx; /* [C][16]: broadcast weight panel (or [4][C][16]: tiles) */
    float *xp = As + (size_t)64 * C; /* one plane's padded rows for the block */
    const int wp = wgk_winograd_tile6_pad_width(OW, m);
    int t_lo, t_hi, m_lo, m_hi; /* the share (wgk_split_winograd): tiles, or output channels */
    if (!wgk_share_ranges(a->share, M, T, &m_lo, &m_hi, &t_lo, &t_hi))
        return;
    for (int n = 0; n < a->N; n++) {
        const float *x = a->x + (size_t)n * C * H * W;
        const size_t yo = (size_t)n * M * OH * OW;
        for (int t0 = t_lo; t0 < t_hi; t0 += nt) {
            const int cnt = t_hi - t0 < nt ? t_hi - t0 : nt;
            const int panels = (cnt + WGK_CONV_NR - 1) / WGK_CONV_NR;
            /* The block's tiles read tile rows th0..th1: input rows m*th0 - PT on. Per
             * channel those rows are copied once, zero-padded, and every tile is read in
             * place (edge tiles were copied one by one: 12 of the 16 tiles of a 13x13
             * image). */
            const int th0 = t0 / TW, th1 = (t0 + cnt - 1) / TW, rows = m * (th1 - th0) + 6;
            for (int c = 0; c < C; c++) {
                wgk_pad_planes(x + (size_t)c * H * W, 1, H, W, a->PT - m * th0, a->PL, rows, wp, xp);
                for (int tl = 0; tl < panels * WGK_CONV_NR; tl += GROUP)
                    input4(xp, wp, th0, TW, m, t0 + tl, cnt - tl, V + (size_t)c * nt + tl, vx);
            }
            /* Columns up to a multiple of 4: a last half panel costs half (the output
             * transforms read 4 adjacent columns). */
            const int ncols = (cnt + 3) / 4 * 4;
            wgk_winograd_gemm_rows(a->w, wx, 36, M, m_lo, m_hi, C, V, vx, Mo, mx, nt, ncols, As);
            for (int o = m_lo; o < m_hi; o++) {
                const float *mm = Mo + (size_t)o * nt;
                const float b = a->bias ? a->bias[o] : 0.0f;
                const size_t ym = yo + (size_t)o * OH * OW;
                for (int tl = 0; tl < cnt; tl += GROUP) {
                    const int k = cnt - tl < GROUP ? cnt - tl : GROUP;
                    if (m == 4)
                        output4(mm + tl, mx, a->y + ym, a->res ? a->res + ym : NULL, OH, OW, TW, t0 + tl,
                                k, b, a->min, a->max);
                    else if (m == 3)
                        output4_3(mm + tl, mx, a->y + ym, a->res ? a->res + ym : NULL, OH, OW, TW,
                                  t0 + tl, k, b, a->min, a->max);
                    else
                        output4_2(mm + tl, mx, a->y + ym, a->res ? a->res + ym : NULL, OH, OW, TW,
                                  t0 + tl, k, b, a->min, a->max);
                }
            }
        }
    }
}

void wgk_f32_conv2d_winograd_f4x3(const wgk_conv2d_args *a)
{
    if (!wgk_winograd_per_group(a, wgk_f32_conv2d_winograd_f4x3,
                            wgk_winograd_f4x3_pack_w_size((size_t)(a->M / a->groups), (size_t)(a->C / a->groups))))
        winograd_tile6(a, 4);
}

void wgk_f32_conv2d_winograd_f3x4(const wgk_conv2d_args *a)
{
    if (!wgk_winograd_per_group(a, wgk_f32_conv2d_winograd_f3x4,
                            wgk_winograd_f4x3_pack_w_size((size_t)(a->M / a->groups), (size_t)(a->C / a->groups))))
        winograd_tile6(a, 3);
}

void wgk_f32_conv2d_winograd_f2x5(const wgk_conv2d_args *a)
{
    if (!wgk_winograd_per_group(a, wgk_f32_conv2d_winograd_f2x5,
                            wgk_winograd_f4x3_pack_w_size((size_t)(a->M / a->groups), (size_t)(a->C / a->groups))))
        winograd_tile6(a, 2);
}
