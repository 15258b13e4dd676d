/*
 * dyn_quant.c: DynamicQuantizeLinear (float32 -> uint8): the scale and zero point come from
 * the range of x widened to include 0, as ONNX defines them (arithmetic in float32,
 * rounding half to even), then y = saturate(round(x / scale) + zero_point), by
 * wgk_f32_qu8_dynamic_quantize (kernels/quant/f32-qu8-dynamic-quantize.c, SIMD128).
 * Symbolic dims (ops.def's WGC_SAME_SHAPE): over the run's elements. An input 1 (only
 * fuse_qconv_epilogue.c adds one) holds x's [min, max] per thread, kept by the kernels
 * that wrote x, so x is read once.
 */
#include <stdio.h>

#include "../ir/symdim.h"
#include "helpers/inline_loops.h"
#include "helpers/sym_code.h"

static wg_status dq_infer(wgc_graph *g, wgc_node *n)
{
    static const int f32[] = {WG_DT_FLOAT, 0};
    wg_status st = wgc_check_present_inputs(g, n, 1, 1, 3, f32);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' is too large", x->name);
    const wgc_shape scalar = {.rank = 0, .dims = {0}};
    wgc_set_output(g, n, 0, WG_DT_UINT8, &x->shape);
    wgc_set_output(g, n, 1, WG_DT_FLOAT, &scalar);
    wgc_set_output(g, n, 2, WG_DT_UINT8, &scalar);
    return WG_OK;
}

static wg_status dq_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const bool has_sc = n->n_outputs > 1 && n->outputs[1] >= 0;
    const bool has_zp = n->n_outputs > 2 && n->outputs[2] >= 0;
    char cnt[256];
    if (wgc_shape_is_sym(&x->shape))
        snprintf(cnt, sizeof cnt, "%s", wgc_sym_numel(e, x));
    else
        snprintf(cnt, sizeof cnt, "%lld", (long long)wgc_numel(&x->shape));
    wgc_emit(e, "{\nfloat sc;\nuint8_t zp;\n");
    if (n->n_inputs > 1) /* x's range from the kernels that wrote it (fuse_qconv_epilogue.c) */
        wgc_emit(e, "wgk_f32_qu8_dynamic_quantize_ranged((const float *)%s, %s, (const float *)%s, %s, (uint8_t *)%s, "
                    "&sc, &zp);\n",
                 wgc_ptr(e, g, n->inputs[0]), cnt, wgc_ptr(e, g, n->inputs[1]), wgc_threaded(e) ? "wg_n" : "1",
                 wgc_ptr(e, g, n->outputs[0]));
    else
        wgc_emit(e, "wgk_f32_qu8_dynamic_quantize((const float *)%s, %s, (uint8_t *)%s, &sc, &zp);\n",
                 wgc_ptr(e, g, n->inputs[0]), cnt, wgc_ptr(e, g, n->outputs[0]));
    if (has_sc)
        wgc_emit(e, "*(float *)%s = sc;\n", wgc_ptr(e, g, n->outputs[1]));
    if (has_zp)
        wgc_emit(e, "*(uint8_t *)%s = zp;\n", wgc_ptr(e, g, n->outputs[2]));
    wgc_emit(e, "(void)sc;\n(void)zp;\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_dyn_quant = {.infer = dq_infer, .emit = dq_emit, .sym = {.emit = dq_emit}};
