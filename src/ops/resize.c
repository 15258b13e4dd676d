/*
 * resize.c: Resize (opset 10, 11, 13, 18, 19) and Upsample (7, 9), float32, any rank.
 *
 * Scales, sizes and roi must be constant once folding has run. Everything about the
 * interpolation (mode, nearest_mode, coordinate_transformation_mode, cubic_coeff_a,
 * exclude_outside, antialias, roi) is resolved here at compile time into per-axis tap
 * tables (input index, weight) placed in the weights segment; the kernel
 * (kernels/resize/f32-resize.c) only sums taps; when only the last two axes change, the
 * 2-D kernel (f32-resize2d.c) applies the same tables row by row with SIMD, giving the
 * same floats. The coordinate and coefficient formulas
 * follow the ONNX reference implementation term by term, in double precision.
 * Resize-10 and Upsample use the asymmetric transform (the convention of the runtimes of
 * that time), with nearest rounding down; nearest downsampling there is ambiguous and
 * is reported as unsupported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_resize.h"
#include "helpers/host_elements.h"
#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"

enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { T_HALF_PIXEL, T_HALF_PIXEL_SYM, T_PYTORCH, T_ALIGN, T_ASYM, T_TF_CROP, T_TF_HALF_NN };
enum { N_PREFER_FLOOR, N_PREFER_CEIL, N_FLOOR, N_CEIL };

typedef struct rs_plan {
    int rank;
    int64_t in[WG_MAX_RANK], out[WG_MAX_RANK];
    double scale[WG_MAX_RANK];
    double roi_s[WG_MAX_RANK], roi_e[WG_MAX_RANK];
    int mode, ctm, nearest;
    double A;
    bool exclude, antialias;
    float extrapolation;
} rs_plan;

static int lookup(const char *s, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* A constant input that may be omitted ("" or an empty tensor): returns NULL then. */
static const wgc_tensor *opt_const(wgc_graph *g, const wgc_node *n, int i, const char *what,
                                   wg_status *st)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    *st = WG_OK;
    if (!t || (t->has_shape && wgc_numel(&t->shape) == 0))
        return NULL;
    if (!t->data) {
        *st = wgc_error(g, n, WG_ERR_UNSUPPORTED,
                        "%s input '%s' is computed at run time; only %s known at compile time "
                        "are supported", what, t->name, what);
        return NULL;
    }
    if (t->shape.rank != 1 || !wgc_elem_supported(t->dtype)) {
        *st = wgc_error(g, n, WG_ERR_INVALID, "%s input '%s' must be a 1-D numeric tensor", what,
                        t->name);
        return NULL;
    }
    return t;
}

static wg_status resolve(wgc_graph *g, const wgc_node *n, rs_plan *p)
{
    static const int f32_only[] = {WG_DT_FLOAT, 0};
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    static const char *const ctms[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                       "align_corners", "asymmetric", "tf_crop_and_resize",
                                       "tf_half_pixel_for_nn"};
    static const char *const nmodes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    const bool upsample = n->op == WGC_OP_UPSAMPLE;
    const bool legacy = upsample || n->opset < 11; /* Upsample, Resize-10 */
    wg_status st = upsample ? wgc_check_arity(g, n, 1, 2, 1, 1)
                            : wgc_check_arity(g, n, legacy ? 2 : 1, legacy ? 2 : 4, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, f32_only);
    if (st)
        return st;
    memset(p, 0, sizeof *p);
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = p->rank = x->shape.rank;
    if (r < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' is a scalar", x->name);
    const char *ms = wgc_attr_str(n, "mode", "nearest");
    if (legacy && !strcmp(ms, "bilinear"))
        ms = "linear";
    p->mode = lookup(ms, modes, 3);
    if (p->mode < 0 || (legacy && p->mode == M_CUBIC))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "mode '%s' is not supported", ms);
    const char *cs = legacy ? "asymmetric" : wgc_attr_str(n, "coordinate_transformation_mode", "half_pixel");
    p->ctm = lookup(cs, ctms, 7);
    if (p->ctm < 0 || (p->ctm == T_TF_HALF_NN && n->opset >= 13) ||
        (p->ctm == T_HALF_PIXEL_SYM && n->opset < 18))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "coordinate_transformation_mode '%s' is not defined at opset %d", cs, n->opset);
    const char *ns = legacy ? "floor" : wgc_attr_str(n, "nearest_mode", "round_prefer_floor");
    p->nearest = lookup(ns, nmodes, 4);
    if (p->nearest < 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "nearest_mode '%s' is not supported", ns);
    p->A = wgc_attr_float(n, "cubic_coeff_a", -0.75f);
    p->exclude = wgc_attr_int(n, "exclude_outside", 0) != 0;
    p->antialias = wgc_attr_int(n, "antialias", 0) != 0;
    p->extrapolation = wgc_attr_float(n, "extrapolation_value", 0.0f);
    const char *kp = wgc_attr_str(n, "keep_aspect_ratio_policy", "stretch");
    int keep = lookup(kp, (const char *const[]){"stretch", "not_larger", "not_smaller"}, 3);
    if (keep < 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "keep_aspect_ratio_policy '%s' is not supported", kp);

    /* axes (opset 18): the axes that scales/sizes/roi list; the others keep their size. */
    int axes[WG_MAX_RANK], na = r;
    size_t nax = 0;
    const int64_t *av = wgc_attr_ints(n, "axes", &nax);
    bool seen[WG_MAX_RANK] = {0};
    if (av) {
        if (nax < 1 || nax > (size_t)r)
            return wgc_error(g, n, WG_ERR_INVALID, "axes has %zu values for rank %d", nax, r);
        na = (int)nax;
        for (int i = 0; i < na; i++) {
            if (!wgc_norm_axis(av[i], r, &axes[i]) || seen[axes[i]])
                return wgc_error(g, n, WG_ERR_INVALID, "axes[%d] = %lld is invalid or repeated", i,
                                 (long long)av[i]);
            seen[axes[i]] = true;
        }
    } else {
        for (int i = 0; i < r; i++)
            axes[i] = i;
    }
    for (int d = 0; d < r; d++) {
        p->in[d] = p->out[d] = x->shape.dims[d];
        p->scale[d] = 1.0;
        p->roi_s[d] = 0.0;
        p->roi_e[d] = 1.0;
        if (p->in[d] < 1)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input '%s' has an empty dim %d", x->name, d);
    }

    const wgc_tensor *roi = NULL, *scales = NULL, *sizes = NULL;
    size_t nsc = 0;
    const float *sc_attr = NULL;
    if (upsample && n->opset < 9) {
        sc_attr = wgc_attr_floats(n, "scales", &nsc);
        if (!sc_attr)
            return wgc_error(g, n, WG_ERR_INVALID, "attribute scales is required");
    } else if (legacy) {
        if (!(scales = opt_const(g, n, 1, "scales", &st)))
            return st ? st : wgc_error(g, n, WG_ERR_INVALID, "input scales is required");
    } else {
        if (!(roi = opt_const(g, n, 1, "roi", &st)) && st)
            return st;
        if (!(scales = opt_const(g, n, 2, "scales", &st)) && st)
            return st;
        if (!(sizes = opt_const(g, n, 3, "sizes", &st)) && st)
            return st;
        if (!scales == !sizes)
            return wgc_error(g, n, WG_ERR_INVALID, "exactly one of scales and sizes must be given");
    }
    if (scales)
        nsc = (size_t)scales->shape.dims[0];
    if ((scales || sc_attr) && nsc != (size_t)na)
        return wgc_error(g, n, WG_ERR_INVALID, "scales has %zu values, expected %d", nsc, na);
    if (sizes && sizes->shape.dims[0] != na)
        return wgc_error(g, n, WG_ERR_INVALID, "sizes has %lld values, expected %d",
                         (long long)sizes->shape.dims[0], na);
    if (roi && p->ctm == T_TF_CROP) {
        if (roi->shape.dims[0] != 2 * na)
            return wgc_error(g, n, WG_ERR_INVALID, "roi has %lld values, expected %d",
                             (long long)roi->shape.dims[0], 2 * na);
        for (int i = 0; i < na; i++) {
            p->roi_s[axes[i]] = wgc_elem_get_f(roi->data, roi->dtype, i);
            p->roi_e[axes[i]] = wgc_elem_get_f(roi->data, roi->dtype, na + i);
            /* roi is in normalized coordinates; NaN, infinities or huge values would make
             * the source coordinates NaN, which no index conversion survives. */
            if (!(fabs(p->roi_s[axes[i]]) <= 1e9) || !(fabs(p->roi_e[axes[i]]) <= 1e9))
                return wgc_error(g, n, WG_ERR_INVALID, "roi %g..%g of axis %d is not a finite "
                                 "normalized range", p->roi_s[axes[i]], p->roi_e[axes[i]], axes[i]);
        }
    }
    if (sizes) {
        double s[WG_MAX_RANK], pick = 0;
        for (int i = 0; i < na; i++) {
            int64_t v = wgc_elem_get_i(sizes->data, sizes->dtype, i);
            if (v < 1 || v > ((int64_t)1 << 30))
                return wgc_error(g, n, WG_ERR_INVALID, "sizes[%d] = %lld is out of range", i, (long long)v);
            p->out[axes[i]] = v;
            s[i] = (double)v / (double)p->in[axes[i]];
            if (i == 0 || (keep == 1 && s[i] < pick) || (keep == 2 && s[i] > pick))
                pick = s[i];
        }
        for (int i = 0; i < na; i++) {
            int d = axes[i];
            if (keep) {
                p->scale[d] = pick;
                p->out[d] = (int64_t)(pick * (double)p->in[d] + 0.5);
            } else {
                p->scale[d] = s[i];
            }
        }
    } else {
        for (int i = 0; i < na; i++) {
            int d = axes[i];
            double s = sc_attr ? sc_attr[i] : (float)wgc_elem_get_f(scales->data, scales->dtype, i);
            if (!(s > 0) || s > 1e6)
                return wgc_error(g, n, WG_ERR_INVALID, "scales[%d] = %g is not a positive scale", i, s);
            p->scale[d] = s;
            p->out[d] = (int64_t)floor(s * (double)p->in[d]);
            if (p->out[d] < 1)
                return wgc_error(g, n, WG_ERR_INVALID, "scales[%d] = %g gives an empty output dim %d",
                                 i, s, d);
        }
    }
    for (int d = 0; d < r; d++)
        if (legacy && p->mode == M_NEAREST && p->scale[d] < 1.0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "nearest downsampling (scale %g on dim %d) in %s-%d has no agreed "
                             "rounding; use Resize-11 or later", p->scale[d], d, n->op_type, n->opset);
    int64_t total = 1, taps_total = 0;
    for (int d = 0; d < r; d++) {
        /* Checked at every step (scales up to 1e6 make any dim huge): each factor and the
         * running product stay below 2^31, so the product cannot overflow. */
        if (p->out[d] >= ((int64_t)1 << 31) || (total *= p->out[d]) >= ((int64_t)1 << 31))
            return wgc_error(g, n, WG_ERR_LIMIT, "the output reaches 2^31 elements at dim %d (size "
                             "%lld): too large for the 32-bit kernel", d, (long long)p->out[d]);
        taps_total += p->out[d];
    }
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31) || total >= ((int64_t)1 << 31) ||
        taps_total >= ((int64_t)1 << 24))
        return wgc_error(g, n, WG_ERR_LIMIT, "Resize is too large for the 32-bit kernel");
    return WG_OK;
}

/* Source coordinate of output coordinate x on axis d (ONNX reference formulas). *outside
 * is set for tf_crop_and_resize coordinates outside the input. */
static double source_coord(const rs_plan *p, int d, int64_t xi, bool *outside)
{
    const double x = (double)xi, in = (double)p->in[d], s = p->scale[d];
    const double out_w = s * in; /* the reference uses scale * input size, not the output size */
    *outside = false;
    switch (p->ctm) {
    case T_ALIGN:
        return out_w == 1 ? 0.0 : x * (in - 1) / (out_w - 1);
    case T_ASYM:
        return x / s;
    case T_TF_CROP: {
        const double a = p->roi_s[d], b = p->roi_e[d];
        double v = out_w == 1 ? (b - a) * (in - 1) / 2 : x * (b - a) * (in - 1) / (out_w - 1);
        v += a * (in - 1);
        *outside = v < 0 || v > in - 1;
        return v;
    }
    case T_TF_HALF_NN:
        return (x + 0.5) / s;
    case T_PYTORCH:
        return out_w == 1 ? -0.5 : (x + 0.5) / s - 0.5;
    case T_HALF_PIXEL_SYM: {
        const double adjustment = (double)p->out[d] / out_w;
        const double center = in / 2;
        const double offset = center * (1 - adjustment);
        return offset + (x + 0.5) / s - 0.5;
    }
    case T_HALF_PIXEL:
        return (x + 0.5) / s - 0.5;
    }
    /* ctm is one of the modes above (read_plan rejects the others): NaN, never another
     * mode's coordinate, makes a missing case visible in every output. */
    return NAN;
}

static double cubic_w(double x, double A)
{
    x = fabs(x);
    if (x <= 1)
        return (A + 2) * x * x * x - (A + 3) * x * x + 1;
    if (x < 2)
        return A * x * x * x - 5 * A * x * x + 8 * A * x - 4 * A;
    return 0.0;
}

/* Tap count of axis d (the same for every output coordinate). */
static int tap_count(const rs_plan *p, int d)
{
    if (p->mode == M_NEAREST)
        return 2;
    double s = p->scale[d] > 1.0 ? 1.0 : p->scale[d];
    if (p->mode == M_LINEAR)
        return p->antialias ? 2 - 2 * (int)(floor(-1 / s) + 1) : 2;
    return p->antialias ? 2 - 2 * (int)(floor(-2 / s) + 1) : 4;
}

/* Taps (index clamped into the input, weight) of output coordinate xi on axis d; returns
 * false when the coordinate is outside the input (tf_crop_and_resize). */
static bool axis_taps(const rs_plan *p, int d, int64_t xi, int nt, int32_t *idx, double *w)
{
    bool outside;
    const double xo = source_coord(p, d, xi, &outside);
    if (outside)
        return false;
    /* The reference takes the nt input points nearest to xo, preferring lower ones on ties,
     * with a ratio in (0, 1]: base is floor(xo), or xo - 1 when xo is an integer. */
    const double fl = floor(xo);
    const bool integral = xo == fl;
    const double base = integral ? xo - 1 : fl;
    const double ratio = integral ? 1.0 : xo - fl;
    const int64_t first = (int64_t)base + 1 - nt / 2;
    const double s = p->scale[d] > 1.0 ? 1.0 : p->scale[d];
    double sum = 0;
    for (int j = 0; j < nt; j++) {
        const double i = (double)(1 - nt / 2 + j); /* offset from base */
        double c;
        if (p->mode == M_NEAREST) {
            bool hi;
            if (integral)
                hi = true;
            else if (p->nearest == N_PREFER_FLOOR)
                hi = ratio > 0.5;
            else if (p->nearest == N_PREFER_CEIL)
                hi = ratio >= 0.5;
            else
                hi = p->nearest == N_CEIL;
            c = (j == 1) == hi ? 1.0 : 0.0;
        } else if (p->mode == M_LINEAR) {
            if (p->antialias) {
                c = 1 - fabs((i - ratio) * s);
                c = c < 0 ? 0 : c > 1 ? 1 : c;
            } else {
                c = j == 0 ? 1 - ratio : ratio;
            }
        } else if (p->antialias) {
            c = cubic_w(s * (i - ratio), p->A);
        } else {
            const double A = p->A, r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
            switch (j) {
            case 0: c = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A; break;
            case 1: c = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1; break;
            case 2: c = ((A + 2) * q - (A + 3)) * q * q + 1; break;
            default: c = ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A; break;
            }
        }
        w[j] = c;
        sum += c;
    }
    if (p->antialias && p->mode != M_NEAREST && sum != 0)
        for (int j = 0; j < nt; j++)
            w[j] /= sum;
    if (p->exclude) {
        sum = 0;
        for (int j = 0; j < nt; j++) {
            int64_t k = first + j;
            if (k < 0 || k >= p->in[d])
                w[j] = 0;
            sum += w[j];
        }
        if (sum != 0)
            for (int j = 0; j < nt; j++)
                w[j] /= sum;
    }
    for (int j = 0; j < nt; j++) {
        int64_t k = first + j;
        idx[j] = (int32_t)(k < 0 ? 0 : k >= p->in[d] ? p->in[d] - 1 : k);
    }
    return true;
}

/* The largest KH the 2-D kernel accepts (its row cache; f32-resize2d.c MAX_KH). */
#define FAST_MAX_KH 16

/* Whether the tables suit wgk_f32_resize2d: rank >= 2, every axis before the last two
 * unchanged (one tap of weight 1 at its own index), no coordinate outside the input on
 * the last two, and a small KH. */
static bool fast_2d(const rs_plan *p, const int *K, const int *off, const int32_t *idx,
                    const float *wt)
{
    const int r = p->rank;
    if (r < 2 || K[r - 2] > FAST_MAX_KH || K[r - 2] > tap_count(p, r - 2))
        return false;
    for (int d = 0; d < r - 2; d++) {
        if (K[d] != 1 || p->out[d] != p->in[d])
            return false;
        for (int64_t o = 0; o < p->out[d]; o++)
            if (idx[off[d] + o] != o || wt[off[d] + o] != 1.0f)
                return false;
    }
    for (int d = r - 2; d < r; d++)
        for (int64_t o = 0; o < p->out[d]; o++)
            if (idx[off[d] + o * K[d]] < 0)
                return false;
    return true;
}

/* f > 0 when the last axis is nearest upsampling by the integer f (one tap of weight 1,
 * index o / f), which the 2-D kernel gathers with shuffles; else 0. */
static int nearest_factor(const rs_plan *p, const int *K, const int *off, const int32_t *idx,
                          const float *wt)
{
    const int d = p->rank - 1;
    const int64_t f = p->out[d] / p->in[d];
    if (K[d] != 1 || f < 1 || f > 64)
        return 0;
    for (int64_t o = 0; o < p->out[d]; o++)
        if (idx[off[d] + o] != o / f || wt[off[d] + o] != 1.0f)
            return 0;
    return (int)f;
}

/* Row cache of the 2-D kernel: KH rows of OW floats, KH <= the tap count of axis r-2. */
static size_t resize_scratch(const wgc_graph *g, const wgc_node *n)
{
    rs_plan p;
    if (resolve((wgc_graph *)g, n, &p) || p.rank < 2)
        return 0;
    int kh = tap_count(&p, p.rank - 2);
    kh = kh > FAST_MAX_KH ? FAST_MAX_KH : kh;
    return sizeof(float) * (size_t)kh * (size_t)p.out[p.rank - 1];
}

static wg_status resize_infer(wgc_graph *g, wgc_node *n)
{
    rs_plan p;
    wg_status st = resolve(g, n, &p);
    if (st)
        return st;
    wgc_shape y = {.rank = p.rank};
    for (int d = 0; d < p.rank; d++)
        y.dims[d] = p.out[d];
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

static wg_status resize_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    rs_plan p;
    int32_t *idx = NULL, *ti = NULL;
    float *wt = NULL;
    double *tw = NULL;
    wg_status st = resolve(g, n, &p);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    /* Entries: per axis out[d] * K[d], K[d] = nonzero taps at most (at least 1). */
    int maxnt = 0;
    size_t cap = 0;
    for (int d = 0; d < p.rank; d++) {
        int nt = tap_count(&p, d);
        maxnt = nt > maxnt ? nt : maxnt;
        cap += (size_t)p.out[d] * (size_t)nt;
    }
    idx = malloc(cap * sizeof *idx);
    wt = malloc(cap * sizeof *wt);
    ti = malloc((size_t)maxnt * sizeof *ti);
    tw = malloc((size_t)maxnt * sizeof *tw);
    if (!idx || !wt || !ti || !tw) {
        st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory building resize tables");
        goto done;
    }
    int K[WG_MAX_RANK], off[WG_MAX_RANK];
    size_t used = 0;
    for (int d = 0; d < p.rank; d++) {
        const int nt = tap_count(&p, d);
        /* First pass: the largest number of nonzero taps of any output coordinate. */
        int k = 1;
        for (int64_t o = 0; o < p.out[d]; o++) {
            if (!axis_taps(&p, d, o, nt, ti, tw))
                continue;
            int nz = 0;
            for (int j = 0; j < nt; j++)
                nz += tw[j] != 0;
            k = nz > k ? nz : k;
        }
        K[d] = k;
        off[d] = (int)used;
        for (int64_t o = 0; o < p.out[d]; o++) {
            int32_t *ri = idx + used;
            float *rw = wt + used;
            for (int j = 0; j < k; j++) {
                ri[j] = 0;
                rw[j] = 0.0f;
            }
            if (!axis_taps(&p, d, o, nt, ti, tw)) {
                ri[0] = -1;
            } else {
                int m = 0;
                for (int j = 0; j < nt; j++)
                    if (tw[j] != 0) {
                        ri[m] = ti[j];
                        rw[m++] = (float)tw[j];
                    }
            }
            used += (size_t)k;
        }
    }
    const char *iexpr, *wexpr;
    if ((st = wgc_weight(e, idx, used * sizeof *idx, &iexpr)) ||
        (st = wgc_weight(e, wt, used * sizeof *wt, &wexpr))) {
        st = wgc_error(g, n, st, "out of memory storing resize tables");
        goto done;
    }
    if (fast_2d(&p, K, off, idx, wt)) {
        const int r = p.rank;
        int64_t nc = 1;
        for (int d = 0; d < r - 2; d++)
            nc *= p.in[d];
        wgc_emit(e, "wgk_f32_resize2d(&(const wgk_resize2d_args){.NC = %lld, .H = %lld, .W = %lld, "
                    ".OH = %lld, .OW = %lld, .KH = %d, .KW = %d,\n",
                 (long long)nc, (long long)p.in[r - 2], (long long)p.in[r - 1],
                 (long long)p.out[r - 2], (long long)p.out[r - 1], K[r - 2], K[r - 1]);
        wgc_emit(e, "    .ih = (const int32_t *)%s + %d, .iw = (const int32_t *)%s + %d, "
                    ".wh = (const float *)%s + %d, .ww = (const float *)%s + %d, .fw = %d,\n",
                 iexpr, off[r - 2], iexpr, off[r - 1], wexpr, off[r - 2], wexpr, off[r - 1],
                 nearest_factor(&p, K, off, idx, wt));
        wgc_emit(e, "    .x = %s, .y = %s, .scratch = %s});\n", wgc_ptr(e, g, n->inputs[0]),
                 wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e));
        wgc_emit_fused_act(e, g, n, n->outputs[0]);
        goto done;
    }
    char b_in[256], b_out[256], b_k[256], b_off[256];
    int64_t vk[WG_MAX_RANK], voff[WG_MAX_RANK];
    for (int d = 0; d < p.rank; d++) {
        vk[d] = K[d];
        voff[d] = off[d];
    }
    /* wgc_i32_list gives "(const int32_t[]){...}"; the struct wants a plain initializer. */
    wgc_emit(e, "wgk_f32_resize(&(const wgk_resize_args){.rank = %d, .in = %s, .out = %s, .K = %s, "
                ".off = %s,\n",
             p.rank, wgc_i32_list(b_in, sizeof b_in, p.in, p.rank) + 17,
             wgc_i32_list(b_out, sizeof b_out, p.out, p.rank) + 17,
             wgc_i32_list(b_k, sizeof b_k, vk, p.rank) + 17,
             wgc_i32_list(b_off, sizeof b_off, voff, p.rank) + 17);
    wgc_emit(e, "    .idx = %s, .w = %s, .extrapolation = %s, .x = %s, .y = %s});\n", iexpr, wexpr,
             wgc_float(e, p.extrapolation), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
done:
    free(idx);
    free(wt);
    free(ti);
    free(tw);
    return st;
}

const wgc_op_def wgc_op_resize = {resize_infer, NULL, resize_emit, resize_scratch};
