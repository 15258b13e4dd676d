/*
 * select_gemm.c: the GEMM kernel of Gemm and MatMul nodes. A constant B that the kernel
 * can read in column panels (Gemm without transA; MatMul with one B matrix, rank <= 2) is
 * packed at compile time for the packed-B kernel, which streams it once; a MatMul whose B
 * is not (computed at run time, as attention's, or batched) packs it at run time into its
 * scratch, one product at a time, when A has
 * enough rows per product (SIMD builds); every other product runs on the target's GEMM
 * (4x8 SIMD128 or 4x4 scalar). In a float16 model (lower_fp16 widened its weights), a
 * MatMul's packed B whose values are all float16 ones (within wgk_f16.h's range) stays float16 in the module
 * and in memory, and the kernel widens it as it reads it (GEMM_PACKED_B_F16): a decode
 * step's GEMVs read half the bytes. A MatMul's B that folding made from a DequantizeLinear
 * of uint8 / int8 constants (a q8 file's tied lm_head: its embedding table, transposed)
 * stays one byte per weight, dequantized in registers (GEMM_PACKED_B_Q8): a quarter of the
 * bytes, the same products.
 */
#include "select_ops.h"

#include "../ir/symdim.h"

#include "../../kernels/include/wgk_f16.h"
#include "../../kernels/include/wgk_gemm.h"
#include "../../kernels/include/wgk_pack.h"
#include "../common/dtype.h"
#include "tunables.h"

static wgc_kernel plain_gemm(const wgc_select_target *t)
{
    return t->simd ? WGC_KERNEL_GEMM_4X8 : WGC_KERNEL_GEMM_4X4;
}

void wgc_select_gemm(wgc_graph *g, wgc_node *n, const wgc_select_target *t)
{
    const wgc_tensor *b = wgc_in(g, n, 1);
    const bool packed = b && b->data && !wgc_attr_int(n, "transA", 0);
    /* A constant B with transA is transposed at compile time (gemm.c). */
    n->impl = (wgc_impl){.kernel = packed ? WGC_KERNEL_GEMM_PACKED_B : plain_gemm(t),
                         .prep = b && b->data ? WGC_PREP_COMPILE : WGC_PREP_NONE};
}

/* A packed B that may stay float16 (wgk_gemm_args.bh): a float16 model's, every value a
 * float16 one within the stored halves' range (wgk_f16.h), K within the kernel's bound,
 * and A's rows symbolic (a decoder's: one row a decode step) or fewer than 4 (a GEMV).
 * With four rows or more the kernel widens each panel once per block of rows, which
 * costs more than it saves there (an encoder's fixed 128 rows: its K = 1536 products 25%
 * slower than on the float32 panels the module widens once, on its first run). */
static bool b_stays_half(const wgc_graph *g, const wgc_tensor *a, const wgc_tensor *b)
{
    if (!a || (!wgc_shape_is_sym(&a->shape) && b->shape.dims[0] > 0 &&
               wgc_numel(&a->shape) / b->shape.dims[0] >= 4))
        return false;
    return g->fp16_weights && b->dtype == WG_DT_FLOAT && b->shape.dims[0] <= WGK_GEMM_NARROW_MAX_K &&
           wg_f32_all_f16_within(b->data, (size_t)wgc_numel(&b->shape), WGK_F16_WEIGHT_MAX);
}

/* A packed B that may stay one byte per weight (wgk_gemm_args.bq): a 2-D B that folding
 * made from a DequantizeLinear of uint8 / int8 constants whose scale and zero point are
 * one for all or one per column (axis 1), K within the kernel's bound. */
static bool b_stays_bytes(const wgc_graph *g, const wgc_tensor *b)
{
    if (!b->from_dq || b->shape.rank != 2 || b->shape.dims[0] > WGK_GEMM_NARROW_MAX_K || b->dq_axis == 0)
        return false;
    const wgc_tensor *x = &g->tensors[b->dq_x], *s = &g->tensors[b->dq_scale];
    const wgc_tensor *z = b->dq_zero >= 0 ? &g->tensors[b->dq_zero] : NULL;
    return x->data && s->data && s->dtype == WG_DT_FLOAT && (!z || z->data) &&
           (x->dtype == WG_DT_UINT8 || x->dtype == WG_DT_INT8) && wgc_shape_eq(&x->shape, &b->shape);
}

void wgc_select_matmul(wgc_graph *g, wgc_node *n, const wgc_select_target *t)
{
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1);
    const bool packed = b && b->data && b->shape.rank <= 2;
    n->impl = (wgc_impl){.kernel = !packed                  ? plain_gemm(t)
                                   : b_stays_half(g, a, b)  ? WGC_KERNEL_GEMM_PACKED_B_F16
                                   : b_stays_bytes(g, b)    ? WGC_KERNEL_GEMM_PACKED_B_Q8
                                                            : WGC_KERNEL_GEMM_PACKED_B,
                         .prep = packed ? WGC_PREP_COMPILE : WGC_PREP_NONE};
    /* symbolic shapes run on ops/sym_emit.c's GEMM calls, which take the plain kernels */
    if (packed || !t->simd || !a || !b || a->shape.rank < 2 || b->shape.rank < 2 ||
        wgc_shape_is_sym(&a->shape) || wgc_shape_is_sym(&b->shape))
        return;
    const int64_t M = a->shape.dims[a->shape.rank - 2], K = b->shape.dims[b->shape.rank - 2],
                  N = b->shape.dims[b->shape.rank - 1];
    if (M >= WGC_GEMM_PACK_RUN_MIN_M && K > 0 && N > 0) {
        n->impl.kernel = WGC_KERNEL_GEMM_PACK_RUN;
        n->impl.scratch = sizeof(float) * wgk_pack_b_size((size_t)K, (size_t)N);
    }
}
