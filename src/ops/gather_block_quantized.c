/*
 * gather_block_quantized.c: onnxruntime's GatherBlockQuantized (com.microsoft, version 1):
 * Gather along axis 0 of a table quantized block-wise along its last axis, each gathered
 * element dequantized, (q - zero_point) * scale (kernels/include/wgk_qweight.h,
 * wgk_f32_qbw_gather). The quantized embeddings of decoders: the genai builder's tied
 * embedding (uint8, two 4-bit values per byte, gathering from the lm_head's MatMulNBits
 * weights; both placed once, helpers/qweight.h) and onnxruntime's quantizer's (int4).
 *
 * data: uint8 (bits 4: packed, the last dim half the values'; or bits 8) or int4 / uint4
 * (bits 4; stored here two per byte, each sub-row from a byte of its own); indices int32 /
 * int64 of any shape, computed at run time or not (out of range gives zeros, as onnxruntime
 * does); scales float32 (float16 models compute in float32), data's shape with the last dim
 * ceil(values / block_size); zero_points of data's type (uint8: packed as data), default
 * 2^(bits-1) for uint8, 0 for int4 / uint4. Output: indices' dims, then data's after the
 * first (the last one counting values).
 *
 * Taken: gather_axis 0 and quantize_axis the last (the only ones onnxruntime takes for
 * uint8 data; what embeddings use). Refused: other axes, bits 2, the FP8 / FP4 data types,
 * a table computed at run time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_qweight.h"
#include "../ir/symdim.h"
#include "helpers/qweight.h"
#include "sym.h"

enum { IN_DATA, IN_IDX, IN_SCALES, IN_ZP };

typedef struct gbq_plan {
    int64_t bits, blk, rows, subrows, len, nblk;
    bool sign, packed_in_ir; /* int4 data; data as one value per byte (int4 / uint4) */
    wgc_shape y;
} gbq_plan;

static wg_status plan(wgc_graph *g, const wgc_node *n, gbq_plan *p)
{
    static const char *const names[] = {"bits", "block_size", "gather_axis", "quantize_axis", NULL};
    static const int datas[] = {WG_DT_UINT8, WG_DT_INT4, WG_DT_UINT4, 0}, f32[] = {WG_DT_FLOAT, 0};
    memset(p, 0, sizeof *p);
    wg_status st = wgc_check_attr_names(g, n, names);
    if (!st)
        st = wgc_check_arity(g, n, 3, 4, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, IN_DATA, datas);
    if (!st)
        st = wgc_check_input(g, n, IN_IDX, wgc_index_dtypes);
    if (!st)
        st = wgc_check_input(g, n, IN_SCALES, f32);
    if (st)
        return st;
    const wgc_tensor *d = wgc_in(g, n, IN_DATA), *ix = wgc_in(g, n, IN_IDX), *s = wgc_in(g, n, IN_SCALES);
    const wgc_tensor *z = wgc_in(g, n, IN_ZP);
    const int r = d->shape.rank;
    char sd[128], ss[128];
    p->bits = wgc_attr_int(n, "bits", 4);
    p->blk = wgc_attr_int(n, "block_size", 128);
    int64_t ga = wgc_attr_int(n, "gather_axis", 0), qa = wgc_attr_int(n, "quantize_axis", 1);
    ga = ga < 0 ? ga + r : ga;
    qa = qa < 0 ? qa + r : qa;
    p->packed_in_ir = d->dtype != WG_DT_UINT8;
    p->sign = d->dtype == WG_DT_INT4;
    if (p->blk < 16 || (p->blk & (p->blk - 1)))
        return wgc_error(g, n, WG_ERR_INVALID, "block_size = %lld: must be a power of two, 16 or more",
                         (long long)p->blk);
    if (p->packed_in_ir && p->bits != 4)
        return wgc_error(g, n, WG_ERR_INVALID, "bits = %lld: %s data is 4 bits", (long long)p->bits,
                         wg_dtype_name(d->dtype));
    if (!p->packed_in_ir && p->bits != 4 && p->bits != 8)
        return wgc_error(g, n, p->bits == 2 ? WG_ERR_UNSUPPORTED : WG_ERR_INVALID,
                         "bits = %lld: wasmgraph takes 4 and 8 for uint8 data", (long long)p->bits);
    if (r < 2 || ga != 0 || qa != r - 1)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "gather_axis %lld and quantize_axis %lld of data '%s' %s: wasmgraph takes gather_axis 0 "
                         "and quantize_axis the last, of a table of rank 2 or more",
                         (long long)ga, (long long)qa, d->name, wgc_shape_str(&d->shape, sd, sizeof sd));
    if (!d->data || !s->data || (z && !z->data))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a quantized table, scales or zero points computed at run "
                         "time (wasmgraph takes constants)");
    p->rows = d->shape.dims[0];
    p->subrows = 1;
    for (int i = 1; i < r - 1; i++)
        p->subrows *= d->shape.dims[i];
    p->len = d->shape.dims[r - 1] * (p->bits == 4 && !p->packed_in_ir ? 2 : 1);
    p->nblk = (p->len + p->blk - 1) / p->blk;
    bool ok = s->shape.rank == r;
    for (int i = 0; ok && i < r; i++)
        ok = s->shape.dims[i] == (i == r - 1 ? p->nblk : d->shape.dims[i]);
    if (!ok)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "scales '%s' is %s: data '%s' %s with block_size %lld takes its shape with the last "
                         "dim %lld", s->name, wgc_shape_str(&s->shape, ss, sizeof ss), d->name,
                         wgc_shape_str(&d->shape, sd, sizeof sd), (long long)p->blk, (long long)p->nblk);
    if (z) {
        const int64_t zl = p->bits == 4 && !p->packed_in_ir ? (p->nblk + 1) / 2 : p->nblk;
        ok = z->dtype == d->dtype && z->shape.rank == r;
        for (int i = 0; ok && i < r; i++)
            ok = z->shape.dims[i] == (i == r - 1 ? zl : d->shape.dims[i]);
        if (!ok)
            return wgc_error(g, n, WG_ERR_INVALID, "zero_points '%s' is %s %s: data's type and scales' shape with "
                             "the last dim %lld", z->name, wg_dtype_name(z->dtype),
                             wgc_shape_str(&z->shape, ss, sizeof ss), (long long)zl);
    }
    if (ix->shape.rank + r - 1 > WG_MAX_RANK)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "the output's rank passes %d", WG_MAX_RANK);
    p->y.rank = 0;
    for (int i = 0; i < ix->shape.rank; i++)
        p->y.dims[p->y.rank++] = ix->shape.dims[i];
    for (int i = 1; i < r; i++)
        p->y.dims[p->y.rank++] = i == r - 1 ? p->len : d->shape.dims[i];
    const int64_t lim = (int64_t)1 << 31;
    if (wgc_numel(&p->y) >= lim || p->rows * p->subrows * p->len >= lim || wgc_numel(&ix->shape) >= lim)
        return wgc_error(g, n, WG_ERR_LIMIT, "GatherBlockQuantized is too large for the 32-bit kernels");
    return WG_OK;
}

static wg_status gbq_infer(wgc_graph *g, wgc_node *n)
{
    gbq_plan p;
    wg_status st = plan(g, n, &p);
    if (!st)
        wgc_set_output(g, n, 0, WG_DT_FLOAT, &p.y);
    return st;
}

/* int4 / uint4 values (one per byte here) packed two per byte, low first, each run of len
 * values (count runs) from a byte of its own: the layout the kernel reads, the file's size. */
static uint8_t *pack_nibbles(const uint8_t *v, int64_t count, int64_t len, size_t *bytes)
{
    const int64_t per = (len + 1) / 2;
    *bytes = (size_t)(count * per);
    uint8_t *out = calloc(*bytes ? *bytes : 1, 1);
    if (out)
        for (int64_t r = 0; r < count; r++)
            for (int64_t k = 0; k < len; k++)
                out[r * per + k / 2] |= (uint8_t)((v[r * len + k] & 15) << (k & 1 ? 4 : 0));
    return out;
}

/* The address of constant t as the kernel reads it: int4 / uint4 packed, count runs of len. */
static wg_status table_ptr(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int t, bool packed_in_ir,
                           int64_t count, int64_t len, char *out, size_t cap)
{
    if (!packed_in_ir) {
        snprintf(out, cap, "%s", wgc_ptr(e, g, wgc_qweight_canonical(g, t)));
        return WG_OK;
    }
    size_t bytes;
    uint8_t *buf = pack_nibbles(g->tensors[t].data, count, len, &bytes);
    const char *w;
    wg_status st = buf ? wgc_weight(e, buf, bytes, &w) : WG_ERR_NOMEM;
    free(buf);
    if (st)
        return wgc_error(g, n, st, "out of memory packing '%s'", g->tensors[t].name);
    snprintf(out, cap, "%s", w);
    return WG_OK;
}

/* One call of the kernel; the index count printed by wgc_size_expr, so this serves symbolic
 * indices too. */
static wg_status gbq_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    gbq_plan p;
    wg_status st = plan(g, n, &p);
    if (st)
        return st;
    const wgc_tensor *ix = wgc_in(g, n, IN_IDX), *z = wgc_in(g, n, IN_ZP);
    char data[128], zp[128] = "0";
    const int64_t sub = p.rows * p.subrows;
    if ((st = table_ptr(e, g, n, n->inputs[IN_DATA], p.packed_in_ir, sub, p.len, data, sizeof data)))
        return st;
    if (z && (st = table_ptr(e, g, n, n->inputs[IN_ZP], p.packed_in_ir, sub, p.nblk, zp, sizeof zp)))
        return st;
    char count[128], scales[128];
    if ((st = wgc_qweight_scales(e, g, n, n->inputs[IN_SCALES], scales, sizeof scales)))
        return st;
    snprintf(count, sizeof count, "%s", wgc_size_expr(e, &ix->shape, 0, ix->shape.rank));
    wgc_emit(e, "wgk_f32_qbw_gather(&(const wgk_qbw_gather_args){.data = %s, .rows = %lld, .subrows = %lld, "
                ".len = %lld,\n", data, (long long)p.rows, (long long)p.subrows, (long long)p.len);
    wgc_emit(e, "    .bits = %lld, .blk = %lld, .sign = %d, .scales = %s, .zp = %s, .zdefault = %d,\n",
             (long long)p.bits, (long long)p.blk, p.sign ? 1 : 0, scales, zp,
             p.packed_in_ir ? 0 : 1 << (p.bits - 1));
    wgc_emit(e, "    .indices = %s, .index64 = %d, .count = %s, .out = %s});\n", wgc_ptr(e, g, n->inputs[IN_IDX]),
             ix->dtype == WG_DT_INT64 ? 1 : 0, count, wgc_ptr(e, g, n->outputs[0]));
    return WG_OK;
}

/* The output's dims: the indices' (symbolic or not), then the table's. */
static wg_status gbq_sym_infer(wgc_graph *g, wgc_node *n)
{
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    const wgc_tensor *ix = wgc_in(g, n, IN_IDX);
    for (int i = 0; i < n->n_inputs; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (i != IN_IDX && t && wgc_shape_is_sym(&t->shape))
            return wgc_sym_refuse(g, n, "a symbolic table, scales or zero points");
    }
    if (ix->symval)
        return wgc_sym_refuse(g, n, "indices of symbolic values");
    for (int d = 0; d < ix->shape.rank; d++)
        memcpy(y.sym[d], ix->shape.sym[d], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_gather_block_quantized = {
    .infer = gbq_infer,
    .emit = gbq_emit,
    .sym = {.infer = gbq_sym_infer, .emit = gbq_emit},
};
