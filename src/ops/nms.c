/*
 * nms.c: NonMaxSuppression. The number of selected boxes is data-dependent: with every
 * input constant the op is computed on the host (infer counts, fold writes); otherwise
 * the count is a run-time symbol (ir/symdim.h) bounded by B * C * min(max_output, N) when
 * max_output_boxes_per_class is constant (B * C * N when not), and the generated code
 * (the same steps in float32) writes it into wg_dims; boxes and scores may then be of
 * symbolic or data-dependent size (the bound at the maxima). Greedy selection per batch and class as
 * ONNX defines it: candidates above score_threshold by descending score (ties: lower box
 * index first), a box is dropped when its IoU with a selected box exceeds iou_threshold.
 * Box arithmetic in float32, as in ONNX's reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/emit_and_fold.h"
#include "helpers/inline_loops.h"
#include "../ir/symdim.h"
#include "sym.h"

static float fmin2(float a, float b) { return a < b ? a : b; }
static float fmax2(float a, float b) { return a > b ? a : b; }

/* The corners (ymin, xmin, ymax, xmax) of box b. */
static void corners(const float *b, int center, float *c)
{
    if (center) {
        c[0] = b[1] - b[3] / 2, c[2] = b[1] + b[3] / 2;
        c[1] = b[0] - b[2] / 2, c[3] = b[0] + b[2] / 2;
    } else {
        c[0] = fmin2(b[0], b[2]), c[2] = fmax2(b[0], b[2]);
        c[1] = fmin2(b[1], b[3]), c[3] = fmax2(b[1], b[3]);
    }
}

static bool suppress(const float *a, const float *b, int center, float thr)
{
    float p[4], q[4];
    corners(a, center, p);
    corners(b, center, q);
    float x0 = fmax2(p[1], q[1]), x1 = fmin2(p[3], q[3]);
    float y0 = fmax2(p[0], q[0]), y1 = fmin2(p[2], q[2]);
    if (x1 <= x0 || y1 <= y0)
        return false;
    float inter = (x1 - x0) * (y1 - y0);
    float a1 = (p[3] - p[1]) * (p[2] - p[0]), a2 = (q[3] - q[1]) * (q[2] - q[0]);
    float uni = a1 + a2 - inter;
    if (inter <= 0 || a1 <= 0 || a2 <= 0 || uni <= 0)
        return false;
    return inter / uni > thr;
}

/* Runs NMS over the constant inputs; writes up to *count triples into out (when not NULL)
 * and sets *count to the number selected. */
static wg_status nms_run(wgc_graph *g, const wgc_node *n, int64_t *out, int64_t *count)
{
    const wgc_tensor *bx = wgc_in(g, n, 0), *sc = wgc_in(g, n, 1);
    const wgc_tensor *mo = wgc_in(g, n, 2), *it = wgc_in(g, n, 3), *st_ = wgc_in(g, n, 4);
    const int64_t B = bx->shape.dims[0], NB = bx->shape.dims[1], C = sc->shape.dims[1];
    int64_t maxo = mo && wgc_numel(&mo->shape) ? wgc_const_int(mo, 0) : 0;
    float iou = 0, sthr = 0;
    if (it && wgc_numel(&it->shape))
        memcpy(&iou, it->data, 4);
    const bool has_s = st_ && wgc_numel(&st_->shape);
    if (has_s)
        memcpy(&sthr, st_->data, 4);
    const int center = (int)wgc_attr_int(n, "center_point_box", 0);
    const float *boxes = bx->data, *scores = sc->data;
    int64_t *cand = malloc(sizeof *cand * (size_t)(NB ? NB : 1));
    int64_t *sel = malloc(sizeof *sel * (size_t)(NB ? NB : 1));
    if (!cand || !sel) {
        free(cand);
        free(sel);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    int64_t total = 0;
    if (maxo < 0)
        maxo = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++) {
            const float *s = scores + (b * C + c) * NB;
            const float *bb = boxes + b * NB * 4;
            int64_t nc = 0, ns = 0;
            for (int64_t i = 0; i < NB; i++)
                if (!has_s || s[i] > sthr)
                    cand[nc++] = i;
            /* insertion sort: descending score, ascending index on ties (stable) */
            for (int64_t i = 1; i < nc; i++) {
                int64_t v = cand[i], j = i;
                while (j > 0 && s[cand[j - 1]] < s[v])
                    cand[j] = cand[j - 1], j--;
                cand[j] = v;
            }
            for (int64_t i = 0; i < nc && ns < maxo; i++) {
                bool keep = true;
                for (int64_t k = 0; k < ns && keep; k++)
                    keep = !suppress(bb + cand[i] * 4, bb + sel[k] * 4, center, iou);
                if (!keep)
                    continue;
                sel[ns++] = cand[i];
                if (out) {
                    out[3 * total] = b, out[3 * total + 1] = c, out[3 * total + 2] = cand[i];
                }
                total++;
            }
        }
    free(cand);
    free(sel);
    *count = total;
    return WG_OK;
}

static wg_status nms_infer(wgc_graph *g, wgc_node *n)
{
    static const int f32[] = {WG_DT_FLOAT, 0}, i64[] = {WG_DT_INT64, 0};
    wg_status st = wgc_check_data_input(g, n, 2, 5, f32);
    if (!st)
        st = wgc_check_input(g, n, 1, f32);
    if (!st && wgc_in(g, n, 2))
        st = wgc_check_input(g, n, 2, i64);
    for (int i = 3; !st && i < 5; i++)
        if (wgc_in(g, n, i))
            st = wgc_check_input(g, n, i, f32);
    if (st)
        return st;
    const wgc_tensor *bx = wgc_in(g, n, 0), *sc = wgc_in(g, n, 1);
    char a[128], b[128];
    if (bx->shape.rank != 3 || bx->shape.dims[2] != 4 || sc->shape.rank != 3 ||
        sc->shape.dims[0] != bx->shape.dims[0] || sc->shape.dims[2] != bx->shape.dims[1])
        return wgc_error(g, n, WG_ERR_INVALID, "boxes %s and scores %s must be [B, N, 4] and [B, C, N]",
                         wgc_shape_str(&bx->shape, a, sizeof a), wgc_shape_str(&sc->shape, b, sizeof b));
    for (int i = 2; i < 5; i++) {
        const wgc_tensor *t = wgc_in(g, n, i);
        if (t && wgc_numel(&t->shape) > 1)
            return wgc_error(g, n, WG_ERR_INVALID, "input '%s' must hold at most one value", t->name);
    }
    int64_t ce = wgc_attr_int(n, "center_point_box", 0);
    if (ce != 0 && ce != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "center_point_box = %lld (must be 0 or 1)", (long long)ce);
    bool all_const = true;
    for (int i = 0; i < n->n_inputs; i++)
        all_const &= !wgc_in(g, n, i) || wgc_in(g, n, i)->data != NULL;
    if (!all_const) {
        const wgc_tensor *mo = wgc_in(g, n, 2);
        int64_t B = bx->shape.dims[0], NB = bx->shape.dims[1], C = sc->shape.dims[1], per = NB;
        if (!mo || !wgc_numel(&mo->shape))
            per = 0; /* no max_output_boxes_per_class: 0, nothing is selected */
        else if (mo->data)
            per = wgc_const_int(mo, 0) < 0 ? 0 : wgc_const_int(mo, 0) < NB ? wgc_const_int(mo, 0) : NB;
        int sym;
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], 0, B * C * per, &sym)))
            return st;
        wgc_shape y = {.rank = 2, .dims = {0, 3}};
        wgc_shape_set_runtime(&y, 0, sym, B * C * per);
        wgc_set_output(g, n, 0, WG_DT_INT64, &y);
        return WG_OK;
    }
    int64_t count;
    if ((st = nms_run(g, n, NULL, &count)))
        return st;
    wgc_set_output(g, n, 0, WG_DT_INT64, &(wgc_shape){.rank = 2, .dims = {count, 3}});
    return WG_OK;
}

static wg_status nms_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    int64_t *data = calloc((size_t)(y->shape.dims[0] * 3 + 1), sizeof *data), count;
    if (!data)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    wg_status st = nms_run(g, n, data, &count);
    if (st) {
        free(data);
        return st;
    }
    wgc_tensor_set_const(g, n->outputs[0], WG_DT_INT64, &y->shape, data);
    return WG_OK;
}

/* The C of optional scalar input i: its value when constant, a read of its buffer when
 * not, dflt when absent or empty. */
static const char *scalar_in(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int i, const char *ct,
                             const char *dflt, char *buf, size_t cap)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    if (!t || !wgc_numel(&t->shape))
        return dflt;
    if (t->data && t->dtype == WG_DT_INT64)
        snprintf(buf, cap, "(int64_t)%lldll", (long long)wgc_const_int(t, 0));
    else if (t->data) {
        float v;
        memcpy(&v, t->data, 4);
        snprintf(buf, cap, "%s", wgc_float(e, v));
    } else
        snprintf(buf, cap, "*(const %s *)%s", ct, wgc_ptr(e, g, n->inputs[i]));
    return buf;
}

static size_t nms_scratch(const wgc_graph *g, const wgc_node *n)
{
    return (size_t)(g->tensors[n->inputs[0]].shape.dims[1] * 2 + 1) * sizeof(int32_t);
}

/* A run-time NMS: nms_run's steps in C (candidates above the score threshold, insertion
 * sort by descending score, greedy suppression by IoU), its count into wg_dims. */
static wg_status nms_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *bx = wgc_in(g, n, 0), *sc = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    int sym = wgc_shape_first_sym(&y->shape, 0);
    if (sym < 0) /* nothing can be selected: an empty output */
        return WG_OK;
    const long long NBMAX = bx->shape.dims[1];
    const int center = (int)wgc_attr_int(n, "center_point_box", 0);
    char mo[128], it[128], st[128];
    const wgc_tensor *sthr = wgc_in(g, n, 4);
    wgc_emit(e, "{\nconst float *boxes = (const float *)%s, *scores = (const float *)%s;\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]));
    wgc_emit(e, "int64_t *out = (int64_t *)%s;\nint32_t *cand = (int32_t *)%s, *sel = cand + %lld;\n",
             wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e), NBMAX);
    /* the sizes as C: boxes and scores of symbolic or data-dependent size at their actual ones */
    wgc_emit(e, "const int32_t B = %s, NB = %s, C = %s;\n", wgc_dims_expr(e, &bx->shape, 0, 1),
             wgc_dims_expr(e, &bx->shape, 1, 2), wgc_dims_expr(e, &sc->shape, 1, 2));
    wgc_emit(e, "int64_t maxo = %s;\nconst float iou = %s, sthr = %s;\nconst int has_s = %d;\n",
             scalar_in(e, g, n, 2, "int64_t", "0", mo, sizeof mo), scalar_in(e, g, n, 3, "float", "0.0f", it, sizeof it),
             scalar_in(e, g, n, 4, "float", "0.0f", st, sizeof st), sthr && wgc_numel(&sthr->shape) ? 1 : 0);
    wgc_emit(e, "if (maxo < 0) maxo = 0;\nint32_t total = 0;\n(void)sthr;\n");
    wgc_emit(e, "#define WG_MIN2(a, b) ((a) < (b) ? (a) : (b))\n#define WG_MAX2(a, b) ((a) > (b) ? (a) : (b))\n");
    if (center)
        wgc_emit(e, "#define WG_CORNERS(q, c) float c##0 = q[1] - q[3] / 2, c##2 = q[1] + q[3] / 2, "
                    "c##1 = q[0] - q[2] / 2, c##3 = q[0] + q[2] / 2\n");
    else
        wgc_emit(e, "#define WG_CORNERS(q, c) float c##0 = WG_MIN2(q[0], q[2]), c##2 = WG_MAX2(q[0], q[2]), "
                    "c##1 = WG_MIN2(q[1], q[3]), c##3 = WG_MAX2(q[1], q[3])\n");
    wgc_emit(e, "for (int32_t b = 0; b < B; b++)\nfor (int32_t c = 0; c < C; c++) {\n");
    wgc_emit(e, "    const float *s = scores + ((size_t)b * C + c) * NB, *bb = boxes + (size_t)b * NB * 4;\n");
    wgc_emit(e, "    int32_t nc = 0, ns = 0;\n    for (int32_t i = 0; i < NB; i++)\n"
                "        if (!has_s || s[i] > sthr)\n            cand[nc++] = i;\n");
    wgc_emit(e, "    for (int32_t i = 1; i < nc; i++) {\n        int32_t v = cand[i], j = i;\n"
                "        while (j > 0 && s[cand[j - 1]] < s[v]) { cand[j] = cand[j - 1]; j--; }\n"
                "        cand[j] = v;\n    }\n");
    wgc_emit(e, "    for (int32_t i = 0; i < nc && ns < maxo; i++) {\n        int keep = 1;\n"
                "        const float *pa = bb + cand[i] * 4;\n        WG_CORNERS(pa, p);\n"
                "        for (int32_t k = 0; k < ns && keep; k++) {\n"
                "            const float *pb = bb + sel[k] * 4;\n            WG_CORNERS(pb, q);\n"
                "            float x0 = WG_MAX2(p1, q1), x1 = WG_MIN2(p3, q3), y0 = WG_MAX2(p0, q0), y1 = WG_MIN2(p2, q2);\n"
                "            if (x1 <= x0 || y1 <= y0)\n                continue;\n"
                "            float inter = (x1 - x0) * (y1 - y0), a1 = (p3 - p1) * (p2 - p0), a2 = (q3 - q1) * (q2 - q0);\n"
                "            float uni = a1 + a2 - inter;\n"
                "            if (inter <= 0 || a1 <= 0 || a2 <= 0 || uni <= 0)\n                continue;\n"
                "            keep = !(inter / uni > iou);\n        }\n");
    wgc_emit(e, "        if (!keep)\n            continue;\n        sel[ns++] = cand[i];\n"
                "        out[3 * total] = b;\n        out[3 * total + 1] = c;\n        out[3 * total + 2] = cand[i];\n"
                "        total++;\n    }\n}\n");
    wgc_emit(e, "#undef WG_CORNERS\n#undef WG_MIN2\n#undef WG_MAX2\nwg_dims[%d] = total;\n}\n", sym);
    return WG_OK;
}

/* ---- symbolic dims (sym.h) ---- */

/* [count, 3], count its own run-time symbol (nms_infer); boxes [B, N, 4] and scores
 * [B, C, N] must agree at every size, not only at the maxima */
static wg_status nms_sym_infer(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!wgc_out(g, n, 0))
        return WG_OK;
    const wgc_tensor *sc = wgc_in(g, n, 1);
    if (wgc_sym_has_symval_input(g, n))
        return wgc_sym_refuse(g, n, "an input holding symbolic values");
    if (memcmp(x->shape.sym[0], sc->shape.sym[0], WGC_MAX_SYMS) ||
        memcmp(x->shape.sym[1], sc->shape.sym[2], WGC_MAX_SYMS) || wgc_dim_is_sym(&x->shape, 2))
        return wgc_sym_refuse(g, n, "boxes and scores whose batch or box counts are different symbols");
    return WG_OK;
}

/* Its count decided at run time: its own emit hook reads its inputs' sizes at run time
 * itself (nms_sym_infer took the shapes), unless an input holds symbolic values. */
static bool nms_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t != WGC_DATA_DEPENDENT)
        return false;
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].symval)
            return false;
    return true;
}

const wgc_op_def wgc_op_nms = {
    .infer = nms_infer,
    .fold = nms_fold,
    .emit = nms_emit,
    .scratch = nms_scratch,
    .sym = {.infer = nms_sym_infer, .takes = nms_sym_takes},
};
