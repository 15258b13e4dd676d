/*
 * valrange.h: bounds on the values of integer tensors computed at run time.
 *
 * A Pad whose pads, an Expand whose shape or a Tile whose repeats are computed at run time
 * decides its output's size in the module (a run-time symbol, symdim.h); memory is planned
 * for a bound, and the bound comes from here: an interval [lo, hi] for each element of a
 * small integer tensor (or one for all of a larger one), taken from
 *   - constants (exact) and symbolic values (a monomial between its values at the
 *     symbols' minima and maxima),
 *   - integer graph inputs whose values `--dim NAME=MIN..MAX` bounds (compile/options.h),
 *   - and carried through the integer ops that compute shapes (Add, Sub, Mul, Div, Mod,
 *     Min, Max, Neg, Abs, Clip, Cast, Concat, Gather, Slice, Reshape and the like, Where,
 *     the reductions): wgc_vrange_infer, called by inference after each node.
 * The bounds only size memory: the module checks every size it computes against its bound
 * at run time (WGK_ERR_SIZE_BOUND), so a value outside its --dim range can never make it
 * write out of bounds.
 */
#ifndef WGC_VALRANGE_H
#define WGC_VALRANGE_H

#include "ir.h"

/* Tensors of at most this many elements keep one interval per element. */
#define WGC_VRANGE_ELEMS 16

/* Element i of integer tensor t lies in [r->lo, r->hi]; false when nothing bounds it. */
bool wgc_vrange_at(const wgc_graph *g, const wgc_tensor *t, int64_t i, wgc_vrange *r);
/* t's values lie in r[0..n-1] (n == 1: every element in r[0]; else one per element). */
wg_status wgc_vrange_set(wgc_graph *g, int t, const wgc_vrange *r, int64_t n);
/* Node n's integer outputs that are neither constant nor symbolic values get the bounds
 * its inputs' bounds give them (nothing when an input has none or the op has no rule). */
wg_status wgc_vrange_infer(wgc_graph *g, const wgc_node *n);

#endif
