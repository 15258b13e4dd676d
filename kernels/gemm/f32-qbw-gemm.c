/*
 * f32-qbw-gemm.c: the product of float32 rows with weights quantized block-wise to 4 or 8
 * bits (contract, layout and paths in wgk_qweight.h): MatMulNBits. The weights are read as
 * the model stores them and widened in registers, never stored wider in the module; what
 * is laid out in work is the rows of A (in the order the lanes hold the weights, or
 * quantized), or for many rows a block of the weights dequantized (the panel path).
 */
#include "wgk_conv_packed.h"
#include "wgk_qweight.h"

typedef struct geom {
    int nblk, blob, colbytes, zstride;
    int Kp; /* nblk * blk */
} geom;

static geom geom_of(const wgk_qbw_args *g)
{
    geom q;
    q.nblk = wgk_qbw_nblk(g->K, g->blk);
    q.blob = wgk_qbw_blob(g->bits, g->blk);
    q.colbytes = q.nblk * q.blob;
    q.zstride = wgk_qbw_zstride(g->bits, q.nblk);
    q.Kp = q.nblk * g->blk;
    return q;
}

/* The integer zero point of block j of column n: the packed one, 0 beside float zero
 * points (subtracted as floats), else the format's middle. */
static inline int zp_int(const wgk_qbw_args *g, const geom *q, int n, int j)
{
    if (!g->zp)
        return g->zpf ? 0 : 1 << (g->bits - 1);
    const uint8_t *z = g->zp + (ptrdiff_t)n * q->zstride;
    if (g->bits == 8)
        return z[j];
    return j & 1 ? z[j >> 1] >> 4 : z[j >> 1] & 15;
}

static inline float zp_float(const wgk_qbw_args *g, const geom *q, int n, int j)
{
    return g->zpf ? g->zpf[(ptrdiff_t)n * q->nblk + j] : 0.0f;
}

static inline float scale_of(const wgk_qbw_args *g, const geom *q, int n, int j)
{
    return g->scales[(ptrdiff_t)n * q->nblk + j];
}

/* Row a (K floats) quantized per block as MLAS's CompInt8 does (wgk_qweight.h): qa[Kp]
 * (padding 0), sa[nblk]. Scalar and SIMD give the same bits: max by comparisons that
 * skip NaN (pmax), a * (127 / amax) rounded half to even (f32.nearest), a saturating
 * conversion (NaN to 0, as i32x4.trunc_sat does). */
static void quant_row(const float *a, int K, int blk, const geom *q, int16_t *qa, float *sa)
{
    for (int j = 0; j < q->nblk; j++) {
        const int k0 = j * blk, len = K - k0 < blk ? K - k0 : blk;
        const float *x = a + k0;
        float amax = 0.0f;
        int i = 0;
#ifdef __wasm_simd128__
        if (len == blk) {
            v128_t m = wasm_f32x4_splat(0.0f);
            for (; i + 4 <= len; i += 4)
                m = wasm_f32x4_pmax(m, wasm_f32x4_abs(wasm_v128_load(x + i)));
            float t[4];
            wasm_v128_store(t, m);
            for (int l = 0; l < 4; l++)
                amax = amax < t[l] ? t[l] : amax;
        }
#endif
        for (; i < len; i++) {
            const float v = __builtin_fabsf(x[i]);
            amax = amax < v ? v : amax;
        }
        sa[j] = amax / 127.0f;
        const float inv = amax != 0.0f ? 127.0f / amax : 0.0f;
        int16_t *o = qa + k0;
        i = 0;
#ifdef __wasm_simd128__
        if (len == blk) {
            const v128_t vi = wasm_f32x4_splat(inv);
            for (; i + 8 <= len; i += 8) {
                const v128_t f0 = wasm_f32x4_mul(wasm_v128_load(x + i), vi);
                const v128_t f1 = wasm_f32x4_mul(wasm_v128_load(x + i + 4), vi);
                const v128_t r0 = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(f0));
                const v128_t r1 = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(f1));
                wasm_v128_store(o + i, wasm_i16x8_narrow_i32x4(r0, r1));
            }
        }
#endif
        for (; i < blk; i++) {
            const float v = i < len ? __builtin_rintf(x[i] * inv) : 0.0f;
            o[i] = (int16_t)(v >= -32768.0f && v <= 32767.0f ? (int)v : 0);
        }
    }
}

#ifdef __wasm_simd128__

#define MADD WGK_MADD

static float hsum(v128_t v)
{
    v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
    return wasm_f32x4_extract_lane(v, 0);
}

/* Columns n0 .. n0+3 (the last repeated past N) of the weights. */
WGK_INLINE int column_group(const wgk_qbw_args *g, const geom *q, int n0, int cols[4], const uint8_t *b[4])
{
    const int nc = g->N - n0 < 4 ? g->N - n0 : 4;
    #pragma clang loop unroll(full)
    for (int j = 0; j < 4; j++) {
        cols[j] = n0 + (j < nc ? j : nc - 1);
        b[j] = g->b + (ptrdiff_t)cols[j] * q->colbytes;
    }
    return nc;
}

WGK_INLINE void store_cols(const wgk_qbw_args *g, int m, int n0, int nc, const float *v)
{
    float *c = g->c + (ptrdiff_t)m * g->ldc + n0;
    for (int j = 0; j < nc; j++)
        c[j] = v[j] + (g->bias ? g->bias[n0 + j] : 0.0f);
}

/* The float GEMV widens the weights straight from 16-byte chunks into i32 lanes: an i32
 * lane of a 4-bit chunk (32 k) holds k = 8i .. 8i+7 in its nibbles, of an 8-bit chunk (16
 * k) k = 4i .. 4i+3 in its bytes. Weight j of every lane but the top one is the lane
 * masked to its bits, q * 2^(bits j), converted (two operations, where a shift pair and
 * a conversion took three); the row's element that multiplies it is stored times 2^-(bits
 * j), so their product is q times the element exactly (powers of two; an element below
 * 2^-100 in magnitude would lose bits as a subnormal). The top weight is shifted down
 * with its sign, the lane's top bit flipped first (flip_top), so it reads q - 2^(bits-1):
 * the block sums of those elements, times -2^(bits-1), go to the zero points' share
 * (zp_corr's top).
 *
 * The masks are read from memory (lane_masks): as constants they let clang prove the
 * masked lanes non-negative and emit f32x4.convert_i32x4_u, which V8 and Cranelift expand
 * into a long sequence on x86. */
#define LANE_MASK_BITS(w, j) ((int32_t)(((1u << (w)) - 1u) << ((w) * (j))))
static const int32_t lane_mask_table[2][7][4] __attribute__((aligned(16))) = {
#define M4(j) {LANE_MASK_BITS(4, j), LANE_MASK_BITS(4, j), LANE_MASK_BITS(4, j), LANE_MASK_BITS(4, j)}
#define M8(j) {LANE_MASK_BITS(8, j), LANE_MASK_BITS(8, j), LANE_MASK_BITS(8, j), LANE_MASK_BITS(8, j)}
    {M4(0), M4(1), M4(2), M4(3), M4(4), M4(5), M4(6)},
    {M8(0), M8(1), M8(2), {0}, {0}, {0}, {0}},
#undef M4
#undef M8
};
#undef LANE_MASK_BITS

typedef struct lane_masks {
    v128_t m[7];
} lane_masks;

/* The masks of the weights below the top one, read so that clang cannot see their values. */
static lane_masks lane_masks_of(int bits)
{
    lane_masks l;
    const volatile v128_t *t = (const volatile v128_t *)(const void *)lane_mask_table[bits == 4 ? 0 : 1];
    for (int j = 0; j < 7; j++)
        l.m[j] = t[j];
    return l;
}

/* Row a of A as the float GEMV reads it, into dst (Kp floats rounded up to 32, zeros past
 * K): element k = 8i + j of a 4-bit chunk (4i + j of an 8-bit one) at dst[4j + i] within
 * the chunk, times 2^-(bits j) but for the top j. Its block sums asum[nblk] (over k < K),
 * and top[nblk]: -2^(bits-1) times each block's sum over the top weights' elements. */
static void prep_row_lanes(const float *a, int K, int Kp, int bits, int blk, int nblk, float *dst, float *asum,
                           float *top)
{
    const int c = bits == 4 ? 32 : 16, per = c / 4;
    for (int k0 = 0; k0 < Kp; k0 += c)
        for (int j = 0; j < per; j++) {
            const float scale = j == per - 1 ? 1.0f : 1.0f / (float)(1 << (bits * j));
            #pragma clang loop unroll(full)
            for (int i = 0; i < 4; i++) {
                const int k = k0 + per * i + j;
                dst[k0 + 4 * j + i] = k < K ? a[k] * scale : 0.0f;
            }
        }
    for (int b = 0; b < nblk; b++) {
        float t = 0.0f, tt = 0.0f;
        for (int k = b * blk; k < (b + 1) * blk && k < K; k++) {
            t += a[k];
            if (k % per == per - 1)
                tt += a[k];
        }
        asum[b] = t;
        top[b] = -(float)(1 << (bits - 1)) * tt;
    }
}

/* The panel path reads each chunk with the top bit of every weight flipped (flip_signs),
 * so that a weight q is the signed integer q - 2^(bits-1) there: shifts give it with its
 * sign (arithmetic shift), and f32x4.convert_i32x4_s makes it a float in one instruction.
 * Weights masked to unsigned values would let clang prove them non-negative and emit
 * convert_i32x4_u instead, which V8 expands into a long sequence on x86 (the float GEMV
 * ran at half its speed there). The offset goes to the zero points (block4_of). */
static inline float sign_offset(int bits) { return (float)(1 << (bits - 1)); }

WGK_INLINE v128_t flip_signs(v128_t v, int bits)
{
    return wasm_v128_xor(v, wasm_i8x16_splat(bits == 4 ? (int8_t)0x88 : (int8_t)0x80));
}

/* The j-th weight of every i32 lane of chunk v (read through flip_signs) as the signed
 * integer q - 2^(bits-1); j is a constant once inlined. */
WGK_INLINE v128_t lane_q(v128_t v, int bits, int j)
{
    const int top = bits == 4 ? 7 : 3, w = bits == 4 ? 4 : 8;
    const v128_t at_top = j == top ? v : wasm_i32x4_shl(v, 32 - w * (j + 1));
    return wasm_i32x4_shr(at_top, 32 - w);
}

/* The GEMV's weight j of every lane of chunk v as floats: q * 2^(bits j) below the top
 * one, q - 2^(bits-1) at the top (v read through flip_top). */
WGK_INLINE v128_t lane_w(v128_t v, int bits, int j, const lane_masks *lm)
{
    const int top = bits == 4 ? 7 : 3, w = bits == 4 ? 4 : 8;
    return wasm_f32x4_convert_i32x4(j == top ? wasm_i32x4_shr(v, 32 - w) : wasm_v128_and(v, lm->m[j]));
}

WGK_INLINE v128_t flip_top(v128_t v) { return wasm_v128_xor(v, wasm_i32x4_splat(INT32_MIN)); }

/* The float zero point of block j of column n, integer or not. */
static inline float zp_any(const wgk_qbw_args *g, const geom *q, int n, int j)
{
    return g->zpf ? zp_float(g, q, n, j) : (float)zp_int(g, q, n, j);
}

/* The zero points' share of column n's sum for a row of block sums asum: sum_j s_j (z_j
 * asum_j + top_j), 8 blocks at a time (the packed 4-bit zero points of 8 blocks are 4
 * bytes); top (or NULL, for 0) is what the weights were read as less (the float GEMV's:
 * prep_row_lanes). The terms without top are summed as s_j z_j asum_j in that order. */
static float zp_corr(const wgk_qbw_args *g, const geom *q, int n, const float *asum, const float *top)
{
    const float *s = g->scales + (ptrdiff_t)n * q->nblk;
    v128_t acc = wasm_f32x4_splat(0.0f), acct = acc;
    int j = 0;
    if (!g->zp && !g->zpf) {
        for (; j + 4 <= q->nblk; j += 4) {
            acc = MADD(acc, wasm_v128_load(s + j), wasm_v128_load(asum + j));
            if (top)
                acct = MADD(acct, wasm_v128_load(s + j), wasm_v128_load(top + j));
        }
        float t = hsum(acc), tt = top ? hsum(acct) : 0.0f;
        for (; j < q->nblk; j++) {
            t += s[j] * asum[j];
            if (top)
                tt += s[j] * top[j];
        }
        return t * (float)(1 << (g->bits - 1)) + tt;
    }
    for (; j + 8 <= q->nblk; j += 8) {
        v128_t z0, z1;
        if (g->zpf) {
            z0 = wasm_v128_load(g->zpf + (ptrdiff_t)n * q->nblk + j);
            z1 = wasm_v128_load(g->zpf + (ptrdiff_t)n * q->nblk + j + 4);
        } else if (g->bits == 8) {
            const v128_t b = wasm_u16x8_extend_low_u8x16(wasm_v128_load64_zero(g->zp + (ptrdiff_t)n * q->zstride + j));
            z0 = wasm_f32x4_convert_i32x4(wasm_u32x4_extend_low_u16x8(b));
            z1 = wasm_f32x4_convert_i32x4(wasm_u32x4_extend_high_u16x8(b));
        } else {
            const v128_t b = wasm_u32x4_extend_low_u16x8(
                wasm_u16x8_extend_low_u8x16(wasm_v128_load32_zero(g->zp + (ptrdiff_t)n * q->zstride + j / 2)));
            const v128_t lo = wasm_v128_and(b, wasm_i32x4_splat(15)), hi = wasm_u32x4_shr(b, 4);
            z0 = wasm_f32x4_convert_i32x4(wasm_i32x4_shuffle(lo, hi, 0, 4, 1, 5));
            z1 = wasm_f32x4_convert_i32x4(wasm_i32x4_shuffle(lo, hi, 2, 6, 3, 7));
        }
        acc = MADD(acc, wasm_f32x4_mul(wasm_v128_load(s + j), z0), wasm_v128_load(asum + j));
        acc = MADD(acc, wasm_f32x4_mul(wasm_v128_load(s + j + 4), z1), wasm_v128_load(asum + j + 4));
        if (top) {
            acc = MADD(acc, wasm_v128_load(s + j), wasm_v128_load(top + j));
            acc = MADD(acc, wasm_v128_load(s + j + 4), wasm_v128_load(top + j + 4));
        }
    }
    float t = hsum(acc);
    for (; j < q->nblk; j++)
        t += s[j] * zp_any(g, q, n, j) * asum[j] + (top ? s[j] * top[j] : 0.0f);
    return t;
}

/* ---- accuracy level 4 (quant_a): int16 lanes ----
 * A chunk of 16 bytes of weights (32 4-bit k, 16 8-bit) read as i16x8: lane i holds k =
 * 4i .. 4i+3 in its nibbles (k = 2i, 2i+1 in its bytes), so (v >> bits * j) & mask is the
 * i16x8 of the j-th of every lane, k = 4i + j (2i + j), dotted (i32x4.dot_i16x8_s) with
 * qa[8j .. 8j+7] of the chunk of the quantized row in that order (quant_lanes). A block's
 * sum of the weights as stored times the row is exact in int32, scaled by sa s; the zero
 * points' share, sum_j s_j z_j (sa_j times the block's sum of the quantized row), is taken
 * once per column (zp_corr over asb), as MLAS takes it. Blocks of 16 (4-bit) take a chunk
 * of two blocks, lanes 0-1 of the dot products the first, 2-3 the second. */

/* A quantized row in work: Kq = Kp rounded up to 32 int16 in lane order, then its block
 * scales sa and sa times its block sums, asb (float), nblk each. */
static inline int kq_of(const geom *q) { return (q->Kp + 31) / 32 * 32; }
static inline size_t qrow_bytes(const geom *q)
{
    return ((size_t)2 * kq_of(q) + 15) / 16 * 16 + 2 * (((size_t)4 * q->nblk + 15) / 16 * 16);
}

/* Quantizes row a (natural order, K floats) into qr (qrow_bytes), through tmp (Kp floats)
 * and tmpq (Kp int16). */
static void quant_lanes(const float *a, int K, int bits, int blk, const geom *q, float *tmp, int16_t *tmpq,
                        unsigned char *qr)
{
    const int Kq = kq_of(q), c = bits == 4 ? 32 : 16, per = bits == 4 ? 4 : 2;
    int16_t *qa = (int16_t *)qr;
    float *sa = (float *)(qr + ((size_t)2 * Kq + 15) / 16 * 16);
    float *asb = (float *)((unsigned char *)sa + ((size_t)4 * q->nblk + 15) / 16 * 16);
    for (int k = 0; k < q->Kp; k++)
        tmp[k] = k < K ? a[k] : 0.0f;
    quant_row(tmp, q->Kp, blk, q, tmpq, sa);
    for (int k0 = 0; k0 < Kq; k0 += c)
        for (int j = 0; j < per; j++)
            for (int i = 0; i < 8; i++) {
                const int k = k0 + per * i + j;
                qa[k0 + 8 * j + i] = k < q->Kp ? tmpq[k] : 0;
            }
    for (int b = 0; b < q->nblk; b++) {
        int32_t t = 0;
        for (int k = b * blk; k < (b + 1) * blk; k++)
            t += tmpq[k];
        asb[b] = sa[b] * (float)t;
    }
}

/* x + the dot products of weight chunk v with qa (lane order). */
WGK_INLINE v128_t lanes_idot(v128_t x, v128_t v, const int16_t *qa, int bits)
{
    if (bits == 4) {
        const v128_t m = wasm_i16x8_splat(15);
        x = wasm_i32x4_add(x, wasm_i32x4_dot_i16x8(wasm_v128_load(qa), wasm_v128_and(v, m)));
        x = wasm_i32x4_add(x, wasm_i32x4_dot_i16x8(wasm_v128_load(qa + 8), wasm_v128_and(wasm_u16x8_shr(v, 4), m)));
        x = wasm_i32x4_add(x, wasm_i32x4_dot_i16x8(wasm_v128_load(qa + 16), wasm_v128_and(wasm_u16x8_shr(v, 8), m)));
        return wasm_i32x4_add(x, wasm_i32x4_dot_i16x8(wasm_v128_load(qa + 24), wasm_u16x8_shr(v, 12)));
    }
    x = wasm_i32x4_add(x, wasm_i32x4_dot_i16x8(wasm_v128_load(qa), wasm_v128_and(v, wasm_i16x8_splat(255))));
    return wasm_i32x4_add(x, wasm_i32x4_dot_i16x8(wasm_v128_load(qa + 8), wasm_u16x8_shr(v, 8)));
}

/* The sums over block jb (or blocks jb, jb+1 of 16) of quantized row qr against the column
 * at b, zero points subtracted, scaled into t. */
typedef struct qrow {
    const int16_t *qa;
    const float *sa, *asb;
} qrow;

static qrow qrow_at(const geom *q, const unsigned char *qr)
{
    const size_t o1 = ((size_t)2 * kq_of(q) + 15) / 16 * 16, o2 = o1 + ((size_t)4 * q->nblk + 15) / 16 * 16;
    return (qrow){(const int16_t *)qr, (const float *)(qr + o1), (const float *)(qr + o2)};
}

/* ---- the dot products, float or quantized rows ----
 * The GEMV's loop serves both: quant 0 takes a prepared float row (ap, accuracy levels 0-3;
 * the weights go from bytes to floats in three operations, shift, mask, convert), quant 1
 * a quantized row (r, level 4; i32 sums). quant is a constant once inlined. The row path
 * (four rows against a column) takes quantized rows only. A block's products sum the
 * weights as stored, scaled once; the zero points' share, sum_j s_j z_j sum_k a over block
 * j, comes from the row's block sums once per column (zp_corr). */

/* x[i] + the products of chunk v with quantized row r[i] at off, i < R. */
WGK_INLINE void chunk_idot(v128_t *x, int R, v128_t v, const qrow *r, ptrdiff_t off, int bits)
{
    #pragma clang loop unroll(full)
    for (int i = 0; i < R; i++)
        x[i] = lanes_idot(x[i], v, r[i].qa + off, bits);
}

/* x[j] + the products of chunks v[j] of four columns with one row at off (ap, or r when
 * quantized). A float row's activation vectors are loaded once for the four columns (11
 * vectors live: V8's register allocator spills the column-by-column order, which reloads
 * them); each column sums its lanes in the same order either way. */
WGK_INLINE void chunk_dot_cols(v128_t x[4], const v128_t v[4], int quant, const float *ap, const qrow *r, ptrdiff_t off,
                               int bits, const lane_masks *lm)
{
    if (quant) {
        #pragma clang loop unroll(full)
        for (int j = 0; j < 4; j++)
            x[j] = lanes_idot(x[j], v[j], r->qa + off, bits);
        return;
    }
    v128_t f[4];
    #pragma clang loop unroll(full)
    for (int j = 0; j < 4; j++)
        f[j] = flip_top(v[j]);
    #pragma clang loop unroll(full)
    for (int l = 0; l < (bits == 4 ? 8 : 4); l++) {
        const v128_t a = wasm_v128_load(ap + off + 4 * l);
        #pragma clang loop unroll(full)
        for (int j = 0; j < 4; j++)
            x[j] = MADD(x[j], a, lane_w(f[j], bits, l, lm));
    }
}

/* t + block sums x scaled: block jb alone (two: 0), or (lanes 0-1 and 2-3) blocks jb and
 * jb+1, fa and fb their scales (times the row's block scales when quantized). */
WGK_INLINE v128_t block_add(v128_t t, v128_t x, int quant, float fa, int two, float fb)
{
    return MADD(t, quant ? wasm_f32x4_convert_i32x4(x) : x, two ? wasm_f32x4_make(fa, fa, fb, fb) : wasm_f32x4_splat(fa));
}

/* The row's block scale (1 for a float row). */
WGK_INLINE float row_scale(int quant, const qrow *r, int jb) { return quant ? r->sa[jb] : 1.0f; }

/* One row (ap or r, block sums sums) against 4 columns at a time, into row m of C. Blocks of
 * 16 (4-bit) take a chunk of two blocks, their scales in the lanes that hold each. */
WGK_INLINE void gemv_row(const wgk_qbw_args *g, const geom *q, int bits, int quant, const float *ap, const qrow *r,
                         const float *sums, const float *top, const lane_masks *lm, int m)
{
    const int blk = g->blk, c = bits == 4 ? 32 : 16, cb = 16; /* k and bytes per chunk */
    for (int n0 = 0; n0 < g->N; n0 += 4) {
        int cols[4];
        const uint8_t *b[4];
        const int nc = column_group(g, q, n0, cols, b);
        v128_t t[4];
        #pragma clang loop unroll(full)
        for (int j = 0; j < 4; j++)
            t[j] = wasm_f32x4_splat(0.0f);
        if (blk >= c) {
            for (int jb = 0; jb < q->nblk; jb++) {
                v128_t x[4];
                #pragma clang loop unroll(full)
                for (int j = 0; j < 4; j++)
                    x[j] = wasm_i32x4_splat(0);
                const int k0 = jb * blk, o = jb * q->blob;
                for (int k = 0; k < blk; k += c) {
                    v128_t v[4];
                    #pragma clang loop unroll(full)
                    for (int j = 0; j < 4; j++)
                        v[j] = wasm_v128_load(b[j] + o + k / c * cb);
                    chunk_dot_cols(x, v, quant, ap, r, k0 + k, bits, lm);
                }
                #pragma clang loop unroll(full)
                for (int j = 0; j < 4; j++)
                    t[j] = block_add(t[j], x[j], quant, row_scale(quant, r, jb) * scale_of(g, q, cols[j], jb), 0, 0.0f);
            }
        } else {
            for (int jb = 0; jb < q->nblk; jb += 2) {
                const int two = jb + 1 < q->nblk;
                v128_t v[4], x[4];
                #pragma clang loop unroll(full)
                for (int j = 0; j < 4; j++) {
                    const uint8_t *p = b[j] + jb * 8;
                    v[j] = two ? wasm_v128_load(p) : wasm_v128_load64_zero(p);
                    x[j] = wasm_i32x4_splat(0);
                }
                chunk_dot_cols(x, v, quant, ap, r, jb * 16, 4, lm);
                #pragma clang loop unroll(full)
                for (int j = 0; j < 4; j++)
                    t[j] = block_add(t[j], x[j], quant, row_scale(quant, r, jb) * scale_of(g, q, cols[j], jb), two,
                                     two ? row_scale(quant, r, jb + 1) * scale_of(g, q, cols[j], jb + 1) : 0.0f);
            }
        }
        float v[4];
        #pragma clang loop unroll(full)
        for (int j = 0; j < 4; j++)
            v[j] = hsum(t[j]) - zp_corr(g, q, cols[j], sums, top);
        store_cols(g, m, n0, nc, v);
    }
}

/* Four quantized rows (r[i]; rows past M repeat the last and are dropped) against column
 * n: each weight chunk loaded once for the four. */
WGK_INLINE void rows4(const wgk_qbw_args *g, const geom *q, int bits, const qrow r[4], int n, float out[4])
{
    const int blk = g->blk, c = bits == 4 ? 32 : 16, cb = 16;
    const uint8_t *b = g->b + (ptrdiff_t)n * q->colbytes;
    v128_t t[4];
    #pragma clang loop unroll(full)
    for (int i = 0; i < 4; i++)
        t[i] = wasm_f32x4_splat(0.0f);
    if (blk >= c) {
        for (int jb = 0; jb < q->nblk; jb++) {
            v128_t x[4];
            #pragma clang loop unroll(full)
            for (int i = 0; i < 4; i++)
                x[i] = wasm_i32x4_splat(0);
            const int k0 = jb * blk, o = jb * q->blob;
            for (int k = 0; k < blk; k += c)
                chunk_idot(x, 4, wasm_v128_load(b + o + k / c * cb), r, k0 + k, bits);
            const float s = scale_of(g, q, n, jb);
            #pragma clang loop unroll(full)
            for (int i = 0; i < 4; i++)
                t[i] = block_add(t[i], x[i], 1, r[i].sa[jb] * s, 0, 0.0f);
        }
    } else {
        for (int jb = 0; jb < q->nblk; jb += 2) {
            const int two = jb + 1 < q->nblk;
            const v128_t v = two ? wasm_v128_load(b + jb * 8) : wasm_v128_load64_zero(b + jb * 8);
            const float s0 = scale_of(g, q, n, jb), s1 = two ? scale_of(g, q, n, jb + 1) : 0.0f;
            v128_t x[4];
            #pragma clang loop unroll(full)
            for (int i = 0; i < 4; i++)
                x[i] = wasm_i32x4_splat(0);
            chunk_idot(x, 4, v, r, jb * 16, 4);
            #pragma clang loop unroll(full)
            for (int i = 0; i < 4; i++)
                t[i] = block_add(t[i], x[i], 1, r[i].sa[jb] * s0, two, two ? r[i].sa[jb + 1] * s1 : 0.0f);
        }
    }
    #pragma clang loop unroll(full)
    for (int i = 0; i < 4; i++)
        out[i] = hsum(t[i]) - zp_corr(g, q, n, r[i].asb, NULL);
}

/* Columns per block of the row path: their weights stay in L2 (256 KiB) while every row
 * group of the row block passes. */
static int col_block(const geom *q)
{
    const int nb = 262144 / (q->colbytes > 0 ? q->colbytes : 1);
    return nb < 4 ? 4 : nb;
}

/* The row path: mr quantized rows (at work, rb bytes apart) of C's rows m0 .., four rows
 * against each column of a column block. */
WGK_INLINE void rows_prepared(const wgk_qbw_args *g, const geom *q, int bits, const unsigned char *work, size_t rb,
                              int m0, int mr)
{
    const int nb = col_block(q);
    for (int n0 = 0; n0 < g->N; n0 += nb) {
        const int n1 = g->N - n0 < nb ? g->N : n0 + nb;
        for (int r0 = 0; r0 < mr; r0 += 4) {
            qrow rows[4];
            #pragma clang loop unroll(full)
            for (int i = 0; i < 4; i++)
                rows[i] = qrow_at(q, work + (size_t)(r0 + i < mr ? r0 + i : mr - 1) * rb);
            const int nr = mr - r0 < 4 ? mr - r0 : 4;
            for (int n = n0; n < n1; n++) {
                float out[4];
                rows4(g, q, bits, rows, n, out);
                for (int i = 0; i < nr; i++)
                    g->c[(ptrdiff_t)(m0 + r0 + i) * g->ldc + n] = out[i] + (g->bias ? g->bias[n] : 0.0f);
            }
        }
    }
}

/* ---- the panel path (float, M >= WGK_QBW_ROWS_M) ----
 * A block of kc x nc weights (k0.., n0..) dequantized, W(k, n) = (q - zp) * s in float32
 * as onnxruntime's CPU kernel computes it (the integer difference exact), into panels of
 * 8 columns, [k][8] (the float GEMM's layout), each weight once per call; then each group
 * of 4 rows of A, broadcast over kc (in L1), through the float GEMM's micro-kernel over
 * the block's panels (in L2). The weights are read as i32 lanes of 4 columns (a 4 x 4
 * transpose of their 16-byte chunks): the j-th nibble (byte) of every lane is then one k
 * of the 4 columns, a row of half a panel. */

/* Chunk o (byte offset) of the four columns col[0..3] as i32 lanes: t[i] holds word i
 * (bytes 4i .. 4i+3) of each column, column j in lane j; half: only 8 bytes are there
 * (the last odd block of 16 4-bit weights). */
WGK_INLINE void chunk_words(const uint8_t *const col[4], int o, int half, v128_t t[4])
{
    v128_t v[4];
    #pragma clang loop unroll(full)
    for (int j = 0; j < 4; j++)
        v[j] = half ? wasm_v128_load64_zero(col[j] + o) : wasm_v128_load(col[j] + o);
    const v128_t u0 = wasm_i32x4_shuffle(v[0], v[1], 0, 4, 1, 5), u1 = wasm_i32x4_shuffle(v[2], v[3], 0, 4, 1, 5);
    const v128_t u2 = wasm_i32x4_shuffle(v[0], v[1], 2, 6, 3, 7), u3 = wasm_i32x4_shuffle(v[2], v[3], 2, 6, 3, 7);
    t[0] = wasm_i32x4_shuffle(u0, u1, 0, 1, 4, 5);
    t[1] = wasm_i32x4_shuffle(u0, u1, 2, 3, 6, 7);
    t[2] = wasm_i32x4_shuffle(u2, u3, 0, 1, 4, 5);
    t[3] = wasm_i32x4_shuffle(u2, u3, 2, 3, 6, 7);
}

/* The kind of zero points, a constant in the panel path's loops: none (the format's
 * middle), packed integers, floats. */
enum { ZP_DEFAULT, ZP_PACKED, ZP_FLOAT };

/* Block jb of four columns: scales s; packed zero points less the sign offset, zi (the
 * weights are read through flip_signs), or float ones, zf. */
typedef struct block4 {
    v128_t s, zi, zf;
} block4;

WGK_INLINE block4 block4_of(const wgk_qbw_args *g, const geom *q, const int cols[4], int jb, int bits, int zkind)
{
    const ptrdiff_t i0 = (ptrdiff_t)cols[0] * q->nblk + jb, i1 = (ptrdiff_t)cols[1] * q->nblk + jb,
                    i2 = (ptrdiff_t)cols[2] * q->nblk + jb, i3 = (ptrdiff_t)cols[3] * q->nblk + jb;
    block4 b = {wasm_f32x4_make(g->scales[i0], g->scales[i1], g->scales[i2], g->scales[i3]), wasm_i32x4_splat(0),
                wasm_f32x4_splat(0.0f)};
    if (zkind == ZP_PACKED) {
        const int at = bits == 8 ? jb : jb >> 1, shift = bits == 8 ? 0 : (jb & 1) * 4, mask = (1 << bits) - 1;
        const uint8_t *z = g->zp + at;
        const v128_t zi = wasm_i32x4_make(z[(ptrdiff_t)cols[0] * q->zstride], z[(ptrdiff_t)cols[1] * q->zstride],
                                          z[(ptrdiff_t)cols[2] * q->zstride], z[(ptrdiff_t)cols[3] * q->zstride]);
        b.zi = wasm_i32x4_sub(wasm_v128_and(wasm_u32x4_shr(zi, shift), wasm_i32x4_splat(mask)),
                              wasm_i32x4_splat(1 << (bits - 1)));
    }
    if (zkind == ZP_FLOAT)
        b.zf = wasm_f32x4_make(g->zpf[i0], g->zpf[i1], g->zpf[i2], g->zpf[i3]);
    return b;
}

/* Word t of 4 columns (per = 8 4-bit or 4 8-bit weights of each), dequantized into per
 * rows of half a panel: dst[8 * j + i] = W(k + j, column i). */
WGK_INLINE void dequant_word(v128_t t, int bits, const block4 *b, int zkind, float *dst)
{
    t = flip_signs(t, bits);
    const v128_t off = wasm_f32x4_splat(sign_offset(bits));
    #pragma clang loop unroll(full)
    for (int j = 0; j < (bits == 4 ? 8 : 4); j++) {
        const v128_t qs = lane_q(t, bits, j);
        v128_t d;
        if (zkind == ZP_FLOAT)
            d = wasm_f32x4_sub(wasm_f32x4_add(wasm_f32x4_convert_i32x4(qs), off), b->zf);
        else
            d = wasm_f32x4_convert_i32x4(zkind == ZP_PACKED ? wasm_i32x4_sub(qs, b->zi) : qs);
        wasm_v128_store(dst + 8 * j, wasm_f32x4_mul(d, b->s));
    }
}

/* Rows k0 .. k0+kc-1 of columns n0 .. n0+nc-1 (nc <= the block's columns) into panels of 8
 * columns ps floats apart: dst[p * ps + (k - k0) * 8 + j] = W(k, n0 + 8p + j). Whole
 * chunks are written (rows up to kc rounded up to 32), columns past N repeat the last
 * (their sums are dropped); the last panel's second half only when it has columns. */
WGK_INLINE void dequant_block(const wgk_qbw_args *g, const geom *q, int bits, int zkind, int k0, int kc, int n0,
                              int nc, float *dst, size_t ps)
{
    const int ck = bits == 4 ? 32 : 16, per = ck / 4;
    for (int h0 = 0; h0 < nc; h0 += 4) {
        int cols[4];
        const uint8_t *col[4];
        for (int j = 0; j < 4; j++) {
            cols[j] = n0 + h0 + j < g->N ? n0 + h0 + j : g->N - 1;
            col[j] = g->b + (ptrdiff_t)cols[j] * q->colbytes;
        }
        float *d = dst + (size_t)(h0 / 8) * ps + h0 % 8;
        block4 b = block4_of(g, q, cols, k0 / g->blk, bits, zkind);
        for (int c = k0; c < k0 + kc; c += ck) {
            v128_t t[4];
            chunk_words(col, c * bits / 8, c + ck > q->Kp, t);
            #pragma clang loop unroll(full)
            for (int i = 0; i < 4; i++) {
                const int k = c + per * i;
                if (k > k0 && (k & (g->blk - 1)) == 0)
                    b = block4_of(g, q, cols, k / g->blk, bits, zkind);
                dequant_word(t[i], bits, &b, zkind, d + (size_t)(k - k0) * 8);
            }
        }
    }
}

/* dequant_block with the kind of zero points a constant. */
WGK_INLINE void dequant_zkind(const wgk_qbw_args *g, const geom *q, int bits, int k0, int kc, int n0, int nc,
                              float *dst, size_t ps)
{
    if (g->zp)
        dequant_block(g, q, bits, ZP_PACKED, k0, kc, n0, nc, dst, ps);
    else if (g->zpf)
        dequant_block(g, q, bits, ZP_FLOAT, k0, kc, n0, nc, dst, ps);
    else
        dequant_block(g, q, bits, ZP_DEFAULT, k0, kc, n0, nc, dst, ps);
}

/* dequant_block with bits and the kind of zero points constants. */
static void dequant_panels(const wgk_qbw_args *g, const geom *q, int k0, int kc, int n0, int nc, float *dst, size_t ps)
{
    if (g->bits == 4)
        dequant_zkind(g, q, 4, k0, kc, n0, nc, dst, ps);
    else
        dequant_zkind(g, q, 8, k0, kc, n0, nc, dst, ps);
}

/* v's 4 lanes (4 k of one row), each broadcast into its own k's 16 floats. */
WGK_INLINE void splat_lanes(v128_t v, float *dst)
{
    wasm_v128_store(dst, wasm_i32x4_shuffle(v, v, 0, 0, 0, 0));
    wasm_v128_store(dst + 16, wasm_i32x4_shuffle(v, v, 1, 1, 1, 1));
    wasm_v128_store(dst + 32, wasm_i32x4_shuffle(v, v, 2, 2, 2, 2));
    wasm_v128_store(dst + 48, wasm_i32x4_shuffle(v, v, 3, 3, 3, 3));
}

/* Rows m .. m+3 of A (the last repeated past M), k0 .. k0+kc-1, broadcast as the
 * micro-kernel reads them: dst[(k - k0) * 16 + 4 * r + l] = A(m + r, k), l < 4. */
static void splat_rows(const wgk_qbw_args *g, int m, int k0, int kc, float *dst)
{
    const float *a[4];
    for (int r = 0; r < 4; r++)
        a[r] = g->a + (ptrdiff_t)(m + r < g->M ? m + r : g->M - 1) * g->lda + k0;
    int k = 0;
    for (; k + 4 <= kc; k += 4)
        #pragma clang loop unroll(full)
        for (int r = 0; r < 4; r++)
            splat_lanes(wasm_v128_load(a[r] + k), dst + k * 16 + 4 * r);
    for (; k < kc; k++)
        for (int r = 0; r < 4; r++)
            wasm_v128_store(dst + k * 16 + 4 * r, wasm_f32x4_splat(a[r][k]));
}

/* The bias on rows m .. m+mr-1, columns n0 .. n0+nc-1 of C (their sums just finished). */
static void add_bias(const wgk_qbw_args *g, int m, int mr, int n0, int nc)
{
    for (int r = 0; r < mr; r++) {
        float *c = g->c + (ptrdiff_t)(m + r) * g->ldc + n0;
        const float *b = g->bias + n0;
        int j = 0;
        for (; j + 4 <= nc; j += 4)
            wasm_v128_store(c + j, wasm_f32x4_add(wasm_v128_load(c + j), wasm_v128_load(b + j)));
        for (; j < nc; j++)
            c[j] += b[j];
    }
}

/* The panel path: work holds the broadcast rows (16 kc floats) then the block of panels. */
static void gemm_panels(const wgk_qbw_args *g, const geom *q)
{
    const int kcb = wgk_qbw_panel_kc(g->K, g->blk), ncb = wgk_qbw_panel_nc(kcb);
    const size_t ps = (size_t)kcb * 8;
    float *const splat = (float *)g->work, *const panels = splat + (size_t)16 * kcb;
    for (int k0 = 0; k0 < g->K; k0 += kcb) {
        const int kc = g->K - k0 < kcb ? g->K - k0 : kcb, last = k0 + kc == g->K;
        for (int n0 = 0; n0 < g->N; n0 += ncb) {
            const int nc = g->N - n0 < ncb ? g->N - n0 : ncb;
            dequant_panels(g, q, k0, kc, n0, nc, panels, ps);
            for (int m = 0; m < g->M; m += 4) {
                const int mr = g->M - m < 4 ? g->M - m : 4;
                splat_rows(g, m, k0, kc, splat);
                wgk_f32_conv_ukernel_splat(mr, nc, kc, splat, panels, ps, g->c + (ptrdiff_t)m * g->ldc + n0, g->ldc,
                                           NULL, NULL, 0, -__builtin_inff(), __builtin_inff(), k0 > 0);
                if (last && g->bias)
                    add_bias(g, m, mr, n0, nc);
            }
        }
    }
}

/* accuracy level 4: rows quantized WGK_QBW_QROWS at a time into work, then one row at a
 * time against 4 columns (fewer than WGK_QBW_ROWS_M rows) or the row path. */
WGK_INLINE void gemm_q8(const wgk_qbw_args *g, const geom *q, int bits)
{
    unsigned char *qbase = (unsigned char *)g->work;
    const size_t rb = qrow_bytes(q);
    for (int m0 = 0; m0 < g->M; m0 += WGK_QBW_QROWS) {
        const int mr = g->M - m0 < WGK_QBW_QROWS ? g->M - m0 : WGK_QBW_QROWS;
        float *tmp = (float *)(qbase + (size_t)((mr + 3) / 4 * 4) * rb);
        int16_t *tmpq = (int16_t *)(tmp + (q->Kp + 3) / 4 * 4);
        for (int r = 0; r < mr; r++)
            quant_lanes(g->a + (ptrdiff_t)(m0 + r) * g->lda, g->K, bits, g->blk, q, tmp, tmpq, qbase + (size_t)r * rb);
        if (g->M >= WGK_QBW_ROWS_M) {
            rows_prepared(g, q, bits, qbase, rb, m0, mr);
            continue;
        }
        for (int r = 0; r < mr; r++) {
            const qrow row = qrow_at(q, qbase + (size_t)r * rb);
            gemv_row(g, q, bits, 1, NULL, &row, row.asb, NULL, NULL, m0 + r);
        }
    }
}

/* Float (accuracy levels 0-3), fewer than WGK_QBW_ROWS_M rows: each row prepared
 * (prep_row_lanes) into work, its block sums and top sums after it, then the GEMV. */
WGK_INLINE void gemm_f32(const wgk_qbw_args *g, const geom *q, int bits)
{
    float *work = (float *)g->work, *asum = work + kq_of(q), *top = asum + (q->nblk + 3) / 4 * 4;
    const lane_masks lm = lane_masks_of(bits);
    for (int m = 0; m < g->M; m++) {
        prep_row_lanes(g->a + (ptrdiff_t)m * g->lda, g->K, q->Kp, bits, g->blk, q->nblk, work, asum, top);
        gemv_row(g, q, bits, 0, work, NULL, asum, top, &lm, m);
    }
}

static void gemm(const wgk_qbw_args *g, const geom *q)
{
    if (g->quant_a) {
        if (g->bits == 4)
            gemm_q8(g, q, 4);
        else
            gemm_q8(g, q, 8);
    } else if (g->M >= WGK_QBW_ROWS_M) {
        gemm_panels(g, q);
    } else if (g->bits == 4) {
        gemm_f32(g, q, 4);
    } else {
        gemm_f32(g, q, 8);
    }
}

#else

/* Weight k of a column (its blocks from col). */
static inline int qval(const uint8_t *col, int bits, int k)
{
    return bits == 8 ? col[k] : (col[k >> 1] >> ((k & 1) * 4)) & 15;
}

/* The scalar build: row by row, column by column, the same block sums. */
static void gemm(const wgk_qbw_args *g, const geom *q)
{
    const int blk = g->blk;
    int16_t *qa = (int16_t *)g->work;
    float *sa = g->quant_a ? (float *)((char *)g->work + ((size_t)2 * q->Kp + 15) / 16 * 16) : 0;
    for (int m = 0; m < g->M; m++) {
        const float *a = g->a + (ptrdiff_t)m * g->lda;
        if (g->quant_a)
            quant_row(a, g->K, blk, q, qa, sa);
        for (int n = 0; n < g->N; n++) {
            const uint8_t *col = g->b + (ptrdiff_t)n * q->colbytes;
            float acc = 0.0f;
            for (int j = 0; j < q->nblk; j++) {
                const int z = zp_int(g, q, n, j), k0 = j * blk;
                const float s = scale_of(g, q, n, j);
                if (g->quant_a) {
                    int32_t isum = 0;
                    for (int k = k0; k < k0 + blk; k++)
                        isum += qa[k] * (qval(col, g->bits, k) - z);
                    acc += (float)isum * (sa[j] * s);
                    continue;
                }
                const float zf = zp_float(g, q, n, j);
                const int k1 = k0 + blk < g->K ? k0 + blk : g->K;
                float bs = 0.0f;
                for (int k = k0; k < k1; k++)
                    bs += a[k] * ((float)(qval(col, g->bits, k) - z) - zf);
                acc += bs * s;
            }
            g->c[(ptrdiff_t)m * g->ldc + n] = acc + (g->bias ? g->bias[n] : 0.0f);
        }
    }
}

#endif

void wgk_f32_qbw_gemm(const wgk_qbw_args *g)
{
    if (g->M <= 0 || g->N <= 0)
        return;
    const geom q = geom_of(g);
    gemm(g, &q);
}
