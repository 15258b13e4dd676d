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
 * or inputs computed at run time builds the same tables in the module (resize_runtime.c).
 * Resize-10 and Upsample use the asymmetric transform (the convention of the runtimes of
 * that time), with nearest rounding down; nearest downsampling there is ambiguous and
 * is reported as unsupported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_resize.h"
#include "resize_runtime.h"
#include "../ir/symdim.h"
#include "helpers/host_elements.h"
#include "helpers/fused_epilogue.h"
#include "helpers/emit_and_fold.h"
#include "sym.h"

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

wg_status wgc_resize_setup_read(wgc_graph *g, const wgc_node *n, wgc_resize_setup *s)
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

wg_status wgc_resize_const_scales(wgc_graph *g, const wgc_node *n, const wgc_resize_setup *s, double *sc)
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

/* The plan of a Resize whose inputs are all constants (resize_runtime.c takes the others). */
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

/* Resize, Upsample: sizes from the actual dims (resize_runtime.c) */
static wg_status resize_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y0 = wgc_out(g, n, 0);
    if (!y0)
        return WG_OK;
    wgc_shape y = wgc_sym_dims_of(&y0->shape);
    wg_status st;
    if (x->symval)
        return wgc_sym_refuse(g, n, "its input holds symbolic values");
    if ((st = wgc_resize_runtime_shape(g, n, &y)))
        return st;
    return wgc_sym_set_out(g, n, 0, &y);
}

/* Sizes decided in the module: its own emit hook reads them at run time itself
 * (resize_runtime.c). */
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
