/*
 * math2.c: broadcasting elementwise ops with two or more inputs, every dtype, as inline
 * loops (gen.c): Pow, Mod, Min, Max, Mean, comparisons, logical and bitwise ops, BitShift,
 * PRelu, Where. Constant inputs fold on the host through the same formulas (fold_map.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "fold_map.h"
#include "gen.h"
#include "versions.h"

static bool is_cmp(wgc_op op)
{
    return op == WGC_OP_EQUAL || op == WGC_OP_LESS || op == WGC_OP_GREATER ||
           op == WGC_OP_LESS_OR_EQUAL || op == WGC_OP_GREATER_OR_EQUAL;
}

static bool variadic(wgc_op op)
{
    return op == WGC_OP_MIN || op == WGC_OP_MAX || op == WGC_OP_MEAN;
}


/*
 * PRelu before opset 7 took a slope of shape (C) for X of shape (N, C, ...), applied per
 * channel rather than broadcast from the right. A constant slope like that is rewritten
 * as a new constant of shape (C, 1, ..., 1), which then broadcasts the modern way.
 */
static wg_status legacy_prelu_slope(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    if (!x || !s || s->shape.rank != 1 || x->shape.rank < 3 || s->shape.dims[0] == 1 ||
        s->shape.dims[0] != x->shape.dims[1])
        return WG_OK;
    if (!s->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "a per-channel slope computed at run time (opset %d)",
                         n->opset);
    int x_rank = x->shape.rank;
    size_t bytes = (size_t)s->shape.dims[0] * wg_dtype_size(s->dtype);
    void *data = malloc(bytes ? bytes : 1);
    char name[300];
    snprintf(name, sizeof name, "%s/per_channel", s->name);
    int t = data ? wgc_tensor_add(g, name) : -1;
    if (t < 0) {
        free(data);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    s = wgc_in(g, n, 1); /* the tensor array may have moved: x is stale from here */
    memcpy(data, s->data, bytes);
    wgc_shape shape = {.rank = x_rank - 1};
    shape.dims[0] = s->shape.dims[0];
    for (int d = 1; d < shape.rank; d++)
        shape.dims[d] = 1;
    int dtype = s->dtype;
    wgc_tensor_set_const(g, t, dtype, &shape, data);
    n->inputs[1] = t;
    return WG_OK;
}

static wg_status math2_infer(wgc_graph *g, wgc_node *n)
{
    static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};
    static const int ints[] = {WG_DT_INT8, WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8,
                               WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
    static const int uints[] = {WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
    static const int bools[] = {WG_DT_BOOL, 0};
    static const int numeric[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8,
                                  WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8,
                                  WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
    int nin = n->op == WGC_OP_WHERE ? 3 : 2;
    wg_status st = variadic(n->op) ? wgc_check_arity(g, n, 1, 4, 1, 1)
                                   : wgc_check_arity(g, n, nin, nin, 1, 1);
    if (st)
        return st;
    const int *dts = numeric;
    switch (n->op) {
    case WGC_OP_AND: case WGC_OP_OR: case WGC_OP_XOR: dts = bools; break;
    case WGC_OP_BIT_SHIFT: dts = wgc_op_version(n) >= 28 ? ints : uints; break; /* signed: 28 */
    case WGC_OP_BITWISE_AND: case WGC_OP_BITWISE_OR: case WGC_OP_BITWISE_XOR: dts = ints; break;
    case WGC_OP_EQUAL: dts = wgc_gen_dtypes; break;
    case WGC_OP_MEAN: case WGC_OP_PRELU: dts = n->op == WGC_OP_MEAN ? floats : numeric; break;
    case WGC_OP_WHERE: dts = wgc_gen_dtypes; break;
    default: break;
    }
    if (n->op == WGC_OP_PRELU && n->opset < 7 && (st = legacy_prelu_slope(g, n)))
        return st;
    wgc_shape y = {0};
    for (int i = 0; i < n->n_inputs; i++) {
        if (!wgc_in(g, n, i))
            return wgc_error(g, n, WG_ERR_INVALID, "input %d is missing", i);
        st = wgc_check_input(g, n, i, (n->op == WGC_OP_WHERE && i == 0) ? bools
                                      : (n->op == WGC_OP_POW && i == 1) ? numeric : dts);
        if (st)
            return st;
        const wgc_tensor *x = wgc_in(g, n, i);
        int ref = n->op == WGC_OP_WHERE ? 1 : 0;
        if (i > ref && n->op != WGC_OP_POW && x->dtype != wgc_in(g, n, ref)->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "inputs have different dtypes %s and %s",
                             wg_dtype_name(wgc_in(g, n, ref)->dtype), wg_dtype_name(x->dtype));
        wgc_shape t;
        if (i == 0)
            y = x->shape;
        else if (!wgc_broadcast(&y, &x->shape, &t))
            return wgc_error(g, n, n->op == WGC_OP_PRELU ? WG_ERR_UNSUPPORTED : WG_ERR_INVALID,
                             "input shapes do not broadcast%s",
                             n->op == WGC_OP_PRELU ? " (legacy per-channel slope)" : "");
        else
            y = t;
    }
    if (n->op == WGC_OP_PRELU && !wgc_shape_eq(&y, &wgc_in(g, n, 0)->shape))
        return wgc_error(g, n, WG_ERR_INVALID, "slope does not broadcast to X");
    if (n->op == WGC_OP_BIT_SHIFT) {
        const char *dir = wgc_attr_str(n, "direction", "");
        if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
            return wgc_error(g, n, WG_ERR_INVALID, "direction '%s' (want LEFT or RIGHT)", dir);
    }
    if (n->op == WGC_OP_MOD && !wgc_attr_int(n, "fmod", 0) &&
        wg_dtype_is_float(wgc_in(g, n, 0)->dtype) && wgc_op_version(n) < 28)
        return wgc_error(g, n, WG_ERR_INVALID, "fmod=0 with floating point inputs (before Mod-28)");
    int out_dt = is_cmp(n->op) || n->op == WGC_OP_AND || n->op == WGC_OP_OR || n->op == WGC_OP_XOR
                     ? WG_DT_BOOL
                     : wgc_in(g, n, n->op == WGC_OP_WHERE ? 1 : 0)->dtype;
    wgc_set_output(g, n, 0, out_dt, &y);
    return WG_OK;
}

static wg_status math2_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    char ex[512];
    const wgc_tensor *x = wgc_in(g, n, 0);
    bool fl = wg_dtype_is_float(x->dtype);
    bool sgn = x->dtype == WG_DT_INT8 || x->dtype == WG_DT_INT16 || x->dtype == WG_DT_INT32 ||
               x->dtype == WG_DT_INT64;
    int nin = n->n_inputs;
    switch (n->op) {
    case WGC_OP_POW: {
        /* x^2 by a constant exponent (LayerNorm's variance, decomposed): the product of two
         * floats is exact in double, so this is pow's correctly rounded result, bit for bit,
         * at a fraction of its cost (PP-OCRv4 rec: 5 Pows 0.28 ms). */
        const wgc_tensor *b = wgc_in(g, n, 1);
        const bool square = fl && x->dtype == WG_DT_FLOAT && b->data && wgc_numel(&b->shape) == 1 &&
                            wg_dtype_is_float(b->dtype) && wgc_elem_get_f(b->data, b->dtype, 0) == 2.0;
        snprintf(ex, sizeof ex, "%s", square ? "(double)a * (double)a" : "wgk_pow((double)a, (double)b)");
        break;
    }
    case WGC_OP_MOD:
        if (wgc_attr_int(n, "fmod", 0))
            snprintf(ex, sizeof ex, "%s", fl ? "wgk__fmod(a, b)" : "b == 0 ? 0 : a % b");
        else if (fl) /* Mod-28 */
            snprintf(ex, sizeof ex, "wgk__floormod(a, b)");
        else if (sgn) /* Python's floored modulo: the result has the divisor's sign */
            snprintf(ex, sizeof ex, "b == 0 ? 0 : (a %% b != 0 && ((a %% b < 0) != (b < 0))) ? a %% b + b : a %% b");
        else
            snprintf(ex, sizeof ex, "b == 0 ? 0 : a %% b");
        break;
    case WGC_OP_MIN: case WGC_OP_MAX: case WGC_OP_MEAN: {
        const char *v[4] = {"a", "b", "c", "d"};
        if (nin == 1) {
            snprintf(ex, sizeof ex, "a");
            break;
        }
        if (n->op == WGC_OP_MEAN) {
            size_t len = (size_t)snprintf(ex, sizeof ex, "(a");
            for (int i = 1; i < nin; i++)
                len += (size_t)snprintf(ex + len, sizeof ex - len, " + %s", v[i]);
            snprintf(ex + len, sizeof ex - len, ") / (T)%d", nin);
            break;
        }
        /* NaN propagates (numpy minimum/maximum): pairwise m = (m != m || m OP x) ? m : x */
        const char *cmp = n->op == WGC_OP_MAX ? ">" : "<";
        char acc[400];
        snprintf(acc, sizeof acc, "a");
        for (int i = 1; i < nin; i++) {
            char t[400];
            snprintf(t, sizeof t, "wgk__%s%d(%s, %s)", n->op == WGC_OP_MAX ? "max" : "min", 0, acc, v[i]);
            snprintf(acc, sizeof acc, "%s", t);
        }
        /* pairwise helper defined inline before the loop via a statement-expression-free macro */
        snprintf(ex, sizeof ex, "%s", acc);
        wgc_emit(e, "#define wgk__%s0(p, q) (((p) != (p) || (p) %s (q)) ? (p) : (q))\n",
                 n->op == WGC_OP_MAX ? "max" : "min", cmp);
        wg_status st = wgc_gen_map(e, g, n, n->inputs, nin, n->outputs[0], ex);
        wgc_emit(e, "#undef wgk__%s0\n", n->op == WGC_OP_MAX ? "max" : "min");
        return st;
    }
    case WGC_OP_EQUAL: snprintf(ex, sizeof ex, "a == b"); break;
    case WGC_OP_LESS: snprintf(ex, sizeof ex, "a < b"); break;
    case WGC_OP_GREATER: snprintf(ex, sizeof ex, "a > b"); break;
    case WGC_OP_LESS_OR_EQUAL: snprintf(ex, sizeof ex, "a <= b"); break;
    case WGC_OP_GREATER_OR_EQUAL: snprintf(ex, sizeof ex, "a >= b"); break;
    case WGC_OP_AND: snprintf(ex, sizeof ex, "a && b"); break;
    case WGC_OP_OR: snprintf(ex, sizeof ex, "a || b"); break;
    case WGC_OP_XOR: snprintf(ex, sizeof ex, "(a != 0) != (b != 0)"); break;
    case WGC_OP_BITWISE_AND: snprintf(ex, sizeof ex, "a & b"); break;
    case WGC_OP_BITWISE_OR: snprintf(ex, sizeof ex, "a | b"); break;
    case WGC_OP_BITWISE_XOR: snprintf(ex, sizeof ex, "a ^ b"); break;
    case WGC_OP_BIT_SHIFT:
        if (sgn && strcmp(wgc_attr_str(n, "direction", ""), "LEFT")) /* arithmetic, BitShift-28 */
            snprintf(ex, sizeof ex, "(b < 0 || b >= 8 * (int64_t)sizeof(T)) ? (a < 0 ? -1 : 0) : a >> b");
        else if (sgn)
            snprintf(ex, sizeof ex, "(b < 0 || b >= 8 * (int64_t)sizeof(T)) ? 0 : (T)((uint64_t)a << b)");
        else
            snprintf(ex, sizeof ex, "b >= 8 * sizeof(T) ? 0 : (uint64_t)a %s b",
                     strcmp(wgc_attr_str(n, "direction", ""), "LEFT") ? ">>" : "<<");
        break;
    case WGC_OP_PRELU: snprintf(ex, sizeof ex, "a < 0 ? a * b : a"); break;
    default: snprintf(ex, sizeof ex, "a ? b : c"); break; /* Where */
    }
    return wgc_gen_map(e, g, n, n->inputs, nin, n->outputs[0], ex);
}

/* Folding: the host twin of each expression above, over wgc_scalar (fold_map.h). */
static int cmp3(wgc_kind k, wgc_scalar a, wgc_scalar b) /* -1, 0, 1; 2 when unordered */
{
    if (k == WGC_KIND_FLOAT)
        return a.f < b.f ? -1 : a.f > b.f ? 1 : a.f == b.f ? 0 : 2;
    if (k == WGC_KIND_SIGNED)
        return a.i < b.i ? -1 : a.i > b.i;
    return a.u < b.u ? -1 : a.u > b.u;
}

static double as_double(wgc_kind k, wgc_scalar v)
{
    return k == WGC_KIND_FLOAT ? v.f : k == WGC_KIND_SIGNED ? (double)v.i : (double)v.u;
}

static wgc_scalar m2_eval(const wgc_map_args *a, const wgc_scalar *in)
{
    const wgc_node *n = a->n;
    wgc_kind k = a->kind;
    wgc_scalar x = in[0], y = in[1], r = {0};
    bool fl = k == WGC_KIND_FLOAT, sgn = k == WGC_KIND_SIGNED;
    int c;
    switch (n->op) {
    case WGC_OP_POW: {
        /* result in the dtype of input 0, through double like wgk_pow((double)a, (double)b) */
        double p = pow(as_double(k, x), as_double(*(const wgc_kind *)a->ctx, y));
        if (fl)
            r.f = p;
        else {
            char one[8];
            wgc_elem_set_f(one, sgn ? WG_DT_INT64 : WG_DT_UINT64, 0, p);
            memcpy(&r.u, one, 8);
        }
        return r;
    }
    case WGC_OP_MOD:
        if (fl) {
            r.f = (y.f != y.f || x.f != x.f || y.f == 0 || isinf(x.f)) ? NAN
                  : isinf(y.f) ? x.f : fmod(x.f, y.f);
            if (!wgc_attr_int(n, "fmod", 0) && r.f == r.f) /* Mod-28: floored, as wgk__floormod */
                r.f = r.f == 0 ? copysign(0.0, y.f) : (r.f < 0) != (y.f < 0) ? r.f + y.f : r.f;
        } else if (sgn) {
            if (y.i == 0 || y.i == -1)
                r.i = 0;
            else {
                r.i = x.i % y.i;
                if (wgc_attr_int(n, "fmod", 0) == 0 && r.i != 0 && ((r.i < 0) != (y.i < 0)))
                    r.i += y.i;
            }
        } else
            r.u = y.u == 0 ? 0 : x.u % y.u;
        return r;
    case WGC_OP_MIN: case WGC_OP_MAX: case WGC_OP_MEAN: {
        r = x;
        double sum = as_double(k, x);
        for (int i = 1; i < n->n_inputs; i++) {
            sum += as_double(k, in[i]);
            c = cmp3(k, r, in[i]);
            /* NaN propagates: keep r when it is NaN or already wins */
            bool keep = (fl && r.f != r.f) || (n->op == WGC_OP_MAX ? c == 1 : c == -1);
            if (!keep)
                r = in[i];
        }
        if (n->op == WGC_OP_MEAN)
            r.f = sum / n->n_inputs;
        return r;
    }
    case WGC_OP_EQUAL: r.u = cmp3(k, x, y) == 0; return r;
    case WGC_OP_LESS: r.u = cmp3(k, x, y) == -1; return r;
    case WGC_OP_GREATER: r.u = cmp3(k, x, y) == 1; return r;
    case WGC_OP_LESS_OR_EQUAL: c = cmp3(k, x, y); r.u = c == -1 || c == 0; return r;
    case WGC_OP_GREATER_OR_EQUAL: c = cmp3(k, x, y); r.u = c == 1 || c == 0; return r;
    case WGC_OP_AND: r.u = x.u && y.u; return r;
    case WGC_OP_OR: r.u = x.u || y.u; return r;
    case WGC_OP_XOR: r.u = (x.u != 0) != (y.u != 0); return r;
    case WGC_OP_BITWISE_AND: r.u = x.u & y.u; return r;
    case WGC_OP_BITWISE_OR: r.u = x.u | y.u; return r;
    case WGC_OP_BITWISE_XOR: r.u = x.u ^ y.u; return r;
    case WGC_OP_BIT_SHIFT:
        if (sgn) { /* BitShift-28: the narrow type's bits, sign-filled to the right */
            bool right = strcmp(wgc_attr_str(n, "direction", ""), "LEFT") != 0;
            if (y.i < 0 || y.i >= 8 * (int64_t)a->size)
                r.i = right && x.i < 0 ? -1 : 0;
            else
                r.i = right ? x.i >> y.i : (int64_t)((uint64_t)x.i << y.i);
        } else if (y.u >= 8 * a->size)
            r.u = 0;
        else
            r.u = strcmp(wgc_attr_str(n, "direction", ""), "LEFT") ? x.u >> y.u : x.u << y.u;
        return r;
    case WGC_OP_PRELU:
        if (fl)
            r.f = x.f < 0 ? x.f * y.f : x.f;
        else if (sgn)
            r.u = x.i < 0 ? x.u * y.u : x.u; /* wraps like the narrow C multiply */
        else
            r.u = x.u;
        return r;
    default: return x.u ? y : in[2]; /* Where */
    }
}

static wg_status math2_fold(wgc_graph *g, wgc_node *n)
{
    /* Pow's exponent may have another dtype than the base: its kind travels in ctx. */
    const wgc_tensor *b = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    wgc_kind exp_kind = b ? wgc_dtype_kind(b->dtype) : WGC_KIND_FLOAT;
    return wgc_fold_map(g, n, m2_eval, &exp_kind);
}

const wgc_op_def wgc_op_math2 = {math2_infer, math2_fold, math2_emit, NULL};
