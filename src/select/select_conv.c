/*
 * select_conv.c: which kernel runs a Conv node (kernels.def), in this order:
 *
 *   3-D                                                  direct 3-D
 *   depthwise (one input channel per group, groups > 1)  SIMD and 3x3/5x5, strides 1-2,
 *                                                        undilated: depthwise padded;
 *                                                        else depthwise direct
 *   weight computed at run time                          1x1 stride 1 unpadded: 1x1 gemm;
 *                                                        else im2col gemm (both through
 *                                                        the target's GEMM, impl.gemm)
 *   constant weight, 2-D:
 *     7x7/8x8 stride 2, one group, M and pixels enough   phases + winograd F(3x3,4x4)
 *     3x3/5x5, equal strides, undilated, >= 16 channels per group (in and out):
 *       3x3 stride 2 where its tiles pay                 winograd s2 F(2x2,3x3)
 *       3x3 stride 1                                     winograd F(4x4,3x3) where it beats
 *                                                        F(2x2,3x3), else F(2x2,3x3)
 *       5x5 stride 1                                     winograd F(2x2,5x5)
 *     1x1 where Strassen's level pays                    strassen 1x1
 *     few output pixels, many channels                   few-pixel 4x8
 *   other constant-weight 1-D and 2-D convs              packed 4x8
 *
 * The thresholds are in tunables.h. The Winograd convs' preparation (once, or per run
 * when the model's transformed filters exceed WGC_WINOGRAD_KEEP_LIMIT) and their first
 * run are set by wgc_select_conv_prep once the whole model's Winograd convs are known.
 */
#include "select_ops.h"
#include "size_walk.h"

#include "../../kernels/include/wgk_conv_fewpix.h"
#include "../../kernels/include/wgk_conv_packed.h"
#include "../../kernels/include/wgk_conv_strassen.h"
#include "../../kernels/include/wgk_winograd.h"
#include "../ir/symdim.h"
#include "../ops/conv_geom.h"
#include "tunables.h"

/* ---- the scratch rules of kernels.def, floats */

static size_t scratch_none(const wgc_conv_geom *c)
{
    (void)c;
    return 0;
}

static size_t scratch_dw_padded(const wgc_conv_geom *c)
{
    const wgk_conv2d_args a = wgc_conv_args(c);
    return wgk_dwconv2d_padded_scratch(&a);
}

/* The im2col columns of one group and image. */
static size_t scratch_im2col(const wgc_conv_geom *c)
{
    return (size_t)(c->C / c->groups * c->KH * c->KW * c->OH * c->OW);
}

static size_t scratch_packed(const wgc_conv_geom *c)
{
    const wgk_conv2d_args a = wgc_conv_args(c);
    return wgk_conv_packed_scratch(&a);
}

static size_t scratch_strassen(const wgc_conv_geom *c)
{
    const wgk_conv2d_args a = wgc_conv_args(c);
    return wgk_conv_strassen_scratch(&a);
}

static size_t scratch_fewpix(const wgc_conv_geom *c)
{
    const wgk_conv2d_args a = wgc_conv_args(c);
    return wgk_conv_fewpix_scratch(&a);
}

static size_t scratch_winograd_f2x3(const wgc_conv_geom *c)
{
    return wgk_winograd_f2x3_scratch((int)(c->C / c->groups), (int)(c->M / c->groups), (int)c->OH, (int)c->OW);
}

static size_t scratch_winograd_f4x3(const wgc_conv_geom *c)
{
    return wgk_winograd_f4x3_scratch((int)(c->C / c->groups), (int)(c->M / c->groups), (int)c->OH, (int)c->OW);
}

static size_t scratch_winograd_f2x5(const wgc_conv_geom *c)
{
    return wgk_winograd_f2x5_scratch((int)(c->C / c->groups), (int)(c->M / c->groups), (int)c->OH, (int)c->OW);
}

static size_t scratch_winograd_s2(const wgc_conv_geom *c)
{
    return wgk_winograd_f2x3s2_scratch((int)(c->C / c->groups), (int)(c->M / c->groups), (int)c->OH, (int)c->OW);
}

static size_t scratch_phases(const wgc_conv_geom *c)
{
    const wgk_conv2d_args a = wgc_conv_args(c);
    return wgk_conv_phases_scratch(&a);
}

static size_t (*const scratch_rule[WGC_KERNEL_COUNT])(const wgc_conv_geom *) = {
#define WG_KERNEL(e, label, symbol, pack, prepare, scratch, ...) [WGC_KERNEL_##e] = scratch,
#include "../ir/kernels.def"
#undef WG_KERNEL
};

/* ---- the policy */

/* F(4x4, 3x3) against F(2x2, 3x3) (tunables.h): GEMM work in half panels of 4 tiles. */
static bool winograd_f4_pays(int64_t OH, int64_t OW)
{
    const long t4 = (long)((OH + 3) / 4) * ((OW + 3) / 4), t2 = (long)((OH + 1) / 2) * ((OW + 1) / 2);
    const long w4 = 36 * ((t4 + 3) / 4), w2 = 16 * ((t2 + 3) / 4);
    return t4 >= WGC_WINO_F4_MIN_TILES && w4 * WGC_WINO_F4_WORK_DEN < w2 * WGC_WINO_F4_WORK_NUM;
}

/* 3x3 stride 2 on 2x2 tiles against the direct conv (tunables.h). */
static bool winograd_s2_pays(int64_t OH, int64_t OW)
{
    const long tiles = (long)((OH + 1) / 2) * ((OW + 1) / 2);
    return 25 * ((tiles + 3) / 4 * 4) * WGC_WINO_S2_WORK_DEN < 9L * OH * OW * WGC_WINO_S2_WORK_NUM;
}

static bool strassen_pays(const wgc_conv_geom *c)
{
    const wgk_conv2d_args a = wgc_conv_args(c);
    return c->rank == 2 && wgk_conv_strassen_fits(&a) && c->C >= WGC_STRASSEN_MIN_C && c->M >= WGC_STRASSEN_MIN_M &&
           c->OH * c->OW >= WGC_STRASSEN_MIN_PIXELS;
}

static bool fewpix_pays(const wgc_conv_geom *c)
{
    const wgk_conv2d_args a = wgc_conv_args(c);
    const int64_t P = c->OH * c->OW, K = c->C / c->groups * c->KH * c->KW;
    return c->rank == 2 && wgk_conv_fewpix_fits(&a) && P >= WGC_FEWPIX_MIN_PIXELS && P <= WGC_FEWPIX_MAX_PIXELS &&
           c->M >= WGC_FEWPIX_MIN_M && K >= WGC_FEWPIX_MIN_K;
}

/* The Winograd kernel of a constant-weight 1-D/2-D conv, NONE when it runs direct. */
static wgc_kernel winograd_kernel(const wgc_conv_geom *c)
{
    const wgc_window *w = &c->win;
    if (c->rank != 2)
        return WGC_KERNEL_NONE;
    const wgk_conv2d_args a = wgc_conv_args(c);
    if (wgk_conv_phases_ok(&a) && c->M >= WGC_PHASES_MIN_M && c->OH * c->OW >= WGC_PHASES_MIN_PIXELS)
        return WGC_KERNEL_CONV2D_PHASES;
    if (w->s[0] != w->s[1] || w->d[0] != 1 || w->d[1] != 1 || c->C / c->groups < WGC_WINOGRAD_MIN_CHANNELS ||
        c->M / c->groups < WGC_WINOGRAD_MIN_CHANNELS)
        return WGC_KERNEL_NONE;
    if (w->s[0] == 2)
        return c->KH == 3 && c->KW == 3 && winograd_s2_pays(c->OH, c->OW) ? WGC_KERNEL_CONV2D_WINOGRAD_S2
                                                                           : WGC_KERNEL_NONE;
    if (w->s[0] != 1)
        return WGC_KERNEL_NONE;
    if (c->KH == 3 && c->KW == 3)
        return winograd_f4_pays(c->OH, c->OW) ? WGC_KERNEL_CONV2D_WINOGRAD_F4X3 : WGC_KERNEL_CONV2D_WINOGRAD_F2X3;
    if (c->KH == 5 && c->KW == 5)
        return WGC_KERNEL_CONV2D_WINOGRAD_F2X5;
    return WGC_KERNEL_NONE;
}

/* The scratch floats kernel k needs at every size node n may run at: its rule at the
 * geometry, or over symbolic spatial dims (ops/sym_window.c) the largest at any input
 * height and width in range: the rules are not monotone in the sizes (a Winograd
 * kernel's padded band has block tiles / tiles per row rows). */
static wg_status scratch_at_every_size(wgc_graph *g, const wgc_node *n, const wgc_conv_geom *c, wgc_kernel k,
                                       size_t *floats)
{
    *floats = scratch_rule[k](c);
    const wgc_shape *x = &wgc_in(g, n, 0)->shape;
    if (c->rank > 2 || !wgc_shape_is_sym(x))
        return WG_OK;
    wgc_size_walk z;
    wg_status st = wgc_select_size_walk(g, n, &z);
    if (st)
        return st;
    const wgc_window *w = &c->win;
    const int64_t add_h = w->pb[0] + w->pe[0] - ((w->k[0] - 1) * w->d[0] + 1);
    const int64_t add_w = w->pb[1] + w->pe[1] - ((w->k[1] - 1) * w->d[1] + 1);
    wgc_conv_geom at = *c;
    for (int64_t h = z.lo[0]; h <= z.hi[0]; h += z.step[0]) {
        at.H = h;
        at.OH = c->rank == 2 ? wgc_window_size(h, add_h, w->s[0], false, w->pb[0]) : 1;
        for (int64_t v = z.lo[1]; v <= z.hi[1]; v += z.step[1]) {
            at.W = v;
            at.OW = wgc_window_size(v, add_w, w->s[1], false, w->pb[1]);
            if (at.OH < 1 || at.OW < 1)
                continue;
            const size_t f = scratch_rule[k](&at);
            *floats = f > *floats ? f : *floats;
        }
    }
    return WG_OK;
}

static bool is_winograd(wgc_kernel k)
{
    const wgc_kernel_info *i = wgc_kernel_get(k);
    return i && i->prepare;
}

wg_status wgc_select_conv(wgc_graph *g, wgc_node *n, const wgc_select_target *t)
{
    wgc_conv_geom c;
    wg_status st = wgc_conv_resolve(g, n, &c);
    if (st)
        return st;
    wgc_impl *im = &n->impl;
    *im = (wgc_impl){0};
    const bool wconst = wgc_in(g, n, 1)->data != NULL;
    const wgk_conv2d_args a = wgc_conv_args(&c);
    switch (c.kind) {
    case WGC_CONV_3D:
        im->kernel = WGC_KERNEL_CONV3D_DIRECT;
        break;
    case WGC_CONV_DW:
        im->kernel = t->simd && wgk_dwconv2d_padded_ok(&a) ? WGC_KERNEL_CONV2D_DW_PADDED : WGC_KERNEL_CONV2D_DW;
        break;
    case WGC_CONV_1X1:
    case WGC_CONV_IM2COL:
        if (!wconst) {
            im->kernel = c.kind == WGC_CONV_1X1 ? WGC_KERNEL_CONV2D_1X1 : WGC_KERNEL_CONV2D_IM2COL;
            im->gemm = t->simd ? WGC_KERNEL_GEMM_4X8 : WGC_KERNEL_GEMM_4X4;
            break;
        }
        im->prep = WGC_PREP_COMPILE;
        if ((im->kernel = winograd_kernel(&c)))
            im->prep = WGC_PREP_ONCE; /* per run or not: wgc_select_conv_prep */
        else if (strassen_pays(&c))
            im->kernel = WGC_KERNEL_CONV2D_STRASSEN;
        else if (fewpix_pays(&c))
            im->kernel = WGC_KERNEL_CONV2D_FEWPIX;
        else
            im->kernel = WGC_KERNEL_CONV2D_PACKED;
        break;
    }
    size_t floats;
    if ((st = scratch_at_every_size(g, n, &c, im->kernel, &floats)))
        return st;
    im->scratch = floats * sizeof(float);
    /* The scalar build reserves the padded depthwise kernels' plane that only the SIMD
     * build uses: kept as the code was before kernel selection moved here, so that no
     * arena offset changed with the move. */
    if (im->kernel == WGC_KERNEL_CONV2D_DW && wgk_dwconv2d_padded_ok(&a)) {
        if ((st = scratch_at_every_size(g, n, &c, WGC_KERNEL_CONV2D_DW_PADDED, &floats)))
            return st;
        im->scratch = floats * sizeof(float);
    }
    return WG_OK;
}

size_t wgc_select_conv_transformed_bytes(wgc_graph *g, const wgc_node *n)
{
    wgc_conv_geom c;
    if (!is_winograd(n->impl.kernel) || wgc_conv_resolve(g, n, &c))
        return 0;
    return wgc_conv_transformed_floats(&c, n->impl.kernel) * sizeof(float);
}

/* Whether a kept Winograd conv runs direct on the first run (tunables.h): the fresh
 * memory its transform fills against the multiplies Winograd saves. */
static bool first_run_direct(const wgc_conv_geom *c, wgc_kernel k)
{
    const wgc_kernel_info *i = wgc_kernel_get(k);
    /* The phase split's module holds only its own 4x4 filters: no direct conv to run. */
    if (k == WGC_KERNEL_CONV2D_PHASES)
        return false;
    const int64_t tile = i->tile, matrices = i->matrices;
    const int64_t tiles = (c->OH + tile - 1) / tile * ((c->OW + tile - 1) / tile);
    const int64_t saved = c->KH * c->KW * c->OH * c->OW - matrices * tiles;
    return (double)(matrices * (int64_t)sizeof(float)) * WGC_FIRST_RUN_FRESH_NS_PER_BYTE >
           (double)saved * WGC_FIRST_RUN_DIRECT_NS_PER_MAC;
}

wg_status wgc_select_conv_prep(wgc_graph *g, wgc_node *n, bool per_run)
{
    wgc_impl *im = &n->impl;
    if (!is_winograd(im->kernel))
        return WG_OK;
    wgc_conv_geom c;
    wg_status st = wgc_conv_resolve(g, n, &c);
    if (st)
        return st;
    im->prep = per_run ? WGC_PREP_PER_RUN : WGC_PREP_ONCE;
    /* per run: the transformed filters go first in the scratch, the kernel's after them */
    const size_t w = per_run ? wgc_conv_transformed_floats(&c, im->kernel) : 0;
    size_t floats;
    if ((st = scratch_at_every_size(g, n, &c, im->kernel, &floats)))
        return st;
    im->scratch = (w + floats) * sizeof(float);
    if (!per_run && first_run_direct(&c, im->kernel)) {
        im->first_run = fewpix_pays(&c) ? WGC_KERNEL_CONV2D_FEWPIX : WGC_KERNEL_CONV2D_PACKED;
        if ((st = scratch_at_every_size(g, n, &c, im->first_run, &floats)))
            return st;
        const size_t direct = floats * sizeof(float);
        im->scratch = direct > im->scratch ? direct : im->scratch;
    }
    return WG_OK;
}
