/*
 * wgk_eltwise.h: elementwise kernels: broadcasting binary ops and activations.
 *
 * Binary ops walk the output with a multi-index over dims[rank]; sa[d] and sb[d] are the
 * element strides of a and b along output dim d (0 where the operand is broadcast). The
 * compiler collapses dims first, so the usual cases are rank 1 (same shape, or a scalar
 * operand) and rank 2 (per-channel bias). y may alias a or b when that operand is not
 * broadcast. Integer division truncates toward zero; division by zero and INT_MIN / -1
 * give 0 instead of trapping.
 *
 *     // y[2][3][4] = a[2][3][4] + b[3][1] (b broadcast): collapse to dims {2,3,4}
 *     wgk_f32_binary(WGK_BIN_ADD, y, a, b, 3, (const int32_t[]){2, 3, 4},
 *                    (const int32_t[]){12, 4, 1}, (const int32_t[]){0, 1, 0});
 */
#ifndef WGK_ELTWISE_H
#define WGK_ELTWISE_H

#include "wgk_base.h"

enum { WGK_BIN_ADD = 0, WGK_BIN_SUB = 1, WGK_BIN_MUL = 2, WGK_BIN_DIV = 3 };

void wgk_f32_binary(int op, float *y, const float *a, const float *b, int rank,
                    const int32_t *dims, const int32_t *sa, const int32_t *sb);
void wgk_i32_binary(int op, int32_t *y, const int32_t *a, const int32_t *b, int rank,
                    const int32_t *dims, const int32_t *sa, const int32_t *sb);
void wgk_i64_binary(int op, int64_t *y, const int64_t *a, const int64_t *b, int rank,
                    const int32_t *dims, const int32_t *sa, const int32_t *sb);

/* Activations over n contiguous floats; y may equal x. */
void wgk_f32_relu(float *y, const float *x, size_t n);
void wgk_f32_leaky_relu(float *y, const float *x, size_t n, float alpha);
void wgk_f32_sigmoid(float *y, const float *x, size_t n);
void wgk_f32_tanh(float *y, const float *x, size_t n);
/* y = min(max(x, lo), hi); NaN stays NaN. */
void wgk_f32_clip(float *y, const float *x, size_t n, float lo, float hi);

#endif
