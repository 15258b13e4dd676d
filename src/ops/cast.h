/* cast.h: Cast's fold and emit, shared with CastLike (the output dtype is all that differs). */
#ifndef WGC_OPS_CAST_H
#define WGC_OPS_CAST_H

#include "op.h"

/* The dtypes Cast converts between (0-terminated): the numeric ones and the storage types. */
extern const int wgc_cast_dtypes[];
bool wgc_cast_supported(int dtype);
/* The node's round_mode (Cast-24, for float8e8m0) as WGK_ROUND_*. */
wg_status wgc_cast_round_mode(wgc_graph *g, const wgc_node *n, int *mode);

/* Output 0 = input 0 converted to output 0's dtype (set by the op's infer). */
wg_status wgc_cast_fold(wgc_graph *g, wgc_node *n);
wg_status wgc_cast_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n);

#endif
