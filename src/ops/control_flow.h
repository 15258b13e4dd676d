/*
 * control_flow.h: If, Loop and Scan (control_flow.c) as the passes and if_values.c see them.
 * Where such a node keeps its values once its bodies are linked (wgc_cf_layout) is in
 * control_flow_layout.h, included here.
 */
#ifndef WGC_OPS_CONTROL_FLOW_H
#define WGC_OPS_CONTROL_FLOW_H

#include "control_flow_layout.h"
#include "op.h"

/* Node i failed to infer (g->err says why). When it sits in a branch of an If whose
 * condition is computed at run time (or in a body inside such a branch), that branch is
 * dropped: its nodes die, the If reads the other branch's outputs only, and the module
 * returns WGK_ERR_BRANCH if the run takes the dropped branch (the message is kept in its
 * marker's "failed" attribute, and in the module's C). Returns true then, with *resume
 * the index the caller's walk goes on after; false when the failure is the whole
 * graph's (both branches of an If failed, or no such If holds node i). */
bool wgc_cf_drop_branch(wgc_graph *g, int i, int *resume);

/* An If whose branches give sequences or optionals: its outputs and branch inputs become
 * their element tensors and presence flags (if_values.c); its ONNX outputs become values
 * over the new outputs. Nothing changes for an If of tensors. */
wg_status wgc_if_flatten(wgc_graph *g, wgc_node *n);

#endif
