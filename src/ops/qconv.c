/*
 * qconv.c: ConvInteger and QLinearConv, 1-D / 2-D / 3-D, uint8 / int8, integer-exact.
 * x is widened to int32 minus its (scalar) zero point, w minus its zero point (scalar
 * or per output channel); padding therefore contributes 0, as the zero point would.
 * An int32 direct convolution (with QLinearConv's int32 bias) follows, and QLinearConv
 * requantizes with the w scale scalar or per output channel.
 * Scratch: widened x, widened w, and the int32 result (QLinearConv).
 *
 * With groups = 1 and constant weights (and weight zero points), the case of dynamically
 * quantized CNNs, the convolution runs instead as im2col blocks on the int8 GEMM
 * (kernels/gemm/q8-conv-im2col.c): w minus its zero point packed at compile time as
 * int16, x's patches widened at run time; scratch: the kernel's blocks (and QLinearConv's
 * int32 result). A pointwise one (kernel 1, stride 1, no padding) skips im2col: the pointwise
 * kernel (kernels/conv/q8-conv1x1-pixlanes.c) multiplies x in place, pixels in the lanes,
 * and requantizes QLinearConv's sums as they leave its registers.
 */
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_qgemm.h"
#include "../../kernels/include/wgk_quant.h"
#include "conv_geom.h"
#include "helpers/fused_epilogue.h"
#include "helpers/qlinear.h"
#include "helpers/sliding_window.h"

typedef struct qc_geom {
    wgc_q_inputs in; /* a: x, b: w */
    int rank;
    int64_t N, C, M, groups, nx, nw, ny, osz;
    wgc_conv_view3 v;
    wgc_q_vec vec; /* b_zp, b_scale: w's per output channel */
    int ydt;
    wgc_shape y;
} qc_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, qc_geom *q)
{
    memset(q, 0, sizeof *q);
    wg_status st = wgc_q_inputs_check(g, n, n->op == WGC_OP_QLINEAR_CONV, 9, &q->in);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, q->in.a), *w = wgc_in(g, n, q->in.b);
    const int r = q->rank = x->shape.rank - 2;
    if (r < 1 || r > 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s with a rank-%d input is not supported",
                         n->op_type, x->shape.rank);
    if (w->shape.rank != x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "weight '%s' has rank %d, expected %d", w->name,
                         w->shape.rank, x->shape.rank);
    q->N = x->shape.dims[0];
    q->C = x->shape.dims[1];
    q->M = w->shape.dims[0];
    q->groups = wgc_attr_int(n, "group", 1);
    if (q->groups < 1 || q->C % q->groups || q->M % q->groups || q->M < 1 ||
        w->shape.dims[1] * q->groups != q->C)
        return wgc_error(g, n, WG_ERR_INVALID, "group = %lld does not fit input channels %lld and "
                         "weight '%s'", (long long)q->groups, (long long)q->C, w->name);
    wgc_window win;
    if ((st = wgc_window_resolve(g, n, &x->shape.dims[2], r, &w->shape.dims[2], false, &win)))
        return st;
    q->y = wgc_conv_output_shape(q->N, q->M, r, win.out);
    q->v = wgc_conv_view3_of(r, &x->shape.dims[2], win.out, win.k, win.s, win.d, win.pb);
    q->osz = q->v.out[0] * q->v.out[1] * q->v.out[2];
    q->nx = wgc_numel(&x->shape);
    q->nw = wgc_numel(&w->shape);
    q->ny = q->N * q->M * q->osz;
    static const char *const names[2] = {"x", "w"};
    const wgc_q_per per[2] = {{0, NULL}, {q->M, "output channel"}};
    if ((st = wgc_q_params_check(g, n, &q->in, names, per, &q->vec, &q->ydt)))
        return st;
    if (q->in.qlinear) {
        static const int i32[] = {WG_DT_INT32, 0};
        const wgc_tensor *b = wgc_in(g, n, 8);
        if (b && ((st = wgc_check_input(g, n, 8, i32)) || b->shape.rank != 1 || b->shape.dims[0] != q->M))
            return st ? st : wgc_error(g, n, WG_ERR_INVALID, "bias '%s' must be int32 [%lld]", b->name,
                                       (long long)q->M);
    }
    if (q->nx >= ((int64_t)1 << 29) || q->nw >= ((int64_t)1 << 29) || q->ny >= ((int64_t)1 << 29))
        return wgc_error(g, n, WG_ERR_LIMIT, "%s is too large for the 32-bit kernels", n->op_type);
    return WG_OK;
}

static wg_status qc_infer(wgc_graph *g, wgc_node *n)
{
    qc_geom q;
    wg_status st = resolve(g, n, &q);
    if (!st)
        wgc_set_output(g, n, 0, q.ydt, &q.y);
    return st;
}

/* groups = 1 and constant weights and weight zero points: the im2col int8 GEMM. */
static bool gemm_path(wgc_graph *g, const wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *w = wgc_in(g, n, q->in.b), *wz = wgc_in(g, n, q->in.bz);
    return q->groups == 1 && w->data && (!wz || wz->data);
}

/* On the GEMM path, a pointwise convolution (kernel 1, stride 1, no padding) needs no
 * im2col: wgk_q8_conv1x1 multiplies x in place, pixels in the lanes. */
static bool pointwise(const qc_geom *q)
{
    for (int i = 0; i < 3; i++)
        if (q->v.k[i] != 1 || q->v.s[i] != 1 || q->v.p[i] != 0)
            return false;
    return true;
}

/* Bytes before the int32 sums in the scratch of the GEMM path (16-byte aligned). */
static size_t gemm_path_work(const qc_geom *q)
{
    const size_t hw = (size_t)q->osz, K = (size_t)(q->nw / q->M);
    const size_t b = pointwise(q) ? wgk_q8_conv1x1_scratch_size((size_t)q->C, hw)
                                  : wgk_qconv_scratch_size(K, (size_t)q->M);
    return (b + 15) / 16 * 16;
}

static size_t qc_scratch(const wgc_graph *g, const wgc_node *n)
{
    qc_geom q;
    if (resolve((wgc_graph *)g, n, &q))
        return 0;
    if (gemm_path((wgc_graph *)g, n, &q))
        return gemm_path_work(&q) + (q.in.qlinear && !pointwise(&q) ? 4 * (size_t)q.ny : 0) + 16;
    return 4 * (size_t)(q.nx + q.nw + (q.in.qlinear ? q.ny : 0));
}

/* The pointwise kernel: w as int32 channel pairs (wgk_q8_conv1x1_pack_w); QLinearConv
 * requantized in the kernel, no int32 sums in memory. */
static wg_status emit_pointwise(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *x = wgc_in(g, n, q->in.a), *w = wgc_in(g, n, q->in.b), *wz = wgc_in(g, n, q->in.bz);
    const size_t bytes = 4 * (size_t)q->M * (((size_t)q->C + 1) / 2);
    int32_t *packed = malloc(bytes ? bytes : 1);
    const char *pw;
    if (!packed)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", w->name);
    wgk_q8_conv1x1_pack_w(w->data, w->dtype, wz ? wz->data : NULL, q->vec.b_zp, (size_t)q->M, (size_t)q->C, packed);
    wg_status st = wgc_weight(e, packed, bytes, &pw);
    free(packed);
    if (st)
        return wgc_error(g, n, st, "out of memory");
    wgc_emit(e,
             "wgk_q8_conv1x1(&(const wgk_q8_conv1x1_args){.N = %lld, .C = %lld, .M = %lld, .HW = %lld, .x = %s, "
             ".xdt = %d, .xz = %s, .w = (const int32_t *)%s, .bias = %s, .scratch = %s, ",
             (long long)q->N, (long long)q->C, (long long)q->M, (long long)q->osz, wgc_ptr(e, g, n->inputs[q->in.a]),
             x->dtype, wgc_q_ptr_or_0(e, g, n, q->in.az), pw, wgc_q_ptr_or_0(e, g, n, 8), wgc_scratch(e));
    if (q->in.qlinear)
        wgc_emit(e, ".yq = %s, .ydt = %d, .zy = %s, .sx = %s, .sw = %s, .sy = %s, .sw_per_m = %d});\n",
                 wgc_ptr(e, g, n->outputs[0]), q->ydt, wgc_ptr(e, g, n->inputs[7]), wgc_ptr(e, g, n->inputs[1]),
                 wgc_ptr(e, g, n->inputs[4]), wgc_ptr(e, g, n->inputs[6]), q->vec.b_scale);
    else
        wgc_emit(e, ".y = %s});\n", wgc_ptr(e, g, n->outputs[0]));
    return WG_OK;
}

static wg_status emit_gemm_path(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    if (pointwise(q))
        return emit_pointwise(e, g, n, q);
    const wgc_tensor *x = wgc_in(g, n, q->in.a), *w = wgc_in(g, n, q->in.b), *wz = wgc_in(g, n, q->in.bz);
    const size_t K = (size_t)(q->nw / q->M), np = wgk_qgemm_pack_b_size(K, (size_t)q->M);
    const char *pw;
    wg_status st = wgc_q_pack_weight(e, g, n, wgk_qconv_pack_w, w, wz, q->vec.b_zp, (size_t)q->M, K, np, &pw);
    if (st)
        return st;
    char view[WGC_CONV_VIEW3_TEXT];
    const size_t blocks = wgk_qconv_scratch_size(K, (size_t)q->M);
    wgc_emit(e, "{\n    uint8_t *sc = (uint8_t *)%s;\n    int32_t *acc = (int32_t *)(sc + %zu);\n",
             wgc_scratch(e), (blocks + 15) / 16 * 16);
    wgc_emit(e,
             "    wgk_q8_conv(&(const wgk_q8_conv_args){.N = %lld, .C = %lld, .M = %lld, %s, "
             ".x = %s, .xdt = %d, .xz = %s, .w = (const int16_t *)%s, .bias = %s, .y = %s, "
             ".scratch = sc});\n",
             (long long)q->N, (long long)q->C, (long long)q->M,
             wgc_conv_view3_text(&q->v, view, sizeof view), wgc_ptr(e, g, n->inputs[q->in.a]), x->dtype,
             wgc_q_ptr_or_0(e, g, n, q->in.az), pw, wgc_q_ptr_or_0(e, g, n, 8),
             q->in.qlinear ? "acc" : wgc_ptr(e, g, n->outputs[0]));
    if (q->in.qlinear)
        wgc_q_emit_requantize(e, g, n, q->ydt, q->ny, q->vec.b_scale, q->M, q->osz);
    else
        wgc_emit(e, "    (void)acc;\n");
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
    if (gemm_path(g, n, &q))
        return emit_gemm_path(e, g, n, &q);
    const wgc_tensor *x = wgc_in(g, n, q.in.a), *w = wgc_in(g, n, q.in.b);
    wgc_emit(e, "{\n");
    wgc_emit(e, "    int32_t *wx = (int32_t *)%s, *ww = wx + %lld, *acc = ww + %lld;\n", wgc_scratch(e),
             (long long)q.nx, (long long)q.nw);
    wgc_emit(e, "    wgk_q_widen(%s, %d, wx, %lld, %s, (wgk_qaxis){0, 1, 1});\n",
             wgc_ptr(e, g, n->inputs[q.in.a]), x->dtype, (long long)q.nx, wgc_q_ptr_or_0(e, g, n, q.in.az));
    wgc_emit(e, "    wgk_q_widen(%s, %d, ww, %lld, %s, (wgk_qaxis){%d, %lld, %lld});\n",
             wgc_ptr(e, g, n->inputs[q.in.b]), w->dtype, (long long)q.nw,
             wgc_q_ptr_or_0(e, g, n, q.in.bz), q.vec.b_zp, (long long)q.M,
             (long long)(q.nw / q.M));
    char view[WGC_CONV_VIEW3_TEXT];
    wgc_emit(e,
             "    wgk_s32_conv3d_direct(&(const wgk_s32_conv_args){.N = %lld, .C = %lld, .M = %lld, "
             ".groups = %lld, %s, .x = wx, .w = ww, .bias = %s, .y = %s});\n",
             (long long)q.N, (long long)q.C, (long long)q.M, (long long)q.groups,
             wgc_conv_view3_text(&q.v, view, sizeof view), wgc_q_ptr_or_0(e, g, n, 8),
             q.in.qlinear ? "acc" : wgc_ptr(e, g, n->outputs[0]));
    if (q.in.qlinear)
        wgc_q_emit_requantize(e, g, n, q.ydt, q.ny, q.vec.b_scale, q.M, q.osz);
    else
        wgc_emit(e, "    (void)acc;\n");
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_qconv = {.infer = qc_infer, .emit = qc_emit, .scratch = qc_scratch};
