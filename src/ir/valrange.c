/* valrange.c: bounds on the values of integer tensors computed at run time (valrange.h):
 * what the ops' sym.bounds hooks share. */
#include "valrange.h"

#include <stdlib.h>
#include <string.h>

#include "symdim.h"

bool wgc_vrange_is_int(int dtype)
{
    return dtype == WG_DT_INT64 || dtype == WG_DT_INT32 || dtype == WG_DT_INT16 || dtype == WG_DT_INT8 ||
           dtype == WG_DT_UINT8 || dtype == WG_DT_UINT16 || dtype == WG_DT_UINT32;
}

bool wgc_vrange_at(const wgc_graph *g, const wgc_tensor *t, int64_t i, wgc_vrange *r)
{
    if (!t || !wgc_vrange_is_int(t->dtype))
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

bool wgc_vrange_union(const wgc_graph *g, const wgc_tensor *t, wgc_vrange *r)
{
    if (!t || !wgc_vrange_is_int(t->dtype))
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

int64_t wgc_vrange_broadcast_index(const wgc_shape *y, const wgc_shape *x, int64_t i)
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

/* ---- interval arithmetic ---- */

/* The hull of the four products or quotients of the ends. */
static void hull4(const int64_t c[4], wgc_vrange *r)
{
    r->lo = r->hi = c[0];
    for (int k = 1; k < 4; k++) {
        r->lo = c[k] < r->lo ? c[k] : r->lo;
        r->hi = c[k] > r->hi ? c[k] : r->hi;
    }
}

bool wgc_vrange_add(wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    return !__builtin_add_overflow(a.lo, b.lo, &r->lo) &&
           !__builtin_add_overflow(a.hi, b.hi, &r->hi);
}

bool wgc_vrange_sub(wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    return !__builtin_sub_overflow(a.lo, b.hi, &r->lo) &&
           !__builtin_sub_overflow(a.hi, b.lo, &r->hi);
}

bool wgc_vrange_mul(wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    int64_t c[4];
    if (__builtin_mul_overflow(a.lo, b.lo, &c[0]) || __builtin_mul_overflow(a.lo, b.hi, &c[1]) ||
        __builtin_mul_overflow(a.hi, b.lo, &c[2]) || __builtin_mul_overflow(a.hi, b.hi, &c[3]))
        return false;
    hull4(c, r);
    return true;
}

bool wgc_vrange_div(wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    /* truncating division is monotonic in each operand while the divisor keeps its sign */
    if ((b.lo <= 0 && b.hi >= 0) || (a.lo == INT64_MIN && (b.lo == -1 || b.hi == -1)))
        return false;
    hull4((const int64_t[4]){a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi}, r);
    return true;
}

bool wgc_vrange_mod(wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    /* integer Mod takes the divisor's sign, |result| < |divisor| */
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
}

bool wgc_vrange_min(wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    r->lo = a.lo < b.lo ? a.lo : b.lo;
    r->hi = a.hi < b.hi ? a.hi : b.hi;
    return true;
}

bool wgc_vrange_max(wgc_vrange a, wgc_vrange b, wgc_vrange *r)
{
    r->lo = a.lo > b.lo ? a.lo : b.lo;
    r->hi = a.hi > b.hi ? a.hi : b.hi;
    return true;
}

/* ---- the rules several ops share ---- */

int64_t wgc_vrange_elems(const wgc_tensor *y)
{
    int64_t count = wgc_numel(&y->shape);
    return count >= 1 && count <= WGC_VRANGE_ELEMS && !wgc_shape_is_sym(&y->shape) ? count : 1;
}

bool wgc_vrange_elementwise(wgc_graph *g, const wgc_node *n, const wgc_tensor *y, int k0, int k1,
                            wgc_vrange_fn fn, wgc_vrange *out, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        for (int k = k0; k < k1; k++) {
            const wgc_tensor *x = wgc_in(g, n, k);
            wgc_vrange e;
            if (!x)
                return false;
            const int64_t at = count == 1 ? 0 : wgc_vrange_broadcast_index(&y->shape, &x->shape, i);
            if (count == 1 ? !wgc_vrange_union(g, x, &e) : !wgc_vrange_at(g, x, at, &e))
                return false;
            if (k == k0)
                out[i] = e;
            else if (!fn(out[i], e, &out[i]))
                return false;
        }
    }
    return true;
}

bool wgc_vrange_of_input0(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                          wgc_vrange *out, int64_t count)
{
    (void)y;
    const wgc_tensor *x = n->n_inputs ? wgc_in(g, n, 0) : NULL;
    wgc_vrange a;
    if (!wgc_vrange_union(g, x, &a))
        return false;
    for (int64_t i = 0; i < count; i++)
        out[i] = a;
    return true;
}

bool wgc_vrange_same_elems(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                           wgc_vrange *out, int64_t count)
{
    (void)y;
    const wgc_tensor *x = n->n_inputs ? wgc_in(g, n, 0) : NULL;
    if (!x || !wgc_vrange_is_int(x->dtype))
        return false;
    for (int64_t i = 0; i < count; i++)
        if (count == 1 ? !wgc_vrange_union(g, x, &out[i]) : !wgc_vrange_at(g, x, i, &out[i]))
            return false;
    return true;
}
