/*
 * contrib_qmatmul.c: onnxruntime's integer matrix products with a float result
 * (com.microsoft, version 1), which its quantization tools write for dynamically quantized
 * models:
 *   MatMulIntegerToFloat(A, B, a_scale, b_scale[, a_zero_point, b_zero_point, bias])
 *     = float(MatMulInteger(A, B, a_zero_point, b_zero_point)) * (a_scale * b_scale) + bias
 *   DynamicQuantizeMatMul(A, B, b_scale[, b_zero_point, bias]): the same, A float32
 *     quantized to uint8 first as DynamicQuantizeLinear does.
 * Each expands into those ONNX ops (helpers/expand_node.h), so the int8 GEMM, its packed
 * constant B and symbolic rows serve them. The scales multiply first, then the product,
 * as onnxruntime's output processor does. Checks: a_scale a scalar; b_scale and
 * b_zero_point scalars or one value per column of B; bias one dim, B's columns.
 */
#include "helpers/expand_node.h"

static const int f32[] = {WG_DT_FLOAT, 0};
static const int int8s[] = {WG_DT_UINT8, WG_DT_INT8, 0};

/* Whether p (optional) is a scalar, or with per_col a 1-D tensor of B's n columns. */
static bool per_tensor_or_column(const wgc_tensor *p, int64_t n, bool per_col)
{
    if (!p)
        return true;
    if (wgc_numel(&p->shape) == 1 && p->shape.rank <= 1)
        return true;
    return per_col && p->shape.rank == 1 && p->shape.dims[0] == n;
}

static wg_status check(wgc_graph *g, const wgc_node *n, bool dynamic)
{
    static const char *const none[] = {NULL};
    /* inputs: MatMulIntegerToFloat A B a_scale b_scale [a_zp b_zp bias];
     * DynamicQuantizeMatMul A B b_scale [b_zp bias] */
    const int bs = dynamic ? 2 : 3, bz = dynamic ? 3 : 5, bias = dynamic ? 4 : 6;
    wg_status st = wgc_check_attr_names(g, n, none);
    if (!st)
        st = wgc_check_arity(g, n, dynamic ? 3 : 4, bias + 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, dynamic ? f32 : int8s);
    if (!st)
        st = wgc_check_input(g, n, 1, int8s);
    for (int i = 2; !st && i < n->n_inputs; i++)
        if (wgc_in(g, n, i))
            st = wgc_check_input(g, n, i, (i == bz || (!dynamic && i == 4)) ? int8s : f32);
    if (st)
        return st;
    const wgc_tensor *b = wgc_in(g, n, 1);
    if (b->shape.rank < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "B '%s' must have rank 1 or more", b->name);
    const int64_t cols = b->shape.rank == 1 ? 1 : b->shape.dims[b->shape.rank - 1];
    if (!dynamic && !per_tensor_or_column(wgc_in(g, n, 2), cols, false))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a_scale must be a scalar");
    if (!dynamic && !per_tensor_or_column(wgc_in(g, n, 4), cols, false))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a_zero_point must be a scalar");
    if (!per_tensor_or_column(wgc_in(g, n, bs), cols, true) || !per_tensor_or_column(wgc_in(g, n, bz), cols, true))
        return wgc_error(g, n, WG_ERR_INVALID, "b_scale and b_zero_point must be scalars or have one value per "
                         "column of B (%lld)", (long long)cols);
    const wgc_tensor *bi = wgc_in(g, n, bias);
    if (bi && (bi->shape.rank != 1 || bi->shape.dims[0] != cols))
        return wgc_error(g, n, WG_ERR_INVALID, "bias '%s' must have one dim of B's %lld columns", bi->name,
                         (long long)cols);
    return WG_OK;
}

static wg_status qmatmul_float_infer(wgc_graph *g, wgc_node *n)
{
    const bool dynamic = n->op == WGC_OP_DYNAMIC_QUANTIZE_MATMUL;
    wg_status st = check(g, n, dynamic);
    if (st)
        return st;
    const int in = n->n_inputs;
    const int a = n->inputs[0], b = n->inputs[1], y = n->outputs[0];
    int a_scale, a_zp, b_scale, b_zp, bias;
    if (dynamic) {
        b_scale = n->inputs[2];
        b_zp = in > 3 ? n->inputs[3] : -1;
        bias = in > 4 ? n->inputs[4] : -1;
        a_scale = a_zp = -1;
    } else {
        a_scale = n->inputs[2];
        b_scale = n->inputs[3];
        a_zp = in > 4 ? n->inputs[4] : -1;
        b_zp = in > 5 ? n->inputs[5] : -1;
        bias = in > 6 ? n->inputs[6] : -1;
    }
    wgc_expansion x;
    wgc_expand_begin(&x, g, n); /* n may move from here on */
    int aq = a;
    if (dynamic) {
        aq = wgc_expand_tensor(&x, "/a_quantized");
        a_scale = wgc_expand_tensor(&x, "/a_scale");
        a_zp = wgc_expand_tensor(&x, "/a_zero_point");
        wgc_expand_add(&x, "/quantize", "DynamicQuantizeLinear", &a, 1, (const int[]){aq, a_scale, a_zp}, 3);
    }
    const int acc = wgc_expand_tensor(&x, "/acc"), accf = wgc_expand_tensor(&x, "/acc_float");
    const int scale = wgc_expand_tensor(&x, "/scale");
    const int ins = b_zp >= 0 ? 4 : a_zp >= 0 ? 3 : 2;
    wgc_expand_add(&x, "/matmul", "MatMulInteger", (const int[]){aq, b, a_zp, b_zp}, ins, &acc, 1);
    const int k = wgc_expand_add(&x, "/cast", "Cast", &acc, 1, &accf, 1);
    wgc_expand_attr_int(&x, k, "to", WG_DT_FLOAT);
    wgc_expand_add(&x, "/scales", "Mul", (const int[]){a_scale, b_scale}, 2, &scale, 1);
    if (bias < 0) {
        wgc_expand_add(&x, "", "Mul", (const int[]){accf, scale}, 2, &y, 1);
    } else {
        const int scaled = wgc_expand_tensor(&x, "/scaled");
        wgc_expand_add(&x, "/scale_out", "Mul", (const int[]){accf, scale}, 2, &scaled, 1);
        wgc_expand_add(&x, "", "Add", (const int[]){scaled, bias}, 2, &y, 1);
    }
    return wgc_expand_finish(&x);
}

const wgc_op_def wgc_op_contrib_qmatmul = {.infer = qmatmul_float_infer, .emit = wgc_expanded_emit};
