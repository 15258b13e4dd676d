/*
 * matmul_bnb4.c: onnxruntime's MatMulBnb4 (com.microsoft, version 1): Y = A W^T with W [N, K]
 * quantized to 4-bit codes of bitsandbytes' FP4 (quant_type 0) or NF4 (1) codebook, one
 * absmax per block of block_size of W flattened. The codes go into the module at their size
 * and become floats in registers (kernels/include/wgk_qweight.h, wgk_f32_bnb4_gemm).
 *
 * Inputs: A [..., K] float32 (float16 models compute in float32); B uint8 [ceil(N * K / 2)];
 * absmax [ceil(N * K / block_size)]. Y [..., N]; A's leading dims may be symbolic.
 * onnxruntime's checks: K, N, block_size (a power of two, 16 or more) and quant_type are
 * required. Refused: transB = 0 (A [..., N] times W, the backward pass).
 */
#include <stdio.h>
#include <string.h>

#include "../../kernels/include/wgk_qweight.h"
#include "../ir/symdim.h"
#include "helpers/qweight.h"
#include "sym.h"

typedef struct bnb4_plan {
    int64_t K, N, blk, qt;
    wgc_shape y;
} bnb4_plan;

static wg_status plan(wgc_graph *g, const wgc_node *n, bnb4_plan *p)
{
    static const char *const names[] = {"K", "N", "block_size", "quant_type", "transB", "training_mode", NULL};
    static const int f32[] = {WG_DT_FLOAT, 0}, u8[] = {WG_DT_UINT8, 0};
    memset(p, 0, sizeof *p);
    wg_status st = wgc_check_attr_names(g, n, names);
    if (!st)
        st = wgc_check_arity(g, n, 3, 3, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, f32);
    if (!st)
        st = wgc_check_input(g, n, 1, u8);
    if (!st)
        st = wgc_check_input(g, n, 2, f32);
    if (st)
        return st;
    static const char *const required[] = {"K", "N", "block_size", "quant_type"};
    for (int i = 0; i < 4; i++)
        if (!wgc_attr_find(n, required[i]))
            return wgc_error(g, n, WG_ERR_INVALID, "attribute '%s' is required", required[i]);
    p->K = wgc_attr_int(n, "K", 0);
    p->N = wgc_attr_int(n, "N", 0);
    p->blk = wgc_attr_int(n, "block_size", 0);
    p->qt = wgc_attr_int(n, "quant_type", -1);
    if (p->K < 1 || p->N < 1 || p->K >= (1 << 30) || p->N >= (1 << 30))
        return wgc_error(g, n, WG_ERR_INVALID, "K = %lld and N = %lld must be positive", (long long)p->K,
                         (long long)p->N);
    if (p->blk < 16 || (p->blk & (p->blk - 1)))
        return wgc_error(g, n, WG_ERR_INVALID, "block_size = %lld: must be a power of two, 16 or more",
                         (long long)p->blk);
    if (p->qt != 0 && p->qt != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "quant_type = %lld: 0 (FP4) or 1 (NF4)", (long long)p->qt);
    if (wgc_attr_int(n, "transB", 1) != 1)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "transB = %lld: wasmgraph takes 1 (A times W transposed)",
                         (long long)wgc_attr_int(n, "transB", 1));
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *am = wgc_in(g, n, 2);
    char s[128];
    if (a->shape.rank < 1 || a->shape.dims[a->shape.rank - 1] != p->K)
        return wgc_error(g, n, WG_ERR_INVALID, "A '%s' is %s: its last dim must be K = %lld", a->name,
                         wgc_shape_str(&a->shape, s, sizeof s), (long long)p->K);
    const int64_t numel = p->N * p->K;
    if (b->shape.rank != 1 || b->shape.dims[0] != (numel + 1) / 2)
        return wgc_error(g, n, WG_ERR_INVALID, "B '%s' has shape [%s], not [%lld] (N * K = %lld codes, two per byte)",
                         b->name, wgc_shape_str(&b->shape, s, sizeof s), (long long)((numel + 1) / 2),
                         (long long)numel);
    if (am->shape.rank != 1 || am->shape.dims[0] != (numel + p->blk - 1) / p->blk)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "absmax '%s' has shape [%s], not [%lld] (N * K / block_size, rounded up)", am->name,
                         wgc_shape_str(&am->shape, s, sizeof s), (long long)((numel + p->blk - 1) / p->blk));
    p->y = a->shape;
    p->y.dims[p->y.rank - 1] = p->N;
    const int64_t lim = (int64_t)1 << 31;
    if (wgc_numel(&a->shape) >= lim || wgc_numel(&p->y) >= lim || numel >= lim)
        return wgc_error(g, n, WG_ERR_LIMIT, "MatMulBnb4 is too large for the 32-bit kernels");
    return WG_OK;
}

WGC_INFER_BY_RESOLVE(bnb4_infer, bnb4_plan, plan, q.y)

/* One call; M printed by wgc_size_expr, so this serves symbolic rows too. */
static wg_status bnb4_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    bnb4_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, 0);
    char m[128], absmax[128];
    if ((st = wgc_qweight_scales(e, g, n, n->inputs[2], absmax, sizeof absmax)))
        return st;
    snprintf(m, sizeof m, "%s", wgc_size_expr(e, &a->shape, 0, a->shape.rank - 1));
    wgc_emit(e, "wgk_f32_bnb4_gemm(&(const wgk_bnb4_args){.M = %s, .N = %lld, .K = %lld, .blk = %lld, "
                ".quant_type = %d,\n", m, (long long)p.N, (long long)p.K, (long long)p.blk, (int)p.qt);
    wgc_emit(e, "    .a = %s, .lda = %lld, .b = %s, .absmax = %s,", wgc_ptr(e, g, n->inputs[0]), (long long)p.K,
             wgc_ptr(e, g, n->inputs[1]), absmax);
    wgc_emit(e, " .c = %s, .ldc = %lld});\n", wgc_ptr(e, g, n->outputs[0]), (long long)p.N);
    return WG_OK;
}

/* Y's dims are A's but the last (N): A's symbolic dims pass through. */
static wg_status bnb4_sym_infer(wgc_graph *g, wgc_node *n)
{
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    const wgc_tensor *a = wgc_in(g, n, 0);
    if (wgc_shape_is_sym(&wgc_in(g, n, 1)->shape) || wgc_shape_is_sym(&wgc_in(g, n, 2)->shape))
        return wgc_sym_refuse(g, n, "symbolic weights or absmax");
    if (wgc_dim_is_sym(&a->shape, a->shape.rank - 1))
        return wgc_sym_refuse(g, n, "A's last dim is K, an attribute");
    for (int d = 0; d < a->shape.rank - 1; d++)
        memcpy(y.sym[d], a->shape.sym[d], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_matmul_bnb4 = {
    .infer = bnb4_infer,
    .emit = bnb4_emit,
    .sym = {.infer = bnb4_sym_infer, .emit = bnb4_emit},
};
