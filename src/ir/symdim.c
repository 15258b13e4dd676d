/* symdim.c: monomials over the graph's symbols (see symdim.h). */
#include "symdim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool wgc_shape_is_sym(const wgc_shape *s)
{
    return wgc_shape_first_sym(s, -1) >= 0;
}

int wgc_shape_first_sym(const wgc_shape *s, int d)
{
    for (int i = d < 0 ? 0 : d; i < (d < 0 ? s->rank : d + 1); i++)
        for (int k = 0; k < WGC_MAX_SYMS; k++)
            if (s->sym[i][k])
                return k;
    return -1;
}

/* a * b, saturated at INT64_MAX / INT64_MIN: a size that large is refused later (shape
 * inference's element-count check), never computed with signed overflow. */
static int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

static int64_t pow_at(const wgc_graph *g, const uint8_t *p, bool at_max)
{
    int64_t v = 1;
    for (int k = 0; k < g->n_syms; k++)
        for (int e = 0; e < p[k] && v != INT64_MAX; e++)
            v = mul_sat(v, at_max ? g->syms[k].max : g->syms[k].min);
    return v;
}

wgc_dimx wgc_dimx_of(const wgc_graph *g, const wgc_shape *s, int d)
{
    wgc_dimx x = {.c = s->dims[d]};
    memcpy(x.p, s->sym[d], WGC_MAX_SYMS);
    int64_t m = pow_at(g, x.p, true);
    x.c = m ? s->dims[d] / m : 0;
    return x;
}

void wgc_shape_set_dim(const wgc_graph *g, wgc_shape *s, int d, wgc_dimx x)
{
    s->dims[d] = wgc_dimx_max(g, &x);
    memcpy(s->sym[d], x.p, WGC_MAX_SYMS);
    if (x.c == 0)
        memset(s->sym[d], 0, WGC_MAX_SYMS);
}

wgc_dimx wgc_dimx_const(int64_t c)
{
    return (wgc_dimx){.c = c};
}

bool wgc_dimx_is_const(const wgc_dimx *x)
{
    for (int k = 0; k < WGC_MAX_SYMS; k++)
        if (x->p[k])
            return false;
    return true;
}

int64_t wgc_dimx_max(const wgc_graph *g, const wgc_dimx *x)
{
    return mul_sat(x->c, pow_at(g, x->p, true));
}

int64_t wgc_dimx_min(const wgc_graph *g, const wgc_dimx *x)
{
    return mul_sat(x->c, pow_at(g, x->p, false));
}

wgc_dimx wgc_dimx_mul(wgc_dimx a, wgc_dimx b)
{
    wgc_dimx r = {.c = mul_sat(a.c, b.c)};
    for (int k = 0; k < WGC_MAX_SYMS; k++) /* powers past 255 stay 255: far past any size */
        r.p[k] = r.c ? (uint8_t)(a.p[k] + b.p[k] > 255 ? 255 : a.p[k] + b.p[k]) : 0;
    return r;
}

bool wgc_dimx_div(wgc_dimx a, wgc_dimx b, wgc_dimx *q)
{
    if (b.c == 0 || (b.c == -1 && a.c == INT64_MIN) || a.c % b.c)
        return false;
    wgc_dimx r = {.c = a.c / b.c};
    for (int k = 0; k < WGC_MAX_SYMS; k++) {
        if (a.p[k] < b.p[k])
            return false;
        r.p[k] = (uint8_t)(a.p[k] - b.p[k]);
    }
    *q = r;
    return true;
}

bool wgc_dimx_add(wgc_dimx a, wgc_dimx b, wgc_dimx *sum)
{
    if (a.c == 0 || b.c == 0) {
        *sum = a.c ? a : b;
        return true;
    }
    if (memcmp(a.p, b.p, WGC_MAX_SYMS))
        return false;
    *sum = a;
    if (__builtin_add_overflow(a.c, b.c, &sum->c))
        return false;
    if (sum->c == 0)
        memset(sum->p, 0, WGC_MAX_SYMS);
    return true;
}

bool wgc_dimx_eq(const wgc_dimx *a, const wgc_dimx *b)
{
    return a->c == b->c && !memcmp(a->p, b->p, WGC_MAX_SYMS);
}

bool wgc_same_dim(const wgc_graph *g, const wgc_shape *a, int da, const wgc_shape *b, int db)
{
    const wgc_dimx x = wgc_dimx_of(g, a, da), y = wgc_dimx_of(g, b, db);
    return wgc_dimx_eq(&x, &y);
}

const char *wgc_dimx_str(const wgc_graph *g, const wgc_dimx *x, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    if (x->c != 1 || wgc_dimx_is_const(x))
        n += (size_t)snprintf(buf, len, "%lld", (long long)x->c);
    for (int k = 0; k < g->n_syms && n < len; k++)
        for (int e = 0; e < x->p[k] && n < len; e++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "*" : "", g->syms[k].name);
    return buf;
}

wgc_dimx wgc_symval_at(const wgc_tensor *t, int64_t i)
{
    if (t->symval)
        return t->symval[i];
    return wgc_dimx_const(wgc_const_int(t, i));
}

wg_status wgc_tensor_set_symval(wgc_graph *g, int t, int dtype, const wgc_shape *shape,
                                const wgc_dimx *v)
{
    int64_t n = wgc_numel(shape);
    size_t es = wg_dtype_size(dtype);
    bool any = false;
    for (int64_t i = 0; i < n; i++)
        any |= !wgc_dimx_is_const(&v[i]);
    void *data = malloc((size_t)(n ? n : 1) * es);
    wgc_dimx *sv = any ? malloc(sizeof *sv * (size_t)(n ? n : 1)) : NULL;
    if (!data || (any && !sv)) {
        free(data);
        free(sv);
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t m = wgc_dimx_max(g, &v[i]);
        if (dtype == WG_DT_INT32)
            ((int32_t *)data)[i] = (int32_t)m;
        else if (dtype == WG_DT_FLOAT)
            ((float *)data)[i] = (float)m;
        else if (dtype == WG_DT_DOUBLE)
            ((double *)data)[i] = (double)m;
        else
            ((int64_t *)data)[i] = m;
    }
    if (sv)
        memcpy(sv, v, sizeof *sv * (size_t)n);
    wgc_tensor_set_const(g, t, dtype, shape, data);
    free(g->tensors[t].symval);
    g->tensors[t].symval = sv;
    return WG_OK;
}

int wgc_sym_find(const wgc_graph *g, const char *name)
{
    for (int k = 0; k < g->n_syms; k++)
        if (!strcmp(g->syms[k].name, name))
            return k;
    return -1;
}

int wgc_sym_n_host(const wgc_graph *g)
{
    int n = 0;
    while (n < g->n_syms && !g->syms[n].runtime)
        n++;
    return n;
}

bool wgc_sym_any_runtime(const wgc_graph *g)
{
    return wgc_sym_n_host(g) < g->n_syms;
}

/* The host symbol x is, when x is exactly one (c 1, power 1, not a sum, no step), else -1. */
static int plain_host_sym(const wgc_graph *g, const wgc_dimx *x)
{
    int k = -1, n_host = wgc_sym_n_host(g);
    for (int s = 0; s < g->n_syms; s++)
        if (x->p[s]) {
            if (k >= 0 || x->p[s] != 1)
                return -1;
            k = s;
        }
    if (k < 0 || k >= n_host || x->c != 1 || g->syms[k].n_terms || g->syms[k].step > 1)
        return -1;
    return k;
}

/* Does form x hold symbol k, through a sum's terms or a window's input? Or a size decided
 * from data? (Then it is no form to check against k.) */
static bool holds_sym(const wgc_graph *g, const wgc_dimx *x, int k)
{
    for (int s = 0; s < g->n_syms; s++) {
        if (!x->p[s])
            continue;
        const wgc_symbol *y = &g->syms[s];
        if (s == k || (y->runtime && !y->derived) || (y->derived && y->from == k) || y->unit == k)
            return true;
        for (int t = 0; t < y->n_terms; t++)
            if (y->term[t] == k)
                return true;
    }
    return false;
}

bool wgc_dim_one_value(const wgc_graph *g, const wgc_shape *s, int d)
{
    const wgc_dimx x = wgc_dimx_of(g, s, d);
    return wgc_dimx_min(g, &x) == wgc_dimx_max(g, &x);
}

bool wgc_dims_checked_equal(const wgc_graph *g, const wgc_dimx *a, const wgc_dimx *b)
{
    if (wgc_dimx_is_const(a) || wgc_dimx_is_const(b) || wgc_dimx_eq(a, b))
        return false;
    const int ka = plain_host_sym(g, a), kb = plain_host_sym(g, b);
    return (ka >= 0 && !holds_sym(g, b, ka)) || (kb >= 0 && !holds_sym(g, a, kb));
}

bool wgc_broadcast_checked(const wgc_graph *g, const wgc_shape *a, const wgc_shape *b, wgc_shape *out)
{
    const int r = a->rank > b->rank ? a->rank : b->rank;
    wgc_shape o = {.rank = r}, da = {.rank = 1}, db = {.rank = 1}, t;
    for (int i = 0; i < r; i++) {
        const int ia = i - (r - a->rank), ib = i - (r - b->rank);
        da.dims[0] = ia >= 0 ? a->dims[ia] : 1;
        db.dims[0] = ib >= 0 ? b->dims[ib] : 1;
        memset(da.sym[0], 0, WGC_MAX_SYMS);
        memset(db.sym[0], 0, WGC_MAX_SYMS);
        if (ia >= 0)
            memcpy(da.sym[0], a->sym[ia], WGC_MAX_SYMS);
        if (ib >= 0)
            memcpy(db.sym[0], b->sym[ib], WGC_MAX_SYMS);
        if (!wgc_broadcast(&da, &db, &t)) {
            if (!wgc_dim_is_sym(&da, 0) || !wgc_dim_is_sym(&db, 0))
                return false;
            const wgc_dimx xa = wgc_dimx_of(g, &da, 0), xb = wgc_dimx_of(g, &db, 0);
            if (!wgc_dims_checked_equal(g, &xa, &xb))
                return false;
            t = db.dims[0] > da.dims[0] ? db : da;
        }
        o.dims[i] = t.dims[0];
        memcpy(o.sym[i], t.sym[0], WGC_MAX_SYMS);
    }
    *out = o;
    return true;
}

bool wgc_dim_is_runtime(const wgc_graph *g, const wgc_shape *s, int d)
{
    for (int k = 0; k < g->n_syms; k++)
        if (s->sym[d][k] && g->syms[k].runtime)
            return true;
    return false;
}

wg_status wgc_sym_add_runtime(wgc_graph *g, const wgc_node *n, int tensor, int dim, int64_t bound, int *sym)
{
    *sym = -1;
    if (bound <= 0)
        return WG_OK; /* nothing to decide: the size is 0 */
    for (int k = 0; k < g->n_syms; k++)
        if (g->syms[k].runtime && g->syms[k].tensor == tensor && g->syms[k].dim == dim) {
            g->syms[k].max = bound; /* inferred again (a pass re-ran inference) */
            *sym = k;
            return WG_OK;
        }
    /* Inside a Loop or Scan body the value is decided again every iteration: the
     * construct checks at the end of each one that its carried values keep their shape
     * and its scan rows one size (ops/control_flow.c, WGK_ERR_LOOP_SHAPE). */
    if (g->n_syms == WGC_MAX_SYMS)
        return wgc_error(g, n, WG_ERR_LIMIT,
                         "more than %d symbolic and data-dependent dimensions in one model", WGC_MAX_SYMS);
    wgc_symbol *y = &g->syms[g->n_syms];
    *y = (wgc_symbol){.min = 0, .max = bound, .runtime = true, .tensor = tensor, .dim = dim};
    snprintf(y->name, sizeof y->name, "%.50s[%d]", g->tensors[tensor].name, dim);
    *sym = g->n_syms++;
    return WG_OK;
}

int wgc_shape_runtime_sym(const wgc_graph *g, const wgc_shape *s)
{
    for (int d = 0; d < s->rank; d++)
        for (int k = 0; k < g->n_syms; k++)
            if (s->sym[d][k] && g->syms[k].runtime)
                return k;
    return -1;
}

void wgc_shape_set_runtime(wgc_shape *s, int d, int sym, int64_t bound)
{
    memset(s->sym[d], 0, WGC_MAX_SYMS);
    s->dims[d] = sym >= 0 ? bound : 0;
    if (sym >= 0)
        s->sym[d][sym] = 1;
}

int64_t wgc_window_size(int64_t x, int64_t add, int64_t stride, bool ceil, int64_t pb)
{
    const int64_t span = x + add;
    if (span < 0)
        return 0;
    int64_t out = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil && (out - 1) * stride >= x + pb)
        out--;
    return out;
}

wg_status wgc_sym_window_dim(wgc_graph *g, const wgc_node *n, wgc_dimx x, int64_t add, int64_t stride, bool ceil,
                             int64_t pb, wgc_dimx *out)
{
    if (wgc_dimx_is_const(&x)) {
        *out = wgc_dimx_const(wgc_window_size(x.c, add, stride, ceil, pb));
        return WG_OK;
    }
    int from = -1, powers = 0;
    for (int k = 0; k < g->n_syms; k++)
        if (x.p[k]) {
            from = k;
            powers += x.p[k];
        }
    char buf[96];
    if (powers != 1 || x.c < 1)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a sliding window over a dimension of size %s (only a multiple "
                         "of one symbol is supported)", wgc_dimx_str(g, &x, buf, sizeof buf));
    /* stride 1 over a stride-1 derived size X = B + k: B + k + add + 1, one formula over B
     * (a padded 3x3 conv of a reflection-padded map is the map's size again) */
    const wgc_symbol *d = &g->syms[from];
    if (stride == 1 && !ceil && x.c == 1 && d->derived && d->stride == 1 && !d->ceil) {
        const int64_t total = d->add + 1 + add + 1; /* the result is B + total */
        x = wgc_dimx_const(d->from_c);
        x.p[d->from] = 1;
        from = d->from;
        add = total - 1;
        if (total == 0) {
            *out = x;
            return WG_OK;
        }
    }
    const int64_t lo = wgc_window_size(x.c * g->syms[from].min, add, stride, ceil, pb);
    const int64_t hi = wgc_window_size(x.c * g->syms[from].max, add, stride, ceil, pb);
    if (lo < 1)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "its window leaves no output when dimension %s is at its "
                         "smallest (%lld): raise the --dim minimum of '%s'", wgc_dimx_str(g, &x, buf, sizeof buf),
                         (long long)(x.c * g->syms[from].min), g->syms[from].name);
    /* floor((c*s + add) / stride) + 1 = (c / stride) * s when stride divides c and
     * -stride <= add < 0 (3x3 pad 1, 1x1 pad 0, 2x2 pad 0 ... at stride 2); rounded up,
     * when -2 stride < add <= -stride (the ceil_mode correction never applies then) */
    const bool floor_exact = add < 0 && add >= -stride, ceil_exact = add <= -stride && add > -2 * stride;
    if (stride == 1 && add - pb < 0) /* rounding up changes nothing at stride 1, nor does the */
        ceil = false;                /* correction while the end pad is below the extent */
    if (x.c % stride == 0 && (ceil ? ceil_exact : floor_exact)) {
        *out = x;
        out->c = x.c / stride;
        return WG_OK;
    }
    for (int k = 0; k < g->n_syms; k++) {
        const wgc_symbol *d = &g->syms[k];
        if (d->derived && d->from == from && d->from_c == x.c && d->add == add && d->stride == stride &&
            d->ceil == ceil && (!ceil || d->pb == pb)) {
            *out = wgc_dimx_const(1);
            out->p[k] = 1;
            return WG_OK;
        }
    }
    if (g->n_syms == WGC_MAX_SYMS)
        return wgc_error(g, n, WG_ERR_LIMIT,
                         "more than %d symbolic and data-dependent dimensions in one model", WGC_MAX_SYMS);
    wgc_symbol *y = &g->syms[g->n_syms];
    *y = (wgc_symbol){.min = lo, .max = hi, .runtime = true, .tensor = -1, .dim = -1, .derived = true,
                      .ceil = ceil, .from = from, .from_c = x.c, .add = add, .stride = stride, .pb = pb};
    snprintf(y->name, sizeof y->name, "%.40s'", g->syms[from].name);
    *out = wgc_dimx_const(1);
    out->p[g->n_syms++] = 1;
    return WG_OK;
}

/* ---- sum symbols ---- */

bool wgc_linear_of(const wgc_graph *g, const wgc_dimx *x, wgc_linear *l)
{
    *l = (wgc_linear){0};
    int sym = -1, powers = 0;
    for (int k = 0; k < g->n_syms; k++)
        if (x->p[k]) {
            sym = k;
            powers += x->p[k];
        }
    if (powers == 0 || x->c == 0) {
        l->plus = x->c;
        return true;
    }
    if (powers != 1)
        return false;
    const wgc_symbol *y = &g->syms[sym];
    if (y->n_terms) { /* a sum symbol: its terms, times c */
        wgc_linear t = {.n = y->n_terms, .plus = y->plus};
        memcpy(t.sym, y->term, sizeof t.sym);
        memcpy(t.c, y->term_c, sizeof t.c);
        wgc_linear zero = {0};
        return wgc_linear_add(&zero, &t, x->c, l);
    }
    if (y->runtime && !y->derived)
        return false; /* data-dependent: known only once its node has run */
    l->n = 1;
    l->sym[0] = sym;
    l->c[0] = x->c;
    return true;
}

bool wgc_linear_add(const wgc_linear *a, const wgc_linear *b, int64_t k, wgc_linear *out)
{
    wgc_linear r = *a;
    int64_t t;
    if (__builtin_mul_overflow(b->plus, k, &t) || __builtin_add_overflow(r.plus, t, &r.plus))
        return false;
    for (int i = 0; i < b->n; i++) {
        int64_t c;
        if (__builtin_mul_overflow(b->c[i], k, &c))
            return false;
        int j = 0;
        while (j < r.n && r.sym[j] < b->sym[i])
            j++;
        if (j < r.n && r.sym[j] == b->sym[i]) {
            if (__builtin_add_overflow(r.c[j], c, &r.c[j]))
                return false;
            if (r.c[j] == 0) { /* cancelled: past + seq - seq */
                memmove(&r.sym[j], &r.sym[j + 1], sizeof r.sym[0] * (size_t)(r.n - j - 1));
                memmove(&r.c[j], &r.c[j + 1], sizeof r.c[0] * (size_t)(r.n - j - 1));
                r.n--;
            }
            continue;
        }
        if (c == 0)
            continue;
        if (r.n == WGC_SUM_TERMS)
            return false;
        memmove(&r.sym[j + 1], &r.sym[j], sizeof r.sym[0] * (size_t)(r.n - j));
        memmove(&r.c[j + 1], &r.c[j], sizeof r.c[0] * (size_t)(r.n - j));
        r.sym[j] = b->sym[i];
        r.c[j] = c;
        r.n++;
    }
    *out = r;
    return true;
}

int wgc_sym_find_sum(const wgc_graph *g, const wgc_linear *l)
{
    for (int k = 0; k < g->n_syms; k++) {
        const wgc_symbol *y = &g->syms[k];
        if (y->n_terms != l->n || y->plus != l->plus)
            continue;
        bool same = true;
        for (int i = 0; same && i < l->n; i++)
            same = y->term[i] == l->sym[i] && y->term_c[i] == l->c[i];
        if (same)
            return k;
    }
    return -1;
}

const char *wgc_linear_str(const wgc_graph *g, const wgc_linear *l, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < l->n && n < len; i++) {
        const int64_t c = l->c[i];
        const int64_t m = c < 0 ? -c : c;
        const char *sign = i == 0 ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
        if (m == 1)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", sign, g->syms[l->sym[i]].name);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%lld*%s", sign, (long long)m, g->syms[l->sym[i]].name);
    }
    if (n < len && (l->plus || !l->n))
        snprintf(buf + n, len - n, "%s%lld", !l->n ? "" : l->plus < 0 ? " - " : " + ",
                 (long long)(l->n && l->plus < 0 ? -l->plus : l->plus));
    return buf;
}

/* The range of l over its symbols' ranges. */
static void linear_range(const wgc_graph *g, const wgc_linear *l, int64_t *lo, int64_t *hi)
{
    *lo = *hi = l->plus;
    for (int i = 0; i < l->n; i++) {
        const wgc_symbol *y = &g->syms[l->sym[i]];
        const int64_t a = mul_sat(l->c[i], y->min), b = mul_sat(l->c[i], y->max);
        *lo += a < b ? a : b;
        *hi += a < b ? b : a;
    }
}

bool wgc_linear_dimx(wgc_graph *g, const wgc_node *n, const wgc_linear *l, wgc_dimx *out)
{
    if (l->n == 0) {
        *out = wgc_dimx_const(l->plus);
        return true;
    }
    if (l->n == 1 && l->plus == 0) {
        *out = wgc_dimx_const(l->c[0]);
        out->p[l->sym[0]] = 1;
        return true;
    }
    int k = wgc_sym_find_sum(g, l);
    if (k < 0) {
        if (g->n_syms == WGC_MAX_SYMS) {
            wgc_error(g, n, WG_ERR_LIMIT, "more than %d symbolic and data-dependent dimensions in one model",
                      WGC_MAX_SYMS);
            return false;
        }
        wgc_symbol *y = &g->syms[g->n_syms];
        *y = (wgc_symbol){.runtime = true, .derived = true, .tensor = -1, .dim = -1, .unit = -1,
                          .n_terms = l->n, .plus = l->plus};
        memcpy(y->term, l->sym, sizeof y->term);
        memcpy(y->term_c, l->c, sizeof y->term_c);
        linear_range(g, l, &y->min, &y->max);
        wgc_linear_str(g, l, y->name, sizeof y->name);
        k = g->n_syms++;
    }
    *out = wgc_dimx_const(1);
    out->p[k] = 1;
    return true;
}

/* a + b as a linear form, when both are one. */
static bool linear_sum(const wgc_graph *g, const wgc_dimx *a, const wgc_dimx *b, wgc_linear *l)
{
    wgc_linear la, lb;
    return wgc_linear_of(g, a, &la) && wgc_linear_of(g, b, &lb) && wgc_linear_add(&la, &lb, 1, l);
}

bool wgc_dimx_add_sym(wgc_graph *g, const wgc_node *n, wgc_dimx a, wgc_dimx b, wgc_dimx *sum)
{
    if (wgc_dimx_add(a, b, sum))
        return true;
    wgc_linear l;
    return linear_sum(g, &a, &b, &l) && wgc_linear_dimx(g, n, &l, sum);
}

bool wgc_dimx_add_ok(const wgc_graph *g, wgc_dimx a, wgc_dimx b)
{
    wgc_dimx s;
    wgc_linear l;
    return wgc_dimx_add(a, b, &s) || (linear_sum(g, &a, &b, &l) && (wgc_sym_find_sum(g, &l) >= 0 ||
                                                                   g->n_syms < WGC_MAX_SYMS));
}

/* ---- dim_param expressions: sum := term (('+' | '-') term)*, term := factor ('*' factor)*,
 * factor := integer | name | '(' sum ')' | '-' factor ---- */

typedef struct parser {
    const wgc_graph *g;
    const char *s;
    bool ok;
    char *unknown;
    size_t unknown_len;
} parser;

static void skip_ws(parser *p)
{
    while (*p->s == ' ' || *p->s == '\t')
        p->s++;
}

static bool parse_sum(parser *p, wgc_linear *l);

static bool parse_factor(parser *p, wgc_linear *l)
{
    skip_ws(p);
    *l = (wgc_linear){0};
    const char *s = p->s;
    if (*s == '(') {
        p->s++;
        if (!parse_sum(p, l))
            return false;
        skip_ws(p);
        if (*p->s != ')')
            return false;
        p->s++;
        return true;
    }
    if (*s == '-') {
        p->s++;
        wgc_linear t, zero = {0};
        return parse_factor(p, &t) && wgc_linear_add(&zero, &t, -1, l);
    }
    if (*s >= '0' && *s <= '9') {
        char *end;
        long long v = strtoll(s, &end, 10);
        p->s = end;
        l->plus = v;
        return true;
    }
    size_t len = 0;
    while (s[len] && (s[len] == '_' || s[len] == '.' || (s[len] >= 'a' && s[len] <= 'z') ||
                      (s[len] >= 'A' && s[len] <= 'Z') || (s[len] >= '0' && s[len] <= '9')))
        len++;
    if (!len || len >= WGC_SYM_NAME)
        return false;
    char name[WGC_SYM_NAME];
    memcpy(name, s, len);
    name[len] = 0;
    p->s += len;
    int k = wgc_sym_find(p->g, name);
    if (k < 0 || p->g->syms[k].n_terms || p->g->syms[k].runtime) {
        if (k < 0 && p->unknown && !*p->unknown)
            snprintf(p->unknown, p->unknown_len, "%s", name);
        return false;
    }
    l->n = 1;
    l->sym[0] = k;
    l->c[0] = 1;
    return true;
}

static bool parse_term(parser *p, wgc_linear *l)
{
    if (!parse_factor(p, l))
        return false;
    for (;;) {
        skip_ws(p);
        if (*p->s != '*')
            return true;
        p->s++;
        wgc_linear f, zero = {0};
        if (!parse_factor(p, &f))
            return false;
        if (l->n && f.n)
            return false; /* a product of symbols: not linear */
        const wgc_linear *v = l->n ? l : &f;
        const int64_t k = l->n ? f.plus : l->plus;
        if (!wgc_linear_add(&zero, v, k, l))
            return false;
    }
}

static bool parse_sum(parser *p, wgc_linear *l)
{
    if (!parse_term(p, l))
        return false;
    for (;;) {
        skip_ws(p);
        if (*p->s != '+' && *p->s != '-')
            return true;
        const int64_t sign = *p->s == '+' ? 1 : -1;
        p->s++;
        wgc_linear t;
        if (!parse_term(p, &t) || !wgc_linear_add(l, &t, sign, l))
            return false;
    }
}

bool wgc_linear_parse(const wgc_graph *g, const char *text, wgc_linear *l, char *unknown, size_t unknown_len)
{
    if (unknown && unknown_len)
        unknown[0] = 0;
    if (!strpbrk(text, "+-*()"))
        return false; /* a plain name (a symbol, or one without a --dim) */
    parser p = {.g = g, .s = text, .ok = true, .unknown = unknown, .unknown_len = unknown_len};
    if (!parse_sum(&p, l))
        return false;
    skip_ws(&p);
    return *p.s == 0;
}

int64_t wgc_dimx_sum_min(const wgc_graph *g, wgc_dimx a, wgc_dimx b)
{
    wgc_dimx s;
    if (wgc_dimx_add(a, b, &s))
        return wgc_dimx_min(g, &s) < wgc_dimx_max(g, &s) ? wgc_dimx_min(g, &s) : wgc_dimx_max(g, &s);
    wgc_linear l;
    if (!linear_sum(g, &a, &b, &l))
        return INT64_MIN;
    int64_t lo, hi;
    linear_range(g, &l, &lo, &hi);
    return lo;
}

/* "1x4x(seq)x(past + seq)": s with its symbolic dims named. */
static const char *shape_sym_str(const wgc_graph *g, const wgc_shape *s, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    if (!s->rank)
        snprintf(buf, len, "scalar");
    for (int d = 0; d < s->rank && n < len; d++) {
        char e[96];
        wgc_dimx x = wgc_dimx_of(g, s, d);
        if (wgc_dim_is_sym(s, d))
            n += (size_t)snprintf(buf + n, len - n, "%s(%s)", d ? "x" : "", wgc_dimx_str(g, &x, e, sizeof e));
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%lld", d ? "x" : "", (long long)s->dims[d]);
    }
    return buf;
}

wg_status wgc_broadcast_error(wgc_graph *g, const wgc_node *n, int i, const wgc_shape *a, const wgc_shape *b)
{
    char s1[256], s2[256];
    if (wgc_broadcast_fixed_conflict(a, b))
        return wgc_error(g, n, WG_ERR_INVALID, "input %d shape %s does not broadcast with %s", i,
                         shape_sym_str(g, a, s1, sizeof s1), shape_sym_str(g, b, s2, sizeof s2));
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input %d shape %s may not broadcast with %s: the compiler cannot "
                     "prove their symbolic dimensions equal (or 1) at every size", i,
                     shape_sym_str(g, a, s1, sizeof s1), shape_sym_str(g, b, s2, sizeof s2));
}
