/*
 * matmul.c: MatMul with numpy semantics, float32: 1-D operands (a vector A gains a leading
 * 1, a vector B a trailing 1, both removed from the result) and broadcast batch dims.
 * Every matrix product runs on the GEMM kernel; when B has no batch dims the batches of A
 * are stacked into one tall product. Otherwise the emitted code loops over per-batch
 * offsets computed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/fused_epilogue.h"
#include "helpers/gemm_call.h"
#include "helpers/pack_weight.h"
#include "sym.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

typedef struct mm_geom {
    int64_t M, N, K;
    wgc_shape a, b;     /* operands promoted to rank >= 2 */
    wgc_shape batch;    /* broadcast batch shape */
    wgc_shape y;        /* result shape (vector dims removed) */
} mm_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, mm_geom *q)
{
    wg_status st = wgc_check_arity(g, n, 2, 2, 1, 1);
    for (int i = 0; !st && i < 2; i++)
        st = wgc_check_input(g, n, i, f32_only);
    if (st)
        return st;
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1);
    if (a->shape.rank < 1 || b->shape.rank < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "MatMul of a scalar ('%s' rank %d, '%s' rank %d)",
                         a->name, a->shape.rank, b->name, b->shape.rank);
    q->a = a->shape;
    q->b = b->shape;
    if (q->a.rank == 1) {
        q->a.rank = 2;
        q->a.dims[1] = q->a.dims[0];
        q->a.dims[0] = 1;
    }
    if (q->b.rank == 1) {
        q->b.rank = 2;
        q->b.dims[1] = 1;
    }
    q->M = q->a.dims[q->a.rank - 2];
    q->K = q->a.dims[q->a.rank - 1];
    q->N = q->b.dims[q->b.rank - 1];
    if (q->b.dims[q->b.rank - 2] != q->K) {
        char sa[64], sb[64];
        return wgc_error(g, n, WG_ERR_INVALID, "inner dimensions differ: '%s' %s x '%s' %s", a->name,
                         wgc_shape_str(&a->shape, sa, sizeof sa), b->name,
                         wgc_shape_str(&b->shape, sb, sizeof sb));
    }
    wgc_shape ba = {.rank = q->a.rank - 2}, bb = {.rank = q->b.rank - 2};
    for (int i = 0; i < ba.rank; i++)
        ba.dims[i] = q->a.dims[i];
    for (int i = 0; i < bb.rank; i++)
        bb.dims[i] = q->b.dims[i];
    if (!wgc_broadcast(&ba, &bb, &q->batch)) {
        char sa[64], sb[64];
        return wgc_error(g, n, WG_ERR_INVALID, "batch dims of '%s' %s and '%s' %s do not broadcast",
                         a->name, wgc_shape_str(&a->shape, sa, sizeof sa), b->name,
                         wgc_shape_str(&b->shape, sb, sizeof sb));
    }
    q->y = q->batch;
    if (a->shape.rank > 1)
        q->y.dims[q->y.rank++] = q->M;
    if (b->shape.rank > 1)
        q->y.dims[q->y.rank++] = q->N;
    const int64_t lim = (int64_t)1 << 31;
    if (wgc_numel(&a->shape) >= lim || wgc_numel(&b->shape) >= lim || wgc_numel(&q->y) >= lim)
        return wgc_error(g, n, WG_ERR_LIMIT, "MatMul is too large for the 32-bit kernels");
    return WG_OK;
}

static wg_status mm_infer(wgc_graph *g, wgc_node *n)
{
    mm_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &q.y);
    return WG_OK;
}

/* The packed B of GEMM_PACK_RUN (src/select/select_gemm.c sized it). */
static size_t mm_scratch(const wgc_graph *g, const wgc_node *n)
{
    (void)g;
    return n->impl.kernel == WGC_KERNEL_GEMM_PACK_RUN ? n->impl.scratch : 0;
}

static wg_status mm_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    mm_geom q;
    int32_t *offs = NULL;
    char *list = NULL;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    if (!wgc_kernel_get(n->impl.kernel)) /* a compiler bug, not a model problem */
        return wgc_error(g, n, WG_ERR_INVALID, "no kernel was selected for this MatMul (src/select/ did not run)");
    const int64_t nb = wgc_numel(&q.batch);
    if (nb * q.M * q.N == 0)
        return WG_OK;
    char aexpr[160], bexpr[160], yexpr[160], rexpr[160];
    /* B's address is asked for only where B is read as it is: asking places a constant B
     * in the weights, and a packed constant B must not be stored twice. */
    const char *pa = wgc_ptr(e, g, n->inputs[0]);
    const char *py = wgc_ptr(e, g, n->outputs[0]);
    const char *pr = n->residual >= 0 ? wgc_ptr(e, g, n->residual) : NULL;
    wgc_gemm_call call = {
        .M = q.M, .N = q.N, .K = q.K, .a = aexpr, .a_panel = WGK_GEMM_MR * q.K, .a_k = 1,
        .a_m = q.K, .b = bexpr, .ldb = q.N, .c = yexpr, .ldc = q.N, .ldr = q.N,
        .alpha = 1.0f, .beta = 1.0f, .kernel = n->impl.kernel,
        .scratch = n->impl.kernel == WGC_KERNEL_GEMM_PACK_RUN ? wgc_scratch(e) : NULL,
    };
    wgc_act_range(n, &call.min, &call.max);
    /* A fused bias and GELU (fuse_matmul_epilogue.c) come with a constant 2-D B only,
     * which the packed-B kernel runs: anything else is a pass bug. */
    const bool gelu = n->act == WGC_ACT_GELU || n->act == WGC_ACT_GELU_TANH;
    if ((n->bias >= 0 || gelu) && !wgc_kernel_is_packed_b(n->impl.kernel))
        return wgc_error(g, n, WG_ERR_INVALID, "a fused bias or GELU needs the packed-B kernel (compiler bug)");
    call.act = n->act == WGC_ACT_GELU ? WGK_GEMM_ACT_GELU : n->act == WGC_ACT_GELU_TANH ? WGK_GEMM_ACT_GELU_TANH : 0;
    char biasexpr[160];
    if (n->bias >= 0) {
        snprintf(biasexpr, sizeof biasexpr, "%s", wgc_ptr(e, g, n->bias));
        call.bias = biasexpr;
        call.bias_m = 0;
        call.bias_n = 1;
    }
    if (q.b.rank == 2) {
        /* B is one matrix: A's batches are consecutive rows of one [nb*M, K] product. */
        call.M = nb * q.M;
        snprintf(aexpr, sizeof aexpr, "%s", pa);
        const wgc_tensor *b = wgc_in(g, n, 1);
        const wgc_pack layout = wgc_kernel_get(n->impl.kernel)->pack;
        if (layout == WGC_PACK_ONNX) {
            snprintf(bexpr, sizeof bexpr, "%s", wgc_ptr(e, g, n->inputs[1]));
        } else {
            /* Constant B [K][N] in the kernel's layout (GEMM_B: column panels, read in
             * order by wgk_f32_gemm_pb). */
            const wgc_pack_geom geo = {.K = (size_t)q.K, .N = (size_t)q.N, .sk = (size_t)q.N, .sn = 1};
            const char *w;
            if ((st = wgc_pack_weight(e, g, n, b, layout, &geo, &w)))
                return st;
            snprintf(bexpr, sizeof bexpr, "%s", w);
            call.bq_shared = layout == WGC_PACK_GEMM_B_Q8 && wgc_q8_panels_shared(b);
        }
        snprintf(yexpr, sizeof yexpr, "%s", py);
        if (pr) {
            snprintf(rexpr, sizeof rexpr, "%s", pr);
            call.res = rexpr;
        }
        wgc_emit_gemm(e, &call);
        return WG_OK;
    }
    /* Per-batch element offsets of A and B (broadcast), as two constant arrays. */
    offs = malloc(sizeof(int32_t) * 2 * (size_t)nb);
    list = malloc((size_t)nb * 2 * 24 + 64);
    if (!offs || !list) {
        st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    wgc_shape ba = {.rank = q.a.rank - 2}, bb = {.rank = q.b.rank - 2};
    for (int i = 0; i < ba.rank; i++)
        ba.dims[i] = q.a.dims[i];
    for (int i = 0; i < bb.rank; i++)
        bb.dims[i] = q.b.dims[i];
    int64_t idx[WG_MAX_RANK] = {0};
    for (int64_t i = 0; i < nb; i++) {
        offs[2 * i] = (int32_t)(wgc_bcast_offset(&ba, &q.batch, idx) * q.M * q.K);
        offs[2 * i + 1] = (int32_t)(wgc_bcast_offset(&bb, &q.batch, idx) * q.K * q.N);
        wgc_index_next(&q.batch, idx);
    }
    size_t len = 0;
    for (int64_t i = 0; i < 2 * nb; i++)
        len += (size_t)sprintf(list + len, "%s%d", i ? ", " : "", (int)offs[i]);
    wgc_emit(e, "{\n");
    wgc_emit(e, "    static const int32_t offs[] = {%s};\n", list);
    wgc_emit(e, "    for (int i = 0; i < %lld; i++)\n", (long long)nb);
    snprintf(aexpr, sizeof aexpr, "(const float *)%s + offs[2 * i]", pa);
    snprintf(bexpr, sizeof bexpr, "(const float *)%s + offs[2 * i + 1]", wgc_ptr(e, g, n->inputs[1]));
    snprintf(yexpr, sizeof yexpr, "(float *)%s + i * %lld", py, (long long)(q.M * q.N));
    if (pr) {
        snprintf(rexpr, sizeof rexpr, "(const float *)%s + i * %lld", pr, (long long)(q.M * q.N));
        call.res = rexpr;
    }
    wgc_emit_gemm(e, &call);
    wgc_emit(e, "}\n");
fail:
    free(offs);
    free(list);
    return st;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* Batch dims broadcast as numpy's (a symbolic one only against itself or 1), K of one
 * symbol in both operands: y's batch dims, then A's M and B's N. */
static wg_status mm_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    const wgc_tensor *b = wgc_in(g, n, 1);
    if (x->shape.rank < 2 || b->shape.rank < 2)
        return wgc_sym_refuse(g, n, "1-D operands");
    int ra = x->shape.rank, rb = b->shape.rank;
    wgc_shape ba = {.rank = ra - 2}, bb = {.rank = rb - 2}, bo;
    for (int d = 0; d < ra - 2; d++) {
        ba.dims[d] = x->shape.dims[d];
        memcpy(ba.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
    }
    for (int d = 0; d < rb - 2; d++) {
        bb.dims[d] = b->shape.dims[d];
        memcpy(bb.sym[d], b->shape.sym[d], WGC_MAX_SYMS);
    }
    if (!wgc_broadcast(&ba, &bb, &bo))
        return wgc_sym_refuse(g, n, "its batch dimensions broadcast a symbolic one");
    if (memcmp(x->shape.sym[ra - 1], b->shape.sym[rb - 2], WGC_MAX_SYMS))
        return wgc_sym_refuse(g, n, "the shared dimension K is symbolic in one operand only");
    if (rb > 2 && wgc_shape_is_sym(&bb) && ra != rb)
        return wgc_sym_refuse(g, n, "a symbolic batch of B");
    for (int d = 0; d < bo.rank; d++)
        memcpy(y.sym[d], bo.sym[d], WGC_MAX_SYMS);
    memcpy(y.sym[y.rank - 2], x->shape.sym[ra - 2], WGC_MAX_SYMS);
    memcpy(y.sym[y.rank - 1], b->shape.sym[rb - 1], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

/* The GEMM kernel the selection chose at the maxima, every size read at run time: one
 * product of A's batches stacked when B is 2-D, else a loop over batches that match. */
static wg_status mm_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    const wgc_kernel_info *k = wgc_kernel_get(n->impl.kernel);
    int ra = a->shape.rank, rb = b->shape.rank, ry = y->shape.rank;
    if (!k || a->dtype != WG_DT_FLOAT || n->act != WGC_ACT_NONE || n->residual >= 0 || n->bias >= 0 ||
        n->impl.kernel == WGC_KERNEL_GEMM_PACK_RUN)
        return wgc_sym_refuse(g, n, "a fused epilogue or an unselected kernel");
    char M[96], K[96], N[96], rows[96], panel[128];
    snprintf(K, sizeof K, "%s", wgc_dims_expr(e, &a->shape, ra - 1, ra));
    snprintf(N, sizeof N, "%s", wgc_dims_expr(e, &b->shape, rb - 1, rb));
    const char *pa = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    char bexpr[96], bfield[400];
    bool bq_shared = false;
    if (k->pack != WGC_PACK_ONNX) {
        if (rb != 2 || !b->data || wgc_shape_is_sym(&b->shape))
            return wgc_sym_refuse(g, n, "packed B needs a constant matrix");
        const size_t kk = (size_t)b->shape.dims[0], nn = (size_t)b->shape.dims[1];
        const wgc_pack_geom geo = {.K = kk, .N = nn, .sk = nn, .sn = 1};
        const char *w;
        wg_status st = wgc_pack_weight(e, g, n, b, k->pack, &geo, &w);
        if (st)
            return st;
        snprintf(bexpr, sizeof bexpr, "%s", w);
        bq_shared = k->pack == WGC_PACK_GEMM_B_Q8 && wgc_q8_panels_shared(b);
    } else {
        snprintf(bexpr, sizeof bexpr, "%s", wgc_ptr(e, g, n->inputs[1]));
    }
    snprintf(panel, sizeof panel, "%d * %s", WGK_GEMM_MR, K);
    if (rb == 2) {
        /* A's batches are consecutive rows of one [batch*M, K] product */
        snprintf(rows, sizeof rows, "%s", wgc_dims_expr(e, &a->shape, 0, ra - 1));
        char fields[2048];
        snprintf(fields, sizeof fields,
                 ".M = %s, .N = %s, .K = %s, .a = %s, .a_panel = %s, "
                 ".a_k = 1, .a_m = %s,\n    %s, .ldb = %s, .c = %s, .ldc = %s, .bias = 0, "
                 ".bias_m = 0, .bias_n = 0, .res = 0, .ldr = %s,\n    .alpha = 1.0f, .beta = 1.0f, "
                 ".min = -__builtin_inff(), .max = __builtin_inff()",
                 rows, N, K, pa, panel, K, wgc_gemm_b_field(n->impl.kernel, bexpr, bq_shared, bfield, sizeof bfield), N, py, N,
                 N);
        wgc_emit_gemm_fields(e, n->impl.kernel, fields, "");
        return WG_OK;
    }
    /* batched: A and B have the same batch dims (no broadcast) */
    if (ra != rb)
        return wgc_sym_refuse(g, n, "a batched MatMul whose operands' ranks differ");
    for (int d = 0; d < ra - 2; d++)
        if (a->shape.dims[d] != b->shape.dims[d] || memcmp(a->shape.sym[d], b->shape.sym[d], WGC_MAX_SYMS))
            return wgc_sym_refuse(g, n, "a batched MatMul that broadcasts");
    snprintf(M, sizeof M, "%s", wgc_dims_expr(e, &a->shape, ra - 2, ra - 1));
    wgc_emit(e, "{\nconst int32_t M = %s, N = %s, K = %s;\n", M, N, K);
    wgc_emit(e, "for (int32_t i = 0, nb = %s; i < nb; i++)\n", wgc_dims_expr(e, &y->shape, 0, ry - 2));
    char fields[2048];
    snprintf(fields, sizeof fields,
             ".M = M, .N = N, .K = K, .a = (const float *)%s + i * M * K, "
             ".a_panel = %d * K, .a_k = 1, .a_m = K,\n    .b = (const float *)%s + i * K * N, .ldb = N, "
             ".c = (float *)%s + i * M * N, .ldc = N, .bias = 0, .bias_m = 0, .bias_n = 0, .res = 0, "
             ".ldr = N,\n    .alpha = 1.0f, .beta = 1.0f, .min = -__builtin_inff(), .max = __builtin_inff()",
             pa, WGK_GEMM_MR, bexpr, py);
    wgc_emit_gemm_fields(e, n->impl.kernel, fields, "");
    wgc_emit(e, "}");
    return WG_OK;
}

const wgc_op_def wgc_op_matmul = {.infer = mm_infer, .emit = mm_emit, .scratch = mm_scratch,
                                  .sym = {.infer = mm_sym_infer, .emit = mm_sym_emit}};
