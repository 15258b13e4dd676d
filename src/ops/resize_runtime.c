/* resize_runtime.c: Resize and Upsample with sizes decided in the module (resize_runtime.h). */
#include "resize_runtime.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/emit_and_fold.h"
#include "helpers/fused_epilogue.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"

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

bool wgc_resize_is_runtime(const wgc_graph *g, const wgc_node *n)
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

wg_status wgc_resize_runtime_shape(wgc_graph *g, const wgc_node *n, wgc_shape *y)
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

size_t wgc_resize_runtime_scratch(wgc_graph *g, const wgc_node *n)
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
wg_status wgc_resize_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
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
