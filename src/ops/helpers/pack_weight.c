/*
 * pack_weight.c: the packing step (pack_weight.h): a constant weight laid out in its
 * kernel's PACK layout (src/ir/kernels.def) and placed in the module's weights.
 */
#include <stdlib.h>

#include "../../../kernels/include/wgk_conv_packed.h"
#include "../../../kernels/include/wgk_convnd.h"
#include "../../../kernels/include/wgk_f16.h"
#include "../../../kernels/include/wgk_pack.h"
#include "../../../kernels/include/wgk_qgemm.h"
#include "../../../kernels/include/wgk_winograd.h"
#include "../../common/dtype.h"
#include "pack_weight.h"

/* The floats layout takes for geo (0 for a layout not packed at compile time). */
static size_t packed_floats(wgc_pack layout, const wgc_pack_geom *geo)
{
    switch (layout) {
    case WGC_PACK_GEMM_B:
    case WGC_PACK_GEMM_B_F16:
        return wgk_pack_b_size(geo->K, geo->N);
    case WGC_PACK_ONNX:
        return geo->K * geo->N;
    case WGC_PACK_CONV:
        return wgk_conv_pack_w_size(geo->M, geo->C / geo->groups * geo->KH * geo->KW, geo->groups);
    case WGC_PACK_PHASES:
        return wgk_conv_pack_w_size(geo->M, 4 * geo->C * 16, 1);
    case WGC_PACK_DECONV:
        return wgk_deconv2d_pack_w_size(geo->C, geo->M, geo->KH * geo->KW, geo->groups);
    case WGC_PACK_Q8_GEMM_B: /* bytes, not floats: pack_q8 */
    case WGC_PACK_GEMM_B_Q8: /* bytes, not floats: pack_dq */
        return 0;
    }
    return 0;
}

/* Lays w out in layout into dst (packed_floats of it); false when out of memory. */
static bool pack(wgc_pack layout, const wgc_pack_geom *geo, const float *w, float *dst)
{
    switch (layout) {
    case WGC_PACK_GEMM_B:
    case WGC_PACK_GEMM_B_F16:
        wgk_pack_b(w, geo->sk, geo->sn, geo->K, geo->N, dst);
        return true;
    case WGC_PACK_ONNX:
        for (size_t k = 0; k < geo->K; k++)
            for (size_t j = 0; j < geo->N; j++)
                dst[k * geo->N + j] = w[k * geo->sk + j * geo->sn];
        return true;
    case WGC_PACK_CONV:
        wgk_conv_pack_w(w, geo->M, geo->C / geo->groups * geo->KH * geo->KW, geo->groups, dst);
        return true;
    case WGC_PACK_PHASES: {
        const size_t kg = 4 * geo->C * 16;
        float *phased = malloc(sizeof(float) * (geo->M * kg ? geo->M * kg : 1));
        if (!phased)
            return false;
        wgk_conv_phases_weights(w, (int)geo->M, (int)geo->C, (int)geo->KH, phased);
        wgk_conv_pack_w(phased, geo->M, kg, 1, dst);
        free(phased);
        return true;
    }
    case WGC_PACK_DECONV:
        wgk_deconv2d_pack_w(w, geo->C, geo->M, geo->KH * geo->KW, geo->groups, dst);
        return true;
    case WGC_PACK_Q8_GEMM_B: /* not floats: pack_q8 */
    case WGC_PACK_GEMM_B_Q8: /* not floats: pack_dq */
        return false;
    }
    return false;
}

/* GEMM_B_F16: the packed floats (every one a float16 value within WGK_F16_WEIGHT_MAX: the
 * selection checked) placed as the halves of their values times WGK_F16_WEIGHT_SCALE. */
static wg_status place_halves(wgc_emitter *e, const float *packed, size_t count, const char **expr)
{
    uint16_t *h = malloc(sizeof(uint16_t) * (count ? count : 1));
    if (!h)
        return WG_ERR_NOMEM;
    for (size_t i = 0; i < count; i++)
        h[i] = wg_f32_to_f16(packed[i] * WGK_F16_WEIGHT_SCALE);
    const wg_status st = wgc_weight_bytes(e, h, sizeof(uint16_t) * count, expr);
    free(h);
    return st;
}

/* Q8_GEMM_B: the int8 GEMM's panels, one byte per weight (wgk_qgemm_pack_strided). */
static wg_status pack_q8(wgc_emitter *e, const wgc_tensor *w, const wgc_pack_geom *geo, const char **expr)
{
    const size_t bytes = wgk_qgemm_pack_b_bytes(geo->K, geo->N);
    int8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return WG_ERR_NOMEM;
    wgk_qgemm_pack_strided(w->data, w->dtype, geo->zp ? geo->zp->data : NULL, geo->zp_per_col, geo->K, geo->N,
                           geo->sk, geo->sn, buf);
    const wg_status st = wgc_weight(e, buf, bytes, expr);
    free(buf);
    return st;
}

/* GEMM_B_Q8: the bytes a folded DequantizeLinear made w from (wgc_tensor.from_dq; its
 * scale and zero point one for all or one per column of B: the selection checked), one
 * byte per weight with the columns' scales and zero points (wgk_pack_b_q8: one head for all
 * the panels where one scale and zero point serve them, wgc_q8_panels_shared), placed once
 * for w (the Gather of a tied embedding reads them too: wgc_q8_panels_of_table). */
static wg_status pack_dq(wgc_emitter *e, const wgc_graph *g, const wgc_tensor *w, const wgc_pack_geom *geo,
                         const char **expr)
{
    const int t = (int)(w - g->tensors);
    if (wgc_weight_recall(e, t, WGC_PACK_GEMM_B_Q8, expr))
        return WG_OK;
    const wgc_tensor *x = &g->tensors[w->dq_x], *s = &g->tensors[w->dq_scale];
    const wgc_tensor *z = w->dq_zero >= 0 ? &g->tensors[w->dq_zero] : NULL;
    const size_t bytes = wgk_pack_b_q8_size(geo->K, geo->N, wgc_q8_panels_shared(w));
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf)
        return WG_ERR_NOMEM;
    wgk_pack_b_q8(x->data, x->dtype == WG_DT_INT8, geo->sk, geo->sn, s->data, z ? z->data : NULL,
                  !wgc_q8_panels_shared(w), geo->K, geo->N, buf);
    const wg_status st = wgc_weight_keep(e, t, WGC_PACK_GEMM_B_Q8, buf, bytes, expr);
    free(buf);
    return st;
}

bool wgc_q8_panels_shared(const wgc_tensor *w)
{
    return w->dq_axis < 0; /* pack_dq's ps 0 */
}

/* Whether constant float32 b [H][V] is the transpose of table [V][H], bit for bit. */
static bool f32_transposed(const wgc_tensor *table, const wgc_tensor *b)
{
    if (!table->data || !b->data || table->dtype != WG_DT_FLOAT || b->dtype != WG_DT_FLOAT ||
        table->shape.rank != 2 || b->shape.rank != 2 || table->shape.dims[0] != b->shape.dims[1] ||
        table->shape.dims[1] != b->shape.dims[0])
        return false;
    const int64_t V = table->shape.dims[0], H = table->shape.dims[1];
    const uint32_t *tb = table->data, *bb = b->data;
    for (int64_t v = 0; v < V; v++)
        for (int64_t h = 0; h < H; h++)
            if (bb[h * V + v] != tb[v * H + h])
                return false;
    return true;
}

int wgc_f32_panels_of_table(const wgc_graph *g, int table, bool *halves)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        if (!n->dead && n->op == WGC_OP_MATMUL &&
            (n->impl.kernel == WGC_KERNEL_GEMM_PACKED_B || n->impl.kernel == WGC_KERNEL_GEMM_PACKED_B_F16) &&
            f32_transposed(&g->tensors[table], &g->tensors[n->inputs[1]])) {
            *halves = n->impl.kernel == WGC_KERNEL_GEMM_PACKED_B_F16;
            return n->inputs[1];
        }
    }
    return -1;
}

/* Whether a live Gather (axis 0) of a constant table reads its rows from B's float32 panels
 * (wgc_f32_panels_of_table), so that they are placed once for both. */
static bool panels_shared_with_gather(const wgc_graph *g, const wgc_tensor *b)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        if (!n->dead && n->op == WGC_OP_GATHER && wgc_attr_int(n, "axis", 0) == 0 &&
            f32_transposed(&g->tensors[n->inputs[0]], b))
            return true;
    }
    return false;
}

int wgc_q8_panels_of_table(const wgc_graph *g, int table)
{
    const wgc_tensor *tab = &g->tensors[table];
    if (!tab->data || tab->shape.rank != 2 || (tab->dtype != WG_DT_UINT8 && tab->dtype != WG_DT_INT8))
        return -1;
    const int64_t V = tab->shape.dims[0], H = tab->shape.dims[1];
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        if (n->dead || n->op != WGC_OP_MATMUL || n->impl.kernel != WGC_KERNEL_GEMM_PACKED_B_Q8)
            continue;
        const wgc_tensor *b = &g->tensors[n->inputs[1]], *x = &g->tensors[b->dq_x];
        if (!b->from_dq || x->dtype != tab->dtype || x->shape.rank != 2 || x->shape.dims[0] != H ||
            x->shape.dims[1] != V)
            continue;
        const uint8_t *xb = x->data, *tb = tab->data;
        bool same = true;
        for (int64_t v = 0; v < V && same; v++)
            for (int64_t h = 0; h < H && same; h++)
                same = xb[h * V + v] == tb[v * H + h];
        if (same)
            return n->inputs[1];
    }
    return -1;
}

wg_status wgc_pack_weight(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_tensor *w,
                          wgc_pack layout, const wgc_pack_geom *geo, const char **expr)
{
    if (layout == WGC_PACK_GEMM_B_Q8) {
        if (!w->from_dq || !g->tensors[w->dq_x].data || !g->tensors[w->dq_scale].data ||
            (w->dq_zero >= 0 && !g->tensors[w->dq_zero].data))
            return wgc_error(g, n, WG_ERR_INVALID, "packing '%s' as bytes: not a folded DequantizeLinear "
                             "(compiler bug)", w->name);
        if (pack_dq(e, g, w, geo, expr))
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing weight '%s'", w->name);
        return WG_OK;
    }
    if (layout == WGC_PACK_Q8_GEMM_B && w->data && (!geo->zp || geo->zp->data)) {
        if (pack_q8(e, w, geo, expr))
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing weight '%s'", w->name);
        return WG_OK;
    }
    if (!w->data || (layout != WGC_PACK_GEMM_B && layout != WGC_PACK_GEMM_B_F16 && layout != WGC_PACK_ONNX &&
                     layout != WGC_PACK_CONV && layout != WGC_PACK_PHASES && layout != WGC_PACK_DECONV))
        return wgc_error(g, n, WG_ERR_INVALID, "packing '%s': a weight computed at run time or an unknown layout "
                         "(compiler bug)", w->name);
    const int t = (int)(w - g->tensors);
    if (layout == WGC_PACK_GEMM_B && wgc_weight_recall(e, t, layout, expr))
        return WG_OK;
    const size_t count = packed_floats(layout, geo);
    float *buf = malloc(sizeof(float) * (count ? count : 1));
    wg_status st = WG_ERR_NOMEM;
    if (buf && pack(layout, geo, (const float *)w->data, buf))
        st = layout == WGC_PACK_GEMM_B_F16 ? place_halves(e, buf, count, expr)
             : layout == WGC_PACK_GEMM_B && panels_shared_with_gather(g, w)
                 ? wgc_weight_keep(e, t, layout, buf, sizeof(float) * count, expr)
                 : wgc_weight(e, buf, sizeof(float) * count, expr);
    free(buf);
    if (st)
        return wgc_error(g, n, st, "out of memory packing weight '%s'", w->name);
    return WG_OK;
}
