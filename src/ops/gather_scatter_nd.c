/*
 * gather_scatter_nd.c: GatherND (with batch_dims) and ScatterND (reductions none/add/mul/max/min), as
 * inline loops: each index tuple (the last dim of indices) addresses a slab of data that
 * is copied out (GatherND) or combined with a slab of updates (ScatterND, into a copy of
 * data, tuples in order). Negative indices count from the end; out of range makes wg_run
 * fail with WGK_ERR_INDEX.
 */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"
#include "helpers/sym_code.h"
#include "sym.h"

/* The geometry: b batch dims, m = tuple length, groups = index tuples per batch,
 * slab = elements addressed by one tuple. */
typedef struct geo {
    int b, m;
    int64_t batch, groups, slab, data_batch; /* data_batch: data elements per batch */
} geo;

static wg_status plan(wgc_graph *g, const wgc_node *n, geo *o, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    bool gather = n->op == WGC_OP_GATHER_ND;
    int r = x->shape.rank, q = ix->shape.rank;
    int64_t b = gather ? wgc_attr_int(n, "batch_dims", 0) : 0;
    if (q < 1 || r < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "data and indices need rank >= 1");
    if (b < 0 || b >= q || b >= r)
        return wgc_error(g, n, WG_ERR_INVALID, "batch_dims %lld for ranks %d and %d", (long long)b, r, q);
    int64_t m = ix->shape.dims[q - 1];
    if (m < 1 || m > r - b)
        return wgc_error(g, n, WG_ERR_INVALID, "index tuples of length %lld for data rank %d", (long long)m, r);
    memset(o, 0, sizeof *o);
    o->b = (int)b, o->m = (int)m;
    o->batch = 1, o->groups = 1, o->slab = 1, o->data_batch = 1;
    for (int d = 0; d < b; d++) {
        if (ix->shape.dims[d] != x->shape.dims[d])
            return wgc_error(g, n, WG_ERR_INVALID, "batch dim %d differs: %lld vs %lld", d,
                             (long long)ix->shape.dims[d], (long long)x->shape.dims[d]);
        o->batch *= x->shape.dims[d];
    }
    for (int d = (int)b; d < q - 1; d++)
        o->groups *= ix->shape.dims[d];
    for (int d = (int)(b + m); d < r; d++)
        o->slab *= x->shape.dims[d];
    for (int d = (int)b; d < r; d++)
        o->data_batch *= x->shape.dims[d];
    memset(y, 0, sizeof *y);
    if (gather) {
        for (int d = 0; d < q - 1; d++)
            y->dims[y->rank++] = ix->shape.dims[d];
        for (int d = (int)(b + m); d < r; d++) {
            if (y->rank >= WG_MAX_RANK)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output rank above %d", WG_MAX_RANK);
            y->dims[y->rank++] = x->shape.dims[d];
        }
    } else {
        *y = x->shape;
        const wgc_tensor *u = wgc_in(g, n, 2);
        /* updates: indices.shape[:-1] + data.shape[m:] (their symbolic dims too, which
         * the emit hook sees: scatter_sym_infer checked them) */
        wgc_shape want = {0};
        for (int d = 0; d < q - 1; d++) {
            memcpy(want.sym[want.rank], ix->shape.sym[d], WGC_MAX_SYMS);
            want.dims[want.rank++] = ix->shape.dims[d];
        }
        for (int d = (int)m; d < r && want.rank < WG_MAX_RANK; d++) {
            memcpy(want.sym[want.rank], x->shape.sym[d], WGC_MAX_SYMS);
            want.dims[want.rank++] = x->shape.dims[d];
        }
        char b1[128], b2[128];
        if (!wgc_shape_eq(&want, &u->shape) || u->dtype != x->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "updates %s %s, expected %s %s", wg_dtype_name(u->dtype),
                             wgc_shape_str(&u->shape, b1, sizeof b1), wg_dtype_name(x->dtype),
                             wgc_shape_str(&want, b2, sizeof b2));
    }
    return WG_OK;
}

static wg_status nd_infer(wgc_graph *g, wgc_node *n)
{
    static const int idx_types[] = {WG_DT_INT64, 0};
    bool gather = n->op == WGC_OP_GATHER_ND;
    wg_status st = wgc_check_gather_scatter_inputs(g, n, gather, idx_types);
    if (st)
        return st;
    if (!gather) {
        int red = wgc_scatter_reduction(n);
        if (red == WGC_SCATTER_BAD)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "reduction '%s'", wgc_attr_str(n, "reduction", ""));
        if (red != WGC_SCATTER_NONE && wgc_in(g, n, 0)->dtype == WG_DT_BOOL)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "reduction on bool data");
    }
    geo o;
    wgc_shape y;
    if ((st = plan(g, n, &o, &y)))
        return st;
    wgc_set_output(g, n, 0, wgc_in(g, n, 0)->dtype, &y);
    return WG_OK;
}

static wg_status nd_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    bool gather = n->op == WGC_OP_GATHER_ND;
    int red = gather ? WGC_SCATTER_NONE : wgc_scatter_reduction(n);
    geo o;
    wgc_shape y;
    wg_status st = plan(g, n, &o, &y);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (!st)
        st = wgc_check_i32_numel(g, n, wgc_out(g, n, 0));
    if (st)
        return st;
    if (!gather && wgc_shape_is_sym(&x->shape))
        (void)wgc_sym_emit_copy(e, g, n); /* data's actual elements */
    else if (!gather)
        wgc_emit_copy(e, g, n->inputs[0], n->outputs[0]);
    if (o.batch * o.groups * o.slab == 0)
        return WG_OK;
    /* Sizes as C expressions: with symbolic or run-time dims (nd_sym_infer) they are read
     * from wg_dims, so the loops run over the actual tuples and slabs. */
    char batch[96], groups[96], slab[96], data_batch[96];
    const int q = ix->shape.rank, r = x->shape.rank;
    snprintf(batch, sizeof batch, "%s", wgc_dims_expr(e, &x->shape, 0, o.b));
    snprintf(groups, sizeof groups, "%s", wgc_dims_expr(e, &ix->shape, o.b, q - 1));
    snprintf(slab, sizeof slab, "%s", wgc_dims_expr(e, &x->shape, o.b + o.m, r));
    snprintf(data_batch, sizeof data_batch, "%s", wgc_dims_expr(e, &x->shape, o.b, r));
    const char *ct = red == WGC_SCATTER_NONE ? wgc_loop_bits(x->dtype) : wgc_ctype(x->dtype);
    wgc_emit(e, "{\ntypedef %s TD;\nconst int64_t *pi = (const int64_t *)%s;\n", ct, wgc_ptr(e, g, n->inputs[1]));
    if (gather)
        wgc_emit(e, "const TD *px = (const TD *)%s;\nTD *py = (TD *)%s;\n", wgc_ptr(e, g, n->inputs[0]),
                 wgc_ptr(e, g, n->outputs[0]));
    else
        wgc_emit(e, "const TD *pu = (const TD *)%s;\nTD *py = (TD *)%s;\n", wgc_ptr(e, g, n->inputs[2]),
                 wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "const int32_t NB = %s, NG = %s, SLAB = %s, DB = %s;\n", batch, groups, slab, data_batch);
    wgc_emit(e, "for (int32_t bt = 0; bt < NB; bt++)\nfor (int32_t gr = 0; gr < NG; gr++) {\n");
    wgc_emit(e, "int32_t t = bt * NG + gr;\nconst int64_t *tup = pi + t * %d;\nint32_t off = bt * DB;\n", o.m);
    for (int j = 0; j < o.m; j++) {
        char dim[96];
        snprintf(dim, sizeof dim, "%s", wgc_dims_expr(e, &x->shape, o.b + j, o.b + j + 1));
        wgc_emit(e, "{ int64_t k = tup[%d]; if (k < 0) k += %s; if (k < 0 || k >= %s) return WGK_ERR_INDEX; "
                    "off += (int32_t)k * %s; }\n", j, dim, dim, wgc_dims_expr(e, &x->shape, o.b + j + 1, r));
    }
    if (gather) {
        wgc_emit(e, "for (int32_t s = 0; s < SLAB; s++) py[t * SLAB + s] = px[off + s];\n}\n}\n");
        return WG_OK;
    }
    wgc_emit(e, "for (int32_t s = 0; s < SLAB; s++) {\nTD *q = &py[off + s];\nTD u = pu[t * SLAB + s];\n");
    return wgc_emit_scatter_update(e, g, n, red, "}\n}\n}\n");
}

/* ---- symbolic dims (sym.h) ---- */

/* ScatterND over symbolic dims (the causal mask transformers' BART and Marian decoders fill
 * in place, `mask[..., :len] = mask[..., :len].masked_fill(...)`, written as a ScatterND
 * at an index grid of Ranges): y is data, symbolic dims included. The updates must be
 * indices' leading dims then data's past the tuple, the same symbols, not only the same
 * sizes at the maxima: the code reads one slab of updates per tuple (nd_emit, its sizes
 * read at run time). */
static wg_status scatter_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1), *u = wgc_in(g, n, 2);
    const int q = ix->shape.rank, r = x->shape.rank;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "an input holding symbolic values");
    if (q < 1 || wgc_dim_is_sym(&ix->shape, q - 1))
        return wgc_sym_refuse(g, n, "a symbolic index-tuple length");
    const int m = (int)ix->shape.dims[q - 1];
    if (u->shape.rank != q - 1 + r - m)
        return wgc_sym_refuse(g, n, NULL); /* (its infer hook refused such shapes) */
    for (int d = 0; d < u->shape.rank; d++) {
        const wgc_dimx want = d < q - 1 ? wgc_dimx_of(g, &ix->shape, d)
                                        : wgc_dimx_of(g, &x->shape, m + d - (q - 1));
        const wgc_dimx got = wgc_dimx_of(g, &u->shape, d);
        if (!wgc_dimx_eq(&want, &got))
            return wgc_sym_refuse(g, n, "updates whose dims are not indices' leading dims then "
                                        "data's at every size");
    }
    wgc_shape y = x->shape;
    return wgc_sym_set_out(g, n, 0, &y);
}

static wg_status nd_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    if (n->op == WGC_OP_SCATTER_ND)
        return scatter_sym_infer(g, n);
    if (n->op != WGC_OP_GATHER_ND)
        return wgc_sym_batch_refuse(g, n);
    /* indices [..., m] of symbolic or run-time leading dims over data whose sliced-off
     * dims may be symbolic too: y = indices' leading dims + data's dims past the tuple
     * (nd_emit reads the sizes at run time); fixed tuples and batch dims */
    const wgc_tensor *ix = wgc_in(g, n, 1);
    const int q = ix->shape.rank, b = (int)wgc_attr_int(n, "batch_dims", 0);
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "an input holding symbolic values");
    if (q < 1 || wgc_dim_is_sym(&ix->shape, q - 1))
        return wgc_sym_refuse(g, n, "a symbolic index-tuple length");
    for (int d = 0; d < b && d < q && d < x->shape.rank; d++)
        if (wgc_dim_is_sym(&ix->shape, d) || wgc_dim_is_sym(&x->shape, d))
            return wgc_sym_refuse(g, n, "symbolic batch dims");
    const int m = (int)ix->shape.dims[q - 1];
    int r = 0;
    for (int d = 0; d < q - 1; d++, r++)
        memcpy(y.sym[r], ix->shape.sym[d], WGC_MAX_SYMS);
    for (int d = b + m; d < x->shape.rank; d++, r++)
        memcpy(y.sym[r], x->shape.sym[d], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

/* GatherND and ScatterND: their own code, which reads its sizes at run time itself. */
static wg_status nd_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    return nd_emit(e, g, n);
}

const wgc_op_def wgc_op_gather_scatter_nd = {
    .infer = nd_infer,
    .emit = nd_emit,
    .sym = {.infer = nd_sym_infer, .emit = nd_sym_emit, .bounds = wgc_gather_scatter_bounds},
};
