/*
 * matmul_nbits.c: onnxruntime's MatMulNBits (com.microsoft, version 1): Y = A W^T (+ bias)
 * with W [N, K] quantized block-wise along K to 4 or 8 bits, (q - zero_point) * scale per
 * block. The weights, scales and zero points go into the module as the model stores them
 * (a q4 model's module is about its file's size) and the kernel widens them in registers
 * (kernels/include/wgk_qweight.h, wgk_f32_qbw_gemm). The weights are placed once when a
 * GatherBlockQuantized gathers from the same bytes (helpers/qweight.h: tied embeddings).
 *
 * Inputs: A [..., K] float32 (float16 models compute in float32: passes/lower_fp16.c);
 * B uint8 [N, k_blocks, blob] (k_blocks = ceil(K / block_size), blob = block_size * bits /
 * 8), computed at run time or not; scales [N, k_blocks] (or flat); zero_points uint8
 * packed [N, ceil(k_blocks * bits / 8)] or of the scales' type [N, k_blocks] (or flat),
 * absent: 2^(bits-1); bias [N]. Y [..., N]; A's leading dims (M = their product, often
 * batch * seq) may be symbolic: the kernel takes M at run time and picks its path by it.
 *
 * accuracy_level: what onnxruntime's CPU kernels compute (onnxruntime 1.32 and
 * onnxruntime-node 1.30 on x86-64, each output against both formulas; the tests say more:
 * tests/models/qweight_ops.py): levels 0 to 3 in float32 from the dequantized weights;
 * level 4 (MLAS's CompInt8) quantizes each row of A to int8 per block (the kernel's
 * quant_a, MLAS's rounding) and sums the products in integers, except beside float zero
 * points, where onnxruntime dequantizes (float32 here too).
 *
 * Refused: bits other than 4 and 8 (onnxruntime also runs 2); a block size above 256
 * (onnxruntime's CPU kernels take 16 to 256); g_idx (deprecated, act-order groups:
 * onnxruntime 1.32's CPU kernel, given one, even the identity k / block_size, dequantizes
 * with the default zero point whatever zero_points says); weight_prepacked; an omitted
 * projection (B with a dimension 0).
 */
#include <stdio.h>
#include <string.h>

#include "../../kernels/include/wgk_qweight.h"
#include "../ir/symdim.h"
#include "helpers/qweight.h"
#include "sym.h"

enum { IN_A, IN_B, IN_SCALES, IN_ZP, IN_GIDX, IN_BIAS };

typedef struct nbits_plan {
    int64_t K, N, bits, blk, level, nblk, blob, zstride;
    int64_t M;      /* rows of A at the maxima */
    bool zp_float;  /* zero points of the scales' type */
    bool quant_a;   /* accuracy level 4 as onnxruntime computes it */
    wgc_shape y;
} nbits_plan;

static const int f32_only[] = {WG_DT_FLOAT, 0};

/* t has shape [d0, d1] or, flat, [d0 * d1]. */
static bool shape_2d_or_flat(const wgc_tensor *t, int64_t d0, int64_t d1)
{
    const wgc_shape *s = &t->shape;
    return (s->rank == 2 && s->dims[0] == d0 && s->dims[1] == d1) || (s->rank == 1 && s->dims[0] == d0 * d1);
}

static wg_status bad_shape(wgc_graph *g, const wgc_node *n, const wgc_tensor *t, const char *what,
                           int64_t d0, int64_t d1, const nbits_plan *p)
{
    char s[128];
    return wgc_error(g, n, WG_ERR_INVALID,
                     "%s '%s' is %s, not [%lld, %lld] (or [%lld]) as N = %lld, K = %lld, bits = %lld, "
                     "block_size = %lld make it",
                     what, t->name, wgc_shape_str(&t->shape, s, sizeof s), (long long)d0, (long long)d1,
                     (long long)(d0 * d1), (long long)p->N, (long long)p->K, (long long)p->bits, (long long)p->blk);
}

/* Attributes: the one place they are read and checked. */
static wg_status read_attrs(wgc_graph *g, const wgc_node *n, nbits_plan *p)
{
    static const char *const names[] = {"K", "N", "bits", "block_size", "accuracy_level", "weight_prepacked", NULL};
    wg_status st = wgc_check_attr_names(g, n, names);
    if (st)
        return st;
    static const char *const required[] = {"K", "N", "block_size"};
    for (int i = 0; i < 3; i++)
        if (!wgc_attr_find(n, required[i]))
            return wgc_error(g, n, WG_ERR_INVALID, "attribute '%s' is required", required[i]);
    p->K = wgc_attr_int(n, "K", 0);
    p->N = wgc_attr_int(n, "N", 0);
    p->bits = wgc_attr_int(n, "bits", 4);
    p->blk = wgc_attr_int(n, "block_size", 0);
    p->level = wgc_attr_int(n, "accuracy_level", 0);
    if (p->K < 1 || p->N < 1 || p->K >= (1 << 30) || p->N >= (1 << 30))
        return wgc_error(g, n, WG_ERR_INVALID, "K = %lld and N = %lld must be positive", (long long)p->K,
                         (long long)p->N);
    if (p->bits < 2 || p->bits > 8)
        return wgc_error(g, n, WG_ERR_INVALID, "bits = %lld: the schema takes 2 to 8", (long long)p->bits);
    if (p->bits != 4 && p->bits != 8)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "bits = %lld: wasmgraph takes 4 and 8", (long long)p->bits);
    if (p->blk < 16 || (p->blk & (p->blk - 1)))
        return wgc_error(g, n, WG_ERR_INVALID, "block_size = %lld: must be a power of two, 16 or more",
                         (long long)p->blk);
    if (p->blk > WGK_QBW_MAX_BLOCK)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "block_size = %lld: wasmgraph (as onnxruntime's CPU kernels) takes 16 to %d",
                         (long long)p->blk, WGK_QBW_MAX_BLOCK);
    if (p->level < 0 || p->level > 4)
        return wgc_error(g, n, WG_ERR_INVALID, "accuracy_level = %lld: must be 0 to 4", (long long)p->level);
    if (wgc_attr_int(n, "weight_prepacked", 0) != 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "weight_prepacked = %lld: B in a GPU's layout",
                         (long long)wgc_attr_int(n, "weight_prepacked", 0));
    p->nblk = (p->K + p->blk - 1) / p->blk;
    p->blob = p->blk * p->bits / 8;
    p->zstride = (p->nblk * p->bits + 7) / 8;
    return WG_OK;
}

/* Reads and checks n: every hook starts here. */
static wg_status plan(wgc_graph *g, const wgc_node *n, nbits_plan *p)
{
    memset(p, 0, sizeof *p);
    wg_status st = wgc_check_arity(g, n, 3, 6, 1, 1);
    if (!st)
        st = read_attrs(g, n, p);
    if (!st)
        st = wgc_check_input(g, n, IN_A, f32_only);
    if (!st)
        st = wgc_check_input(g, n, IN_B, (const int[]){WG_DT_UINT8, 0});
    if (!st)
        st = wgc_check_input(g, n, IN_SCALES, f32_only);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, IN_A), *b = wgc_in(g, n, IN_B), *s = wgc_in(g, n, IN_SCALES);
    char sa[128];
    if (a->shape.rank < 1 || a->shape.dims[a->shape.rank - 1] != p->K)
        return wgc_error(g, n, WG_ERR_INVALID, "A '%s' is %s: its last dim must be K = %lld", a->name,
                         wgc_shape_str(&a->shape, sa, sizeof sa), (long long)p->K);
    for (int d = 0; d < b->shape.rank; d++)
        if (b->shape.dims[d] == 0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "B '%s' is %s: an omitted projection (Y zeros or the "
                             "bias) is not supported", b->name, wgc_shape_str(&b->shape, sa, sizeof sa));
    if (b->shape.rank != 3 || b->shape.dims[0] != p->N || b->shape.dims[1] != p->nblk || b->shape.dims[2] != p->blob)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "B '%s' is %s, not [N, k_blocks, blob] = [%lld, %lld, %lld] as N = %lld, K = %lld, "
                         "bits = %lld, block_size = %lld make it",
                         b->name, wgc_shape_str(&b->shape, sa, sizeof sa), (long long)p->N, (long long)p->nblk,
                         (long long)p->blob, (long long)p->N, (long long)p->K, (long long)p->bits, (long long)p->blk);
    if (!shape_2d_or_flat(s, p->N, p->nblk))
        return bad_shape(g, n, s, "scales", p->N, p->nblk, p);
    const wgc_tensor *z = wgc_in(g, n, IN_ZP);
    if (z) {
        if (z->dtype == WG_DT_UINT8) {
            if (!shape_2d_or_flat(z, p->N, p->zstride))
                return bad_shape(g, n, z, "packed zero_points", p->N, p->zstride, p);
        } else if (z->dtype == s->dtype) {
            if (!shape_2d_or_flat(z, p->N, p->nblk))
                return bad_shape(g, n, z, "zero_points", p->N, p->nblk, p);
            p->zp_float = true;
        } else {
            return wgc_error(g, n, WG_ERR_INVALID, "zero_points '%s' is %s: uint8 (packed) or the scales' %s",
                             z->name, wg_dtype_name(z->dtype), wg_dtype_name(s->dtype));
        }
    }
    const wgc_tensor *gi = wgc_in(g, n, IN_GIDX);
    if (gi)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "g_idx '%s' (input 4, deprecated: act-order groups) is not supported (onnxruntime "
                         "1.32 dequantizes such weights with the default zero point, ignoring zero_points)",
                         gi->name);
    const wgc_tensor *bias = wgc_in(g, n, IN_BIAS);
    if (bias) {
        if ((st = wgc_check_input(g, n, IN_BIAS, f32_only)))
            return st;
        if (bias->shape.rank != 1 || bias->shape.dims[0] != p->N)
            return wgc_error(g, n, WG_ERR_INVALID, "bias '%s' is %s, not [N] = [%lld]", bias->name,
                             wgc_shape_str(&bias->shape, sa, sizeof sa), (long long)p->N);
    }
    p->M = wgc_numel(&a->shape) / p->K;
    p->quant_a = p->level == 4 && !p->zp_float;
    p->y = a->shape;
    p->y.dims[p->y.rank - 1] = p->N;
    const int64_t lim = (int64_t)1 << 31;
    if (wgc_numel(&a->shape) >= lim || p->M * p->N >= lim || p->N * p->nblk * p->blob >= lim)
        return wgc_error(g, n, WG_ERR_LIMIT, "MatMulNBits is too large for the 32-bit kernels");
    return WG_OK;
}

WGC_INFER_BY_RESOLVE(nbits_infer, nbits_plan, plan, q.y)

static size_t nbits_scratch(const wgc_graph *g, const wgc_node *n)
{
    nbits_plan p;
    if (plan((wgc_graph *)g, n, &p))
        return 0;
    return wgk_qbw_work_bytes((int)p.M, (int)p.K, (int)p.blk, p.quant_a);
}

/* One call of the kernel; M printed by wgc_size_expr (a literal, or the product of A's
 * symbolic dims read at run time), so this serves symbolic shapes too. */
static wg_status nbits_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    nbits_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, IN_A);
    char m[128], ptr[6][128];
    snprintf(m, sizeof m, "%s", wgc_size_expr(e, &a->shape, 0, a->shape.rank - 1));
    for (int i = 0; i < 6; i++)
        snprintf(ptr[i], sizeof ptr[i], "%s", i < n->n_inputs && n->inputs[i] >= 0 && i != IN_GIDX && i != IN_SCALES ?
                 wgc_ptr(e, g, i == IN_B ? wgc_qweight_canonical(g, n->inputs[i]) : n->inputs[i]) : "0");
    if ((st = wgc_qweight_scales(e, g, n, n->inputs[IN_SCALES], ptr[IN_SCALES], sizeof ptr[IN_SCALES])))
        return st;
    const bool zp = wgc_in(g, n, IN_ZP) != NULL;
    const size_t work = nbits_scratch(g, n);
    /* a threaded build divides the columns (wgk_split_qbw), each thread with its own work;
     * a GEMV's few outputs cost K multiply-adds each, so the work is what pays */
    const bool split = wgc_threaded(e) && wgc_split_pays(e, (p.N + 3) / 4, p.M * p.N * p.K);
    char fields[2048];
    snprintf(fields, sizeof fields,
             ".M = %s, .N = %lld, .K = %lld, .bits = %lld, .blk = %lld,\n"
             "    .a = %s, .lda = %lld, .b = %s, .scales = %s, .zp = %s, .zpf = %s, .bias = %s,\n"
             "    .c = %s, .ldc = %lld, .quant_a = %d, .work = %s",
             m, (long long)p.N, (long long)p.K, (long long)p.bits, (long long)p.blk, ptr[IN_A], (long long)p.K,
             ptr[IN_B], ptr[IN_SCALES], zp && !p.zp_float ? ptr[IN_ZP] : "0", zp && p.zp_float ? ptr[IN_ZP] : "0",
             ptr[IN_BIAS], wgc_ptr(e, g, n->outputs[0]), (long long)p.N, p.quant_a ? 1 : 0,
             work ? wgc_scratch(e) : "0");
    wgc_emit_args_call(e, WGC_KERNEL_QBW_GEMM, split, "wgk_f32_qbw_gemm", "wgk_qbw_args", fields, "");
    return WG_OK;
}

/* Y's dims are A's but the last (N): A's symbolic dims pass through; K is an attribute. */
static wg_status nbits_sym_infer(wgc_graph *g, wgc_node *n)
{
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    const wgc_tensor *a = wgc_in(g, n, IN_A);
    for (int i = 1; i < n->n_inputs; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (t && wgc_shape_is_sym(&t->shape))
            return wgc_sym_refuse(g, n, "a symbolic weight, scale, zero point or bias");
    }
    if (wgc_dim_is_sym(&a->shape, a->shape.rank - 1))
        return wgc_sym_refuse(g, n, "A's last dim is K, an attribute");
    for (int d = 0; d < a->shape.rank - 1; d++)
        memcpy(y.sym[d], a->shape.sym[d], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_matmul_nbits = {
    .infer = nbits_infer,
    .emit = nbits_emit,
    .scratch = nbits_scratch,
    .sym = {.infer = nbits_sym_infer, .emit = nbits_emit},
};
