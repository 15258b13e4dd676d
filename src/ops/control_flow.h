/*
 * control_flow.h: where an If, Loop or Scan node keeps its values once its bodies are
 * linked (onnx/onnx_bodies.c). The node's inputs are its ONNX inputs, then its body's
 * outputs, then (Loop, Scan) the body's carried inputs, which the node writes back:
 *   If:   cond, then outputs [n_out], else outputs [n_out]
 *   Loop: M, cond, v_initial [N], cond_out, v_out [N], scan elements [K], v_in [N]
 *   Scan: [sequence_lens (Scan-8)], states [N], scan inputs [M], state_out [N],
 *         elements out [K], state_in [N]
 * and its BodyBegin marker reads the ONNX inputs and (Loop, Scan) writes the body's inputs.
 */
#ifndef WGC_OPS_CONTROL_FLOW_H
#define WGC_OPS_CONTROL_FLOW_H

#include "op.h"

typedef struct wgc_cf_layout {
    int n_onnx;   /* ONNX inputs */
    int n_state;  /* carried values (If: its outputs) */
    int n_scan;   /* scan outputs (K) */
    int n_scan_in; /* Scan: scan inputs (M) */
    int lens;     /* Scan-8: 1 (sequence_lens is input 0) */
    int first_state;    /* index of the first initial state (Loop 2, Scan lens) */
    int first_body_out; /* index of the first body output */
    int first_carried;  /* index of the first v_in / state_in */
} wgc_cf_layout;

/* The layout of If/Loop/Scan node n; an error when its inputs do not have it (a graph not
 * linked by the reader). */
wg_status wgc_cf_layout_of(wgc_graph *g, const wgc_node *n, wgc_cf_layout *l);
/* Scan n's scan input k's axis for its rank (normalised), or an error. */
wg_status wgc_cf_scan_input_axis(wgc_graph *g, const wgc_node *n, int k, int rank, int *axis);

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

/* Loops whose carried values include sequences or optionals, and SequenceMap, run unrolled
 * at compile time (unroll.c). wgc_unroll_wanted: owner (a Loop, SequenceMap or Scan) is one.
 * wgc_unroll_begin: the BodyBegin at index begin of such an owner is being inferred: the
 * construct becomes a dead template and its first iteration is inserted after the owner. */
bool wgc_unroll_wanted(const wgc_graph *g, const wgc_node *owner);
wg_status wgc_unroll_begin(wgc_graph *g, int begin, int owner);

#endif
