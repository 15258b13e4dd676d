/*
 * versions.c: the version of its operator each node runs, and the newest version of each
 * operator we implement. A model importing opset V runs, for each op, the greatest
 * since_version <= V of that op's schema history (ir/onnx_versions.def, generated from the
 * pinned onnx package by tools/onnx_versions.py). A node whose op's version is newer than
 * the one we implement is refused by name, so a behaviour change we have not read (a new
 * attribute, a changed default) can never be run with the old semantics.
 *
 * Raise an op's entry only after honouring what that version changed: new attributes, new
 * dtypes, new defaults (see `onnx.defs.get_schema(op, version)`). Versions that only add
 * element types we refuse when reading a model (bfloat16, float4, float8e8m0, int2, ...) need
 * nothing more. Each op's dtype checks then refuse the types it does not compute.
 *
 * onnxruntime's own operators (ops.def's WG_OP_IN rows of domains MS and ONNX_ORT) have one
 * version each, 1 (onnxruntime's docs/ContribOperators.md): a com.microsoft node runs it when
 * the model imports com.microsoft opset 1, the one onnxruntime releases (it refuses a model
 * importing another), and must import it (onnxruntime itself would add a missing import;
 * ONNX's checker and we refuse the model); one registered in the default domain runs it at
 * every default-domain opset. ai.onnx.preview.training is not versioned here.
 */
#include <string.h>

#include "versions.h"

static const struct {
    const char *name;
    const unsigned char *since; /* ascending, 0-terminated */
} onnx_ops[] = {
#define WG_ONNX_OP(name, ...) {name, (const unsigned char[]){__VA_ARGS__, 0}},
#include "../ir/onnx_versions.def"
#undef WG_ONNX_OP
};

/* The newest version implemented, per op. Every op of ops.def but the training ones has an
 * entry (tests/unit/test_versions.c checks that each is one of its domain's versions). */
static const unsigned char newest[WGC_OP_COUNT] = {
    [WGC_OP_ADD] = 14,
    [WGC_OP_SUB] = 14,
    [WGC_OP_MUL] = 14,
    [WGC_OP_DIV] = 14,
    [WGC_OP_SUM] = 13,
    [WGC_OP_RELU] = 14,
    [WGC_OP_LEAKY_RELU] = 16,
    [WGC_OP_SIGMOID] = 13,
    [WGC_OP_TANH] = 13,
    [WGC_OP_CLIP] = 13,
    [WGC_OP_CONV] = 22,
    [WGC_OP_BATCH_NORM] = 15,
    [WGC_OP_MAX_POOL] = 22,
    [WGC_OP_AVERAGE_POOL] = 22,
    [WGC_OP_GLOBAL_AVERAGE_POOL] = 22,
    [WGC_OP_GLOBAL_MAX_POOL] = 22,
    [WGC_OP_LRN] = 13,
    [WGC_OP_GEMM] = 13,
    [WGC_OP_MATMUL] = 13,
    [WGC_OP_SOFTMAX] = 13,
    [WGC_OP_FLATTEN] = 25,
    [WGC_OP_RESHAPE] = 25,
    [WGC_OP_TRANSPOSE] = 25,
    [WGC_OP_CONCAT] = 13,
    [WGC_OP_PAD] = 25,
    [WGC_OP_GATHER] = 13,
    [WGC_OP_UNSQUEEZE] = 25,
    [WGC_OP_SQUEEZE] = 25,
    [WGC_OP_CAST] = 28,
    [WGC_OP_SHAPE] = 25,
    [WGC_OP_CONSTANT] = 25,
    [WGC_OP_CONSTANT_OF_SHAPE] = 25,
    [WGC_OP_IDENTITY] = 25,
    [WGC_OP_SEQUENCE_CONSTRUCT] = 11,
    [WGC_OP_SEQUENCE_EMPTY] = 11,
    [WGC_OP_SEQUENCE_INSERT] = 11,
    [WGC_OP_SEQUENCE_ERASE] = 11,
    [WGC_OP_SEQUENCE_LENGTH] = 11,
    [WGC_OP_SEQUENCE_AT] = 11,
    [WGC_OP_SEQUENCE_MAP] = 17,
    [WGC_OP_SPLIT_TO_SEQUENCE] = 24,
    [WGC_OP_CONCAT_FROM_SEQUENCE] = 11,
    [WGC_OP_OPTIONAL] = 28,
    [WGC_OP_OPTIONAL_HAS_ELEMENT] = 28,
    [WGC_OP_OPTIONAL_GET_ELEMENT] = 28,
    [WGC_OP_DROPOUT] = 22,
    [WGC_OP_RESIZE] = 19,
    [WGC_OP_UPSAMPLE] = 10,
    [WGC_OP_CONV_TRANSPOSE] = 22,
    [WGC_OP_ABS] = 13,
    [WGC_OP_NEG] = 13,
    [WGC_OP_FLOOR] = 13,
    [WGC_OP_CEIL] = 13,
    [WGC_OP_ROUND] = 22,
    [WGC_OP_SQRT] = 13,
    [WGC_OP_RECIPROCAL] = 13,
    [WGC_OP_EXP] = 13,
    [WGC_OP_LOG] = 13,
    [WGC_OP_SIN] = 22,
    [WGC_OP_COS] = 22,
    [WGC_OP_TAN] = 22,
    [WGC_OP_ASIN] = 22,
    [WGC_OP_ACOS] = 22,
    [WGC_OP_ATAN] = 22,
    [WGC_OP_SINH] = 22,
    [WGC_OP_COSH] = 22,
    [WGC_OP_ASINH] = 22,
    [WGC_OP_ACOSH] = 22,
    [WGC_OP_ATANH] = 22,
    [WGC_OP_ERF] = 13,
    [WGC_OP_SIGN] = 13,
    [WGC_OP_IS_NAN] = 20,
    [WGC_OP_IS_INF] = 20,
    [WGC_OP_NOT] = 1,
    [WGC_OP_BITWISE_NOT] = 18,
    [WGC_OP_ELU] = 22,
    [WGC_OP_SELU] = 22,
    [WGC_OP_CELU] = 28,
    [WGC_OP_THRESHOLDED_RELU] = 22,
    [WGC_OP_HARD_SIGMOID] = 22,
    [WGC_OP_HARD_SWISH] = 22,
    [WGC_OP_MISH] = 22,
    [WGC_OP_SOFTPLUS] = 22,
    [WGC_OP_SOFTSIGN] = 22,
    [WGC_OP_GELU] = 20,
    [WGC_OP_SHRINK] = 9,
    [WGC_OP_POW] = 15,
    [WGC_OP_MOD] = 28,
    [WGC_OP_MIN] = 13,
    [WGC_OP_MAX] = 13,
    [WGC_OP_MEAN] = 13,
    [WGC_OP_EQUAL] = 19,
    [WGC_OP_LESS] = 13,
    [WGC_OP_GREATER] = 13,
    [WGC_OP_LESS_OR_EQUAL] = 16,
    [WGC_OP_GREATER_OR_EQUAL] = 16,
    [WGC_OP_AND] = 7,
    [WGC_OP_OR] = 7,
    [WGC_OP_XOR] = 7,
    [WGC_OP_BIT_SHIFT] = 28,
    [WGC_OP_BITWISE_AND] = 18,
    [WGC_OP_BITWISE_OR] = 18,
    [WGC_OP_BITWISE_XOR] = 18,
    [WGC_OP_PRELU] = 16,
    [WGC_OP_WHERE] = 16,
    [WGC_OP_QUANTIZE_LINEAR] = 28,
    [WGC_OP_DEQUANTIZE_LINEAR] = 28,
    [WGC_OP_MATMUL_INTEGER] = 10,
    [WGC_OP_QLINEAR_MATMUL] = 21,
    [WGC_OP_REDUCE_SUM] = 13,
    [WGC_OP_REDUCE_MEAN] = 18,
    [WGC_OP_REDUCE_MAX] = 20,
    [WGC_OP_REDUCE_MIN] = 20,
    [WGC_OP_REDUCE_PROD] = 18,
    [WGC_OP_REDUCE_L1] = 18,
    [WGC_OP_REDUCE_L2] = 18,
    [WGC_OP_REDUCE_LOG_SUM] = 28,
    [WGC_OP_REDUCE_LOG_SUM_EXP] = 28,
    [WGC_OP_REDUCE_SUM_SQUARE] = 18,
    [WGC_OP_ARG_MAX] = 13,
    [WGC_OP_ARG_MIN] = 13,
    [WGC_OP_CONV_INTEGER] = 10,
    [WGC_OP_QLINEAR_CONV] = 10,
    [WGC_OP_EXPAND] = 13,
    [WGC_OP_TILE] = 13,
    [WGC_OP_SLICE] = 13,
    [WGC_OP_DEPTH_TO_SPACE] = 28,
    [WGC_OP_SPACE_TO_DEPTH] = 28,
    [WGC_OP_SIZE] = 25,
    [WGC_OP_RNN] = 22,
    [WGC_OP_GRU] = 22,
    [WGC_OP_LSTM] = 22,
    [WGC_OP_LOG_SOFTMAX] = 13,
    [WGC_OP_HARDMAX] = 13,
    [WGC_OP_CUM_SUM] = 14,
    [WGC_OP_LAYER_NORM] = 17,
    [WGC_OP_INSTANCE_NORM] = 22,
    [WGC_OP_NEGATIVE_LOG_LIKELIHOOD_LOSS] = 22,
    [WGC_OP_SOFTMAX_CROSS_ENTROPY_LOSS] = 13,
    [WGC_OP_GATHER_ELEMENTS] = 13,
    [WGC_OP_SCATTER_ELEMENTS] = 18,
    [WGC_OP_SCATTER] = 11,
    [WGC_OP_SPLIT] = 18,
    [WGC_OP_HANN_WINDOW] = 17,
    [WGC_OP_HAMMING_WINDOW] = 17,
    [WGC_OP_BLACKMAN_WINDOW] = 17,
    [WGC_OP_MEL_WEIGHT_MATRIX] = 17,
    [WGC_OP_RANGE] = 27,
    [WGC_OP_TRILU] = 14,
    [WGC_OP_CAST_LIKE] = 25,
    [WGC_OP_EYE_LIKE] = 22,
    [WGC_OP_TFIDF_VECTORIZER] = 9,
    [WGC_OP_NON_ZERO] = 13,
    [WGC_OP_DFT] = 20,
    [WGC_OP_STFT] = 17,
    [WGC_OP_EINSUM] = 28,
    [WGC_OP_DET] = 22,
    [WGC_OP_DYNAMIC_QUANTIZE_LINEAR] = 11,
    [WGC_OP_ONE_HOT] = 28,
    [WGC_OP_TOP_K] = 24,
    [WGC_OP_GATHER_ND] = 13,
    [WGC_OP_SCATTER_ND] = 18,
    [WGC_OP_MAX_UNPOOL] = 22,
    [WGC_OP_COMPRESS] = 28,
    [WGC_OP_REVERSE_SEQUENCE] = 28,
    [WGC_OP_GRID_SAMPLE] = 22,
    [WGC_OP_MEAN_VARIANCE_NORM] = 13,
    [WGC_OP_LP_NORM] = 22,
    [WGC_OP_GROUP_NORM] = 21,
    [WGC_OP_ROI_ALIGN] = 22,
    [WGC_OP_NON_MAX_SUPPRESSION] = 11,
    [WGC_OP_UNIQUE] = 28,
    [WGC_OP_BERNOULLI] = 22,
    [WGC_OP_RANDOM_UNIFORM] = 22,
    [WGC_OP_RANDOM_UNIFORM_LIKE] = 22,
    [WGC_OP_RANDOM_NORMAL] = 22,
    [WGC_OP_RANDOM_NORMAL_LIKE] = 22,
    [WGC_OP_MULTINOMIAL] = 22,
    [WGC_OP_RMS_NORM] = 23,
    [WGC_OP_SWISH] = 24,
    [WGC_OP_CUM_PROD] = 26,
    [WGC_OP_SWIGLU] = 28,
    [WGC_OP_ATTENTION] = 25,
    [WGC_OP_ROTARY_EMBEDDING] = 23,
    [WGC_OP_BIT_CAST] = 26,
    [WGC_OP_LP_POOL] = 22,
    [WGC_OP_TENSOR_SCATTER] = 24,
    [WGC_OP_CENTER_CROP_PAD] = 18,
    [WGC_OP_CAUSAL_CONV_WITH_STATE] = 27,
    [WGC_OP_LINEAR_ATTENTION] = 27,
    [WGC_OP_AFFINE_GRID] = 20,
    [WGC_OP_COL2IM] = 18,
    [WGC_OP_IF] = 25,
    [WGC_OP_LOOP] = 25,
    [WGC_OP_SCAN] = 25,
    /* onnxruntime's (version 1 each) */
    [WGC_OP_SIMPLIFIED_LAYER_NORM] = 1,
    [WGC_OP_SKIP_LAYER_NORM] = 1,
    [WGC_OP_SKIP_SIMPLIFIED_LAYER_NORM] = 1,
    [WGC_OP_MS_GELU] = 1,
    [WGC_OP_FAST_GELU] = 1,
    [WGC_OP_BIAS_GELU] = 1,
    [WGC_OP_QUICK_GELU] = 1,
    [WGC_OP_MATMUL_INTEGER_TO_FLOAT] = 1,
    [WGC_OP_DYNAMIC_QUANTIZE_MATMUL] = 1,
    [WGC_OP_DYNAMIC_QUANTIZE_LSTM] = 1,
    [WGC_OP_MATMUL_NBITS] = 1,
    [WGC_OP_GATHER_BLOCK_QUANTIZED] = 1,
    [WGC_OP_MATMUL_BNB4] = 1,
    [WGC_OP_GROUP_QUERY_ATTENTION] = 1,
    [WGC_OP_MS_ROTARY_EMBEDDING] = 1,
    [WGC_OP_MULTI_HEAD_ATTENTION] = 1,
    [WGC_OP_MS_ATTENTION] = 1,
};

/* The com.microsoft opset onnxruntime releases (every contrib schema is its version 1). */
#define ORT_MS_OPSET 1

int wgc_onnx_max_opset(void)
{
    return WG_ONNX_MAX_OPSET;
}

int wgc_op_version(const wgc_node *n)
{
    switch (wgc_op_domain(n->op)) {
    case WGC_DOMAIN_ONNX_ORT: return wgc_is_default_domain(n->domain) && n->opset >= 1 ? 1 : 0;
    case WGC_DOMAIN_MS: return n->opset == ORT_MS_OPSET ? 1 : 0;
    case WGC_DOMAIN_ONNX: break;
    default: return 0;
    }
    if (!wgc_is_default_domain(n->domain))
        return 0;
    for (size_t i = 0; i < sizeof onnx_ops / sizeof onnx_ops[0]; i++) {
        if (strcmp(onnx_ops[i].name, n->op_type))
            continue;
        int v = 0;
        for (const unsigned char *s = onnx_ops[i].since; *s && *s <= n->opset; s++)
            v = *s;
        return v;
    }
    return 0;
}

int wgc_op_newest_implemented(wgc_op op)
{
    return op < WGC_OP_COUNT ? newest[op] : 0;
}

/* com.microsoft: the model must import the domain, at the opset onnxruntime releases. */
static wg_status check_ms_opset(wgc_graph *g, const wgc_node *n)
{
    const char *d = wgc_domain_name(WGC_DOMAIN_MS);
    if (n->opset < 1)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "the model's opset_import lacks domain '%s' (onnxruntime's contrib "
                         "operators are its opset %d)", d, ORT_MS_OPSET);
    if (n->opset != ORT_MS_OPSET)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "the model imports %s opset %d; onnxruntime defines opset %d only", d,
                         n->opset, ORT_MS_OPSET);
    return WG_OK;
}

wg_status wgc_check_version(wgc_graph *g, const wgc_node *n)
{
    switch (wgc_op_domain(n->op)) {
    case WGC_DOMAIN_MS: return check_ms_opset(g, n);
    case WGC_DOMAIN_ONNX: case WGC_DOMAIN_ONNX_ORT:
        if (!wgc_is_default_domain(n->domain))
            return WG_OK; /* the compiler's markers (BodyBegin ..., domain "wasmgraph") */
        break;
    default: return WG_OK; /* ai.onnx.preview.training; an unknown op is refused by the caller */
    }
    /* opset 0: a graph built by code (tests, passes), not read from a model; the reader
     * always sets 1..WG_ONNX_MAX_OPSET for the default domain */
    if (n->opset < 1)
        return WG_OK;
    int v = wgc_op_version(n), have = newest[n->op];
    if (v == 0)
        return wgc_error(g, n, WG_ERR_INVALID, "ONNX defines no %s at opset %d", n->op_type, n->opset);
    if (v > have)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "%s-%d (opset %d) is not supported; the newest version implemented is %s-%d",
                         n->op_type, v, n->opset, n->op_type, have);
    return WG_OK;
}
