/*
 * wgk_quant.h: integer-exact quantization kernels (QuantizeLinear, DequantizeLinear,
 * MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv).
 *
 * Dtype codes are ONNX's: 2 uint8, 3 int8, 6 int32. Per-axis parameters use the layout
 * (outer, axis, inner) of the data tensor: element i uses parameter (i / inner) % axis;
 * per_axis = 0 means one scalar parameter. A NULL zero point means 0.
 * Rounding is to nearest, ties to even (f32.nearest / f64.nearest); results saturate.
 *
 * The integer ops widen both operands to int32 with the zero point subtracted
 * (wgk_q_widen), run an int32 GEMM or direct convolution, and the QLinear ops
 * requantize the int32 result: y = sat(rint((double)acc * (float)(sa * sb / sy)) + zy),
 * the multiplier computed in float32 in that order as the ONNX reference does.
 */
#ifndef WGK_QUANT_H
#define WGK_QUANT_H

#include "wgk_base.h"

typedef struct wgk_qaxis {
    int per_axis;  /* 0: scalar parameters */
    int axis, inner;
} wgk_qaxis;

/* y (dtype ydt: 2, 3 or 6) = sat(rint(x / scale) + zp); zp has dtype ydt. */
void wgk_quantize_linear(const float *x, void *y, int ydt, size_t n, const float *scale,
                         const void *zp, wgk_qaxis ax);
/* The same over n elements of one scale s and zero point zp, dtype 2 or 3 only
 * (q8-linear-runs.c: SIMD128, bit-identical to the loops above). */
void wgk_q8_quantize_run(const float *x, void *y, int ydt, size_t n, float s, int32_t zp);
void wgk_q8_dequantize_run(const void *x, int xdt, float *y, size_t n, float s, int32_t zp);
/* wgk_requantize over n sums of one multiplier mult (= sa * sb / sy in float32) into uint8 /
 * int8 (dtype 2 or 3), zero point zy. */
void wgk_q8_requantize_run(const int32_t *acc, void *y, int ydt, size_t n, float mult, int32_t zy);
/* y = (x - zp) * scale; x and zp have dtype xdt (2, 3 or 6). */
void wgk_dequantize_linear(const void *x, int xdt, float *y, size_t n, const float *scale,
                           const void *zp, wgk_qaxis ax);
/* y = x - zp as int32; x and zp have dtype xdt (2 or 3). */
void wgk_q_widen(const void *x, int xdt, int32_t *y, size_t n, const void *zp, wgk_qaxis ax);

/* C[b][m][n] = sum_k A[b][m][k] * B[b][k][n], int32 (wrapping), batch strides in elements
 * (0 broadcasts). */
void wgk_s32_gemm(int batch, int M, int N, int K, const int32_t *A, size_t a_stride,
                  const int32_t *B, size_t b_stride, int32_t *C);

/* int32 direct convolution, geometry as wgk_convnd_args (3 spatial dims, unit leading
 * dims for 1-D / 2-D); out-of-image taps contribute 0. bias: [M] or NULL. */
typedef struct wgk_s32_conv_args {
    int N, C, M, groups;
    int in[3], out[3], k[3], s[3], d[3], p[3];
    const int32_t *x, *w, *bias;
    int32_t *y;
} wgk_s32_conv_args;
void wgk_s32_conv3d_direct(const wgk_s32_conv_args *a); /* kernels/conv/s32-conv3d-direct.c */

/* DynamicQuantizeLinear: scale = (max(x, 0) - min(x, 0)) / 255 (1/255 when that range
 * is 0), zero_point = sat(rint(0 - min / scale)), y = sat(rint(x / scale) + zero_point),
 * in float32 as ONNX defines them; a NaN element quantizes to the zero point. SIMD128 in
 * -msimd128 builds, bit-identical to the scalar path. */
void wgk_f32_qu8_dynamic_quantize(const float *x, size_t n, uint8_t *y, float *scale,
                                  uint8_t *zero_point);
/* The same with min(x, 0) and max(x, 0) taken from nranges [min, max] pairs (each
 * starting from 0) that the kernels writing x kept (wgk_qdeq.h), so only the quantizing
 * pass reads x. */
void wgk_f32_qu8_dynamic_quantize_ranged(const float *x, size_t n, const float *ranges, int nranges, uint8_t *y,
                                         float *scale, uint8_t *zero_point);

/* y (ydt 2 or 3) = sat(rint((double)acc * (float)(sa * sb[j] / sy)) + zy), j per ax_b. */
void wgk_requantize(const int32_t *acc, void *y, int ydt, size_t n, const float *sa,
                    const float *sb, wgk_qaxis ax_b, const float *sy, const void *zy);

#endif
