/*
 * softmax.c: Softmax, float32. Opset < 13: the input is seen as 2-D, flattened at `axis`
 * (default 1), and normalised over the second part; opset >= 13: normalised along the
 * one axis `axis` (default -1). Both become the kernel's [outer][n][inner] view.
 */
#include <stdio.h>

#include "../ir/symdim.h"
#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"
#include "helpers/read_axes.h"
#include "helpers/sym_code.h"
#include "sym.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

/* The [outer][n][inner] view of the input. Opset < 13 allows axis == rank (everything in
 * the outer part). */
static wg_status view(wgc_graph *g, const wgc_node *n, int64_t *outer, int64_t *len, int64_t *inner)
{
    bool legacy;
    const int64_t axis = wgc_softmax_axis(n, &legacy);
    return wgc_axis_view(g, n, &wgc_in(g, n, 0)->shape, axis, legacy, legacy, outer, len, inner);
}

static wg_status softmax_infer(wgc_graph *g, wgc_node *n)
{
    int64_t o, l, i;
    wg_status st = wgc_check_data_input(g, n, 1, 1, f32_only);
    if (!st)
        st = view(g, n, &o, &l, &i);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &x->shape);
    return WG_OK;
}

static wg_status softmax_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    int64_t outer, len, inner;
    wg_status st = wgc_no_residual(g, n);
    if (!st)
        st = view(g, n, &outer, &len, &inner);
    if (st)
        return st;
    if (outer * len * inner == 0)
        return WG_OK;
    if (wgc_split_pays(e, outer, outer * len * inner)) {
        /* Threads: runs of the outer rows (each computed as on one thread), then their
         * fused activation. */
        const long long row = (long long)(len * inner);
        const char *y = wgc_ptr(e, g, n->outputs[0]);
        wgc_emit(e, "{\n");
        wgc_emit_part_range(e, outer, 1);
        wgc_emit(e, "    wgk_f32_softmax((const float *)%s + (size_t)lo * %lld, (float *)%s + (size_t)lo * %lld, hi - lo, "
                    "%lld, %lld);\n", wgc_ptr(e, g, n->inputs[0]), row, y, row, (long long)len, (long long)inner);
        if (n->act == WGC_ACT_RELU)
            wgc_emit(e, "    wgk_f32_relu((float *)%s + (size_t)lo * %lld, (float *)%s + (size_t)lo * %lld, (size_t)(hi - lo) * %lld);\n",
                     y, row, y, row, row);
        else if (n->act != WGC_ACT_NONE)
            wgc_emit(e, "    wgk_f32_clip((float *)%s + (size_t)lo * %lld, (float *)%s + (size_t)lo * %lld, (size_t)(hi - lo) * %lld, %s, %s);\n",
                     y, row, y, row, row, wgc_float(e, n->act_min), wgc_float(e, n->act_max));
        wgc_emit(e, "}\n");
        return WG_OK;
    }
    wgc_emit(e, "wgk_f32_softmax(%s, %s, %lld, %lld, %lld);\n", wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]), (long long)outer, (long long)len, (long long)inner);
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* y has x's shape, symbolic dims included; the normalised axes are fixed (the kernels take
 * their length as a constant). (Softmax has one input and one output: its infer hook
 * checked that.) */
static wg_status softmax_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wg_status st;
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, NULL);
    int axis;
    if ((st = wgc_read_axis(g, n, wgc_softmax_axis_default(n), x->shape.rank, &axis)))
        return st;
    if (axis != x->shape.rank - 1 && n->opset >= 13)
        return wgc_sym_refuse(g, n, "only the last axis");
    /* before opset 13: the rows are dims [0, axis) flattened, each of dims [axis, rank),
     * of a length read at run time like the last axis's (softmax_sym_emit) */
    wgc_shape y = x->shape;
    return wgc_sym_set_out(g, n, 0, &y);
}

static wg_status softmax_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank;
    if (x->dtype != WG_DT_FLOAT || n->act != WGC_ACT_NONE)
        return wgc_sym_refuse(g, n, "a dtype other than float32");
    /* opset 13: over the last axis (softmax_sym_infer); before: over dims [axis, r) flattened */
    int axis = r - 1;
    if (n->opset < 13) {
        const int64_t a = wgc_attr_int(n, "axis", 1);
        axis = (int)(a < 0 ? a + r : a);
    }
    char rows[96], len[96];
    snprintf(rows, sizeof rows, "%s", wgc_dims_expr(e, &x->shape, 0, axis));
    snprintf(len, sizeof len, "%s", wgc_dims_expr(e, &x->shape, axis, r));
    if (wgc_sym_split_rows(e, x)) { /* threads: runs of rows, each as on one thread */
        wgc_emit(e, "{\n");
        wgc_emit_part_range_expr(e, rows, 1);
        wgc_emit(e, "wgk_f32_softmax((const float *)%s + (size_t)lo * %s, (float *)%s + (size_t)lo * %s, hi - lo, %s, 1);\n}\n",
                 wgc_ptr(e, g, n->inputs[0]), len, wgc_ptr(e, g, n->outputs[0]), len, len);
        return WG_OK;
    }
    wgc_emit(e, "wgk_f32_softmax(%s, %s, %s, %s, 1);\n", wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]), rows, len);
    return WG_OK;
}

const wgc_op_def wgc_op_softmax = {
    .infer = softmax_infer,
    .emit = softmax_emit,
    .sym = {.infer = softmax_sym_infer, .emit = softmax_sym_emit},
};
