/*
 * select_deconv.c: which kernel runs a ConvTranspose node (kernels.def):
 *
 *   1-D and 3-D                                     deconv direct
 *   2-D, every output pixel from exactly one tap    deconv packed 4x8 + store (splits
 *   (kernel = stride, undilated, unpadded)          among threads by weight rows)
 *   other 2-D                                       deconv packed 4x8 + col2im
 */
#include "select.h"

#include "../../kernels/include/wgk_convnd.h"
#include "../ir/symdim.h"
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
    const wgc_shape *x = &wgc_in(g, n, 0)->shape;
    int64_t lo[2], hi[2], step[2];
    for (int i = 0; i < 2; i++) {
        lo[i] = hi[i] = c.in[i];
        step[i] = 1;
        if (wgc_dim_is_sym(x, 2 + i)) {
            const wgc_dimx v = wgc_dimx_of(g, x, 2 + i);
            lo[i] = wgc_dimx_min(g, &v);
            hi[i] = wgc_dimx_max(g, &v);
            step[i] = v.c > 0 ? v.c : 1;
        }
    }
    if ((hi[0] - lo[0]) / step[0] + 1 > ((int64_t)1 << 22) / ((hi[1] - lo[1]) / step[1] + 1))
        return wgc_error(g, n, WG_ERR_LIMIT, "its input may take too many heights x widths (%lld..%lld x "
                         "%lld..%lld) to plan its scratch for: narrow the --dim ranges",
                         (long long)lo[0], (long long)hi[0], (long long)lo[1], (long long)hi[1]);
    size_t floats = 0;
    for (int64_t h = lo[0]; h <= hi[0]; h += step[0])
        for (int64_t w = lo[1]; w <= hi[1]; w += step[1]) {
            const size_t f = wgk_deconv2d_scratch((int)c.C, (int)c.M, (int)c.k[0], (int)c.k[1], (int)c.groups,
                                                  (int)h, (int)w, !wgc_in(g, n, 1)->data);
            floats = f > floats ? f : floats;
        }
    im->scratch = floats * sizeof(float);
    return WG_OK;
}
