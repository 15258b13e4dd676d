/*
 * center_crop_pad.c: CenterCropPad (opset 18): along each of `axes` (default all) the input
 * is cropped or zero-padded to the constant `shape`, centred as ONNX's reference does (an odd
 * difference leaves the extra element at the end). Any element type; an inline loop that
 * reads y[o] = x[o + offset] (offset = crop start - pad start per axis) or 0 outside x.
 */
#include <stdio.h>

#include "helpers/read_axes.h"
#include "cast.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"

static wg_status resolve(wgc_graph *g, const wgc_node *n, wgc_shape *y, int64_t *off)
{
    static const int ints[] = {WG_DT_INT32, WG_DT_INT64, 0};
    wg_status st = wgc_check_two_inputs(g, n, wgc_cast_dtypes, ints);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    if (wg_dtype_packed_bits(x->dtype))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "dtype %s", wg_dtype_name(x->dtype));
    if (!s->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "shape input '%s' is computed at run time; only "
                         "constant values are supported", s->name);
    const int r = x->shape.rank;
    int axes[WG_MAX_RANK], na = r;
    size_t cnt = 0;
    const int64_t *av = wgc_attr_ints(n, "axes", &cnt);
    if (av) {
        if (cnt > (size_t)r)
            return wgc_error(g, n, WG_ERR_INVALID, "%zu axes for rank %d", cnt, r);
        na = (int)cnt;
        for (int k = 0; k < na; k++)
            if (!wgc_norm_axis(av[k], r, &axes[k]))
                return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d",
                                 (long long)av[k], r);
    } else {
        for (int k = 0; k < r; k++)
            axes[k] = k;
    }
    if (wgc_numel(&s->shape) != na)
        return wgc_error(g, n, WG_ERR_INVALID, "shape has %lld values for %d axes",
                         (long long)wgc_numel(&s->shape), na);
    *y = x->shape;
    for (int d = 0; d < r; d++)
        off[d] = 0;
    for (int k = 0; k < na; k++) {
        const int a = axes[k];
        const int64_t dim = x->shape.dims[a], sh = wgc_const_int(s, k);
        if (sh < 0 || sh > ((int64_t)1 << 31))
            return wgc_error(g, n, WG_ERR_INVALID, "shape value %lld", (long long)sh);
        y->dims[a] = sh;
        off[a] = sh < dim ? (dim - sh) / 2 : -((sh - dim) / 2);
    }
    if (wgc_numel(y) >= ((int64_t)1 << 31) || wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "2^31 or more elements");
    return WG_OK;
}

static wg_status center_crop_pad_infer(wgc_graph *g, wgc_node *n)
{
    wgc_shape y;
    int64_t off[WG_MAX_RANK];
    wg_status st = resolve(g, n, &y, off);
    if (st)
        return st;
    wgc_set_output(g, n, 0, wgc_in(g, n, 0)->dtype, &y);
    return WG_OK;
}

static wg_status center_crop_pad_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_shape y;
    int64_t off[WG_MAX_RANK];
    wg_status st = resolve(g, n, &y, off);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const size_t es = wg_dtype_size(x->dtype);
    const char *ct = es == 8 ? "uint64_t" : es == 4 ? "uint32_t" : es == 2 ? "uint16_t" : "uint8_t";
    if (wgc_numel(&y) == 0)
        return WG_OK;
    wgc_emit(e, "{\nconst %s *px = (const %s *)%s;\n%s *py = (%s *)%s;\n"
                "for (int32_t i = 0; i < %lld; i++) {\nint32_t rest = i, ok = 1;\nint64_t src = 0;\n",
             ct, ct, wgc_ptr(e, g, n->inputs[0]), ct, ct, wgc_ptr(e, g, n->outputs[0]),
             (long long)wgc_numel(&y));
    int64_t xs = 1;
    for (int d = y.rank - 1; d >= 0; d--) {
        wgc_emit(e, "{ int64_t c = rest %% %lld + %lld; rest /= %lld; ok &= c >= 0 && c < %lld; src += c * %lld; }\n",
                 (long long)y.dims[d], (long long)off[d], (long long)y.dims[d], (long long)x->shape.dims[d],
                 (long long)xs);
        xs *= x->shape.dims[d];
    }
    wgc_emit(e, "py[i] = ok ? px[src] : 0;\n}\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_center_crop_pad = {.infer = center_crop_pad_infer, .emit = center_crop_pad_emit};
