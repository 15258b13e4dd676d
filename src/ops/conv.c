/*
 * conv.c: Conv (1-D, 2-D and 3-D, NC[D][H]W, float32) with groups, dilations, strides, pads, auto_pad and
 * the fused epilogue set by the passes (residual add, then Relu/Clip).
 *
 * Lowering, chosen per layer (resolve(), use_packed(), use_winograd(), use_strassen(),
 * use_fewpix()):
 *   depthwise (one input channel per group, groups > 1)   wgk_f32_dwconv2d, ONNX weights;
 *                                                          3x3/5x5, strides 1-2, SIMD builds:
 *                                                          wgk_f32_dwconv2d_KxK_sHxW (padded plane)
 *   constant weight, 3x3 stride 1, C, M per group >= 16    wgk_f32_conv2d_winograd4 (F(4x4,3x3))
 *                                                          when the output has >= 8 4x4 tiles,
 *                                                          else wgk_f32_conv2d_winograd (F(2x2));
 *   constant weight, 5x5 stride 1, C, M per group >= 16    wgk_f32_conv2d_winograd5x5 (F(2x2,5x5));
 *   constant weight, 3x3 stride 2, C, M per group >= 16,   wgk_f32_conv2d_winograd_s2 (25 products
 *     2x2 tiles < 0.8x the direct multiplies               per 2x2 tile on the input's phases);
 *   constant weight, 7x7/8x8 stride 2, one group, M >= 16   wgk_f32_conv2d_phases (a 4x4 conv on the
 *                                                          4 phases by F(3x3, 4x4); the module
 *                                                          stores the phase conv's filters);
 *                                                          Winograd: filters packed as for
 *                                                          wgk_f32_conv2d_packed in the module,
 *                                                          transformed + packed by the module;
 *                                                          small images (first_run_direct):
 *                                                          wgk_f32_conv2d_packed on the first run
 *   constant weight, 1x1 no pad, C >= 128, OH*OW >= 128     wgk_f32_conv2d_strassen (one level of
 *                                                          Strassen, wgk_conv_strassen_ok) on the
 *                                                          weights packed as for the next line
 *   constant weight, one group, 16-64 output pixels,       wgk_f32_conv2d_fewpix (pixels broadcast,
 *     M >= 64, C*KH*KW >= 256 (wgk_conv_fewpix_ok)         weight panels streamed; same weights)
 *   other constant-weight 2-D convs                        wgk_f32_conv2d_packed (packed-GEMM,
 *                                                          im2col fused into B packing)
 *   weight computed at run time: 1x1, stride 1, no pad     wgk_f32_conv2d_1x1, ONNX layout
 *                                anything else             wgk_f32_conv2d_im2col, ONNX layout
 * Other constant weights are packed here at compile time (wgk_conv_pack_w, wgk_pack_conv).
 * Winograd filters are not transformed here: transformed, they are 16/9 (F(2x2)), 36/9
 * (F(4x4)) or 36/25 the size of the ONNX ones (ResNet-50 v2: a 152 MiB module instead of
 * 98 MiB), so the module keeps them packed untransformed and each Winograd conv
 * transforms them once (wgk_wino*_prepare_w into the prepared-weights region, emit.h):
 * on the first run, or on the second for the layers first_run_direct() runs direct
 * first. A weight computed at run time is read in its ONNX layout (w_rowmajor).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../kernels/include/wgk_pack.h"
#include "../../kernels/include/wgk_convnd.h"
#include "../../kernels/include/wgk_conv_packed.h"
#include "../../kernels/include/wgk_conv_strassen.h"
#include "../../kernels/include/wgk_conv_fewpix.h"
#include "../../kernels/include/wgk_winograd.h"
#include "helpers/fused_epilogue.h"
#include "helpers/sliding_window.h"

enum { CONV_DW, CONV_1X1, CONV_IM2COL, CONV_3D };

/* 1-D convolutions run as 2-D with H = 1; 3-D ones on the direct kernel (wgk_convnd.h). */
typedef struct conv_geom {
    int64_t N, C, H, W, M, OH, OW, KH, KW, groups;
    wgc_window win; /* 2-D view (1-D: a unit first dim) */
    wgc_window nd;  /* as the model gives it */
    int rank;       /* spatial dims */
    int kind;
} conv_geom;

static const int f32_only[] = {WG_DT_FLOAT, 0};

/* Reads and checks everything; fills geom (shapes must be known). */
static wg_status resolve(wgc_graph *g, const wgc_node *n, conv_geom *c)
{
    wg_status st = wgc_check_arity(g, n, 2, 3, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, f32_only);
    if (!st)
        st = wgc_check_input(g, n, 1, f32_only);
    if (!st && n->n_inputs > 2 && n->inputs[2] >= 0)
        st = wgc_check_input(g, n, 2, f32_only);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1), *b = wgc_in(g, n, 2);
    const int sr = c->rank = x->shape.rank - 2;
    if (sr < 1 || sr > 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "Conv with a rank-%d input is not supported (only 1-D, 2-D and 3-D)",
                         x->shape.rank);
    if (w->shape.rank != x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "weight '%s' has rank %d, expected %d", w->name,
                         w->shape.rank, x->shape.rank);
    c->N = x->shape.dims[0];
    c->C = x->shape.dims[1];
    c->M = w->shape.dims[0];
    c->groups = wgc_attr_int(n, "group", 1);
    if (c->groups < 1 || c->C % c->groups || c->M % c->groups || c->M < 1 ||
        w->shape.dims[1] * c->groups != c->C)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "group = %lld does not fit input channels %lld, weight '%s' [%lld, %lld, ...]",
                         (long long)c->groups, (long long)c->C, w->name, (long long)c->M,
                         (long long)w->shape.dims[1]);
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != c->M))
        return wgc_error(g, n, WG_ERR_INVALID, "bias '%s' must have shape [%lld]", b->name,
                         (long long)c->M);
    if ((st = wgc_window_resolve(g, n, &x->shape.dims[2], sr, &w->shape.dims[2], false, &c->nd)))
        return st;
    if (sr == 2) {
        c->win = c->nd;
    } else {
        /* 1-D: a unit leading dim; 3-D: only the last two matter for the size checks. */
        const wgc_window *s = &c->nd;
        const int o = sr == 1 ? -1 : 1;
        c->win.rank = 2;
        for (int i = 0; i < 2; i++) {
            const bool unit = o + i < 0;
            c->win.k[i] = unit ? 1 : s->k[o + i];
            c->win.s[i] = unit ? 1 : s->s[o + i];
            c->win.d[i] = unit ? 1 : s->d[o + i];
            c->win.pb[i] = unit ? 0 : s->pb[o + i];
            c->win.pe[i] = unit ? 0 : s->pe[o + i];
            c->win.out[i] = unit ? 1 : s->out[o + i];
        }
    }
    c->H = sr == 1 ? 1 : x->shape.dims[sr];
    c->W = x->shape.dims[sr + 1];
    c->KH = c->win.k[0];
    c->KW = c->win.k[1];
    c->OH = c->win.out[0];
    c->OW = c->win.out[1];
    const wgc_window *wn = &c->win;
    if (sr == 3)
        c->kind = CONV_3D;
    else if (c->C == c->groups && c->groups > 1)
        c->kind = CONV_DW;
    else if (c->KH == 1 && c->KW == 1 && wn->s[0] == 1 && wn->s[1] == 1 && !wn->pb[0] &&
             !wn->pb[1] && !wn->pe[0] && !wn->pe[1])
        c->kind = CONV_1X1;
    else
        c->kind = CONV_IM2COL;
    /* The kernels index with 32-bit ints. */
    const int64_t lim = (int64_t)1 << 31;
    const int64_t D = sr == 3 ? x->shape.dims[2] : 1, OD = sr == 3 ? c->nd.out[0] : 1;
    if (c->N * c->C * D * c->H * c->W >= lim || c->N * c->M * OD * c->OH * c->OW >= lim ||
        c->C / c->groups * c->KH * c->KW * c->OH * c->OW >= lim / 4)
        return wgc_error(g, n, WG_ERR_LIMIT, "Conv is too large for the 32-bit kernels");
    return WG_OK;
}

static wg_status conv_infer(wgc_graph *g, wgc_node *n)
{
    conv_geom c;
    wg_status st = resolve(g, n, &c);
    if (st)
        return st;
    wgc_shape y = {.rank = c.rank + 2, .dims = {c.N, c.M}};
    for (int i = 0; i < c.rank; i++)
        y.dims[2 + i] = c.nd.out[i];
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

/* 1x1 and im2col convs whose weight is a constant run on the packed-GEMM kernel
 * (wgk_conv_packed.h: 4-row weight panels packed here, B packed at run time). */
static bool use_packed(wgc_graph *g, const wgc_node *n, const conv_geom *c)
{
    return (c->kind == CONV_1X1 || c->kind == CONV_IM2COL) && wgc_in(g, n, 1)->data;
}

/* Of those, stride-1 undilated 3x3 and 5x5 convs with enough channels per group for the
 * transforms to pay run on Winograd (wgk_winograd.h), for a larger transformed weight
 * made by the module on its first run; grouped ones (AlexNet) run group by group:
 *   3x3, F(4x4, 3x3) when it beats F(2x2) (wgk_wino4_better)  4x fewer multiplies, 36/9 weight
 *   3x3, else F(2x2, 3x3)                                     2.25x fewer, 16/9 weight
 *   5x5, F(2x2, 5x5)                                          2.8x fewer, 36/25 weight
 * and 3x3 stride 2 where its tiles pay (wgk_wino_s2_better): 25 products per 2x2 tile on
 * the input's even and odd phases, 1.44x fewer multiplies, 25/9 weight; and 7x7 or 8x8
 * stride 2 (wgk_conv_phases_ok, any channel count: ResNet's first layer) as a 4x4 conv on
 * the input's 4 phases by F(3x3, 4x4): 16 multiplies per output and input channel
 * instead of 49, a 144/49 weight (the module stores the phase conv's 4x4 filters). */
typedef enum { WINO_NONE, WINO_F2, WINO_F4, WINO_F2K5, WINO_S2, WINO_PHASE } wino_kind;

static const struct wino_impl {
    const char *kernel, *prepare;
    size_t taps; /* filter floats per (output, input) channel pair */
} wino_impls[] = {
    [WINO_F2] = {"wgk_f32_conv2d_winograd", "wgk_wino_prepare_w", 9},
    [WINO_F4] = {"wgk_f32_conv2d_winograd4", "wgk_wino4_prepare_w", 9},
    [WINO_F2K5] = {"wgk_f32_conv2d_winograd5x5", "wgk_wino5x5_prepare_w", 25},
    [WINO_S2] = {"wgk_f32_conv2d_winograd_s2", "wgk_wino_s2_prepare_w", 9},
    [WINO_PHASE] = {"wgk_f32_conv2d_phases", "wgk_wino4x4_prepare_w", 16},
};

static wgk_conv2d_args geom_args(const conv_geom *c);

/* Input channels of the filters a Winograd kind transforms: the phase split's conv has 4
 * per input channel. */
static size_t wino_channels(wino_kind kind, size_t cg)
{
    return kind == WINO_PHASE ? 4 * cg : cg;
}

static wino_kind winograd_kind(wgc_graph *g, const wgc_node *n, const conv_geom *c)
{
    const wgc_window *w = &c->win;
    if (!use_packed(g, n, c) || c->rank != 2)
        return WINO_NONE;
    const wgk_conv2d_args a = geom_args(c);
    if (wgk_conv_phases_ok(&a) && c->M >= 16 && c->OH * c->OW >= 36)
        return WINO_PHASE;
    if (w->s[0] != w->s[1] || w->d[0] != 1 || w->d[1] != 1 || c->C / c->groups < 16 || c->M / c->groups < 16)
        return WINO_NONE;
    if (w->s[0] == 2)
        return c->KH == 3 && c->KW == 3 && wgk_wino_s2_better((int)c->OH, (int)c->OW) ? WINO_S2 : WINO_NONE;
    if (w->s[0] != 1)
        return WINO_NONE;
    if (c->KH == 3 && c->KW == 3)
        return wgk_wino4_better((int)c->OH, (int)c->OW) ? WINO_F4 : WINO_F2;
    if (c->KH == 5 && c->KW == 5)
        return WINO_F2K5;
    return WINO_NONE;
}

static bool use_winograd(wgc_graph *g, const wgc_node *n, const conv_geom *c)
{
    return winograd_kind(g, n, c) != WINO_NONE;
}

/* Floats of a Winograd conv's transformed filters, all groups (F(4x4) and F(2x2, 5x5)
 * both make 36 matrices). */
static size_t winograd_weight_floats(wgc_graph *g, const wgc_node *n, const conv_geom *c)
{
    const size_t cg = (size_t)(c->C / c->groups), mg = (size_t)(c->M / c->groups);
    const wino_kind kind = winograd_kind(g, n, c);
    const size_t group = kind == WINO_F2   ? wgk_wino_pack_w_size(mg, cg)
                         : kind == WINO_S2 ? wgk_wino_s2_pack_w_size(mg, cg)
                                           : wgk_wino4_pack_w_size(mg, wino_channels(kind, cg));
    return group * (size_t)c->groups;
}

/* Models whose transformed filters would together take more than this keep none of
 * them: every Winograd conv transforms its filters on every run into its scratch, which
 * all nodes share. VGG-19 (548 MiB of weights) would otherwise add 305 MiB to its memory
 * (0.82 of onnxruntime-web's peak RSS) and first-touch it in its first run; per run the
 * transforms cost it ~6%. ResNet-50 (91 MiB, a larger share of its work in small layers
 * where the transform is dear) keeps them. */
#define WINOGRAD_KEEP_LIMIT ((size_t)128 << 20)

static bool winograd_per_run(wgc_graph *g)
{
    size_t total = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *m = &g->nodes[i];
        conv_geom c;
        /* resolve() only writes g->err on failure; infer has already succeeded here. */
        if (m->dead || m->op != WGC_OP_CONV || resolve(g, m, &c))
            continue;
        if (use_winograd(g, m, &c))
            total += winograd_weight_floats(g, m, &c) * sizeof(float);
    }
    return total > WINOGRAD_KEEP_LIMIT;
}

/* Whether a kept Winograd conv runs as a direct packed conv on the module's first run
 * and transforms its filters on the second. Transforming them costs the first run, per
 * (output, input) channel pair, the fresh memory they fill (4 bytes per matrix: first
 * touch and transform) where the direct conv costs the multiplies Winograd saves (taps *
 * pixels - matrices * tiles, ~0.08 ns each at ~26 GFLOP/s). Measured on ResNet-50 v2's
 * first run (profile build, `wasmgraph profile --warmup 0 --iters 1`): a 14x14 256-channel
 * F(4x4) layer takes 5.5-5.8 ms with its transform (9 MiB, ~0.23 ns a byte) against 3.4
 * warm and ~8.7 direct; in the machine's slow phases up to 1 ns a byte. 0.45 keeps the
 * 14x14 F(4x4) layers on Winograd (10 ms less first run, 12 interleaved cold starts) and
 * sends the 7x7 ones (38 MiB of filters each) and the 14x14 stride-2 one (measured even)
 * direct. */
#define FRESH_NS_PER_BYTE 0.45 /* transform + first touch of fresh memory, per byte */
#define DIRECT_NS_PER_MAC 0.08 /* the direct conv, per multiply-add */

static bool first_run_direct(wgc_graph *g, const wgc_node *n, const conv_geom *c)
{
    const wino_kind kind = winograd_kind(g, n, c);
    /* The phase split's module holds only its own 4x4 filters: no direct conv to run. */
    if (kind == WINO_NONE || kind == WINO_PHASE || winograd_per_run(g))
        return false;
    const int64_t tile = kind == WINO_F4 ? 4 : 2;
    const int64_t matrices = kind == WINO_F2 ? 16 : kind == WINO_S2 ? 25 : 36;
    const int64_t tiles = (c->OH + tile - 1) / tile * ((c->OW + tile - 1) / tile);
    const int64_t saved = c->KH * c->KW * c->OH * c->OW - matrices * tiles;
    return (double)(matrices * (int64_t)sizeof(float)) * FRESH_NS_PER_BYTE > (double)saved * DIRECT_NS_PER_MAC;
}

/* Packed 1x1 convs where one level of Strassen's algorithm saves work
 * (wgk_conv_strassen_ok): the same packed weight, a different kernel. */
static bool use_strassen(wgc_graph *g, const wgc_node *n, const conv_geom *c)
{
    const wgk_conv2d_args a = geom_args(c);
    return use_packed(g, n, c) && !use_winograd(g, n, c) && c->rank == 2 && wgk_conv_strassen_ok(&a);
}

/* Whether a packed conv's shape suits the few-pixel kernel (wgk_conv_fewpix_ok, ResNet's
 * 7x7 stage), which reads the same packed weight but broadcasts the pixels instead. */
static bool direct_fewpix(const conv_geom *c)
{
    const wgk_conv2d_args a = geom_args(c);
    return c->rank == 2 && wgk_conv_fewpix_ok(&a);
}

static bool use_fewpix(wgc_graph *g, const wgc_node *n, const conv_geom *c)
{
    return use_packed(g, n, c) && !use_winograd(g, n, c) && direct_fewpix(c);
}

/* The 2-D geometry as the kernels take it (no pointers). */
static wgk_conv2d_args geom_args(const conv_geom *c)
{
    const wgc_window *w = &c->win;
    return (wgk_conv2d_args){.N = (int)c->N, .C = (int)c->C, .H = (int)c->H, .W = (int)c->W, .M = (int)c->M,
                             .OH = (int)c->OH, .OW = (int)c->OW, .KH = (int)c->KH, .KW = (int)c->KW,
                             .SH = (int)w->s[0], .SW = (int)w->s[1], .DH = (int)w->d[0], .DW = (int)w->d[1],
                             .PT = (int)w->pb[0], .PL = (int)w->pb[1], .groups = (int)c->groups};
}

static size_t conv_scratch(const wgc_graph *g, const wgc_node *n)
{
    conv_geom c;
    /* resolve() only writes g->err on failure; infer has already succeeded here. */
    if (resolve((wgc_graph *)g, n, &c))
        return 0;
    const int cg = (int)(c.C / c.groups), mg = (int)(c.M / c.groups);
    if (use_winograd((wgc_graph *)g, n, &c)) {
        const size_t w = winograd_per_run((wgc_graph *)g) ? winograd_weight_floats((wgc_graph *)g, n, &c) : 0;
        const wino_kind kind = winograd_kind((wgc_graph *)g, n, &c);
        const wgk_conv2d_args ga = geom_args(&c);
        const size_t k = kind == WINO_F2   ? wgk_wino_scratch(cg, mg, (int)c.OH, (int)c.OW)
                         : kind == WINO_F4 ? wgk_wino4_scratch(cg, mg, (int)c.OH, (int)c.OW)
                         : kind == WINO_S2 ? wgk_wino_s2_scratch(cg, mg, (int)c.OH, (int)c.OW)
                         : kind == WINO_PHASE ? wgk_conv_phases_scratch(&ga)
                                           : wgk_wino5x5_scratch(cg, mg, (int)c.OH, (int)c.OW);
        size_t bytes = (w + k) * sizeof(float);
        if (first_run_direct((wgc_graph *)g, n, &c)) { /* the first run's kernel */
            const wgk_conv2d_args a = geom_args(&c);
            const size_t direct = (direct_fewpix(&c) ? wgk_conv_fewpix_scratch(&a) : wgk_conv_packed_scratch(&a)) *
                                  sizeof(float);
            bytes = direct > bytes ? direct : bytes;
        }
        return bytes;
    }
    const wgk_conv2d_args a = geom_args(&c);
    if (use_strassen((wgc_graph *)g, n, &c))
        return wgk_conv_strassen_scratch(&a) * sizeof(float);
    if (use_fewpix((wgc_graph *)g, n, &c))
        return wgk_conv_fewpix_scratch(&a) * sizeof(float);
    if (use_packed((wgc_graph *)g, n, &c))
        return wgk_conv_packed_scratch(&a) * sizeof(float);
    if (c.kind == CONV_DW) /* the SIMD kernels' padded plane (wgk_dwconv2d_padded_ok) */
        return wgk_dwconv2d_padded_ok(&a) ? wgk_dwconv2d_padded_scratch(&a) * sizeof(float) : 0;
    if (c.kind != CONV_IM2COL)
        return 0;
    return (size_t)(c.C / c.groups * c.KH * c.KW * c.OH * c.OW) * sizeof(float);
}

/* 3-D: the direct kernel on the ONNX weight layout. */
static wg_status emit_direct(wgc_emitter *e, wgc_graph *g, wgc_node *n, const conv_geom *c)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_window *w = &c->nd;
    const bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    float lo, hi;
    wgc_act_range(n, &lo, &hi);
    wgc_emit(e,
             "wgk_f32_conv3d_direct(&(const wgk_convnd_args){.N = %lld, .C = %lld, .M = %lld, "
             ".groups = %lld, .in = {%lld, %lld, %lld}, .out = {%lld, %lld, %lld}, "
             ".k = {%lld, %lld, %lld}, .s = {%lld, %lld, %lld}, .d = {%lld, %lld, %lld}, "
             ".p = {%lld, %lld, %lld},\n",
             (long long)c->N, (long long)c->C, (long long)c->M, (long long)c->groups,
             (long long)x->shape.dims[2], (long long)x->shape.dims[3], (long long)x->shape.dims[4],
             (long long)w->out[0], (long long)w->out[1], (long long)w->out[2], (long long)w->k[0],
             (long long)w->k[1], (long long)w->k[2], (long long)w->s[0], (long long)w->s[1],
             (long long)w->s[2], (long long)w->d[0], (long long)w->d[1], (long long)w->d[2],
             (long long)w->pb[0], (long long)w->pb[1], (long long)w->pb[2]);
    wgc_emit(e, "    .x = %s, .w = %s, .bias = %s, .res = %s, .y = %s, .min = %s, .max = %s});\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             has_b ? wgc_ptr(e, g, n->inputs[2]) : "0",
             n->residual >= 0 ? wgc_ptr(e, g, n->residual) : "0", wgc_ptr(e, g, n->outputs[0]),
             wgc_float(e, lo), wgc_float(e, hi));
    return WG_OK;
}

/* Winograd convs: the module stores the filters packed for the direct packed conv
 * (wpacked, the size of the ONNX ones), not the 16/9, 36/9 or 36/25 larger transformed
 * ones. Normally each conv transforms them into the prepared-weights region once,
 * behind a static flag set after the transform (a run interrupted inside it redoes it);
 * in a winograd_per_run() model, on every run into the start of its scratch. Sets
 * *wexpr to the transformed filters' address and *kscratch to the kernel's scratch
 * after them. */
static wg_status emit_winograd_prepare(wgc_emitter *e, wgc_graph *g, wgc_node *n, const conv_geom *c,
                                       const char *wpacked, char *wexpr, size_t wexpr_len,
                                       char *kscratch, size_t kscratch_len)
{
    const struct wino_impl *impl = &wino_impls[winograd_kind(g, n, c)];
    const bool per_run = winograd_per_run(g);
    const size_t cg = wino_channels(winograd_kind(g, n, c), (size_t)(c->C / c->groups));
    const size_t mg = (size_t)(c->M / c->groups);
    const size_t count = winograd_weight_floats(g, n, c), group = count / (size_t)c->groups;
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
    wgc_emit(e, "{\n");
    if (!per_run) {
        wgc_emit(e, "    static int prepared; /* filters transformed (once) */\n");
        wgc_emit(e, "    if (!prepared) {\n");
    } else
        wgc_emit(e, "    { /* filters transformed on every run, into the scratch */\n");
    wgc_emit(e, "        for (int g = 0; g < %lld; g++) /* groups: one after the other */\n", (long long)c->groups);
    wgc_emit(e, "            %s((const float *)%s + (size_t)g * %zu, %zu, %zu, (float *)%s + (size_t)g * %zu);\n",
             impl->prepare, wpacked, wgk_conv_pack_w_group(mg, cg * impl->taps), mg, cg, wexpr, group);
    if (!per_run)
        wgc_emit(e, "        prepared = 1;\n");
    wgc_emit(e, "    }\n");
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* The post-ops as a pass of their own over the output (kernels that do not fuse them). */
static void emit_post_pass(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    float ps, pt;
    const int post = wgc_post_ops(n, &ps, &pt);
    if (!post)
        return;
    const wgc_tensor *y = wgc_out(g, n, 0);
    wgc_emit(e, "wgk_f32_post(%s, %lld, %d, %s, %s);\n", wgc_ptr(e, g, n->outputs[0]),
             (long long)wgc_numel(&y->shape), post, wgc_float(e, ps), wgc_float(e, pt));
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
static void emit_aux_pass(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const conv_geom *c, const char *affine)
{
    wgc_emit(e, "wgk_f32_channel_affine(%s, %s, (const float *)%s + %lld, 0, %s, %lld, %lld, %lld, %s, %s);\n",
             wgc_ptr(e, g, n->outputs[0]), affine, affine, (long long)c->M, wgc_ptr(e, g, n->outputs[0]),
             (long long)c->N, (long long)c->M, (long long)(c->OH * c->OW), wgc_float(e, n->aux_min),
             wgc_float(e, n->aux_max));
}

/* What a conv kernel applies itself (emit_kernel_call's in_kernel): the post-ops (the
 * packed GEMM kernels, the padded depthwise ones) and a fused BatchNormalization through
 * wgk_conv2d_args.y2 (the packed, Strassen and few-pixel kernels). */
enum { IN_KERNEL_POST = 1, IN_KERNEL_Y2 = 2 };

/* One call of a 2-D conv kernel on the layer's arguments, then the post-ops as a pass
 * of their own unless the kernel applies them; likewise a fused BatchNormalization
 * (affine: its constant, "" for none). */
static void emit_kernel_call(wgc_emitter *e, wgc_graph *g, wgc_node *n, const conv_geom *c,
                             const char *kernel, const char *wexpr, const char *kscratch,
                             const char *gemm, bool rowmajor, int in_kernel, const char *affine)
{
    const bool post_in_kernel = in_kernel & IN_KERNEL_POST, aux_in_kernel = affine[0] && (in_kernel & IN_KERNEL_Y2);
    const wgc_window *wn = &c->win;
    const bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    float lo, hi, ps, pt;
    wgc_act_range(n, &lo, &hi);
    /* The arguments as static data (wgc_static_data): no code builds them. */
    wgc_static_data(e, sizeof(wgk_conv2d_args));
    wgc_emit(e, "{");
    wgc_emit(e,
             "    static const wgk_conv2d_args args = {.N = %lld, .C = %lld, .H = %lld, .W = %lld, .M = %lld, "
             ".OH = %lld, .OW = %lld, .KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, .DH = %lld, "
             ".DW = %lld, .PT = %lld, .PL = %lld, .groups = %lld,\n",
             (long long)c->N, (long long)c->C, (long long)c->H, (long long)c->W,
             (long long)c->M, (long long)c->OH, (long long)c->OW, (long long)c->KH, (long long)c->KW,
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
    wgc_emit(e, "    %s(&args);", kernel);
    wgc_emit(e, "}");
    if (!post_in_kernel)
        emit_post_pass(e, g, n);
    if (affine[0] && !aux_in_kernel)
        emit_aux_pass(e, g, n, c, affine);
}

/* Packs a constant weight for the packed-GEMM kernels (wgk_conv_pack_w) or the generic
 * im2col one (wgk_pack_conv) into the weights segment; *wexpr gets its address. */
static wg_status emit_packed_weight(wgc_emitter *e, wgc_graph *g, wgc_node *n, const conv_geom *c,
                                    char *wexpr, size_t wexpr_len)
{
    const wgc_tensor *w = wgc_in(g, n, 1);
    const size_t kg = (size_t)(c->C / c->groups * c->KH * c->KW);
    const bool packed = use_packed(g, n, c);
    const size_t count = packed ? wgk_conv_pack_w_size((size_t)c->M, kg, (size_t)c->groups)
                                : wgk_pack_conv_size((size_t)c->M, kg, (size_t)c->groups);
    float *buf = malloc(count * sizeof(float));
    if (!buf)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing weight '%s'", w->name);
    if (packed)
        wgk_conv_pack_w((const float *)w->data, (size_t)c->M, kg, (size_t)c->groups, buf);
    else
        wgk_pack_conv((const float *)w->data, (size_t)c->M, kg, (size_t)c->groups, buf);
    const char *p;
    wg_status st = wgc_weight(e, buf, count * sizeof(float), &p);
    free(buf);
    if (st)
        return wgc_error(g, n, st, "out of memory packing weight '%s'", w->name);
    snprintf(wexpr, wexpr_len, "%s", p);
    return WG_OK;
}

/* The phase split's filters: the 4x4 ones of its stride-1 conv on the 4C phase channels
 * (wgk_conv_phases_weights), packed for wgk_wino4x4_prepare_w. */
static wg_status emit_phase_weight(wgc_emitter *e, wgc_graph *g, wgc_node *n, const conv_geom *c,
                                   char *wexpr, size_t wexpr_len)
{
    const wgc_tensor *w = wgc_in(g, n, 1);
    const size_t kg = (size_t)(4 * c->C * 16), count = wgk_conv_pack_w_size((size_t)c->M, kg, 1);
    float *phased = malloc((size_t)c->M * kg * sizeof(float)), *buf = malloc(count * sizeof(float));
    wg_status st = WG_ERR_NOMEM;
    const char *p;
    if (phased && buf) {
        wgk_conv_phases_weights((const float *)w->data, (int)c->M, (int)c->C, (int)c->KH, phased);
        wgk_conv_pack_w(phased, (size_t)c->M, kg, 1, buf);
        st = wgc_weight(e, buf, count * sizeof(float), &p);
    }
    free(phased);
    free(buf);
    if (st)
        return wgc_error(g, n, st, "out of memory packing weight '%s'", w->name);
    snprintf(wexpr, wexpr_len, "%s", p);
    return WG_OK;
}

/* A Winograd conv: its packed filters, their transform and the Winograd kernel; under
 * first_run_direct(), the direct packed (or few-pixel) conv on the first run instead, on
 * the same packed filters, and the transform on the second. */
static wg_status emit_winograd(wgc_emitter *e, wgc_graph *g, wgc_node *n, const conv_geom *c)
{
    char wpacked[64], wexpr[128], kscratch[128], affine[64];
    wg_status st = winograd_kind(g, n, c) == WINO_PHASE ? emit_phase_weight(e, g, n, c, wpacked, sizeof wpacked)
                                                         : emit_packed_weight(e, g, n, c, wpacked, sizeof wpacked);
    if (st || (st = emit_aux_affine(e, g, n, affine, sizeof affine)))
        return st;
    const bool direct = first_run_direct(g, n, c);
    if (direct) {
        wgc_emit(e, "{ /* first run: direct; later runs: Winograd, filters transformed on the second */\n");
        wgc_emit(e, "    static int ran;");
        wgc_emit(e, "    if (!ran) {");
        char scratch[64];
        snprintf(scratch, sizeof scratch, "%s", wgc_scratch(e));
        emit_kernel_call(e, g, n, c, direct_fewpix(c) ? "wgk_f32_conv2d_fewpix" : "wgk_f32_conv2d_packed", wpacked,
                         scratch, "0", false, IN_KERNEL_POST | IN_KERNEL_Y2, affine);
        wgc_emit(e, "    ran = 1;");
        wgc_emit(e, "    } else {");
    }
    if ((st = emit_winograd_prepare(e, g, n, c, wpacked, wexpr, sizeof wexpr, kscratch, sizeof kscratch)))
        return st;
    emit_kernel_call(e, g, n, c, wino_impls[winograd_kind(g, n, c)].kernel, wexpr, kscratch, "0",
                     false, 0, affine);
    if (direct) {
        wgc_emit(e, "    }");
        wgc_emit(e, "}");
    }
    return WG_OK;
}

static wg_status conv_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    conv_geom c;
    wg_status st = resolve(g, n, &c);
    if (st)
        return st;
    if (c.kind == CONV_3D) {
        if (n->aux_affine >= 0) /* fuse_bn_output.c takes 2-D convs only */
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a fused BatchNormalization on a 3-D Conv");
        if ((st = emit_direct(e, g, n, &c)))
            return st;
        emit_post_pass(e, g, n);
        return WG_OK;
    }
    if (use_winograd(g, n, &c))
        return emit_winograd(e, g, n, &c);
    const wgc_tensor *w = wgc_in(g, n, 1);
    char wexpr[128], kscratch[128] = "0", affine[64]; /* kscratch: the kernel's scratch */
    if ((st = emit_aux_affine(e, g, n, affine, sizeof affine)))
        return st;
    /* A weight computed at run time is read in its ONNX layout (slower GEMM access). */
    const bool rowmajor = !w->data && c.kind != CONV_DW;
    if (c.kind == CONV_DW || !w->data)
        snprintf(wexpr, sizeof wexpr, "%s", wgc_ptr(e, g, n->inputs[1]));
    else if ((st = emit_packed_weight(e, g, n, &c, wexpr, sizeof wexpr)))
        return st;
    if (c.kind == CONV_IM2COL || use_packed(g, n, &c))
        snprintf(kscratch, sizeof kscratch, "%s", wgc_scratch(e));
    /* Depthwise 3x3 / 5x5, strides 1-2, SIMD: the padded-plane kernels. */
    const wgk_conv2d_args ga = geom_args(&c);
    char dwname[64] = "wgk_f32_dwconv2d";
    const bool dw_padded = c.kind == CONV_DW && wgc_emit_target(e)->simd && wgk_dwconv2d_padded_ok(&ga);
    if (dw_padded) {
        snprintf(dwname, sizeof dwname, "wgk_f32_dwconv2d_%dx%d_s%dx%d", ga.KH, ga.KW, ga.SH, ga.SW);
        snprintf(kscratch, sizeof kscratch, "%s", wgc_scratch(e));
    }
    const char *names[] = {dwname, "wgk_f32_conv2d_1x1", "wgk_f32_conv2d_im2col"};
    /* Only the generic 1x1 and im2col kernels call a GEMM through this pointer; naming it
     * for the others would link its code (4 KiB of wasm for wasmtime to compile) in vain. */
    const char *gemm = wgc_emit_target(e)->simd ? "wgk_f32_gemm_4x8__wasmsimd" : "wgk_f32_gemm_4x4__scalar";
    const char *packed_kernel = use_strassen(g, n, &c)  ? "wgk_f32_conv2d_strassen"
                                : use_fewpix(g, n, &c) ? "wgk_f32_conv2d_fewpix"
                                                       : "wgk_f32_conv2d_packed";
    emit_kernel_call(e, g, n, &c, use_packed(g, n, &c) ? packed_kernel : names[c.kind], wexpr,
                     kscratch, c.kind == CONV_DW || use_packed(g, n, &c) ? "0" : gemm, rowmajor,
                     use_packed(g, n, &c) ? IN_KERNEL_POST | IN_KERNEL_Y2 : dw_padded ? IN_KERNEL_POST : 0, affine);
    return WG_OK;
}

const wgc_op_def wgc_op_conv = {conv_infer, NULL, conv_emit, conv_scratch};
