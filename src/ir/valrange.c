/* valrange.c: bounds on the values of integer tensors computed at run time (valrange.h). */
#include "valrange.h"

#include <stdlib.h>
#include <string.h>

#include "symdim.h"

static bool is_int(int dtype)
{
    return dtype == WG_DT_INT64 || dtype == WG_DT_INT32 || dtype == WG_DT_INT16 || dtype == WG_DT_INT8 ||
           dtype == WG_DT_UINT8 || dtype == WG_DT_UINT16 || dtype == WG_DT_UINT32;
}

bool wgc_vrange_at(const wgc_graph *g, const wgc_tensor *t, int64_t i, wgc_vrange *r)
{
    if (!t || !is_int(t->dtype))
        return false;
    if (t->symval) {
        r->lo = wgc_dimx_min(g, &t->symval[i]);
        r->hi = wgc_dimx_max(g, &t->symval[i]);
        return true;
    }
    if (t->data) {
        r->lo = r->hi = wgc_const_int(t, i);
        return true;
    }
    if (!t->vrange)
        return false;
    *r = t->vrange[t->n_vrange == 1 ? 0 : i];
    return true;
}

wg_status wgc_vrange_set(wgc_graph *g, int t, const wgc_vrange *r, int64_t n)
{
    wgc_vrange *copy = malloc(sizeof *copy * (size_t)n);
    if (!copy)
        return WG_ERR_NOMEM;
    memcpy(copy, r, sizeof *copy * (size_t)n);
    free(g->tensors[t].vrange);
    g->tensors[t].vrange = copy;
    g->tensors[t].n_vrange = n;
    return WG_OK;
}

/* The union of every element's bounds of t into *r. */
static bool union_of(const wgc_graph *g, const wgc_tensor *t, wgc_vrange *r)
{
    if (!t || !is_int(t->dtype))
        return false;
    int64_t count = t->data || t->symval ? wgc_numel(&t->shape) : t->n_vrange;
    if (!t->data && !t->symval && !t->vrange)
        return false;
    r->lo = INT64_MAX;
    r->hi = INT64_MIN;
    for (int64_t i = 0; i < count; i++) {
        wgc_vrange e;
        wgc_vrange_at(g, t, i, &e);
        r->lo = e.lo < r->lo ? e.lo : r->lo;
        r->hi = e.hi > r->hi ? e.hi : r->hi;
    }
    if (count == 0)
        r->lo = r->hi = 0;
    return true;
}

/* Element i of output shape y read from operand x under numpy broadcasting. */
static int64_t broadcast_index(const wgc_shape *y, const wgc_shape *x, int64_t i)
{
    int64_t idx = 0, stride = 1;
    for (int d = y->rank - 1, dx = x->rank - 1; d >= 0; d--, dx--) {
        int64_t c = i % y->dims[d];
        i /= y->dims[d];
        if (dx >= 0) {
            if (x->dims[dx] != 1)
                idx += c * stride;
            stride *= x->dims[dx];
        }
    }
    return idx;
}

/* The binary rules; false when the result may overflow or is unbounded. */
static bool combine(wgc_op op, wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    int64_t c[4];
    switch (op) {
    case WGC_OP_ADD:
        return !__builtin_add_overflow(a.lo, b.lo, &r->lo) && !__builtin_add_overflow(a.hi, b.hi, &r->hi);
    case WGC_OP_SUB:
        return !__builtin_sub_overflow(a.lo, b.hi, &r->lo) && !__builtin_sub_overflow(a.hi, b.lo, &r->hi);
    case WGC_OP_MUL:
        if (__builtin_mul_overflow(a.lo, b.lo, &c[0]) || __builtin_mul_overflow(a.lo, b.hi, &c[1]) ||
            __builtin_mul_overflow(a.hi, b.lo, &c[2]) || __builtin_mul_overflow(a.hi, b.hi, &c[3]))
            return false;
        break;
    case WGC_OP_DIV:
        /* truncating division is monotonic in each operand while the divisor keeps its sign */
        if ((b.lo <= 0 && b.hi >= 0) || (a.lo == INT64_MIN && (b.lo == -1 || b.hi == -1)))
            return false;
        c[0] = a.lo / b.lo, c[1] = a.lo / b.hi, c[2] = a.hi / b.lo, c[3] = a.hi / b.hi;
        break;
    case WGC_OP_MOD: /* integer Mod takes the divisor's sign, |result| < |divisor| */
        if (b.lo > 0) {
            r->lo = 0;
            r->hi = a.lo >= 0 && a.hi < b.hi - 1 ? a.hi : b.hi - 1;
            return true;
        }
        if (b.hi < 0 && b.lo > INT64_MIN) {
            r->lo = b.lo + 1;
            r->hi = 0;
            return true;
        }
        return false;
    case WGC_OP_MIN:
        r->lo = a.lo < b.lo ? a.lo : b.lo;
        r->hi = a.hi < b.hi ? a.hi : b.hi;
        return true;
    case WGC_OP_MAX:
        r->lo = a.lo > b.lo ? a.lo : b.lo;
        r->hi = a.hi > b.hi ? a.hi : b.hi;
        return true;
    default:
        return false;
    }
    r->lo = r->hi = c[0];
    for (int k = 1; k < 4; k++) {
        r->lo = c[k] < r->lo ? c[k] : r->lo;
        r->hi = c[k] > r->hi ? c[k] : r->hi;
    }
    return true;
}

/* Per element when y is small and fixed (the bounds of shape vectors stay apart), else
 * one union. */
static int64_t elems_of(const wgc_tensor *y)
{
    int64_t count = wgc_numel(&y->shape);
    return count >= 1 && count <= WGC_VRANGE_ELEMS && !wgc_shape_is_sym(&y->shape) ? count : 1;
}

/* Elementwise ops over broadcast operands k0..k1-1 folded by combine(). */
static bool elementwise(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, int k0, int k1, wgc_vrange *out,
                        int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        for (int k = k0; k < k1; k++) {
            const wgc_tensor *x = wgc_in(g, n, k);
            wgc_vrange e;
            if (!x)
                return false;
            if (count == 1 ? !union_of(g, x, &e) : !wgc_vrange_at(g, x, broadcast_index(&y->shape, &x->shape, i), &e))
                return false;
            if (k == k0)
                out[i] = e;
            else if (!combine(n->op == WGC_OP_SUM ? WGC_OP_ADD : n->op, out[i], e, &out[i]))
                return false;
        }
    }
    return true;
}

/* Concat of small fixed tensors: element i of y from the input holding it. */
static bool concat_elems(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, wgc_vrange *out, int64_t count)
{
    int axis = (int)wgc_attr_int(n, "axis", 0);
    if (axis < 0)
        axis += y->shape.rank;
    if (axis < 0 || axis >= y->shape.rank || wgc_attr_int(n, "new_axis", 0))
        return false;
    int64_t inner = 1;
    for (int d = axis + 1; d < y->shape.rank; d++)
        inner *= y->shape.dims[d];
    for (int64_t i = 0; i < count; i++) {
        int64_t outer = i / (inner * y->shape.dims[axis]), c = i / inner % y->shape.dims[axis], in = i % inner;
        for (int k = 0; k < n->n_inputs; k++) {
            const wgc_tensor *x = wgc_in(g, n, k);
            if (!x)
                continue;
            int64_t len = x->shape.dims[axis];
            if (c < len) {
                if (!wgc_vrange_at(g, x, (outer * len + c) * inner + in, &out[i]))
                    return false;
                break;
            }
            c -= len;
        }
    }
    return true;
}

/* The rule of node n for output y into out (count entries). */
static bool rule(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, wgc_vrange *out, int64_t count)
{
    const wgc_tensor *x = n->n_inputs ? wgc_in(g, n, 0) : NULL;
    wgc_vrange a;
    switch (n->op) {
    case WGC_OP_ADD: case WGC_OP_SUB: case WGC_OP_MUL: case WGC_OP_DIV: case WGC_OP_MOD:
        if (n->op == WGC_OP_MOD && wgc_attr_int(n, "fmod", 0))
            return false;
        return n->n_inputs == 2 && elementwise(g, n, y, 0, 2, out, count);
    case WGC_OP_MIN: case WGC_OP_MAX: case WGC_OP_SUM:
        return elementwise(g, n, y, 0, n->n_inputs, out, count);
    case WGC_OP_NEG: case WGC_OP_ABS:
        if (!elementwise(g, n, y, 0, 1, out, count))
            return false;
        for (int64_t i = 0; i < count; i++) {
            wgc_vrange e = out[i];
            if (e.lo == INT64_MIN)
                return false;
            if (n->op == WGC_OP_NEG)
                out[i] = (wgc_vrange){-e.hi, -e.lo};
            else if (e.hi <= 0)
                out[i] = (wgc_vrange){-e.hi, -e.lo};
            else if (e.lo < 0)
                out[i] = (wgc_vrange){0, -e.lo > e.hi ? -e.lo : e.hi};
        }
        return true;
    case WGC_OP_CLIP: {
        if (n->opset < 11 || !elementwise(g, n, y, 0, 1, out, count))
            return false;
        wgc_vrange mn, mx;
        bool has_mn = n->n_inputs > 1 && n->inputs[1] >= 0, has_mx = n->n_inputs > 2 && n->inputs[2] >= 0;
        if ((has_mn && !union_of(g, wgc_in(g, n, 1), &mn)) || (has_mx && !union_of(g, wgc_in(g, n, 2), &mx)))
            return false;
        for (int64_t i = 0; i < count; i++) {
            if (has_mn)
                combine(WGC_OP_MAX, out[i], mn, &out[i]);
            if (has_mx)
                combine(WGC_OP_MIN, out[i], mx, &out[i]);
        }
        return true;
    }
    case WGC_OP_IDENTITY: case WGC_OP_RESHAPE: case WGC_OP_SQUEEZE: case WGC_OP_UNSQUEEZE:
    case WGC_OP_FLATTEN: case WGC_OP_CAST:
        /* the same elements in the same order (Cast: between integer types, checked below) */
        if (!x || !is_int(x->dtype))
            return false;
        for (int64_t i = 0; i < count; i++)
            if (count == 1 ? !union_of(g, x, &out[i]) : !wgc_vrange_at(g, x, i, &out[i]))
                return false;
        if (n->op == WGC_OP_CAST && wg_dtype_size(y->dtype) < 8)
            for (int64_t i = 0; i < count; i++) {
                const int64_t lim = (int64_t)1 << (8 * wg_dtype_size(y->dtype) - 1);
                if (out[i].lo < -lim || out[i].hi >= lim)
                    return false; /* it may wrap */
            }
        return true;
    case WGC_OP_CONCAT: {
        if (count > 1)
            return concat_elems(g, n, y, out, count);
        bool first = true;
        for (int k = 0; k < n->n_inputs; k++) {
            const wgc_tensor *p = wgc_in(g, n, k);
            if (!p)
                continue;
            if (!union_of(g, p, &a))
                return false;
            if (first)
                out[0] = a;
            out[0].lo = a.lo < out[0].lo ? a.lo : out[0].lo;
            out[0].hi = a.hi > out[0].hi ? a.hi : out[0].hi;
            first = false;
        }
        return !first;
    }
    case WGC_OP_GATHER: {
        const wgc_tensor *ix = wgc_in(g, n, 1);
        if (count > 1 && x->shape.rank == 1 && ix && ix->data && !ix->symval && !wgc_shape_is_sym(&x->shape)) {
            for (int64_t i = 0; i < count; i++) {
                int64_t j = wgc_const_int(ix, i);
                j = j < 0 ? j + x->shape.dims[0] : j;
                if (j < 0 || j >= x->shape.dims[0] || !wgc_vrange_at(g, x, j, &out[i]))
                    return false;
            }
            return true;
        }
    }
        /* fallthrough: any of x's values */
    case WGC_OP_SLICE: case WGC_OP_EXPAND: case WGC_OP_TILE: case WGC_OP_TRANSPOSE: case WGC_OP_REDUCE_MAX:
    case WGC_OP_REDUCE_MIN: case WGC_OP_GATHER_ELEMENTS: case WGC_OP_GATHER_ND: case WGC_OP_SPLIT:
        if (!union_of(g, x, &a))
            return false;
        for (int64_t i = 0; i < count; i++)
            out[i] = a;
        return true;
    case WGC_OP_WHERE: {
        /* either branch's value */
        for (int64_t i = 0; i < count; i++) {
            wgc_vrange t, f;
            const wgc_tensor *pt = wgc_in(g, n, 1), *pf = wgc_in(g, n, 2);
            if (count == 1 ? !union_of(g, pt, &t) || !union_of(g, pf, &f)
                           : !wgc_vrange_at(g, pt, broadcast_index(&y->shape, &pt->shape, i), &t) ||
                                 !wgc_vrange_at(g, pf, broadcast_index(&y->shape, &pf->shape, i), &f))
                return false;
            out[i].lo = t.lo < f.lo ? t.lo : f.lo;
            out[i].hi = t.hi > f.hi ? t.hi : f.hi;
        }
        return true;
    }
    case WGC_OP_REDUCE_SUM: {
        /* a sum of at most k elements, k the element count at the maxima over y's */
        int64_t ny = wgc_numel(&y->shape), k = ny ? wgc_numel(&x->shape) / ny : 0;
        if (!union_of(g, x, &a) || __builtin_mul_overflow(a.lo, k, &a.lo) || __builtin_mul_overflow(a.hi, k, &a.hi))
            return false;
        out[0] = (wgc_vrange){a.lo < 0 ? a.lo : 0, a.hi > 0 ? a.hi : 0};
        for (int64_t i = 1; i < count; i++)
            out[i] = out[0];
        return true;
    }
    case WGC_OP_ARG_MAX: case WGC_OP_ARG_MIN: {
        int64_t axis = wgc_attr_int(n, "axis", 0);
        axis = axis < 0 ? axis + x->shape.rank : axis;
        if (axis < 0 || axis >= x->shape.rank)
            return false;
        for (int64_t i = 0; i < count; i++)
            out[i] = (wgc_vrange){0, x->shape.dims[axis] > 0 ? x->shape.dims[axis] - 1 : 0};
        return true;
    }
    case WGC_OP_IF: {
        /* output k is the taken branch's k-th output: either branch's bounds (a folded If
         * reads the taken one only; its other inputs are gone) */
        int at = -1;
        for (int j = 0; j < n->n_outputs; j++)
            if (n->outputs[j] >= 0 && &g->tensors[n->outputs[j]] == y)
                at = j;
        bool any = false;
        for (int b = 0; b < 2 && at >= 0; b++) {
            const int i = 1 + b * n->n_outputs + at;
            if (i >= n->n_inputs || n->inputs[i] < 0)
                continue;
            if (!union_of(g, &g->tensors[n->inputs[i]], &a))
                return false;
            if (!any)
                out[0] = a;
            out[0].lo = a.lo < out[0].lo ? a.lo : out[0].lo;
            out[0].hi = a.hi > out[0].hi ? a.hi : out[0].hi;
            any = true;
        }
        for (int64_t i = 1; any && i < count; i++)
            out[i] = out[0];
        return any;
    }
    case WGC_OP_CONSTANT_OF_SHAPE: {
        const wgc_attr *v = wgc_attr_find(n, "value");
        int64_t c = 0;
        if (v && v->t && v->t->data) {
            wgc_tensor t = {.dtype = v->t->dtype, .data = v->t->data};
            c = wgc_const_int(&t, 0);
        }
        for (int64_t i = 0; i < count; i++)
            out[i] = (wgc_vrange){c, c};
        return true;
    }
    default:
        return false;
    }
}

wg_status wgc_vrange_infer(wgc_graph *g, const wgc_node *n)
{
    for (int k = 0; k < n->n_outputs; k++) {
        const wgc_tensor *y = wgc_out(g, n, k);
        if (!y || y->data || y->symval || !is_int(y->dtype) || (k > 0 && n->op != WGC_OP_SPLIT && n->op != WGC_OP_IF))
            continue;
        wgc_vrange out[WGC_VRANGE_ELEMS];
        const int64_t count = elems_of(y);
        if (rule(g, n, y, out, count) && wgc_vrange_set(g, n->outputs[k], out, count))
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    return WG_OK;
}
