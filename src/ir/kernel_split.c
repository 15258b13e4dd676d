/*
 * kernel_split.c: which nodes of a threaded module (compile --threads) run on every
 * thread, each computing its share of the output. A kernel's share comes from the split
 * rule kernels.def names for it (kernels/include/wgk_split.h), which the generated code
 * calls before the kernel (wgc_emit_split_call); the node of any other kernel runs on
 * thread 0 while the others wait at the next barrier. Adopting threads for a kernel:
 * have it take a wgk_share (or a smaller GEMM), write its rule in wgk_split.h, name the
 * rule in kernels.def, and add the rule's shares to kernels/tests/test_split.c
 * (docs/performance.md "Threads").
 */
#include "kernels.h"

bool wgc_kernel_splits(wgc_kernel k)
{
    const wgc_kernel_info *i = wgc_kernel_get(k);
    return i && i->split;
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
