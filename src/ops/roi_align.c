/*
 * roi_align.c: RoiAlign (float, double): for each region of interest, average or max of
 * bilinear samples on a sampling_ratio (or adaptive) grid per output bin; both
 * coordinate_transformation_modes (half_pixel, output_half_pixel). Inline loop following
 * ONNX's definition; a batch index outside X makes the module return WGK_ERR_INDEX.
 */
#include <string.h>

#include "../ir/symdim.h"
#include "helpers/inline_loops.h"
#include "sym.h"

static wg_status resolve(wgc_graph *g, const wgc_node *n, int *half_pixel, int *max_mode)
{
    static const int fl[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};
    wg_status st = wgc_check_data_input(g, n, 3, 3, fl);
    if (!st)
        st = wgc_check_input(g, n, 1, fl);
    if (!st)
        st = wgc_check_input(g, n, 2, wgc_index_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *r = wgc_in(g, n, 1), *b = wgc_in(g, n, 2);
    char a[128], c[128];
    if (x->shape.rank != 4)
        return wgc_error(g, n, WG_ERR_INVALID, "X '%s' must have rank 4", x->name);
    if (r->dtype != x->dtype || r->shape.rank != 2 || r->shape.dims[1] != 4 || b->shape.rank != 1 ||
        b->shape.dims[0] != r->shape.dims[0])
        return wgc_error(g, n, WG_ERR_INVALID, "rois %s and batch_indices %s must be [R, 4] (dtype of X) "
                         "and [R]", wgc_shape_str(&r->shape, a, sizeof a), wgc_shape_str(&b->shape, c, sizeof c));
    const char *ct = wgc_attr_str(n, "coordinate_transformation_mode",
                                  n->opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (!strcmp(ct, "half_pixel"))
        *half_pixel = 1;
    else if (!strcmp(ct, "output_half_pixel"))
        *half_pixel = 0;
    else
        return wgc_error(g, n, WG_ERR_INVALID, "coordinate_transformation_mode '%s' is unknown", ct);
    const char *m = wgc_attr_str(n, "mode", "avg");
    if (strcmp(m, "avg") && strcmp(m, "max"))
        return wgc_error(g, n, WG_ERR_INVALID, "mode '%s' is not avg or max", m);
    *max_mode = !strcmp(m, "max");
    const int64_t oh = wgc_attr_int(n, "output_height", 1), ow = wgc_attr_int(n, "output_width", 1);
    if (oh < 1 || ow < 1 || wgc_attr_int(n, "sampling_ratio", 0) < 0)
        return wgc_error(g, n, WG_ERR_INVALID, "output_height %lld / output_width %lld / sampling_ratio "
                         "out of range", (long long)oh, (long long)ow);
    /* R * C * oh * ow with an overflow check: the attributes can be anything. */
    const wgc_shape y = {.rank = 4, .dims = {r->shape.dims[0], x->shape.dims[1], oh, ow}};
    int64_t ny;
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 30) || !wgc_numel_checked(&y, &ny) ||
        ny >= ((int64_t)1 << 30))
        return wgc_error(g, n, WG_ERR_LIMIT, "X %s with %lld rois and output %lldx%lld is too large",
                         wgc_shape_str(&x->shape, a, sizeof a), (long long)r->shape.dims[0],
                         (long long)oh, (long long)ow);
    return WG_OK;
}

static wg_status roi_infer(wgc_graph *g, wgc_node *n)
{
    int hp, mx;
    wg_status st = resolve(g, n, &hp, &mx);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *r = wgc_in(g, n, 1);
    wgc_shape s = {.rank = 4, .dims = {r->shape.dims[0], x->shape.dims[1], wgc_attr_int(n, "output_height", 1),
                       wgc_attr_int(n, "output_width", 1)}};
    wgc_set_output(g, n, 0, x->dtype, &s);
    return WG_OK;
}

static wg_status roi_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    int hp, mx;
    wg_status st = resolve(g, n, &hp, &mx);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *r = wgc_in(g, n, 1), *bi = wgc_in(g, n, 2);
    const long long N = (long long)x->shape.dims[0], C = (long long)x->shape.dims[1];
    const long long H = (long long)x->shape.dims[2], W = (long long)x->shape.dims[3];
    const long long OH = (long long)wgc_attr_int(n, "output_height", 1);
    const long long OW = (long long)wgc_attr_int(n, "output_width", 1);
    const long long sr = (long long)wgc_attr_int(n, "sampling_ratio", 0);
    char scale[40];
    wgc_dlit(scale, sizeof scale, wgc_attr_float(n, "spatial_scale", 1.0f));
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nconst T *pr = (const T *)%s;\n"
                "const %s *pb = (const %s *)%s;\nT *py = (T *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             wgc_ctype(bi->dtype), wgc_ctype(bi->dtype), wgc_ptr(e, g, n->inputs[2]),
             wgc_ptr(e, g, n->outputs[0]));
    /* the count of rois at run time: a detector's proposals are a run-time size (roi_sym_infer) */
    wgc_emit(e, "for (int32_t q = 0, count = %s; q < count; q++) {\nint64_t bn = (int64_t)pb[q];\n"
                "if (bn < 0 || bn >= %lld) return WGK_ERR_INDEX;\n", wgc_dims_expr(e, &r->shape, 0, 1), N);
    wgc_emit(e, "const double off = %s;\n", hp ? "0.5" : "0.0");
    wgc_emit(e, "double sw = pr[q * 4] * %s - off, sh = pr[q * 4 + 1] * %s - off;\n", scale, scale);
    wgc_emit(e, "double rw = pr[q * 4 + 2] * %s - off - sw, rh = pr[q * 4 + 3] * %s - off - sh;\n", scale, scale);
    if (!hp)
        wgc_emit(e, "if (rw < 1) rw = 1;\nif (rh < 1) rh = 1;\n");
    wgc_emit(e, "double bh = rh / %lld, bw = rw / %lld;\n", OH, OW);
    if (sr > 0)
        wgc_emit(e, "int32_t gh = %lld, gw = %lld;\n", sr, sr);
    else /* adaptive: ceil of the bin size, bounded so that the casts stay in range */
        wgc_emit(e, "double gh_ = wgk__ceil(bh), gw_ = wgk__ceil(bw);\n"
                    "int32_t gh = !(gh_ > 0) ? 0 : gh_ > 4096 ? 4096 : (int32_t)gh_;\n"
                    "int32_t gw = !(gw_ > 0) ? 0 : gw_ > 4096 ? 4096 : (int32_t)gw_;\n");
    wgc_emit(e, "double cnt = gh * gw > 1 ? gh * gw : 1;\n");
    wgc_emit(e, "for (int32_t c = 0; c < %lld; c++) {\nconst T *xc = px + (bn * %lld + c) * %lld;\n", C, C, H * W);
    wgc_emit(e, "for (int32_t ph = 0; ph < %lld; ph++)\nfor (int32_t pw = 0; pw < %lld; pw++) {\n"
                "double acc = 0; int first = 1;\n", OH, OW);
    wgc_emit(e, "for (int32_t iy = 0; iy < gh; iy++) {\ndouble y0 = sh + ph * bh + (iy + 0.5) * bh / gh;\n"
                "for (int32_t ix = 0; ix < gw; ix++) {\ndouble y = y0, x = sw + pw * bw + (ix + 0.5) * bw / gw;\n");
    wgc_emit(e, "double v1 = 0, v2 = 0, v3 = 0, v4 = 0;\n");
    wgc_emit(e, "if (y >= -1.0 && y <= %lld && x >= -1.0 && x <= %lld) {\n", H, W); /* false for NaN */
    wgc_emit(e, "if (y < 0) y = 0;\nif (x < 0) x = 0;\nint32_t yl = (int32_t)y, xl = (int32_t)x, yh, xh;\n");
    wgc_emit(e, "if (yl >= %lld) { yh = yl = %lld; y = yl; } else yh = yl + 1;\n", H - 1, H - 1);
    wgc_emit(e, "if (xl >= %lld) { xh = xl = %lld; x = xl; } else xh = xl + 1;\n", W - 1, W - 1);
    wgc_emit(e, "double ly = y - yl, lx = x - xl, hy = 1 - ly, hx = 1 - lx;\n");
    wgc_emit(e, "v1 = hy * hx * xc[yl * %lld + xl]; v2 = hy * lx * xc[yl * %lld + xh];\n"
                "v3 = ly * hx * xc[yh * %lld + xl]; v4 = ly * lx * xc[yh * %lld + xh];\n}\n", W, W, W, W);
    if (mx)
        wgc_emit(e, "double v = v1;\nif (v2 > v) v = v2;\nif (v3 > v) v = v3;\nif (v4 > v) v = v4;\n"
                    "if (first || v > acc) acc = v;\nfirst = 0;\n}\n}\n");
    else
        wgc_emit(e, "acc += v1 + v2 + v3 + v4;\n(void)first;\n}\n}\nacc /= cnt;\n");
    wgc_emit(e, "py[((q * %lld + c) * %lld + ph) * %lld + pw] = (T)acc;\n}\n}\n}\n}\n", C, OH, OW);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* rois [R, 4] and batch_indices [R] of one symbolic or run-time count (a detector's
 * proposals); the feature map fixed: y is [R, C, oh, ow] (roi_emit loops over R, its
 * sizes read at run time: it is the sym.emit hook too) */
static wg_status roi_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    const wgc_tensor *r = wgc_in(g, n, 1), *b = wgc_in(g, n, 2);
    if (wgc_sym_has_symval_input(g, n) || wgc_shape_is_sym(&x->shape) || wgc_dim_is_sym(&r->shape, 1) ||
        r->shape.dims[0] != b->shape.dims[0] || memcmp(r->shape.sym[0], b->shape.sym[0], WGC_MAX_SYMS))
        return wgc_sym_refuse(g, n, "only rois and batch indices of one symbolic count over a fixed feature map");
    memcpy(y.sym[0], r->shape.sym[0], WGC_MAX_SYMS);
    return wgc_sym_set_out(g, n, 0, &y);
}

const wgc_op_def wgc_op_roi_align = {
    .infer = roi_infer,
    .emit = roi_emit,
    .sym = {.infer = roi_sym_infer, .emit = roi_emit},
};
