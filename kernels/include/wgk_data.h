/*
 * wgk_data.h: data movement kernels: strided copy, transpose, concat rows, pad, gather,
 * dtype conversion. Element sizes are in bytes; dims, strides and pads in elements.
 * Dtype numbers are ONNX's (1 float32, 2 uint8, 3 int8, 4 uint16, 5 int16, 6 int32,
 * 7 int64, 9 bool, 10 float16, 11 float64, 12 uint32, 13 uint64).
 *
 *     // y = transpose(x, perm = {0, 2, 3, 1}) of an NCHW float tensor 1x3x4x5
 *     wgk_transpose(y, x, 4, 4, (const int32_t[]){1, 3, 4, 5}, (const int32_t[]){0, 2, 3, 1});
 */
#ifndef WGK_DATA_H
#define WGK_DATA_H

#include "wgk_base.h"
#include "wgk_status.h"

#define WGK_MAX_RANK 8

/* y (contiguous, dims[rank]) = x read with element strides xs[rank]. */
void wgk_copy_strided(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, size_t esize, int rank,
                      const int32_t *dims, const int32_t *xs);
/* y = x transposed: y dim d is x dim perm[d]. */
void wgk_transpose(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, size_t esize, int rank,
                   const int32_t *x_dims, const int32_t *perm);
/* rows rows of row_bytes bytes from x (row pitch xs bytes) to y (row pitch ys bytes):
 * one Concat input is rows = product of dims before the axis, row_bytes = its slab. */
void wgk_copy_rows(void *WGK_RESTRICT y, size_t ys, const void *WGK_RESTRICT x, size_t xs,
                   size_t rows, size_t row_bytes);

enum { WGK_PAD_CONSTANT = 0, WGK_PAD_REFLECT = 1, WGK_PAD_EDGE = 2 };
/* y has dims x_dims[d] + begin[d] + end[d]; pads may be negative (cropping). value points
 * to one element (esize bytes) used by WGK_PAD_CONSTANT. Reflect needs pads < dim. */
void wgk_pad(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, size_t esize, int rank,
             const int32_t *x_dims, const int32_t *begin, const int32_t *end, int mode,
             const void *value);

/* y[o][j][i] = x[o][idx[j]][i] for o < outer, j < n_idx; x has axis_dim rows of
 * inner_bytes per outer step. Indices are int32 (idx_size 4) or int64 (8); negative ones
 * count from the end. Returns 0, or WGK_ERR_INDEX (after zero-filling the slab) when an
 * index is out of range. */
int wgk_gather(void *WGK_RESTRICT y, const void *WGK_RESTRICT x, const void *idx, int idx_size,
               size_t n_idx, size_t outer, size_t axis_dim, size_t inner_bytes);

/* The rows idx[j] (j < n_idx) of a uint8 / int8 table [N][K] that wgk_pack_b_q8 packed at
 * panels as the columns of B [K][N] (a q8 file's tied embedding, which its lm_head reads
 * so; shared: its panels share one head, wgk_pack.h), into y [n_idx][K]: the table's bytes.
 * Indices as for wgk_gather; returns 0, or WGK_ERR_INDEX (after zero-filling the row) when
 * one is out of range. */
int wgk_gather_q8_panels(uint8_t *WGK_RESTRICT y, const int8_t *WGK_RESTRICT panels, int is_signed, int shared,
                         const void *idx, int idx_size, size_t n_idx, size_t K, size_t N);
/* The same for a float32 table [N][K] that wgk_pack_b packed as the columns of B [K][N] (the
 * tied embedding of a float32 lm_head): a row is a panel column, one float every NR. */
int wgk_gather_f32_panels(float *WGK_RESTRICT y, const float *WGK_RESTRICT panels, const void *idx, int idx_size,
                          size_t n_idx, size_t K, size_t N);
/* The same for a float16 table whose lm_head reads it as float16 panels (GEMM_B_F16: halves
 * of the weights times WGK_F16_WEIGHT_SCALE, wgk_f16.h): each row widened back to the
 * table's values, exactly. */
int wgk_gather_f16_panels(float *WGK_RESTRICT y, const uint16_t *WGK_RESTRICT panels, const void *idx, int idx_size,
                          size_t n_idx, size_t K, size_t N);

/* Converts n elements between any two numeric dtypes above. Float to integer truncates
 * toward zero and saturates (NaN gives 0); to bool is x != 0. */
void wgk_cast(void *WGK_RESTRICT y, int y_dtype, const void *WGK_RESTRICT x, int x_dtype,
              size_t n);
float wgk_f16_to_f32(uint16_t h);
uint16_t wgk_f32_to_f16(float f); /* round to nearest even */

#endif
