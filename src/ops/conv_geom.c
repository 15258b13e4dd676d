/* conv_geom.c: a Conv node's geometry (conv_geom.h). */
#include <stdio.h>

#include "conv_geom.h"
#include "helpers/fused_epilogue.h"

#include "../../kernels/include/wgk_conv_packed.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

wg_status wgc_conv_check_operands(wgc_graph *g, const wgc_node *n, int *rank)
{
    wg_status st = wgc_check_data_input(g, n, 2, 3, f32_only);
    if (!st)
        st = wgc_check_input(g, n, 1, f32_only);
    if (!st && n->n_inputs > 2 && n->inputs[2] >= 0)
        st = wgc_check_input(g, n, 2, f32_only);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1);
    *rank = x->shape.rank - 2;
    if (*rank < 1 || *rank > 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "%s with a rank-%d input is not supported (only 1-D, 2-D and 3-D)",
                         n->op_type, x->shape.rank);
    if (w->shape.rank != x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "weight '%s' has rank %d, expected %d", w->name,
                         w->shape.rank, x->shape.rank);
    return WG_OK;
}

wg_status wgc_conv_resolve(wgc_graph *g, const wgc_node *n, wgc_conv_geom *c)
{
    wg_status st = wgc_conv_check_operands(g, n, &c->rank);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *w = wgc_in(g, n, 1), *b = wgc_in(g, n, 2);
    const int sr = c->rank;
    c->N = x->shape.dims[0];
    c->C = x->shape.dims[1];
    c->M = w->shape.dims[0];
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
    if ((st = wgc_window_resolve(g, n, &x->shape.dims[2], sr, &w->shape.dims[2], false, &c->nd)))
        return st;
    if (sr == 2) {
        c->win = c->nd;
    } else {
        /* 1-D: a unit leading dim; 3-D: only the last two matter for the size checks. */
        const wgc_window *s = &c->nd;
        const int o = sr == 1 ? -1 : 1;
        c->win.rank = 2;
        for (int i = 0; i < 2; i++) {
            const bool unit = o + i < 0;
            c->win.k[i] = unit ? 1 : s->k[o + i];
            c->win.s[i] = unit ? 1 : s->s[o + i];
            c->win.d[i] = unit ? 1 : s->d[o + i];
            c->win.pb[i] = unit ? 0 : s->pb[o + i];
            c->win.pe[i] = unit ? 0 : s->pe[o + i];
            c->win.out[i] = unit ? 1 : s->out[o + i];
        }
    }
    c->H = sr == 1 ? 1 : x->shape.dims[sr];
    c->W = x->shape.dims[sr + 1];
    c->KH = c->win.k[0];
    c->KW = c->win.k[1];
    c->OH = c->win.out[0];
    c->OW = c->win.out[1];
    const wgc_window *wn = &c->win;
    if (sr == 3)
        c->kind = WGC_CONV_3D;
    else if (c->C == c->groups && c->groups > 1)
        c->kind = WGC_CONV_DW;
    else if (c->KH == 1 && c->KW == 1 && wn->s[0] == 1 && wn->s[1] == 1 && !wn->pb[0] &&
             !wn->pb[1] && !wn->pe[0] && !wn->pe[1])
        c->kind = WGC_CONV_1X1;
    else
        c->kind = WGC_CONV_IM2COL;
    /* The kernels index with 32-bit ints. */
    const int64_t lim = (int64_t)1 << 31;
    const int64_t D = sr == 3 ? x->shape.dims[2] : 1, OD = sr == 3 ? c->nd.out[0] : 1;
    if (c->N * c->C * D * c->H * c->W >= lim || c->N * c->M * OD * c->OH * c->OW >= lim ||
        c->C / c->groups * c->KH * c->KW * c->OH * c->OW >= lim / 4)
        return wgc_error(g, n, WG_ERR_LIMIT, "Conv is too large for the 32-bit kernels");
    return WG_OK;
}

wgk_conv2d_args wgc_conv_args(const wgc_conv_geom *c)
{
    const wgc_window *w = &c->win;
    return (wgk_conv2d_args){.N = (int)c->N, .C = (int)c->C, .H = (int)c->H, .W = (int)c->W, .M = (int)c->M,
                             .OH = (int)c->OH, .OW = (int)c->OW, .KH = (int)c->KH, .KW = (int)c->KW,
                             .SH = (int)w->s[0], .SW = (int)w->s[1], .DH = (int)w->d[0], .DW = (int)w->d[1],
                             .PT = (int)w->pb[0], .PL = (int)w->pb[1], .groups = (int)c->groups};
}


size_t wgc_conv_prepare_channels(const wgc_conv_geom *c, wgc_kernel k)
{
    const size_t cg = (size_t)(c->C / c->groups);
    return k == WGC_KERNEL_CONV2D_PHASES ? 4 * cg : cg;
}

size_t wgc_conv_transformed_floats(const wgc_conv_geom *c, wgc_kernel k)
{
    const wgc_kernel_info *info = wgc_kernel_get(k);
    const size_t mg = (size_t)(c->M / c->groups);
    return (size_t)info->matrices * wgk_conv_pack_w_group(mg, wgc_conv_prepare_channels(c, k)) * (size_t)c->groups;
}

wgc_shape wgc_conv_output_shape(int64_t N, int64_t M, int r, const int64_t *out)
{
    wgc_shape y = {.rank = r + 2, .dims = {N, M}};
    for (int i = 0; i < r; i++)
        y.dims[2 + i] = out[i];
    return y;
}

wgc_conv_view3 wgc_conv_view3_of(int r, const int64_t *in, const int64_t *out, const int64_t *k,
                                 const int64_t *s, const int64_t *d, const int64_t *pb)
{
    wgc_conv_view3 v;
    for (int i = 0; i < 3; i++) {
        const int j = i - (3 - r);
        v.in[i] = j < 0 ? 1 : in[j];
        v.out[i] = j < 0 ? 1 : out[j];
        v.k[i] = j < 0 ? 1 : k[j];
        v.s[i] = j < 0 ? 1 : s[j];
        v.d[i] = j < 0 ? 1 : d[j];
        v.p[i] = j < 0 ? 0 : pb[j];
    }
    return v;
}

const char *wgc_conv_view3_text(const wgc_conv_view3 *v, char *buf, size_t cap)
{
    snprintf(buf, cap,
             ".in = {%lld, %lld, %lld}, .out = {%lld, %lld, %lld}, .k = {%lld, %lld, %lld}, "
             ".s = {%lld, %lld, %lld}, .d = {%lld, %lld, %lld}, .p = {%lld, %lld, %lld}",
             (long long)v->in[0], (long long)v->in[1], (long long)v->in[2], (long long)v->out[0],
             (long long)v->out[1], (long long)v->out[2], (long long)v->k[0], (long long)v->k[1],
             (long long)v->k[2], (long long)v->s[0], (long long)v->s[1], (long long)v->s[2],
             (long long)v->d[0], (long long)v->d[1], (long long)v->d[2], (long long)v->p[0],
             (long long)v->p[1], (long long)v->p[2]);
    return buf;
}

void wgc_emit_convnd_call(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *kernel,
                          int64_t N, int64_t C, int64_t M, int64_t groups,
                          const wgc_conv_view3 *v)
{
    const bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    float lo, hi;
    wgc_act_range(n, &lo, &hi);
    char view[WGC_CONV_VIEW3_TEXT];
    wgc_emit(e,
             "%s(&(const wgk_convnd_args){.N = %lld, .C = %lld, .M = %lld, .groups = %lld, %s,\n",
             kernel, (long long)N, (long long)C, (long long)M, (long long)groups,
             wgc_conv_view3_text(v, view, sizeof view));
    wgc_emit(e, "    .x = %s, .w = %s, .bias = %s, .res = %s, .y = %s, .min = %s, .max = %s});\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             has_b ? wgc_ptr(e, g, n->inputs[2]) : "0",
             n->residual >= 0 ? wgc_ptr(e, g, n->residual) : "0", wgc_ptr(e, g, n->outputs[0]),
             wgc_float(e, lo), wgc_float(e, hi));
}
