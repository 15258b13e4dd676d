/*
 * op.h: the hooks every operator implements (one operator, or one family, per file).
 *
 *   infer  check attributes, input count, dtypes and shapes; set every output's dtype
 *          and shape. Anything unsupported is an error naming the node (wgc_error with
 *          WG_ERR_UNSUPPORTED); never a guess.
 *   fold   optional: when every input is constant, compute the outputs on the host and
 *          make them constants (wgc_tensor_set_const). Return WG_ERR_UNSUPPORTED to
 *          decline (the node then runs in the module).
 *   emit   write the C statements that run the node inside wg_run(), calling kernels
 *          from kernels/ (see emit.h for tensor addresses and packed weights).
 *   scratch optional: bytes of temporary arena the emitted code needs (im2col, ...).
 *   sym    optional: how the op meets symbolic dimensions (wgc_op_sym below), beside
 *          its traits in ops.def.
 *
 * See docs/adding-an-op.md for the checklist.
 */
#ifndef WGC_OP_H
#define WGC_OP_H

#include "emit.h"
#include "../ir/ir.h"

/* The symbolic-shape driver's common rules an op takes (the TRAITS column of ops.def; see
 * sym.h for each rule). An op's `takes` hook, where it has one, says whether node n meets
 * the trait's conditions (a rank, no optional output, an axis other than the batch's); an
 * op without one takes its traits whole. */
typedef enum wgc_op_trait {
    WGC_SAME_SHAPE = 1 << 0,     /* output 0 has input 0's shape, symbolic dims included */
    WGC_AT_MAXIMA = 1 << 1,      /* its code may run over the elements at the maxima */
    WGC_BROADCASTS = 1 << 2,     /* numpy broadcasting of its inputs gives the output */
    WGC_PER_SAMPLE = 1 << 3,     /* output sample b from input sample b alone */
    WGC_WINDOW = 1 << 4,         /* sliding windows over symbolic spatial dims */
    WGC_DATA_DEPENDENT = 1 << 5, /* decides output sizes at run time with its own emit */
} wgc_op_trait;

/* How an op meets symbolic dimensions (compile --dim; sym.h). Every hook is optional.
 *   infer    gives n's outputs their symbolic dims, after the op's infer hook ran at the
 *            maxima, or refuses n (wgc_sym_refuse). Without it the traits' common rules
 *            apply, and a node none takes is refused.
 *   emit     the code of n over sizes read at run time (wgc_dims_expr). An op whose emit
 *            hook already prints its sizes through wgc_size_expr names that hook here.
 *   foldable whether n is shape arithmetic that folds (wgc_sym_fold): to symbolic values,
 *            or to the constant its fold hook computed, which is then the answer at every
 *            size (an Equal of symbolic values decided for all of them);
 *   values   the symbolic values of a node that folds to them, count of them, from its
 *            inputs'.
 *   takes    whether n meets the conditions of trait t (see above).
 *   bounds   the bounds of the values of integer output y computed at run time, count of
 *            them (one per element, or one for all: ir/valrange.h), from its inputs'
 *            bounds; false when none. Inference runs it for output 0 (every output of a
 *            Split or an If) when that is neither constant nor symbolic values. */
typedef enum wgc_sym_folds {
    WGC_SYM_NO_FOLD = 0,  /* runs in the module */
    WGC_SYM_FOLDS = 1,    /* folds to symbolic values (sym.values) */
    WGC_SYM_DECIDED = 2,  /* folds to a constant that holds at every size */
} wgc_sym_folds;

typedef struct wgc_op_sym {
    wg_status (*infer)(wgc_graph *g, wgc_node *n);
    wg_status (*emit)(wgc_emitter *e, wgc_graph *g, wgc_node *n);
    wgc_sym_folds (*foldable)(const wgc_graph *g, const wgc_node *n);
    wg_status (*values)(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count);
    bool (*takes)(const wgc_graph *g, const wgc_node *n, wgc_op_trait t);
    bool (*bounds)(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, wgc_vrange *out,
                   int64_t count);
} wgc_op_sym;

typedef struct wgc_op_def {
    wg_status (*infer)(wgc_graph *g, wgc_node *n);
    wg_status (*fold)(wgc_graph *g, wgc_node *n);
    wg_status (*emit)(wgc_emitter *e, wgc_graph *g, wgc_node *n);
    size_t (*scratch)(const wgc_graph *g, const wgc_node *n);
    wgc_op_sym sym;
} wgc_op_def;

/* The op called op_type in a domain other than `domain`, or WGC_OP_COUNT: what a node of
 * an unknown (domain, op_type) may have meant (onnxruntime registers
 * SimplifiedLayerNormalization in the default domain, not in com.microsoft). */
wgc_op wgc_op_elsewhere(const char *domain, const char *op_type);
/* The names of the ops of domain d, ", "-separated in ops.def order, into buf (len > 0). */
void wgc_domain_ops(wgc_domain d, char *buf, size_t len);
/* The hooks of op (never NULL for op < WGC_OP_COUNT). */
const wgc_op_def *wgc_op_hooks(wgc_op op);
/* Whether node n takes trait t: its op's row in ops.def has t, and its takes hook agrees. */
bool wgc_op_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t);
/* True when every present input of n is constant. */
bool wgc_inputs_const(const wgc_graph *g, const wgc_node *n);
/* Runs n's fold hook (n's op must have one): n becomes dead when it folds; a fold that
 * declines (WG_ERR_UNSUPPORTED) leaves n to run in the module and clears the message.
 * Returns any other status of the hook. */
wg_status wgc_run_fold(wgc_graph *g, wgc_node *n);

/* Shared checks used by many ops. Each returns WG_OK or a wgc_error. */
wg_status wgc_check_arity(wgc_graph *g, const wgc_node *n, int min_in, int max_in, int min_out,
                          int max_out);
/* Every attribute of n is one of names (NULL-terminated, may be empty): the check of an
 * operator whose schema onnxruntime enforces (its own, outside ONNX's), where an attribute
 * the op does not read is a model onnxruntime refuses too. */
wg_status wgc_check_attr_names(wgc_graph *g, const wgc_node *n, const char *const *names);
/* Inputs first.. that wasmgraph does not take: the first one present is WG_ERR_UNSUPPORTED,
 * "input I (NAME WHY) is not supported" (names[i] its name, n_names of them). */
#define WGC_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))
wg_status wgc_refuse_inputs_from(wgc_graph *g, const wgc_node *n, int first, const char *const *names, int n_names,
                                 const char *why);
/* "ROLE 'name' is [dims]: it must be WANT" for input i (ROLE its name in the op's
 * specification), WG_ERR_INVALID. */
wg_status wgc_bad_input_shape(wgc_graph *g, const wgc_node *n, int i, const char *role, const char *want);
/* Input i must be present, have a known shape, and have one of the listed dtypes
 * (terminated by 0). */
wg_status wgc_check_input(wgc_graph *g, const wgc_node *n, int i, const int *dtypes);
/* Both checks of an op of one output and min_in..max_in inputs, input 0 of dtypes. */
wg_status wgc_check_data_input(wgc_graph *g, const wgc_node *n, int min_in, int max_in,
                               const int *dtypes);
/* wgc_check_data_input of an op of one input, whose rank must be min_rank or more (else an
 * error saying it expected `layout`, e.g. "N x C x ..."). */
wg_status wgc_check_layout_input(wgc_graph *g, const wgc_node *n, const int *dtypes, int min_rank,
                                 const char *layout);
/* The dtypes of index, split and k inputs: int64 and int32 (for wgc_check_input). */
extern const int wgc_index_dtypes[];
/* Input 0 of dtypes, and input 1, where present, of wgc_index_dtypes: data and its split
 * or k (the op's arity checked first). */
wg_status wgc_check_data_and_index(wgc_graph *g, const wgc_node *n, const int *dtypes);
/* Both checks of an op of two inputs and one output: input 0 of dtypes0, input 1 of dtypes1. */
wg_status wgc_check_two_inputs(wgc_graph *g, const wgc_node *n, const int *dtypes0,
                               const int *dtypes1);
/* An op of min_in..max_in inputs and 1..max_out outputs whose inputs, the first min_in
 * required and the others where present, all have one of dtypes. */
wg_status wgc_check_present_inputs(wgc_graph *g, const wgc_node *n, int min_in, int max_in,
                                   int max_out, const int *dtypes);
/* The whole infer hook of an op of one input of dtypes and one output of its dtype and shape. */
wg_status wgc_infer_same_as_input(wgc_graph *g, const wgc_node *n, const int *dtypes);
/* The infer hook NAME of an op whose RESOLVE(g, n, &q) (GEOM q) reads and checks n: output 0
 * takes the dtype DTYPE and the shape SHAPE (expressions of q, g and n, e.g. q.y), or with
 * WGC_INFER_BY_RESOLVE input 0's dtype. */
#define WGC_INFER_BY_RESOLVE_AS(NAME, GEOM, RESOLVE, DTYPE, SHAPE)                         \
    static wg_status NAME(wgc_graph *g, wgc_node *n)                                       \
    {                                                                                      \
        GEOM q;                                                                            \
        wg_status st = RESOLVE(g, n, &q);                                                  \
        if (!st)                                                                           \
            wgc_set_output(g, n, 0, (DTYPE), &(SHAPE));                                    \
        return st;                                                                         \
    }
#define WGC_INFER_BY_RESOLVE(NAME, GEOM, RESOLVE, SHAPE)                                   \
    WGC_INFER_BY_RESOLVE_AS(NAME, GEOM, RESOLVE, wgc_in(g, n, 0)->dtype, SHAPE)
/* The error every switch over ops or modes ends in: no case for n's op (or for the mode
 * `what`) in `where`, a bug in the op file, never another op's code. */
wg_status wgc_no_case(wgc_graph *g, const wgc_node *n, const char *where);
/* The `axis` attribute of n (default dflt) normalised into [0, rank) into *axis, or an
 * error naming it when it is out of range. */
wg_status wgc_read_axis(wgc_graph *g, const wgc_node *n, int64_t dflt, int rank, int *axis);
/* A constant index tensor ix must hold only values in [-dim, dim) (axis `axis` of size dim);
 * an index tensor computed at run time is checked by the module instead. */
wg_status wgc_check_const_indices(wgc_graph *g, const wgc_node *n, const wgc_tensor *ix, int axis,
                                  int64_t dim);
/* Sets output i's dtype and shape. */
void wgc_set_output(wgc_graph *g, const wgc_node *n, int i, int dtype, const wgc_shape *s);

/* A BatchNormalization's per-channel affine from its constant parameters (inputs 1-4,
 * C each): ab[c] = gamma / sqrt(var + epsilon), ab[C + c] = beta - mean * ab[c], in
 * double before rounding (ops/batchnorm.c, passes/fuse_bn_output.c). */
void wgc_bn_affine(wgc_graph *g, const wgc_node *bn, int64_t C, float *ab);
/* Whether BatchNormalization node bn runs in training mode (batch statistics; opset 14+),
 * which no pass may fold. */
bool wgc_bn_training(const wgc_node *bn);

#endif
