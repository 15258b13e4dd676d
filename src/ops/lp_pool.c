/*
 * lp_pool.c: LpPool, 1-D, 2-D and 3-D, NC[D][H]W float and double: y = (sum |x|^p)^(1/p)
 * over each window (kernel_shape, strides, pads, auto_pad, dilations and, from LpPool-18,
 * ceil_mode as the other pools, window.h), pads contributing nothing, summed in double.
 * LpPool-1, whose p was a float, is refused. As an inline loop
 * over a 3-D view (leading unit dims for 1-D and 2-D).
 */
#include <stdio.h>

#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"
#include "versions.h"
#include "helpers/sliding_window.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

static wg_status resolve(wgc_graph *g, const wgc_node *n, wgc_window *w)
{
    wg_status st = wgc_check_data_input(g, n, 1, 1, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int sr = x->shape.rank - 2;
    if (sr < 1 || sr > 3)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "LpPool with a rank-%d input (only 1-D, 2-D and 3-D)",
                         x->shape.rank);
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    if (wgc_op_version(n) < 2)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "LpPool-1 (p as a float attribute) is not supported");
    int64_t p = wgc_attr_int(n, "p", 2);
    if (p < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "p = %lld (must be >= 1)", (long long)p);
    return wgc_window_resolve(g, n, &x->shape.dims[2], sr, NULL, wgc_op_version(n) >= 18, w);
}

static wg_status lp_pool_infer(wgc_graph *g, wgc_node *n)
{
    wgc_window w;
    wg_status st = resolve(g, n, &w);
    if (st)
        return st;
    wgc_window_set_output(g, n, &w, 0, wgc_in(g, n, 0)->dtype);
    return WG_OK;
}

static wg_status lp_pool_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_window w;
    wg_status st = resolve(g, n, &w);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (wgc_numel(&wgc_out(g, n, 0)->shape) == 0)
        return WG_OK;
    long long in[3], out[3], k[3], s[3], d[3], pb[3];
    for (int i = 0; i < 3; i++) {
        const int j = i - (3 - w.rank);
        const bool unit = j < 0;
        in[i] = unit ? 1 : (long long)x->shape.dims[2 + j];
        out[i] = unit ? 1 : (long long)w.out[j];
        k[i] = unit ? 1 : (long long)w.k[j];
        s[i] = unit ? 1 : (long long)w.s[j];
        d[i] = unit ? 1 : (long long)w.d[j];
        pb[i] = unit ? 0 : (long long)w.pb[j];
    }
    const long long p = (long long)wgc_attr_int(n, "p", 2);
    char term[96];
    if (p == 1)
        snprintf(term, sizeof term, "wgk__fabs(v)");
    else if (p == 2)
        snprintf(term, sizeof term, "v * v");
    else
        snprintf(term, sizeof term, "wgk_pow(wgk__fabs(v), %lld.0)", p);
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\n", wgc_ctype(x->dtype),
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "for (int32_t c = 0; c < %lld; c++)\nfor (int32_t o0 = 0; o0 < %lld; o0++)\n"
                "for (int32_t o1 = 0; o1 < %lld; o1++)\nfor (int32_t o2 = 0; o2 < %lld; o2++) {\ndouble acc = 0;\n",
             (long long)(x->shape.dims[0] * x->shape.dims[1]), out[0], out[1], out[2]);
    wgc_emit(e, "for (int32_t k0 = 0; k0 < %lld; k0++) {\nconst int32_t i0 = o0 * %lld - %lld + k0 * %lld;\n"
                "if (i0 < 0 || i0 >= %lld) continue;\n",
             k[0], s[0], pb[0], d[0], in[0]);
    wgc_emit(e, "for (int32_t k1 = 0; k1 < %lld; k1++) {\nconst int32_t i1 = o1 * %lld - %lld + k1 * %lld;\n"
                "if (i1 < 0 || i1 >= %lld) continue;\n",
             k[1], s[1], pb[1], d[1], in[1]);
    wgc_emit(e, "for (int32_t k2 = 0; k2 < %lld; k2++) {\nconst int32_t i2 = o2 * %lld - %lld + k2 * %lld;\n"
                "if (i2 < 0 || i2 >= %lld) continue;\n"
                "const double v = px[((int64_t)c * %lld + i0) * %lld + (int64_t)i1 * %lld + i2];\nacc += %s;\n}\n}\n}\n",
             k[2], s[2], pb[2], d[2], in[2], in[0], in[1] * in[2], in[2], term);
    if (p == 1)
        wgc_emit(e, "py[(((int64_t)c * %lld + o0) * %lld + o1) * %lld + o2] = (T)acc;\n}\n}\n", out[0], out[1], out[2]);
    else if (p == 2)
        wgc_emit(e, "py[(((int64_t)c * %lld + o0) * %lld + o1) * %lld + o2] = (T)wgk__sqrt(acc);\n}\n}\n", out[0],
                 out[1], out[2]);
    else
        wgc_emit(e, "py[(((int64_t)c * %lld + o0) * %lld + o1) * %lld + o2] = (T)wgk_pow(acc, 1.0 / %lld);\n}\n}\n",
                 out[0], out[1], out[2], p);
    return WG_OK;
}

const wgc_op_def wgc_op_lp_pool = {.infer = lp_pool_infer, .emit = lp_pool_emit};
