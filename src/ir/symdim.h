/*
 * symdim.h: symbolic dimensions (compile --dim NAME=MIN..MAX; module ABI 2, docs/abi.md).
 *
 * A symbolic dimension is a monomial c * prod(symbol_s ^ p_s) over the graph's symbols
 * (g->syms). A shape stores it as its value at the symbols' maxima (dims[d], what memory
 * is planned for) and the powers (sym[d]); c is recovered by division. Tensors are laid
 * out densely at their actual sizes, so a [batch, seq, 128] tensor at batch 2, seq 9 uses
 * the first 2*9*128 elements of its buffer. Products and exact quotients of monomials are
 * monomials; a sum of two different ones (seq + 1, past + seq) is a sum symbol when it is
 * linear in the symbols (wgc_linear_dimx), and refused by ops otherwise (batch * seq + 1).
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
/* Dimension da of a and dimension db of b are the same size for every value of the symbols. */
bool wgc_same_dim(const wgc_graph *g, const wgc_shape *a, int da, const wgc_shape *b, int db);

/* Sums of different symbols (past + seq, seq + 1): a linear form plus + sum c[i] * sym[i]
 * over symbols the module knows before any step runs (the host's, the derived ones; no
 * data-dependent size), no term a sum symbol itself (those are expanded into theirs). */
typedef struct wgc_linear {
    int n;
    int sym[WGC_SUM_TERMS];
    int64_t c[WGC_SUM_TERMS];
    int64_t plus;
} wgc_linear;
/* x as a linear form; false when it is none (a product of symbols, a data-dependent size). */
bool wgc_linear_of(const wgc_graph *g, const wgc_dimx *x, wgc_linear *l);
/* a + k * b into *out; false when it overflows or has more than WGC_SUM_TERMS terms. */
bool wgc_linear_add(const wgc_linear *a, const wgc_linear *b, int64_t k, wgc_linear *out);
/* l as a dimension: a constant, c * one symbol, or else the sum symbol of l (a derived
 * symbol the module computes before any step runs, min and max from its terms), made once
 * per definition: every sum equal to l is that one symbol (a graph input's dim_param
 * `past + seq` included, bind_symbols). False (with a message in g->err, naming n) when
 * there is no room for another symbol. */
bool wgc_linear_dimx(wgc_graph *g, const wgc_node *n, const wgc_linear *l, wgc_dimx *out);
/* The index of the symbol whose definition is l (n >= 2 terms, or one term with a
 * constant), or -1. */
int wgc_sym_find_sum(const wgc_graph *g, const wgc_linear *l);
/* a + b: a monomial when both have the same powers (wgc_dimx_add), else the sum symbol of
 * the two linear forms; false when it is neither (naming n in g->err only at the limit). */
bool wgc_dimx_add_sym(wgc_graph *g, const wgc_node *n, wgc_dimx a, wgc_dimx b, wgc_dimx *sum);
/* Whether wgc_dimx_add_sym would succeed (for checks that may not change the graph). */
bool wgc_dimx_add_ok(const wgc_graph *g, wgc_dimx a, wgc_dimx b);
/* The least value of a + b over the symbols' ranges (INT64_MIN when it is no linear form). */
int64_t wgc_dimx_sum_min(const wgc_graph *g, wgc_dimx a, wgc_dimx b);
/* "past + seq - 1" of l into buf. */
const char *wgc_linear_str(const wgc_graph *g, const wgc_linear *l, char *buf, size_t len);
/* Parses a dim_param that is an expression of symbols and integers with + - * and
 * parentheses (linear: a product has at most one non-constant factor) into *l. False when
 * text is a plain name, names an unknown symbol (its name into *unknown, when one) or is
 * not linear. */
bool wgc_linear_parse(const wgc_graph *g, const char *text, wgc_linear *l, char *unknown, size_t unknown_len);
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

/* Is dim d of s one size at every size in range: fixed, or of symbols of one value each (the
 * genai builder's head size kv_cache_dim, --dim 16..16)? Ops take it as that fixed size. */
bool wgc_dim_one_value(const wgc_graph *g, const wgc_shape *s, int d);
/* Two symbolic dims of different forms that an elementwise op's operands give along one
 * axis, which the compiler takes as equal and the module checks at run time (WGK_ERR_DIM_MISMATCH,
 * ops/sym_emit.c): one is a plain symbol X of the host's (a model's own total_sequence_length)
 * and the other a form of other symbols, none of them X, a sum of them or a size decided from
 * data (past + seq). X against a form holding X (s against past + s) stays unproven. */
bool wgc_dims_checked_equal(const wgc_graph *g, const wgc_dimx *a, const wgc_dimx *b);
/* wgc_broadcast, and dims that are wgc_dims_checked_equal broadcast too: the output takes
 * the one of the larger maximum (the buffers are planned for it). */
bool wgc_broadcast_checked(const wgc_graph *g, const wgc_shape *a, const wgc_shape *b, wgc_shape *out);

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
