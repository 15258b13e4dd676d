/*
 * ir.h: the compiler's graph: tensors, nodes, attributes.
 *
 * Tensors and nodes live in two growable arrays of the graph and refer to each other
 * by index (never by pointer: the arrays move when they grow). A tensor is a graph
 * input, an intermediate value, or a constant (data != NULL). Shape inference gives
 * every tensor a dtype and a concrete shape; constant folding turns a node whose inputs
 * are all constant into constant outputs and marks the node dead.
 *
 * Every failure is reported through wgc_error(), which formats the message into g->err
 * with the node's name and op type (and domain, outside the default one), and returns the
 * status to propagate.
 */
#ifndef WGC_IR_H
#define WGC_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/dtype.h"
#include "wasmgraph.h"

typedef enum wgc_op {
#define WG_OP(e, name, stem, in, out, traits) WGC_OP_##e,
#include "ops.def"
#undef WG_OP
    WGC_OP_COUNT, /* also "unknown": an op type we do not support */
} wgc_op;

/* Where an operator's schema comes from: the DOMAIN column of ops.def's WG_OP_IN rows
 * (WG_OP rows are WGC_DOMAIN_ONNX). It decides the domain a node must name and whose
 * version history applies (ops/versions.c). */
typedef enum wgc_domain {
    WGC_DOMAIN_ONNX,     /* "" (or "ai.onnx"): ONNX's operators, versions from onnx_versions.def */
    WGC_DOMAIN_ONNX_ORT, /* "": the schemas onnxruntime registers in the default domain itself
                          * (SimplifiedLayerNormalization), version 1 at every opset */
    WGC_DOMAIN_TRAINING, /* "ai.onnx.preview.training" (Gradient, the optimizers), not versioned */
    WGC_DOMAIN_MS,       /* "com.microsoft": onnxruntime's contrib operators, version 1 (opset 1) */
    WGC_DOMAIN_COUNT,
} wgc_domain;

/* The ONNX op type name of op, or NULL for WGC_OP_COUNT. */
const char *wgc_op_name(wgc_op op);
/* The domain of op's schema (WGC_DOMAIN_COUNT for WGC_OP_COUNT). */
wgc_domain wgc_op_domain(wgc_op op);
/* The domain name a node of domain d carries: "" for the default domain. */
const char *wgc_domain_name(wgc_domain d);
/* Whether domain names ONNX's default domain ("", "ai.onnx" or NULL). */
bool wgc_is_default_domain(const char *domain);
/* The op for an ONNX (domain, op_type); WGC_OP_COUNT when unsupported. */
wgc_op wgc_op_lookup(const char *domain, const char *op_type);
/* Whether op is of domain ai.onnx.preview.training (Gradient, expanded by
 * passes/expand_gradient.c, and the optimizers' update rules, ops/optimizers.c), which the
 * default domain's version table does not cover. */
bool wgc_op_is_training(wgc_op op);

/* Symbolic dimensions (compile --dim NAME=MIN..MAX, module ABI 2; symdim.h). A graph has
 * at most WGC_MAX_SYMS symbols, numbered in the order the metadata lists them. */
#define WGC_MAX_SYMS 512
#define WGC_SYM_NAME 64
#define WGC_SUM_TERMS 6

/* A symbol is given by the host (--dim; 1 <= min <= max; the first ones, in metadata
 * order) or is a data-dependent size (`runtime`: NonZero's count, TopK's k, ...; 0 <= min
 * <= max, the bound memory is planned for), which the node computing it writes into
 * wg_dims at run time (symdim.h wgc_sym_add_runtime). */
typedef struct wgc_symbol {
    char name[WGC_SYM_NAME];
    int64_t min, max;
    bool runtime;
    int tensor, dim; /* runtime: the output tensor and dimension it was made for */
    /* A run-time symbol that is a sliding window's output size over a symbolic input
     * dim X = from_c * symbol `from` (symdim.h wgc_sym_window_dim): computed from the
     * symbols before any step runs, as floor((X + add) / stride) + 1, or with ceil_mode
     * rounded up (and one less when that window would start past X + pb). */
    bool derived, ceil;
    int from;
    int64_t from_c, add, stride, pb;
    /* A host symbol declared a multiple (--dim h=32..960:32): its values are the multiples
     * of step in [min, max]; shapes use step * unit, unit a derived symbol (h / step). */
    int64_t step;
    int unit;
    /* A sum symbol (symdim.h wgc_dimx_add_sym): plus + sum of term_c[i] * symbol term[i]
     * (n_terms >= 1, terms in index order, none a sum itself), made once per definition.
     * Made by the compiler it is derived (computed before any step runs); a graph input's
     * dim_param that is such an expression (`past + seq`) is a host symbol instead, which
     * the host reads from the input's shape and the module checks against its terms. */
    int n_terms;
    int term[WGC_SUM_TERMS];
    int64_t term_c[WGC_SUM_TERMS], plus;
} wgc_symbol;

/* Bounds on an integer value: lo <= v <= hi (valrange.h). */
typedef struct wgc_vrange {
    int64_t lo, hi;
} wgc_vrange;

/* A shape. dims[d] is the dimension's size, or for a symbolic dimension its size when every
 * symbol is at its maximum (what memory is planned for). sym[d][s] is the power of symbol
 * s in dimension d: a symbolic dimension is c * prod(symbol_s ^ sym[d][s]) for the
 * constant c that makes it dims[d] at the maxima (symdim.h). All zero: a fixed size. */
typedef struct wgc_shape {
    int rank;
    int64_t dims[WG_MAX_RANK];
    uint8_t sym[WG_MAX_RANK][WGC_MAX_SYMS];
} wgc_shape;

/* One symbolic integer: c * prod(symbol_s ^ p[s]) (all p zero: the constant c). */
typedef struct wgc_dimx {
    int64_t c;
    uint8_t p[WGC_MAX_SYMS];
} wgc_dimx;

typedef struct wgc_tensor {
    char *name;
    int dtype;          /* wg_dtype; WG_DT_UNDEFINED until known */
    wgc_shape shape;
    bool has_shape;     /* false until shape inference sets it */
    bool is_input;      /* a graph input (not an initializer) */
    bool is_output;     /* a graph output */
    void *data;         /* constant value, dense row-major little-endian; NULL if not constant */
    bool owns_data;     /* data was malloc'ed by us; else it points into the mapped model */
    int producer;       /* index of the node that writes it, -1 for inputs and constants */
    int n_uses;         /* live nodes reading it (wgc_graph_count_uses) */
    int64_t addr;       /* byte address in module memory (memory plan), -1 when none */
    /* Memory plan: the tensor lives inside tensor alias_of, alias_off bytes in (a
     * Concat input written straight into its slice of the output). */
    bool aliased;
    int alias_of;
    int64_t alias_off;
    int declared_dtype; /* graph outputs: the dtype the model declares (0 when it does not) */
    /* Sequence and optional values (values.c). Every other tensor is WGC_KIND_TENSOR. A
     * sequence lists its element tensors (count and shapes fixed at compile time); an
     * optional holds 0 or 1 value (elems[0]: a tensor or a sequence) and its presence,
     * known at compile time when present < 0 (present iff n_elems), else held at run time
     * by the bool scalar tensor `present`. Such a value has shape [0]: it takes no memory;
     * the nodes that read or write it list its element tensors (values.c). */
    int kind;           /* wgc_value_kind */
    int *elems;         /* owned */
    int n_elems;
    int present;
    int inner_kind;     /* graph inputs of kind OPTIONAL: the kind of the value they hold */
    /* Element tensors of a graph input or output value: the value's tensor index and the
     * part (element index, or -1 for an optional's presence flag); value_of -1 otherwise. */
    int value_of, value_part;
    /* Graph inputs and outputs: the model's dim_param of each dimension (owned), or NULL. */
    char *dim_param[WG_MAX_RANK];
    /* A small integer tensor whose values depend on symbols (Shape of a symbolic tensor,
     * and what is computed from it): numel values (owned); data then holds the values at
     * the symbols' maxima. NULL for ordinary tensors. */
    wgc_dimx *symval;
    /* An integer tensor computed at run time: bounds on its values (valrange.h), n_vrange
     * intervals (owned: 1 for every element, or one per element), or NULL. */
    struct wgc_vrange *vrange;
    int64_t n_vrange;
    /* A constant that folding computed as a DequantizeLinear of constant uint8 / int8 x
     * (src/ops/quant.c): from_dq, and x's, the scale's and the zero point's tensors
     * (dq_zero -1: none) and the axis of x its scale runs along (-1: one scale), so that a
     * kernel may read the bytes instead of the floats (GEMM_PACKED_B_Q8). */
    bool from_dq;
    int dq_x, dq_scale, dq_zero, dq_axis;
} wgc_tensor;

typedef enum wgc_value_kind { WGC_KIND_TENSOR = 0, WGC_KIND_SEQUENCE, WGC_KIND_OPTIONAL } wgc_value_kind;

/* ONNX AttributeProto.AttributeType numbers. */
enum {
    WGC_ATTR_FLOAT = 1, WGC_ATTR_INT = 2, WGC_ATTR_STRING = 3, WGC_ATTR_TENSOR = 4,
    WGC_ATTR_GRAPH = 5, WGC_ATTR_FLOATS = 6, WGC_ATTR_INTS = 7, WGC_ATTR_STRINGS = 8,
    WGC_ATTR_TENSORS = 9, WGC_ATTR_GRAPHS = 10, WGC_ATTR_TYPE_PROTO = 13,
};

/* A graph attribute's body (If's branches, Loop's and Scan's body). The reader flattens
 * every body into the graph's node list (onnx/onnx_bodies.c): its nodes carry the body's
 * region id, between markers that ops/control_flow.c emits as the C control flow:
 *   If:   BodyBegin(cond) then-nodes BodyElse else-nodes If
 *   Loop: BodyBegin -> (iteration, condition, carried...) body-nodes Loop
 *   Scan: BodyBegin -> (states..., scan elements...) body-nodes Scan
 *   SequenceMap: BodyBegin -> (body inputs...) body-nodes SequenceMap (always unrolled by
 *         inference, as is a Loop carrying sequences or optionals: ops/unroll.c)
 * The closing node (the If, Loop or Scan itself) then also reads the body's outputs, after
 * its ONNX inputs (ops/control_flow.h has the layout). Values of outer scopes are read in
 * place: a body's nodes name them directly. */
typedef struct wgc_body {
    int region;   /* the region id of the body's nodes (> 0) */
    int *inputs;  /* the body graph's formal inputs (tensor indices), owned */
    int n_inputs;
    int *outputs; /* its outputs (tensor indices; may be outer values or constants), owned */
    int n_outputs;
} wgc_body;

/* A constant tensor value held by an attribute (Constant's `value`, ConstantOfShape's `value`). */
typedef struct wgc_value {
    int dtype;
    wgc_shape shape;
    void *data; /* owned, malloc'ed, numel * dtype size bytes */
} wgc_value;

typedef struct wgc_attr {
    char *name;
    int type;       /* WGC_ATTR_* */
    float f;
    int64_t i;
    char *s;        /* STRING: owned, NUL-terminated copy (s_len bytes before the NUL) */
    size_t s_len;
    float *floats;  /* FLOATS, owned */
    int64_t *ints;  /* INTS, owned */
    size_t n;       /* element count of floats/ints */
    wgc_value *t;   /* TENSOR, owned */
    char **strings; /* STRINGS: n owned NUL-terminated copies (s is a copy of the first) */
    wgc_body *body; /* GRAPH, owned */
} wgc_attr;

/* Activation fused into a producer's epilogue (set by passes, read by emitters). */
typedef enum wgc_act {
    WGC_ACT_NONE = 0, WGC_ACT_RELU, WGC_ACT_CLIP, WGC_ACT_HARDSWISH,
    WGC_ACT_GELU,      /* x/2 (1 + erf(x / sqrt 2)): MatMul and Gemm on the packed-B kernel only */
    WGC_ACT_GELU_TANH, /* GELU's tanh approximation: likewise */
} wgc_act;

/* The kernels the selection step (src/select/) chooses from: one per line of kernels.def. */
typedef enum wgc_kernel {
    WGC_KERNEL_NONE = 0, /* not chosen: the op has one implementation, or selection has not run */
#define WG_KERNEL(e, ...) WGC_KERNEL_##e,
#include "kernels.def"
#undef WG_KERNEL
    WGC_KERNEL_COUNT,
} wgc_kernel;

/* When a node's constant weights take the layout its kernel reads. */
typedef enum wgc_prep {
    WGC_PREP_NONE = 0, /* read as they are: the model's layout, or computed at run time */
    WGC_PREP_COMPILE,  /* packed by the compiler into the module (kernels.def's PACK) */
    WGC_PREP_ONCE,     /* packed by the compiler, then transformed by the module once (the
                        * kernel's prepare function) into the prepared-weights region */
    WGC_PREP_PER_RUN,  /* packed by the compiler, transformed on every run into the node's
                        * scratch (the model's transformed filters would exceed
                        * WGC_WINOGRAD_KEEP_LIMIT, src/select/tunables.h) */
} wgc_prep;

/* How a node runs, decided once by the selection step (src/select/select.c) from the
 * layer's shape, the target and the model's memory budget; the op's scratch and emit
 * hooks only read it. All zero for ops without a choice. */
typedef struct wgc_impl {
    wgc_kernel kernel;    /* what the node runs */
    wgc_kernel first_run; /* NONE, or what the module's first run runs instead (a
                           * WGC_PREP_ONCE Winograd conv that transforms on the second) */
    wgc_kernel gemm;      /* the GEMM the kernel calls through a pointer, NONE for none */
    wgc_prep prep;
    size_t scratch;       /* bytes of arena scratch: the larger of both runs' kernels' */
} wgc_impl;

typedef struct wgc_node {
    wgc_op op;
    char *name;       /* never NULL: the reader names anonymous nodes "<op_type>_<index>" */
    char *op_type;
    char *domain;     /* "" for the default ONNX domain */
    int opset;        /* opset version of the node's domain */
    int *inputs;      /* tensor indices; -1 for an omitted optional input */
    int n_inputs;
    int *outputs;     /* tensor indices; -1 for an omitted optional output */
    int n_outputs;
    wgc_attr *attrs;
    int n_attrs;
    bool dead;        /* removed by a pass or folded; skipped everywhere after */
    /* Epilogue fusion: y = act(op(x) [+ residual]) [* post_scale + post_shift],
     * act_min/max bound CLIP; HARDSWISH and the affine tail are fused into Conv only. */
    wgc_act act;
    float act_min, act_max;
    int residual;     /* tensor index added before the activation, -1 for none */
    bool post_affine;
    float post_scale, post_shift;
    /* A BatchNormalization applied to the final y in place (fuse_bn_output.c): the
     * constant [2][M] aux_affine (scale; shift), then a clamp to [aux_min, aux_max].
     * -1: none. Conv only. */
    int aux_affine;
    float aux_min, aux_max;
    /* A constant per-column bias [N] added before the residual and the activation
     * (fuse_matmul_epilogue.c: MatMul on the packed-B kernel), -1: none. */
    int bias;
    /* ConvInteger with its float tail fused (fuse_qconv_epilogue.c): inputs 4, 5 and 6
     * are the scale, the constant float bias and a residual (-1: none), act / act_min /
     * act_max the clamp before the residual; output 0 is float32, and output 1, when
     * present, the [min, max] pairs (one per thread) that the DynamicQuantizeLinear of
     * output 0 reads as its input 1. */
    bool qdeq;
    wgc_impl impl;    /* set by the selection step, after every rewriting pass */
    int region;       /* the body the node belongs to (wgc_body.region), 0 for the main graph */
} wgc_node;

typedef struct wgc_graph {
    wgc_tensor *tensors;
    int n_tensors, cap_tensors;
    int *name_index;   /* open-addressing table of tensor indices by name (graph.c), -1 free */
    int name_slots;    /* its size: a power of two, at least twice n_tensors; 0: none yet */
    wgc_node *nodes;   /* in topological order once the reader returns */
    int n_nodes, cap_nodes;
    int *inputs;       /* graph inputs (tensor indices), initializers excluded */
    int n_inputs;
    int *outputs;
    int n_outputs;
    char *name;
    char *producer;
    int64_t ir_version;
    int opset;         /* default-domain opset */
    int n_regions;     /* bodies read (region ids 1..n_regions) */
    /* Which regions of the model as read read each graph input (onnx_bodies.c, before any
     * pass): pairs (tensor, region), region 0 the main graph (its nodes, its outputs), else
     * the body whose nodes or outputs name the input. A graph input read only inside bodies
     * may be given empty (docs/abi.md "Empty inputs"; codegen/sym_exports.c). */
    int *input_reads;
    int n_input_reads;
    void *map;         /* the mapped model file, kept while constants point into it */
    size_t map_len;
    wgc_symbol syms[WGC_MAX_SYMS]; /* symbolic dimensions: --dim ones first, in metadata order */
    int n_syms;
    char err[1024];    /* last error message */
    bool fp16_weights; /* lower_fp16 widened float16 weights: the emitter stores float32
                        * weights that are all float16 values as float16 (emitter.c) */
} wgc_graph;

wgc_graph *wgc_graph_new(void);
void wgc_graph_free(wgc_graph *g);

/* Index of the tensor called name, or -1. */
int wgc_tensor_find(const wgc_graph *g, const char *name);
/* Index of a new tensor called name (copied), or -1 when out of memory. */
int wgc_tensor_add(wgc_graph *g, const char *name);
/* Index of the existing tensor or a new one; -1 when out of memory. */
int wgc_tensor_get(wgc_graph *g, const char *name);
/* Makes tensor t a constant owning data (malloc'ed; taken over even on failure). */
void wgc_tensor_set_const(wgc_graph *g, int t, int dtype, const wgc_shape *shape, void *data);

/* Appends a node (name/op_type/domain copied); returns its index or -1. Inputs and
 * outputs are given as tensor indices; the arrays are copied. */
int wgc_node_add(wgc_graph *g, const char *name, const char *op_type, const char *domain,
                 const int *inputs, int n_inputs, const int *outputs, int n_outputs);
/* Adds an attribute to node n; returns it (zeroed apart from name and type) or NULL. */
wgc_attr *wgc_attr_add(wgc_graph *g, int n, const char *name, int type);
/* Adds to node n a deep copy of attribute src (of any node, n's own too) but its graph body,
 * which the caller copies; returns it, or NULL when out of memory. */
wgc_attr *wgc_attr_copy(wgc_graph *g, int n, const wgc_attr *src);

const wgc_attr *wgc_attr_find(const wgc_node *n, const char *name);
int64_t wgc_attr_int(const wgc_node *n, const char *name, int64_t dflt);
float wgc_attr_float(const wgc_node *n, const char *name, float dflt);
const char *wgc_attr_str(const wgc_node *n, const char *name, const char *dflt);
/* INTS attribute: its values and count, or NULL/0 when absent. */
const int64_t *wgc_attr_ints(const wgc_node *n, const char *name, size_t *count);
const float *wgc_attr_floats(const wgc_node *n, const char *name, size_t *count);

/* Convenience accessors. Input/output i of node n as a tensor, or NULL when omitted. */
wgc_tensor *wgc_in(wgc_graph *g, const wgc_node *n, int i);
wgc_tensor *wgc_out(wgc_graph *g, const wgc_node *n, int i);

/* Writes "node 'NAME' (OpType): <message>" ("node 'NAME' (OpType, domain D): ..." outside
 * the default domain; just the message when n is NULL) into g->err and returns st. */
wg_status wgc_error(wgc_graph *g, const wgc_node *n, wg_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Shapes. */
int64_t wgc_numel(const wgc_shape *s);
/* Product of dims with overflow check; false when it exceeds 2^40 elements or a dim < 0. */
bool wgc_numel_checked(const wgc_shape *s, int64_t *out);
/* "1x3x224x224" (scalar: "scalar") into buf. */
const char *wgc_shape_str(const wgc_shape *s, char *buf, size_t len);
/* Numpy-style broadcast of a and b into out; false when incompatible. */
/* Whether dimension d of s is symbolic (a monomial of symbols; symdim.h). */
bool wgc_dim_is_sym(const wgc_shape *s, int d);
bool wgc_broadcast(const wgc_shape *a, const wgc_shape *b, wgc_shape *out);
/* Whether a and b have a dimension pair of two different fixed sizes, neither 1: they
 * never broadcast. Otherwise a failed wgc_broadcast only means symbolic dims the compiler
 * cannot prove equal (or 1). */
bool wgc_broadcast_fixed_conflict(const wgc_shape *a, const wgc_shape *b);
/* The error of input i's shape a not broadcasting with b (what the inputs before it make):
 * WG_ERR_INVALID for fixed sizes that differ, WG_ERR_UNSUPPORTED for symbolic dims that
 * differ in form (past + seq against a run-time size), naming them (symdim.h). */
wg_status wgc_broadcast_error(wgc_graph *g, const wgc_node *n, int i, const wgc_shape *a, const wgc_shape *b);
bool wgc_shape_eq(const wgc_shape *a, const wgc_shape *b);
/* Moves nodes [from, g->n_nodes) to index at (at <= from), shifting the ones between, and
 * fixes every tensor's producer index (passes and ops that insert nodes mid-graph). */
wg_status wgc_graph_move_tail(wgc_graph *g, int at, int from);
/* Sets n_uses of every tensor from the live nodes and graph outputs. */
void wgc_graph_count_uses(wgc_graph *g);
/* Control flow (see wgc_body). True for the nodes that open or close a body: BodyBegin,
 * BodyElse, If, Loop, Scan, SequenceMap. */
bool wgc_is_body_begin(wgc_op op);
bool wgc_is_body_end(wgc_op op);
/* The index of the If/Loop/Scan that closes the body opened by node begin (a BodyBegin or
 * BodyElse), or the index of the BodyBegin that opens the body closed by node end; -1 when
 * the markers do not match (a bug). Dead nodes count: the structure never changes. */
int wgc_body_end(const wgc_graph *g, int begin);
/* wgc_body_end, and the BodyElse at begin's own depth into *else_at (-1 when none; an If's
 * between its two branches). */
int wgc_body_walk(const wgc_graph *g, int begin, int *else_at);
int wgc_body_begin(const wgc_graph *g, int end);
/* The marker (BodyBegin or BodyElse) of the body that holds node i most closely, or -1. */
int wgc_enclosing_marker(const wgc_graph *g, int i);
/* The last node of the step of wg_run_step that starts at live node i: i, or for the live
 * BodyBegin of an If/Loop/Scan the node that closes it (the construct is one step). */
int wgc_step_last(const wgc_graph *g, int i);
/* The body of GRAPH attribute name of n, or NULL. */
const wgc_body *wgc_attr_body(const wgc_node *n, const char *name);

/* Reads element i of a constant integer tensor (any integer dtype) as int64. */
int64_t wgc_const_int(const wgc_tensor *t, int64_t i);

/* Sequence and optional values (values.c). */
/* Makes tensor t a value of kind (SEQUENCE or OPTIONAL) with the n element tensors elems
 * (copied), element dtype dtype and, for an optional, presence tensor present (-1: known). */
wg_status wgc_value_set(wgc_graph *g, int t, int kind, int dtype, const int *elems, int n,
                        int present);
/* Replaces node n's inputs (or outputs) by the count tensor indices in v (copied). */
wg_status wgc_node_set_inputs(wgc_graph *g, wgc_node *n, const int *v, int count);
wg_status wgc_node_set_outputs(wgc_graph *g, wgc_node *n, const int *v, int count);
/* The kind of the value input i of n holds (WGC_KIND_TENSOR when omitted). */
int wgc_in_kind(const wgc_graph *g, const wgc_node *n, int i);
/* A new tensor named "<base><suffix>" (made unique with a counter when taken); -1 on OOM. */
int wgc_tensor_add_derived(wgc_graph *g, const char *base, const char *suffix);
/* Replaces the graph inputs and outputs that are sequences or optionals by their element
 * tensors (and presence flags), in order, marking each with value_of/value_part; an output
 * element that is a graph input, a constant or another output's element is copied first
 * (an Identity node). Called once shape inference has run (passes/infer.c). */
wg_status wgc_values_expand_boundary(wgc_graph *g);

#endif
