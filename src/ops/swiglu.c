/*
 * swiglu.c: SwiGLU (opset 28), y = Swish_alpha(a) * b = a * b / (1 + exp(-alpha * a)) for a
 * gate a and a value b of one shape (no broadcasting), float and double, elementwise through
 * the generic loop (gen.h), computed in double.
 */
#include "helpers/host_elements.h"
#include "helpers/swish_gate.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

static wg_status swiglu_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_two_inputs(g, n, floats, floats);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1);
    if (a->dtype != b->dtype || !wgc_shape_eq(&a->shape, &b->shape)) {
        char sa[128], sb[128];
        return wgc_error(g, n, WG_ERR_INVALID, "A (%s %s) and B (%s %s) must have one dtype and shape",
                         wg_dtype_name(a->dtype), wgc_shape_str(&a->shape, sa, sizeof sa),
                         wg_dtype_name(b->dtype), wgc_shape_str(&b->shape, sb, sizeof sb));
    }
    wgc_set_output(g, n, 0, a->dtype, &a->shape);
    return WG_OK;
}

const wgc_op_def wgc_op_swiglu = {.infer = swiglu_infer, .fold = wgc_swish_fold, .emit = wgc_swish_emit};
