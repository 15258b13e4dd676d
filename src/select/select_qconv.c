/*
 * select_qconv.c: which kernel runs a ConvInteger or QLinearConv node (kernels.def), in
 * this order:
 *
 *   constant weights (and weight zero points), depthwise (one input channel per
 *     group), 1-D or 2-D, column stride 1 or 2,
 *     undilated across                                int8 depthwise
 *   constant weights (and weight zero points), one group:
 *     kernel 1, stride 1, no padding                  int8 pointwise
 *     2-D 3x3 stride 1 (any dilation), at least
 *     WGC_Q8_WINOGRAD_MIN_C input channels, where
 *     its tiles pay                                   int8 winograd F(2x2,3x3)
 *     2-D 3x3 stride 2, undilated, at least
 *     WGC_Q8_WINOGRAD_S2_MIN_C input channels, where
 *     its tiles pay                                   int8 winograd s2 F(2x2,3x3)
 *     2-D, C x KH x KW <= WGK_Q8_FEWC_MAX_K           int8 few-channel
 *     the others                                      int8 im2col gemm
 *   the rest (other groups, weights computed at run
 *   time, 3-D)                                       int32 direct
 *
 * and the scratch each needs (the op's scratch hook returns impl.scratch). The Winograd
 * convs' filters are transformed once into the prepared-weights region while the model's
 * transformed filters fit WGC_WINOGRAD_KEEP_LIMIT, else on every run into the scratch:
 * wgc_select_qconv_preps, once every conv is known.
 */
#include <stdlib.h>

#include "select_ops.h"

#include "../../kernels/include/wgk_qdwconv.h"
#include "../../kernels/include/wgk_qgemm.h"
#include "../../kernels/include/wgk_qwinograd.h"
#include "../ops/qconv_geom.h"
#include "tunables.h"

/* The int8 Winograd of a 3x3 conv, NONE where it does not run: stride 1 (any dilation)
 * or 2 (undilated), on 2x2 tiles when their products (16, or 25 with stride 2, per tile)
 * stay under NUM/DEN of the direct conv's 9 per output (a dilation-8 conv on 8x8 outputs
 * has a tile per output; a stride-2 one on 7x7 outputs, 16 tiles for 49 outputs). */
static wgc_kernel winograd_kernel(const wgc_qconv_geom *q)
{
    const wgc_conv_view3 *v = &q->v;
    if (q->rank != 2 || v->k[1] != 3 || v->k[2] != 3 || v->s[1] != v->s[2] || q->C < WGC_Q8_WINOGRAD_MIN_C)
        return WGC_KERNEL_NONE;
    const int s = (int)v->s[1];
    if (s > 2 || (s == 2 && (v->d[1] != 1 || v->d[2] != 1 || q->C < WGC_Q8_WINOGRAD_S2_MIN_C)))
        return WGC_KERNEL_NONE;
    const long tiles = wgk_q8_winograd_tiles((int)v->out[1], (int)v->out[2], (int)v->d[1], (int)v->d[2]);
    const long products = (s == 1 ? 16 : 25) * tiles;
    if (products * WGC_Q8_WINOGRAD_WORK_DEN >= 9 * q->osz * WGC_Q8_WINOGRAD_WORK_NUM)
        return WGC_KERNEL_NONE;
    return s == 1 ? WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3 : WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3S2;
}

static bool is_q8_winograd(wgc_kernel k)
{
    return k == WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3 || k == WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3S2;
}

/* Depthwise (one input channel per group, groups > 1) in the shapes the int8 depthwise
 * kernel takes. */
static bool depthwise_fits(const wgc_qconv_geom *q)
{
    const wgc_conv_view3 *v = &q->v;
    return q->rank <= 2 && q->groups > 1 && q->groups == q->C && v->d[2] == 1 && (v->s[2] == 1 || v->s[2] == 2) &&
           v->k[1] * wgk_q8_dwconv_pairs((int)v->k[2]) <= WGK_Q8_DW_MAX_TAPS;
}

/* 2-D with a reduction short enough for the few-channel kernel's blocks. */
static bool fewc_fits(const wgc_qconv_geom *q)
{
    return q->rank == 2 && q->nw / q->M <= WGK_Q8_FEWC_MAX_K;
}

static size_t align16(size_t b)
{
    return (b + 15) / 16 * 16;
}

/* Bytes of the int8 kernels' scratch (what the op's emitter lays out; 16 for the
 * alignment of the scratch's start). */
static size_t scratch_of(const wgc_qconv_geom *q, wgc_kernel k)
{
    const wgc_conv_view3 *v = &q->v;
    const size_t K = (size_t)(q->nw / q->M), hw = (size_t)q->osz, acc = q->in.qlinear ? 4 * (size_t)q->ny : 0;
    switch (k) {
    case WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3:
        return wgk_q8_winograd_f2x3_scratch_size((int)q->C, (int)v->out[1], (int)v->out[2], (int)v->d[1],
                                                 (int)v->d[2]) + 16;
    case WGC_KERNEL_Q8_CONV_WINOGRAD_F2X3S2:
        return wgk_q8_winograd_f2x3s2_scratch_size((int)q->C, (int)v->out[1], (int)v->out[2]) + 16;
    case WGC_KERNEL_Q8_DWCONV:
        return wgk_q8_dwconv_scratch_size((int)v->out[1], (int)v->out[2], (int)v->k[1], (int)v->k[2], (int)v->s[1],
                                          (int)v->s[2], (int)v->d[1]) + 16;
    case WGC_KERNEL_Q8_CONV_1X1:
        return align16(wgk_q8_conv1x1_scratch_size((size_t)q->C, hw)) + 16;
    case WGC_KERNEL_Q8_CONV_FEWC:
        return wgk_q8_conv_fewc_scratch_size(K) + 16;
    case WGC_KERNEL_Q8_CONV_IM2COL:
        return align16(wgk_qconv_scratch_size(K, (size_t)q->M)) + acc + 16;
    default: /* int32 direct: x and w widened, the int32 sums of QLinearConv */
        return 4 * (size_t)(q->nx + q->nw) + acc;
    }
}

wg_status wgc_select_qconv(wgc_graph *g, wgc_node *n, const wgc_select_target *t)
{
    (void)t; /* the int8 kernels have scalar twins of the same layout */
    wgc_qconv_geom q;
    wg_status st = wgc_qconv_resolve(g, n, &q);
    if (st)
        return st;
    wgc_impl *im = &n->impl;
    *im = (wgc_impl){0};
    const bool wconst = wgc_qconv_const_weights(g, n, &q);
    if (wconst && depthwise_fits(&q))
        im->kernel = WGC_KERNEL_Q8_DWCONV;
    else if (q.groups != 1 || !wconst)
        im->kernel = WGC_KERNEL_S32_CONV_DIRECT;
    else if (wgc_qconv_pointwise(&q))
        im->kernel = WGC_KERNEL_Q8_CONV_1X1;
    else if (!(im->kernel = winograd_kernel(&q)))
        im->kernel = fewc_fits(&q) ? WGC_KERNEL_Q8_CONV_FEWC : WGC_KERNEL_Q8_CONV_IM2COL;
    im->prep = im->kernel == WGC_KERNEL_S32_CONV_DIRECT ? WGC_PREP_NONE
               : is_q8_winograd(im->kernel)            ? WGC_PREP_ONCE
                                                       : WGC_PREP_COMPILE;
    im->scratch = scratch_of(&q, im->kernel);
    return WG_OK;
}

size_t wgc_select_qconv_transformed_bytes(wgc_graph *g, const wgc_node *n)
{
    wgc_qconv_geom q;
    if (!is_q8_winograd(n->impl.kernel) || wgc_qconv_resolve(g, n, &q))
        return 0;
    return 4 * wgk_q8_winograd_weights_n((size_t)q.M, (size_t)q.C, wgc_kernel_get(n->impl.kernel)->matrices);
}

/* A Winograd conv's transformed filters and how much its run would pay to transform them
 * on every run: tiles per filter pair (the fewer, the dearer). */
typedef struct keep_row {
    int node;
    size_t bytes;
    int64_t tiles;
} keep_row;

static int fewer_tiles_first(const void *a, const void *b)
{
    const keep_row *x = a, *y = b;
    return x->tiles < y->tiles ? -1 : x->tiles > y->tiles ? 1 : x->node - y->node;
}

wg_status wgc_select_qconv_preps(wgc_graph *g, size_t used)
{
    int count = 0;
    for (int i = 0; i < g->n_nodes; i++)
        count += !g->nodes[i].dead && is_q8_winograd(g->nodes[i].impl.kernel);
    if (!count)
        return WG_OK;
    keep_row *rows = malloc(sizeof *rows * (size_t)count);
    if (!rows)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory selecting kernels");
    int k = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        wgc_qconv_geom q;
        if (n->dead || !is_q8_winograd(n->impl.kernel) || wgc_qconv_resolve(g, n, &q))
            continue;
        rows[k++] = (keep_row){i, wgc_select_qconv_transformed_bytes(g, n),
                               q.N * wgk_q8_winograd_tiles((int)q.v.out[1], (int)q.v.out[2], (int)q.v.d[1],
                                                           (int)q.v.d[2])};
    }
    /* Kept while the budget lasts, the layers with the fewest tiles per filter first:
     * transforming on every run costs them the most against their multiplies. */
    qsort(rows, (size_t)k, sizeof *rows, fewer_tiles_first);
    for (int i = 0; i < k; i++) {
        wgc_impl *im = &g->nodes[rows[i].node].impl;
        if (used + rows[i].bytes <= WGC_WINOGRAD_KEEP_LIMIT) {
            used += rows[i].bytes;
            im->prep = WGC_PREP_ONCE;
        } else {
            im->prep = WGC_PREP_PER_RUN; /* the transformed filters first in the scratch */
            im->scratch += rows[i].bytes;
        }
    }
    free(rows);
    return WG_OK;
}
