/*
 * fused_epilogue.h: the fused epilogue (node->act, node->residual) as the kernels take it:
 * a clamp range [lo, hi] (none and HardSwish: [-inf, inf], Relu: [0, inf], Clip:
 * [min, max]), and for Conv the post-ops after it (wgc_post_ops).
 */
#ifndef WGC_OPS_FUSED_EPILOGUE_H
#define WGC_OPS_FUSED_EPILOGUE_H

#include <math.h>

#include "../op.h"

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

/* The conv kernels' post-ops (wgk_conv.h: WGK_POST_*) after the clamp: a fused
 * HardSwish, then a fused scalar y * scale + shift. */
static inline int wgc_post_ops(const wgc_node *n, float *scale, float *shift)
{
    *scale = n->post_affine ? n->post_scale : 1.0f;
    *shift = n->post_affine ? n->post_shift : 0.0f;
    return (n->act == WGC_ACT_HARDSWISH ? 1 : 0) | (n->post_affine ? 2 : 0);
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
