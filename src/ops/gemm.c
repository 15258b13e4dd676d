/*
 * gemm.c: Gemm, Y = alpha * A' * B' + beta * C (A' = transA ? A^T : A, likewise B), float32,
 * C optional and broadcast to [M, N]. A constant B is laid out at compile time by the
 * packing step (helpers/pack_weight.h) in the selected kernel's PACK layout: column
 * panels for the packed-B kernel when src/select/ chose it (without transA), else, when
 * transposed, row-major [K][N] for the plain GEMM; a non-constant transposed B is
 * transposed into scratch at run time. A's transposition is absorbed by the kernel's
 * strides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/fused_epilogue.h"
#include "helpers/gemm_call.h"
#include "helpers/pack_weight.h"
#include "sym.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

typedef struct gemm_geom {
    int64_t M, N, K;
    int ta, tb;
} gemm_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, gemm_geom *q)
{
    wg_status st = wgc_check_arity(g, n, 2, 3, 1, 1);
    for (int i = 0; !st && i < 2; i++)
        st = wgc_check_input(g, n, i, f32_only);
    if (!st && n->n_inputs > 2 && n->inputs[2] >= 0)
        st = wgc_check_input(g, n, 2, f32_only);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *c = wgc_in(g, n, 2);
    if (a->shape.rank != 2 || b->shape.rank != 2)
        return wgc_error(g, n, WG_ERR_INVALID, "A '%s' and B '%s' must be 2-D (ranks %d and %d)",
                         a->name, b->name, a->shape.rank, b->shape.rank);
    q->ta = wgc_attr_int(n, "transA", 0) != 0;
    q->tb = wgc_attr_int(n, "transB", 0) != 0;
    q->M = a->shape.dims[q->ta ? 1 : 0];
    q->K = a->shape.dims[q->ta ? 0 : 1];
    int64_t kb = b->shape.dims[q->tb ? 1 : 0];
    q->N = b->shape.dims[q->tb ? 0 : 1];
    if (kb != q->K)
        return wgc_error(g, n, WG_ERR_INVALID, "inner dimensions differ: A gives K = %lld, B gives %lld",
                         (long long)q->K, (long long)kb);
    if (c) {
        int r = c->shape.rank;
        int64_t cm = r >= 2 ? c->shape.dims[r - 2] : 1, cn = r >= 1 ? c->shape.dims[r - 1] : 1;
        if (r > 2 || (cm != 1 && cm != q->M) || (cn != 1 && cn != q->N)) {
            char buf[64];
            return wgc_error(g, n, WG_ERR_INVALID, "C '%s' (%s) does not broadcast to [%lld, %lld]",
                             c->name, wgc_shape_str(&c->shape, buf, sizeof buf), (long long)q->M,
                             (long long)q->N);
        }
    }
    const int64_t lim = (int64_t)1 << 31;
    if (q->M * q->K >= lim || q->K * q->N >= lim || q->M * q->N >= lim)
        return wgc_error(g, n, WG_ERR_LIMIT, "Gemm is too large for the 32-bit kernels");
    return WG_OK;
}

static wg_status gemm_infer(wgc_graph *g, wgc_node *n)
{
    gemm_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    wgc_shape y = {.rank = 2, .dims = {q.M, q.N}};
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

static size_t gemm_scratch(const wgc_graph *g, const wgc_node *n)
{
    gemm_geom q;
    if (resolve((wgc_graph *)g, n, &q) || !q.tb || g->tensors[n->inputs[1]].data)
        return 0;
    return (size_t)(q.K * q.N) * sizeof(float);
}

static wg_status gemm_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    gemm_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    if (q.M * q.N == 0)
        return WG_OK;
    const wgc_tensor *b = wgc_in(g, n, 1), *c = wgc_in(g, n, 2);
    char bexpr[128];
    if (!wgc_kernel_get(n->impl.kernel)) /* a compiler bug, not a model problem */
        return wgc_error(g, n, WG_ERR_INVALID, "no kernel was selected for this Gemm (src/select/ did not run)");
    const wgc_pack layout = wgc_kernel_get(n->impl.kernel)->pack;
    if (layout != WGC_PACK_ONNX || (b->data && q.tb)) {
        /* Constant B in the kernel's layout: column panels for the packed-B kernel (GEMM_B,
         * any transB); for the others (ONNX) a transposed B made row-major [K][N]. B is
         * [K][N], or [N][K] with transB. */
        const wgc_pack_geom geo = {.K = (size_t)q.K, .N = (size_t)q.N, .sk = q.tb ? 1 : (size_t)q.N,
                                   .sn = q.tb ? (size_t)q.K : 1};
        const char *w;
        if ((st = wgc_pack_weight(e, g, n, b, layout, &geo, &w)))
            return st;
        snprintf(bexpr, sizeof bexpr, "%s", w);
    } else if (q.tb) {
        snprintf(bexpr, sizeof bexpr, "%s", wgc_scratch(e));
        wgc_emit(e, "wgk_f32_transpose2d(%s, %s, %lld, %lld);\n", wgc_ptr(e, g, n->inputs[1]), bexpr,
                 (long long)q.N, (long long)q.K);
    } else {
        snprintf(bexpr, sizeof bexpr, "%s", wgc_ptr(e, g, n->inputs[1]));
    }
    char aexpr[128], cexpr[128], yexpr[128], rexpr[128];
    snprintf(aexpr, sizeof aexpr, "%s", wgc_ptr(e, g, n->inputs[0]));
    snprintf(yexpr, sizeof yexpr, "%s", wgc_ptr(e, g, n->outputs[0]));
    wgc_gemm_call call = {
        .M = q.M, .N = q.N, .K = q.K, .a = aexpr, .b = bexpr, .ldb = q.N, .c = yexpr, .ldc = q.N,
        .alpha = wgc_attr_float(n, "alpha", 1.0f), .beta = wgc_attr_float(n, "beta", 1.0f),
        .kernel = n->impl.kernel,
    };
    if (q.ta) { /* A stored [K][M] */
        call.a_panel = WGK_GEMM_MR;
        call.a_k = q.M;
        call.a_m = 1;
    } else {
        call.a_panel = WGK_GEMM_MR * q.K;
        call.a_k = 1;
        call.a_m = q.K;
    }
    if (c && call.beta != 0.0f) {
        int r = c->shape.rank;
        int64_t cm = r >= 2 ? c->shape.dims[r - 2] : 1, cn = r >= 1 ? c->shape.dims[r - 1] : 1;
        snprintf(cexpr, sizeof cexpr, "%s", wgc_ptr(e, g, n->inputs[2]));
        call.bias = cexpr;
        call.bias_n = cn == 1 ? 0 : 1;
        call.bias_m = cm == 1 ? 0 : cn;
    }
    if (n->residual >= 0) {
        snprintf(rexpr, sizeof rexpr, "%s", wgc_ptr(e, g, n->residual));
        call.res = rexpr;
        call.ldr = q.N;
    }
    wgc_act_range(n, &call.min, &call.max);
    if (n->act == WGC_ACT_GELU || n->act == WGC_ACT_GELU_TANH) {
        /* fused by fuse_matmul_epilogue.c, which only does so for the packed-B kernel */
        if (n->impl.kernel != WGC_KERNEL_GEMM_PACKED_B)
            return wgc_error(g, n, WG_ERR_INVALID, "a fused GELU needs the packed-B kernel (compiler bug)");
        call.act = n->act == WGC_ACT_GELU ? WGK_GEMM_ACT_GELU : WGK_GEMM_ACT_GELU_TANH;
    }
    wgc_emit_gemm(e, &call);
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

static wg_status gemm_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    /* A [M, K] with M symbolic (transA 0), B and C fixed: y [M, N] */
    if (wgc_attr_int(n, "transA", 0) || x->shape.rank != 2 || wgc_dim_is_sym(&x->shape, 1))
        return wgc_sym_refuse(g, n, "only a symbolic M of an untransposed A");
    for (int i = 1; i < n->n_inputs; i++)
        if (n->inputs[i] >= 0 && (wgc_shape_is_sym(&wgc_in(g, n, i)->shape) || wgc_in(g, n, i)->symval))
            return wgc_sym_refuse(g, n, "a symbolic B or C");
    memcpy(y.sym[0], x->shape.sym[0], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

/* Gemm: y = act(alpha * A B' + beta * C), A [M, K] with M symbolic, B constant (packed
 * when the selection chose it), C none, a scalar, [N] or [1, N]. */
static wg_status gemm_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *c = n->n_inputs > 2 ? wgc_in(g, n, 2) : NULL;
    wgc_kernel kid = n->impl.kernel;
    const wgc_kernel_info *k = wgc_kernel_get(kid);
    bool tb = wgc_attr_int(n, "transB", 0) != 0;
    int64_t K = a->shape.dims[1], N = tb ? b->shape.dims[0] : b->shape.dims[1];
    if (!k || a->dtype != WG_DT_FLOAT || n->residual >= 0 || n->post_affine || n->aux_affine >= 0 ||
        (n->act != WGC_ACT_NONE && n->act != WGC_ACT_RELU && n->act != WGC_ACT_CLIP) || !b->data)
        return wgc_sym_refuse(g, n, "a fused epilogue, a B computed at run time or an unselected kernel");
    int bias_n = 0;
    if (c) {
        int64_t cn = wgc_numel(&c->shape);
        if (cn != 1 && !(cn == N && c->shape.dims[c->shape.rank - 1] == N))
            return wgc_sym_refuse(g, n, "a C other than a scalar or one row");
        bias_n = cn == 1 ? 0 : 1;
    }
    const char *bexpr;
    char bbuf[96];
    if (k->pack == WGC_PACK_GEMM_B || tb) {
        /* A transposed B runs on the packed-B kernel, in that kernel's layout. */
        kid = WGC_KERNEL_GEMM_PACKED_B;
        k = wgc_kernel_get(kid);
        const wgc_pack_geom geo = {.K = (size_t)K, .N = (size_t)N, .sk = tb ? 1 : (size_t)N,
                                   .sn = tb ? (size_t)K : 1};
        wg_status st = wgc_pack_weight(e, g, n, b, k->pack, &geo, &bexpr);
        if (st)
            return st;
    } else {
        snprintf(bbuf, sizeof bbuf, "%s", wgc_ptr(e, g, n->inputs[1]));
        bexpr = bbuf;
    }
    float lo = -__builtin_inff(), hi = __builtin_inff();
    if (n->act == WGC_ACT_RELU)
        lo = 0;
    else if (n->act == WGC_ACT_CLIP) {
        lo = n->act_min;
        hi = n->act_max;
    }
    char fields[3072];
    snprintf(fields, sizeof fields,
             ".M = %s, .N = %lld, .K = %lld, .a = %s, .a_panel = %lld, .a_k = 1, "
             ".a_m = %lld,\n    .b = %s, .ldb = %lld, .c = %s, .ldc = %lld, .bias = %s, .bias_m = 0, .bias_n = %d, "
             ".res = 0, .ldr = %lld,\n        .alpha = %s, .beta = %s, .min = %s, .max = %s",
             wgc_dims_expr(e, &a->shape, 0, 1), (long long)N, (long long)K, wgc_ptr(e, g, n->inputs[0]),
             (long long)(WGK_GEMM_MR * K), (long long)K, bexpr, (long long)N, wgc_ptr(e, g, n->outputs[0]),
             (long long)N, c ? wgc_ptr(e, g, n->inputs[2]) : "0", bias_n, (long long)N,
             wgc_float(e, wgc_attr_float(n, "alpha", 1.0f)),
             wgc_float(e, c ? wgc_attr_float(n, "beta", 1.0f) : 0.0f), wgc_float(e, lo), wgc_float(e, hi));
    wgc_emit_gemm_fields(e, kid, fields, "");
    return WG_OK;
}

const wgc_op_def wgc_op_gemm = {
    .infer = gemm_infer,
    .emit = gemm_emit,
    .scratch = gemm_scratch,
    .sym = {.infer = gemm_sym_infer, .emit = gemm_sym_emit},
};
