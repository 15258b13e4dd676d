/* sym_exports.h: what a module of symbolic dimensions adds (module ABI 2, docs/abi.md):
 * the wg_dims array and its export, the range check every step makes. */
#ifndef WGC_SYM_EXPORTS_H
#define WGC_SYM_EXPORTS_H

#include "../ir/ir.h"

/* The C of `wg_dims`, `wg_dims_ptr()` and `wg_check_dims()` (malloc'ed), NULL when out of memory. */
char *wgc_sym_exports_c(const wgc_graph *g);
/* The C of `wg_output_dims_ptr(i)` (module with data-dependent sizes): fills and returns
 * an i32[rank] of output i's actual dims from wg_dims; NULL when out of memory. */
char *wgc_output_dims_c(const wgc_graph *g);
/* Every symbolic dim of a graph input or output must be one symbol (what the metadata can
 * say and a host can fill in); an error naming the tensor otherwise. */
wg_status wgc_sym_check_boundary(wgc_graph *g);
/* The symbol that dim d of s is, or -1 when it is fixed (after wgc_sym_check_boundary). */
int wgc_sym_plain(const wgc_graph *g, const wgc_shape *s, int d);

#endif
