/* lrn.c: LRN (local response normalisation across channels), float32, NC... input. */
#include <stdio.h>

#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

static wg_status lrn_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, f32_only);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->shape.rank < 2)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has rank %d, expected N x C x ...",
                         x->name, x->shape.rank);
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

/* Per sample (WGC_PER_SAMPLE) always; per pixel over symbolic spatial dims (WGC_WINDOW)
 * of rank 3 or more. */
static bool lrn_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t == WGC_PER_SAMPLE)
        return true;
    if (t != WGC_WINDOW)
        return false;
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    return rank >= 3;
}

const wgc_op_def wgc_op_lrn = {.infer = lrn_infer, .emit = lrn_emit, .sym = {.takes = lrn_sym_takes}};
