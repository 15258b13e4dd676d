/*
 * select_deconv.c: which kernel runs a ConvTranspose node (kernels.def):
 *
 *   1-D and 3-D                                     deconv direct
 *   2-D, every output pixel from exactly one tap    deconv packed 4x8 + store (splits
 *   (kernel = stride, undilated, unpadded)          among threads by weight rows)
 *   other 2-D                                       deconv packed 4x8 + col2im
 */
#include "select_ops.h"
#include "size_walk.h"

#include "../../kernels/include/wgk_convnd.h"
#include "../ops/conv_transpose.h"

wg_status wgc_select_conv_transpose(wgc_graph *g, wgc_node *n)
{
    wgc_deconv_geom c;
    wg_status st = wgc_deconv_geom_of(g, n, &c);
    if (st)
        return st;
    wgc_impl *im = &n->impl;
    *im = (wgc_impl){0};
    if (c.rank != 2)
        im->kernel = WGC_KERNEL_DECONV_DIRECT;
    else if (wgk_deconv2d_stores((int)c.in[0], (int)c.in[1], (int)c.out[0], (int)c.out[1], (int)c.k[0],
                                 (int)c.k[1], (int)c.s[0], (int)c.s[1], (int)c.d[0], (int)c.d[1],
                                 (int)c.pb[0], (int)c.pb[1]))
        im->kernel = WGC_KERNEL_DECONV2D_STORE;
    else
        im->kernel = WGC_KERNEL_DECONV2D_COL2IM;
    if (c.rank != 2)
        return WG_OK;
    /* over symbolic dims (ops/sym_window.c): the largest at any input height and width in
     * range (the GEMM's column blocks make it no monotone function of them) */
    wgc_size_walk z;
    if ((st = wgc_select_size_walk(g, n, &z)))
        return st;
    size_t floats = 0;
    for (int64_t h = z.lo[0]; h <= z.hi[0]; h += z.step[0])
        for (int64_t w = z.lo[1]; w <= z.hi[1]; w += z.step[1]) {
            const size_t f = wgk_deconv2d_scratch((int)c.C, (int)c.M, (int)c.k[0], (int)c.k[1], (int)c.groups,
                                                  (int)h, (int)w, !wgc_in(g, n, 1)->data);
            floats = f > floats ? f : floats;
        }
    im->scratch = floats * sizeof(float);
    return WG_OK;
}
