/*
 * grid_sample.c: GridSample on 4-D inputs (float, double): modes nearest, (bi)linear and
 * (bi)cubic (Keys, a = -0.75), padding zeros / border / reflection, align_corners; as an
 * inline loop following ONNX's definition (coordinates are rounded to float as there).
 * 5-D and larger inputs (opset 20's N-D sampling) are reported unsupported.
 */
#include <string.h>

#include "helpers/inline_loops.h"

enum { GS_NEAREST, GS_LINEAR, GS_CUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

typedef struct gs_geom {
    int mode, pad, align;
    int64_t N, C, H, W, HO, WO;
    wgc_shape y; /* N, C, HO, WO */
} gs_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, gs_geom *q)
{
    static const int fl[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};
    wg_status st = wgc_check_data_input(g, n, 2, 2, fl);
    if (!st)
        st = wgc_check_input(g, n, 1, fl);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *gr = wgc_in(g, n, 1);
    char a[128], b[128];
    if (x->shape.rank != 4)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "X '%s' has rank %d; only 4-D (2 spatial dims) "
                         "sampling is supported", x->name, x->shape.rank);
    if (gr->shape.rank != 4 || gr->shape.dims[0] != x->shape.dims[0] || gr->shape.dims[3] != 2 ||
        gr->dtype != x->dtype)
        return wgc_error(g, n, WG_ERR_INVALID, "grid '%s' %s %s does not fit X %s (needs [N, H, W, 2])",
                         gr->name, wg_dtype_name(gr->dtype), wgc_shape_str(&gr->shape, a, sizeof a),
                         wgc_shape_str(&x->shape, b, sizeof b));
    const char *m = wgc_attr_str(n, "mode", n->opset >= 20 ? "linear" : "bilinear");
    if (!strcmp(m, "nearest"))
        q->mode = GS_NEAREST;
    else if (!strcmp(m, "bilinear") || !strcmp(m, "linear"))
        q->mode = GS_LINEAR;
    else if (!strcmp(m, "bicubic") || !strcmp(m, "cubic"))
        q->mode = GS_CUBIC;
    else
        return wgc_error(g, n, WG_ERR_INVALID, "mode '%s' is not nearest, linear or cubic", m);
    const char *p = wgc_attr_str(n, "padding_mode", "zeros");
    if (!strcmp(p, "zeros"))
        q->pad = GS_ZEROS;
    else if (!strcmp(p, "border"))
        q->pad = GS_BORDER;
    else if (!strcmp(p, "reflection"))
        q->pad = GS_REFLECTION;
    else
        return wgc_error(g, n, WG_ERR_INVALID, "padding_mode '%s' is not zeros, border or reflection", p);
    q->align = wgc_attr_int(n, "align_corners", 0) != 0;
    q->N = x->shape.dims[0];
    q->C = x->shape.dims[1];
    q->H = x->shape.dims[2];
    q->W = x->shape.dims[3];
    q->HO = gr->shape.dims[1];
    q->WO = gr->shape.dims[2];
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 30) || q->N * q->C * q->HO * q->WO >= ((int64_t)1 << 30))
        return wgc_error(g, n, WG_ERR_LIMIT, "tensors are too large");
    q->y = (wgc_shape){.rank = 4, .dims = {q->N, q->C, q->HO, q->WO}};
    return WG_OK;
}

WGC_INFER_BY_RESOLVE(gs_infer, gs_geom, resolve, q.y)

/* Emits the adjustment of coordinate v (a double) along a dim of size D with borders lo, hi. */
static void emit_adjust(wgc_emitter *e, const gs_geom *q, const char *v, long long D, const char *lo,
                        const char *hi)
{
    if (q->pad == GS_BORDER)
        wgc_emit(e, "if (%s < %s || %s > %s) %s = %s < 0 ? 0 : %s > %lld ? %lld : %s;\n", v, lo, v, hi, v, v,
                 v, D - 1, D - 1, v);
    else if (q->pad == GS_REFLECTION)
        wgc_emit(e, "GS_REFL(%s, %s, %s);\n", v, lo, hi);
}

/* Emits the fetch of p = X[yi][xi] with the padding rule. */
static void emit_fetch(wgc_emitter *e, const gs_geom *q)
{
    const long long H = (long long)q->H, W = (long long)q->W;
    if (q->pad == GS_ZEROS) {
        wgc_emit(e, "double p = (yi >= 0 && yi < %lld && xi >= 0 && xi < %lld) ? (double)xc[yi * %lld + xi] : 0;\n",
                 H, W, W);
    } else if (q->pad == GS_BORDER) {
        wgc_emit(e, "int32_t cy = yi < 0 ? 0 : yi > %lld ? %lld : yi, cx = xi < 0 ? 0 : xi > %lld ? %lld : xi;\n",
                 H - 1, H - 1, W - 1, W - 1);
        wgc_emit(e, "double p = xc[cy * %lld + cx];\n", W);
    } else {
        wgc_emit(e, "double fy = yi, fx = xi;\nGS_REFL(fy, ylo, yhi);\nGS_REFL(fx, xlo, xhi);\n");
        wgc_emit(e, "int32_t cy = (int32_t)fy, cx = (int32_t)fx;\ncy = cy < 0 ? 0 : cy > %lld ? %lld : cy;\n"
                    "cx = cx < 0 ? 0 : cx > %lld ? %lld : cx;\n", H - 1, H - 1, W - 1, W - 1);
        wgc_emit(e, "double p = xc[cy * %lld + cx];\n", W);
    }
}

/* Emits Keys cubic weights c[0..3] for the fraction t. */
static void emit_cubic(wgc_emitter *e, const char *c, const char *t)
{
    wgc_emit(e, "{ const double A = -0.75, u = %s + 1, s = 1 - %s, w = 2 - %s;\n", t, t, t);
    wgc_emit(e, "%s[0] = ((A * u - 5 * A) * u + 8 * A) * u - 4 * A;\n", c);
    wgc_emit(e, "%s[1] = ((A + 2) * %s - (A + 3)) * %s * %s + 1;\n", c, t, t, t);
    wgc_emit(e, "%s[2] = ((A + 2) * s - (A + 3)) * s * s + 1;\n", c);
    wgc_emit(e, "%s[3] = ((A * w - 5 * A) * w + 8 * A) * w - 4 * A; }\n", c);
}

static wg_status gs_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    gs_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const long long H = (long long)q.H, W = (long long)q.W, HO = (long long)q.HO, WO = (long long)q.WO;
    const long long C = (long long)q.C;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nconst T *pg = (const T *)%s;\nT *py = (T *)%s;\n",
             wgc_ctype(wgc_in(g, n, 0)->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->outputs[0]));
    /* reflect v into [lo, hi] by folding at the near border (the range may be empty) */
    wgc_emit(e, "#define GS_REFL(v, lo, hi) do { double rng_ = (hi) - (lo); "
                "if (rng_ <= 0) { (v) = (lo); break; } "
                "if ((v) < (lo)) { double dx_ = (lo) - (v); int64_t k_ = (int64_t)(dx_ / rng_); "
                "double r_ = dx_ - (double)k_ * rng_; (v) = k_ %% 2 == 0 ? (lo) + r_ : (hi) - r_; } "
                "else if ((v) > (hi)) { double dx_ = (v) - (hi); int64_t k_ = (int64_t)(dx_ / rng_); "
                "double r_ = dx_ - (double)k_ * rng_; (v) = k_ %% 2 == 0 ? (hi) - r_ : (lo) + r_; } } while (0)\n");
    if (q.align)
        wgc_emit(e, "const double xlo = 0, xhi = %lld, ylo = 0, yhi = %lld;\n", W - 1, H - 1);
    else
        wgc_emit(e, "const double xlo = -0.5, xhi = %lld.5, ylo = -0.5, yhi = %lld.5;\n", W - 1, H - 1);
    wgc_emit(e, "(void)xlo; (void)xhi; (void)ylo; (void)yhi;\n");
    wgc_emit(e, "for (int32_t b = 0; b < %lld; b++)\nfor (int32_t oh = 0; oh < %lld; oh++)\n"
                "for (int32_t ow = 0; ow < %lld; ow++) {\n", (long long)q.N, HO, WO);
    wgc_emit(e, "const T *gp = pg + (((int64_t)b * %lld + oh) * %lld + ow) * 2;\n", HO, WO);
    if (q.align)
        wgc_emit(e, "double x = (float)((gp[0] + 1.0) / 2.0 * %lld), y = (float)((gp[1] + 1.0) / 2.0 * %lld);\n",
                 W - 1, H - 1);
    else
        wgc_emit(e, "double x = (float)(((gp[0] + 1.0) * %lld - 1) / 2.0), y = (float)(((gp[1] + 1.0) * %lld - 1) / 2.0);\n",
                 W, H);
    if (q.mode == GS_NEAREST)
        wgc_emit(e, "x = wgk__rint(x); y = wgk__rint(y);\n");
    emit_adjust(e, &q, "x", W, "xlo", "xhi");
    emit_adjust(e, &q, "y", H, "ylo", "yhi");
    /* keep the casts below in range (a wasm float-to-int conversion traps): every tap of a
     * coordinate this far outside reads padding anyway */
    wgc_emit(e, "if (!(x >= -8)) x = -8; if (!(x <= %lld)) x = %lld;\n", W + 8, W + 8);
    wgc_emit(e, "if (!(y >= -8)) y = -8; if (!(y <= %lld)) y = %lld;\n", H + 8, H + 8);
    int taps = q.mode == GS_NEAREST ? 1 : q.mode == GS_LINEAR ? 2 : 4;
    if (q.mode == GS_NEAREST) {
        wgc_emit(e, "int32_t x0 = (int32_t)x, y0 = (int32_t)y;\ndouble wx[1] = {1}, wy[1] = {1};\n");
    } else {
        wgc_emit(e, "double fx0 = wgk__floor(x), fy0 = wgk__floor(y), tx = x - fx0, ty = y - fy0;\n");
        wgc_emit(e, "int32_t x0 = (int32_t)fx0%s, y0 = (int32_t)fy0%s;\n", taps == 4 ? " - 1" : "",
                 taps == 4 ? " - 1" : "");
        wgc_emit(e, "double wx[%d], wy[%d];\n", taps, taps);
        if (q.mode == GS_LINEAR) {
            wgc_emit(e, "wx[0] = 1 - tx; wx[1] = tx; wy[0] = 1 - ty; wy[1] = ty;\n");
        } else {
            emit_cubic(e, "wx", "tx");
            emit_cubic(e, "wy", "ty");
        }
    }
    wgc_emit(e, "for (int32_t c = 0; c < %lld; c++) {\nconst T *xc = px + ((int64_t)b * %lld + c) * %lld;\n"
                "double acc = 0;\n", C, C, H * W);
    wgc_emit(e, "for (int32_t i = 0; i < %d; i++)\nfor (int32_t j = 0; j < %d; j++) {\n"
                "int32_t yi = y0 + i, xi = x0 + j;\n", taps, taps);
    emit_fetch(e, &q);
    wgc_emit(e, "acc += wy[i] * wx[j] * p;\n}\n");
    wgc_emit(e, "py[(((int64_t)b * %lld + c) * %lld + oh) * %lld + ow] = (T)acc;\n}\n}\n", C, HO, WO);
    wgc_emit(e, "#undef GS_REFL\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_grid_sample = {.infer = gs_infer, .emit = gs_emit};
