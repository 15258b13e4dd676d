/* range.h: Range of a length decided in the module (range.c). */
#ifndef WGC_OPS_RANGE_H
#define WGC_OPS_RANGE_H

#include "op.h"

/* Does n, a Range, run in the module: integer inputs computed at run time, or symbolic
 * values other than arange(seq)'s? */
bool wgc_range_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Its code: the length from the values, checked against the bound, into wg_dims; the fill. */
wg_status wgc_range_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

#endif
