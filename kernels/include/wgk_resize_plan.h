/*
 * wgk_resize_plan.h: Resize's rules, in one place for the compiler and the module.
 *
 * A plan is everything about one Resize once its sizes are known: the input and output
 * sizes, the scale and roi of each axis and the interpolation attributes. From it come
 * the output sizes (from scales or from sizes), each output coordinate's taps (input
 * index, weight), and the tables wgk_f32_resize / wgk_f32_resize2d apply. The compiler
 * builds the tables itself when every size is known (src/ops/resize.c puts them in the
 * weights); a Resize whose sizes, scales or roi the module only learns at run time builds
 * them in scratch with the same functions (kernels/resize/f32-resize-planned.c), so the
 * two give the same taps to the bit. The coordinate and coefficient formulas follow the
 * ONNX reference implementation term by term, in double precision.
 *
 * Static inline: the compiler (native) and the kernels (wasm32) both include this file.
 */
#ifndef WGK_RESIZE_PLAN_H
#define WGK_RESIZE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define WGK_RESIZE_PLAN_MAX_RANK 8

enum { WGK_RS_NEAREST, WGK_RS_LINEAR, WGK_RS_CUBIC };
enum {
    WGK_RS_HALF_PIXEL, WGK_RS_HALF_PIXEL_SYM, WGK_RS_PYTORCH, WGK_RS_ALIGN, WGK_RS_ASYM,
    WGK_RS_TF_CROP, WGK_RS_TF_HALF_NN
};
enum { WGK_RS_PREFER_FLOOR, WGK_RS_PREFER_CEIL, WGK_RS_FLOOR, WGK_RS_CEIL };
/* keep_aspect_ratio_policy */
enum { WGK_RS_STRETCH, WGK_RS_NOT_LARGER, WGK_RS_NOT_SMALLER };

/* Scales and sizes are kept in these ranges (ONNX sets none; the 32-bit kernel needs some). */
#define WGK_RESIZE_MAX_SCALE 1e6
#define WGK_RESIZE_MAX_SIZE ((int64_t)1 << 30)

typedef struct wgk_resize_plan {
    int rank;
    int mode, ctm, nearest; /* WGK_RS_* */
    int exclude, antialias;
    double A; /* cubic_coeff_a */
    int64_t in[WGK_RESIZE_PLAN_MAX_RANK], out[WGK_RESIZE_PLAN_MAX_RANK];
    double scale[WGK_RESIZE_PLAN_MAX_RANK];
    double roi_s[WGK_RESIZE_PLAN_MAX_RANK], roi_e[WGK_RESIZE_PLAN_MAX_RANK];
} wgk_resize_plan;

/* Every axis unchanged: out = in, scale 1, roi 0..1 (in[] must be set). */
static inline void wgk_resize_plan_identity(wgk_resize_plan *p)
{
    for (int d = 0; d < p->rank; d++) {
        p->out[d] = p->in[d];
        p->scale[d] = 1.0;
        p->roi_s[d] = 0.0;
        p->roi_e[d] = 1.0;
    }
}

/* Output sizes from scales s[i] of axes[i]: out = floor(s * in), 0 for a small enough
 * scale (as in onnxruntime; the compiler refuses that at compile time). Returns -1, or the
 * index i of a scale that is not positive or is past WGK_RESIZE_MAX_SCALE. */
static inline int wgk_resize_plan_scales(wgk_resize_plan *p, const int *axes, int na, const double *s)
{
    for (int i = 0; i < na; i++) {
        const int d = axes[i];
        if (!(s[i] > 0) || s[i] > WGK_RESIZE_MAX_SCALE)
            return i;
        p->scale[d] = s[i];
        p->out[d] = (int64_t)__builtin_floor(s[i] * (double)p->in[d]);
    }
    return -1;
}

/* Output sizes from sizes v[i] of axes[i] under keep_aspect_ratio_policy keep: stretch
 * takes them as they are; the others scale every listed axis by the smallest (not_larger)
 * or largest (not_smaller) of the ratios, rounding half up. Returns -1, or the index i of a
 * size outside 1..WGK_RESIZE_MAX_SIZE. */
static inline int wgk_resize_plan_sizes(wgk_resize_plan *p, const int *axes, int na, const int64_t *v, int keep)
{
    double s[WGK_RESIZE_PLAN_MAX_RANK], pick = 0;
    for (int i = 0; i < na; i++) {
        if (v[i] < 1 || v[i] > WGK_RESIZE_MAX_SIZE)
            return i;
        p->out[axes[i]] = v[i];
        s[i] = (double)v[i] / (double)p->in[axes[i]];
        if (i == 0 || (keep == WGK_RS_NOT_LARGER && s[i] < pick) || (keep == WGK_RS_NOT_SMALLER && s[i] > pick))
            pick = s[i];
    }
    for (int i = 0; i < na; i++) {
        const int d = axes[i];
        if (keep != WGK_RS_STRETCH) {
            p->scale[d] = pick;
            p->out[d] = (int64_t)(pick * (double)p->in[d] + 0.5);
        } else {
            p->scale[d] = s[i];
        }
    }
    return -1;
}

/* Source coordinate of output coordinate xi on axis d; *outside is set for
 * tf_crop_and_resize coordinates outside the input. */
static inline double wgk_resize_source_coord(const wgk_resize_plan *p, int d, int64_t xi, int *outside)
{
    const double x = (double)xi, in = (double)p->in[d], s = p->scale[d];
    const double out_w = s * in; /* the reference uses scale * input size, not the output size */
    *outside = 0;
    switch (p->ctm) {
    case WGK_RS_ALIGN:
        return out_w == 1 ? 0.0 : x * (in - 1) / (out_w - 1);
    case WGK_RS_ASYM:
        return x / s;
    case WGK_RS_TF_CROP: {
        const double a = p->roi_s[d], b = p->roi_e[d];
        double v = out_w == 1 ? (b - a) * (in - 1) / 2 : x * (b - a) * (in - 1) / (out_w - 1);
        v += a * (in - 1);
        *outside = v < 0 || v > in - 1;
        return v;
    }
    case WGK_RS_TF_HALF_NN:
        return (x + 0.5) / s;
    case WGK_RS_PYTORCH:
        return out_w == 1 ? -0.5 : (x + 0.5) / s - 0.5;
    case WGK_RS_HALF_PIXEL_SYM: {
        const double adjustment = (double)p->out[d] / out_w;
        const double center = in / 2;
        const double offset = center * (1 - adjustment);
        return offset + (x + 0.5) / s - 0.5;
    }
    default: /* WGK_RS_HALF_PIXEL */
        return (x + 0.5) / s - 0.5;
    }
}

static inline double wgk_resize_cubic_w(double x, double A)
{
    x = __builtin_fabs(x);
    if (x <= 1)
        return (A + 2) * x * x * x - (A + 3) * x * x + 1;
    if (x < 2)
        return A * x * x * x - 5 * A * x * x + 8 * A * x - 4 * A;
    return 0.0;
}

/* Tap count of axis d (the same for every output coordinate). */
static inline int wgk_resize_tap_count(const wgk_resize_plan *p, int d)
{
    if (p->mode == WGK_RS_NEAREST)
        return 2;
    const double s = p->scale[d] > 1.0 ? 1.0 : p->scale[d];
    if (p->mode == WGK_RS_LINEAR)
        return p->antialias ? 2 - 2 * (int)(__builtin_floor(-1 / s) + 1) : 2;
    return p->antialias ? 2 - 2 * (int)(__builtin_floor(-2 / s) + 1) : 4;
}

/* Taps (index clamped into the input, weight) of output coordinate xi on axis d, nt of
 * them; returns 0 when the coordinate is outside the input (tf_crop_and_resize). */
static inline int wgk_resize_axis_taps(const wgk_resize_plan *p, int d, int64_t xi, int nt, int32_t *idx,
                                       double *w)
{
    int outside;
    const double xo = wgk_resize_source_coord(p, d, xi, &outside);
    if (outside)
        return 0;
    /* The reference takes the nt input points nearest to xo, preferring lower ones on ties,
     * with a ratio in (0, 1]: base is floor(xo), or xo - 1 when xo is an integer. */
    const double fl = __builtin_floor(xo);
    const int integral = xo == fl;
    const double base = integral ? xo - 1 : fl;
    const double ratio = integral ? 1.0 : xo - fl;
    const int64_t first = (int64_t)base + 1 - nt / 2;
    const double s = p->scale[d] > 1.0 ? 1.0 : p->scale[d];
    double sum = 0;
    for (int j = 0; j < nt; j++) {
        const double i = (double)(1 - nt / 2 + j); /* offset from base */
        double c;
        if (p->mode == WGK_RS_NEAREST) {
            int hi;
            if (integral)
                hi = 1;
            else if (p->nearest == WGK_RS_PREFER_FLOOR)
                hi = ratio > 0.5;
            else if (p->nearest == WGK_RS_PREFER_CEIL)
                hi = ratio >= 0.5;
            else
                hi = p->nearest == WGK_RS_CEIL;
            c = (j == 1) == hi ? 1.0 : 0.0;
        } else if (p->mode == WGK_RS_LINEAR) {
            if (p->antialias) {
                c = 1 - __builtin_fabs((i - ratio) * s);
                c = c < 0 ? 0 : c > 1 ? 1 : c;
            } else {
                c = j == 0 ? 1 - ratio : ratio;
            }
        } else if (p->antialias) {
            c = wgk_resize_cubic_w(s * (i - ratio), p->A);
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
    if (p->antialias && p->mode != WGK_RS_NEAREST && sum != 0)
        for (int j = 0; j < nt; j++)
            w[j] /= sum;
    if (p->exclude) {
        sum = 0;
        for (int j = 0; j < nt; j++) {
            const int64_t k = first + j;
            if (k < 0 || k >= p->in[d])
                w[j] = 0;
            sum += w[j];
        }
        if (sum != 0)
            for (int j = 0; j < nt; j++)
                w[j] /= sum;
    }
    for (int j = 0; j < nt; j++) {
        const int64_t k = first + j;
        idx[j] = (int32_t)(k < 0 ? 0 : k >= p->in[d] ? p->in[d] - 1 : k);
    }
    return 1;
}

/* The tables of wgk_resize.h for every axis: K[d] = the most nonzero taps of any output
 * coordinate of axis d (at least 1), entries from off[d]; idx = -1 at k = 0 marks a
 * coordinate outside the input. idx and w hold sum over d of out[d] * tap_count(d) entries
 * at least; ti and tw the largest tap count. Returns the entries used. */
static inline size_t wgk_resize_plan_tables(const wgk_resize_plan *p, int32_t *idx, float *w, int *K, int *off,
                                            int32_t *ti, double *tw)
{
    size_t used = 0;
    for (int d = 0; d < p->rank; d++) {
        const int nt = wgk_resize_tap_count(p, d);
        int k = 1;
        for (int64_t o = 0; o < p->out[d]; o++) {
            if (!wgk_resize_axis_taps(p, d, o, nt, ti, tw))
                continue;
            int nz = 0;
            for (int j = 0; j < nt; j++)
                nz += tw[j] != 0;
            k = nz > k ? nz : k;
        }
        K[d] = k;
        off[d] = (int)used;
        for (int64_t o = 0; o < p->out[d]; o++) {
            int32_t *ri = idx + used;
            float *rw = w + used;
            for (int j = 0; j < k; j++) {
                ri[j] = 0;
                rw[j] = 0.0f;
            }
            if (!wgk_resize_axis_taps(p, d, o, nt, ti, tw)) {
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
    return used;
}

/* The largest KH wgk_f32_resize2d accepts (its row cache; f32-resize2d.c MAX_KH). */
#define WGK_RESIZE2D_MAX_KH 16

/* Whether the tables suit wgk_f32_resize2d: rank >= 2, every axis before the last two
 * unchanged (one tap of weight 1 at its own index), no coordinate outside the input on
 * the last two, and a small KH. */
static inline int wgk_resize_plan_fits_2d(const wgk_resize_plan *p, const int *K, const int *off,
                                          const int32_t *idx, const float *w)
{
    const int r = p->rank;
    if (r < 2 || K[r - 2] > WGK_RESIZE2D_MAX_KH || K[r - 2] > wgk_resize_tap_count(p, r - 2))
        return 0;
    for (int d = 0; d < r - 2; d++) {
        if (K[d] != 1 || p->out[d] != p->in[d])
            return 0;
        for (int64_t o = 0; o < p->out[d]; o++)
            if (idx[off[d] + o] != o || w[off[d] + o] != 1.0f)
                return 0;
    }
    for (int d = r - 2; d < r; d++)
        for (int64_t o = 0; o < p->out[d]; o++)
            if (idx[off[d] + o * K[d]] < 0)
                return 0;
    return 1;
}

/* f > 0 when the last axis is nearest upsampling by the integer f (one tap of weight 1,
 * index o / f), which the 2-D kernel gathers with shuffles; else 0. */
static inline int wgk_resize_plan_nearest_factor(const wgk_resize_plan *p, const int *K, const int *off,
                                                 const int32_t *idx, const float *w)
{
    const int d = p->rank - 1;
    const int64_t f = p->out[d] / p->in[d];
    if (K[d] != 1 || f < 1 || f > 64)
        return 0;
    for (int64_t o = 0; o < p->out[d]; o++)
        if (idx[off[d] + o] != o / f || w[off[d] + o] != 1.0f)
            return 0;
    return (int)f;
}

/* Scratch bytes wgk_f32_resize_planned needs for output sizes out[] and tap capacities
 * cap[] (the most taps an axis may need): tw (double) first, then idx, w, ti and the 2-D
 * kernel's row cache (4-byte entries). Sizes at their bounds bound every smaller plan's. */
static inline size_t wgk_resize_planned_scratch(int rank, const int64_t *out, const int *cap)
{
    size_t entries = 0, maxcap = 1;
    for (int d = 0; d < rank; d++) {
        entries += (size_t)out[d] * (size_t)cap[d];
        maxcap = (size_t)cap[d] > maxcap ? (size_t)cap[d] : maxcap;
    }
    size_t bytes = 8 * maxcap + 8 * entries + 4 * maxcap;
    if (rank >= 2) {
        const size_t kh = cap[rank - 2] < WGK_RESIZE2D_MAX_KH ? (size_t)cap[rank - 2] : WGK_RESIZE2D_MAX_KH;
        bytes += 4 * kh * (size_t)out[rank - 1];
    }
    return bytes;
}

#endif
