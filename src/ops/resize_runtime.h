/*
 * resize_runtime.h: Resize and Upsample whose sizes the module decides (module ABI 2
 * "Run-time output dims" and "Run-time values").
 *
 * A Resize takes this path when its input has a symbolic dim, or its scales, sizes or roi
 * are computed at run time or hold symbolic values (sizes from Shape(skip), a U-Net's
 * decoder). Each output axis is then:
 *   - fixed: a constant scale or size on a fixed axis, or sizes at a fixed value;
 *   - a monomial of the symbols: an integer constant scale on a symbolic axis (k * h),
 *     or sizes holding symbolic values (Shape(skip)[2]);
 *   - a run-time symbol bounded from the inputs' bounds: sizes computed at run time
 *     (bounded by their value ranges, ir/valrange.h), a non-integer constant scale on a
 *     symbolic axis (floor(s * h), at most floor(s * h_max)).
 * Scales computed at run time decide sizes nothing bounds and are refused, saying that
 * sizes, or --const, would make the model compile. The module fills a wgk_resize_plan
 * with the actual sizes, checks each output size against its bound (WGK_ERR_SIZE_BOUND)
 * and the values against ONNX's rules (WGK_ERR_INDEX), and builds the tap tables in
 * scratch with the compiler's own functions (kernels/include/wgk_resize_plan.h).
 */
#ifndef WGC_OPS_RESIZE_RUNTIME_H
#define WGC_OPS_RESIZE_RUNTIME_H

#include "op.h"

#include "../../kernels/include/wgk_resize_plan.h"

/* What a Resize node says before any value is read: attributes, the axes its inputs list,
 * and those inputs (NULL when omitted; maybe not constant). plan.in holds x's dims (at the
 * maxima when symbolic), plan.out = in, scales 1, roi 0..1. */
typedef struct wgc_resize_setup {
    wgk_resize_plan plan;
    bool legacy; /* Upsample or Resize-10: asymmetric, nearest rounding down */
    int keep;    /* WGK_RS_STRETCH ... */
    float extrapolation;
    int axes[WG_MAX_RANK], na;
    const float *scales_attr; /* Upsample-7's scales attribute, or NULL */
    const wgc_tensor *roi, *scales, *sizes;
} wgc_resize_setup;

/* Reads and checks n's attributes and inputs' dtypes and lengths (resize.c). */
wg_status wgc_resize_setup_read(wgc_graph *g, const wgc_node *n, wgc_resize_setup *s);

/* The constant scales of s (the attribute or the scales input) into sc[0..na-1], each
 * checked: positive, at most WGK_RESIZE_MAX_SCALE, no nearest downsampling in Upsample or
 * Resize-10 (resize.c). */
wg_status wgc_resize_const_scales(wgc_graph *g, const wgc_node *n, const wgc_resize_setup *s, double *sc);

/* Is n a Resize or Upsample whose input has a symbolic dim, or whose scales, sizes or roi
 * are not plain constants? */
bool wgc_resize_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape for x's shape as it stands (symbolic dims hidden or not). */
wg_status wgc_resize_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y);
/* Scratch bytes of the planned kernel at the bounds. */
size_t wgc_resize_runtime_scratch(wgc_graph *g, const wgc_node *n);
wg_status wgc_resize_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

#endif
