/* sym_exports.h: what a module of symbolic dimensions adds (module ABI 2, docs/abi.md):
 * the wg_dims array and its export, the range check every step makes, and the inputs that
 * may be given empty with the checks of the bodies that read them. */
#ifndef WGC_SYM_EXPORTS_H
#define WGC_SYM_EXPORTS_H

#include "../ir/ir.h"
#include "emitter.h"

/* The C of `wg_dims`, `wg_dims_ptr()` and `wg_check_dims()` (malloc'ed), NULL when out of memory. */
char *wgc_sym_exports_c(const wgc_graph *g);
/* The C of `wg_output_dims_ptr(i)` (module with data-dependent sizes): fills and returns
 * an i32[rank] of output i's actual dims from wg_dims; NULL when out of memory. */
char *wgc_output_dims_c(const wgc_graph *g);
/* Every symbolic dim of a graph input must be one of the host's symbols (what a host
 * fills in); an error naming the input otherwise. */
wg_status wgc_sym_check_boundary(wgc_graph *g);
/* The symbol that dim d of s is exactly (a host's multiple: its step * unit too), or -1. */
int wgc_sym_plain(const wgc_graph *g, const wgc_shape *s, int d);
/* Is dim d of a graph output's shape s told to the hosts after the run, as {"max": bound}
 * (docs/abi.md "Run-time output dims"): a data-dependent or derived size, or a product of
 * symbols other than one host symbol (2 * h)? And does some graph output have one (the
 * module then exports wg_output_dims_ptr)? */
bool wgc_output_dim_reported(const wgc_graph *g, const wgc_shape *s, int d);
bool wgc_outputs_report_dims(const wgc_graph *g);

/* Empty inputs (docs/abi.md "Empty inputs"). May graph input k (metadata order) be given
 * empty, size 0 along a symbol other inputs give another value? Only when it has a
 * symbolic dim and only bodies read it (ir.h input_reads, a body whose code is inlined
 * counting as the region that holds it): no node of the main graph, nor a graph output.
 * And does some input qualify (the module then exports wg_input_empty_ptr)? */
bool wgc_input_may_be_empty(const wgc_graph *g, int k);
bool wgc_inputs_may_be_empty(const wgc_graph *g);
/* After the live BodyBegin or BodyElse at node `marker` opened its body's code: for each
 * input that may be empty and that this body reads, the check that stops the run with
 * WGK_ERR_EMPTY_INPUT when the host gave it empty. */
void wgc_emit_empty_checks(wgc_emitter *e, const wgc_graph *g, int marker);

#endif
