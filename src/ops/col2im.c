/*
 * col2im.c: Col2Im (opset 18), float and double, any spatial rank: the columns x [N, C * K, L]
 * (K = prod(block_shape), L = the number of block positions) are summed back into the image
 * y [N, C, image_shape...], each column value added at the pixel its block position, kernel
 * offset, stride, dilation and begin pad point to (pixels in the pads are dropped).
 * image_shape and block_shape must be constant. An inline loop.
 */
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"
#include "helpers/index_loops.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

typedef struct c2i_geom {
    int r;
    int64_t N, C, K, L;
    int64_t img[WG_MAX_RANK], blk[WG_MAX_RANK], s[WG_MAX_RANK], d[WG_MAX_RANK], pb[WG_MAX_RANK];
    int64_t cnt[WG_MAX_RANK]; /* block positions per dim */
} c2i_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, c2i_geom *q)
{
    static const int ints[] = {WG_DT_INT64, 0};
    wg_status st = wgc_check_data_input(g, n, 3, 3, floats);
    for (int i = 1; i < 3 && !st; i++)
        st = wgc_check_input(g, n, i, ints);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *im = wgc_in(g, n, 1), *bs = wgc_in(g, n, 2);
    if ((st = wgc_loop_need_const(g, n, 1, "image_shape")) || (st = wgc_loop_need_const(g, n, 2, "block_shape")))
        return st;
    q->r = (int)wgc_numel(&im->shape);
    if (q->r < 1 || q->r > WG_MAX_RANK - 2 || wgc_numel(&bs->shape) != q->r || x->shape.rank != 3)
        return wgc_error(g, n, WG_ERR_INVALID, "input must be 3-D and image_shape / block_shape of one length");
    size_t ns = 0, nd = 0, np = 0;
    const int64_t *sv = wgc_attr_ints(n, "strides", &ns), *dv = wgc_attr_ints(n, "dilations", &nd),
                  *pv = wgc_attr_ints(n, "pads", &np);
    if ((sv && ns != (size_t)q->r) || (dv && nd != (size_t)q->r) || (pv && np != 2 * (size_t)q->r))
        return wgc_error(g, n, WG_ERR_INVALID, "strides / dilations / pads do not match %d spatial dims", q->r);
    q->K = q->L = 1;
    for (int k = 0; k < q->r; k++) {
        q->img[k] = wgc_const_int(im, k), q->blk[k] = wgc_const_int(bs, k);
        q->s[k] = sv ? sv[k] : 1, q->d[k] = dv ? dv[k] : 1, q->pb[k] = pv ? pv[k] : 0;
        const int64_t pe = pv ? pv[q->r + k] : 0;
        if (q->img[k] < 1 || q->blk[k] < 1 || q->s[k] < 1 || q->d[k] < 1 || q->pb[k] < 0 || pe < 0 ||
            q->img[k] > (1 << 20) || q->blk[k] > (1 << 20) || q->s[k] > (1 << 20) || q->d[k] > (1 << 20) ||
            q->pb[k] > (1 << 20) || pe > (1 << 20))
            return wgc_error(g, n, WG_ERR_INVALID, "bad geometry in spatial dim %d", k);
        const int64_t span = q->d[k] * (q->blk[k] - 1) + 1, room = q->img[k] + q->pb[k] + pe;
        q->cnt[k] = room >= span ? (room - span) / q->s[k] + 1 : 0;
        q->K *= q->blk[k];
        q->L *= q->cnt[k];
    }
    q->N = x->shape.dims[0];
    if (q->K == 0 || x->shape.dims[1] % q->K || x->shape.dims[2] != q->L)
        return wgc_error(g, n, WG_ERR_INVALID, "input [%lld, %lld, %lld] does not hold C * %lld rows of %lld block positions",
                         (long long)x->shape.dims[0], (long long)x->shape.dims[1], (long long)x->shape.dims[2],
                         (long long)q->K, (long long)q->L);
    q->C = x->shape.dims[1] / q->K;
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input has 2^31 or more elements");
    return WG_OK;
}

static wg_status col2im_infer(wgc_graph *g, wgc_node *n)
{
    c2i_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    wgc_shape y = {.rank = q.r + 2, .dims = {q.N, q.C}};
    for (int k = 0; k < q.r; k++)
        y.dims[2 + k] = q.img[k];
    if (wgc_numel(&y) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "output has 2^31 or more elements");
    wgc_set_output(g, n, 0, wgc_in(g, n, 0)->dtype, &y);
    return WG_OK;
}

static wg_status col2im_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    c2i_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    int64_t P = 1;
    for (int k = 0; k < q.r; k++)
        P *= q.img[k];
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\n"
                "for (int32_t i = 0; i < %lld; i++) py[i] = 0;\n"
                "for (int32_t nc = 0; nc < %lld; nc++)\nfor (int32_t kk = 0; kk < %lld; kk++)\n"
                "for (int32_t l = 0; l < %lld; l++) {\nint32_t kr = kk, lr = l, ok = 1;\nint64_t pix = 0;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]),
             (long long)(q.N * q.C * P), (long long)(q.N * q.C), (long long)q.K, (long long)q.L);
    /* decompose kk over block_shape and l over the block grid, last dim fastest */
    int64_t stride = 1;
    for (int k = q.r - 1; k >= 0; k--) {
        wgc_emit(e, "{ const int64_t a = kr %% %lld, b = lr %% %lld; kr /= %lld; lr /= %lld;\n"
                    "const int64_t p = b * %lld - %lld + a * %lld; ok &= p >= 0 && p < %lld; pix += p * %lld; }\n",
                 (long long)q.blk[k], (long long)q.cnt[k], (long long)q.blk[k], (long long)q.cnt[k],
                 (long long)q.s[k], (long long)q.pb[k], (long long)q.d[k], (long long)q.img[k], (long long)stride);
        stride *= q.img[k];
    }
    wgc_emit(e, "if (ok) py[(int64_t)nc * %lld + pix] += px[((int64_t)nc * %lld + kk) * %lld + l];\n}\n}\n",
             (long long)P, (long long)q.K, (long long)q.L);
    return WG_OK;
}

const wgc_op_def wgc_op_col2im = {.infer = col2im_infer, .emit = col2im_emit};
