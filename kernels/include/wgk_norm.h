/*
 * wgk_norm.h: normalisations: Softmax, LRN, BatchNormalization (inference), LayerNorm,
 * RMSNorm.
 */
#ifndef WGK_NORM_H
#define WGK_NORM_H

#include "wgk_base.h"

/* Softmax along the middle axis of an [outer][n][inner] view:
 * y[o][i][j] = exp(x[o][i][j] - max_i) / sum_i exp(x[o][i][j] - max_i). y may equal x. */
void wgk_f32_softmax(const float *x, float *y, int outer, int n, int inner);

/* LRN across channels of NCHW (inner = spatial size):
 * y = x / (bias + alpha/size * sum_{c' = c - (size-1)/2 .. c + size/2} x[c']^2)^beta. */
void wgk_f32_lrn(const float *x, float *y, int N, int C, int inner, int size, float alpha,
                 float beta, float bias);

/* Per-channel affine map (BatchNormalization at inference), inner = spatial size:
 * y[n][c][i] = clamp(x[n][c][i] * scale[c] + shift[c] (+ res[n][c][i]), min, max).
 * y may equal x. */
void wgk_f32_channel_affine(const float *x, const float *scale, const float *shift,
                            const float *res, float *y, int N, int C, int inner, float min,
                            float max);

/* scale[c] = gamma[c] / sqrt(var[c] + eps), shift[c] = beta[c] - mean[c] * scale[c]:
 * BatchNormalization's parameters when they are not constant at compile time. */
void wgk_f32_batchnorm_params(const float *gamma, const float *beta, const float *mean,
                              const float *var, float eps, int C, float *scale, float *shift);

/* LayerNormalization over rows of n contiguous floats:
 * y[o][k] = (x[o][k] - mean_o) / sqrt(var_o + eps) * gamma[k] + beta[k] (beta may be NULL);
 * statistics in double from one read of the row; mean and invstd (may be NULL) get
 * mean_o and 1 / sqrt(var_o + eps). y may equal x. */
void wgk_f32_layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                       int n, float eps, float *mean, float *invstd);

/* RMSNormalization: y[o][k] = x[o][k] / sqrt(mean_k x[o][k]^2 + eps) * gamma[k]. */
void wgk_f32_rmsnorm(const float *x, const float *gamma, float *y, int rows, int n, float eps);

#endif
