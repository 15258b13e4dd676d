/*
 * arity.h: how many inputs and outputs the ONNX spec requires of each operator, checked
 * by shape inference (passes/infer.c) before an op's own infer hook runs, so no hook ever
 * sees a required input that is absent (fewer inputs, or an empty name in its place).
 */
#ifndef WGC_ARITY_H
#define WGC_ARITY_H

#include "../ir/ir.h"

/* Required (leading) inputs and outputs of op at the given opset of its domain; false
 * for WGC_OP_COUNT. */
bool wgc_op_arity(wgc_op op, int opset, int *min_in, int *min_out);

/* WG_OK, or a wgc_error naming the node and the missing input/output. */
wg_status wgc_check_required(wgc_graph *g, const wgc_node *n);

#endif
