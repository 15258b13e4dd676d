/*
 * index_loops.h: small helpers shared by the index-driven ops (GatherElements, Scatter*, GatherND,
 * Einsum, OneHot, TopK, Trilu, ...) that write their loops inline into the graph code.
 */
#ifndef WGC_OPS_INDEX_LOOPS_H
#define WGC_OPS_INDEX_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "../op.h"

/* The unsigned C type of dtype's element size ("uint8_t".."uint64_t"), for copying. */
const char *wgc_loop_bits(int dtype);
/* A non-constant graph input that tensor t is computed from (depth-first, bounded; call
 * with depth 0), or -1. Naming it lets the CLI suggest binding it with --const, after
 * which the chain folds. */
int wgc_upstream_input(const wgc_graph *g, int t, int depth);
/* WG_OK when input i is present and constant; else an UNSUPPORTED error that says the
 * input "is computed at run time" (the CLI then suggests --const for a graph input). */
wg_status wgc_loop_need_const(wgc_graph *g, const wgc_node *n, int i, const char *what);
/* The one value of constant input i (`what`, e.g. "k") into *v, or an error naming it. */
wg_status wgc_loop_const_scalar(wgc_graph *g, const wgc_node *n, int i, const char *what,
                                int64_t *v);
/* An optional one-value input i (`what`): *v its constant value, or dflt when it is absent
 * or computed at run time (then *runtime; it must still hold one value). */
wg_status wgc_loop_scalar_input(wgc_graph *g, const wgc_node *n, int i, const char *what, int64_t dflt, int64_t *v,
                                bool *runtime);
/* Emits r nested "for (int32_t VARd = 0; VARd < dims[d]; VARd++)" headers (no braces). */
void wgc_loop_for(wgc_emitter *e, const char *var, int r, const int64_t *dims);
/* Writes "base + VAR0 * st[0] + ..." (zero strides skipped) into buf and returns it. */
const char *wgc_loop_offset(char *buf, size_t cap, const char *var, int r, const int64_t *st,
                            int64_t base);

/* The `reduction` of ScatterElements and ScatterND: how an update u meets the element *q. */
enum { WGC_SCATTER_NONE, WGC_SCATTER_ADD, WGC_SCATTER_MUL, WGC_SCATTER_MAX, WGC_SCATTER_MIN,
       WGC_SCATTER_BAD };
/* n's reduction attribute (default "none"); WGC_SCATTER_BAD for an unknown one. */
int wgc_scatter_reduction(const wgc_node *n);
/* The C statement of reduction red over TD *q and TD u ("*q = u;\n", ...), NULL for BAD. */
const char *wgc_scatter_statement(int red);
/* The inputs of GatherElements / ScatterElements and GatherND / ScatterND: data of any
 * dtype, indices of idx_dtypes and, for a scatter, updates. */
wg_status wgc_check_gather_scatter_inputs(wgc_graph *g, const wgc_node *n, bool gather, const int *idx_dtypes);
/* The bounds hook (ir/valrange.h) of GatherElements / ScatterElements and GatherND /
 * ScatterND: a gather gives any of input 0's values; a scatter's are not bounded. */
bool wgc_gather_scatter_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, wgc_vrange *out,
                               int64_t count);
/* Emits reduction red's statement (wgc_scatter_statement), then close (what ends the
 * loops); the no-case error for an unknown reduction. */
wg_status wgc_emit_scatter_update(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int red, const char *close);

#endif
