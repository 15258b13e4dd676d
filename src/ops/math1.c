/*
 * math1.c: one-input elementwise ops of every dtype, as inline loops (gen.c): Abs, Neg,
 * Floor, Ceil, Round, Sqrt, Reciprocal, Exp, Log, trigonometric and hyperbolic functions,
 * Sign, Erf, IsNaN, IsInf, Not, BitwiseNot and the parametric activations (Elu, Selu, Celu,
 * ThresholdedRelu, HardSigmoid, HardSwish, Mish, Softplus, Softsign, Gelu, Shrink).
 * Constant inputs fold on the host through the same formulas (fold_map.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elem.h"
#include "fold_map.h"
#include "gen.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};
static const int ints[] = {WG_DT_INT8, WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8,
                           WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
static const int numeric[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8, WG_DT_INT16,
                              WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32,
                              WG_DT_UINT64, 0};
static const int bools[] = {WG_DT_BOOL, 0};

static const int *allowed(wgc_op op)
{
    switch (op) {
    case WGC_OP_ABS: case WGC_OP_NEG: case WGC_OP_SIGN: case WGC_OP_SHRINK: return numeric;
    case WGC_OP_NOT: return bools;
    case WGC_OP_BITWISE_NOT: return ints;
    default: return floats;
    }
}

static wg_status math1_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, allowed(n->op));
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    bool to_bool = n->op == WGC_OP_IS_NAN || n->op == WGC_OP_IS_INF;
    if (n->op == WGC_OP_GELU) {
        const char *ap = wgc_attr_str(n, "approximate", "none");
        if (strcmp(ap, "none") && strcmp(ap, "tanh"))
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "approximate='%s'", ap);
    }
    wgc_set_output(g, n, 0, to_bool ? WG_DT_BOOL : x->dtype, &x->shape);
    return WG_OK;
}

static wg_status math1_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    char ex[1024], l1[40], l2[40];
    const wgc_tensor *x = wgc_in(g, n, 0);
    bool fl = wg_dtype_is_float(x->dtype);
    bool sgn = x->dtype == WG_DT_INT8 || x->dtype == WG_DT_INT16 || x->dtype == WG_DT_INT32 ||
               x->dtype == WG_DT_INT64;
    double alpha, beta;
    switch (n->op) {
    case WGC_OP_ABS:
        snprintf(ex, sizeof ex, "%s", fl ? "WGK_FABS(a)" : sgn ? "a < 0 ? (T)(0 - (uint64_t)a) : a" : "a");
        break;
    case WGC_OP_NEG: snprintf(ex, sizeof ex, "%s", fl ? "-a" : "(T)(0 - (uint64_t)a)"); break;
    case WGC_OP_FLOOR: snprintf(ex, sizeof ex, "WGK_FLOOR(a)"); break;
    case WGC_OP_CEIL: snprintf(ex, sizeof ex, "WGK_CEIL(a)"); break;
    case WGC_OP_ROUND: snprintf(ex, sizeof ex, "WGK_RINT(a)"); break;
    case WGC_OP_SQRT: snprintf(ex, sizeof ex, "WGK_SQRT(a)"); break;
    case WGC_OP_RECIPROCAL: snprintf(ex, sizeof ex, "(T)1 / a"); break;
    case WGC_OP_EXP: snprintf(ex, sizeof ex, "WGK_EXP(a)"); break;
    case WGC_OP_LOG: snprintf(ex, sizeof ex, "WGK_LOG(a)"); break;
    case WGC_OP_SIN: snprintf(ex, sizeof ex, "WGK_SIN(a)"); break;
    case WGC_OP_COS: snprintf(ex, sizeof ex, "WGK_COS(a)"); break;
    case WGC_OP_TAN: snprintf(ex, sizeof ex, "WGK_TAN(a)"); break;
    case WGC_OP_ASIN: snprintf(ex, sizeof ex, "WGK_ASIN(a)"); break;
    case WGC_OP_ACOS: snprintf(ex, sizeof ex, "WGK_ACOS(a)"); break;
    case WGC_OP_ATAN: snprintf(ex, sizeof ex, "WGK_ATAN(a)"); break;
    case WGC_OP_SINH: snprintf(ex, sizeof ex, "WGK_SINH(a)"); break;
    case WGC_OP_COSH: snprintf(ex, sizeof ex, "WGK_COSH(a)"); break;
    case WGC_OP_ASINH: snprintf(ex, sizeof ex, "WGK_ASINH(a)"); break;
    case WGC_OP_ACOSH: snprintf(ex, sizeof ex, "WGK_ACOSH(a)"); break;
    case WGC_OP_ATANH: snprintf(ex, sizeof ex, "WGK_ATANH(a)"); break;
    case WGC_OP_ERF: snprintf(ex, sizeof ex, "WGK_ERF(a)"); break;
    case WGC_OP_SIGN: snprintf(ex, sizeof ex, "a > 0 ? (T)1 : a < 0 ? (T)-1 : a"); break;
    case WGC_OP_IS_NAN: snprintf(ex, sizeof ex, "a != a"); break;
    case WGC_OP_IS_INF:
        snprintf(ex, sizeof ex, "(%d && a == (T)(1.0/0.0)) || (%d && a == (T)(-1.0/0.0))",
                 wgc_attr_int(n, "detect_positive", 1) != 0,
                 wgc_attr_int(n, "detect_negative", 1) != 0);
        break;
    case WGC_OP_NOT: snprintf(ex, sizeof ex, "!a"); break;
    case WGC_OP_BITWISE_NOT: snprintf(ex, sizeof ex, "(T)~a"); break;
    case WGC_OP_ELU:
        wgc_dlit(l1, sizeof l1, wgc_attr_float(n, "alpha", 1.0f));
        snprintf(ex, sizeof ex, "a > 0 ? a : (T)%s * (WGK_EXP(a) - (T)1)", l1);
        break;
    case WGC_OP_SELU:
        wgc_dlit(l1, sizeof l1, wgc_attr_float(n, "alpha", 1.67326319217681884765625f));
        wgc_dlit(l2, sizeof l2, wgc_attr_float(n, "gamma", 1.05070102214813232421875f));
        snprintf(ex, sizeof ex, "a > 0 ? (T)%s * a : (T)%s * ((T)%s * WGK_EXP(a) - (T)%s)", l2, l2, l1, l1);
        break;
    case WGC_OP_CELU:
        wgc_dlit(l1, sizeof l1, wgc_attr_float(n, "alpha", 1.0f));
        snprintf(ex, sizeof ex, "a > 0 ? a : (T)%s * (WGK_EXP(a / (T)%s) - (T)1)", l1, l1);
        break;
    case WGC_OP_THRESHOLDED_RELU:
        wgc_dlit(l1, sizeof l1, wgc_attr_float(n, "alpha", 1.0f));
        snprintf(ex, sizeof ex, "a > (T)%s ? a : (T)0", l1);
        break;
    case WGC_OP_HARD_SIGMOID:
    case WGC_OP_HARD_SWISH:
        alpha = n->op == WGC_OP_HARD_SWISH ? 1.0 / 6.0 : wgc_attr_float(n, "alpha", 0.2f);
        beta = n->op == WGC_OP_HARD_SWISH ? 0.5 : wgc_attr_float(n, "beta", 0.5f);
        wgc_dlit(l1, sizeof l1, alpha);
        wgc_dlit(l2, sizeof l2, beta);
        snprintf(ex, sizeof ex, "%s((T)%s * a + (T)%s < 0 ? (T)0 : (T)%s * a + (T)%s > 1 ? (T)1 : (T)%s * a + (T)%s)",
                 n->op == WGC_OP_HARD_SWISH ? "a * " : "", l1, l2, l1, l2, l1, l2);
        break;
    case WGC_OP_SOFTPLUS:
        snprintf(ex, sizeof ex, "a > 30 ? a : WGK_LOG((T)1 + WGK_EXP(a))");
        break;
    case WGC_OP_MISH:
        snprintf(ex, sizeof ex, "a * WGK_TANH(a > 30 ? a : WGK_LOG((T)1 + WGK_EXP(a)))");
        break;
    case WGC_OP_SOFTSIGN: snprintf(ex, sizeof ex, "a / ((T)1 + WGK_FABS(a))"); break;
    case WGC_OP_GELU:
        if (!strcmp(wgc_attr_str(n, "approximate", "none"), "tanh"))
            snprintf(ex, sizeof ex, "(T)0.5 * a * ((T)1 + WGK_TANH((T)0.79788456080286535588 * "
                                    "(a + (T)0.044715 * a * a * a)))");
        else
            snprintf(ex, sizeof ex, "(T)0.5 * a * ((T)1 + WGK_ERF(a * (T)0.70710678118654752440))");
        break;
    default: /* Shrink */
        wgc_dlit(l1, sizeof l1, wgc_attr_float(n, "lambd", 0.5f));
        wgc_dlit(l2, sizeof l2, wgc_attr_float(n, "bias", 0.0f));
        snprintf(ex, sizeof ex, "(double)a < -%s ? (T)((double)a + %s) : (double)a > %s ? (T)((double)a - %s) : (T)0",
                 l1, l2, l1, l2);
        break;
    }
    return wgc_gen_map(e, g, n, n->inputs, 1, n->outputs[0], ex);
}

/* Folding: the host twin of each expression above, over wgc_scalar (fold_map.h). Floats
 * are computed in double and rounded once to the dtype on store. */
typedef struct m1_ctx {
    double l1, l2;
    bool tanh_gelu, pos, neg;
} m1_ctx;

static double softplus(double a) { return a > 30 ? a : log(1 + exp(a)); }

static wgc_scalar m1_float(const wgc_map_args *a, double x)
{
    const m1_ctx *c = a->ctx;
    wgc_scalar r;
    switch (a->n->op) {
    case WGC_OP_ABS: r.f = fabs(x); break;
    case WGC_OP_NEG: r.f = -x; break;
    case WGC_OP_FLOOR: r.f = floor(x); break;
    case WGC_OP_CEIL: r.f = ceil(x); break;
    case WGC_OP_ROUND: r.f = nearbyint(x); break; /* half to even (default rounding mode) */
    case WGC_OP_SQRT: r.f = sqrt(x); break;
    case WGC_OP_RECIPROCAL: r.f = 1 / x; break;
    case WGC_OP_EXP: r.f = exp(x); break;
    case WGC_OP_LOG: r.f = log(x); break;
    case WGC_OP_SIN: r.f = sin(x); break;
    case WGC_OP_COS: r.f = cos(x); break;
    case WGC_OP_TAN: r.f = tan(x); break;
    case WGC_OP_ASIN: r.f = asin(x); break;
    case WGC_OP_ACOS: r.f = acos(x); break;
    case WGC_OP_ATAN: r.f = atan(x); break;
    case WGC_OP_SINH: r.f = sinh(x); break;
    case WGC_OP_COSH: r.f = cosh(x); break;
    case WGC_OP_ASINH: r.f = asinh(x); break;
    case WGC_OP_ACOSH: r.f = acosh(x); break;
    case WGC_OP_ATANH: r.f = atanh(x); break;
    case WGC_OP_ERF: r.f = erf(x); break;
    case WGC_OP_SIGN: r.f = x > 0 ? 1 : x < 0 ? -1 : x; break;
    case WGC_OP_IS_NAN: r.u = x != x; break;
    case WGC_OP_IS_INF: r.u = (c->pos && x == INFINITY) || (c->neg && x == -INFINITY); break;
    case WGC_OP_ELU: r.f = x > 0 ? x : c->l1 * (exp(x) - 1); break;
    case WGC_OP_SELU: r.f = x > 0 ? c->l2 * x : c->l2 * (c->l1 * exp(x) - c->l1); break;
    case WGC_OP_CELU: r.f = x > 0 ? x : c->l1 * (exp(x / c->l1) - 1); break;
    case WGC_OP_THRESHOLDED_RELU: r.f = x > c->l1 ? x : 0; break;
    case WGC_OP_HARD_SIGMOID: case WGC_OP_HARD_SWISH: {
        double t = c->l1 * x + c->l2;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        r.f = a->n->op == WGC_OP_HARD_SWISH ? x * t : t;
        break;
    }
    case WGC_OP_SOFTPLUS: r.f = softplus(x); break;
    case WGC_OP_MISH: r.f = x * tanh(softplus(x)); break;
    case WGC_OP_SOFTSIGN: r.f = x / (1 + fabs(x)); break;
    case WGC_OP_GELU:
        r.f = c->tanh_gelu ? 0.5 * x * (1 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)))
                           : 0.5 * x * (1 + erf(x * 0.70710678118654752440));
        break;
    default: /* Shrink */
        r.f = x < -c->l1 ? x + c->l2 : x > c->l1 ? x - c->l2 : 0;
        break;
    }
    return r;
}

/* Integer ops wrap through uint64 like the emitted (T)(0 - (uint64_t)a). */
static wgc_scalar m1_eval(const wgc_map_args *a, const wgc_scalar *in)
{
    const m1_ctx *c = a->ctx;
    wgc_scalar x = in[0], r = x;
    if (a->kind == WGC_KIND_FLOAT)
        return m1_float(a, x.f);
    bool sgn = a->kind == WGC_KIND_SIGNED;
    switch (a->n->op) {
    case WGC_OP_ABS: if (sgn && x.i < 0) r.u = 0 - x.u; break;
    case WGC_OP_NEG: r.u = 0 - x.u; break;
    case WGC_OP_SIGN:
        if (sgn) r.i = x.i > 0 ? 1 : x.i < 0 ? -1 : 0;
        else r.u = x.u > 0;
        break;
    case WGC_OP_NOT: r.u = !x.u; break;
    case WGC_OP_BITWISE_NOT: r.u = ~x.u; break;
    default: { /* Shrink: in double, then truncated like the (T) cast */
        double v = sgn ? (double)x.i : (double)x.u;
        double t = v < -c->l1 ? v + c->l2 : v > c->l1 ? v - c->l2 : 0;
        char one[8];
        wgc_elem_set_f(one, sgn ? WG_DT_INT64 : WG_DT_UINT64, 0, t);
        memcpy(&r.u, one, 8);
        break;
    }
    }
    return r;
}

static wg_status math1_fold(wgc_graph *g, wgc_node *n)
{
    m1_ctx c = {0};
    c.pos = wgc_attr_int(n, "detect_positive", 1) != 0;
    c.neg = wgc_attr_int(n, "detect_negative", 1) != 0;
    c.tanh_gelu = !strcmp(wgc_attr_str(n, "approximate", "none"), "tanh");
    switch (n->op) {
    case WGC_OP_ELU: case WGC_OP_CELU: case WGC_OP_THRESHOLDED_RELU:
        c.l1 = wgc_attr_float(n, "alpha", 1.0f);
        break;
    case WGC_OP_SELU:
        c.l1 = wgc_attr_float(n, "alpha", 1.67326319217681884765625f);
        c.l2 = wgc_attr_float(n, "gamma", 1.05070102214813232421875f);
        break;
    case WGC_OP_HARD_SIGMOID:
        c.l1 = wgc_attr_float(n, "alpha", 0.2f), c.l2 = wgc_attr_float(n, "beta", 0.5f);
        break;
    case WGC_OP_HARD_SWISH: c.l1 = 1.0 / 6.0, c.l2 = 0.5; break;
    case WGC_OP_SHRINK:
        c.l1 = wgc_attr_float(n, "lambd", 0.5f), c.l2 = wgc_attr_float(n, "bias", 0.0f);
        break;
    default: break;
    }
    return wgc_fold_map(g, n, m1_eval, &c);
}

const wgc_op_def wgc_op_math1 = {math1_infer, math1_fold, math1_emit, NULL};
