/*
 * wgk_pack.h: the packed-A layout of the GEMM kernels, shared by the compiler (which
 * packs constant weights at compile time) and the kernel tests. Plain C, no kernel
 * dependencies, so host code may include it directly.
 *
 * A [M x K] is stored as ceil(M / WGK_GEMM_MR) panels; panel p holds rows
 * p*MR .. p*MR+MR-1 interleaved by k: packed[p*K*MR + k*MR + r] = A[p*MR + r][k].
 * Rows past M are zero. For the kernels this is a_panel = K*MR, a_k = MR, a_m = 1.
 */
#ifndef WGK_PACK_H
#define WGK_PACK_H

#include <stddef.h>
#include <stdint.h>

#define WGK_GEMM_MR 4

/* Floats needed to pack an M x K matrix. */
static inline size_t wgk_pack_a_size(size_t M, size_t K)
{
    return (M + WGK_GEMM_MR - 1) / WGK_GEMM_MR * WGK_GEMM_MR * K;
}

/* Packs A (row m at a + m*lda) into dst (wgk_pack_a_size(M, K) floats). */
static inline void wgk_pack_a(const float *a, size_t lda, size_t M, size_t K, float *dst)
{
    size_t panels = (M + WGK_GEMM_MR - 1) / WGK_GEMM_MR;
    for (size_t p = 0; p < panels; p++)
        for (size_t k = 0; k < K; k++)
            for (size_t r = 0; r < WGK_GEMM_MR; r++) {
                size_t m = p * WGK_GEMM_MR + r;
                dst[(p * K + k) * WGK_GEMM_MR + r] = m < M ? a[m * lda + k] : 0.0f;
            }
}

/* Convolution weights W[M][C/groups][KH][KW] (ONNX layout) as one packed A per group:
 * group g's Mg x Kg matrix (Mg = M/groups, Kg = C/groups*KH*KW, k in (c, kh, kw) order,
 * the im2col row order) starts at float g * wgk_pack_a_size(Mg, Kg). */
static inline size_t wgk_pack_conv_size(size_t M, size_t Kg, size_t groups)
{
    return groups * wgk_pack_a_size(M / groups, Kg);
}

static inline void wgk_pack_conv(const float *w, size_t M, size_t Kg, size_t groups, float *dst)
{
    size_t mg = M / groups;
    for (size_t g = 0; g < groups; g++)
        wgk_pack_a(w + g * mg * Kg, Kg, mg, Kg, dst + g * wgk_pack_a_size(mg, Kg));
}

/* The packed-B layout of wgk_f32_gemm_pb (constant right-hand operands of Gemm and
 * MatMul): B [K x N] as ceil(N / WGK_GEMM_NR) column panels, each K x NR contiguous:
 *   packed[(n/NR)*K*NR + k*NR + n%NR] = B(k, n), columns past N zero.
 * A GEMV (M = 1, a fully connected layer) then streams the weights in order. */
#define WGK_GEMM_NR 8

static inline size_t wgk_pack_b_size(size_t K, size_t N)
{
    return (N + WGK_GEMM_NR - 1) / WGK_GEMM_NR * WGK_GEMM_NR * K;
}

/* B(k, n) = b[k*sk + n*sn]: sk = N, sn = 1 for row-major [K][N]; sk = 1, sn = K for the
 * transposed [N][K] storage of Gemm's transB. */
static inline void wgk_pack_b(const float *b, size_t sk, size_t sn, size_t K, size_t N, float *dst)
{
    size_t panels = (N + WGK_GEMM_NR - 1) / WGK_GEMM_NR;
    for (size_t p = 0; p < panels; p++)
        for (size_t k = 0; k < K; k++)
            for (size_t j = 0; j < WGK_GEMM_NR; j++) {
                size_t n = p * WGK_GEMM_NR + j;
                dst[(p * K + k) * WGK_GEMM_NR + j] = n < N ? b[k * sk + n * sn] : 0.0f;
            }
}

/* The one-byte panels of wgk_f32_gemm_pb (wgk_gemm_args.bq): a constant B that is a
 * DequantizeLinear of uint8 / int8 values q with a scale and zero point per column (one
 * for all, or one per column), B(k, n) = (q(k, n) - zp(n)) * scale(n), as ceil(N / NR)
 * panels. Panel p holds columns p*NR .. p*NR+NR-1 as int8_t q[K][NR] and zeros to a
 * 16-byte multiple (wgk_pack_b_q8_body), their scales and zero points in a head
 * (wgk_q8_panel_head): before each panel when each column has its own, or once before all
 * the panels when one scale and zero point serve every column (shared; the panels then have
 * none: a table's 48 bytes per 8 columns saved). Either way panel p's bytes are at
 * WGK_GEMM_Q8_HEAD + p * wgk_pack_b_q8_stride(K, shared) from the start.
 * q stored as q - 128 for uint8 (zero as zp - 128), as is for int8 (zero as zp), so that
 * q - zp is the stored q minus zero; columns past N have q 0 (and in a head of their own scale
 * and zero 0). */
typedef struct wgk_q8_panel_head {
    float scale[WGK_GEMM_NR];
    int16_t zero[WGK_GEMM_NR];
} wgk_q8_panel_head;
#define WGK_GEMM_Q8_HEAD sizeof(wgk_q8_panel_head) /* 48 bytes */

static inline size_t wgk_pack_b_q8_body(size_t K)
{
    return (K * WGK_GEMM_NR + 15) / 16 * 16;
}

/* From one panel's bytes to the next's. */
static inline size_t wgk_pack_b_q8_stride(size_t K, int shared)
{
    return (shared ? 0 : WGK_GEMM_Q8_HEAD) + wgk_pack_b_q8_body(K);
}

static inline size_t wgk_pack_b_q8_size(size_t K, size_t N, int shared)
{
    return (shared ? WGK_GEMM_Q8_HEAD : 0) + (N + WGK_GEMM_NR - 1) / WGK_GEMM_NR * wgk_pack_b_q8_stride(K, shared);
}

/* q(k, n) = q[k*sk + n*sn] (bytes, int8 when is_signed, else uint8) as for wgk_pack_b;
 * column n's scale scale[n * ps] and zero point zp[n * ps] (ps = 0: one for all, the head
 * shared; zp NULL: 0). dst: wgk_pack_b_q8_size(K, N, ps == 0) bytes. */
static inline void wgk_pack_b_q8(const uint8_t *q, int is_signed, size_t sk, size_t sn, const float *scale,
                                 const uint8_t *zp, size_t ps, size_t K, size_t N, uint8_t *dst)
{
    const int shared = ps == 0;
    const size_t panels = (N + WGK_GEMM_NR - 1) / WGK_GEMM_NR, stride = wgk_pack_b_q8_stride(K, shared);
    const int bias = is_signed ? 0 : 128;
    for (size_t i = 0; i < wgk_pack_b_q8_size(K, N, shared); i++) /* no string.h in the freestanding kernels */
        dst[i] = 0;
    for (size_t p = 0; p < panels; p++) {
        uint8_t *d = dst + WGK_GEMM_Q8_HEAD + p * stride; /* the panel's bytes, its head before them */
        if (p == 0 || !shared) {
            wgk_q8_panel_head head;
            for (size_t j = 0; j < WGK_GEMM_NR; j++) {
                const size_t n = shared ? 0 : p * WGK_GEMM_NR + j;
                const int zv = !zp ? 0 : is_signed ? (int8_t)zp[n * ps] : zp[n * ps];
                head.scale[j] = n < N ? scale[n * ps] : 0.0f;
                head.zero[j] = (int16_t)(n < N ? zv - bias : 0);
            }
            for (size_t i = 0; i < WGK_GEMM_Q8_HEAD; i++)
                (d - WGK_GEMM_Q8_HEAD)[i] = ((const uint8_t *)&head)[i];
        }
        for (size_t k = 0; k < K; k++)
            for (size_t j = 0; j < WGK_GEMM_NR && p * WGK_GEMM_NR + j < N; j++)
                d[k * WGK_GEMM_NR + j] = (uint8_t)(q[k * sk + (p * WGK_GEMM_NR + j) * sn] - bias);
    }
}

#endif
