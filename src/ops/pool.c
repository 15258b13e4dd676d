/*
 * pool.c: MaxPool and AveragePool, 2-D NCHW float32: kernel_shape, strides, pads,
 * auto_pad, ceil_mode, dilations (MaxPool), count_include_pad (AveragePool).
 * MaxPool's Indices output is not supported.
 */
#include "epilogue.h"
#include "lower.h"
#include "window.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

static wg_status resolve(wgc_graph *g, const wgc_node *n, wgc_window *w)
{
    const bool is_max = n->op == WGC_OP_MAX_POOL;
    wg_status st = wgc_check_arity(g, n, 1, 1, 1, is_max ? 2 : 1);
    if (!st)
        st = wgc_check_input(g, n, 0, f32_only);
    if (st)
        return st;
    if (is_max && n->n_outputs > 1 && n->outputs[1] >= 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "MaxPool's Indices output is not supported");
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->shape.rank != 4)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "%s with %d-D input is not supported (only 2-D, NCHW)",
                         n->op_type, x->shape.rank - 2);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    if ((st = wgc_window_resolve(g, n, &x->shape.dims[2], 2, NULL, true, w)))
        return st;
    if (!is_max && (w->d[0] != 1 || w->d[1] != 1))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "AveragePool with dilations is not supported");
    return WG_OK;
}

static wg_status pool_infer(wgc_graph *g, wgc_node *n)
{
    wgc_window w;
    wg_status st = resolve(g, n, &w);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y = {.rank = 4, .dims = {x->shape.dims[0], x->shape.dims[1], w.out[0], w.out[1]}};
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

static wg_status pool_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_window w;
    wg_status st = resolve(g, n, &w);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_emit(e,
             "%s(&(const wgk_pool2d_args){.NC = %lld, .H = %lld, .W = %lld, .OH = %lld, .OW = %lld, "
             ".KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, .DH = %lld, .DW = %lld, .PT = %lld, "
             ".PL = %lld, .PB = %lld, .PR = %lld, .count_include_pad = %d, .x = %s, .y = %s});\n",
             n->op == WGC_OP_MAX_POOL ? "wgk_f32_maxpool2d" : "wgk_f32_avgpool2d",
             (long long)(x->shape.dims[0] * x->shape.dims[1]), (long long)x->shape.dims[2],
             (long long)x->shape.dims[3], (long long)w.out[0], (long long)w.out[1], (long long)w.k[0],
             (long long)w.k[1], (long long)w.s[0], (long long)w.s[1], (long long)w.d[0],
             (long long)w.d[1], (long long)w.pb[0], (long long)w.pb[1], (long long)w.pe[0],
             (long long)w.pe[1], wgc_attr_int(n, "count_include_pad", 0) != 0,
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_pool = {pool_infer, NULL, pool_emit, NULL};
