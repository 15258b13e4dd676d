/* gather.c: Gather along `axis`: data of any dtype, int32/int64 indices (negative ones count
 * from the end). Constant indices are range-checked at compile time. */
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/pack_weight.h"
#include "helpers/sym_code.h"
#include "sym.h"

static void gather_geometry(const wgc_shape *x, int axis, int64_t *outer, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++)
        *outer *= x->dims[d];
    for (int d = axis + 1; d < x->rank; d++)
        *inner *= x->dims[d];
}

static wg_status gather_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_two_inputs(g, n, wgc_numeric_dtypes, wgc_index_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    int axis;
    if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &axis)))
        return st;
    if (x->shape.rank - 1 + ix->shape.rank > WG_MAX_RANK)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output rank %d exceeds %d",
                         x->shape.rank - 1 + ix->shape.rank, WG_MAX_RANK);
    if ((st = wgc_check_const_indices(g, n, ix, axis, x->shape.dims[axis])))
        return st;
    wgc_shape y = {0};
    for (int d = 0; d < axis; d++)
        y.dims[y.rank++] = x->shape.dims[d];
    for (int d = 0; d < ix->shape.rank; d++)
        y.dims[y.rank++] = ix->shape.dims[d];
    for (int d = axis + 1; d < x->shape.rank; d++)
        y.dims[y.rank++] = x->shape.dims[d];
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

static wg_status gather_fold(wgc_graph *g, wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return WG_ERR_UNSUPPORTED;
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    wgc_tensor *y = wgc_out(g, n, 0);
    int axis;
    wgc_norm_axis(wgc_attr_int(n, "axis", 0), x->shape.rank, &axis);
    int64_t outer, inner, dim = x->shape.dims[axis], m = wgc_numel(&ix->shape);
    gather_geometry(&x->shape, axis, &outer, &inner);
    size_t slab = (size_t)inner * wg_dtype_size(x->dtype);
    char *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    char *p = data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < m; j++) {
            int64_t v = wgc_const_int(ix, j); /* range-checked by infer */
            if (v < 0)
                v += dim;
            memcpy(p, (const char *)x->data + (size_t)(o * dim + v) * slab, slab);
            p += slab;
        }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

/* A q8 file's tied embedding, whose lm_head keeps the table as one-byte panels
 * (wgc_q8_panels_of_table): the rows read from those (wgk_gather_q8_panels), so that the
 * module holds the bytes once; likewise a float32 or float16 file's (float32 panels, or
 * float16 ones: wgc_f32_panels_of_table). *done false when n is not such a Gather; pi and count: the
 * indices' address and count expressions. */
static wg_status gather_panels(wgc_emitter *e, wgc_graph *g, wgc_node *n, const char *pi, const char *count,
                               bool *done)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    *done = false;
    if (wgc_attr_int(n, "axis", 0) != 0 || !x->data)
        return WG_OK;
    bool halves = false;
    const int bq = wgc_q8_panels_of_table(g, n->inputs[0]);
    const int b = bq >= 0 ? bq : wgc_f32_panels_of_table(g, n->inputs[0], &halves);
    if (b < 0)
        return WG_OK;
    const size_t V = (size_t)x->shape.dims[0], H = (size_t)x->shape.dims[1];
    const wgc_pack_geom geo = {.K = H, .N = V, .sk = V, .sn = 1};
    const char *w;
    const wgc_pack layout = bq >= 0 ? WGC_PACK_GEMM_B_Q8 : halves ? WGC_PACK_GEMM_B_F16 : WGC_PACK_GEMM_B;
    const wg_status st = wgc_pack_weight(e, g, n, &g->tensors[b], layout, &geo, &w);
    if (st)
        return st;
    if (bq >= 0)
        wgc_emit(e, "{\nint status = wgk_gather_q8_panels(%s, (const int8_t *)%s, %d, %d, %s, %zu, (size_t)%s, %zu, "
                    "%zu);\nif (status) return status;\n}\n",
                 wgc_ptr(e, g, n->outputs[0]), w, x->dtype == WG_DT_INT8, wgc_q8_panels_shared(&g->tensors[b]), pi,
                 wg_dtype_size(ix->dtype), count, H, V);
    else
        wgc_emit(e, "{\nint status = wgk_gather_%s_panels(%s, (const %s *)%s, %s, %zu, (size_t)%s, %zu, %zu);\n"
                    "if (status) return status;\n}\n",
                 halves ? "f16" : "f32", wgc_ptr(e, g, n->outputs[0]), halves ? "uint16_t" : "float", w, pi,
                 wg_dtype_size(ix->dtype), count, H, V);
    *done = true;
    return WG_OK;
}

static wg_status gather_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    wgc_tensor *y = wgc_out(g, n, 0);
    if (wgc_numel(&y->shape) == 0)
        return WG_OK;
    int axis;
    wgc_norm_axis(wgc_attr_int(n, "axis", 0), x->shape.rank, &axis);
    int64_t outer, inner;
    gather_geometry(&x->shape, axis, &outer, &inner);
    char pi[96], count[32];
    bool done;
    snprintf(pi, sizeof pi, "%s", wgc_ptr(e, g, n->inputs[1]));
    snprintf(count, sizeof count, "%lld", (long long)wgc_numel(&ix->shape));
    wg_status st = gather_panels(e, g, n, pi, count, &done);
    if (st || done)
        return st;
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    wgc_emit(e, "if (wgk_gather(%s, %s, %s, %zu, %lld, %lld, %lld, %zu)) return WGK_ERR_INDEX;\n",
             py, px, pi, wg_dtype_size(ix->dtype), (long long)wgc_numel(&ix->shape),
             (long long)outer, (long long)x->shape.dims[axis],
             (size_t)inner * wg_dtype_size(x->dtype));
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

static wg_status gather_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    wg_status st;
    const wgc_tensor *ix = wgc_in(g, n, 1);
    int axis;
    if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &axis)))
        return st;
    /* along a symbolic axis too: the code checks the indices against its actual length */
    int r = 0;
    for (int d = 0; d < axis; d++, r++)
        memcpy(y.sym[r], x->shape.sym[d], WGC_MAX_SYMS);
    for (int d = 0; d < ix->shape.rank; d++, r++)
        memcpy(y.sym[r], ix->shape.sym[d], WGC_MAX_SYMS);
    for (int d = axis + 1; d < x->shape.rank; d++, r++)
        memcpy(y.sym[r], x->shape.sym[d], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

static wg_status gather_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status st = wgc_sym_int_values_only(g, n);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_tensor *b = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    if (x->shape.rank != 1)
        return wgc_sym_refuse(g, n, NULL);
    int64_t dim = x->shape.dims[0];
    for (int64_t i = 0; i < count; i++) {
        int64_t j = wgc_const_int(b, i);
        if (b->symval)
            return wgc_sym_refuse(g, n, "symbolic indices");
        v[i] = wgc_symval_at(x, j < 0 ? j + dim : j);
    }
    return WG_OK;
}

static wg_status gather_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, x->shape.rank, &axis);
    if (st)
        return st;
    /* symbolic indices (x[:, seq - 1]) are written at their actual values first */
    wgc_emit(e, "{\n");
    char pi[96], count[160];
    bool done;
    snprintf(pi, sizeof pi, "%s", wgc_sym_operand(e, g, n, 1));
    snprintf(count, sizeof count, "%s", wgc_sym_numel(e, ix));
    if ((st = gather_panels(e, g, n, pi, count, &done)) || done) {
        wgc_emit(e, "}\n");
        return st;
    }
    wgc_emit(e, "int status = wgk_gather(%s, %s, %s, %zu, (size_t)%s, (size_t)%s, %s, (size_t)%s * %zu);\n"
                "if (status) return status;\n}\n",
             wgc_ptr(e, g, n->outputs[0]), wgc_ptr(e, g, n->inputs[0]), pi,
             wg_dtype_size(ix->dtype), wgc_sym_numel(e, ix), wgc_dims_expr(e, &x->shape, 0, axis),
             wgc_dims_expr(e, &x->shape, axis, axis + 1), wgc_dims_expr(e, &x->shape, axis + 1, x->shape.rank),
             wg_dtype_size(x->dtype));
    return WG_OK;
}

/* Bounds of integer values computed at run time (ir/valrange.h): of a 1-D input by
 * constant indices, each element's own where y keeps one per element; else any of input
 * 0's values. */
static bool gather_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                              wgc_vrange *out, int64_t count)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    if (count > 1 && x->shape.rank == 1 && ix && ix->data && !ix->symval &&
        !wgc_shape_is_sym(&x->shape)) {
        for (int64_t i = 0; i < count; i++) {
            int64_t j = wgc_const_int(ix, i);
            j = j < 0 ? j + x->shape.dims[0] : j;
            if (j < 0 || j >= x->shape.dims[0] || !wgc_vrange_at(g, x, j, &out[i]))
                return false;
        }
        return true;
    }
    return wgc_vrange_of_input0(g, n, y, out, count);
}

const wgc_op_def wgc_op_gather = {
    .infer = gather_infer,
    .fold = gather_fold,
    .emit = gather_emit,
    .sym = {.infer = gather_sym_infer,
            .emit = gather_sym_emit,
            .foldable = wgc_sym_passes_values,
            .values = gather_sym_values,
            .bounds = gather_sym_bounds},
};
