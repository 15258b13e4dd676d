/*
 * kernels.h: what the compiler knows of each kernel in kernels.def (label, C symbol,
 * weight layout, prepare function, what it fuses, Winograd tile), for the selection step,
 * the op emitters, the metadata and the tests. The enum wgc_kernel is in ir.h.
 */
#ifndef WGC_IR_KERNELS_H
#define WGC_IR_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"

/* kernels.def's PACK column. */
typedef enum wgc_pack {
    WGC_PACK_ONNX,   /* the model's layout (or a weight computed at run time) */
    WGC_PACK_CONV,   /* wgk_conv_pack_w: MR-row panels of the [M][C/groups*KH*KW] matrix */
    WGC_PACK_PHASES, /* wgk_conv_phases_weights (4x4 filters on 4C channels), then wgk_conv_pack_w */
    WGC_PACK_GEMM_B, /* wgk_pack_b: column panels of a constant B */
    WGC_PACK_GEMM_B_F16, /* GEMM_B's panels as float16 (every value a finite float16 one) */
    WGC_PACK_GEMM_B_Q8,  /* wgk_pack_b_q8: GEMM_B's panels one byte a weight, a folded DequantizeLinear's
                          * uint8 / int8 values with their scales and zero points */
    WGC_PACK_DECONV, /* wgk_deconv2d_pack_w: MR-row panels of each group's [M/groups*KH*KW][C/groups] */
    WGC_PACK_Q8_GEMM_B, /* wgk_qgemm_pack_strided: the int8 GEMM's panels of a uint8 / int8 B, one byte a
                         * weight, with its zero point's corrections */
} wgc_pack;

/* kernels.def's FUSES column. */
enum { WGC_FUSES_POST = 1, WGC_FUSES_BN = 2 };

typedef struct wgc_kernel_info {
    const char *name;    /* "CONV2D_PACKED" */
    const char *label;   /* "packed 4x8" */
    const char *symbol;  /* C function, or a format over KH, KW, SH, SW */
    wgc_pack pack;
    const char *prepare; /* NULL for none */
    const char *scratch; /* the scratch rule's name, "scratch_none" for none */
    unsigned fuses;      /* WGC_FUSES_* */
    const char *split;   /* the thread-split rule (kernels/include/wgk_split.h), NULL: none */
    int tile, matrices, taps;
} wgc_kernel_info;

/* kernels.def's line for k; NULL for WGC_KERNEL_NONE and out-of-range values. */
const wgc_kernel_info *wgc_kernel_get(wgc_kernel k);
/* Whether k takes a scratch area (a scratch rule other than scratch_none). */
bool wgc_kernel_has_scratch(wgc_kernel k);
/* Whether a threaded module divides kernel k's output among its threads (kernels.def's
 * split rule). */
bool wgc_kernel_splits(wgc_kernel k);
/* Whether node n's code runs on every thread: its kernel splits, and so does the one it
 * runs on the first run instead, if any (wgc_impl.first_run). */
bool wgc_node_splits(const wgc_node *n);
/* Whether n's scratch has a copy per thread (plan.h scratch_per_thread): the nodes above,
 * and those of ops whose emitter may split them itself while using scratch. */
bool wgc_node_scratch_per_thread(const wgc_node *n);
/* Elementwise code outside kernels.def (binary ops, pooling by planes) splits across
 * threads from this many output elements: below, a barrier costs more than it saves. */
#define WGC_SPLIT_MIN_ELEMENTS 65536
/* Whether k is the packed-B GEMM (wgk_f32_gemm_pb) on float32, float16 or one-byte panels:
 * the kernel of a fused bias or GELU. */
static inline bool wgc_kernel_is_packed_b(wgc_kernel k)
{
    return k == WGC_KERNEL_GEMM_PACKED_B || k == WGC_KERNEL_GEMM_PACKED_B_F16 || k == WGC_KERNEL_GEMM_PACKED_B_Q8;
}
/* k's label, "" for WGC_KERNEL_NONE. */
const char *wgc_kernel_label(wgc_kernel k);
/* The C function k is for a layer with kh x kw filters and strides sh, sw, into buf
 * (the symbol itself for kernels not specialised to them); "" for WGC_KERNEL_NONE. */
const char *wgc_kernel_symbol(wgc_kernel k, int kh, int kw, int sh, int sw, char *buf, size_t len);

#endif
