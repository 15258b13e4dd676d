/*
 * loss.c: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (float, double) as one
 * inline loop over the [N][C][D] view of the scores (D = product of d1..dk): reduction
 * none / sum / mean, optional class weights, ignore_index, SCE's optional log_prob output.
 * Sums are kept in double. A target outside [0, C) that is not ignore_index makes the
 * module return WGK_ERR_INDEX.
 */
#include <stdio.h>
#include <string.h>

#include "helpers/inline_loops.h"

enum { RED_NONE, RED_SUM, RED_MEAN };

typedef struct loss_geom {
    int64_t N, C, D;
    int red;
    bool has_ii;
    int64_t ii;
    bool sce;
} loss_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, loss_geom *q)
{
    static const int fl[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};
    static const int ix[] = {WG_DT_INT32, WG_DT_INT64, 0};
    q->sce = n->op == WGC_OP_SOFTMAX_CROSS_ENTROPY_LOSS;
    wg_status st = wgc_check_arity(g, n, 2, 3, 1, q->sce ? 2 : 1);
    if (!st)
        st = wgc_check_input(g, n, 0, fl);
    if (!st)
        st = wgc_check_input(g, n, 1, ix);
    if (!st && wgc_in(g, n, 2))
        st = wgc_check_input(g, n, 2, fl);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *t = wgc_in(g, n, 1), *w = wgc_in(g, n, 2);
    char a[128], b[128];
    if (x->shape.rank < 2)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has shape %s; it needs rank >= 2 (N, C, ...)",
                         x->name, wgc_shape_str(&x->shape, a, sizeof a));
    bool ok = t->shape.rank == x->shape.rank - 1 && t->shape.dims[0] == x->shape.dims[0];
    for (int d = 2; ok && d < x->shape.rank; d++)
        ok = t->shape.dims[d - 1] == x->shape.dims[d];
    if (!ok)
        return wgc_error(g, n, WG_ERR_INVALID, "target '%s' has shape %s, which does not fit input shape %s",
                         t->name, wgc_shape_str(&t->shape, a, sizeof a),
                         wgc_shape_str(&x->shape, b, sizeof b));
    q->N = x->shape.dims[0];
    q->C = x->shape.dims[1];
    q->D = 1;
    for (int d = 2; d < x->shape.rank; d++)
        q->D *= x->shape.dims[d];
    if (w && (w->dtype != x->dtype || w->shape.rank != 1 || w->shape.dims[0] != q->C))
        return wgc_error(g, n, WG_ERR_INVALID, "weight '%s' must be a %s vector of %lld elements",
                         w->name, wg_dtype_name(x->dtype), (long long)q->C);
    const char *r = wgc_attr_str(n, "reduction", "mean");
    if (!strcmp(r, "none"))
        q->red = RED_NONE;
    else if (!strcmp(r, "sum"))
        q->red = RED_SUM;
    else if (!strcmp(r, "mean"))
        q->red = RED_MEAN;
    else
        return wgc_error(g, n, WG_ERR_INVALID, "reduction '%s' is not none, sum or mean", r);
    q->has_ii = wgc_attr_find(n, "ignore_index") != NULL;
    q->ii = wgc_attr_int(n, "ignore_index", 0);
    int64_t numel = wgc_numel(&x->shape);
    if (numel >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has %lld elements (limit 2^31)", x->name,
                         (long long)numel);
    return WG_OK;
}

static wg_status loss_infer(wgc_graph *g, wgc_node *n)
{
    loss_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *t = wgc_in(g, n, 1);
    wgc_shape s = {.rank = 0, .dims = {0}};
    if (q.red == RED_NONE)
        s = t->shape;
    wgc_set_output(g, n, 0, x->dtype, &s);
    if (q.sce && wgc_out(g, n, 1))
        wgc_set_output(g, n, 1, x->dtype, &x->shape);
    return WG_OK;
}

static wg_status loss_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    loss_geom q;
    wg_status st = resolve(g, n, &q);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *t = wgc_in(g, n, 1), *w = wgc_in(g, n, 2);
    const bool lp_out = q.sce && wgc_out(g, n, 1);
    const long long N = (long long)q.N, C = (long long)q.C, D = (long long)q.D;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nconst %s *pt = (const %s *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ctype(t->dtype), wgc_ctype(t->dtype),
             wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e, "T *py = (T *)%s;\n", wgc_ptr(e, g, n->outputs[0]));
    if (w)
        wgc_emit(e, "const T *pw = (const T *)%s;\n", wgc_ptr(e, g, n->inputs[2]));
    if (lp_out)
        wgc_emit(e, "T *plp = (T *)%s;\n", wgc_ptr(e, g, n->outputs[1]));
    wgc_emit(e, "double acc = 0, den = 0;\n");
    wgc_emit(e, "for (int32_t b = 0; b < %lld; b++)\nfor (int32_t d = 0; d < %lld; d++) {\n", N, D);
    wgc_emit(e, "const T *xr = px + (int64_t)b * %lld + d;\n", C * D);
    if (q.sce) {
        /* log-softmax over the class axis, in double */
        wgc_emit(e, "double mx = -1.0/0.0, se = 0;\n");
        wgc_emit(e, "for (int32_t c = 0; c < %lld; c++) if (xr[c * %lld] > mx) mx = xr[c * %lld];\n", C, D, D);
        wgc_emit(e, "for (int32_t c = 0; c < %lld; c++) se += wgk_exp((double)xr[c * %lld] - mx);\n", C, D);
        wgc_emit(e, "se = mx + wgk_log(se);\n");
        if (lp_out)
            wgc_emit(e, "for (int32_t c = 0; c < %lld; c++) plp[(int64_t)b * %lld + d + c * %lld] = "
                        "(T)((double)xr[c * %lld] - se);\n", C, C * D, D, D);
    }
    wgc_emit(e, "int64_t k = (int64_t)pt[(int64_t)b * %lld + d];\ndouble v = 0, wt = 0;\n", D);
    if (q.has_ii)
        wgc_emit(e, "if (k != %lldLL) {\n", (long long)q.ii);
    else
        wgc_emit(e, "{\n");
    wgc_emit(e, "if (k < 0 || k >= %lld) return WGK_ERR_INDEX;\n", C);
    wgc_emit(e, "wt = %s;\n", w ? "(double)pw[k]" : "1.0");
    if (q.sce)
        wgc_emit(e, "v = -((double)xr[k * %lld] - se) * wt;\n}\n", D);
    else
        wgc_emit(e, "v = -(double)xr[k * %lld] * wt;\n}\n", D);
    if (q.red == RED_NONE)
        wgc_emit(e, "py[(int64_t)b * %lld + d] = (T)v;\n}\n", D);
    else
        wgc_emit(e, "acc += v; den += wt;\n}\n");
    if (q.red == RED_SUM)
        wgc_emit(e, "py[0] = (T)acc;\n");
    else if (q.red == RED_MEAN)
        wgc_emit(e, "py[0] = (T)(acc / den);\n");
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_loss = {.infer = loss_infer, .emit = loss_emit};
