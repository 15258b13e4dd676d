/*
 * math1.c: one-input elementwise ops of every dtype, as inline loops (gen.c): Abs, Neg,
 * Floor, Ceil, Round, Sqrt, Reciprocal, Exp, Log, trigonometric and hyperbolic functions,
 * Sign, Erf, IsNaN, IsInf, Not, BitwiseNot and the parametric activations (Elu, Selu, Celu,
 * ThresholdedRelu, HardSigmoid, HardSwish, Mish, Softplus, Softsign, Gelu, Shrink).
 */
#include <stdio.h>
#include <string.h>

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

const wgc_op_def wgc_op_math1 = {math1_infer, NULL, math1_emit, NULL};
