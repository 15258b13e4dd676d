/*
 * qconv.c: ConvInteger and QLinearConv, 1-D / 2-D / 3-D, uint8 / int8, integer-exact.
 * Which kernel runs a node is the selection step's choice (src/select/select_qconv.c,
 * kernels.def), recorded in node->impl; this file reads that record:
 *
 * - int8 winograd F(2x2,3x3) (3x3 stride 1, any dilation) and its stride-2 form
 *   (constant weights, one group): the exact integer Winograd of
 *   kernels/include/wgk_qwinograd.h on the int8 weights as the model stores them,
 *   transformed once into the prepared-weights region (or every run into the scratch);
 *   QLinearConv requantized in the kernel. Split among threads.
 * - int8 depthwise (one input channel per group, constant weights): each input plane
 *   widened and padded, two taps per dot product (kernels/include/wgk_qdwconv.h), on w
 *   as int16 pairs packed at compile time; QLinearConv requantized in the kernel. Split
 *   among threads by groups.
 * - int8 pointwise (1x1, stride 1, no padding): kernels/conv/q8-conv1x1-pixlanes.c on w
 *   as int32 channel pairs packed at compile time; QLinearConv requantized in the kernel.
 * - int8 few-channel (other 2-D convs with constant weights, one group and C KH KW <= 256:
 *   first layers): taps gathered per block of pixels, the pointwise kernel's product on w
 *   as int32 tap pairs packed at compile time; QLinearConv requantized in the kernel.
 * - int8 im2col gemm (other convs with constant weights and one group): im2col blocks on
 *   the int8 GEMM (kernels/gemm/q8-conv-im2col.c), w packed at compile time as its B, one
 *   byte per weight; QLinearConv's int32 sums in the scratch, then requantized.
 * - int32 direct (the rest): x widened to int32 minus its (scalar) zero point, w minus
 *   its zero point (scalar or per output channel), so padding contributes 0 as the zero
 *   point would; the int32 direct convolution (with QLinearConv's int32 bias), then the
 *   requantization with the w scale scalar or per output channel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_qdwconv.h"
#include "../../kernels/include/wgk_qgemm.h"
#include "../../kernels/include/wgk_quant.h"
#include "../../kernels/include/wgk_qwinograd.h"
#include "helpers/fused_epilogue.h"
#include "helpers/pack_weight.h"
#include "qconv_geom.h"

typedef wgc_qconv_geom qc_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, qc_geom *q)
{
    return wgc_qconv_resolve(g, n, q);
}

WGC_INFER_BY_RESOLVE_AS(qc_infer, qc_geom, resolve, q.ydt, q.y)

/* The bytes the selection step gave the node (wgc_impl.scratch). */
static size_t qc_scratch(const wgc_graph *g, const wgc_node *n)
{
    (void)g;
    return n->impl.scratch;
}

/* A ConvInteger's float tail (node->qdeq, fuse_qconv_epilogue.c) as the kernels' `.deq`
 * field into buf (wgk_qdeq.h), its bias as M floats among the weights; first emits the
 * zeroing of the [min, max] pairs the kernels merge into: this thread's (split), every
 * running thread's (a threaded build on thread 0), or the one pair. */
static wg_status deq_field(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q, bool split, char *buf,
                           size_t cap)
{
    const wgc_tensor *s = wgc_in(g, n, 4), *b = wgc_in(g, n, 5);
    const char *pb = "0";
    if (b) {
        float *v = malloc(sizeof(float) * (size_t)q->M);
        if (!v)
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
        const bool one = wgc_numel(&b->shape) == 1;
        for (int64_t m = 0; m < q->M; m++)
            v[m] = ((const float *)b->data)[one ? 0 : m];
        wg_status st = wgc_weight(e, v, sizeof(float) * (size_t)q->M, &pb);
        free(v);
        if (st)
            return wgc_error(g, n, st, "out of memory");
    }
    char range[160] = "0";
    if (n->n_outputs > 1 && n->outputs[1] >= 0) {
        const char *r = wgc_ptr(e, g, n->outputs[1]);
        if (split)
            wgc_emit(e, "((float *)%s)[2 * wg_t] = ((float *)%s)[2 * wg_t + 1] = 0.0f;\n", r, r);
        else
            wgc_emit(e, "for (int t = 0; t < %s; t++)\n    ((float *)%s)[2 * t] = ((float *)%s)[2 * t + 1] = 0.0f;\n",
                     wgc_threaded(e) ? "wg_n" : "1", r, r);
        snprintf(range, sizeof range, split ? "(float *)%s + 2 * wg_t" : "(float *)%s", r);
    }
    float lo, hi;
    wgc_act_range(n, &lo, &hi);
    char flo[64], fhi[64];
    snprintf(flo, sizeof flo, "%s", wgc_float(e, lo));
    snprintf(fhi, sizeof fhi, "%s", wgc_float(e, hi));
    snprintf(buf, cap,
             ".deq = {.y = (float *)%s, .scale = (const float *)%s, .scale_per_m = %d, .bias = (const float *)%s, "
             ".clamp = %d, .lo = %s, .hi = %s, .res = (const float *)%s, .range = %s}",
             wgc_ptr(e, g, n->outputs[0]), wgc_ptr(e, g, n->inputs[4]), wgc_numel(&s->shape) > 1, pb,
             n->act != WGC_ACT_NONE, flo, fhi, wgc_q_ptr_or_0(e, g, n, 6), range);
    return WG_OK;
}

/* The output fields of an int8 kernel's args into buf: QLinearConv's quantized output with
 * its scales and zero points (requantized in the kernel), ConvInteger's int32 y, or its
 * float tail (deq_field, which may emit code first); NULL after an error. */
static const char *out_fields(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q, bool split, char *buf,
                              size_t cap)
{
    if (n->qdeq)
        return deq_field(e, g, n, q, split, buf, cap) ? NULL : buf;
    if (q->in.qlinear)
        snprintf(buf, cap, ".yq = %s, .ydt = %d, .zy = %s, .sx = %s, .sw = %s, .sy = %s, .sw_per_m = %d",
                 wgc_ptr(e, g, n->outputs[0]), q->ydt, wgc_ptr(e, g, n->inputs[7]), wgc_ptr(e, g, n->inputs[1]),
                 wgc_ptr(e, g, n->inputs[4]), wgc_ptr(e, g, n->inputs[6]), q->vec.b_scale);
    else
        snprintf(buf, cap, ".y = %s", wgc_ptr(e, g, n->outputs[0]));
    return buf;
}

/* The fields a 2-D int8 kernel's args open with into buf: images and input channels, the
 * input plane, output channels and the output plane. */
static const char *plane_fields(const qc_geom *q, char *buf, size_t cap)
{
    const wgc_conv_view3 *v = &q->v;
    snprintf(buf, cap, ".N = %lld, .C = %lld, .H = %lld, .W = %lld, .M = %lld, .OH = %lld, .OW = %lld",
             (long long)q->N, (long long)q->C, (long long)v->in[1], (long long)v->in[2], (long long)q->M,
             (long long)v->out[1], (long long)v->out[2]);
    return buf;
}

/* The input fields of the int8 kernels on int32 weights (pointwise, few-channel, depthwise,
 * Winograd) into buf, which the output fields (out_fields) follow: x with its dtype and zero
 * point, the weights (field wfield at wp), QLinearConv's int32 bias and the scratch. */
static const char *input_fields(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const qc_geom *q,
                                const char *wfield, const char *wp, const char *scratch, char *buf, size_t cap)
{
    snprintf(buf, cap, ".x = %s, .xdt = %d, .xz = %s, .%s = (const int32_t *)%s, .bias = %s, .scratch = %s",
             wgc_ptr(e, g, n->inputs[q->in.a]), wgc_in(g, n, q->in.a)->dtype, wgc_q_ptr_or_0(e, g, n, q->in.az),
             wfield, wp, wgc_q_ptr_or_0(e, g, n, 8), scratch);
    return buf;
}

/* W [M][K] minus its zero points as the pointwise kernel's int32 tap pairs
 * (wgk_q8_conv1x1_pack_w), placed in the weights: *pw its address. */
static wg_status place_tap_pairs(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const qc_geom *q, size_t K,
                                 const char **pw)
{
    const wgc_tensor *w = wgc_in(g, n, q->in.b), *wz = wgc_in(g, n, q->in.bz);
    const size_t bytes = 4 * (size_t)q->M * ((K + 1) / 2);
    int32_t *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", w->name);
    wgk_q8_conv1x1_pack_w(w->data, w->dtype, wz ? wz->data : NULL, q->vec.b_zp, (size_t)q->M, K, packed);
    wg_status st = wgc_weight(e, packed, bytes, pw);
    free(packed);
    return st ? wgc_error(g, n, st, "out of memory") : WG_OK;
}

/* The pointwise kernel: w as int32 channel pairs (wgk_q8_conv1x1_pack_w); QLinearConv
 * requantized in the kernel, no int32 sums in memory. */
static wg_status emit_pointwise(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const char *pw;
    wg_status st = place_tap_pairs(e, g, n, q, (size_t)q->C, &pw);
    if (st)
        return st;
    char in[512], out[1024];
    if (!out_fields(e, g, n, q, false, out, sizeof out))
        return WG_ERR_NOMEM;
    wgc_emit(e, "wgk_q8_conv1x1(&(const wgk_q8_conv1x1_args){.N = %lld, .C = %lld, .M = %lld, .HW = %lld, %s, ",
             (long long)q->N, (long long)q->C, (long long)q->M, (long long)q->osz,
             input_fields(e, g, n, q, "w", pw, wgc_scratch(e), in, sizeof in));
    wgc_emit(e, "%s});\n", out);
    return WG_OK;
}

/* The few-channel kernel: W [M][K] as the pointwise kernel's int32 tap pairs
 * (wgk_q8_conv1x1_pack_w with C := K = C KH KW). */
static wg_status emit_fewc(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const char *pw;
    wg_status st = place_tap_pairs(e, g, n, q, (size_t)(q->nw / q->M), &pw);
    if (st)
        return st;
    char plane[256], in[512], out[1024];
    if (!out_fields(e, g, n, q, false, out, sizeof out))
        return WG_ERR_NOMEM;
    const wgc_conv_view3 *v = &q->v;
    wgc_emit(e,
             "wgk_q8_conv_fewc(&(const wgk_q8_conv_fewc_args){%s, .KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, "
             ".DH = %lld, .DW = %lld, .PT = %lld, .PL = %lld, %s, %s});\n",
             plane_fields(q, plane, sizeof plane), (long long)v->k[1], (long long)v->k[2], (long long)v->s[1],
             (long long)v->s[2], (long long)v->d[1], (long long)v->d[2], (long long)v->p[1], (long long)v->p[2],
             input_fields(e, g, n, q, "w", pw, wgc_scratch(e), in, sizeof in), out);
    return WG_OK;
}

/* im2col blocks on the int8 GEMM: W^T [K][M] with its zero points packed as the GEMM's B;
 * QLinearConv's int32 sums after the kernel's blocks in the scratch, then requantized. */
static wg_status emit_im2col(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *x = wgc_in(g, n, q->in.a), *w = wgc_in(g, n, q->in.b);
    const size_t K = (size_t)(q->nw / q->M);
    const wgc_pack_geom geo = {.K = K, .N = (size_t)q->M, .sk = 1, .sn = K, .zp = wgc_in(g, n, q->in.bz),
                               .zp_per_col = q->vec.b_zp};
    const char *pw;
    wg_status st = wgc_pack_weight(e, g, n, w, wgc_kernel_get(n->impl.kernel)->pack, &geo, &pw);
    if (st)
        return st;
    char view[WGC_CONV_VIEW3_TEXT], out[1024];
    if (n->qdeq && !out_fields(e, g, n, q, false, out, sizeof out))
        return WG_ERR_NOMEM;
    if (!n->qdeq) /* QLinearConv's sums in the scratch, then requantized */
        snprintf(out, sizeof out, ".y = %s", q->in.qlinear ? "acc" : wgc_ptr(e, g, n->outputs[0]));
    const size_t blocks = wgk_qconv_scratch_size(K, (size_t)q->M);
    wgc_emit(e, "{\n    uint8_t *sc = (uint8_t *)%s;\n    int32_t *acc = (int32_t *)(sc + %zu);\n",
             wgc_scratch(e), (blocks + 15) / 16 * 16);
    wgc_emit(e,
             "    wgk_q8_conv(&(const wgk_q8_conv_args){.N = %lld, .C = %lld, .M = %lld, %s, "
             ".x = %s, .xdt = %d, .xz = %s, .w = (const int8_t *)%s, .bias = %s, %s, "
             ".scratch = sc});\n",
             (long long)q->N, (long long)q->C, (long long)q->M,
             wgc_conv_view3_text(&q->v, view, sizeof view), wgc_ptr(e, g, n->inputs[q->in.a]), x->dtype,
             wgc_q_ptr_or_0(e, g, n, q->in.az), pw, wgc_q_ptr_or_0(e, g, n, 8), out);
    if (q->in.qlinear)
        wgc_q_emit_requantize(e, g, n, q->ydt, q->ny, q->vec.b_scale, q->M, q->osz);
    else
        wgc_emit(e, "    (void)acc;\n");
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* The int8 Winograd on the int8 weights as the model stores them (9 bytes per channel pair
 * in the file instead of 32 transformed): transformed once into the prepared-weights
 * region behind a static flag (in a threaded module by thread 0, the others waiting at a
 * barrier on that run only, as conv.c's Winograd filters), or on every run into the start
 * of the scratch (WGC_PREP_PER_RUN: each thread into its own); then the kernel, each
 * thread on its share. */
static wg_status emit_winograd(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *w = wgc_in(g, n, q->in.b);
    const wgc_kernel_info *k = wgc_kernel_get(n->impl.kernel);
    const size_t ubytes = 4 * wgk_q8_winograd_weights_n((size_t)q->M, (size_t)q->C, k->matrices);
    const bool per_run = n->impl.prep == WGC_PREP_PER_RUN, split = wgc_threaded(e) && wgc_node_splits(n);
    const bool shared = split && !per_run;
    char u[128], scratch[160];
    snprintf(scratch, sizeof scratch, "%s", wgc_scratch(e));
    if (per_run) {
        snprintf(u, sizeof u, "%s", scratch);
        snprintf(scratch, sizeof scratch, "(uint8_t *)%s + %zu", u, ubytes);
    } else {
        const char *p;
        wg_status st = wgc_prepared(e, ubytes, &p);
        if (st)
            return wgc_error(g, n, st, "the transformed weight of '%s' does not fit in memory", w->name);
        snprintf(u, sizeof u, "%s", p);
    }
    wgc_emit(e, "{\n");
    wgc_emit(e, per_run ? "    { /* filters transformed on every run, into the scratch */\n"
                        : "    static int prepared; /* filters transformed (once) */\n    if (!prepared) {\n");
    if (shared)
        wgc_emit(e, "    if (wg_t == 0)\n");
    wgc_emit(e, "        %s(%s, %d, %s, %d, %lld, %lld, (int32_t *)%s);\n", k->prepare,
             wgc_ptr(e, g, n->inputs[q->in.b]), w->dtype, wgc_q_ptr_or_0(e, g, n, q->in.bz), q->vec.b_zp,
             (long long)q->M, (long long)q->C, u);
    if (shared)
        wgc_sync(e);
    if (!per_run)
        wgc_emit(e, shared ? "        if (wg_t == 0) prepared = 1;\n" : "        prepared = 1;\n");
    wgc_emit(e, "    }\n");
    const wgc_conv_view3 *v = &q->v;
    char plane[256], in[512], out[1024], f[2048];
    if (!out_fields(e, g, n, q, split, out, sizeof out))
        return WG_ERR_NOMEM;
    snprintf(f, sizeof f, "%s, .DH = %lld, .DW = %lld, .PT = %lld, .PL = %lld, %s, %s",
             plane_fields(q, plane, sizeof plane), (long long)v->d[1], (long long)v->d[2], (long long)v->p[1],
             (long long)v->p[2], input_fields(e, g, n, q, "u", u, scratch, in, sizeof in), out);
    wgc_emit_args_call(e, n->impl.kernel, split, k->symbol, "wgk_q8_winograd_args", f, "");
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* The depthwise kernel: w minus its zero points as int16 pairs per filter row
 * (wgk_q8_dwconv_pack_w); QLinearConv requantized in the kernel. Split among threads by
 * whole groups. */
static wg_status emit_depthwise(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *w = wgc_in(g, n, q->in.b), *wz = wgc_in(g, n, q->in.bz);
    const wgc_conv_view3 *v = &q->v;
    const size_t bytes = 4 * wgk_q8_dwconv_pack_w_size((size_t)q->M, (int)v->k[1], (int)v->k[2]);
    int32_t *packed = malloc(bytes ? bytes : 1);
    const char *pw;
    if (!packed)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", w->name);
    wgk_q8_dwconv_pack_w(w->data, w->dtype, wz ? wz->data : NULL, q->vec.b_zp, (size_t)q->M, (int)v->k[1],
                         (int)v->k[2], packed);
    wg_status st = wgc_weight(e, packed, bytes, &pw);
    free(packed);
    if (st)
        return wgc_error(g, n, st, "out of memory");
    const bool split = wgc_threaded(e) && wgc_node_splits(n);
    char plane[256], in[512], out[1024], f[2048];
    if (!out_fields(e, g, n, q, split, out, sizeof out))
        return WG_ERR_NOMEM;
    snprintf(f, sizeof f,
             "%s, .KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, .DH = %lld, .PT = %lld, .PL = %lld, %s, %s",
             plane_fields(q, plane, sizeof plane), (long long)v->k[1], (long long)v->k[2], (long long)v->s[1],
             (long long)v->s[2], (long long)v->d[1], (long long)v->p[1], (long long)v->p[2],
             input_fields(e, g, n, q, "w", pw, wgc_scratch(e), in, sizeof in), out);
    wgc_emit_args_call(e, n->impl.kernel, split, "wgk_q8_dwconv2d", "wgk_q8_dwconv_args", f, "");
    return WG_OK;
}

/* x and w widened to int32, the int32 direct convolution, QLinearConv's requantization. */
static wg_status emit_direct(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *x = wgc_in(g, n, q->in.a), *w = wgc_in(g, n, q->in.b);
    wgc_emit(e, "{\n");
    wgc_emit(e, "    int32_t *wx = (int32_t *)%s, *ww = wx + %lld, *acc = ww + %lld;\n", wgc_scratch(e),
             (long long)q->nx, (long long)q->nw);
    wgc_emit(e, "    wgk_q_widen(%s, %d, wx, %lld, %s, (wgk_qaxis){0, 1, 1});\n",
             wgc_ptr(e, g, n->inputs[q->in.a]), x->dtype, (long long)q->nx, wgc_q_ptr_or_0(e, g, n, q->in.az));
    wgc_emit(e, "    wgk_q_widen(%s, %d, ww, %lld, %s, (wgk_qaxis){%d, %lld, %lld});\n",
             wgc_ptr(e, g, n->inputs[q->in.b]), w->dtype, (long long)q->nw, wgc_q_ptr_or_0(e, g, n, q->in.bz),
             q->vec.b_zp, (long long)q->M, (long long)(q->nw / q->M));
    char view[WGC_CONV_VIEW3_TEXT], out[1024];
    if (n->qdeq && !out_fields(e, g, n, q, false, out, sizeof out))
        return WG_ERR_NOMEM;
    wgc_emit(e,
             "    wgk_s32_conv3d_direct(&(const wgk_s32_conv_args){.N = %lld, .C = %lld, .M = %lld, "
             ".groups = %lld, %s, .x = wx, .w = ww, .bias = %s, .y = %s});\n",
             (long long)q->N, (long long)q->C, (long long)q->M, (long long)q->groups,
             wgc_conv_view3_text(&q->v, view, sizeof view), wgc_q_ptr_or_0(e, g, n, 8),
             q->in.qlinear ? "acc" : wgc_ptr(e, g, n->outputs[0]));
    if (q->in.qlinear)
        wgc_q_emit_requantize(e, g, n, q->ydt, q->ny, q->vec.b_scale, q->M, q->osz);
    else
        wgc_emit(e, "    (void)acc;\n");
    if (n->qdeq) /* the int32 sums in y, turned into its float tail in place */
        wgc_emit(e, "    wgk_q8_dequantize_sums((const int32_t *)%s, %lld, %lld, %lld, &(const wgk_q8_deq){%s);\n",
                 wgc_ptr(e, g, n->outputs[0]), (long long)q->N, (long long)q->M, (long long)q->osz,
                 out + strlen(".deq = {"));
    wgc_emit(e, "}\n");
    return WG_OK;
}

static wg_status qc_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    qc_geom q;
    wg_status st = resolve(g, n, &q);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    switch (n->impl.kernel) {
    case WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3:
    case WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3S2:
        return emit_winograd(e, g, n, &q);
    case WGC_KERNEL_Q8_DWCONV:
        return emit_depthwise(e, g, n, &q);
    case WGC_KERNEL_Q8_CONV_1X1:
        return emit_pointwise(e, g, n, &q);
    case WGC_KERNEL_Q8_CONV_FEWC:
        return emit_fewc(e, g, n, &q);
    case WGC_KERNEL_Q8_CONV_IM2COL:
        return emit_im2col(e, g, n, &q);
    case WGC_KERNEL_S32_CONV_DIRECT:
        return emit_direct(e, g, n, &q);
    default: /* a compiler bug, not a model problem */
        return wgc_error(g, n, WG_ERR_INVALID, "no kernel was selected for this %s (src/select/ did not run)",
                         n->op_type);
    }
}

const wgc_op_def wgc_op_qconv = {.infer = qc_infer, .emit = qc_emit, .scratch = qc_scratch};
