/*
 * elementwise.h: the elementwise op families as tables of rows.
 *
 * Each family file (ops/elementwise_unary.c, ops/elementwise_binary.c,
 * ops/elementwise_variadic.c) holds one row per op, indexed by its wgc_op: the dtypes it
 * takes, its output dtype, the attributes it reads with their defaults, the C expression
 * the module computes and the host function constant folding computes instead (its
 * "twin", written right above the table). infer, emit and fold are the functions below
 * applied to the row, so an attribute's default is written once, emit and fold read the
 * same attribute values, and an op without a row is an error naming it, never another
 * op's formula.
 *
 * Expressions are C over the inputs a, b, c, d (their C types), T the type of input 0 and
 * TY the output's (inline_loops.h, wgc_gen_map). "{name}" in an expression stands for the
 * attribute `name`: a float attribute as an exact C literal, a flag as 0 or 1, a choice
 * as the text of the value the node has.
 */
#ifndef WGC_OPS_ELEMENTWISE_H
#define WGC_OPS_ELEMENTWISE_H

#include "emit_and_fold.h"
#include "fold_map.h"

/* Dtype lists (0-terminated) the rows share. wgc_numeric_dtypes (emit_and_fold.h) and
 * wgc_gen_dtypes (inline_loops.h) are every dtype, bool included. */
extern const int wgc_ew_floats[];  /* float32, float64, float16 */
extern const int wgc_ew_ints[];    /* signed and unsigned integers */
extern const int wgc_ew_uints[];   /* unsigned integers */
extern const int wgc_ew_numbers[]; /* floats and integers, no bool */
extern const int wgc_ew_bools[];

typedef enum wgc_ew_out {
    WGC_EW_SAME, /* the dtype of the inputs that must agree (input 0, or input 1 of Where) */
    WGC_EW_BOOL,
} wgc_ew_out;

typedef enum wgc_ew_attr_kind {
    WGC_EW_FLOAT,  /* FLOAT attribute, default .f (read like wgc_attr_float) */
    WGC_EW_FLAG,   /* INT attribute read as 0 or 1, default .i; "{name}" is 0 or 1, or
                      texts[0 or 1] when the row gives them */
    WGC_EW_CHOICE, /* STRING attribute: one of .values, default .s */
} wgc_ew_attr_kind;

#define WGC_EW_MAX_ATTRS 2
#define WGC_EW_MAX_CHOICES 2

typedef struct wgc_ew_attr {
    const char *name; /* NULL: no attribute */
    wgc_ew_attr_kind kind;
    float f;
    int64_t i;
    const char *s;
    /* WGC_EW_CHOICE: the values and, for each, the text "{name}" becomes. */
    const char *values[WGC_EW_MAX_CHOICES];
    const char *texts[WGC_EW_MAX_CHOICES];
    /* WGC_EW_CHOICE of a unary row with kernels: the float32 kernel of each value (NULL
     * [0]: the row's .kernel, whatever the choice). */
    const char *kernels[WGC_EW_MAX_CHOICES];
} wgc_ew_attr;

/* The index of attribute a's value among its choices in node n, or -1. */
int wgc_ew_choice(const wgc_node *n, const wgc_ew_attr *a);

/* The attribute values of one node, read once from its row and given to emit and to the
 * host twin (as wgc_map_args.ctx): a float attribute's value, a flag's 0 or 1, the index
 * of a choice in .values. */
typedef struct wgc_ew_params {
    double v[WGC_EW_MAX_ATTRS];
} wgc_ew_params;

typedef struct wgc_ew_row {
    int min_in, max_in;    /* input count the op takes (0 in min_in: the op has no row) */
    const int *dtypes;     /* the dtypes of every input unless listed below */
    const int *dtypes_in0; /* input 0's own dtypes (Where's condition); it need not agree */
    const int *dtypes_in1; /* input 1's own dtypes (Pow's exponent); it need not agree */
    wgc_ew_out out;
    wgc_ew_attr attrs[WGC_EW_MAX_ATTRS];
    /* The C expression by the kind of input 0: float, signed, unsigned (and bool); a NULL
     * one is the one before it. NULL [0]: the module has only the kernel below. */
    const char *expr[3];
    /* Variadic ops: "{acc}" combined with each further input "{x}" through .step, then
     * .finish ("{acc}", "{n}" the input count) when there are several; .helper a macro
     * defined around the loop. One input is just "a". */
    const char *step, *finish, *helper;
    /* The host twin of the expression (fold_map.h); ctx is the node's wgc_ew_params. */
    wgc_scalar_fn fold;
    /* A kernel the family calls instead of the expression where it has one (unary: the
     * float32 function, its float attributes as arguments, or the one a choice attribute's
     * .kernels names; binary and variadic: the
     * WGK_BIN_* operation of wgk_{f32,i32,i64}_binary). */
    const char *kernel;
    /* Optional: checks (and may rewrite) the node before the shapes are inferred. */
    wg_status (*check)(wgc_graph *g, wgc_node *n);
    /* Optional: an expression that replaces .expr for this node, or NULL. */
    const char *(*special)(wgc_graph *g, const wgc_node *n);
} wgc_ew_row;

/* The hooks of a family over its table[WGC_OP_COUNT] (an op without a row there is an
 * error naming it).
 *   infer: input count, dtypes, attribute choices, broadcast shape, output dtype.
 *   fold:  the host twin over the constant inputs (declines when n has a fused activation).
 *   emit:  the row's expression as an inline loop (an error when it has none, or when n has
 *          a fused activation). Kernel calls are the family's, before this. */
wg_status wgc_ew_infer(wgc_graph *g, wgc_node *n, const wgc_ew_row *table);
wg_status wgc_ew_fold(wgc_graph *g, wgc_node *n, const wgc_ew_row *table);
wg_status wgc_ew_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_ew_row *table);
/* emit for a one-input row over a flat run of `count` elements, a C expression (the actual
 * element count of a symbolic shape, sym.h). */
wg_status wgc_ew_emit_flat(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_ew_row *table, const char *count);

/* The infer and fold hooks <family>_infer and <family>_fold of a family over its table. */
#define WGC_EW_FAMILY_HOOKS(family, table)                                                 \
    static wg_status family##_infer(wgc_graph *g, wgc_node *n)                             \
    {                                                                                      \
        return wgc_ew_infer(g, n, table);                                                  \
    }                                                                                      \
    static wg_status family##_fold(wgc_graph *g, wgc_node *n)                              \
    {                                                                                      \
        return wgc_ew_fold(g, n, table);                                                   \
    }

/* Compares two elements of kind k: -1, 0 or 1, and 2 when unordered (a NaN). */
int wgc_ew_compare(wgc_kind k, wgc_scalar a, wgc_scalar b);

/* wgk_{f32,i32,i64}_binary for dtype, or NULL when the module has no such kernel. */
const char *wgc_binary_kernel(int dtype);
/* Emits y = a OP b through kernel (OP a WGK_BIN_* name) with numpy broadcasting. */
void wgc_emit_binary(wgc_emitter *e, wgc_graph *g, const char *kernel, const char *op, int a,
                     int b, int y);

#endif
