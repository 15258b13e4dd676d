/* expand_tile_runtime.c: Expand and Tile with sizes decided in the module (expand_tile_runtime.h). */
#include "expand_tile_runtime.h"

#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/emit_and_fold.h"
#include "helpers/index_loops.h"

bool wgc_expand_tile_is_runtime(const wgc_graph *g, const wgc_node *n)
{
    if ((n->op != WGC_OP_EXPAND && n->op != WGC_OP_TILE) || n->n_inputs < 2 || n->inputs[1] < 0)
        return false;
    const wgc_tensor *p = &g->tensors[n->inputs[1]];
    return !p->data || (n->op == WGC_OP_TILE && p->symval);
}

/* The parameter (shape or repeats): an int64 vector of a fixed length. */
static wg_status check_param(wgc_graph *g, const wgc_node *n, const wgc_tensor *p)
{
    const int rank = wgc_in(g, n, 0)->shape.rank;
    if (p->dtype != WG_DT_INT64 || p->shape.rank != 1 || wgc_shape_is_sym(&p->shape))
        return wgc_error(g, n, WG_ERR_INVALID, "%s input '%s' must be a 1-D int64 tensor of a fixed length",
                         n->op == WGC_OP_EXPAND ? "shape" : "repeats", p->name);
    if (n->op == WGC_OP_TILE && p->shape.dims[0] != rank)
        return wgc_error(g, n, WG_ERR_INVALID, "repeats has %lld values for rank %d", (long long)p->shape.dims[0], rank);
    if (n->op == WGC_OP_EXPAND && p->shape.dims[0] > WG_MAX_RANK)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "rank %lld", (long long)p->shape.dims[0]);
    return WG_OK;
}

/* Output dim d's input dim (-1: none, Expand adding a leading dim). */
static int x_dim(const wgc_node *n, int out_rank, int x_rank, int d)
{
    return n->op == WGC_OP_TILE ? d : d - (out_rank - x_rank);
}

/* Does output dim d keep x's size? Expand: a fixed input dim other than 1, and a symbolic
 * one (the value must then be 1 or its size: a symbolic dim of size 1 is not broadcast to
 * a larger value, the run stops with WGK_ERR_INDEX instead). */
static bool dim_fixed(const wgc_node *n, const wgc_shape *x, int xd)
{
    return n->op == WGC_OP_EXPAND && xd >= 0 && (wgc_dim_is_sym(x, xd) || x->dims[xd] != 1);
}

/* Sizes are kept below 2^31 at their bounds (int32 in the module) */
#define SIZE_LIMIT ((int64_t)1 << 31)

wg_status wgc_expand_tile_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *p = wgc_in(g, n, 1);
    wg_status st = check_param(g, n, p);
    if (st)
        return st;
    const int count = (int)p->shape.dims[0];
    const int r = n->op == WGC_OP_TILE || count < x->shape.rank ? x->shape.rank : count;
    memset(y, 0, sizeof *y);
    y->rank = r;
    for (int d = 0; d < r; d++) {
        const int xd = x_dim(n, r, x->shape.rank, d), k = n->op == WGC_OP_TILE ? d : d - (r - count);
        const int64_t xmax = xd >= 0 ? x->shape.dims[xd] : 1;
        if (k < 0) { /* Expand: a dim of x's the shape does not reach keeps its size */
            memcpy(y->sym[d], x->shape.sym[xd], WGC_MAX_SYMS);
            y->dims[d] = xmax;
            continue;
        }
        wgc_vrange v;
        if (!wgc_vrange_at(g, p, k, &v))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "%s input '%s' is computed at run time and nothing bounds its values, which decide "
                             "the size of output dim %d", n->op == WGC_OP_EXPAND ? "shape" : "repeats", p->name, d);
        if (dim_fixed(n, &x->shape, xd)) {
            memcpy(y->sym[d], x->shape.sym[xd], WGC_MAX_SYMS);
            y->dims[d] = xmax; /* the value must be 1 or x's size: checked in the module */
            continue;
        }
        int64_t hi = v.hi < 0 ? 0 : v.hi, bound;
        if (n->op == WGC_OP_EXPAND)
            bound = hi > xmax ? hi : xmax;
        else if (__builtin_mul_overflow(hi, xmax, &bound))
            bound = SIZE_LIMIT;
        if (bound >= SIZE_LIMIT)
            return wgc_error(g, n, WG_ERR_LIMIT, "output dim %d may reach %lld, past 2^31", d, (long long)bound);
        int sym;
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], d, bound, &sym)))
            return st;
        wgc_shape_set_runtime(y, d, sym, bound);
    }
    return WG_OK;
}

/* Per output dim: the value, checked; the size, checked against its bound, into yd and
 * wg_dims; x's size and stride at run time. Expand is then one strided copy (stride 0
 * where x broadcasts); Tile reads each element's source by the coordinates modulo x's. */
wg_status wgc_expand_tile_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *p = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    wg_status st = check_param(g, n, p);
    if (!st)
        st = wgc_check_i32_numel(g, n, y);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    const int r = y->shape.rank, count = (int)p->shape.dims[0], cap = r ? r : 1;
    wgc_emit(e, "{\nint32_t yd[%d], xd[%d], xs[%d];\n", cap, cap, cap);
    for (int d = 0; d < r; d++) {
        const int xd = x_dim(n, r, x->shape.rank, d), k = n->op == WGC_OP_TILE ? d : d - (r - count);
        char vb[160];
        wgc_emit(e, "{\nconst int64_t xdim = %s, v = %s;\nint64_t len;\n",
                 xd >= 0 ? wgc_dims_expr(e, &x->shape, xd, xd + 1) : "1",
                 k >= 0 ? wgc_int_elem_expr(e, g, n->inputs[1], k, vb, sizeof vb) : "1");
        if (n->op == WGC_OP_TILE)
            wgc_emit(e, "if (v < 0 || v > %lldLL)\n    return WGK_ERR_INDEX;\nlen = xdim * v;\n", (long long)SIZE_LIMIT);
        else if (dim_fixed(n, &x->shape, xd))
            wgc_emit(e, "if (v != 1 && v != xdim)\n    return WGK_ERR_INDEX;\nlen = xdim;\n");
        else /* x's dim is 1, or there is none */
            wgc_emit(e, "if (v < 0)\n    return WGK_ERR_INDEX;\nlen = v;\n");
        const int sym = wgc_shape_first_sym(&y->shape, d);
        if (k >= 0 && !dim_fixed(n, &x->shape, xd)) {
            wgc_emit(e, "if (len > %lldLL)\n    return WGK_ERR_SIZE_BOUND;\n", (long long)y->shape.dims[d]);
            if (sym >= 0)
                wgc_emit(e, "wg_dims[%d] = (int32_t)len;\n", sym);
        }
        wgc_emit(e, "yd[%d] = (int32_t)len; xd[%d] = (int32_t)xdim; xs[%d] = %s;\n}\n", d, d, d,
                 xd < 0 ? "0" : wgc_dims_expr(e, &x->shape, xd + 1, x->shape.rank));
    }
    const size_t es = wg_dtype_size(x->dtype);
    if (n->op == WGC_OP_EXPAND) {
        wgc_emit(e, "for (int d = 0; d < %d; d++)\n    if (xd[d] == 1)\n        xs[d] = 0;\n", r);
        wgc_emit(e, "wgk_copy_strided(%s, %s, %zu, %d, yd, xs);\n}\n", wgc_ptr(e, g, n->outputs[0]),
                 wgc_ptr(e, g, n->inputs[0]), es, cap);
        return WG_OK;
    }
    wgc_emit(e, "typedef %s TD;\nconst TD *px = (const TD *)%s;\nTD *py = (TD *)%s;\nint32_t total = 1;\n"
                "for (int d = 0; d < %d; d++)\n    total *= yd[d];\n"
                "for (int32_t o = 0; o < total; o++) {\n    int32_t rem = o, off = 0;\n"
                "    for (int d = %d; d >= 0; d--) {\n        const int32_t c = rem %% yd[d];\n"
                "        rem /= yd[d];\n        off += c %% xd[d] * xs[d];\n    }\n    py[o] = px[off];\n}\n}\n",
             wgc_loop_bits(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), r, r - 1);
    return WG_OK;
}
