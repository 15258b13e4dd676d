/* cache_concat.h: the code of a KV-cache pair's Concat (ir/cache_pairs.h, docs/abi.md
 * "Resident KV caches"). */
#ifndef WGC_CACHE_CONCAT_H
#define WGC_CACHE_CONCAT_H

#include "../../ir/cache_pairs.h"
#include "../op.h"

/* Pair `index` (p, its Concat n): by the host's mode for it in wg_cache_mode, 0 the Concat
 * as always (past from its input, the region untouched), 1 resident (the past is the
 * region's first rows: only the new rows are written into it, then the dense present
 * from it), 2 load (as 0, then the present into the region). Returns WGK_ERR_CACHE before
 * writing anything for a mode out of range, past + new rows beyond the capacity, or a
 * resident past longer than the rows the region holds (wg_cache_rows). */
wg_status wgc_emit_cache_concat(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_cache_pair *p, int index);

#endif
