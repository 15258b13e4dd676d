/*
 * resize.c: Resize (opset 10, 11, 13, 18, 19) and Upsample (7, 9), float32, any rank.
 *
 * With scales, sizes and roi constant and every dim fixed, everything about the
 * interpolation (mode, nearest_mode, coordinate_transformation_mode, cubic_coeff_a,
 * exclude_outside, antialias, roi) is resolved here at compile time into per-axis tap
 * tables (input index, weight) placed in the weights segment, by the rules of
 * kernels/include/wgk_resize_plan.h; the kernel (kernels/resize/f32-resize.c) only sums
 * taps; when only the last two axes change, the 2-D kernel (f32-resize2d.c) applies the
 * same tables row by row with SIMD, giving the same floats. A Resize with symbolic dims
 * or inputs computed at run time builds the same tables in the module (the section
 * "sizes decided in the module").
 * Resize-10 and Upsample use the asymmetric transform (the convention of the runtimes of
 * that time), with nearest rounding down; nearest downsampling there is ambiguous and
 * is reported as unsupported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_resize.h"
#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"
#include "sym.h"
#include "../../kernels/include/wgk_resize_plan.h"
#include <stdio.h>
#include "../ir/valrange.h"
#include "helpers/inline_loops.h"

/*
 * Resize and Upsample whose sizes the module decides (module ABI 2
 * "Run-time output dims" and "Run-time values").
 *
 * A Resize takes this path when its input has a symbolic dim, or its scales, sizes or roi
 * are computed at run time or hold symbolic values (sizes from Shape(skip), a U-Net's
 * decoder). Each output axis is then:
 *   - fixed: a constant scale or size on a fixed axis, or sizes at a fixed value;
 *   - a monomial of the symbols: an integer constant scale on a symbolic axis (k * h),
 *     or sizes holding symbolic values (Shape(skip)[2]);
 *   - a run-time symbol bounded from the inputs' bounds: sizes computed at run time
 *     (bounded by their value ranges, ir/valrange.h), a non-integer constant scale on a
 *     symbolic axis (floor(s * h), at most floor(s * h_max)).
 * Scales computed at run time decide sizes nothing bounds and are refused, saying that
 * sizes, or --const, would make the model compile. The module fills a wgk_resize_plan
 * with the actual sizes, checks each output size against its bound (WGK_ERR_SIZE_BOUND)
 * and the values against ONNX's rules (WGK_ERR_INDEX), and builds the tap tables in
 * scratch with the compiler's own functions (kernels/include/wgk_resize_plan.h).
 */
/* What a Resize node says before any value is read: attributes, the axes its inputs list,
 * and those inputs (NULL when omitted; maybe not constant). plan.in holds x's dims (at the
 * maxima when symbolic), plan.out = in, scales 1, roi 0..1. */
typedef struct wgc_resize_setup {
    wgk_resize_plan plan;
    bool legacy; /* Upsample or Resize-10: asymmetric, nearest rounding down */
    int keep;    /* WGK_RS_STRETCH ... */
    float extrapolation;
    int axes[WG_MAX_RANK], na;
    const float *scales_attr; /* Upsample-7's scales attribute, or NULL */
    const wgc_tensor *roi, *scales, *sizes;
} wgc_resize_setup;

/* Reads and checks n's attributes and inputs' dtypes and lengths (resize.c). */
static wg_status wgc_resize_setup_read(wgc_graph *g, const wgc_node *n, wgc_resize_setup *s);

/* The constant scales of s (the attribute or the scales input) into sc[0..na-1], each
 * checked: positive, at most WGK_RESIZE_MAX_SCALE, no nearest downsampling in Upsample or
 * Resize-10 (resize.c). */
static wg_status wgc_resize_const_scales(wgc_graph *g, const wgc_node *n, const wgc_resize_setup *s, double *sc);

/* Is n a Resize or Upsample whose input has a symbolic dim, or whose scales, sizes or roi
 * are not plain constants? */
static bool wgc_resize_is_runtime(const wgc_graph *g, const wgc_node *n);
/* Output 0's shape for x's shape as it stands (symbolic dims hidden or not). */
static wg_status wgc_resize_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y);
/* Scratch bytes of the planned kernel at the bounds. */
static size_t wgc_resize_runtime_scratch(wgc_graph *g, const wgc_node *n);
static wg_status wgc_resize_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n);

static int lookup(const char *s, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* An input that may be omitted ("" or an empty tensor): NULL then; else a 1-D numeric
 * tensor of a fixed length (its values may be computed at run time). */
static const wgc_tensor *opt_input(wgc_graph *g, const wgc_node *n, int i, const char *what, wg_status *st)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    *st = WG_OK;
    if (!t || (t->has_shape && wgc_numel(&t->shape) == 0 && !wgc_shape_is_sym(&t->shape)))
        return NULL;
    if (t->shape.rank != 1 || wgc_shape_is_sym(&t->shape) || !wgc_elem_supported(t->dtype)) {
        *st = wgc_error(g, n, WG_ERR_INVALID, "%s input '%s' must be a 1-D numeric tensor of a fixed length",
                        what, t->name);
        return NULL;
    }
    return t;
}

static wg_status wgc_resize_setup_read(wgc_graph *g, const wgc_node *n, wgc_resize_setup *s)
{
    static const int f32_only[] = {WG_DT_FLOAT, 0};
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    static const char *const ctms[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                       "align_corners", "asymmetric", "tf_crop_and_resize",
                                       "tf_half_pixel_for_nn"};
    static const char *const nmodes[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    static const char *const keeps[] = {"stretch", "not_larger", "not_smaller"};
    const bool upsample = n->op == WGC_OP_UPSAMPLE;
    const bool legacy = upsample || n->opset < 11; /* Upsample, Resize-10 */
    wg_status st = upsample ? wgc_check_arity(g, n, 1, 2, 1, 1)
                            : wgc_check_arity(g, n, legacy ? 2 : 1, legacy ? 2 : 4, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, f32_only);
    if (st)
        return st;
    memset(s, 0, sizeof *s);
    wgk_resize_plan *p = &s->plan;
    s->legacy = legacy;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = p->rank = x->shape.rank;
    if (r < 1)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' is a scalar", x->name);
    const char *ms = wgc_attr_str(n, "mode", "nearest");
    if (legacy && !strcmp(ms, "bilinear"))
        ms = "linear";
    p->mode = lookup(ms, modes, 3);
    if (p->mode < 0 || (legacy && p->mode == WGK_RS_CUBIC))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "mode '%s' is not supported", ms);
    const char *cs = legacy ? "asymmetric" : wgc_attr_str(n, "coordinate_transformation_mode", "half_pixel");
    p->ctm = lookup(cs, ctms, 7);
    if (p->ctm < 0 || (p->ctm == WGK_RS_TF_HALF_NN && n->opset >= 13) ||
        (p->ctm == WGK_RS_HALF_PIXEL_SYM && n->opset < 18))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "coordinate_transformation_mode '%s' is not defined at opset %d", cs, n->opset);
    const char *ns = legacy ? "floor" : wgc_attr_str(n, "nearest_mode", "round_prefer_floor");
    p->nearest = lookup(ns, nmodes, 4);
    if (p->nearest < 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "nearest_mode '%s' is not supported", ns);
    p->A = wgc_attr_float(n, "cubic_coeff_a", -0.75f);
    p->exclude = wgc_attr_int(n, "exclude_outside", 0) != 0;
    p->antialias = wgc_attr_int(n, "antialias", 0) != 0;
    s->extrapolation = wgc_attr_float(n, "extrapolation_value", 0.0f);
    const char *kp = wgc_attr_str(n, "keep_aspect_ratio_policy", "stretch");
    if ((s->keep = lookup(kp, keeps, 3)) < 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "keep_aspect_ratio_policy '%s' is not supported", kp);

    /* axes (opset 18): the axes that scales/sizes/roi list; the others keep their size. */
    size_t nax = 0;
    const int64_t *av = wgc_attr_ints(n, "axes", &nax);
    bool seen[WG_MAX_RANK] = {0};
    s->na = r;
    if (av) {
        if (nax < 1 || nax > (size_t)r)
            return wgc_error(g, n, WG_ERR_INVALID, "axes has %zu values for rank %d", nax, r);
        s->na = (int)nax;
        for (int i = 0; i < s->na; i++) {
            if (!wgc_norm_axis(av[i], r, &s->axes[i]) || seen[s->axes[i]])
                return wgc_error(g, n, WG_ERR_INVALID, "axes[%d] = %lld is invalid or repeated", i,
                                 (long long)av[i]);
            seen[s->axes[i]] = true;
        }
    } else {
        for (int i = 0; i < r; i++)
            s->axes[i] = i;
    }
    for (int d = 0; d < r; d++) {
        p->in[d] = x->shape.dims[d];
        if (p->in[d] < 1)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input '%s' has an empty dim %d", x->name, d);
    }
    wgk_resize_plan_identity(p);

    const int na = s->na;
    size_t nsc = 0;
    if (upsample && n->opset < 9) {
        s->scales_attr = wgc_attr_floats(n, "scales", &nsc);
        if (!s->scales_attr)
            return wgc_error(g, n, WG_ERR_INVALID, "attribute scales is required");
    } else if (legacy) {
        if (!(s->scales = opt_input(g, n, 1, "scales", &st)))
            return st ? st : wgc_error(g, n, WG_ERR_INVALID, "input scales is required");
    } else {
        if (!(s->roi = opt_input(g, n, 1, "roi", &st)) && st)
            return st;
        if (!(s->scales = opt_input(g, n, 2, "scales", &st)) && st)
            return st;
        if (!(s->sizes = opt_input(g, n, 3, "sizes", &st)) && st)
            return st;
        if (!s->scales == !s->sizes)
            return wgc_error(g, n, WG_ERR_INVALID, "exactly one of scales and sizes must be given");
    }
    if (s->roi && p->ctm != WGK_RS_TF_CROP)
        s->roi = NULL; /* only tf_crop_and_resize reads it */
    if (s->scales)
        nsc = (size_t)s->scales->shape.dims[0];
    if ((s->scales || s->scales_attr) && nsc != (size_t)na)
        return wgc_error(g, n, WG_ERR_INVALID, "scales has %zu values, expected %d", nsc, na);
    if (s->sizes && s->sizes->shape.dims[0] != na)
        return wgc_error(g, n, WG_ERR_INVALID, "sizes has %lld values, expected %d",
                         (long long)s->sizes->shape.dims[0], na);
    if (s->roi && s->roi->shape.dims[0] != 2 * na)
        return wgc_error(g, n, WG_ERR_INVALID, "roi has %lld values, expected %d",
                         (long long)s->roi->shape.dims[0], 2 * na);
    return WG_OK;
}

static wg_status wgc_resize_const_scales(wgc_graph *g, const wgc_node *n, const wgc_resize_setup *s, double *sc)
{
    for (int i = 0; i < s->na; i++) {
        sc[i] = s->scales_attr ? s->scales_attr[i] : (float)wgc_elem_get_f(s->scales->data, s->scales->dtype, i);
        if (!(sc[i] > 0) || sc[i] > WGK_RESIZE_MAX_SCALE)
            return wgc_error(g, n, WG_ERR_INVALID, "scales[%d] = %g is not a positive scale", i, sc[i]);
    }
    for (int i = 0; i < s->na; i++)
        if (s->legacy && s->plan.mode == WGK_RS_NEAREST && sc[i] < 1.0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "nearest downsampling (scale %g on dim %d) in %s-%d has no agreed "
                             "rounding; use Resize-11 or later", sc[i], s->axes[i], n->op_type, n->opset);
    return WG_OK;
}

/* The plan of a Resize whose inputs are all constants (the run-time path below takes the
 * others). */
static wg_status resolve(wgc_graph *g, const wgc_node *n, wgc_resize_setup *s)
{
    wg_status st = wgc_resize_setup_read(g, n, s);
    if (st)
        return st;
    wgk_resize_plan *p = &s->plan;
    const int r = p->rank, na = s->na;
    const int *axes = s->axes;
    if (s->roi) {
        for (int i = 0; i < na; i++) {
            p->roi_s[axes[i]] = wgc_elem_get_f(s->roi->data, s->roi->dtype, i);
            p->roi_e[axes[i]] = wgc_elem_get_f(s->roi->data, s->roi->dtype, na + i);
            /* roi is in normalized coordinates; NaN, infinities or huge values would make
             * the source coordinates NaN, which no index conversion survives. */
            if (!(fabs(p->roi_s[axes[i]]) <= 1e9) || !(fabs(p->roi_e[axes[i]]) <= 1e9))
                return wgc_error(g, n, WG_ERR_INVALID, "roi %g..%g of axis %d is not a finite "
                                 "normalized range", p->roi_s[axes[i]], p->roi_e[axes[i]], axes[i]);
        }
    }
    if (s->sizes) {
        int64_t v[WG_MAX_RANK];
        for (int i = 0; i < na; i++)
            v[i] = wgc_elem_get_i(s->sizes->data, s->sizes->dtype, i);
        const int bad = wgk_resize_plan_sizes(p, axes, na, v, s->keep);
        if (bad >= 0)
            return wgc_error(g, n, WG_ERR_INVALID, "sizes[%d] = %lld is out of range", bad, (long long)v[bad]);
    } else {
        double sc[WG_MAX_RANK];
        if ((st = wgc_resize_const_scales(g, n, s, sc)))
            return st;
        wgk_resize_plan_scales(p, axes, na, sc); /* cannot fail: the scales are checked */
        for (int i = 0; i < na; i++)
            if (p->out[axes[i]] < 1)
                return wgc_error(g, n, WG_ERR_INVALID, "scales[%d] = %g gives an empty output dim %d", i, sc[i],
                                 axes[i]);
    }
    int64_t total = 1, taps_total = 0;
    for (int d = 0; d < r; d++) {
        /* Checked at every step (scales up to 1e6 make any dim huge): each factor and the
         * running product stay below 2^31, so the product cannot overflow. */
        if (p->out[d] >= ((int64_t)1 << 31) || (total *= p->out[d]) >= ((int64_t)1 << 31))
            return wgc_error(g, n, WG_ERR_LIMIT, "the output reaches 2^31 elements at dim %d (size "
                             "%lld): too large for the 32-bit kernel", d, (long long)p->out[d]);
        taps_total += p->out[d];
    }
    if (wgc_numel(&wgc_in(g, n, 0)->shape) >= ((int64_t)1 << 31) || total >= ((int64_t)1 << 31) ||
        taps_total >= ((int64_t)1 << 24))
        return wgc_error(g, n, WG_ERR_LIMIT, "Resize is too large for the 32-bit kernel");
    return WG_OK;
}

/* Row cache of the 2-D kernel: KH rows of OW floats, KH <= the tap count of axis r-2. */
static size_t resize_scratch(const wgc_graph *g, const wgc_node *n)
{
    if (wgc_resize_is_runtime(g, n))
        return wgc_resize_runtime_scratch((wgc_graph *)g, n);
    wgc_resize_setup s;
    if (resolve((wgc_graph *)g, n, &s) || s.plan.rank < 2)
        return 0;
    const wgk_resize_plan *p = &s.plan;
    int kh = wgk_resize_tap_count(p, p->rank - 2);
    kh = kh > WGK_RESIZE2D_MAX_KH ? WGK_RESIZE2D_MAX_KH : kh;
    return sizeof(float) * (size_t)kh * (size_t)p->out[p->rank - 1];
}

static wg_status resize_infer(wgc_graph *g, wgc_node *n)
{
    wgc_resize_setup s;
    wgc_shape y;
    wg_status st;
    if (wgc_resize_is_runtime(g, n)) {
        if ((st = wgc_resize_runtime_shape(g, n, &y)))
            return st;
    } else {
        if ((st = resolve(g, n, &s)))
            return st;
        y = (wgc_shape){.rank = s.plan.rank};
        for (int d = 0; d < s.plan.rank; d++)
            y.dims[d] = s.plan.out[d];
    }
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

static wg_status resize_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (wgc_resize_is_runtime(g, n))
        return wgc_resize_runtime_emit(e, g, n);
    wgc_resize_setup s;
    int32_t *idx = NULL, *ti = NULL;
    float *wt = NULL;
    double *tw = NULL;
    wg_status st = resolve(g, n, &s);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    const wgk_resize_plan *p = &s.plan;
    /* Entries: per axis out[d] * K[d], K[d] = nonzero taps at most (at least 1). */
    int maxnt = 0;
    size_t cap = 0;
    for (int d = 0; d < p->rank; d++) {
        int nt = wgk_resize_tap_count(p, d);
        maxnt = nt > maxnt ? nt : maxnt;
        cap += (size_t)p->out[d] * (size_t)nt;
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
    const size_t used = wgk_resize_plan_tables(p, idx, wt, K, off, ti, tw);
    const char *iexpr, *wexpr;
    if ((st = wgc_weight(e, idx, used * sizeof *idx, &iexpr)) ||
        (st = wgc_weight(e, wt, used * sizeof *wt, &wexpr))) {
        st = wgc_error(g, n, st, "out of memory storing resize tables");
        goto done;
    }
    if (wgk_resize_plan_fits_2d(p, K, off, idx, wt)) {
        const int r = p->rank;
        int64_t nc = 1;
        for (int d = 0; d < r - 2; d++)
            nc *= p->in[d];
        const long long in_plane = (long long)p->in[r - 2] * p->in[r - 1];
        const long long out_plane = (long long)p->out[r - 2] * p->out[r - 1];
        /* Threads: runs of whole planes (each computed as on one thread), in the thread's
         * own scratch (wgc_node_scratch_per_thread); PP-OCR det's 96 x 80x80 -> 160x160
         * upsampling ran on thread 0 alone. */
        const bool split = n->act == WGC_ACT_NONE && wgc_split_pays(e, nc, nc * out_plane);
        /* The planes [lo, hi) of a thread, or all of them. */
        if (split) {
            wgc_emit(e, "{\n");
            wgc_emit_part_range(e, nc, 1);
        } else {
            wgc_emit(e, "{\nconst int lo = 0, hi = %lld;\n", (long long)nc);
        }
        wgc_emit(e, "if (lo < hi)\n");
        wgc_emit(e, "wgk_f32_resize2d(&(const wgk_resize2d_args){.NC = hi - lo, .H = %lld, .W = %lld, "
                    ".OH = %lld, .OW = %lld, .KH = %d, .KW = %d,\n",
                 (long long)p->in[r - 2], (long long)p->in[r - 1],
                 (long long)p->out[r - 2], (long long)p->out[r - 1], K[r - 2], K[r - 1]);
        wgc_emit(e, "    .ih = (const int32_t *)%s + %d, .iw = (const int32_t *)%s + %d, "
                    ".wh = (const float *)%s + %d, .ww = (const float *)%s + %d, .fw = %d,\n",
                 iexpr, off[r - 2], iexpr, off[r - 1], wexpr, off[r - 2], wexpr, off[r - 1],
                 wgk_resize_plan_nearest_factor(p, K, off, idx, wt));
        wgc_emit(e, "    .x = (const float *)%s + (size_t)lo * %lld, .y = (float *)%s + (size_t)lo * %lld, "
                    ".scratch = %s});\n}\n",
                 wgc_ptr(e, g, n->inputs[0]), in_plane, wgc_ptr(e, g, n->outputs[0]), out_plane, wgc_scratch(e));
        wgc_emit_fused_act(e, g, n, n->outputs[0]);
        goto done;
    }
    char b_in[256], b_out[256], b_k[256], b_off[256];
    int64_t vk[WG_MAX_RANK], voff[WG_MAX_RANK];
    for (int d = 0; d < p->rank; d++) {
        vk[d] = K[d];
        voff[d] = off[d];
    }
    /* wgc_i32_list gives "(const int32_t[]){...}"; the struct wants a plain initializer. */
    wgc_emit(e, "wgk_f32_resize(&(const wgk_resize_args){.rank = %d, .in = %s, .out = %s, .K = %s, "
                ".off = %s,\n",
             p->rank, wgc_i32_list(b_in, sizeof b_in, p->in, p->rank) + 17,
             wgc_i32_list(b_out, sizeof b_out, p->out, p->rank) + 17,
             wgc_i32_list(b_k, sizeof b_k, vk, p->rank) + 17,
             wgc_i32_list(b_off, sizeof b_off, voff, p->rank) + 17);
    wgc_emit(e, "    .idx = %s, .w = %s, .extrapolation = %s, .x = %s, .y = %s});\n", iexpr, wexpr,
             wgc_float(e, s.extrapolation), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
done:
    free(idx);
    free(wt);
    free(ti);
    free(tw);
    return st;
}

/* ---- symbolic dims (sym.h) ---- */

/* Resize, Upsample: sizes from the actual dims ("sizes decided in the module" below) */
static wg_status resize_sym_infer(wgc_graph *g, wgc_node *n)
{
    return wgc_sym_runtime_sizes(g, n, wgc_resize_runtime_shape);
}

/* Sizes decided in the module: its own emit hook reads them at run time itself
 * ("sizes decided in the module" below). */
static bool resize_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    return t == WGC_DATA_DEPENDENT && wgc_resize_is_runtime(g, n);
}

const wgc_op_def wgc_op_resize = {
    .infer = resize_infer,
    .emit = resize_emit,
    .scratch = resize_scratch,
    .sym = {.infer = resize_sym_infer, .takes = resize_sym_takes},
};

/* ---- sizes decided in the module ---- */

/* Scratch past this is refused: the tables of an antialiased resize grow with in * out. */
#define RESIZE_SCRATCH_LIMIT ((size_t)256 << 20)

/* Is input i present (not "" nor empty) and not a plain constant? */
static bool input_varies(const wgc_graph *g, const wgc_node *n, int i)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return false;
    const wgc_tensor *t = &g->tensors[n->inputs[i]];
    if (t->has_shape && !wgc_shape_is_sym(&t->shape) && wgc_numel(&t->shape) == 0)
        return false;
    return !t->data || t->symval;
}

static bool wgc_resize_is_runtime(const wgc_graph *g, const wgc_node *n)
{
    if ((n->op != WGC_OP_RESIZE && n->op != WGC_OP_UPSAMPLE) || n->n_inputs < 1 || n->inputs[0] < 0)
        return false;
    if (wgc_shape_is_sym(&g->tensors[n->inputs[0]].shape))
        return true;
    if (n->op == WGC_OP_UPSAMPLE || n->opset < 11)
        return input_varies(g, n, 1);
    const bool crop = !strcmp(wgc_attr_str(n, "coordinate_transformation_mode", "half_pixel"), "tf_crop_and_resize");
    return (crop && input_varies(g, n, 1)) || input_varies(g, n, 2) || input_varies(g, n, 3);
}

enum { AX_FIXED, AX_MONO, AX_RUNTIME };

/* What the compiler knows of one output axis. */
typedef struct rs_axis {
    int kind;
    wgc_dimx x;    /* AX_FIXED, AX_MONO: the size */
    int64_t bound; /* its largest value */
    int cap;       /* the most taps it may need */
} rs_axis;

typedef struct rs_desc {
    wgc_resize_setup s;
    rs_axis ax[WG_MAX_RANK];
    double scale[WG_MAX_RANK]; /* constant scales (scales_attr or the scales input) */
} rs_desc;

/* The taps an axis needs at scale smin and above (fewer as the scale grows). */
static int cap_at(const wgk_resize_plan *p, int d, double smin)
{
    wgk_resize_plan q = *p;
    q.scale[d] = smin;
    return wgk_resize_tap_count(&q, d);
}

static wg_status describe_sizes(wgc_graph *g, const wgc_node *n, const wgc_shape *xs, rs_desc *r)
{
    const wgc_resize_setup *s = &r->s;
    const wgc_tensor *sz = s->sizes;
    if (sz->dtype != WG_DT_INT64 && sz->dtype != WG_DT_INT32)
        return wgc_error(g, n, WG_ERR_INVALID, "sizes input '%s' must be int64", sz->name);
    const bool constant = sz->data && !sz->symval;
    /* keep_aspect_ratio_policy scales every listed axis by one ratio of them all */
    bool all_fixed = constant;
    double pick_max = 0;
    /* under a keep policy every listed axis takes one ratio, of any listed axis: at least
     * 1 / (that axis's largest size) */
    double keep_smin = 1.0;
    for (int i = 0; i < s->na; i++) {
        const double q = 1.0 / (double)s->plan.in[s->axes[i]];
        keep_smin = q < keep_smin ? q : keep_smin;
    }
    for (int i = 0; i < s->na; i++) {
        const int d = s->axes[i];
        wgc_vrange v;
        all_fixed = all_fixed && !wgc_dim_is_sym(xs, d);
        if (!wgc_vrange_at(g, sz, i, &v))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "sizes input '%s' is computed at run time and nothing bounds its values, which "
                             "decide the size of output dim %d", sz->name, d);
        if (v.hi > WGK_RESIZE_MAX_SIZE || v.hi < 1)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "sizes[%d] may be %lld..%lld: outside 1..2^30", i,
                             (long long)v.lo, (long long)v.hi);
        const wgc_dimx in = wgc_dimx_of(g, xs, d);
        const int64_t in_min = wgc_dimx_min(g, &in) > 0 ? wgc_dimx_min(g, &in) : 1;
        const double q = (double)v.hi / (double)in_min;
        pick_max = q > pick_max ? q : pick_max;
        rs_axis *a = &r->ax[d];
        const double smin = s->keep == WGK_RS_STRETCH ? (double)(v.lo > 1 ? v.lo : 1) / (double)s->plan.in[d]
                                                      : keep_smin;
        a->cap = cap_at(&s->plan, d, smin);
        if (s->keep != WGK_RS_STRETCH) {
            a->kind = AX_RUNTIME;
            a->bound = v.hi; /* not_larger: no axis past its size; not_smaller below */
        } else if (constant) {
            a->kind = AX_FIXED;
            a->x = wgc_dimx_const(wgc_const_int(sz, i));
            a->bound = a->x.c;
        } else if (sz->symval) {
            a->x = wgc_symval_at(sz, i);
            a->kind = wgc_dimx_is_const(&a->x) ? AX_FIXED : AX_MONO;
            a->bound = wgc_dimx_max(g, &a->x);
            if (wgc_dimx_min(g, &a->x) < 1)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "sizes[%d] may be below 1", i);
        } else {
            a->kind = AX_RUNTIME;
            a->bound = v.hi;
        }
    }
    if (s->keep == WGK_RS_STRETCH)
        return WG_OK;
    if (all_fixed) { /* the sizes and the listed dims are known: so are the output's */
        wgk_resize_plan p = s->plan;
        int64_t v[WG_MAX_RANK];
        for (int i = 0; i < s->na; i++)
            v[i] = wgc_const_int(sz, i);
        const int bad = wgk_resize_plan_sizes(&p, s->axes, s->na, v, s->keep);
        if (bad >= 0)
            return wgc_error(g, n, WG_ERR_INVALID, "sizes[%d] = %lld is out of range", bad, (long long)v[bad]);
        for (int i = 0; i < s->na; i++) {
            rs_axis *a = &r->ax[s->axes[i]];
            a->kind = AX_FIXED;
            a->x = wgc_dimx_const(p.out[s->axes[i]]);
            a->bound = a->x.c;
            a->cap = wgk_resize_tap_count(&p, s->axes[i]);
        }
        return WG_OK;
    }
    if (s->keep == WGK_RS_NOT_SMALLER)
        for (int i = 0; i < s->na; i++) {
            const int d = s->axes[i];
            const double b = floor(pick_max * (double)s->plan.in[d] + 0.5);
            if (b > (double)WGK_RESIZE_MAX_SIZE)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "not_smaller may make output dim %d past 2^30", d);
            r->ax[d].bound = (int64_t)b;
        }
    return WG_OK;
}

static wg_status describe_scales(wgc_graph *g, const wgc_node *n, const wgc_shape *xs, rs_desc *r)
{
    const wgc_resize_setup *s = &r->s;
    if (s->scales && (!s->scales->data || s->scales->symval))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "scales input '%s' is computed at run time, and scales decide the output's size with "
                         "nothing to bound it: give the output size as sizes (int64) instead (a ratio of two "
                         "Cast shapes folds where it is constant at every size: declare the dims a multiple "
                         "with --dim NAME=MIN..MAX:STEP)", s->scales->name);
    double scales[WG_MAX_RANK];
    wg_status st = wgc_resize_const_scales(g, n, s, scales);
    if (st)
        return st;
    for (int i = 0; i < s->na; i++) {
        const int d = s->axes[i];
        const double sc = scales[i];
        r->scale[d] = sc;
        rs_axis *a = &r->ax[d];
        a->cap = cap_at(&s->plan, d, sc);
        const wgc_dimx in = wgc_dimx_of(g, xs, d);
        const double out_max = floor(sc * (double)s->plan.in[d]);
        if (out_max < 1)
            return wgc_error(g, n, WG_ERR_INVALID, "scales[%d] = %g gives an empty output dim %d", i, sc, d);
        if (out_max > (double)WGK_RESIZE_MAX_SIZE)
            return wgc_error(g, n, WG_ERR_LIMIT, "scales[%d] = %g makes output dim %d past 2^30", i, sc, d);
        if (!wgc_dim_is_sym(xs, d)) {
            a->kind = AX_FIXED;
            a->x = wgc_dimx_const((int64_t)out_max);
            a->bound = a->x.c;
            continue;
        }
        /* floor(k * h) = k * h for an integer k; floor(h / m) = h / m when m divides every
         * value h takes (exact scales only: 0.5, 0.25, never a rounded 1/3) */
        const double m = 1.0 / sc;
        wgc_dimx q;
        if (sc == floor(sc)) {
            a->kind = AX_MONO;
            a->x = wgc_dimx_mul(in, wgc_dimx_const((int64_t)sc));
        } else if (m == floor(m) && m * sc == 1.0 && wgc_dimx_div(in, wgc_dimx_const((int64_t)m), &q)) {
            a->kind = AX_MONO;
            a->x = q;
        } else {
            a->kind = AX_RUNTIME;
        }
        a->bound = (int64_t)out_max;
        if (a->kind == AX_MONO && wgc_dimx_max(g, &a->x) != a->bound)
            a->kind = AX_RUNTIME; /* never: the monomial is the size at the maxima */
    }
    return WG_OK;
}

/* Reads n and describes every output axis for x's shape xs as it stands. */
static wg_status describe(wgc_graph *g, const wgc_node *n, const wgc_shape *xs, rs_desc *r)
{
    wg_status st = wgc_resize_setup_read(g, n, &r->s);
    if (st)
        return st;
    const wgk_resize_plan *p = &r->s.plan;
    for (int d = 0; d < p->rank; d++) {
        const wgc_dimx in = wgc_dimx_of(g, xs, d);
        if (wgc_dimx_min(g, &in) < 1)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input dim %d may be 0 (its --dim range starts at 0)", d);
        r->scale[d] = 1.0;
        r->ax[d] = (rs_axis){.kind = wgc_dim_is_sym(xs, d) ? AX_MONO : AX_FIXED, .x = in,
                             .bound = p->in[d], .cap = cap_at(p, d, 1.0)};
    }
    st = r->s.sizes ? describe_sizes(g, n, xs, r) : describe_scales(g, n, xs, r);
    if (st)
        return st;
    int64_t bounds[WG_MAX_RANK];
    int caps[WG_MAX_RANK];
    for (int d = 0; d < p->rank; d++) {
        bounds[d] = r->ax[d].bound;
        caps[d] = r->ax[d].cap;
    }
    if (wgk_resize_planned_scratch(p->rank, bounds, caps) > RESIZE_SCRATCH_LIMIT)
        return wgc_error(g, n, WG_ERR_LIMIT, "its tap tables at the bounds pass %zu MiB",
                         RESIZE_SCRATCH_LIMIT >> 20);
    return WG_OK;
}

static wg_status wgc_resize_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    rs_desc r;
    wg_status st = describe(g, n, &x->shape, &r);
    if (st)
        return st;
    memset(y, 0, sizeof *y);
    y->rank = x->shape.rank;
    for (int d = 0; d < y->rank; d++) {
        const rs_axis *a = &r.ax[d];
        if (a->kind != AX_RUNTIME) {
            wgc_shape_set_dim(g, y, d, a->x);
            continue;
        }
        int sym;
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], d, a->bound, &sym)))
            return st;
        wgc_shape_set_runtime(y, d, sym, a->bound);
    }
    return WG_OK;
}

static size_t wgc_resize_runtime_scratch(wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    rs_desc r;
    if (describe(g, n, &x->shape, &r))
        return 0;
    int64_t bounds[WG_MAX_RANK];
    int caps[WG_MAX_RANK];
    for (int d = 0; d < r.s.plan.rank; d++) {
        bounds[d] = r.ax[d].bound;
        caps[d] = r.ax[d].cap;
    }
    return wgk_resize_planned_scratch(r.s.plan.rank, bounds, caps);
}

/* Element i of a float input as a C double expression: a constant's literal, or a read. */
static const char *float_elem(wgc_emitter *e, wgc_graph *g, const wgc_tensor *t, int tensor, int i, char *buf,
                              size_t cap)
{
    if (t->data)
        return wgc_dlit(buf, cap, wgc_elem_get_f(t->data, t->dtype, i));
    if (t->dtype != WG_DT_FLOAT && t->dtype != WG_DT_DOUBLE)
        return NULL;
    snprintf(buf, cap, "(double)((const %s *)%s)[%d]", t->dtype == WG_DT_FLOAT ? "float" : "double",
             wgc_ptr(e, g, tensor), i);
    return buf;
}

/* The plan from the actual sizes and values, each output size checked and its run-time
 * symbol written, then the planned kernel. */
static wg_status wgc_resize_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    rs_desc r;
    wg_status st = describe(g, n, &x->shape, &r);
    if (!st)
        st = wgc_check_i32_numel(g, n, y);
    if (!st)
        st = wgc_no_residual(g, n);
    if (st)
        return st;
    const wgc_resize_setup *s = &r.s;
    const wgk_resize_plan *p = &s->plan;
    const int rank = p->rank, na = s->na;
    char buf[192];
    wgc_emit(e, "{\nwgk_resize_plan p = {.rank = %d, .mode = %d, .ctm = %d, .nearest = %d, .exclude = %d, "
                ".antialias = %d, .A = %s};\n",
             rank, p->mode, p->ctm, p->nearest, p->exclude, p->antialias, wgc_dlit(buf, sizeof buf, p->A));
    for (int d = 0; d < rank; d++)
        wgc_emit(e, "p.in[%d] = %s;\n", d, wgc_dims_expr(e, &x->shape, d, d + 1));
    wgc_emit(e, "wgk_resize_plan_identity(&p);\n");
    char axes[128];
    int64_t av[WG_MAX_RANK];
    for (int i = 0; i < na; i++)
        av[i] = s->axes[i];
    wgc_i32_list(axes, sizeof axes, av, na);
    if (s->roi && s->roi->symval) /* a Cast of shape arithmetic: its values at the maxima only */
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "roi input '%s' holds symbolic values", s->roi->name);
    if (s->roi) {
        for (int i = 0; i < na; i++) {
            char b0[160], b1[160];
            const char *e0 = float_elem(e, g, s->roi, n->inputs[1], i, b0, sizeof b0);
            const char *e1 = float_elem(e, g, s->roi, n->inputs[1], na + i, b1, sizeof b1);
            if (!e0 || !e1)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "roi input '%s' must be float", s->roi->name);
            wgc_emit(e, "p.roi_s[%d] = %s;\np.roi_e[%d] = %s;\n", s->axes[i], e0, s->axes[i], e1);
        }
        /* normalized coordinates; NaN, infinities or huge values would make the source
         * coordinates NaN (resize.c refuses them at compile time) */
        wgc_emit(e, "for (int d = 0; d < %d; d++)\n    if (!(__builtin_fabs(p.roi_s[d]) <= 1e9) || "
                    "!(__builtin_fabs(p.roi_e[d]) <= 1e9))\n        return WGK_ERR_INDEX;\n", rank);
    }
    if (s->sizes) {
        wgc_emit(e, "{\nconst int64_t v[%d] = {", na);
        for (int i = 0; i < na; i++)
            wgc_emit(e, "%s%s", i ? ", " : "", wgc_int_elem_expr(e, g, n->inputs[3], i, buf, sizeof buf));
        wgc_emit(e, "};\nif (wgk_resize_plan_sizes(&p, %s, %d, v, %d) >= 0)\n    return WGK_ERR_INDEX;\n}\n",
                 axes, na, s->keep);
    } else {
        wgc_emit(e, "{\nconst double s[%d] = {", na);
        for (int i = 0; i < na; i++)
            wgc_emit(e, "%s%s", i ? ", " : "", wgc_dlit(buf, sizeof buf, r.scale[s->axes[i]]));
        wgc_emit(e, "};\nif (wgk_resize_plan_scales(&p, %s, %d, s) >= 0)\n    return WGK_ERR_INDEX;\n}\n", axes,
                 na);
    }
    int64_t caps[WG_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        const rs_axis *a = &r.ax[d];
        caps[d] = a->cap;
        if (a->kind != AX_RUNTIME) {
            /* the size the compiler derived (a safety net: it holds by construction) */
            wgc_emit(e, "if (p.out[%d] != %s)\n    return WGK_ERR_SIZE_BOUND;\n", d, wgc_dimx_expr(e, &a->x));
            continue;
        }
        wgc_emit(e, "if (p.out[%d] > %lldLL)\n    return WGK_ERR_SIZE_BOUND;\n", d, (long long)a->bound);
        const int sym = wgc_shape_first_sym(&y->shape, d);
        if (sym >= 0)
            wgc_emit(e, "wg_dims[%d] = (int32_t)p.out[%d];\n", sym, d);
    }
    char capl[128];
    wgc_emit(e, "{\nconst int st = wgk_f32_resize_planned(&p, %s, %s, %s, %s, %s);\nif (st)\n    return st;\n}\n",
             wgc_i32_list(capl, sizeof capl, caps, rank), wgc_float(e, s->extrapolation),
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e));
    wgc_emit(e, "}\n");
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}
