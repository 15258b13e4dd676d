/*
 * arity.c: the ONNX spec's required input and output counts of every operator, from the
 * IN and OUT columns of ir/ops.def (the leading inputs an op cannot do without; optional
 * ones come after them), and the check infer.c runs before each op's infer hook. One
 * check here replaces the "required input missing" bug class across all op files: a hook
 * may assume that wgc_in(g, n, i) is non-NULL for every i below the minimum.
 *
 * ops.def has the latest opset's numbers; the few ops whose count changed between opsets
 * are handled in older_opset(). Resize-11 (roi and scales both required by the spec) is
 * kept at 1: resize.c reports a missing scales/sizes itself, and exporters pass an empty roi.
 */
#include "arity.h"

typedef struct arity {
    signed char in, out;
} arity;

static const arity table[] = {
#define WG_OP(e, name, stem, in, out, traits) [WGC_OP_##e] = {(in), (out)},
#include "../ir/ops.def"
#undef WG_OP
};
_Static_assert(sizeof table / sizeof table[0] == WGC_OP_COUNT, "ops.def and the arity table disagree");

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
    case WGC_OP_SCAN: if (opset < 9) *in = 0; break;          /* Scan-8: sequence_lens optional */
    case WGC_OP_OPTIONAL_HAS_ELEMENT: if (opset < 18) *in = 1; break; /* input optional since 18 */
    default: break; /* the latest opset's counts from ops.def hold at every opset */
    }
}

bool wgc_op_arity(wgc_op op, int opset, int *min_in, int *min_out)
{
    if ((int)op < 0 || op >= WGC_OP_COUNT)
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
