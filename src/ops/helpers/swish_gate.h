/*
 * swish_gate.h: the one formula of Swish (opset 24) and SwiGLU (opset 28), emitted and folded:
 * y = a / (1 + exp(-alpha * a)) for Swish's one input, y = a * b / (1 + exp(-alpha * a)) for
 * SwiGLU's gate a and value b (the node's two inputs), alpha from the `alpha` attribute
 * (default 1), computed in double.
 */
#ifndef WGC_OPS_SWISH_GATE_H
#define WGC_OPS_SWISH_GATE_H

#include "../op.h"

/* The emit and fold hooks of both ops: y over all of the node's inputs (one: Swish, two:
 * SwiGLU; their infer hooks check the count). */
wg_status wgc_swish_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);
wg_status wgc_swish_fold(wgc_graph *g, wgc_node *n);
/* Swish's code over symbolic shapes (its sym.emit): the formula over the actual elements. */
wg_status wgc_swish_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);

#endif
