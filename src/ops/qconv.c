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
 * int32 result).
 */
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_qgemm.h"
#include "../../kernels/include/wgk_quant.h"
#include "conv_geom.h"
#include "helpers/fused_epilogue.h"
#include "helpers/sliding_window.h"

typedef struct qc_geom {
    bool qlinear;
    int ix, iw, ixz, iwz, ib;
    int rank;
    int64_t N, C, M, groups, nx, nw, ny, osz;
    wgc_conv_view3 v;
    bool w_vec_zp, w_vec_scale;
    int ydt;
    wgc_shape y;
} qc_geom;

static const int q8[] = {WG_DT_UINT8, WG_DT_INT8, 0};

static wg_status scalar_or(wgc_graph *g, const wgc_node *n, int i, int64_t per, bool *vec,
                           const char *what)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    *vec = false;
    if (!t)
        return WG_OK;
    if (!t->has_shape)
        return wgc_error(g, n, WG_ERR_INVALID, "%s '%s' has no known shape", what, t->name);
    int64_t c = wgc_numel(&t->shape);
    if (c == 1 && t->shape.rank <= 1)
        return WG_OK;
    if (per > 0 && t->shape.rank == 1 && c == per) {
        *vec = true;
        return WG_OK;
    }
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s '%s' must be a scalar%s", what, t->name,
                     per > 0 ? " or have one value per output channel" : "");
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, qc_geom *q)
{
    memset(q, 0, sizeof *q);
    q->qlinear = n->op == WGC_OP_QLINEAR_CONV;
    q->ix = 0;
    q->iw = q->qlinear ? 3 : 1;
    q->ixz = 2;
    q->iwz = q->qlinear ? 5 : 3;
    q->ib = q->qlinear ? 8 : -1;
    wg_status st = q->qlinear ? wgc_check_arity(g, n, 8, 9, 1, 1) : wgc_check_arity(g, n, 2, 4, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, q->ix, q8);
    if (!st)
        st = wgc_check_input(g, n, q->iw, q8);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, q->ix), *w = wgc_in(g, n, q->iw);
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
    bool xv;
    if ((st = scalar_or(g, n, q->ixz, 0, &xv, "zero point of x")) ||
        (st = scalar_or(g, n, q->iwz, q->M, &q->w_vec_zp, "zero point of w")))
        return st;
    const wgc_tensor *xz = wgc_in(g, n, q->ixz), *wz = wgc_in(g, n, q->iwz);
    if ((xz && xz->dtype != x->dtype) || (wz && wz->dtype != w->dtype))
        return wgc_error(g, n, WG_ERR_INVALID, "zero points must have the dtypes of x and w");
    q->ydt = WG_DT_INT32;
    if (q->qlinear) {
        static const int f32[] = {WG_DT_FLOAT, 0}, i32[] = {WG_DT_INT32, 0};
        bool v;
        if ((st = wgc_check_input(g, n, 1, f32)) || (st = wgc_check_input(g, n, 4, f32)) ||
            (st = wgc_check_input(g, n, 6, f32)) || (st = wgc_check_input(g, n, 7, q8)) ||
            (st = scalar_or(g, n, 1, 0, &v, "scale of x")) ||
            (st = scalar_or(g, n, 4, q->M, &q->w_vec_scale, "scale of w")) ||
            (st = scalar_or(g, n, 6, 0, &v, "scale of y")) ||
            (st = scalar_or(g, n, 7, 0, &v, "zero point of y")))
            return st;
        const wgc_tensor *b = wgc_in(g, n, 8);
        if (b && ((st = wgc_check_input(g, n, 8, i32)) || b->shape.rank != 1 || b->shape.dims[0] != q->M))
            return st ? st : wgc_error(g, n, WG_ERR_INVALID, "bias '%s' must be int32 [%lld]", b->name,
                                       (long long)q->M);
        q->ydt = wgc_in(g, n, 7)->dtype;
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
    const wgc_tensor *w = wgc_in(g, n, q->iw), *wz = wgc_in(g, n, q->iwz);
    return q->groups == 1 && w->data && (!wz || wz->data);
}

static size_t qc_scratch(const wgc_graph *g, const wgc_node *n)
{
    qc_geom q;
    if (resolve((wgc_graph *)g, n, &q))
        return 0;
    if (gemm_path((wgc_graph *)g, n, &q))
        return wgk_qconv_scratch_size((size_t)(q.nw / q.M), (size_t)q.M) + (q.qlinear ? 4 * (size_t)q.ny : 0) + 16;
    return 4 * (size_t)(q.nx + q.nw + (q.qlinear ? q.ny : 0));
}

static wg_status emit_gemm_path(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *x = wgc_in(g, n, q->ix), *w = wgc_in(g, n, q->iw), *wz = wgc_in(g, n, q->iwz);
    const bool has_xz = n->n_inputs > q->ixz && n->inputs[q->ixz] >= 0;
    const bool has_b = q->qlinear && n->n_inputs > 8 && n->inputs[8] >= 0;
    const size_t K = (size_t)(q->nw / q->M), np = wgk_qgemm_pack_b_size(K, (size_t)q->M);
    int16_t *packed = malloc(2 * (np ? np : 1));
    const char *pw;
    if (!packed)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", w->name);
    wgk_qconv_pack_w(w->data, w->dtype, wz ? wz->data : NULL, q->w_vec_zp, (size_t)q->M, K, packed);
    wg_status st = wgc_weight(e, packed, 2 * np, &pw);
    free(packed);
    if (st)
        return wgc_error(g, n, st, "out of memory");
    char view[WGC_CONV_VIEW3_TEXT];
    const size_t blocks = wgk_qconv_scratch_size(K, (size_t)q->M);
    wgc_emit(e, "{\n    uint8_t *sc = (uint8_t *)%s;\n    int32_t *acc = (int32_t *)(sc + %zu);\n",
             wgc_scratch(e), (blocks + 15) / 16 * 16);
    wgc_emit(e,
             "    wgk_q8_conv(&(const wgk_q8_conv_args){.N = %lld, .C = %lld, .M = %lld, %s, "
             ".x = %s, .xdt = %d, .xz = %s, .w = (const int16_t *)%s, .bias = %s, .y = %s, "
             ".scratch = sc});\n",
             (long long)q->N, (long long)q->C, (long long)q->M,
             wgc_conv_view3_text(&q->v, view, sizeof view), wgc_ptr(e, g, n->inputs[q->ix]), x->dtype,
             has_xz ? wgc_ptr(e, g, n->inputs[q->ixz]) : "0", pw,
             has_b ? wgc_ptr(e, g, n->inputs[8]) : "0",
             q->qlinear ? "acc" : wgc_ptr(e, g, n->outputs[0]));
    if (q->qlinear)
        wgc_emit(e, "    wgk_requantize(acc, %s, %d, %lld, %s, %s, (wgk_qaxis){%d, %lld, %lld}, %s, %s);\n",
                 wgc_ptr(e, g, n->outputs[0]), q->ydt, (long long)q->ny, wgc_ptr(e, g, n->inputs[1]),
                 wgc_ptr(e, g, n->inputs[4]), q->w_vec_scale, (long long)q->M, (long long)q->osz,
                 wgc_ptr(e, g, n->inputs[6]), wgc_ptr(e, g, n->inputs[7]));
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
    const wgc_tensor *x = wgc_in(g, n, q.ix), *w = wgc_in(g, n, q.iw);
    const bool has_xz = n->n_inputs > q.ixz && n->inputs[q.ixz] >= 0;
    const bool has_wz = n->n_inputs > q.iwz && n->inputs[q.iwz] >= 0;
    const bool has_b = q.qlinear && n->n_inputs > 8 && n->inputs[8] >= 0;
    wgc_emit(e, "{\n");
    wgc_emit(e, "    int32_t *wx = (int32_t *)%s, *ww = wx + %lld, *acc = ww + %lld;\n", wgc_scratch(e),
             (long long)q.nx, (long long)q.nw);
    wgc_emit(e, "    wgk_q_widen(%s, %d, wx, %lld, %s, (wgk_qaxis){0, 1, 1});\n",
             wgc_ptr(e, g, n->inputs[q.ix]), x->dtype, (long long)q.nx,
             has_xz ? wgc_ptr(e, g, n->inputs[q.ixz]) : "0");
    wgc_emit(e, "    wgk_q_widen(%s, %d, ww, %lld, %s, (wgk_qaxis){%d, %lld, %lld});\n",
             wgc_ptr(e, g, n->inputs[q.iw]), w->dtype, (long long)q.nw,
             has_wz ? wgc_ptr(e, g, n->inputs[q.iwz]) : "0", q.w_vec_zp, (long long)q.M,
             (long long)(q.nw / q.M));
    char view[WGC_CONV_VIEW3_TEXT];
    wgc_emit(e,
             "    wgk_s32_conv3d_direct(&(const wgk_s32_conv_args){.N = %lld, .C = %lld, .M = %lld, "
             ".groups = %lld, %s, .x = wx, .w = ww, .bias = %s, .y = %s});\n",
             (long long)q.N, (long long)q.C, (long long)q.M, (long long)q.groups,
             wgc_conv_view3_text(&q.v, view, sizeof view), has_b ? wgc_ptr(e, g, n->inputs[8]) : "0",
             q.qlinear ? "acc" : wgc_ptr(e, g, n->outputs[0]));
    if (q.qlinear)
        wgc_emit(e, "    wgk_requantize(acc, %s, %d, %lld, %s, %s, (wgk_qaxis){%d, %lld, %lld}, %s, %s);\n",
                 wgc_ptr(e, g, n->outputs[0]), q.ydt, (long long)q.ny, wgc_ptr(e, g, n->inputs[1]),
                 wgc_ptr(e, g, n->inputs[4]), q.w_vec_scale, (long long)q.M, (long long)q.osz,
                 wgc_ptr(e, g, n->inputs[6]), wgc_ptr(e, g, n->inputs[7]));
    else
        wgc_emit(e, "    (void)acc;\n");
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_qconv = {qc_infer, NULL, qc_emit, qc_scratch};
