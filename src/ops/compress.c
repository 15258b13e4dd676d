/*
 * compress.c: Compress(input, condition) along `axis` (or over the flattened input when
 * axis is absent). The output length is the number of true conditions: with a constant
 * condition the kept positions become a constant list in the generated loop; with a
 * run-time one the length is a run-time symbol bounded by min(condition length, axis)
 * (ir/symdim.h), which the code counts and writes into wg_dims before copying; the input
 * and condition may then be of symbolic or data-dependent size (compress_sym_infer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"
#include "../ir/symdim.h"
#include "sym.h"

/* outer/len/inner of the view along the axis (flattened: 1/numel/1). */
static wg_status view(wgc_graph *g, const wgc_node *n, int64_t *outer, int64_t *len, int64_t *inner)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    *outer = *inner = 1;
    if (!wgc_attr_find(n, "axis")) {
        *len = wgc_numel(&x->shape);
        return WG_OK;
    }
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, x->shape.rank, &axis);
    if (st)
        return st;
    *len = x->shape.dims[axis];
    for (int d = 0; d < x->shape.rank; d++)
        if (d < axis)
            *outer *= x->shape.dims[d];
        else if (d > axis)
            *inner *= x->shape.dims[d];
    return WG_OK;
}

/* Kept positions (condition true, within len; the reference ignores extra entries). */
static int64_t kept(const wgc_tensor *c, int64_t len, int64_t *pos)
{
    int64_t m = wgc_numel(&c->shape), k = 0;
    for (int64_t i = 0; i < m && i < len; i++)
        if (wgc_elem_get_i(c->data, c->dtype, i)) {
            if (pos)
                pos[k] = i;
            k++;
        }
    return k;
}

static wg_status compress_infer(wgc_graph *g, wgc_node *n)
{
    static const int bools[] = {WG_DT_BOOL, 0};
    wg_status st = wgc_check_data_input(g, n, 2, 2, wgc_gen_dtypes);
    if (!st)
        st = wgc_check_input(g, n, 1, bools);
    int64_t outer, len, inner;
    if (!st)
        st = view(g, n, &outer, &len, &inner);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *c = wgc_in(g, n, 1);
    if (c->shape.rank != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "condition must be 1-D");
    int64_t m = wgc_numel(&c->shape), bound = m < len ? m : len;
    int64_t k = c->data ? kept(c, len, NULL) : bound;
    int sym = -1, at = 0;
    if (!c->data && (st = wgc_sym_add_runtime(g, n, n->outputs[0], 0, bound, &sym)))
        return st;
    wgc_shape y = {.rank = 1, .dims = {k}};
    if (wgc_attr_find(n, "axis")) {
        wgc_norm_axis(wgc_attr_int(n, "axis", 0), x->shape.rank, &at);
        y = x->shape;
        y.dims[at] = k;
    }
    if (!c->data)
        wgc_shape_set_runtime(&y, at, sym, bound);
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

/* A run-time condition: count the kept positions (the first min(m, len) entries), write
 * the count into wg_dims, then copy those slices densely at that count. Sizes are C
 * expressions: an input of symbolic or data-dependent dims runs at its actual sizes. */
static wg_status emit_runtime(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *c = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    int sym = wgc_shape_first_sym(&y->shape, 0), axis = -1, r = x->shape.rank; /* flattened: dim 0 */
    if (wgc_attr_find(n, "axis")) {
        wgc_norm_axis(wgc_attr_int(n, "axis", 0), r, &axis);
        sym = wgc_shape_first_sym(&y->shape, axis);
    }
    char co[96], cl[96], ci[96];
    snprintf(co, sizeof co, "%s", axis < 0 ? "1" : wgc_dims_expr(e, &x->shape, 0, axis));
    snprintf(cl, sizeof cl, "%s", wgc_dims_expr(e, &x->shape, axis < 0 ? 0 : axis, axis < 0 ? r : axis + 1));
    snprintf(ci, sizeof ci, "%s", axis < 0 ? "1" : wgc_dims_expr(e, &x->shape, axis + 1, r));
    const char *ct = wgc_loop_bits(x->dtype);
    wgc_emit(e, "{\nconst uint8_t *pc = (const uint8_t *)%s;\n", wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e, "const %s *px = (const %s *)%s;\n", ct, ct, wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "%s *py = (%s *)%s;\nint32_t k = 0, o = 0;\n", ct, ct, wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "const int32_t OUTER = %s, LEN = %s, INNER = %s, M = %s, LIM = M < LEN ? M : LEN;\n", co, cl, ci,
             wgc_dims_expr(e, &c->shape, 0, 1));
    wgc_emit(e, "for (int32_t j = 0; j < LIM; j++)\n    k += pc[j] != 0;\n");
    if (sym >= 0)
        wgc_emit(e, "wg_dims[%d] = k;\n", sym);
    wgc_emit(e, "for (int32_t a = 0; a < OUTER; a++)\nfor (int32_t j = 0; j < LIM; j++)\n"
                "if (pc[j])\nfor (int32_t b = 0; b < INNER; b++)\npy[o++] = px[((size_t)a * LEN + j) * INNER + b];\n}\n");
    return WG_OK;
}

static wg_status compress_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *c = wgc_in(g, n, 1);
    int64_t outer, len, inner;
    wg_status st = wgc_emit_start(g, n, view(g, n, &outer, &len, &inner), x, NULL);
    if (st)
        return st;
    if (!c->data)
        return emit_runtime(e, g, n);
    int64_t k = kept(c, len, NULL);
    if (outer * inner * k == 0)
        return WG_OK;
    int64_t *pos = malloc(sizeof(int64_t) * (size_t)k);
    int32_t *p32 = malloc(sizeof(int32_t) * (size_t)k);
    const char *tab = NULL;
    if (!pos || !p32) {
        st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    kept(c, len, pos);
    for (int64_t i = 0; i < k; i++)
        p32[i] = (int32_t)pos[i];
    if ((st = wgc_weight(e, p32, sizeof(int32_t) * (size_t)k, &tab)))
        goto fail;
    const char *ct = wgc_loop_bits(x->dtype);
    wgc_emit(e, "{\nconst int32_t *keep = (const int32_t *)%s;\n", tab);
    wgc_emit(e, "const %s *px = (const %s *)%s;\n", ct, ct, wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "%s *py = (%s *)%s;\nint32_t o = 0;\n", ct, ct, wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "for (int32_t a = 0; a < %lld; a++)\nfor (int32_t j = 0; j < %lld; j++)\n"
                "for (int32_t b = 0; b < %lld; b++)\npy[o++] = px[(a * %lld + keep[j]) * %lld + b];\n}\n",
             (long long)outer, (long long)k, (long long)inner, (long long)len, (long long)inner);
fail:
    free(pos);
    free(p32);
    return st;
}

/* ---- symbolic dims (sym.h) ---- */

/* a run-time condition only (a constant one over a symbolic axis would keep positions
 * the axis may not have): the kept length is its own run-time symbol (compress_infer),
 * the other dims are x's */
static wg_status compress_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        return WG_OK;
    wg_status st;
    const wgc_tensor *c = wgc_in(g, n, 1);
    if (c->data || c->symval)
        return wgc_sym_refuse(g, n, "a constant condition");
    wgc_shape o = y0->shape;
    if (wgc_attr_find(n, "axis")) {
        int axis;
        if ((st = wgc_read_axis(g, n, 0, x->shape.rank, &axis)))
            return st;
        for (int d = 0; d < o.rank; d++)
            if (d != axis)
                memcpy(o.sym[d], x->shape.sym[d], WGC_MAX_SYMS);
    }
    return wgc_sym_set_out(g, n, 0, &o);
}

/* Its length decided at run time: its own emit hook reads its inputs' sizes at run time
 * itself (compress_sym_infer took the shapes), unless they hold symbolic values. */
static bool compress_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && !g->tensors[n->inputs[0]].symval &&
           (n->opset < 10 || !g->tensors[n->inputs[1]].symval);
}

const wgc_op_def wgc_op_compress = {
    .infer = compress_infer,
    .emit = compress_emit,
    .sym = {.infer = compress_sym_infer, .takes = compress_sym_takes},
};
