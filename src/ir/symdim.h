/*
 * symdim.h: symbolic dimensions (compile --dim NAME=MIN..MAX; module ABI 2, docs/abi.md).
 *
 * A symbolic dimension is a monomial c * prod(symbol_s ^ p_s) over the graph's symbols
 * (g->syms). A shape stores it as its value at the symbols' maxima (dims[d], what memory
 * is planned for) and the powers (sym[d]); c is recovered by division. Tensors are laid
 * out densely at their actual sizes, so a [batch, seq, 128] tensor at batch 2, seq 9 uses
 * the first 2*9*128 elements of its buffer. Products and exact quotients of monomials are
 * monomials; a sum of two different ones (seq + 1) is not, and ops refuse it.
 *
 * Generated code reads symbol s as wg_dims[s] (codegen/emitter.c writes the C).
 */
#ifndef WGC_SYMDIM_H
#define WGC_SYMDIM_H

#include "ir.h"

/* True when some dimension of s is symbolic. */
bool wgc_shape_is_sym(const wgc_shape *s);
/* The first symbol dimension d of s uses (-1 when fixed); any dimension when d < 0. */
int wgc_shape_first_sym(const wgc_shape *s, int d);

/* Dimension d of s as a monomial. */
wgc_dimx wgc_dimx_of(const wgc_graph *g, const wgc_shape *s, int d);
/* Sets dimension d of s to x (dims[d] = x at the maxima). */
void wgc_shape_set_dim(const wgc_graph *g, wgc_shape *s, int d, wgc_dimx x);
wgc_dimx wgc_dimx_const(int64_t c);
bool wgc_dimx_is_const(const wgc_dimx *x);
/* x at the symbols' maxima (or minima). */
int64_t wgc_dimx_max(const wgc_graph *g, const wgc_dimx *x);
int64_t wgc_dimx_min(const wgc_graph *g, const wgc_dimx *x);
wgc_dimx wgc_dimx_mul(wgc_dimx a, wgc_dimx b);
/* a / b when it is a monomial for every value of the symbols; false otherwise. */
bool wgc_dimx_div(wgc_dimx a, wgc_dimx b, wgc_dimx *q);
/* a + b when both have the same powers (or one is 0); false otherwise. */
bool wgc_dimx_add(wgc_dimx a, wgc_dimx b, wgc_dimx *sum);
bool wgc_dimx_eq(const wgc_dimx *a, const wgc_dimx *b);
/* "seq", "2*batch*seq", "12" into buf. */
const char *wgc_dimx_str(const wgc_graph *g, const wgc_dimx *x, char *buf, size_t len);

/* A tensor's symbolic values: element i of t (t->symval, or its constant data). */
wgc_dimx wgc_symval_at(const wgc_tensor *t, int64_t i);
/* Makes tensor t (an int64/int32 vector of numel values; float or double: a Cast of shape
 * arithmetic, whole numbers still) hold the symbolic values v (copied): its data is set to
 * their values at the maxima. Returns WG_ERR_NOMEM or WG_OK. */
wg_status wgc_tensor_set_symval(wgc_graph *g, int t, int dtype, const wgc_shape *shape,
                                const wgc_dimx *v);
/* The index of the symbol called name, or -1. */
int wgc_sym_find(const wgc_graph *g, const char *name);

/* Data-dependent sizes (module ABI 2 "Run-time output dims"): a run-time symbol is a
 * symbol like the host's, 0..bound, whose value the node that decides it (NonZero's
 * count, TopK's k, ...) writes into wg_dims before its outputs are read; downstream nodes
 * read it like any symbol. The host's symbols come first (wgc_sym_n_host of them). */
int wgc_sym_n_host(const wgc_graph *g);
bool wgc_sym_any_runtime(const wgc_graph *g);
/* Does dimension d of s depend on a run-time symbol? */
bool wgc_dim_is_runtime(const wgc_graph *g, const wgc_shape *s, int d);
/* The run-time symbol of dimension dim of tensor (made on first use, its bound updated
 * when inferred again) into *sym; -1 when bound is 0 (the size is then simply 0). */
wg_status wgc_sym_add_runtime(wgc_graph *g, const wgc_node *n, int tensor, int dim, int64_t bound, int *sym);
/* The first run-time symbol a dimension of s uses, or -1. */
int wgc_shape_runtime_sym(const wgc_graph *g, const wgc_shape *s);
/* Sets dimension d of s to run-time symbol sym (at its bound), or to 0 when sym < 0. */
void wgc_shape_set_runtime(wgc_shape *s, int d, int sym, int64_t bound);

/* The output size of a sliding window (Conv, the pools) over a dimension x of symbols:
 * window extent folded into add (pb + pe - extent), stride, ceil_mode with leading pad
 * pb. A monomial when it is one at every size (x itself, or x / stride when stride
 * divides x's constant), else a derived run-time symbol (wgc_symbol.derived), made once
 * per formula so that two windows of one geometry over one dim give one symbol (a
 * residual Add then lines up). x must be c * one symbol; refused (naming n) when it is
 * not, or when the size may be below 1 within the symbols' ranges. */
wg_status wgc_sym_window_dim(wgc_graph *g, const wgc_node *n, wgc_dimx x, int64_t add, int64_t stride, bool ceil,
                             int64_t pb, wgc_dimx *out);
/* A window size as the C the module computes it by: value of X given as C expression x. */
int64_t wgc_window_size(int64_t x, int64_t add, int64_t stride, bool ceil, int64_t pb);

#endif
