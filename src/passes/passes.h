/*
 * passes.h: graph passes. Each pass is a free function with the same signature, run in
 * order by the pipeline list in compile/compile.c; each returns WG_OK or a wgc_error.
 */
#ifndef WGC_PASSES_H
#define WGC_PASSES_H

#include <stdbool.h>
#include "../ir/ir.h"

#define WGC_MAX_SHAPE_OVERRIDES 16
#define WGC_MAX_SEQ_SHAPES 64 /* elements of a sequence input given by one --shape */

/* A shape as --shape writes it: dims only (no symbol powers: a wgc_shape is large). */
typedef struct wgc_dims_spec {
    int rank;
    int64_t dims[WG_MAX_RANK];
} wgc_dims_spec;

typedef struct wgc_shape_override {
    const char *name;   /* graph input name */
    wgc_dims_spec shape; /* = elems[0]; dims[d] < 0: the symbolic dimension dim_name[d] */
    char dim_name[WG_MAX_RANK][WGC_SYM_NAME];
    /* A sequence input's element shapes, '+'-separated ("4+3+2"; "[]" for none); for a
     * tensor only `shape` counts (n_elems 0 or 1). */
    wgc_dims_spec elems[WGC_MAX_SEQ_SHAPES];
    int n_elems;
} wgc_shape_override;

/* What the passes are told: the --shape overrides. The pipeline (compile/compile.c) fills
 * it from the command's options; passes never see the driver's options (compile/options.h). */
typedef struct wgc_pass_options {
    wgc_shape_override shapes[WGC_MAX_SHAPE_OVERRIDES];
    int n_shapes;
    bool simd; /* the target has SIMD128 (also true under --relaxed-simd): kernel selection */
    /* --dim NAME=MIN..MAX: the ranges of symbolic dims, and the bounds of integer graph
     * inputs' values (those NAME an input; infer.c bind_value_ranges) */
    wgc_symbol dims[WGC_MAX_SYMS];
    int n_dims;
    int threads; /* the most threads a threaded module runs on, 0: single-threaded */
} wgc_pass_options;

typedef wg_status (*wgc_pass_fn)(wgc_graph *g, const wgc_pass_options *opt);

/* Float16 graphs compute in float32: constants widened, casts at the graph edges. */
wg_status wgc_pass_lower_fp16(wgc_graph *g, const wgc_pass_options *opt);
/* Applies --shape, then infers every tensor's dtype and shape, folding constant nodes. */
wg_status wgc_pass_infer(wgc_graph *g, const wgc_pass_options *opt);
/* Each Gradient node (ai.onnx.preview.training) becomes ordinary nodes computing its
 * derivatives by reverse-mode differentiation (runs after infer: needs shapes). */
wg_status wgc_pass_expand_gradient(wgc_graph *g, const wgc_pass_options *opt);
/* Identity and Dropout (inference) forward their input: consumers read it directly. */
wg_status wgc_pass_remove_identity(wgc_graph *g, const wgc_pass_options *opt);
/* BatchNormalization after a Conv/Gemm with constant weights is folded into them. */
wg_status wgc_pass_fold_batchnorm(wgc_graph *g, const wgc_pass_options *opt);
/* QuantizeLinear(Conv(DequantizeLinear(xq), DequantizeLinear(wq), ...)) -> QLinearConv: a
 * QDQ model's convolutions on the int8 kernels (match_qdq.c). */
wg_status wgc_pass_match_qdq(wgc_graph *g, const wgc_pass_options *opt);
/* Mul(x, Div(Clip(Add(x, 3), 0, 6), 6)) -> HardSwish(x) (match_hardswish.c). */
wg_status wgc_pass_match_hardswish(wgc_graph *g, const wgc_pass_options *opt);
/* Decomposed GELUs (erf and tanh forms) -> one Gelu node (match_gelu.c). */
wg_status wgc_pass_match_gelu(wgc_graph *g, const wgc_pass_options *opt);
/* MatMul with a constant 2-D B -> [Add bias] -> [Gelu | Add residual] becomes one MatMul
 * whose packed-B kernel applies them; a Gemm on that kernel takes a Gelu, also through a
 * Reshape (fuse_matmul_epilogue.c). */
wg_status wgc_pass_fuse_matmul_epilogue(wgc_graph *g, const wgc_pass_options *opt);
/* Relu/Clip (and a residual Add before them) move into the producing Conv's epilogue. */
wg_status wgc_pass_fuse_epilogue(wgc_graph *g, const wgc_pass_options *opt);
/* ConvInteger -> Cast -> Mul (scale) [-> Add bias] [-> Relu | Clip] [-> Add residual]
 * becomes one ConvInteger writing float32 (node->qdeq), and a DynamicQuantizeLinear of
 * that output reads the range its kernel kept (fuse_qconv_epilogue.c). */
wg_status wgc_pass_fuse_qconv_epilogue(wgc_graph *g, const wgc_pass_options *opt);
/* The bounds of Clip node c when they are constants (-inf / inf where absent). */
bool wgc_clip_bounds(wgc_graph *g, const wgc_node *c, float *lo, float *hi);
/* A BatchNormalization (+ Relu) that is the only reader of a Conv's output moves into
 * the Conv's epilogue (fuse_bn_output.c). */
wg_status wgc_pass_fuse_bn_output(wgc_graph *g, const wgc_pass_options *opt);
/* Subnormal float32 weights of Conv/Gemm/MatMul/RNN nodes become zeros (x86 computes
 * with subnormals ~100x slower; flush_denormals.c). */
wg_status wgc_pass_flush_denormals(wgc_graph *g, const wgc_pass_options *opt);
/* Nodes whose outputs nobody reads are removed. */
wg_status wgc_pass_remove_dead(wgc_graph *g, const wgc_pass_options *opt);

/* Helper: replaces every read of tensor `from` (node inputs, residuals, graph outputs
 * excluded) by tensor `to`. */
void wgc_replace_uses(wgc_graph *g, int from, int to);
/* Helper: the single live node reading tensor t (n_uses must be current), or NULL when
 * t has other readers, is a graph output, or is read in another body than its producer's. */
wgc_node *wgc_only_consumer(wgc_graph *g, int t);
/* Helper: the live single-output node of op `op` producing float32 tensor t, when only one
 * node reads t and t is no graph output; NULL otherwise (and for t < 0). The pattern matchers
 * (match_gelu.c, match_hardswish.c) may then absorb it into its reader. */
wgc_node *wgc_sole_float_producer(wgc_graph *g, int t, wgc_op op);
/* Helper: node `into` writes `from`'s (first) output instead of its own, and `from` dies
 * (the epilogue fusions: `from` was the only reader of `into`'s output). */
void wgc_take_output(wgc_graph *g, wgc_node *into, wgc_node *from);

#endif
