/*
 * pool.c: MaxPool and AveragePool, 1-D, 2-D and 3-D, NC[D][H]W float32: kernel_shape,
 * strides, pads, auto_pad, ceil_mode, dilations, count_include_pad (AveragePool),
 * storage_order and the int64 Indices output (MaxPool).
 * 1-D and 2-D pools without Indices run on the 2-D kernels (1-D as H = 1); 3-D pools
 * and MaxPool with Indices on the N-D kernels (wgk_poolnd.h).
 */
#include "../../kernels/include/wgk_poolnd.h"
#include "../ir/symdim.h"
#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sliding_window.h"

#include <stdio.h>

static const int f32_only[] = {WG_DT_FLOAT, 0};

static bool has_indices(const wgc_node *n)
{
    return n->op == WGC_OP_MAX_POOL && n->n_outputs > 1 && n->outputs[1] >= 0;
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, wgc_window *w)
{
    const bool is_max = n->op == WGC_OP_MAX_POOL;
    wg_status st = wgc_check_present_inputs(g, n, 1, 1, is_max ? 2 : 1, f32_only);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int sr = x->shape.rank - 2;
    if (sr < 1 || sr > 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "%s with a rank-%d input is not supported (only 1-D, 2-D and 3-D)",
                         n->op_type, x->shape.rank);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    if ((st = wgc_window_resolve(g, n, &x->shape.dims[2], sr, NULL, true, w)))
        return st;
    int64_t so = wgc_attr_int(n, "storage_order", 0);
    if (is_max && so != 0 && so != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "storage_order = %lld (must be 0 or 1)", (long long)so);
    return WG_OK;
}

static wg_status pool_infer(wgc_graph *g, wgc_node *n)
{
    wgc_window w;
    wg_status st = resolve(g, n, &w);
    if (st)
        return st;
    wgc_window_set_output(g, n, &w, 0, WG_DT_FLOAT);
    wgc_window_set_output(g, n, &w, 1, WG_DT_INT64);
    return WG_OK;
}

/* Geometry of dim i of a 3-dim view whose last w->rank dims are the window's. */
#define V(field, i, unit) ((i) < 3 - w.rank ? (unit) : (long long)w.field[(i) - (3 - w.rank)])

static void emit_nd(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_window *wp)
{
    const wgc_window w = *wp;
    const wgc_tensor *x = wgc_in(g, n, 0);
    long long in[3];
    for (int i = 0; i < 3; i++)
        in[i] = i < 3 - w.rank ? 1 : (long long)x->shape.dims[2 + i - (3 - w.rank)];
    wgc_emit(e,
             "%s(&(const wgk_poolnd_args){.NC = %lld, .in = {%lld, %lld, %lld}, "
             ".out = {%lld, %lld, %lld}, .k = {%lld, %lld, %lld}, .s = {%lld, %lld, %lld}, "
             ".d = {%lld, %lld, %lld}, .pb = {%lld, %lld, %lld}, .pe = {%lld, %lld, %lld},\n",
             n->op == WGC_OP_MAX_POOL ? "wgk_f32_maxpool3d" : "wgk_f32_avgpool3d",
             (long long)(x->shape.dims[0] * x->shape.dims[1]), in[0], in[1], in[2],
             V(out, 0, 1), V(out, 1, 1), V(out, 2, 1), V(k, 0, 1), V(k, 1, 1), V(k, 2, 1),
             V(s, 0, 1), V(s, 1, 1), V(s, 2, 1), V(d, 0, 1), V(d, 1, 1), V(d, 2, 1),
             V(pb, 0, 0), V(pb, 1, 0), V(pb, 2, 0), V(pe, 0, 0), V(pe, 1, 0), V(pe, 2, 0));
    /* storage_order 1 numbers positions with the first spatial dim fastest; with unit
     * leading dims that is the same as the kernel's order over its 3 dims. */
    wgc_emit(e, "    .count_include_pad = %d, .storage_order = %d, .x = %s, .y = %s, .indices = %s});\n",
             wgc_attr_int(n, "count_include_pad", 0) != 0,
             wgc_attr_int(n, "storage_order", 0) != 0, wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]), has_indices(n) ? wgc_ptr(e, g, n->outputs[1]) : "0");
}

#define W2(field, i, unit) (o + (i) < 0 ? (unit) : (long long)w.field[o + (i)])
/* A threaded build's 2-D pooling: each thread its run of the N*C planes (the kernel
 * pools each plane on its own), then its planes' fused activation. */
static void emit_pool2d_split(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_window *wp,
                              const wgc_window_sizes *z)
{
    const wgc_window w = *wp;
    const int o = w.rank == 1 ? -1 : 0;
    wgc_emit(e, "{\n");
    wgc_emit_part_range_expr(e, z->NC, 1);
    wgc_emit(e,
             "    %s(&(const wgk_pool2d_args){.NC = hi - lo, .H = %s, .W = %s, .OH = %s, .OW = %s, "
             ".KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, .DH = %lld, .DW = %lld, .PT = %lld, "
             ".PL = %lld, .PB = %lld, .PR = %lld, .count_include_pad = %d, .x = (const float *)%s + (size_t)lo * %s, "
             ".y = (float *)%s + (size_t)lo * %s});\n",
             n->op == WGC_OP_MAX_POOL ? "wgk_f32_maxpool2d" : "wgk_f32_avgpool2d", z->H, z->W, z->OH, z->OW,
             W2(k, 0, 1), W2(k, 1, 1), W2(s, 0, 1), W2(s, 1, 1), W2(d, 0, 1), W2(d, 1, 1),
             W2(pb, 0, 0), W2(pb, 1, 0), W2(pe, 0, 0), W2(pe, 1, 0),
             wgc_attr_int(n, "count_include_pad", 0) != 0, wgc_ptr(e, g, n->inputs[0]), z->in_plane,
             wgc_ptr(e, g, n->outputs[0]), z->out_plane);
    if (n->act == WGC_ACT_RELU)
        wgc_emit(e, "    wgk_f32_relu((float *)%s + (size_t)lo * %s, (float *)%s + (size_t)lo * %s, (size_t)(hi - lo) * %s);\n",
                 wgc_ptr(e, g, n->outputs[0]), z->out_plane, wgc_ptr(e, g, n->outputs[0]), z->out_plane, z->out_plane);
    else if (n->act != WGC_ACT_NONE)
        wgc_emit(e, "    wgk_f32_clip((float *)%s + (size_t)lo * %s, (float *)%s + (size_t)lo * %s, (size_t)(hi - lo) * %s, %s, %s);\n",
                 wgc_ptr(e, g, n->outputs[0]), z->out_plane, wgc_ptr(e, g, n->outputs[0]), z->out_plane, z->out_plane,
                 wgc_float(e, n->act_min), wgc_float(e, n->act_max));
    wgc_emit(e, "}\n");
}

/* The 2-D kernel (1-D as a unit first dim), or for 3-D pools, Indices and dilated
 * averages the N-D one (fixed shapes only: pool_sym_takes gives sym_window.c the others). */
static wg_status pool_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_window w;
    wg_status st = resolve(g, n, &w);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    const bool avg_dil = n->op == WGC_OP_AVERAGE_POOL && (w.d[0] != 1 || (w.rank > 1 && w.d[1] != 1));
    if (w.rank == 3 || has_indices(n) || avg_dil) {
        if (wgc_shape_is_sym(&wgc_in(g, n, 0)->shape))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a 3-D, dilated average or Indices pool of symbolic dims");
        emit_nd(e, g, n, &w);
    } else {
        const int o = w.rank == 1 ? -1 : 0;
        wgc_window_sizes z; /* literals, or reads of wg_dims over symbolic dims (sym_window.c) */
        wgc_window_sizes_of(e, &wgc_in(g, n, 0)->shape, &wgc_out(g, n, 0)->shape, &z);
        if (wgc_threaded(e)) {
            emit_pool2d_split(e, g, n, &w, &z);
            return WG_OK;
        }
        wgc_emit(e,
                 "%s(&(const wgk_pool2d_args){.NC = %s, .H = %s, .W = %s, .OH = %s, .OW = %s, "
                 ".KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, .DH = %lld, .DW = %lld, .PT = %lld, "
                 ".PL = %lld, .PB = %lld, .PR = %lld, .count_include_pad = %d, .x = %s, .y = %s});\n",
                 n->op == WGC_OP_MAX_POOL ? "wgk_f32_maxpool2d" : "wgk_f32_avgpool2d", z.NC, z.H, z.W, z.OH, z.OW,
                 W2(k, 0, 1), W2(k, 1, 1), W2(s, 0, 1), W2(s, 1, 1), W2(d, 0, 1), W2(d, 1, 1),
                 W2(pb, 0, 0), W2(pb, 1, 0), W2(pe, 0, 0), W2(pe, 1, 0),
                 wgc_attr_int(n, "count_include_pad", 0) != 0, wgc_ptr(e, g, n->inputs[0]),
                 wgc_ptr(e, g, n->outputs[0]));
    }
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}
#undef W2

/* Per sample (WGC_PER_SAMPLE): AveragePool, and MaxPool without Indices (they count
 * across the batch). Sliding windows over symbolic spatial dims (WGC_WINDOW): 1-D or 2-D,
 * MaxPool without Indices, AveragePool without dilations. */
static bool pool_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    switch (t) {
    case WGC_PER_SAMPLE:
        if (n->op == WGC_OP_MAX_POOL)
            for (int k = 1; k < n->n_outputs; k++)
                if (n->outputs[k] >= 0)
                    return false;
        return true;
    case WGC_WINDOW:
        if (n->op == WGC_OP_MAX_POOL)
            return (rank == 3 || rank == 4) && !(n->n_outputs > 1 && n->outputs[1] >= 0); /* no Indices */
        {
            size_t cnt = 0;
            const int64_t *d = wgc_attr_ints(n, "dilations", &cnt);
            for (size_t i = 0; d && i < cnt; i++)
                if (d[i] != 1)
                    return false;
            return rank == 3 || rank == 4;
        }
    default:
        return false;
    }
}

const wgc_op_def wgc_op_pool = {.infer = pool_infer, .emit = pool_emit, .sym = {.takes = pool_sym_takes}};
