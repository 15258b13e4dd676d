/*
 * qmatmul.c: MatMulInteger and QLinearMatMul, uint8 / int8 operands, integer-exact.
 * Both operands are widened to int32 with their zero points subtracted (a: scalar or
 * per row; b: scalar or per column), multiplied by an int32 GEMM into int32, and
 * QLinearMatMul requantizes (scale of b scalar or per column). Batch dims broadcast when
 * they are equal or one side has none (a batch of 1); other broadcasts are unsupported.
 * Scratch: widened a, widened b, and the int32 product (QLinearMatMul).
 *
 * MatMulInteger with a constant 2-D b (and a constant or absent zero point of b), the
 * case of every dynamically quantized model, runs on the int8 GEMM instead
 * (kernels/gemm/q8-gemm-4x8c2.c): b - zb packed at compile time as int16, a widened at run
 * time with its zero point (run-time, from DynamicQuantizeLinear); scratch: a as int16.
 */
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_qgemm.h"
#include "../../kernels/include/wgk_quant.h"
#include "helpers/fused_epilogue.h"

typedef struct qm_geom {
    bool qlinear;
    int ia, ib, iaz, ibz; /* input indices of a, b and their zero points */
    int64_t M, N, K, batch, na, nb, ny;
    size_t a_stride, b_stride;
    bool a_row_zp, b_col_zp, b_col_scale;
    int ydt;
    wgc_shape y;
} qm_geom;

static const int q8[] = {WG_DT_UINT8, WG_DT_INT8, 0};

/* Zero point / scale i (may be absent when optional): numel 1, or `per` values on a 1-D
 * tensor; sets *vec when it is a vector. */
static wg_status qparam(wgc_graph *g, const wgc_node *n, int i, int64_t per, int dtype,
                        bool *vec, const char *what)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    *vec = false;
    if (!t)
        return WG_OK;
    if (!t->has_shape)
        return wgc_error(g, n, WG_ERR_INVALID, "%s '%s' has no known shape", what, t->name);
    if (dtype && t->dtype != dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "%s '%s' has dtype %s, expected %s", what, t->name,
                         wg_dtype_name(t->dtype), wg_dtype_name(dtype));
    int64_t c = wgc_numel(&t->shape);
    if (c == 1 && t->shape.rank <= 1)
        return WG_OK;
    if (t->shape.rank == 1 && c == per) {
        *vec = true;
        return WG_OK;
    }
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s '%s' must be a scalar or have %lld values", what,
                     t->name, (long long)per);
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, qm_geom *q)
{
    memset(q, 0, sizeof *q);
    q->qlinear = n->op == WGC_OP_QLINEAR_MATMUL;
    q->ia = 0;
    q->ib = q->qlinear ? 3 : 1;
    q->iaz = 2;
    q->ibz = q->qlinear ? 5 : 3;
    wg_status st = q->qlinear ? wgc_check_arity(g, n, 8, 8, 1, 1) : wgc_check_arity(g, n, 2, 4, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, q->ia, q8);
    if (!st)
        st = wgc_check_input(g, n, q->ib, q8);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, q->ia), *b = wgc_in(g, n, q->ib);
    const int ra = a->shape.rank, rb = b->shape.rank;
    if (ra < 1 || rb < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "operands must have rank 1 or more");
    /* 1-D operands are promoted as in MatMul (a: [1, K], b: [K, 1]) and the unit dim dropped. */
    q->M = ra == 1 ? 1 : a->shape.dims[ra - 2];
    q->K = a->shape.dims[ra - 1];
    const int64_t kb = rb == 1 ? b->shape.dims[0] : b->shape.dims[rb - 2];
    q->N = rb == 1 ? 1 : b->shape.dims[rb - 1];
    if (kb != q->K)
        return wgc_error(g, n, WG_ERR_INVALID, "inner dims differ: a '%s' has %lld, b '%s' has %lld",
                         a->name, (long long)q->K, b->name, (long long)kb);
    wgc_shape ba = {.rank = ra > 2 ? ra - 2 : 0}, bb = {.rank = rb > 2 ? rb - 2 : 0}, by;
    memcpy(ba.dims, a->shape.dims, sizeof(int64_t) * (size_t)ba.rank);
    memcpy(bb.dims, b->shape.dims, sizeof(int64_t) * (size_t)bb.rank);
    if (!wgc_broadcast(&ba, &bb, &by))
        return wgc_error(g, n, WG_ERR_INVALID, "batch dims of a and b do not broadcast");
    const int64_t nba = wgc_numel(&ba), nbb = wgc_numel(&bb);
    q->batch = wgc_numel(&by);
    if ((nba != q->batch && nba != 1) || (nbb != q->batch && nbb != 1) ||
        (nba == q->batch && !wgc_shape_eq(&ba, &by) && nba != 1) ||
        (nbb == q->batch && !wgc_shape_eq(&bb, &by) && nbb != 1))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "this batch broadcast of a and b is not supported");
    q->a_stride = nba == 1 ? 0 : (size_t)(q->M * q->K);
    q->b_stride = nbb == 1 ? 0 : (size_t)(q->K * q->N);
    q->na = nba * q->M * q->K;
    q->nb = nbb * q->K * q->N;
    q->ny = q->batch * q->M * q->N;
    q->y = by;
    if (ra > 1)
        q->y.dims[q->y.rank++] = q->M;
    if (rb > 1)
        q->y.dims[q->y.rank++] = q->N;
    if ((st = qparam(g, n, q->iaz, q->M, a->dtype, &q->a_row_zp, "zero point of a")) ||
        (st = qparam(g, n, q->ibz, q->N, b->dtype, &q->b_col_zp, "zero point of b")))
        return st;
    q->ydt = WG_DT_INT32;
    if (q->qlinear) {
        static const int f32[] = {WG_DT_FLOAT, 0};
        bool v1, v2;
        if ((st = wgc_check_input(g, n, 1, f32)) || (st = wgc_check_input(g, n, 4, f32)) ||
            (st = wgc_check_input(g, n, 6, f32)) || (st = wgc_check_input(g, n, 7, q8)) ||
            (st = qparam(g, n, 1, 1, WG_DT_FLOAT, &v1, "scale of a")) ||
            (st = qparam(g, n, 4, q->N, WG_DT_FLOAT, &q->b_col_scale, "scale of b")) ||
            (st = qparam(g, n, 6, 1, WG_DT_FLOAT, &v2, "scale of y")) ||
            (st = qparam(g, n, 7, 1, 0, &v2, "zero point of y")))
            return st;
        q->ydt = wgc_in(g, n, 7)->dtype;
    }
    if (q->na >= ((int64_t)1 << 29) || q->nb >= ((int64_t)1 << 29) || q->ny >= ((int64_t)1 << 29))
        return wgc_error(g, n, WG_ERR_LIMIT, "operands are too large for the 32-bit kernels");
    return WG_OK;
}

/* MatMulInteger whose b (and b's zero point, when given) is a constant matrix. */
static bool packed_path(wgc_graph *g, const wgc_node *n, const qm_geom *q)
{
    const wgc_tensor *b = wgc_in(g, n, q->ib), *bz = wgc_in(g, n, q->ibz);
    return !q->qlinear && b->data && b->shape.rank == 2 && (!bz || bz->data);
}

static wg_status qm_infer(wgc_graph *g, wgc_node *n)
{
    qm_geom q;
    wg_status st = resolve(g, n, &q);
    if (!st)
        wgc_set_output(g, n, 0, q.ydt, &q.y);
    return st;
}

static size_t qm_scratch(const wgc_graph *g, const wgc_node *n)
{
    qm_geom q;
    if (resolve((wgc_graph *)g, n, &q))
        return 0;
    if (packed_path((wgc_graph *)g, n, &q))
        return 2 * wgk_qgemm_work_size((size_t)(q.batch * q.M), (size_t)q.K) + 16;
    return 4 * (size_t)(q.na + q.nb + (q.qlinear ? q.ny : 0));
}

static wg_status qm_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    qm_geom q;
    wg_status st = resolve(g, n, &q);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, q.ia), *b = wgc_in(g, n, q.ib);
    const bool has_az = n->n_inputs > q.iaz && n->inputs[q.iaz] >= 0;
    const bool has_bz = n->n_inputs > q.ibz && n->inputs[q.ibz] >= 0;
    if (packed_path(g, n, &q)) {
        /* b is one matrix, so a's batches are consecutive rows of one product. */
        const wgc_tensor *bz = has_bz ? wgc_in(g, n, q.ibz) : NULL;
        const size_t np = wgk_qgemm_pack_b_size((size_t)q.K, (size_t)q.N);
        int16_t *packed = malloc(2 * (np ? np : 1));
        const char *w;
        if (!packed)
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", b->name);
        wgk_qgemm_pack_b(b->data, b->dtype, bz ? bz->data : NULL, q.b_col_zp, (size_t)q.K,
                         (size_t)q.N, packed);
        st = wgc_weight(e, packed, 2 * np, &w);
        free(packed);
        if (st)
            return wgc_error(g, n, st, "out of memory");
        wgc_emit(e, "wgk_q8_gemm(&(wgk_q8_gemm_args){%lld, %lld, %lld, %s, %d, %lld, %s, %d, "
                    "(const int16_t *)%s, (int32_t *)%s, %lld, (int16_t *)%s});\n",
                 (long long)(q.batch * q.M), (long long)q.N, (long long)q.K,
                 wgc_ptr(e, g, n->inputs[q.ia]), a->dtype, (long long)q.K,
                 has_az ? wgc_ptr(e, g, n->inputs[q.iaz]) : "0", q.a_row_zp ? (int)q.M : 0, w,
                 wgc_ptr(e, g, n->outputs[0]), (long long)q.N, wgc_scratch(e));
        return WG_OK;
    }
    wgc_emit(e, "{\n");
    wgc_emit(e, "    int32_t *wa = (int32_t *)%s, *wb = wa + %lld, *acc = wb + %lld;\n", wgc_scratch(e),
             (long long)q.na, (long long)q.nb);
    wgc_emit(e, "    wgk_q_widen(%s, %d, wa, %lld, %s, (wgk_qaxis){%d, %lld, %lld});\n",
             wgc_ptr(e, g, n->inputs[q.ia]), a->dtype, (long long)q.na,
             has_az ? wgc_ptr(e, g, n->inputs[q.iaz]) : "0", q.a_row_zp, (long long)q.M, (long long)q.K);
    wgc_emit(e, "    wgk_q_widen(%s, %d, wb, %lld, %s, (wgk_qaxis){%d, %lld, 1});\n",
             wgc_ptr(e, g, n->inputs[q.ib]), b->dtype, (long long)q.nb,
             has_bz ? wgc_ptr(e, g, n->inputs[q.ibz]) : "0", q.b_col_zp, (long long)q.N);
    if (!q.qlinear) {
        wgc_emit(e, "    (void)acc;\n");
        wgc_emit(e, "    wgk_s32_gemm(%lld, %lld, %lld, %lld, wa, %zu, wb, %zu, (int32_t *)%s);\n",
                 (long long)q.batch, (long long)q.M, (long long)q.N, (long long)q.K, q.a_stride,
                 q.b_stride, wgc_ptr(e, g, n->outputs[0]));
    } else {
        wgc_emit(e, "    wgk_s32_gemm(%lld, %lld, %lld, %lld, wa, %zu, wb, %zu, acc);\n",
                 (long long)q.batch, (long long)q.M, (long long)q.N, (long long)q.K, q.a_stride,
                 q.b_stride);
        wgc_emit(e, "    wgk_requantize(acc, %s, %d, %lld, %s, %s, (wgk_qaxis){%d, %lld, 1}, %s, %s);\n",
                 wgc_ptr(e, g, n->outputs[0]), q.ydt, (long long)q.ny, wgc_ptr(e, g, n->inputs[1]),
                 wgc_ptr(e, g, n->inputs[4]), q.b_col_scale, (long long)q.N,
                 wgc_ptr(e, g, n->inputs[6]), wgc_ptr(e, g, n->inputs[7]));
    }
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_qmatmul = {qm_infer, NULL, qm_emit, qm_scratch};
