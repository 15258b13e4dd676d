/*
 * s32-conv3d-direct.c: the int32 convolution behind ConvInteger and QLinearConv (1-D, 2-D
 * and 3-D as 3-D, wgk_quant.h): direct loops with wrapping int32 accumulation, like
 * the rest of the quantized kernels exact rather than fast.
 */
#include "wgk_quant.h"

/* int32 products and sums wrap (computed in uint32, as two's complement defines them) */
#define CONV3D_NAME wgk_s32_conv3d_direct
#define CONV3D_ARGS wgk_s32_conv_args
#define CONV3D_T int32_t
#define CONV3D_ACC uint32_t
#define CONV3D_INIT(a, m) ((a)->bias ? (uint32_t)(a)->bias[m] : 0u)
#define CONV3D_MAC(s, xv, wv) ((s) += (uint32_t)(xv) * (uint32_t)(wv))
#define CONV3D_STORE(a, s, m, yi) ((a)->y[yi] = (int32_t)(s))
#include "conv3d-direct-loops.h"
