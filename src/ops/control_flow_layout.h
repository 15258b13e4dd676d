/*
 * control_flow_layout.h: where an If, Loop or Scan node keeps its values once its bodies are
 * linked (onnx/onnx_bodies.c), and a Scan's axes, batch and length (control_flow_layout.c).
 * The node's inputs are its ONNX inputs, then its body's outputs, then (Loop, Scan) the
 * body's carried inputs, which the node writes back:
 *   If:   cond, then outputs [n_out], else outputs [n_out]
 *   Loop: M, cond, v_initial [N], cond_out, v_out [N], scan elements [K], v_in [N]
 *   Scan: [sequence_lens (Scan-8)], states [N], scan inputs [M], state_out [N],
 *         elements out [K], state_in [N]
 * and its BodyBegin marker reads the ONNX inputs and (Loop, Scan) writes the body's inputs.
 */
#ifndef WGC_OPS_CONTROL_FLOW_LAYOUT_H
#define WGC_OPS_CONTROL_FLOW_LAYOUT_H

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
/* Scan n's scan input (input true) or output k's axis for its rank, and its direction
 * (*reverse 1: reverse), or an error. */
wg_status wgc_cf_scan_axis(wgc_graph *g, const wgc_node *n, bool input, int k, int rank, int *axis,
                           int *reverse);
/* Scan's batch (Scan-8: B, else 1) and sequence length T, or an error. */
wg_status wgc_cf_scan_extent(wgc_graph *g, const wgc_node *scan, const wgc_cf_layout *l,
                             int64_t *batch, int64_t *len);

#endif
