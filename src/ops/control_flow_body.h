/* control_flow_body.h: the code a Loop's or Scan's BodyBegin opens its body with, and the
 * copies the Loop or Scan ends each iteration with (control_flow_body.c). */
#ifndef WGC_OPS_CONTROL_FLOW_BODY_H
#define WGC_OPS_CONTROL_FLOW_BODY_H

#include "control_flow_layout.h"

/* The scratch bytes the carry of Loop or Scan n (layout l) needs, 0 for none. */
size_t wgc_cf_staging_bytes(const wgc_graph *g, const wgc_node *n, const wgc_cf_layout *l);
/* The copies of n's next values into its carried values, at the end of an iteration. */
void wgc_cf_emit_carry(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_cf_layout *l);

/* BodyBegin n of a Loop: the trip count, condition and initial values, and the loop opened. */
void wgc_cf_emit_loop_begin(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_node *loop,
                            const wgc_cf_layout *l);
/* BodyBegin n of a Scan: the batch and step loops opened, the states' and scan inputs'
 * rows read into the body's inputs. */
wg_status wgc_cf_emit_scan_begin(wgc_emitter *e, wgc_graph *g, const wgc_node *n,
                                 const wgc_node *scan, const wgc_cf_layout *l);

/* Row wg_b<id> of a batched Scan state, between the whole state and the row tensor. */
void wgc_cf_emit_state_row_copy(wgc_emitter *e, wgc_graph *g, int whole, int row, int id,
                                bool to_whole);
/* Scan input or output k's slice of iteration wg_it<id>, between the whole tensor and its
 * element. */
wg_status wgc_cf_emit_scan_slice_copy(wgc_emitter *e, wgc_graph *g, const wgc_node *scan,
                                      const wgc_cf_layout *l, bool input, int k, int whole,
                                      int elem, int id);

#endif
