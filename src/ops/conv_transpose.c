/*
 * conv_transpose.c: ConvTranspose, 1-D, 2-D and 3-D, NC[D][H]W float32: strides, pads,
 * dilations, group, output_padding, output_shape, auto_pad (SAME_UPPER puts the smaller
 * half of an odd total padding first, as the ONNX reference does).
 *
 * 2-D runs on wgk_f32_deconv2d: a packed GEMM into column tiles, then col2im (a direct
 * store when kernel == stride without padding or dilation). A constant weight is packed
 * here at compile time as the [M*KH*KW][C/groups] matrix (wgk_deconv2d_pack_w); a weight
 * computed at run time is passed in ONNX layout and packed by the kernel into scratch.
 * 1-D and 3-D run on the direct scatter kernel (wgk_f32_deconv3d_direct), ONNX layout.
 */
#include "../../kernels/include/wgk_convnd.h"
#include "conv_geom.h"
#include "conv_transpose.h"
#include "../ir/kernels.h"
#include "../ir/symdim.h"
#include "helpers/fused_epilogue.h"
#include "helpers/pack_weight.h"
#include "helpers/sliding_window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static int64_t floordiv2(int64_t v)
{
    return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

/* INTS attribute of length want (or absent: dflt everywhere). */
static wg_status ints(wgc_graph *g, const wgc_node *n, const char *name, size_t want,
                      int64_t dflt, int64_t min, int64_t *out, bool *given)
{
    size_t cnt = 0;
    const int64_t *v = wgc_attr_ints(n, name, &cnt);
    if (given)
        *given = v != NULL;
    for (size_t i = 0; i < want; i++)
        out[i] = dflt;
    if (!v)
        return WG_OK;
    if (cnt != want)
        return wgc_error(g, n, WG_ERR_INVALID, "attribute %s has %zu values, expected %zu", name,
                         cnt, want);
    for (size_t i = 0; i < cnt; i++) {
        if (v[i] < min || v[i] > ((int64_t)1 << 30))
            return wgc_error(g, n, WG_ERR_INVALID, "attribute %s[%zu] = %lld is out of range", name,
                             i, (long long)v[i]);
        out[i] = v[i];
    }
    return WG_OK;
}

wg_status wgc_deconv_geom_of(wgc_graph *g, const wgc_node *n, wgc_deconv_geom *c)
{
    wg_status st = wgc_conv_check_operands(g, n, &c->rank);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1), *b = wgc_in(g, n, 2);
    const int r = c->rank;
    c->N = x->shape.dims[0];
    c->C = x->shape.dims[1];
    c->groups = wgc_attr_int(n, "group", 1);
    if (c->groups < 1 || c->C % c->groups || w->shape.dims[0] != c->C || w->shape.dims[1] < 1)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "group = %lld does not fit input channels %lld and weight '%s' [%lld, %lld, ...]",
                         (long long)c->groups, (long long)c->C, w->name,
                         (long long)w->shape.dims[0], (long long)w->shape.dims[1]);
    c->M = w->shape.dims[1] * c->groups;
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != c->M))
        return wgc_error(g, n, WG_ERR_INVALID, "bias '%s' must have shape [%lld]", b->name,
                         (long long)c->M);
    int64_t ks[3], op[3], pads[6], os[WG_MAX_RANK + 2];
    bool has_ks;
    if ((st = ints(g, n, "kernel_shape", (size_t)r, 1, 1, ks, &has_ks)) ||
        (st = ints(g, n, "strides", (size_t)r, 1, 1, c->s, NULL)) ||
        (st = ints(g, n, "dilations", (size_t)r, 1, 1, c->d, NULL)) ||
        (st = ints(g, n, "output_padding", (size_t)r, 0, 0, op, NULL)) ||
        (st = ints(g, n, "pads", 2 * (size_t)r, 0, 0, pads, NULL)))
        return st;
    size_t nos = 0;
    const int64_t *osv = wgc_attr_ints(n, "output_shape", &nos);
    if (osv) {
        /* Either the spatial dims or the full output shape. */
        if (nos != (size_t)r && nos != (size_t)r + 2)
            return wgc_error(g, n, WG_ERR_INVALID, "output_shape has %zu values, expected %d",
                             nos, r);
        for (int i = 0; i < r; i++) {
            os[i] = osv[nos - (size_t)r + (size_t)i];
            if (os[i] < 1 || os[i] > ((int64_t)1 << 30))
                return wgc_error(g, n, WG_ERR_INVALID, "output_shape[%d] = %lld is out of range",
                                 i, (long long)os[i]);
        }
    }
    const char *ap = wgc_attr_str(n, "auto_pad", "NOTSET");
    const bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
    if (!same && strcmp(ap, "NOTSET") && strcmp(ap, "VALID") && strcmp(ap, ""))
        return wgc_error(g, n, WG_ERR_INVALID, "unknown auto_pad '%s'", ap);
    for (int i = 0; i < r; i++) {
        c->in[i] = x->shape.dims[2 + i];
        c->k[i] = w->shape.dims[2 + i];
        if (has_ks && ks[i] != c->k[i])
            return wgc_error(g, n, WG_ERR_INVALID, "kernel_shape[%d] = %lld but the weight has %lld",
                             i, (long long)ks[i], (long long)c->k[i]);
        if (op[i] >= c->s[i] && op[i] >= c->d[i])
            return wgc_error(g, n, WG_ERR_INVALID, "output_padding[%d] = %lld must be smaller than "
                             "the stride or the dilation", i, (long long)op[i]);
        const int64_t full = c->s[i] * (c->in[i] - 1) + op[i] + (c->k[i] - 1) * c->d[i] + 1;
        if (osv || same) {
            const int64_t want = osv ? os[i] : c->in[i] * c->s[i];
            const int64_t total = full - want;
            const bool upper = !strcmp(ap, "SAME_UPPER");
            c->pb[i] = upper ? floordiv2(total) : total - floordiv2(total);
            c->out[i] = want;
        } else {
            const bool valid = !strcmp(ap, "VALID");
            c->pb[i] = valid ? 0 : pads[i];
            c->out[i] = full - (valid ? 0 : pads[i] + pads[r + i]);
        }
        if (c->out[i] < 1 || c->out[i] > ((int64_t)1 << 30))
            return wgc_error(g, n, WG_ERR_INVALID, "output size %lld in spatial dim %d",
                             (long long)c->out[i], i);
    }
    for (int i = r; i < 3; i++)
        c->in[i] = c->out[i] = c->k[i] = c->s[i] = c->d[i] = 1, c->pb[i] = 0;
    const int64_t lim = (int64_t)1 << 31;
    if (wgc_numel(&x->shape) >= lim || c->N * c->M * c->out[0] * c->out[1] * c->out[2] >= lim)
        return wgc_error(g, n, WG_ERR_LIMIT, "ConvTranspose is too large for the 32-bit kernel");
    return WG_OK;
}

static wg_status ct_infer(wgc_graph *g, wgc_node *n)
{
    wgc_deconv_geom c;
    wg_status st = wgc_deconv_geom_of(g, n, &c);
    if (st)
        return st;
    const wgc_shape y = wgc_conv_output_shape(c.N, c.M, c.rank, c.out);
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

/* The bytes the selection step gave the node (select_deconv.c). */
static size_t ct_scratch(const wgc_graph *g, const wgc_node *n)
{
    (void)g;
    return n->impl.scratch;
}

/* 2-D: the packed-GEMM + col2im kernel, its sizes read from wg_dims over symbolic dims
 * (ops/sym_window.c). */
static wg_status emit_2d(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_deconv_geom *c)
{
    wgc_window_sizes z;
    wgc_window_sizes_of(e, &wgc_in(g, n, 0)->shape, &wgc_out(g, n, 0)->shape, &z);
    const wgc_tensor *w = wgc_in(g, n, 1);
    const bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    const char *wexpr = NULL;
    wg_status st = WG_OK;
    if (!w->data) {
        wexpr = wgc_ptr(e, g, n->inputs[1]);
    } else { /* the kernel's panels (kernels.def's PACK, the packing step) */
        const wgc_pack_geom geo = {.M = (size_t)c->M, .C = (size_t)c->C, .KH = (size_t)c->k[0],
                                   .KW = (size_t)c->k[1], .groups = (size_t)c->groups};
        if ((st = wgc_pack_weight(e, g, n, w, wgc_kernel_get(n->impl.kernel)->pack, &geo, &wexpr)))
            return st;
    }
    float lo, hi;
    wgc_act_range(n, &lo, &hi);
    /* Threads: the store form splits its weight rows (selection chose DECONV2D_STORE). */
    const bool split = wgc_threaded(e) && wgc_node_splits(n);
    char fields[2048];
    snprintf(fields, sizeof fields,
             ".N = %s, .C = %lld, .H = %s, .W = %s, .M = %lld, .OH = %s, .OW = %s, .KH = %lld, .KW = %lld, "
             ".SH = %lld, .SW = %lld, .DH = %lld, .DW = %lld, .PT = %lld, .PL = %lld, .groups = %lld,\n"
             "        .x = %s, .w = %s, .w_onnx = %d, .bias = %s, .res = %s, .y = %s,\n"
             "        .scratch = %s, .min = %s, .max = %s",
             z.N, (long long)c->C, z.H, z.W, (long long)c->M, z.OH, z.OW, (long long)c->k[0], (long long)c->k[1],
             (long long)c->s[0], (long long)c->s[1], (long long)c->d[0], (long long)c->d[1], (long long)c->pb[0],
             (long long)c->pb[1], (long long)c->groups, wgc_ptr(e, g, n->inputs[0]), wexpr, !w->data,
             has_b ? wgc_ptr(e, g, n->inputs[2]) : "0", n->residual >= 0 ? wgc_ptr(e, g, n->residual) : "0",
             wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e), wgc_float(e, lo), wgc_float(e, hi));
    wgc_emit_args_call(e, n->impl.kernel, split, "wgk_f32_deconv2d", "wgk_deconv2d_args", fields, "");
    return WG_OK;
}

static wg_status ct_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_deconv_geom c;
    wg_status st = wgc_deconv_geom_of(g, n, &c);
    if (st)
        return st;
    if (c.rank == 2)
        return emit_2d(e, g, n, &c);
    if (wgc_shape_is_sym(&wgc_in(g, n, 0)->shape)) /* windows of 2-D ones only (ct_sym_takes) */
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a ConvTranspose of symbolic dims other than 2-D");
    const wgc_conv_view3 v = wgc_conv_view3_of(c.rank, c.in, c.out, c.k, c.s, c.d, c.pb);
    wgc_emit_convnd_call(e, g, n, "wgk_f32_deconv3d_direct", c.N, c.C, c.M, c.groups, &v);
    return WG_OK;
}

/* Per sample (WGC_PER_SAMPLE) always; sliding windows over symbolic spatial dims
 * (WGC_WINDOW) 2-D only. */
static bool ct_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t == WGC_PER_SAMPLE)
        return true;
    if (t != WGC_WINDOW)
        return false;
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    return rank == 4;
}

const wgc_op_def wgc_op_conv_transpose = {
    .infer = ct_infer,
    .emit = ct_emit,
    .scratch = ct_scratch,
    .sym = {.takes = ct_sym_takes},
};
