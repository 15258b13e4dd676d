/*
 * norms.c: normalisations over a set of axes, as inline loops (statistics in double):
 *   MeanVarianceNormalization  y = (x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9) over `axes`
 *                              (default 0, 2, 3), like the ONNX function body;
 *   LpNormalization            y = x / ||x||_p along `axis` (p = 1 or 2); 0 where the norm
 *                              is 0 (ONNX's reference: 0 / 0 gives 0, not NaN);
 *   GroupNormalization         y = (x - mean) / sqrt(var + epsilon) * scale + bias over each
 *                              group of C / num_groups channels; scale and bias per group
 *                              (opset 18) or per channel (opset 21).
 * Every op becomes: for each kept position, one pass for the statistics over the reduced
 * positions and one pass writing y. GroupNormalization views x as [N, G, C/G * spatial].
 */
#include <stdio.h>
#include <string.h>

#include "helpers/read_axes.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/index_loops.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};

/* The kept and reduced dims (with x's strides) of each op's view. */
typedef struct split_view {
    int nk, nr;
    int64_t kd[WG_MAX_RANK], ks[WG_MAX_RANK], rd[WG_MAX_RANK], rs[WG_MAX_RANK];
} split_view;

static wg_status view(wgc_graph *g, const wgc_node *n, split_view *v)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank;
    bool red[WG_MAX_RANK] = {0};
    int64_t xs[WG_MAX_RANK];
    wgc_shape_strides(&x->shape, xs);
    memset(v, 0, sizeof *v);
    if (n->op == WGC_OP_GROUP_NORM) {
        int64_t G = wgc_attr_int(n, "num_groups", 0), C = r >= 2 ? x->shape.dims[1] : 0;
        if (r < 2 || G <= 0 || C % G)
            return wgc_error(g, n, WG_ERR_INVALID, "num_groups %lld for %lld channels (rank %d)",
                             (long long)G, (long long)C, r);
        int64_t per = wgc_numel(&x->shape) / (x->shape.dims[0] ? x->shape.dims[0] : 1) / G;
        v->nk = 2, v->nr = 1;
        v->kd[0] = x->shape.dims[0], v->ks[0] = xs[0];
        v->kd[1] = G, v->ks[1] = per;
        v->rd[0] = per, v->rs[0] = 1;
        return WG_OK;
    }
    if (n->op == WGC_OP_LP_NORM) {
        int axis;
        int64_t a = wgc_attr_int(n, "axis", -1);
        if (!wgc_norm_axis(a, r, &axis))
            return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d", (long long)a, r);
        red[axis] = true;
    } else {
        size_t cnt = 0;
        const int64_t *axes = wgc_attr_ints(n, "axes", &cnt);
        static const int64_t dflt[] = {0, 2, 3};
        if (!axes)
            axes = dflt, cnt = 3;
        for (size_t k = 0; k < cnt; k++) {
            int ax;
            if (!wgc_norm_axis(axes[k], r, &ax) || red[ax])
                return wgc_error(g, n, WG_ERR_INVALID, "bad axis %lld for rank %d", (long long)axes[k], r);
            red[ax] = true;
        }
    }
    for (int d = 0; d < r; d++) {
        if (red[d])
            v->rd[v->nr] = x->shape.dims[d], v->rs[v->nr++] = xs[d];
        else
            v->kd[v->nk] = x->shape.dims[d], v->ks[v->nk++] = xs[d];
    }
    return WG_OK;
}

static wg_status norms_infer(wgc_graph *g, wgc_node *n)
{
    bool gn = n->op == WGC_OP_GROUP_NORM;
    wg_status st = wgc_check_data_input(g, n, gn ? 3 : 1, gn ? 3 : 1, floats);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    split_view v;
    if ((st = view(g, n, &v)))
        return st;
    if (n->op == WGC_OP_LP_NORM) {
        int64_t p = wgc_attr_int(n, "p", 2);
        if (p != 1 && p != 2)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "p = %lld (only 1 and 2)", (long long)p);
    }
    if (gn) {
        int64_t C = x->shape.dims[1], G = wgc_attr_int(n, "num_groups", 0);
        for (int k = 1; k < 3; k++) {
            const wgc_tensor *p = wgc_in(g, n, k);
            if (p->dtype != x->dtype)
                return wgc_error(g, n, WG_ERR_UNSUPPORTED, "scale/bias dtype %s differs from X",
                                 wg_dtype_name(p->dtype));
            int64_t m = wgc_numel(&p->shape);
            bool ok = n->opset >= 21 ? m == C : m == G;
            if (!ok)
                return wgc_error(g, n, WG_ERR_INVALID, "scale/bias have %lld values; opset %d wants %lld",
                                 (long long)m, n->opset, (long long)(n->opset >= 21 ? C : G));
        }
    }
    wgc_set_output(g, n, 0, x->dtype, &x->shape);
    return WG_OK;
}

static wg_status norms_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    split_view v;
    wg_status st = view(g, n, &v);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st || wgc_numel(&x->shape) == 0)
        return st;
    int64_t cnt = 1;
    for (int d = 0; d < v.nr; d++)
        cnt *= v.rd[d];
    char ko[600], ro[600];
    wgc_loop_offset(ko, sizeof ko, "k", v.nk, v.ks, 0);
    wgc_loop_offset(ro, sizeof ro, "r", v.nr, v.rs, 0);
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    bool gn = n->op == WGC_OP_GROUP_NORM;
    int64_t chan_per_group = 1;
    bool per_channel = false;
    if (gn) {
        wgc_emit(e, "const T *ps = (const T *)%s;\nconst T *pb = (const T *)%s;\n",
                 wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->inputs[2]));
        per_channel = n->opset >= 21;
        chan_per_group = x->shape.dims[1] / wgc_attr_int(n, "num_groups", 1);
    }
    wgc_loop_for(e, "k", v.nk, v.kd);
    wgc_emit(e, "{\nint32_t base = %s;\ndouble s = 0, s2 = 0;\n", ko);
    wgc_loop_for(e, "r", v.nr, v.rd);
    if (n->op == WGC_OP_LP_NORM && wgc_attr_int(n, "p", 2) == 1)
        wgc_emit(e, "{ double t = px[base + %s]; s += t < 0 ? -t : t; }\n", ro);
    else
        wgc_emit(e, "{ double t = px[base + %s]; s += t; s2 += t * t; }\n", ro);
    char sc[200] = "", bi[200] = "";
    switch (n->op) {
    case WGC_OP_LP_NORM:
        if (wgc_attr_int(n, "p", 2) == 2)
            wgc_emit(e, "double a = 0, d = wgk__sqrt(s2);\n");
        else
            wgc_emit(e, "double a = 0, d = s;\n");
        break;
    case WGC_OP_GROUP_NORM: {
        double eps = wgc_attr_float(n, "epsilon", 1e-5f);
        char el[64];
        wgc_emit(e, "double a = s / %lld, var = s2 / %lld - a * a;\nif (var < 0) var = 0;\n"
                    "double d = wgk__sqrt(var + %s);\n",
                 (long long)cnt, (long long)cnt, wgc_dlit(el, sizeof el, eps));
        /* channel of reduced position r0 inside group k1: k1 * cpg + r0 / spatial */
        int64_t spatial = v.rd[0] / chan_per_group;
        if (per_channel) {
            snprintf(sc, sizeof sc, " * (double)ps[k1 * %lld + r0 / %lld]", (long long)chan_per_group,
                     (long long)(spatial ? spatial : 1));
            snprintf(bi, sizeof bi, " + (double)pb[k1 * %lld + r0 / %lld]", (long long)chan_per_group,
                     (long long)(spatial ? spatial : 1));
        } else {
            snprintf(sc, sizeof sc, " * (double)ps[k1]");
            snprintf(bi, sizeof bi, " + (double)pb[k1]");
        }
        break;
    }
    case WGC_OP_MEAN_VARIANCE_NORM:
        wgc_emit(e, "double a = s / %lld, var = s2 / %lld - a * a;\nif (var < 0) var = 0;\n"
                    "double d = wgk__sqrt(var) + 1e-9;\n",
                 (long long)cnt, (long long)cnt);
        break;
    default: return wgc_no_case(g, n, "the emitter");
    }
    if (n->op == WGC_OP_LP_NORM) /* a zero norm: every x of the slice is 0, and so is y */
        wgc_emit(e, "if (d == 0) d = 1;\n");
    wgc_loop_for(e, "r", v.nr, v.rd);
    wgc_emit(e, "py[base + %s] = (T)((px[base + %s] - a) / d%s%s);\n}\n}\n", ro, ro, sc, bi);
    return WG_OK;
}

/* Per sample (WGC_PER_SAMPLE): GroupNormalization, and LpNormalization along any axis
 * but 0. */
static bool norms_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t != WGC_PER_SAMPLE)
        return false;
    if (n->op == WGC_OP_LP_NORM) {
        const int rank = g->tensors[n->inputs[0]].shape.rank;
        const int64_t axis = wgc_attr_int(n, "axis", -1);
        return axis != 0 && axis != -rank;
    }
    return n->op == WGC_OP_GROUP_NORM;
}

const wgc_op_def wgc_op_norms = {.infer = norms_infer, .emit = norms_emit, .sym = {.takes = norms_sym_takes}};
