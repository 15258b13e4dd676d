/*
 * arity.c: the ONNX spec's required input and output counts of every operator in
 * ir/ops.def (the leading inputs an op cannot do without; optional ones come after them),
 * and the check infer.c runs before each op's infer hook. One check here replaces the
 * "required input missing" bug class across all op files: a hook may assume that
 * wgc_in(g, n, i) is non-NULL for every i below the minimum.
 *
 * Numbers are the latest opset's; the few ops whose count changed between opsets are
 * handled in older_opset(). Resize-11 (roi and scales both required by the spec) is kept
 * at 1: resize.c reports a missing scales/sizes itself, and exporters pass an empty roi.
 */
#include "arity.h"

typedef struct arity {
    signed char in, out;
    bool known;
} arity;

#define R(i, o) { (i), (o), true }

static const arity table[WGC_OP_COUNT] = {
    [WGC_OP_ADD] = R(2, 1), [WGC_OP_SUB] = R(2, 1), [WGC_OP_MUL] = R(2, 1),
    [WGC_OP_DIV] = R(2, 1), [WGC_OP_SUM] = R(1, 1), [WGC_OP_RELU] = R(1, 1),
    [WGC_OP_LEAKY_RELU] = R(1, 1), [WGC_OP_SIGMOID] = R(1, 1), [WGC_OP_TANH] = R(1, 1),
    [WGC_OP_CLIP] = R(1, 1), [WGC_OP_CONV] = R(2, 1), [WGC_OP_BATCH_NORM] = R(5, 1),
    [WGC_OP_MAX_POOL] = R(1, 1), [WGC_OP_AVERAGE_POOL] = R(1, 1),
    [WGC_OP_GLOBAL_AVERAGE_POOL] = R(1, 1), [WGC_OP_GLOBAL_MAX_POOL] = R(1, 1),
    [WGC_OP_LRN] = R(1, 1), [WGC_OP_GEMM] = R(2, 1), [WGC_OP_MATMUL] = R(2, 1),
    [WGC_OP_SOFTMAX] = R(1, 1), [WGC_OP_FLATTEN] = R(1, 1), [WGC_OP_RESHAPE] = R(2, 1),
    [WGC_OP_TRANSPOSE] = R(1, 1), [WGC_OP_CONCAT] = R(1, 1), [WGC_OP_PAD] = R(2, 1),
    [WGC_OP_GATHER] = R(2, 1), [WGC_OP_UNSQUEEZE] = R(2, 1), [WGC_OP_SQUEEZE] = R(1, 1),
    [WGC_OP_CAST] = R(1, 1), [WGC_OP_SHAPE] = R(1, 1), [WGC_OP_CONSTANT] = R(0, 1),
    [WGC_OP_CONSTANT_OF_SHAPE] = R(1, 1), [WGC_OP_IDENTITY] = R(1, 1),
    [WGC_OP_DROPOUT] = R(1, 1), [WGC_OP_RESIZE] = R(1, 1), [WGC_OP_UPSAMPLE] = R(2, 1),
    [WGC_OP_CONV_TRANSPOSE] = R(2, 1), [WGC_OP_ABS] = R(1, 1), [WGC_OP_NEG] = R(1, 1),
    [WGC_OP_FLOOR] = R(1, 1), [WGC_OP_CEIL] = R(1, 1), [WGC_OP_ROUND] = R(1, 1),
    [WGC_OP_SQRT] = R(1, 1), [WGC_OP_RECIPROCAL] = R(1, 1), [WGC_OP_EXP] = R(1, 1),
    [WGC_OP_LOG] = R(1, 1), [WGC_OP_SIN] = R(1, 1), [WGC_OP_COS] = R(1, 1),
    [WGC_OP_TAN] = R(1, 1), [WGC_OP_ASIN] = R(1, 1), [WGC_OP_ACOS] = R(1, 1),
    [WGC_OP_ATAN] = R(1, 1), [WGC_OP_SINH] = R(1, 1), [WGC_OP_COSH] = R(1, 1),
    [WGC_OP_ASINH] = R(1, 1), [WGC_OP_ACOSH] = R(1, 1), [WGC_OP_ATANH] = R(1, 1),
    [WGC_OP_ERF] = R(1, 1), [WGC_OP_SIGN] = R(1, 1), [WGC_OP_IS_NAN] = R(1, 1),
    [WGC_OP_IS_INF] = R(1, 1), [WGC_OP_NOT] = R(1, 1), [WGC_OP_BITWISE_NOT] = R(1, 1),
    [WGC_OP_ELU] = R(1, 1), [WGC_OP_SELU] = R(1, 1), [WGC_OP_CELU] = R(1, 1),
    [WGC_OP_THRESHOLDED_RELU] = R(1, 1), [WGC_OP_HARD_SIGMOID] = R(1, 1),
    [WGC_OP_HARD_SWISH] = R(1, 1), [WGC_OP_MISH] = R(1, 1), [WGC_OP_SOFTPLUS] = R(1, 1),
    [WGC_OP_SOFTSIGN] = R(1, 1), [WGC_OP_GELU] = R(1, 1), [WGC_OP_SHRINK] = R(1, 1),
    [WGC_OP_POW] = R(2, 1), [WGC_OP_MOD] = R(2, 1), [WGC_OP_MIN] = R(1, 1),
    [WGC_OP_MAX] = R(1, 1), [WGC_OP_MEAN] = R(1, 1), [WGC_OP_EQUAL] = R(2, 1),
    [WGC_OP_LESS] = R(2, 1), [WGC_OP_GREATER] = R(2, 1), [WGC_OP_LESS_OR_EQUAL] = R(2, 1),
    [WGC_OP_GREATER_OR_EQUAL] = R(2, 1), [WGC_OP_AND] = R(2, 1), [WGC_OP_OR] = R(2, 1),
    [WGC_OP_XOR] = R(2, 1), [WGC_OP_BIT_SHIFT] = R(2, 1), [WGC_OP_BITWISE_AND] = R(2, 1),
    [WGC_OP_BITWISE_OR] = R(2, 1), [WGC_OP_BITWISE_XOR] = R(2, 1), [WGC_OP_PRELU] = R(2, 1),
    [WGC_OP_WHERE] = R(3, 1), [WGC_OP_QUANTIZE_LINEAR] = R(2, 1),
    [WGC_OP_DEQUANTIZE_LINEAR] = R(2, 1), [WGC_OP_MATMUL_INTEGER] = R(2, 1),
    [WGC_OP_QLINEAR_MATMUL] = R(8, 1), [WGC_OP_REDUCE_SUM] = R(1, 1),
    [WGC_OP_REDUCE_MEAN] = R(1, 1), [WGC_OP_REDUCE_MAX] = R(1, 1),
    [WGC_OP_REDUCE_MIN] = R(1, 1), [WGC_OP_REDUCE_PROD] = R(1, 1), [WGC_OP_REDUCE_L1] = R(1, 1),
    [WGC_OP_REDUCE_L2] = R(1, 1), [WGC_OP_REDUCE_LOG_SUM] = R(1, 1),
    [WGC_OP_REDUCE_LOG_SUM_EXP] = R(1, 1), [WGC_OP_REDUCE_SUM_SQUARE] = R(1, 1),
    [WGC_OP_ARG_MAX] = R(1, 1), [WGC_OP_ARG_MIN] = R(1, 1), [WGC_OP_CONV_INTEGER] = R(2, 1),
    [WGC_OP_QLINEAR_CONV] = R(8, 1), [WGC_OP_EXPAND] = R(2, 1), [WGC_OP_TILE] = R(2, 1),
    [WGC_OP_SLICE] = R(3, 1), [WGC_OP_DEPTH_TO_SPACE] = R(1, 1),
    [WGC_OP_SPACE_TO_DEPTH] = R(1, 1), [WGC_OP_SIZE] = R(1, 1), [WGC_OP_RNN] = R(3, 0),
    [WGC_OP_GRU] = R(3, 0), [WGC_OP_LSTM] = R(3, 0), [WGC_OP_LOG_SOFTMAX] = R(1, 1),
    [WGC_OP_HARDMAX] = R(1, 1), [WGC_OP_CUM_SUM] = R(2, 1), [WGC_OP_LAYER_NORM] = R(2, 1),
    [WGC_OP_INSTANCE_NORM] = R(3, 1), [WGC_OP_NEGATIVE_LOG_LIKELIHOOD_LOSS] = R(2, 1),
    [WGC_OP_SOFTMAX_CROSS_ENTROPY_LOSS] = R(2, 1), [WGC_OP_GATHER_ELEMENTS] = R(2, 1),
    [WGC_OP_SCATTER_ELEMENTS] = R(3, 1), [WGC_OP_SCATTER] = R(3, 1), [WGC_OP_SPLIT] = R(1, 1),
    [WGC_OP_HANN_WINDOW] = R(1, 1), [WGC_OP_HAMMING_WINDOW] = R(1, 1),
    [WGC_OP_BLACKMAN_WINDOW] = R(1, 1), [WGC_OP_MEL_WEIGHT_MATRIX] = R(5, 1),
    [WGC_OP_RANGE] = R(3, 1), [WGC_OP_TRILU] = R(1, 1), [WGC_OP_CAST_LIKE] = R(2, 1),
    [WGC_OP_EYE_LIKE] = R(1, 1), [WGC_OP_NON_ZERO] = R(1, 1), [WGC_OP_DFT] = R(1, 1),
    [WGC_OP_STFT] = R(2, 1), [WGC_OP_EINSUM] = R(1, 1), [WGC_OP_DET] = R(1, 1),
    [WGC_OP_DYNAMIC_QUANTIZE_LINEAR] = R(1, 3), [WGC_OP_ONE_HOT] = R(3, 1),
    [WGC_OP_TOP_K] = R(2, 2), [WGC_OP_GATHER_ND] = R(2, 1), [WGC_OP_SCATTER_ND] = R(3, 1),
    [WGC_OP_MAX_UNPOOL] = R(2, 1), [WGC_OP_COMPRESS] = R(2, 1),
    [WGC_OP_REVERSE_SEQUENCE] = R(2, 1), [WGC_OP_GRID_SAMPLE] = R(2, 1),
    [WGC_OP_MEAN_VARIANCE_NORM] = R(1, 1), [WGC_OP_LP_NORM] = R(1, 1),
    [WGC_OP_GROUP_NORM] = R(3, 1), [WGC_OP_ROI_ALIGN] = R(3, 1),
    [WGC_OP_NON_MAX_SUPPRESSION] = R(2, 1), [WGC_OP_UNIQUE] = R(1, 1),
    [WGC_OP_BERNOULLI] = R(1, 1), [WGC_OP_RANDOM_UNIFORM] = R(0, 1),
    [WGC_OP_RANDOM_UNIFORM_LIKE] = R(1, 1), [WGC_OP_RANDOM_NORMAL] = R(0, 1),
    [WGC_OP_RANDOM_NORMAL_LIKE] = R(1, 1), [WGC_OP_MULTINOMIAL] = R(1, 1),
    [WGC_OP_GRADIENT] = R(1, 1), [WGC_OP_RMS_NORM] = R(2, 1), [WGC_OP_SWISH] = R(1, 1),
    [WGC_OP_CUM_PROD] = R(2, 1), [WGC_OP_SWIGLU] = R(2, 1),
    [WGC_OP_ATTENTION] = R(3, 1), [WGC_OP_ROTARY_EMBEDDING] = R(3, 1),
    [WGC_OP_BIT_CAST] = R(1, 1), [WGC_OP_LP_POOL] = R(1, 1),
    [WGC_OP_TENSOR_SCATTER] = R(2, 1), [WGC_OP_CENTER_CROP_PAD] = R(2, 1),
    [WGC_OP_CAUSAL_CONV_WITH_STATE] = R(2, 1), [WGC_OP_LINEAR_ATTENTION] = R(3, 1),
    [WGC_OP_AFFINE_GRID] = R(2, 1), [WGC_OP_COL2IM] = R(3, 1),
};

/* Counts that differ at older opsets (from each op's schema history). */
static void older_opset(wgc_op op, int opset, int *in, int *out)
{
    switch (op) {
    case WGC_OP_GEMM: if (opset < 11) *in = 3; break;         /* C optional since 11 */
    case WGC_OP_RESHAPE: if (opset < 5) *in = 1; break;       /* shape was an attribute */
    case WGC_OP_PAD: if (opset < 11) *in = 1; break;          /* pads was an attribute */
    case WGC_OP_UNSQUEEZE: if (opset < 13) *in = 1; break;    /* axes was an attribute */
    case WGC_OP_RESIZE: if (opset < 11) *in = 2; break;       /* Resize-10: X, scales */
    case WGC_OP_UPSAMPLE: if (opset < 9) *in = 1; break;      /* scales was an attribute */
    case WGC_OP_TILE: if (opset < 6) *in = 3; break;          /* Tile-1: input, tiles, axis */
    case WGC_OP_SLICE: if (opset < 10) *in = 1; break;        /* starts/ends were attributes */
    case WGC_OP_TOP_K: if (opset < 10) *in = 1; break;        /* k was an attribute */
    case WGC_OP_GRU: if (opset < 3) *out = 2; break;
    default: break;
    }
}

bool wgc_op_arity(wgc_op op, int opset, int *min_in, int *min_out)
{
    if ((int)op < 0 || op >= WGC_OP_COUNT || !table[op].known)
        return false;
    *min_in = table[op].in;
    *min_out = table[op].out;
    older_opset(op, opset, min_in, min_out);
    return true;
}

wg_status wgc_check_required(wgc_graph *g, const wgc_node *n)
{
    int min_in, min_out;
    if (!wgc_op_arity(n->op, n->opset, &min_in, &min_out))
        return WG_OK; /* unknown ops are refused by the caller */
    if (n->n_inputs < min_in)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "has %d input%s, but %s-%d requires at least %d", n->n_inputs,
                         n->n_inputs == 1 ? "" : "s", n->op_type, n->opset, min_in);
    for (int i = 0; i < min_in; i++)
        if (n->inputs[i] < 0)
            return wgc_error(g, n, WG_ERR_INVALID,
                             "required input %d is empty (%s-%d requires its first %d inputs)",
                             i, n->op_type, n->opset, min_in);
    if (n->n_outputs < min_out)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "has %d output%s, but %s-%d requires at least %d", n->n_outputs,
                         n->n_outputs == 1 ? "" : "s", n->op_type, n->opset, min_out);
    for (int i = 0; i < min_out; i++)
        if (n->outputs[i] < 0)
            return wgc_error(g, n, WG_ERR_INVALID,
                             "required output %d is empty (%s-%d requires its first %d outputs)",
                             i, n->op_type, n->opset, min_out);
    return WG_OK;
}
