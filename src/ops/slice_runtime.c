/* slice_runtime.c: Slice with starts, ends or steps computed at run time (slice_runtime.h). */
#include "slice_runtime.h"

#include <stdio.h>
#include <string.h>

#include "../common/dtype.h"
#include "../ir/symdim.h"
#include "helpers/emit_and_fold.h"
#include "helpers/host_elements.h"

enum { STARTS = 1, ENDS = 2, AXES = 3, STEPS = 4 };

static bool runtime_input(const wgc_graph *g, const wgc_node *n, int i)
{
    if (i >= n->n_inputs || n->inputs[i] < 0)
        return false;
    const wgc_tensor *t = &g->tensors[n->inputs[i]];
    return !t->data && !t->symval;
}

bool wgc_slice_is_runtime(const wgc_graph *g, const wgc_node *n)
{
    return n->op == WGC_OP_SLICE && n->opset >= 10 &&
           (runtime_input(g, n, STARTS) || runtime_input(g, n, ENDS) || runtime_input(g, n, STEPS));
}

/* Is dim d of n's output a run-time size n decides? */
static bool owns_dim(const wgc_graph *g, const wgc_node *n, int d)
{
    const int y = n->outputs[0];
    for (int k = wgc_sym_n_host(g); k < g->n_syms; k++)
        if (g->syms[k].runtime && g->syms[k].tensor == y && g->syms[k].dim == d &&
            g->tensors[y].shape.sym[d][k])
            return true;
    return false;
}

bool wgc_slice_runs_sizes(const wgc_graph *g, const wgc_node *n)
{
    if (wgc_slice_is_runtime(g, n))
        return true;
    if (n->op != WGC_OP_SLICE || n->opset < 10 || n->outputs[0] < 0)
        return false;
    for (int d = 0; d < g->tensors[n->outputs[0]].shape.rank; d++)
        if (owns_dim(g, n, d))
            return true;
    return false;
}

/* The sliced axes in entry order (axis[i] for entry i) and the constant steps (0: a
 * run-time one); the one place the parameters' shapes and the axes are checked. */
typedef struct slices {
    int64_t m;
    int axis[WG_MAX_RANK];
    int64_t step[WG_MAX_RANK];
} slices;

static wg_status read_slices(wgc_graph *g, const wgc_node *n, slices *s)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ts = wgc_in(g, n, STARTS), *te = wgc_in(g, n, ENDS);
    const wgc_tensor *ta = wgc_in(g, n, AXES), *tp = wgc_in(g, n, STEPS);
    if (!ts || !te)
        return wgc_error(g, n, WG_ERR_INVALID, "starts and ends are required");
    const wgc_tensor *params[] = {ts, te, ta, tp};
    for (int i = 0; i < 4; i++) {
        const wgc_tensor *t = params[i];
        if (!t)
            continue;
        if (t->dtype != WG_DT_INT64 && t->dtype != WG_DT_INT32)
            return wgc_error(g, n, WG_ERR_INVALID, "input '%s' must be int32 or int64", t->name);
        if (t->shape.rank != 1 || wgc_shape_is_sym(&t->shape))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "input '%s' of a Slice computed at run time must be 1-D of a fixed length",
                             t->name);
    }
    if (ta && (!ta->data || ta->symval))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "axes input '%s' is computed at run time; with run-time starts, ends or steps "
                         "only constant axes are supported (they decide which dims vary)", ta->name);
    if (x->symval)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a run-time Slice of symbolic values (shape arithmetic)");
    s->m = ts->shape.dims[0];
    if (te->shape.dims[0] != s->m || (ta && ta->shape.dims[0] != s->m) || (tp && tp->shape.dims[0] != s->m))
        return wgc_error(g, n, WG_ERR_INVALID, "starts/ends/axes/steps differ in length");
    if (s->m > x->shape.rank)
        return wgc_error(g, n, WG_ERR_INVALID, "%lld slices of a rank-%d input", (long long)s->m,
                         x->shape.rank);
    bool seen[WG_MAX_RANK] = {false};
    for (int64_t i = 0; i < s->m; i++) {
        int64_t a = ta ? wgc_const_int(ta, i) : i;
        int ax;
        if (!wgc_norm_axis(a, x->shape.rank, &ax) || seen[ax])
            return wgc_error(g, n, WG_ERR_INVALID, "bad or repeated axis %lld", (long long)a);
        seen[ax] = true;
        s->axis[i] = ax;
        s->step[i] = !tp ? 1 : tp->data && !tp->symval ? wgc_const_int(tp, i) : 0;
        if (tp && tp->data && !tp->symval && s->step[i] == 0)
            return wgc_error(g, n, WG_ERR_INVALID, "step 0");
    }
    return WG_OK;
}

wg_status wgc_slice_runtime_infer(wgc_graph *g, wgc_node *n)
{
    slices s;
    wg_status st = read_slices(g, n, &s);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y = x->shape;
    for (int64_t i = 0; i < s.m; i++) {
        const int a = s.axis[i];
        const int64_t dim = x->shape.dims[a], p = s.step[i] < 0 ? -s.step[i] : s.step[i];
        /* at most ceil(dim / |step|) elements; a run-time step may be 1 */
        const int64_t bound = p > 1 ? (dim + p - 1) / p : dim;
        int sym;
        if ((st = wgc_sym_add_runtime(g, n, n->outputs[0], a, bound, &sym)))
            return st;
        wgc_shape_set_runtime(&y, a, sym, bound);
    }
    wgc_set_output(g, n, 0, x->dtype, &y);
    return WG_OK;
}

wg_status wgc_slice_runtime_keep_syms(wgc_graph *g, const wgc_node *n, wgc_shape *y)
{
    slices s;
    wg_status st = read_slices(g, n, &s);
    if (st)
        return st;
    bool sliced[WG_MAX_RANK] = {false};
    for (int64_t i = 0; i < s.m; i++)
        sliced[s.axis[i]] = true;
    const wgc_tensor *x = wgc_in(g, n, 0);
    for (int d = 0; d < x->shape.rank; d++)
        if (!sliced[d])
            memcpy(y->sym[d], x->shape.sym[d], WGC_MAX_SYMS);
    return WG_OK;
}

/* Element i of parameter input k as a C int64 expression. */
static const char *param(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int k, int64_t i, char *buf, size_t cap)
{
    return wgc_int_elem_expr(e, g, n->inputs[k], i, buf, cap);
}

/* Per entry, the ONNX clamping of affine_gather.c's plan, in the module: the length goes
 * into y's dims and wg_dims, the start into the offset, step x stride into the strides.
 * A step of 0 returns WGK_ERR_INDEX (a parameter value out of range). */
wg_status wgc_slice_runtime_emit(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    slices s;
    wg_status st = read_slices(g, n, &s);
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    const int r = x->shape.rank;
    wgc_emit(e, "{\nint32_t yd[%d], xs[%d];\nint64_t off = 0;\n", r, r);
    for (int d = 0; d < r; d++)
        wgc_emit(e, "yd[%d] = %s; xs[%d] = %s;\n", d, wgc_dims_expr(e, &x->shape, d, d + 1), d,
                 wgc_dims_expr(e, &x->shape, d + 1, r));
    for (int64_t i = 0; i < s.m; i++) {
        const int a = s.axis[i];
        char sb[128], eb[128], pb[128];
        wgc_emit(e, "{\nconst int64_t dim = yd[%d];\nint64_t s0 = %s, e0 = %s, p0 = %s;\n", a,
                 param(e, g, n, STARTS, i, sb, sizeof sb), param(e, g, n, ENDS, i, eb, sizeof eb),
                 wgc_in(g, n, STEPS) ? param(e, g, n, STEPS, i, pb, sizeof pb) : "1");
        /* a step past the dim takes at most one element either way: clamped, the products
         * below stay in range */
        wgc_emit(e, "if (p0 == 0)\n    return WGK_ERR_INDEX;\n"
                    "if (p0 > dim + 1) p0 = dim + 1;\nif (p0 < -(dim + 1)) p0 = -(dim + 1);\n"
                    "if (s0 < 0) s0 += dim;\nif (e0 < 0) e0 += dim;\n"
                    "if (p0 > 0) {\n    s0 = s0 < 0 ? 0 : s0 > dim ? dim : s0;\n    e0 = e0 < 0 ? 0 : e0 > dim ? dim : e0;\n"
                    "} else {\n    s0 = s0 < 0 ? -1 : s0 > dim - 1 ? dim - 1 : s0;\n"
                    "    e0 = e0 < -1 ? -1 : e0 > dim - 1 ? dim - 1 : e0;\n}\n"
                    "const int64_t len = p0 > 0 ? (e0 > s0 ? (e0 - s0 + p0 - 1) / p0 : 0) : (s0 > e0 ? (s0 - e0 - p0 - 1) / -p0 : 0);\n");
        wgc_emit(e, "yd[%d] = (int32_t)len;\n", a);
        const int sym = wgc_shape_first_sym(&y->shape, a);
        if (sym >= 0 && owns_dim(g, n, a)) /* (a symbolic size kept from x is the host's) */
            wgc_emit(e, "wg_dims[%d] = (int32_t)len;\n", sym);
        wgc_emit(e, "off += (len ? s0 : 0) * xs[%d];\nxs[%d] = (int32_t)(p0 * xs[%d]);\n}\n", a, a, a);
    }
    const size_t es = wg_dtype_size(x->dtype);
    wgc_emit(e, "wgk_copy_strided(%s, (const char *)%s + off * %zu, %zu, %d, yd, xs);\n}\n",
             wgc_ptr(e, g, n->outputs[0]), wgc_ptr(e, g, n->inputs[0]), es, es, r);
    return WG_OK;
}
