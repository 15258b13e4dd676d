/* unary.c: Relu, LeakyRelu, Sigmoid, Tanh (float32 at run time; any float dtype folds). */
#include <math.h>

#include <stdio.h>

#include "elem.h"
#include "gen.h"

static wg_status unary_infer(wgc_graph *g, wgc_node *n)
{
    /* Relu also accepts integer types since opset 14; the others are float only. */
    static const int floats[] = {WG_DT_FLOAT, WG_DT_FLOAT16, WG_DT_DOUBLE, 0};
    static const int relu[] = {WG_DT_FLOAT, WG_DT_FLOAT16, WG_DT_DOUBLE, WG_DT_INT8,
                               WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, 0};
    wg_status st = wgc_check_arity(g, n, 1, 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, n->op == WGC_OP_RELU ? relu : floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

static double apply(wgc_op op, double x, double alpha)
{
    switch (op) {
    case WGC_OP_RELU: return x > 0 ? x : 0;
    case WGC_OP_LEAKY_RELU: return x >= 0 ? x : x * alpha;
    case WGC_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    default: return tanh(x);
    }
}

static wg_status unary_fold(wgc_graph *g, wgc_node *n)
{
    if (!wgc_inputs_const(g, n) || n->act != WGC_ACT_NONE)
        return WG_ERR_UNSUPPORTED;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    double alpha = wgc_attr_float(n, "alpha", 0.01f);
    int64_t count = wgc_numel(&y->shape);
    for (int64_t i = 0; i < count; i++) {
        if (wg_dtype_is_float(y->dtype))
            wgc_elem_set_f(data, y->dtype, i, apply(n->op, wgc_elem_get_f(x->data, x->dtype, i),
                                                    alpha));
        else /* integer Relu */
            wgc_elem_set_i(data, y->dtype, i, wgc_elem_get_i(x->data, x->dtype, i) > 0
                                                  ? wgc_elem_get_i(x->data, x->dtype, i)
                                                  : 0);
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

static wg_status unary_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    if (y->dtype != WG_DT_FLOAT && n->act == WGC_ACT_NONE) {
        char ex[160], al[40];
        switch (n->op) {
        case WGC_OP_RELU: snprintf(ex, sizeof ex, "a > 0 ? a : 0"); break;
        case WGC_OP_LEAKY_RELU:
            snprintf(ex, sizeof ex, "a >= 0 ? a : a * (T)%s",
                     wgc_dlit(al, sizeof al, wgc_attr_float(n, "alpha", 0.01f)));
            break;
        case WGC_OP_SIGMOID: snprintf(ex, sizeof ex, "(T)1 / ((T)1 + WGK_EXP(-a))"); break;
        default: snprintf(ex, sizeof ex, "WGK_TANH(a)"); break;
        }
        return wgc_gen_map(e, g, n, n->inputs, 1, n->outputs[0], ex);
    }
    if (y->dtype != WG_DT_FLOAT)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "dtype %s at run time (only float32; other dtypes fold when constant)",
                         wg_dtype_name(y->dtype));
    wg_status st = wgc_check_i32_numel(g, n, y);
    if (st)
        return st;
    size_t count = (size_t)wgc_numel(&y->shape);
    if (count == 0)
        return WG_OK;
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    switch (n->op) {
    case WGC_OP_RELU: wgc_emit(e, "wgk_f32_relu(%s, %s, %zu);\n", py, px, count); break;
    case WGC_OP_LEAKY_RELU:
        wgc_emit(e, "wgk_f32_leaky_relu(%s, %s, %zu, %s);\n", py, px, count,
                 wgc_float(e, wgc_attr_float(n, "alpha", 0.01f)));
        break;
    case WGC_OP_SIGMOID: wgc_emit(e, "wgk_f32_sigmoid(%s, %s, %zu);\n", py, px, count); break;
    default: wgc_emit(e, "wgk_f32_tanh(%s, %s, %zu);\n", py, px, count); break;
    }
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_unary = {unary_infer, unary_fold, unary_emit, NULL};
