/*
 * conv.c: Conv (1-D, 2-D and 3-D, NC[D][H]W, float32) with groups, dilations, strides, pads, auto_pad and
 * the fused epilogue set by the passes (residual add, then Relu/Clip, HardSwish, a scalar
 * affine tail, a BatchNormalization).
 *
 * Which kernel runs a layer is not decided here: the kernel-selection step
 * (src/select/select_conv.c, the kernels in src/ir/kernels.def) records it in
 * node->impl, and conv_scratch and conv_emit only read that record. Constant weights are
 * packed at compile time in the layout of the kernel's PACK column by the packing step
 * (helpers/pack_weight.h: wgk_conv_pack_w; the phase split's 4x4 filters,
 * wgk_conv_phases_weights). Winograd filters are not
 * transformed here: transformed, they are 16/9 (F(2x2)), 36/9 (F(4x4)) or 36/25 the size
 * of the ONNX ones (a much larger module: docs/performance.md), so the module keeps
 * them packed untransformed and each Winograd conv transforms them (its prepare function)
 * once into the prepared-weights region (emit.h), on the first run or, for the layers
 * with impl.first_run, on the second; or on every run into its scratch
 * (WGC_PREP_PER_RUN). A weight computed at run time is read in its ONNX layout
 * (w_rowmajor).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../kernels/include/wgk_convnd.h"
#include "../../kernels/include/wgk_conv_packed.h"
#include "../../kernels/include/wgk_winograd.h"
#include "conv_geom.h"
#include "../ir/symdim.h"
#include "helpers/fused_epilogue.h"
#include "helpers/pack_weight.h"

/* The sizes a conv's code runs on (wgc_window_sizes: literals, or reads of wg_dims when
 * the input's batch or spatial dims are symbolic, ops/sym_window.c); the kernels loop over
 * them, their buffers planned at the maxima. sym: some are symbolic. */
typedef struct conv_sizes {
    wgc_window_sizes s;
    bool sym;
} conv_sizes;

static void sizes_of(wgc_emitter *e, const wgc_graph *g, const wgc_node *n, conv_sizes *z)
{
    const wgc_shape *x = &g->tensors[n->inputs[0]].shape, *y = &g->tensors[n->outputs[0]].shape;
    wgc_window_sizes_of(e, x, y, &z->s);
    z->sym = wgc_shape_is_sym(x) || wgc_shape_is_sym(y);
}

static wg_status conv_infer(wgc_graph *g, wgc_node *n)
{
    wgc_conv_geom c;
    wg_status st = wgc_conv_resolve(g, n, &c);
    if (st)
        return st;
    const wgc_shape y = wgc_conv_output_shape(c.N, c.M, c.rank, c.nd.out);
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

/* The bytes the selection step gave the node (wgc_impl.scratch). */
static size_t conv_scratch(const wgc_graph *g, const wgc_node *n)
{
    (void)g;
    return n->impl.scratch;
}

/* 3-D: the direct kernel on the ONNX weight layout. */
static wg_status emit_direct(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_conv_geom *c)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_window *w = &c->nd;
    const wgc_conv_view3 v = wgc_conv_view3_of(3, &x->shape.dims[2], w->out, w->k, w->s, w->d, w->pb);
    wgc_emit_convnd_call(e, g, n, "wgk_f32_conv3d_direct", c->N, c->C, c->M, c->groups, &v);
    return WG_OK;
}

/* Winograd convs: the module stores the filters packed for the direct packed conv
 * (wpacked, the size of the ONNX ones), not the 16/9, 36/9 or 36/25 larger transformed
 * ones. Normally each conv transforms them into the prepared-weights region once,
 * behind a static flag set after the transform (a run interrupted inside it redoes it);
 * under WGC_PREP_PER_RUN, on every run into the start of its scratch. Sets
 * *wexpr to the transformed filters' address and *kscratch to the kernel's scratch
 * after them. */
static wg_status emit_winograd_prepare(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_conv_geom *c,
                                       const char *wpacked, char *wexpr, size_t wexpr_len,
                                       char *kscratch, size_t kscratch_len)
{
    const wgc_kernel_info *k = wgc_kernel_get(n->impl.kernel);
    const bool per_run = n->impl.prep == WGC_PREP_PER_RUN;
    const size_t cg = wgc_conv_prepare_channels(c, n->impl.kernel);
    const size_t mg = (size_t)(c->M / c->groups);
    const size_t count = wgc_conv_transformed_floats(c, n->impl.kernel), group = count / (size_t)c->groups;
    const char *scratch = wgc_scratch(e);
    snprintf(kscratch, kscratch_len, "%s", scratch);
    if (per_run) {
        snprintf(wexpr, wexpr_len, "%s", scratch);
        snprintf(kscratch, kscratch_len, "(float *)%s + %zu", scratch, count);
    } else {
        const char *p;
        wg_status st = wgc_prepared(e, count * sizeof(float), &p);
        if (st)
            return wgc_error(g, n, st, "the transformed weight of '%s' does not fit in memory",
                             wgc_in(g, n, 1)->name);
        snprintf(wexpr, wexpr_len, "%s", p);
    }
    /* Split across threads: a once-only transform on thread 0 on the first run, the
     * others waiting for it at a barrier; thread 0 sets the flag only after that barrier,
     * which every thread reaches after reading it, so all take the same branch, and later
     * runs meet no barrier here. One done every run goes into each thread's own scratch
     * (wexpr is per thread). */
    const bool shared = wgc_threaded(e) && wgc_node_splits(n) && !per_run;
    wgc_emit(e, "{\n");
    if (!per_run) {
        wgc_emit(e, "    static int prepared; /* filters transformed (once) */\n");
        wgc_emit(e, "    if (!prepared) {\n");
    } else
        wgc_emit(e, "    { /* filters transformed on every run, into the scratch */\n");
    if (shared)
        wgc_emit(e, "    if (wg_t == 0)\n");
    wgc_emit(e, "        for (int g = 0; g < %lld; g++) /* groups: one after the other */\n", (long long)c->groups);
    wgc_emit(e, "            %s((const float *)%s + (size_t)g * %zu, %zu, %zu, (float *)%s + (size_t)g * %zu);\n",
             k->prepare, wpacked, wgk_conv_pack_w_group(mg, cg * (size_t)k->taps), mg, cg, wexpr, group);
    if (shared)
        wgc_sync(e);
    if (!per_run)
        wgc_emit(e, shared ? "        if (wg_t == 0) prepared = 1;\n" : "        prepared = 1;\n");
    wgc_emit(e, "    }\n");
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* The post-ops as a pass of their own over the output (kernels that do not fuse them). */
static void emit_post_pass(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *numel)
{
    float ps, pt;
    const int post = wgc_post_ops(n, &ps, &pt);
    if (!post)
        return;
    wgc_emit(e, "wgk_f32_post(%s, %s, %d, %s, %s);\n", wgc_ptr(e, g, n->outputs[0]), numel, post,
             wgc_float(e, ps), wgc_float(e, pt));
}

/* The fused BatchNormalization's affine (fuse_bn_output.c) in the weights; *expr gets its
 * address, "" when the node has none. */
static wg_status emit_aux_affine(wgc_emitter *e, wgc_graph *g, wgc_node *n, char *expr, size_t len)
{
    expr[0] = '\0';
    if (n->aux_affine < 0)
        return WG_OK;
    const wgc_tensor *t = &g->tensors[n->aux_affine];
    const char *w;
    wg_status st = wgc_weight(e, t->data, sizeof(float) * (size_t)wgc_numel(&t->shape), &w);
    if (st)
        return wgc_error(g, n, st, "out of memory");
    snprintf(expr, len, "%s", w);
    return WG_OK;
}

/* The fused BatchNormalization as a pass of its own over y, for the kernels that do not
 * apply wgk_conv2d_args.y2. */
static void emit_aux_pass(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_conv_geom *c,
                          const conv_sizes *z, const char *affine)
{
    wgc_emit(e, "wgk_f32_channel_affine(%s, %s, (const float *)%s + %lld, 0, %s, %s, %lld, %s, %s, %s);\n",
             wgc_ptr(e, g, n->outputs[0]), affine, affine, (long long)c->M, wgc_ptr(e, g, n->outputs[0]),
             z->s.N, (long long)c->M, z->s.out_plane, wgc_float(e, n->aux_min), wgc_float(e, n->aux_max));
}

/* One call of 2-D conv kernel k on the layer's arguments, then the post-ops as a pass
 * of their own unless the kernel applies them (kernels.def's FUSES); likewise a fused
 * BatchNormalization (affine: its constant, "" for none). */
static void emit_kernel_call(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_conv_geom *c,
                             const conv_sizes *z, wgc_kernel k, const char *wexpr, const char *kscratch,
                             const char *gemm, bool rowmajor, const char *affine)
{
    const unsigned fuses = wgc_kernel_get(k)->fuses;
    const bool post_in_kernel = fuses & WGC_FUSES_POST, aux_in_kernel = affine[0] && (fuses & WGC_FUSES_BN);
    char kernel[64];
    wgc_kernel_symbol(k, (int)c->KH, (int)c->KW, (int)c->win.s[0], (int)c->win.s[1], kernel, sizeof kernel);
    const wgc_window *wn = &c->win;
    const bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    float lo, hi, ps, pt;
    wgc_act_range(n, &lo, &hi);
    /* The arguments as static data (wgc_static_data): no code builds them. Split across
     * threads, code does: each thread's share and scratch differ; so do the addresses of
     * a per-sample loop's sample (sym_batch.c). */
    const bool split = wgc_threaded(e) && wgc_node_splits(n) && wgc_kernel_splits(k);
    const bool code_args = split || wgc_ptrs_vary(e) || z->sym;
    if (!code_args)
        wgc_static_data(e, sizeof(wgk_conv2d_args));
    wgc_emit(e, "{");
    if (split) /* the split rule sets the thread's share in it */
        wgc_emit(e, "    wgk_conv2d_args args = {");
    else if (code_args)
        wgc_emit(e, "    const wgk_conv2d_args args = {");
    wgc_emit(e,
             "%s.N = %s, .C = %lld, .H = %s, .W = %s, .M = %lld, "
             ".OH = %s, .OW = %s, .KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, .DH = %lld, "
             ".DW = %lld, .PT = %lld, .PL = %lld, .groups = %lld,\n",
             code_args ? "        " : "    static const wgk_conv2d_args args = {", z->s.N, (long long)c->C, z->s.H, z->s.W,
             (long long)c->M, z->s.OH, z->s.OW, (long long)c->KH, (long long)c->KW,
             (long long)wn->s[0], (long long)wn->s[1], (long long)wn->d[0], (long long)wn->d[1],
             (long long)wn->pb[0], (long long)wn->pb[1], (long long)c->groups);
    wgc_emit(e, "        .x = %s, .w = %s, .bias = %s, .res = %s, .y = %s,", wgc_ptr(e, g, n->inputs[0]),
             wexpr, has_b ? wgc_ptr(e, g, n->inputs[2]) : "0",
             n->residual >= 0 ? wgc_ptr(e, g, n->residual) : "0", wgc_ptr(e, g, n->outputs[0]));
    /* Post-ops (fused HardSwish, scalar affine): in the kernel where it applies them,
     * else one pass over the output after it. */
    const int post = wgc_post_ops(n, &ps, &pt);
    wgc_emit(e, "        .scratch = %s, .min = %s, .max = %s, .gemm = %s, .w_rowmajor = %d,", kscratch,
             wgc_float(e, lo), wgc_float(e, hi), gemm, rowmajor);
    if (post && post_in_kernel)
        wgc_emit(e, "        .post = %d, .post_scale = %s, .post_shift = %s,", post, wgc_float(e, ps),
                 wgc_float(e, pt));
    if (aux_in_kernel)
        wgc_emit(e, "        .y2 = %s, .y2_affine = %s, .y2_min = %s, .y2_max = %s,", wgc_ptr(e, g, n->outputs[0]),
                 affine, wgc_float(e, n->aux_min), wgc_float(e, n->aux_max));
    wgc_emit(e, "    };");
    if (split)
        wgc_emit_split_guard(e, k, "args");
    wgc_emit(e, "    %s(&args);", kernel);
    wgc_emit(e, "}");
    const bool passes = (post && !post_in_kernel) || (affine[0] && !aux_in_kernel);
    if (split && passes) { /* the passes below read the whole output: after every thread, on one */
        wgc_sync(e);
        wgc_emit(e, "if (wg_t == 0) {");
    }
    if (!post_in_kernel)
        emit_post_pass(e, g, n, z->s.numel);
    if (affine[0] && !aux_in_kernel)
        emit_aux_pass(e, g, n, c, z, affine);
    if (split && passes)
        wgc_emit(e, "}");
}

/* The constant weight in the layout of the kernel's PACK column (the packing step,
 * helpers/pack_weight.h: wgk_conv_pack_w panels; the phase split's 4x4 filters,
 * wgk_conv_phases_weights, packed for wgk_winograd_f3x4_prepare_w) in the weights
 * segment; *wexpr gets its address. */
static wg_status emit_packed_weight(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_conv_geom *c,
                                    wgc_pack layout, char *wexpr, size_t wexpr_len)
{
    const wgc_pack_geom geo = {.M = (size_t)c->M, .C = (size_t)c->C, .KH = (size_t)c->KH,
                               .KW = (size_t)c->KW, .groups = (size_t)c->groups};
    const char *p;
    wg_status st = wgc_pack_weight(e, g, n, wgc_in(g, n, 1), layout, &geo, &p);
    if (st)
        return st;
    snprintf(wexpr, wexpr_len, "%s", p);
    return WG_OK;
}

/* A Winograd conv: its packed filters, their transform and the Winograd kernel; with an
 * impl.first_run kernel, that direct conv on the first run instead, on the same packed
 * filters, and the transform on the second. */
static wg_status emit_winograd(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_conv_geom *c,
                               const conv_sizes *z)
{
    const wgc_impl *im = &n->impl;
    char wpacked[64], wexpr[128], kscratch[128], affine[64];
    wg_status st = emit_packed_weight(e, g, n, c, wgc_kernel_get(im->kernel)->pack, wpacked, sizeof wpacked);
    if (st || (st = emit_aux_affine(e, g, n, affine, sizeof affine)))
        return st;
    const bool direct = im->first_run != WGC_KERNEL_NONE;
    /* Threads: every thread reads the flag before the barrier, thread 0 sets it after,
     * so all take the same branch (and only the first run meets that barrier). */
    const bool split = wgc_threaded(e) && wgc_node_splits(n);
    if (direct) {
        wgc_emit(e, "{ /* first run: direct; later runs: Winograd, filters transformed on the second */\n");
        wgc_emit(e, "    static int ran;");
        wgc_emit(e, "    if (!ran) {");
        if (split)
            wgc_sync(e);
        char scratch[96];
        snprintf(scratch, sizeof scratch, "%s", wgc_scratch(e));
        emit_kernel_call(e, g, n, c, z, im->first_run, wpacked, scratch, "0", false, affine);
        wgc_emit(e, split ? "    if (wg_t == 0) ran = 1;" : "    ran = 1;");
        wgc_emit(e, "    } else {");
    }
    if ((st = emit_winograd_prepare(e, g, n, c, wpacked, wexpr, sizeof wexpr, kscratch, sizeof kscratch)))
        return st;
    emit_kernel_call(e, g, n, c, z, im->kernel, wexpr, kscratch, "0", false, affine);
    if (direct) {
        wgc_emit(e, "    }");
        wgc_emit(e, "}");
    }
    return WG_OK;
}

static wg_status conv_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_conv_geom c;
    wg_status st = wgc_conv_resolve(g, n, &c);
    if (st)
        return st;
    conv_sizes z;
    sizes_of(e, g, n, &z);
    const wgc_impl *im = &n->impl;
    const wgc_kernel_info *k = wgc_kernel_get(im->kernel);
    if (!k) /* a compiler bug, not a model problem */
        return wgc_error(g, n, WG_ERR_INVALID, "no kernel was selected for this Conv (src/select/ did not run)");
    if (im->kernel == WGC_KERNEL_CONV3D_DIRECT) {
        if (n->aux_affine >= 0) /* fuse_bn_output.c takes 2-D convs only */
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a fused BatchNormalization on a 3-D Conv");
        if (z.sym) /* sliding windows of 1-D and 2-D convs only (conv_sym_takes) */
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a 3-D Conv of symbolic dims");
        if ((st = emit_direct(e, g, n, &c)))
            return st;
        emit_post_pass(e, g, n, z.s.numel);
        return WG_OK;
    }
    if (k->prepare)
        return emit_winograd(e, g, n, &c, &z);
    char wexpr[128], kscratch[128] = "0", affine[64]; /* kscratch: the kernel's scratch */
    if ((st = emit_aux_affine(e, g, n, affine, sizeof affine)))
        return st;
    if (k->pack == WGC_PACK_ONNX)
        snprintf(wexpr, sizeof wexpr, "%s", wgc_ptr(e, g, n->inputs[1]));
    else if ((st = emit_packed_weight(e, g, n, &c, k->pack, wexpr, sizeof wexpr)))
        return st;
    if (wgc_kernel_has_scratch(im->kernel))
        snprintf(kscratch, sizeof kscratch, "%s", wgc_scratch(e));
    /* Only the generic 1x1 and im2col kernels call a GEMM through this pointer (on a
     * weight computed at run time, read in its ONNX layout: w_rowmajor); naming it for the
     * others would link its code (4 KiB of wasm for wasmtime to compile) in vain. */
    const wgc_kernel_info *gemm = wgc_kernel_get(im->gemm);
    emit_kernel_call(e, g, n, &c, &z, im->kernel, wexpr, kscratch, gemm ? gemm->symbol : "0", gemm != NULL, affine);
    return WG_OK;
}


/* Per sample (WGC_PER_SAMPLE) always; sliding windows over symbolic spatial dims
 * (WGC_WINDOW) 1-D or 2-D. */
static bool conv_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t == WGC_PER_SAMPLE)
        return true;
    if (t != WGC_WINDOW)
        return false;
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    return rank == 3 || rank == 4;
}

const wgc_op_def wgc_op_conv = {
    .infer = conv_infer,
    .emit = conv_emit,
    .scratch = conv_scratch,
    .sym = {.takes = conv_sym_takes},
};
