/*
 * pack_weight.h: the packing step. A kernel's weight layout is declared once, in the PACK
 * column of src/ir/kernels.def (wgc_kernel_get(kernel)->pack); an op's emit hook hands its
 * constant weight and that layout to wgc_pack_weight, which lays the weight out at compile
 * time, places it in the module's weights (wgc_weight) and gives its address. Emitters do
 * not pack float weights by hand.
 *
 * A weight the kernel reads as the model gives it (WGC_PACK_ONNX, or one computed at run
 * time) is not copied: read it with wgc_ptr. The one exception is a GEMM's transposed B,
 * which the kernels of ONNX layout read row-major [K][N]: WGC_PACK_ONNX with a GEMM
 * geometry makes that copy.
 *
 * A float GEMM's B that folding made from a DequantizeLinear of uint8 / int8 constants
 * (WGC_PACK_GEMM_B_Q8, wgc_tensor.from_dq) is packed from those bytes, its scale and zero
 * point, one byte per weight, once per tensor (a Gather of the table reads them too); the
 * floats are not placed.
 *
 * The int8 GEMM's B (WGC_PACK_Q8_GEMM_B: MatMulInteger's B, the int8 im2col conv's W^T) is
 * a uint8 / int8 weight with its zero point, one byte per weight. Not through this step
 * yet: the int8 pointwise and depthwise convs' int16 pairs minus the zero points
 * (wgk_q8_conv1x1_pack_w, wgk_q8_dwconv_pack_w, qconv.c).
 */
#ifndef WGC_OPS_PACK_WEIGHT_H
#define WGC_OPS_PACK_WEIGHT_H

#include <stddef.h>

#include "../../ir/kernels.h"
#include "../op.h"

/* What the layouts need of the weight's shape; each reads its own fields. */
typedef struct wgc_pack_geom {
    /* GEMM_B (wgk_pack_b column panels, and as float16 or bytes: GEMM_B_F16, GEMM_B_Q8)
     * and ONNX (row-major [K][N]): the GEMM's B is K x N, its element (k, j) at
     * w[k * sk + j * sn] (sk = N, sn = 1 for [K][N]; sk = 1, sn = K for Gemm's transB
     * [N][K]). */
    size_t K, N, sk, sn;
    /* Q8_GEMM_B (wgk_qgemm_pack_strided): the same B (uint8 or int8, the weight's dtype)
     * and its zero point zp of the same dtype (NULL: none), one value or, with zp_per_col,
     * one per column. */
    const wgc_tensor *zp;
    bool zp_per_col;
    /* CONV (wgk_conv_pack_w panels of the [M][C/groups*KH*KW] matrix) and PHASES (the
     * phase split's 4x4 filters on 4C channels, wgk_conv_phases_weights, then
     * wgk_conv_pack_w as one group): the conv's filters [M][C/groups][KH][KW]. DECONV
     * (wgk_deconv2d_pack_w): a transposed conv's filters [C][M/groups][KH][KW]. */
    size_t M, C, KH, KW, groups;
} wgc_pack_geom;

/* Lays out constant weight w (of node n) in layout, places it in the module's weights and
 * sets *expr to its address expression (wgc_weight's: valid for the next 16 such calls).
 * Errors: WG_ERR_NOMEM "out of memory packing weight '<w>'"; WG_ERR_INVALID for a weight
 * computed at run time or a layout that is not packed at compile time (compiler bugs). */
wg_status wgc_pack_weight(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_tensor *w,
                          wgc_pack layout, const wgc_pack_geom *geo, const char **expr);

/* A q8 file's tied embedding: the MatMul B (a tensor index, -1: none) whose GEMM_B_Q8 panels
 * (a live MatMul's, its B [H][V] folded from a DequantizeLinear of the transpose of table)
 * hold constant uint8 / int8 table [V][H]'s rows as their columns, so that a Gather of
 * the table reads them there (wgk_gather_q8_panels) and the module holds the bytes once.
 * wgc_pack_weight places them once per B, with B's geometry (K = H, N = V, sk = V, sn = 1). */
int wgc_q8_panels_of_table(const wgc_graph *g, int table);
/* The same for a float32 table [V][H] and a live MatMul's float32 GEMM_B panels of a B that
 * is the table's transpose bit for bit (a float32 tied lm_head: wgk_gather_f32_panels), or
 * its GEMM_B_F16 panels (*halves true: a float16 file's tied lm_head, wgk_gather_f16_panels;
 * the Gather's halves are the lm_head's bytes, placed once: wgc_weight_bytes). */
int wgc_f32_panels_of_table(const wgc_graph *g, int table, bool *halves);

/* Whether the GEMM_B_Q8 panels of w (a folded DequantizeLinear) share one head of scales
 * and zero points, laid before them: one scale and zero point for every column
 * (wgk_pack_b_q8, wgk_gemm_args.bq_head); otherwise each panel has its own. */
bool wgc_q8_panels_shared(const wgc_tensor *w);

#endif
