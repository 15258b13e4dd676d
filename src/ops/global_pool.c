/* global_pool.c: GlobalAveragePool and GlobalMaxPool over NCHW... of any spatial rank >= 1. */
#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"
#include "sym.h"

#include <stdio.h>

static const int f32_only[] = {WG_DT_FLOAT, 0};

static wg_status gp_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_layout_input(g, n, f32_only, 3, "N x C x spatial...");
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    wgc_shape y = x->shape;
    for (int i = 2; i < y.rank; i++)
        y.dims[i] = 1;
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

/* Over symbolic dims too (ops/sym_window.c): the planes and their size read from wg_dims
 * at run time. */
static wg_status gp_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_no_residual(g, n);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int64_t outer = x->shape.dims[0] * x->shape.dims[1];
    if (outer == 0)
        return WG_OK;
    const int64_t inner = wgc_numel(&x->shape) / outer;
    if (inner == 0)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has an empty spatial extent", x->name);
    char so[96], si[96];
    snprintf(so, sizeof so, "%s", wgc_size_expr(e, &x->shape, 0, 2));
    snprintf(si, sizeof si, "%s", wgc_size_expr(e, &x->shape, 2, x->shape.rank));
    const char *kernel = n->op == WGC_OP_GLOBAL_MAX_POOL ? "wgk_f32_global_maxpool" : "wgk_f32_global_avgpool";
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    if (n->act == WGC_ACT_NONE && wgc_split_pays(e, outer, outer * inner)) {
        /* Threads: runs of whole planes, each reduced as on one thread. */
        wgc_emit(e, "{\n");
        wgc_emit_part_range_expr(e, so, 1);
        wgc_emit(e, "    if (lo < hi)\n        %s((const float *)%s + (size_t)lo * %s, (float *)%s + lo, hi - lo, %s);\n}\n",
                 kernel, px, si, py, si);
        return WG_OK;
    }
    wgc_emit(e, "%s(%s, %s, %s, %s);\n", kernel, px, py, so, si);
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_global_pool = {.infer = gp_infer, .emit = gp_emit, .sym = {.takes = wgc_sym_takes_planes}};
