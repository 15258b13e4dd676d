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
 *   - and carried through the integer ops that compute shapes by each op's own rule, its
 *     sym.bounds hook (ops/op.h) in its file: Add, Sub, Mul, Div, Mod, Where
 *     (elementwise_binary.c), Min, Max, Sum, Neg, Abs, Clip, Cast, Concat, Gather, Slice,
 *     Reshape and the like, the reductions, If ... Inference (passes/infer.c) runs the hook
 *     after each node for its integer outputs that are neither constant nor symbolic
 *     values. This file is what those rules share.
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

/* ---- for the ops' sym.bounds hooks (ops/op.h): a hook fills out[0..count-1] for its
 * output y (count: wgc_vrange_elems(y)) and returns true, or false when it has no bound ---- */
/* Whether values of dtype carry bounds (the integer types). */
bool wgc_vrange_is_int(int dtype);
/* How many intervals y keeps: one per element when y is small and fixed (the bounds of
 * shape vectors stay apart), else one union. */
int64_t wgc_vrange_elems(const wgc_tensor *y);
/* The union of every element's bounds of t into *r; false when t has none. */
bool wgc_vrange_union(const wgc_graph *g, const wgc_tensor *t, wgc_vrange *r);
/* Element i of output shape y read from operand x under numpy broadcasting. */
int64_t wgc_vrange_broadcast_index(const wgc_shape *y, const wgc_shape *x, int64_t i);

/* Interval arithmetic on the integers: *r bounds a OP b for every a in a and b in b; false
 * when the result may overflow or is unbounded. _div truncates (no bound when the divisor's
 * range holds 0); _mod is integer Mod (fmod 0), whose result takes the divisor's sign. */
typedef bool (*wgc_vrange_fn)(wgc_vrange a, wgc_vrange b, wgc_vrange *r);
bool wgc_vrange_add(wgc_vrange a, wgc_vrange b, wgc_vrange *r);
bool wgc_vrange_sub(wgc_vrange a, wgc_vrange b, wgc_vrange *r);
bool wgc_vrange_mul(wgc_vrange a, wgc_vrange b, wgc_vrange *r);
bool wgc_vrange_div(wgc_vrange a, wgc_vrange b, wgc_vrange *r);
bool wgc_vrange_mod(wgc_vrange a, wgc_vrange b, wgc_vrange *r);
bool wgc_vrange_min(wgc_vrange a, wgc_vrange b, wgc_vrange *r);
bool wgc_vrange_max(wgc_vrange a, wgc_vrange b, wgc_vrange *r);

/* An elementwise op over the broadcast operands k0..k1-1 of n folded left by fn (unused,
 * may be NULL, when k1 == k0 + 1): y's bounds into out. */
bool wgc_vrange_elementwise(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, int k0, int k1,
                            wgc_vrange_fn fn, wgc_vrange *out, int64_t count);
/* Rules of several ops, sym.bounds hooks themselves:
 *   _of_input0   every element any of input 0's values (Slice, Expand, Tile, Transpose,
 *                ReduceMax, ReduceMin, GatherElements, GatherND, Split, Gather);
 *   _same_elems  input 0's elements in the same order (Identity, Reshape, Squeeze,
 *                Unsqueeze, Flatten; Cast between integer types). */
bool wgc_vrange_of_input0(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                          wgc_vrange *out, int64_t count);
bool wgc_vrange_same_elems(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                           wgc_vrange *out, int64_t count);

#endif
