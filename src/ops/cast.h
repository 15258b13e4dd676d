/* cast.h: Cast's fold and emit, shared with CastLike (the output dtype is all that differs). */
#ifndef WGC_OPS_CAST_H
#define WGC_OPS_CAST_H

#include "op.h"

/* Output 0 = input 0 converted to output 0's dtype (set by the op's infer). */
wg_status wgc_cast_fold(wgc_graph *g, wgc_node *n);
wg_status wgc_cast_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);

#endif
