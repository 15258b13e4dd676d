/*
 * swish.c: Swish (opset 24), y = x * sigmoid(alpha * x) = x / (1 + exp(-alpha * x)), float
 * and double, elementwise through the generic loop (gen.h), computed in double; over
 * symbolic shapes too (x's shape, ops.def's WGC_SAME_SHAPE). onnxruntime's QuickGelu
 * expands into it (contrib_gelu.c).
 */
#include "helpers/swish_gate.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

static wg_status swish_infer(wgc_graph *g, wgc_node *n)
{
    return wgc_infer_same_as_input(g, n, floats);
}

const wgc_op_def wgc_op_swish = {
    .infer = swish_infer,
    .fold = wgc_swish_fold,
    .emit = wgc_swish_emit,
    .sym = {.emit = wgc_swish_sym_emit},
};
