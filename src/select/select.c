/* select.c: the kernel-selection step (select.h): every node's choice, then the model's
 * Winograd budget, computed once, and the Winograd convs' preparation that depends on it
 * (the float ones all or none, then the int8 ones in what is left). */
#include "select.h"

#include "../ops/helpers/qlinear.h"

#include "tunables.h"

wg_status wgc_select_kernels(wgc_graph *g, const wgc_select_target *t)
{
    wg_status st = WG_OK;
    size_t transformed = 0; /* bytes of every Winograd conv's transformed filters */
    for (int i = 0; i < g->n_nodes && !st; i++) {
        wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        switch (n->op) {
        case WGC_OP_CONV:
            if (!(st = wgc_select_conv(g, n, t)))
                transformed += wgc_select_conv_transformed_bytes(g, n);
            break;
        case WGC_OP_GEMM:
            wgc_select_gemm(g, n, t);
            break;
        case WGC_OP_MATMUL:
            wgc_select_matmul(g, n, t);
            break;
        case WGC_OP_CONV_TRANSPOSE:
            st = wgc_select_conv_transpose(g, n);
            break;
        case WGC_OP_MATMUL_NBITS: /* one kernel, named for the profile */
            n->impl.kernel = WGC_KERNEL_QBW_GEMM;
            break;
        case WGC_OP_MATMUL_INTEGER: /* a constant B: the int8 GEMM; else int32 loops */
            n->impl.kernel = wgc_qmatmul_packs_b(g, n) ? WGC_KERNEL_Q8_GEMM : WGC_KERNEL_NONE;
            break;
        case WGC_OP_CONV_INTEGER:
        case WGC_OP_QLINEAR_CONV:
            st = wgc_select_qconv(g, n, t);
            break;
        default: /* one implementation: nothing to choose */
            break;
        }
    }
    const bool per_run = transformed > WGC_WINOGRAD_KEEP_LIMIT;
    for (int i = 0; i < g->n_nodes && !st; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == WGC_OP_CONV)
            st = wgc_select_conv_prep(g, &g->nodes[i], per_run);
    /* The int8 Winograd convs: in what the float ones leave of the budget. */
    return st ? st : wgc_select_qconv_preps(g, per_run ? 0 : transformed);
}

wg_status wgc_pass_select_kernels(wgc_graph *g, const wgc_pass_options *opt)
{
    const wgc_select_target t = {.simd = opt->simd};
    return wgc_select_kernels(g, &t);
}
