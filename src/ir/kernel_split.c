/*
 * kernel_split.c: which kernels of kernels.def divide their output among the threads
 * of a threaded module (compile --threads) by the wgk_part in their arguments
 * (kernels/include/wgk_base.h). The node of any other kernel runs on thread 0 while the
 * others wait at the next barrier. Adopting it for a kernel: split its output with
 * wgk_part_range in the kernel, pass wgc_part(e) from its emitter, add it here
 * (docs/performance.md "Threads").
 */
#include "kernels.h"

bool wgc_kernel_splits(wgc_kernel k)
{
    switch (k) {
    case WGC_KERNEL_CONV2D_PACKED:        /* weight panels */
    case WGC_KERNEL_CONV2D_STRASSEN:      /* half-size weight panels */
    case WGC_KERNEL_CONV2D_FEWPIX:        /* pairs of weight panels */
    case WGC_KERNEL_CONV2D_DW:            /* whole groups of channels */
    case WGC_KERNEL_CONV2D_DW_PADDED:
    case WGC_KERNEL_CONV2D_WINOGRAD_F2X3: /* tile blocks or output channels: wgk_winograd_part */
    case WGC_KERNEL_CONV2D_WINOGRAD_F4X3:
    case WGC_KERNEL_CONV2D_WINOGRAD_F2X5:
    case WGC_KERNEL_CONV2D_WINOGRAD_S2:
    case WGC_KERNEL_CONV2D_PHASES: /* its F(3x3,4x4) conv as above; the phase split repeated */
    case WGC_KERNEL_DECONV2D_STORE: /* weight-row panels */
    case WGC_KERNEL_GEMM_PACKED_B: /* rows or columns: wgk_gemm_share */
    case WGC_KERNEL_GEMM_PACK_RUN: /* the same, each thread packing B into its own scratch */
    case WGC_KERNEL_GEMM_4X8:
    case WGC_KERNEL_GEMM_4X4:
        return true;
    default:
        return false;
    }
}

bool wgc_node_splits(const wgc_node *n)
{
    return wgc_kernel_splits(n->impl.kernel) &&
           (n->impl.first_run == WGC_KERNEL_NONE || wgc_kernel_splits(n->impl.first_run));
}

bool wgc_node_scratch_per_thread(const wgc_node *n)
{
    /* Resize divides its planes among the threads in its emitter (ops/resize.c). */
    return wgc_node_splits(n) || n->op == WGC_OP_RESIZE;
}
