/*
 * conv.c: Conv (2-D, NCHW, float32) with groups, dilations, strides, pads, auto_pad and
 * the fused epilogue set by the passes (residual add, then Relu/Clip).
 *
 * Lowering, chosen per layer (the kernel table lives in choose()):
 *   depthwise (one input channel per group, groups > 1)   wgk_f32_dwconv2d, ONNX weights
 *   1x1, stride 1, no padding                              wgk_f32_conv2d_1x1, packed weights
 *   anything else                                          wgk_f32_conv2d_im2col, packed
 *                                                          weights, im2col scratch
 * Constant weights are packed here at compile time (wgk_pack_conv), never at run time; a
 * weight computed at run time is read in its ONNX layout (w_rowmajor).
 */
#include <stdlib.h>

#include "../../kernels/include/wgk_pack.h"
#include "epilogue.h"
#include "window.h"

enum { CONV_DW, CONV_1X1, CONV_IM2COL };

typedef struct conv_geom {
    int64_t N, C, H, W, M, OH, OW, KH, KW, groups;
    wgc_window win;
    int kind;
} conv_geom;

static const int f32_only[] = {WG_DT_FLOAT, 0};

/* Reads and checks everything; fills geom (shapes must be known). */
static wg_status resolve(wgc_graph *g, const wgc_node *n, conv_geom *c)
{
    wg_status st = wgc_check_arity(g, n, 2, 3, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, f32_only);
    if (!st)
        st = wgc_check_input(g, n, 1, f32_only);
    if (!st && n->n_inputs > 2 && n->inputs[2] >= 0)
        st = wgc_check_input(g, n, 2, f32_only);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1), *b = wgc_in(g, n, 2);
    if (x->shape.rank != 4)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "Conv with %d-D input is not supported (only 2-D, NCHW)",
                         x->shape.rank - 2);
    if (w->shape.rank != 4)
        return wgc_error(g, n, WG_ERR_INVALID, "weight '%s' has rank %d, expected 4", w->name,
                         w->shape.rank);
    c->N = x->shape.dims[0];
    c->C = x->shape.dims[1];
    c->H = x->shape.dims[2];
    c->W = x->shape.dims[3];
    c->M = w->shape.dims[0];
    c->KH = w->shape.dims[2];
    c->KW = w->shape.dims[3];
    c->groups = wgc_attr_int(n, "group", 1);
    if (c->groups < 1 || c->C % c->groups || c->M % c->groups || c->M < 1 ||
        w->shape.dims[1] * c->groups != c->C)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "group = %lld does not fit input channels %lld, weight '%s' [%lld, %lld, ...]",
                         (long long)c->groups, (long long)c->C, w->name, (long long)c->M,
                         (long long)w->shape.dims[1]);
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != c->M))
        return wgc_error(g, n, WG_ERR_INVALID, "bias '%s' must have shape [%lld]", b->name,
                         (long long)c->M);
    const int64_t in[2] = {c->H, c->W}, k[2] = {c->KH, c->KW};
    if ((st = wgc_window_resolve(g, n, in, 2, k, false, &c->win)))
        return st;
    c->OH = c->win.out[0];
    c->OW = c->win.out[1];
    const wgc_window *wn = &c->win;
    if (c->C == c->groups && c->groups > 1)
        c->kind = CONV_DW;
    else if (c->KH == 1 && c->KW == 1 && wn->s[0] == 1 && wn->s[1] == 1 && !wn->pb[0] &&
             !wn->pb[1] && !wn->pe[0] && !wn->pe[1])
        c->kind = CONV_1X1;
    else
        c->kind = CONV_IM2COL;
    /* The kernels index with 32-bit ints. */
    const int64_t lim = (int64_t)1 << 31;
    if (c->N * c->C * c->H * c->W >= lim || c->N * c->M * c->OH * c->OW >= lim ||
        c->C / c->groups * c->KH * c->KW * c->OH * c->OW >= lim / 4)
        return wgc_error(g, n, WG_ERR_LIMIT, "Conv is too large for the 32-bit kernels");
    return WG_OK;
}

static wg_status conv_infer(wgc_graph *g, wgc_node *n)
{
    conv_geom c;
    wg_status st = resolve(g, n, &c);
    if (st)
        return st;
    wgc_shape y = {.rank = 4, .dims = {c.N, c.M, c.OH, c.OW}};
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

static size_t conv_scratch(const wgc_graph *g, const wgc_node *n)
{
    conv_geom c;
    /* resolve() only writes g->err on failure; infer has already succeeded here. */
    if (resolve((wgc_graph *)g, n, &c) || c.kind != CONV_IM2COL)
        return 0;
    return (size_t)(c.C / c.groups * c.KH * c.KW * c.OH * c.OW) * sizeof(float);
}

static wg_status conv_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    conv_geom c;
    float *packed = NULL;
    wg_status st = resolve(g, n, &c);
    if (st)
        return st;
    const wgc_tensor *w = wgc_in(g, n, 1);
    const char *wexpr;
    /* A weight computed at run time is read in ONNX layout (slower GEMM access). */
    const bool rowmajor = !w->data && c.kind != CONV_DW;
    if (c.kind == CONV_DW || !w->data) {
        wexpr = wgc_ptr(e, g, n->inputs[1]);
    } else {
        size_t kg = (size_t)(c.C / c.groups * c.KH * c.KW);
        size_t count = wgk_pack_conv_size((size_t)c.M, kg, (size_t)c.groups);
        packed = malloc(count * sizeof(float));
        if (!packed) {
            st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing weight '%s'", w->name);
            goto fail;
        }
        wgk_pack_conv((const float *)w->data, (size_t)c.M, kg, (size_t)c.groups, packed);
        if ((st = wgc_weight(e, packed, count * sizeof(float), &wexpr))) {
            st = wgc_error(g, n, st, "out of memory packing weight '%s'", w->name);
            goto fail;
        }
    }
    const bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    float lo, hi;
    wgc_act_range(n, &lo, &hi);
    static const char *names[] = {"wgk_f32_dwconv2d", "wgk_f32_conv2d_1x1", "wgk_f32_conv2d_im2col"};
    const char *gemm = wgc_emit_target(e)->simd ? "wgk_f32_gemm_4x8__wasmsimd" : "wgk_f32_gemm_4x4__scalar";
    const wgc_window *wn = &c.win;
    wgc_emit(e,
             "%s(&(const wgk_conv2d_args){.N = %lld, .C = %lld, .H = %lld, .W = %lld, .M = %lld, "
             ".OH = %lld, .OW = %lld, .KH = %lld, .KW = %lld, .SH = %lld, .SW = %lld, .DH = %lld, "
             ".DW = %lld, .PT = %lld, .PL = %lld, .groups = %lld,\n",
             names[c.kind], (long long)c.N, (long long)c.C, (long long)c.H, (long long)c.W,
             (long long)c.M, (long long)c.OH, (long long)c.OW, (long long)c.KH, (long long)c.KW,
             (long long)wn->s[0], (long long)wn->s[1], (long long)wn->d[0], (long long)wn->d[1],
             (long long)wn->pb[0], (long long)wn->pb[1], (long long)c.groups);
    wgc_emit(e, "    .x = %s, .w = %s, .bias = %s, .res = %s, .y = %s,\n", wgc_ptr(e, g, n->inputs[0]),
             wexpr, has_b ? wgc_ptr(e, g, n->inputs[2]) : "0",
             n->residual >= 0 ? wgc_ptr(e, g, n->residual) : "0", wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "    .scratch = %s, .min = %s, .max = %s, .gemm = %s, .w_rowmajor = %d});\n",
             c.kind == CONV_IM2COL ? wgc_scratch(e) : "0", wgc_float(e, lo), wgc_float(e, hi),
             c.kind == CONV_DW ? "0" : gemm, rowmajor);
fail:
    free(packed);
    return st;
}

const wgc_op_def wgc_op_conv = {conv_infer, NULL, conv_emit, conv_scratch};
