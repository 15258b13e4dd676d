/*
 * clip.c: Clip. Opset < 11 takes min/max attributes; opset >= 11 takes optional min and
 * max inputs (scalars): a constant bound is compiled into the call, one computed at run
 * time is read from memory by it. Float32 runs on the clip kernel, the integer types as an
 * inline loop with the bounds compared exactly as int64; float16 and float64 fold when
 * the input and bounds are constant.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "../ir/valrange.h"
#include "helpers/host_elements.h"
#include "helpers/emit_and_fold.h"
#include "helpers/inline_loops.h"

/* y = min(max(x, lo), hi) for an integer x, bounds compared exactly (as the fold does). */
static wg_status emit_int(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    char ex[256] = "a", t[256];
    for (int i = 1; i < n->n_inputs && n->opset >= 11; i++) {
        const wgc_tensor *b = wgc_in(g, n, i);
        if (!b)
            continue;
        char lit[160];
        const bool u = b->dtype == WG_DT_UINT64;
        const int64_t v = b->data ? wgc_elem_get_i(b->data, b->dtype, 0) : 0;
        if (!b->data) /* read by the run, of the input's dtype T */
            snprintf(lit, sizeof lit, "(*(const T *)%s)", wgc_ptr(e, g, n->inputs[i]));
        else if (u)
            snprintf(lit, sizeof lit, "(T)%lluull", (unsigned long long)v);
        else
            snprintf(lit, sizeof lit, "(T)(%lldll)", (long long)v);
        snprintf(t, sizeof t, "(%s %s %s ? %s : %s)", ex, i == 1 ? "<" : ">", lit, lit, ex);
        snprintf(ex, sizeof ex, "%s", t);
    }
    if (n->opset < 11)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "Clip-%d on %s (attributes are floats)", n->opset,
                         wg_dtype_name(wgc_in(g, n, 0)->dtype));
    return wgc_gen_map(e, g, n, n->inputs, 1, n->outputs[0], ex);
}

static wg_status clip_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_data_input(g, n, 1, n->opset >= 11 ? 3 : 1, wgc_numeric_dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    for (int i = 1; i < n->n_inputs; i++) {
        const wgc_tensor *b = wgc_in(g, n, i);
        if (!b)
            continue;
        if ((st = wgc_check_input(g, n, i, NULL)))
            return st;
        if (b->dtype != x->dtype || wgc_numel(&b->shape) != 1)
            return wgc_error(g, n, WG_ERR_INVALID,
                             "%s bound '%s' must be a scalar of the input dtype %s",
                             i == 1 ? "min" : "max", b->name, wg_dtype_name(x->dtype));
    }
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

/* The bounds as doubles; WG_ERR_UNSUPPORTED when a bound input is not constant (the fold
 * then declines; emit reads such a bound at run time). */
static wg_status clip_bounds(wgc_graph *g, const wgc_node *n, double *lo, double *hi)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    bool fl = wg_dtype_is_float(x->dtype);
    *lo = fl ? -INFINITY : -1e300;
    *hi = fl ? INFINITY : 1e300;
    if (n->opset < 11) {
        *lo = wgc_attr_float(n, "min", -FLT_MAX);
        *hi = wgc_attr_float(n, "max", FLT_MAX);
        return WG_OK;
    }
    for (int i = 1; i < n->n_inputs; i++) {
        const wgc_tensor *b = wgc_in(g, n, i);
        if (!b)
            continue;
        if (!b->data)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "%s bound '%s' is computed at run time; only constant bounds are "
                             "supported",
                             i == 1 ? "min" : "max", b->name);
        double v = wgc_elem_get_f(b->data, b->dtype, 0);
        if (fl || (x->dtype != WG_DT_INT64 && x->dtype != WG_DT_UINT64))
            *(i == 1 ? lo : hi) = v;
        else
            *(i == 1 ? lo : hi) = (double)wgc_elem_get_i(b->data, b->dtype, 0);
    }
    return WG_OK;
}

static wg_status clip_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!x->data || n->act != WGC_ACT_NONE)
        return WG_ERR_UNSUPPORTED;
    double lo, hi;
    if (clip_bounds(g, n, &lo, &hi))
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    int64_t count = wgc_numel(&y->shape);
    bool fl = wg_dtype_is_float(x->dtype);
    for (int64_t i = 0; i < count; i++) {
        if (fl) {
            double v = wgc_elem_get_f(x->data, x->dtype, i);
            v = v < lo ? lo : v;
            v = v > hi ? hi : v; /* NaN stays NaN */
            wgc_elem_set_f(data, y->dtype, i, v);
        } else {
            /* Integer bounds compare exactly as int64 (doubles would round big int64s). */
            int64_t v = wgc_elem_get_i(x->data, x->dtype, i);
            if ((double)v < lo)
                v = (int64_t)lo;
            if ((double)v > hi)
                v = (int64_t)hi;
            wgc_elem_set_i(data, y->dtype, i, v);
        }
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

static wg_status clip_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    if (y->dtype != WG_DT_FLOAT && !wg_dtype_is_float(y->dtype) && y->dtype != WG_DT_BOOL)
        return emit_int(e, g, n);
    if (y->dtype != WG_DT_FLOAT)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "dtype %s at run time (float32 and the integer types; the others fold when constant)",
                         wg_dtype_name(y->dtype));
    bool empty;
    wg_status st = wgc_emit_start(g, n, WG_OK, y, &empty);
    if (st || empty)
        return st;
    /* each bound: a literal, or read from its tensor by the run */
    char bound[2][160];
    for (int i = 1; i <= 2; i++) {
        const wgc_tensor *b = n->opset >= 11 ? wgc_in(g, n, i) : NULL;
        float v = i == 1 ? -INFINITY : INFINITY;
        if (n->opset < 11)
            v = wgc_attr_float(n, i == 1 ? "min" : "max", i == 1 ? -FLT_MAX : FLT_MAX);
        if (b && !b->data)
            snprintf(bound[i - 1], sizeof bound[i - 1], "*(const float *)%s", wgc_ptr(e, g, n->inputs[i]));
        else
            snprintf(bound[i - 1], sizeof bound[i - 1], "%s", wgc_float(e, b ? *(const float *)b->data : v));
    }
    size_t count = (size_t)wgc_numel(&y->shape);
    const char *px = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    wgc_emit(e, "wgk_f32_clip(%s, %s, %zu, %s, %s);\n", py, px, count, bound[0], bound[1]);
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

/* Bounds of integer values computed at run time (ir/valrange.h): input 0's, narrowed by
 * any of the min and max inputs' values (opset 11 on, where they are inputs). */
static bool clip_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                            wgc_vrange *out, int64_t count)
{
    if (n->opset < 11 || !wgc_vrange_elementwise(g, n, y, 0, 1, NULL, out, count))
        return false;
    wgc_vrange mn, mx;
    bool has_mn = n->n_inputs > 1 && n->inputs[1] >= 0;
    bool has_mx = n->n_inputs > 2 && n->inputs[2] >= 0;
    if ((has_mn && !wgc_vrange_union(g, wgc_in(g, n, 1), &mn)) ||
        (has_mx && !wgc_vrange_union(g, wgc_in(g, n, 2), &mx)))
        return false;
    for (int64_t i = 0; i < count; i++) {
        if (has_mn)
            wgc_vrange_max(out[i], mn, &out[i]);
        if (has_mx)
            wgc_vrange_min(out[i], mx, &out[i]);
    }
    return true;
}

const wgc_op_def wgc_op_clip = {
    .infer = clip_infer,
    .fold = clip_fold,
    .emit = clip_emit,
    .sym = {.bounds = clip_sym_bounds},
};
