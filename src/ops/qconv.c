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
#include "helpers/fused_epilogue.h"
#include "helpers/sliding_window.h"

typedef struct qc_geom {
    bool qlinear;
    int ix, iw, ixz, iwz, ib;
    int rank;
    int64_t N, C, M, groups, nx, nw, ny, osz;
    int64_t v[6][3]; /* in, out, k, s, d, pb in a 3-dim view */
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
    q->y = (wgc_shape){.rank = r + 2, .dims = {q->N, q->M}};
    q->osz = 1;
    for (int i = 0; i < 3; i++) {
        const int j = i - (3 - r);
        q->v[0][i] = j < 0 ? 1 : x->shape.dims[2 + j];
        q->v[1][i] = j < 0 ? 1 : win.out[j];
        q->v[2][i] = j < 0 ? 1 : win.k[j];
        q->v[3][i] = j < 0 ? 1 : win.s[j];
        q->v[4][i] = j < 0 ? 1 : win.d[j];
        q->v[5][i] = j < 0 ? 0 : win.pb[j];
        if (j >= 0)
            q->y.dims[2 + j] = win.out[j];
        q->osz *= q->v[1][i];
    }
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

/* On the GEMM path, a pointwise convolution (kernel 1, stride 1, no padding) needs no
 * im2col: wgk_q8_conv1x1 multiplies x in place, pixels in the lanes. */
static bool pointwise(const qc_geom *q)
{
    for (int i = 0; i < 3; i++)
        if (q->v[2][i] != 1 || q->v[3][i] != 1 || q->v[5][i] != 0)
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
        return gemm_path_work(&q) + (q.qlinear && !pointwise(&q) ? 4 * (size_t)q.ny : 0) + 16;
    return 4 * (size_t)(q.nx + q.nw + (q.qlinear ? q.ny : 0));
}

static wg_status emit_gemm_path(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qc_geom *q)
{
    const wgc_tensor *x = wgc_in(g, n, q->ix), *w = wgc_in(g, n, q->iw), *wz = wgc_in(g, n, q->iwz);
    const bool has_xz = n->n_inputs > q->ixz && n->inputs[q->ixz] >= 0;
    const bool has_b = q->qlinear && n->n_inputs > 8 && n->inputs[8] >= 0;
    const size_t K = (size_t)(q->nw / q->M);
    const bool pw1 = pointwise(q);
    /* int16 pairs in the GEMM's panels, or int32 channel pairs for the pointwise kernel */
    const size_t bytes = pw1 ? 4 * (size_t)q->M * (((size_t)q->C + 1) / 2) : 2 * wgk_qgemm_pack_b_size(K, (size_t)q->M);
    void *packed = malloc(bytes ? bytes : 1);
    const char *pw;
    if (!packed)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", w->name);
    if (pw1)
        wgk_q8_conv1x1_pack_w(w->data, w->dtype, wz ? wz->data : NULL, q->w_vec_zp, (size_t)q->M, (size_t)q->C,
                              packed);
    else
        wgk_qconv_pack_w(w->data, w->dtype, wz ? wz->data : NULL, q->w_vec_zp, (size_t)q->M, K, packed);
    wg_status st = wgc_weight(e, packed, bytes, &pw);
    free(packed);
    if (st)
        return wgc_error(g, n, st, "out of memory");
    const int64_t(*v)[3] = q->v;
    wgc_emit(e, "{\n    uint8_t *sc = (uint8_t *)%s;\n    int32_t *acc = (int32_t *)(sc + %zu);\n",
             wgc_scratch(e), gemm_path_work(q));
    if (pw1 && q->qlinear) { /* requantized in the kernel: no int32 sums in memory */
        wgc_emit(e,
                 "    (void)acc;\n    wgk_q8_conv1x1(&(const wgk_q8_conv1x1_args){.N = %lld, .C = %lld, .M = %lld, "
                 ".HW = %lld, .x = %s, .xdt = %d, .xz = %s, .w = (const int32_t *)%s, .bias = %s, .yq = %s, "
                 ".ydt = %d, .zy = %s, .sx = %s, .sw = %s, .sy = %s, .sw_per_m = %d, .scratch = sc});\n}\n",
                 (long long)q->N, (long long)q->C, (long long)q->M, (long long)q->osz,
                 wgc_ptr(e, g, n->inputs[q->ix]), x->dtype, has_xz ? wgc_ptr(e, g, n->inputs[q->ixz]) : "0", pw,
                 has_b ? wgc_ptr(e, g, n->inputs[8]) : "0", wgc_ptr(e, g, n->outputs[0]), q->ydt,
                 wgc_ptr(e, g, n->inputs[7]), wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->inputs[4]),
                 wgc_ptr(e, g, n->inputs[6]), q->w_vec_scale);
        return WG_OK;
    }
    if (pw1)
        wgc_emit(e,
                 "    wgk_q8_conv1x1(&(const wgk_q8_conv1x1_args){.N = %lld, .C = %lld, .M = %lld, .HW = %lld, "
                 ".x = %s, .xdt = %d, .xz = %s, .w = (const int32_t *)%s, .bias = %s, .y = %s, .scratch = sc});\n",
                 (long long)q->N, (long long)q->C, (long long)q->M, (long long)q->osz,
                 wgc_ptr(e, g, n->inputs[q->ix]), x->dtype, has_xz ? wgc_ptr(e, g, n->inputs[q->ixz]) : "0", pw,
                 has_b ? wgc_ptr(e, g, n->inputs[8]) : "0", wgc_ptr(e, g, n->outputs[0]));
    else
        wgc_emit(e,
             "    wgk_q8_conv(&(const wgk_q8_conv_args){.N = %lld, .C = %lld, .M = %lld, "
             ".in = {%lld, %lld, %lld}, .out = {%lld, %lld, %lld}, .k = {%lld, %lld, %lld}, "
             ".s = {%lld, %lld, %lld}, .d = {%lld, %lld, %lld}, .p = {%lld, %lld, %lld}, "
             ".x = %s, .xdt = %d, .xz = %s, .w = (const int16_t *)%s, .bias = %s, .y = %s, "
             ".scratch = sc});\n",
             (long long)q->N, (long long)q->C, (long long)q->M, (long long)v[0][0],
             (long long)v[0][1], (long long)v[0][2], (long long)v[1][0], (long long)v[1][1],
             (long long)v[1][2], (long long)v[2][0], (long long)v[2][1], (long long)v[2][2],
             (long long)v[3][0], (long long)v[3][1], (long long)v[3][2], (long long)v[4][0],
             (long long)v[4][1], (long long)v[4][2], (long long)v[5][0], (long long)v[5][1],
             (long long)v[5][2], wgc_ptr(e, g, n->inputs[q->ix]), x->dtype,
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
    const int64_t(*v)[3] = q.v;
    wgc_emit(e,
             "    wgk_s32_conv3d_direct(&(const wgk_s32_conv_args){.N = %lld, .C = %lld, .M = %lld, "
             ".groups = %lld, .in = {%lld, %lld, %lld}, .out = {%lld, %lld, %lld}, "
             ".k = {%lld, %lld, %lld}, .s = {%lld, %lld, %lld}, .d = {%lld, %lld, %lld}, "
             ".p = {%lld, %lld, %lld}, .x = wx, .w = ww, .bias = %s, .y = %s});\n",
             (long long)q.N, (long long)q.C, (long long)q.M, (long long)q.groups,
             (long long)v[0][0], (long long)v[0][1], (long long)v[0][2], (long long)v[1][0],
             (long long)v[1][1], (long long)v[1][2], (long long)v[2][0], (long long)v[2][1],
             (long long)v[2][2], (long long)v[3][0], (long long)v[3][1], (long long)v[3][2],
             (long long)v[4][0], (long long)v[4][1], (long long)v[4][2], (long long)v[5][0],
             (long long)v[5][1], (long long)v[5][2], has_b ? wgc_ptr(e, g, n->inputs[8]) : "0",
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
