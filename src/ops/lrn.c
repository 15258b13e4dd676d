/* lrn.c: LRN (local response normalisation across channels), float32, NC... input. */
#include <stdio.h>

#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"
#include "sym.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

static wg_status lrn_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_layout_input(g, n, f32_only, 2, "N x C x ...");
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!wgc_attr_find(n, "size"))
        return wgc_error(g, n, WG_ERR_INVALID, "attribute size is required");
    int64_t size = wgc_attr_int(n, "size", 0);
    if (size < 1 || size > (1 << 20))
        return wgc_error(g, n, WG_ERR_INVALID, "size = %lld, expected >= 1", (long long)size);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &x->shape);
    return WG_OK;
}

static wg_status lrn_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_no_residual(g, n);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int64_t N = x->shape.dims[0], C = x->shape.dims[1];
    if (N * C == 0)
        return WG_OK;
    /* over symbolic batch or spatial dims too (ops/sym_window.c): their sizes read at run time */
    char sn[96], sp[96];
    snprintf(sn, sizeof sn, "%s", wgc_size_expr(e, &x->shape, 0, 1));
    snprintf(sp, sizeof sp, "%s", wgc_size_expr(e, &x->shape, 2, x->shape.rank));
    wgc_emit(e, "wgk_f32_lrn(%s, %s, %s, %lld, %s, %lld, %s, %s, %s);\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), sn, (long long)C, sp,
             (long long)wgc_attr_int(n, "size", 1),
             wgc_float(e, wgc_attr_float(n, "alpha", 1e-4f)),
             wgc_float(e, wgc_attr_float(n, "beta", 0.75f)),
             wgc_float(e, wgc_attr_float(n, "bias", 1.0f)));
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_lrn = {.infer = lrn_infer, .emit = lrn_emit, .sym = {.takes = wgc_sym_takes_planes}};
