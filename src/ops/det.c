/*
 * det.c: Det (float, double): the determinant of each trailing [n, n] matrix, by LU
 * decomposition with partial pivoting in double, in an inline loop over a scratch copy.
 */
#include "helpers/inline_loops.h"

static wg_status det_infer(wgc_graph *g, wgc_node *n)
{
    static const int fl[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};
    wg_status st = wgc_check_data_input(g, n, 1, 1, fl);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = x->shape.rank;
    char a[128];
    if (r < 2 || x->shape.dims[r - 1] != x->shape.dims[r - 2])
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has shape %s; it needs square trailing "
                         "matrices [..., n, n]", x->name, wgc_shape_str(&x->shape, a, sizeof a));
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 30) || x->shape.dims[r - 1] > 4096)
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' is too large", x->name);
    wgc_shape s = x->shape;
    s.rank = r - 2;
    wgc_set_output(g, n, 0, x->dtype, &s);
    return WG_OK;
}

static size_t det_scratch(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = &g->tensors[n->inputs[0]];
    const int64_t m = x->shape.dims[x->shape.rank - 1];
    return sizeof(double) * (size_t)(m * m);
}

static wg_status det_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const long long m = (long long)x->shape.dims[x->shape.rank - 1];
    const long long batch = (long long)(wgc_numel(&x->shape) / (m ? m * m : 1));
    if (m == 0) { /* the determinant of an empty matrix is 1 */
        wgc_emit(e, "{\n%s *py = (%s *)%s;\nfor (int32_t b = 0; b < %lld; b++) py[b] = 1;\n}\n",
                 wgc_ctype(x->dtype), wgc_ctype(x->dtype), wgc_ptr(e, g, n->outputs[0]), batch);
        return WG_OK;
    }
    wgc_emit(e, "{\ntypedef %s T;\nconst T *px = (const T *)%s;\nT *py = (T *)%s;\ndouble *a = (double *)%s;\n",
             wgc_ctype(x->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), wgc_scratch(e));
    wgc_emit(e, "for (int32_t b = 0; b < %lld; b++) {\n", batch);
    wgc_emit(e, "for (int32_t k = 0; k < %lld; k++) a[k] = px[(int64_t)b * %lld + k];\n", m * m, m * m);
    wgc_emit(e, "double det = 1;\nfor (int32_t c = 0; c < %lld && det != 0; c++) {\n", m);
    /* pivot: the largest magnitude in column c at or below row c */
    wgc_emit(e, "int32_t p = c;\nfor (int32_t r = c + 1; r < %lld; r++) "
                "if (wgk__fabs(a[r * %lld + c]) > wgk__fabs(a[p * %lld + c])) p = r;\n", m, m, m);
    wgc_emit(e, "if (a[p * %lld + c] == 0) { det = 0; break; }\n", m);
    wgc_emit(e, "if (p != c) { det = -det; for (int32_t k = 0; k < %lld; k++) { double t = a[p * %lld + k]; "
                "a[p * %lld + k] = a[c * %lld + k]; a[c * %lld + k] = t; } }\n", m, m, m, m, m);
    wgc_emit(e, "double d = a[c * %lld + c];\ndet *= d;\n", m);
    wgc_emit(e, "for (int32_t r = c + 1; r < %lld; r++) {\ndouble f = a[r * %lld + c] / d;\n"
                "for (int32_t k = c + 1; k < %lld; k++) a[r * %lld + k] -= f * a[c * %lld + k];\n}\n}\n",
             m, m, m, m, m);
    wgc_emit(e, "py[b] = (T)det;\n}\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_det = {.infer = det_infer, .emit = det_emit, .scratch = det_scratch};
