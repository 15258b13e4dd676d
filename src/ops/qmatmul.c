/*
 * qmatmul.c: MatMulInteger and QLinearMatMul, uint8 / int8 operands, integer-exact.
 * Both operands are widened to int32 with their zero points subtracted (a: scalar or
 * per row; b: scalar or per column), multiplied by an int32 GEMM into int32, and
 * QLinearMatMul requantizes (scale of b scalar or per column). Batch dims broadcast when
 * they are equal or one side has none (a batch of 1); other broadcasts are unsupported.
 * Scratch: widened a, widened b, and the int32 product (QLinearMatMul).
 *
 * MatMulInteger with a constant 2-D b (and a constant or absent zero point of b), the
 * case of every dynamically quantized model, runs on the int8 GEMM instead (the selection
 * step's `int8 gemm`, kernels/gemm/q8-gemm-4x8c2.c): b packed at compile time one byte per
 * weight with its zero point's corrections (kernels/include/wgk_qgemm.h), a widened at run
 * time with its zero point (run-time, from DynamicQuantizeLinear); scratch: a as int16 and
 * its broadcasts. A threaded build divides its columns among the threads
 * (wgk_split_q8_gemm). That path also takes symbolic dims in a's leading dims (its rows,
 * batch x sequence), computed over the run's rows; the others refuse them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_qgemm.h"
#include "../../kernels/include/wgk_quant.h"
#include "../ir/symdim.h"
#include "helpers/fused_epilogue.h"
#include "helpers/pack_weight.h"
#include "helpers/qlinear.h"
#include "helpers/sym_code.h"
#include "sym.h"

typedef struct qm_geom {
    wgc_q_inputs in;
    int64_t M, N, K, batch, na, nb, ny;
    size_t a_stride, b_stride;
    wgc_q_vec vec; /* a_zp: a's per row; b_zp, b_scale: b's per column */
    int ydt;
    wgc_shape y;
} qm_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, qm_geom *q)
{
    memset(q, 0, sizeof *q);
    wg_status st = wgc_q_inputs_check(g, n, n->op == WGC_OP_QLINEAR_MATMUL, 8, &q->in);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, q->in.a), *b = wgc_in(g, n, q->in.b);
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
    static const char *const names[2] = {"a", "b"};
    const wgc_q_per per[2] = {{q->M, "row of a"}, {q->N, "column of b"}};
    if ((st = wgc_q_params_check(g, n, &q->in, names, per, &q->vec, &q->ydt)))
        return st;
    if (q->na >= ((int64_t)1 << 29) || q->nb >= ((int64_t)1 << 29) || q->ny >= ((int64_t)1 << 29))
        return wgc_error(g, n, WG_ERR_LIMIT, "operands are too large for the 32-bit kernels");
    return WG_OK;
}

bool wgc_qmatmul_packs_b(wgc_graph *g, const wgc_node *n)
{
    if (n->op != WGC_OP_MATMUL_INTEGER || n->n_inputs < 2)
        return false;
    const wgc_tensor *b = wgc_in(g, n, 1), *bz = wgc_in(g, n, 3);
    return b && b->data && b->shape.rank == 2 && (!bz || bz->data);
}

WGC_INFER_BY_RESOLVE_AS(qm_infer, qm_geom, resolve, q.ydt, q.y)

static size_t qm_scratch(const wgc_graph *g, const wgc_node *n)
{
    qm_geom q;
    if (resolve((wgc_graph *)g, n, &q))
        return 0;
    if (n->impl.kernel == WGC_KERNEL_Q8_GEMM)
        return 2 * wgk_qgemm_work_size((size_t)(q.batch * q.M), (size_t)q.K) + 16;
    return 4 * (size_t)(q.na + q.nb + (q.in.qlinear ? q.ny : 0));
}

/* The int8 GEMM on b packed in the kernel's layout (b is one matrix, so a's batches are
 * consecutive rows of one product); its rows a literal or, over symbolic dims, the run's. */
static wg_status emit_int8_gemm(wgc_emitter *e, wgc_graph *g, wgc_node *n, const qm_geom *q)
{
    const wgc_tensor *a = wgc_in(g, n, q->in.a), *b = wgc_in(g, n, q->in.b);
    const wgc_pack_geom geo = {.K = (size_t)q->K, .N = (size_t)q->N, .sk = (size_t)q->N, .sn = 1,
                               .zp = wgc_in(g, n, q->in.bz), .zp_per_col = q->vec.b_zp};
    const char *w;
    wg_status st = wgc_pack_weight(e, g, n, b, wgc_kernel_get(n->impl.kernel)->pack, &geo, &w);
    if (st)
        return st;
    char rows[256], fields[1024];
    snprintf(rows, sizeof rows, "%s", wgc_size_expr(e, &a->shape, 0, a->shape.rank - 1));
    snprintf(fields, sizeof fields,
             "%s, %lld, %lld, %s, %d, %lld, %s, %d, (const int8_t *)%s, (int32_t *)%s, %lld, (int16_t *)%s", rows,
             (long long)q->N, (long long)q->K, wgc_ptr(e, g, n->inputs[q->in.a]), a->dtype, (long long)q->K,
             wgc_q_ptr_or_0(e, g, n, q->in.az), q->vec.a_zp ? (int)q->M : 0, w, wgc_ptr(e, g, n->outputs[0]),
             (long long)q->N, wgc_scratch(e));
    /* a decode step's GEMV is split too: its weights are the work */
    const bool split = wgc_threaded(e) && wgc_split_pays(e, (q->N + WGK_QGEMM_NR - 1) / WGK_QGEMM_NR, q->N * q->K);
    wgc_emit_args_call(e, n->impl.kernel, split, wgc_kernel_get(n->impl.kernel)->symbol, "wgk_q8_gemm_args", fields,
                       "");
    return WG_OK;
}

static wg_status qm_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    qm_geom q;
    wg_status st = resolve(g, n, &q);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, q.in.a), *b = wgc_in(g, n, q.in.b);
    if (n->impl.kernel == WGC_KERNEL_Q8_GEMM)
        return emit_int8_gemm(e, g, n, &q);
    wgc_emit(e, "{\n");
    wgc_emit(e, "    int32_t *wa = (int32_t *)%s, *wb = wa + %lld, *acc = wb + %lld;\n", wgc_scratch(e),
             (long long)q.na, (long long)q.nb);
    wgc_emit(e, "    wgk_q_widen(%s, %d, wa, %lld, %s, (wgk_qaxis){%d, %lld, %lld});\n",
             wgc_ptr(e, g, n->inputs[q.in.a]), a->dtype, (long long)q.na,
             wgc_q_ptr_or_0(e, g, n, q.in.az), q.vec.a_zp, (long long)q.M, (long long)q.K);
    wgc_emit(e, "    wgk_q_widen(%s, %d, wb, %lld, %s, (wgk_qaxis){%d, %lld, 1});\n",
             wgc_ptr(e, g, n->inputs[q.in.b]), b->dtype, (long long)q.nb,
             wgc_q_ptr_or_0(e, g, n, q.in.bz), q.vec.b_zp, (long long)q.N);
    if (!q.in.qlinear) {
        wgc_emit(e, "    (void)acc;\n");
        wgc_emit(e, "    wgk_s32_gemm(%lld, %lld, %lld, %lld, wa, %zu, wb, %zu, (int32_t *)%s);\n",
                 (long long)q.batch, (long long)q.M, (long long)q.N, (long long)q.K, q.a_stride,
                 q.b_stride, wgc_ptr(e, g, n->outputs[0]));
    } else {
        wgc_emit(e, "    wgk_s32_gemm(%lld, %lld, %lld, %lld, wa, %zu, wb, %zu, acc);\n",
                 (long long)q.batch, (long long)q.M, (long long)q.N, (long long)q.K, q.a_stride,
                 q.b_stride);
        wgc_q_emit_requantize(e, g, n, q.ydt, q.ny, q.vec.b_scale, q.N, 1);
    }
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* Symbolic dims: MatMulInteger on a constant B (packed_path) whose A has symbolic
 * leading dims (rows), its zero point per tensor; y = A's leading dims x N. */
static wg_status qm_sym_infer(wgc_graph *g, wgc_node *n)
{
    qm_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, q.in.a);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    if (!wgc_qmatmul_packs_b(g, n) || a->shape.rank < 2)
        return wgc_sym_refuse(g, n, "a B computed at run time, or a 1-D A");
    if (q.vec.a_zp || wgc_dim_is_sym(&a->shape, a->shape.rank - 1))
        return wgc_sym_refuse(g, n, "a per-row zero point of A, or a symbolic K");
    for (int d = 0; d < a->shape.rank - 1; d++)
        memcpy(y.sym[d], a->shape.sym[d], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_qmatmul = {.infer = qm_infer, .emit = qm_emit, .scratch = qm_scratch,
                                   .sym = {.infer = qm_sym_infer, .emit = qm_emit}};
