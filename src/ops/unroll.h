/* unroll.h: Loops and SequenceMaps run unrolled at compile time (unroll.c). */
#ifndef WGC_OPS_UNROLL_H
#define WGC_OPS_UNROLL_H

#include "op.h"

/* Loops whose carried values include sequences or optionals, and SequenceMap, run unrolled
 * at compile time (unroll.c). wgc_unroll_wanted: owner (a Loop, SequenceMap or Scan) is one.
 * wgc_unroll_begin: the BodyBegin at index begin of such an owner is being inferred: the
 * construct becomes a dead template and its first iteration is inserted after the owner. */
bool wgc_unroll_wanted(const wgc_graph *g, const wgc_node *owner);
wg_status wgc_unroll_begin(wgc_graph *g, int begin, int owner);

#endif
