/*
 * epilogue.h: the fused epilogue (node->act, node->residual) as the kernels take it:
 * a clamp range [lo, hi] (none: [-inf, inf], Relu: [0, inf], Clip: [min, max]).
 */
#ifndef WGC_OPS_EPILOGUE_H
#define WGC_OPS_EPILOGUE_H

#include <math.h>

#include "op.h"

static inline void wgc_act_range(const wgc_node *n, float *lo, float *hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (n->act == WGC_ACT_RELU) {
        *lo = 0.0f;
    } else if (n->act == WGC_ACT_CLIP) {
        *lo = n->act_min;
        *hi = n->act_max;
    }
}

/* For ops whose kernels have no epilogue: a fused residual is a pass bug, not a model
 * problem, but is still reported instead of silently dropped. */
static inline wg_status wgc_no_residual(wgc_graph *g, const wgc_node *n)
{
    if (n->residual >= 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a fused residual add is not supported on %s",
                         n->op_type);
    return WG_OK;
}

#endif
