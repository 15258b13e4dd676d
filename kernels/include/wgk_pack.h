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

#endif
