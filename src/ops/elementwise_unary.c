/*
 * elementwise_unary.c: the one-input elementwise ops, one row each (helpers/elementwise.h):
 * Relu, LeakyRelu, Sigmoid, Tanh, Erf and Gelu (a float32 kernel, an inline loop for other
 * dtypes; Erf and Gelu on the SIMD polynomials of wgk_vmath.h, within 2.3 ulp of erf, where
 * the host twins use libm: a folded constant may differ from the run-time value in the
 * last 2 bits), Abs, Neg, Floor, Ceil, Round, Sqrt, Reciprocal, Exp, Log, the
 * trigonometric and hyperbolic functions, Sign, IsNaN, IsInf, Not, BitwiseNot and the
 * parametric activations (Elu, Selu, Celu, ThresholdedRelu, HardSigmoid, HardSwish, Mish,
 * Softplus, Softsign, Shrink) as inline loops of every dtype they take.
 *
 * The twins fold constant inputs on the host: floats in double, rounded once to the dtype
 * on store; integers wrap through uint64 like the emitted (T)(0 - (uint64_t)a).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../ir/valrange.h"
#include "helpers/elementwise.h"
#include "helpers/host_elements.h"
#include "helpers/sym_code.h"
#include "sym.h"

/* Relu also takes signed integers (opset 14); the other activations only floats. */
static const int relu_dtypes[] = {WG_DT_FLOAT, WG_DT_FLOAT16, WG_DT_DOUBLE, WG_DT_INT8,
                                  WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, 0};

/* A twin of an op on floats only: x is the input, p[k] the row's attribute k. */
#define FLOAT_TWIN(name, expr)                                                             \
    static wgc_scalar name(const wgc_map_args *a_, const wgc_scalar *in)                   \
    {                                                                                      \
        const double x = in[0].f, *p = ((const wgc_ew_params *)a_->ctx)->v;                \
        (void)p;                                                                           \
        return (wgc_scalar){.f = (expr)};                                                  \
    }

static double softplus(double a) { return a > 30 ? a : log(1 + exp(a)); }

FLOAT_TWIN(twin_leaky_relu, x >= 0 ? x : x * p[0])
FLOAT_TWIN(twin_sigmoid, 1.0 / (1.0 + exp(-x)))
FLOAT_TWIN(twin_tanh, tanh(x))
FLOAT_TWIN(twin_floor, floor(x))
FLOAT_TWIN(twin_ceil, ceil(x))
FLOAT_TWIN(twin_round, nearbyint(x)) /* half to even (the default rounding mode) */
FLOAT_TWIN(twin_sqrt, sqrt(x))
FLOAT_TWIN(twin_reciprocal, 1 / x)
FLOAT_TWIN(twin_exp, exp(x))
FLOAT_TWIN(twin_log, log(x))
FLOAT_TWIN(twin_sin, sin(x))
FLOAT_TWIN(twin_cos, cos(x))
FLOAT_TWIN(twin_tan, tan(x))
FLOAT_TWIN(twin_asin, asin(x))
FLOAT_TWIN(twin_acos, acos(x))
FLOAT_TWIN(twin_atan, atan(x))
FLOAT_TWIN(twin_sinh, sinh(x))
FLOAT_TWIN(twin_cosh, cosh(x))
FLOAT_TWIN(twin_asinh, asinh(x))
FLOAT_TWIN(twin_acosh, acosh(x))
FLOAT_TWIN(twin_atanh, atanh(x))
FLOAT_TWIN(twin_erf, erf(x))
FLOAT_TWIN(twin_elu, x > 0 ? x : p[0] * (exp(x) - 1))
FLOAT_TWIN(twin_selu, x > 0 ? p[1] * x : p[1] * (p[0] * exp(x) - p[0]))
FLOAT_TWIN(twin_celu, x > 0 ? x : p[0] * (exp(x / p[0]) - 1))
FLOAT_TWIN(twin_thresholded_relu, x > p[0] ? x : 0)
FLOAT_TWIN(twin_hard_sigmoid, p[0] * x + p[1] < 0 ? 0 : p[0] * x + p[1] > 1 ? 1 : p[0] * x + p[1])
FLOAT_TWIN(twin_hard_swish, x * ((1.0 / 6.0) * x + 0.5 < 0   ? 0
                                 : (1.0 / 6.0) * x + 0.5 > 1 ? 1
                                                             : (1.0 / 6.0) * x + 0.5))
FLOAT_TWIN(twin_softplus, softplus(x))
FLOAT_TWIN(twin_mish, x * tanh(softplus(x)))
FLOAT_TWIN(twin_softsign, x / (1 + fabs(x)))
FLOAT_TWIN(twin_gelu, p[0] == 1 ? 0.5 * x * (1 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)))
                                : 0.5 * x * (1 + erf(x * 0.70710678118654752440)))

/* Ops on the output kind: IsNaN and IsInf give bool (uint64 0/1). */
static wgc_scalar twin_is_nan(const wgc_map_args *a, const wgc_scalar *in)
{
    (void)a;
    return (wgc_scalar){.u = in[0].f != in[0].f};
}

static wgc_scalar twin_is_inf(const wgc_map_args *a, const wgc_scalar *in)
{
    const double *p = ((const wgc_ew_params *)a->ctx)->v, x = in[0].f;
    return (wgc_scalar){.u = (p[0] && x == INFINITY) || (p[1] && x == -INFINITY)};
}

static wgc_scalar twin_relu(const wgc_map_args *a, const wgc_scalar *in)
{
    wgc_scalar x = in[0];
    if (a->kind == WGC_KIND_FLOAT)
        return (wgc_scalar){.f = x.f > 0 ? x.f : 0};
    return (wgc_scalar){.i = x.i > 0 ? x.i : 0}; /* signed integers only */
}

static wgc_scalar twin_abs(const wgc_map_args *a, const wgc_scalar *in)
{
    wgc_scalar x = in[0];
    if (a->kind == WGC_KIND_FLOAT)
        return (wgc_scalar){.f = fabs(x.f)};
    if (a->kind == WGC_KIND_SIGNED && x.i < 0)
        x.u = 0 - x.u;
    return x;
}

static wgc_scalar twin_neg(const wgc_map_args *a, const wgc_scalar *in)
{
    if (a->kind == WGC_KIND_FLOAT)
        return (wgc_scalar){.f = -in[0].f};
    return (wgc_scalar){.u = 0 - in[0].u};
}

static wgc_scalar twin_sign(const wgc_map_args *a, const wgc_scalar *in)
{
    wgc_scalar x = in[0];
    if (a->kind == WGC_KIND_FLOAT)
        return (wgc_scalar){.f = x.f > 0 ? 1 : x.f < 0 ? -1 : x.f};
    if (a->kind == WGC_KIND_SIGNED)
        return (wgc_scalar){.i = x.i > 0 ? 1 : x.i < 0 ? -1 : 0};
    return (wgc_scalar){.u = x.u > 0};
}

static wgc_scalar twin_not(const wgc_map_args *a, const wgc_scalar *in)
{
    (void)a;
    return (wgc_scalar){.u = !in[0].u};
}

static wgc_scalar twin_bitwise_not(const wgc_map_args *a, const wgc_scalar *in)
{
    (void)a;
    return (wgc_scalar){.u = ~in[0].u};
}

/* Shrink: in double, then integers truncate like the emitted (T) cast. */
static wgc_scalar twin_shrink(const wgc_map_args *a, const wgc_scalar *in)
{
    const double *p = ((const wgc_ew_params *)a->ctx)->v;
    bool sgn = a->kind == WGC_KIND_SIGNED;
    double v = a->kind == WGC_KIND_FLOAT ? in[0].f : sgn ? (double)in[0].i : (double)in[0].u;
    double t = v < -p[0] ? v + p[1] : v > p[0] ? v - p[1] : 0;
    wgc_scalar r = {.f = t};
    if (a->kind != WGC_KIND_FLOAT) {
        char one[8];
        wgc_elem_set_f(one, sgn ? WG_DT_INT64 : WG_DT_UINT64, 0, t);
        memcpy(&r.u, one, 8);
    }
    return r;
}

/* The attributes the rows read, with their ONNX defaults. */
#define ALPHA(d) {"alpha", WGC_EW_FLOAT, .f = (d)}

/* One row per op: input count, dtypes, output dtype, attributes, the C expression by the
 * kind of T (float, signed, unsigned), the host twin, the float32 kernel if any. */
static const wgc_ew_row rows[WGC_OP_COUNT] = {
    [WGC_OP_RELU] = {1, 1, relu_dtypes, .expr = {"a > 0 ? a : 0"}, .fold = twin_relu,
                     .kernel = "wgk_f32_relu"},
    [WGC_OP_LEAKY_RELU] = {1, 1, wgc_ew_floats, .attrs = {ALPHA(0.01f)},
                           .expr = {"a >= 0 ? a : a * (T){alpha}"}, .fold = twin_leaky_relu,
                           .kernel = "wgk_f32_leaky_relu"},
    [WGC_OP_SIGMOID] = {1, 1, wgc_ew_floats, .expr = {"(T)1 / ((T)1 + WGK_EXP(-a))"},
                        .fold = twin_sigmoid, .kernel = "wgk_f32_sigmoid"},
    [WGC_OP_TANH] = {1, 1, wgc_ew_floats, .expr = {"WGK_TANH(a)"}, .fold = twin_tanh,
                     .kernel = "wgk_f32_tanh"},
    [WGC_OP_ABS] = {1, 1, wgc_ew_numbers,
                    .expr = {"WGK_FABS(a)", "a < 0 ? (T)(0 - (uint64_t)a) : a", "a"}, .fold = twin_abs},
    [WGC_OP_NEG] = {1, 1, wgc_ew_numbers, .expr = {"-a", "(T)(0 - (uint64_t)a)"}, .fold = twin_neg},
    [WGC_OP_FLOOR] = {1, 1, wgc_ew_floats, .expr = {"WGK_FLOOR(a)"}, .fold = twin_floor},
    [WGC_OP_CEIL] = {1, 1, wgc_ew_floats, .expr = {"WGK_CEIL(a)"}, .fold = twin_ceil},
    [WGC_OP_ROUND] = {1, 1, wgc_ew_floats, .expr = {"WGK_RINT(a)"}, .fold = twin_round},
    [WGC_OP_SQRT] = {1, 1, wgc_ew_floats, .expr = {"WGK_SQRT(a)"}, .fold = twin_sqrt},
    [WGC_OP_RECIPROCAL] = {1, 1, wgc_ew_floats, .expr = {"(T)1 / a"}, .fold = twin_reciprocal},
    [WGC_OP_EXP] = {1, 1, wgc_ew_floats, .expr = {"WGK_EXP(a)"}, .fold = twin_exp},
    [WGC_OP_LOG] = {1, 1, wgc_ew_floats, .expr = {"WGK_LOG(a)"}, .fold = twin_log},
    [WGC_OP_SIN] = {1, 1, wgc_ew_floats, .expr = {"WGK_SIN(a)"}, .fold = twin_sin},
    [WGC_OP_COS] = {1, 1, wgc_ew_floats, .expr = {"WGK_COS(a)"}, .fold = twin_cos},
    [WGC_OP_TAN] = {1, 1, wgc_ew_floats, .expr = {"WGK_TAN(a)"}, .fold = twin_tan},
    [WGC_OP_ASIN] = {1, 1, wgc_ew_floats, .expr = {"WGK_ASIN(a)"}, .fold = twin_asin},
    [WGC_OP_ACOS] = {1, 1, wgc_ew_floats, .expr = {"WGK_ACOS(a)"}, .fold = twin_acos},
    [WGC_OP_ATAN] = {1, 1, wgc_ew_floats, .expr = {"WGK_ATAN(a)"}, .fold = twin_atan},
    [WGC_OP_SINH] = {1, 1, wgc_ew_floats, .expr = {"WGK_SINH(a)"}, .fold = twin_sinh},
    [WGC_OP_COSH] = {1, 1, wgc_ew_floats, .expr = {"WGK_COSH(a)"}, .fold = twin_cosh},
    [WGC_OP_ASINH] = {1, 1, wgc_ew_floats, .expr = {"WGK_ASINH(a)"}, .fold = twin_asinh},
    [WGC_OP_ACOSH] = {1, 1, wgc_ew_floats, .expr = {"WGK_ACOSH(a)"}, .fold = twin_acosh},
    [WGC_OP_ATANH] = {1, 1, wgc_ew_floats, .expr = {"WGK_ATANH(a)"}, .fold = twin_atanh},
    [WGC_OP_ERF] = {1, 1, wgc_ew_floats, .expr = {"WGK_ERF(a)"}, .fold = twin_erf,
                    .kernel = "wgk_f32_erf"},
    [WGC_OP_SIGN] = {1, 1, wgc_ew_numbers, .expr = {"a > 0 ? (T)1 : a < 0 ? (T)-1 : a"},
                     .fold = twin_sign},
    [WGC_OP_IS_NAN] = {1, 1, wgc_ew_floats, .out = WGC_EW_BOOL, .expr = {"a != a"},
                       .fold = twin_is_nan},
    [WGC_OP_IS_INF] = {1, 1, wgc_ew_floats, .out = WGC_EW_BOOL,
                       .attrs = {{"detect_positive", WGC_EW_FLAG, .i = 1},
                                 {"detect_negative", WGC_EW_FLAG, .i = 1}},
                       .expr = {"({detect_positive} && a == (T)(1.0/0.0)) || "
                                "({detect_negative} && a == (T)(-1.0/0.0))"},
                       .fold = twin_is_inf},
    [WGC_OP_NOT] = {1, 1, wgc_ew_bools, .expr = {"!a"}, .fold = twin_not},
    [WGC_OP_BITWISE_NOT] = {1, 1, wgc_ew_ints, .expr = {"(T)~a"}, .fold = twin_bitwise_not},
    [WGC_OP_ELU] = {1, 1, wgc_ew_floats, .attrs = {ALPHA(1.0f)},
                    .expr = {"a > 0 ? a : (T){alpha} * (WGK_EXP(a) - (T)1)"}, .fold = twin_elu},
    [WGC_OP_SELU] = {1, 1, wgc_ew_floats,
                     .attrs = {ALPHA(1.67326319217681884765625f),
                               {"gamma", WGC_EW_FLOAT, .f = 1.05070102214813232421875f}},
                     .expr = {"a > 0 ? (T){gamma} * a : (T){gamma} * ((T){alpha} * WGK_EXP(a) - (T){alpha})"},
                     .fold = twin_selu},
    [WGC_OP_CELU] = {1, 1, wgc_ew_floats, .attrs = {ALPHA(1.0f)},
                     .expr = {"a > 0 ? a : (T){alpha} * (WGK_EXP(a / (T){alpha}) - (T)1)"},
                     .fold = twin_celu},
    [WGC_OP_THRESHOLDED_RELU] = {1, 1, wgc_ew_floats, .attrs = {ALPHA(1.0f)},
                                 .expr = {"a > (T){alpha} ? a : (T)0"}, .fold = twin_thresholded_relu},
    [WGC_OP_HARD_SIGMOID] = {1, 1, wgc_ew_floats,
                             .attrs = {ALPHA(0.2f), {"beta", WGC_EW_FLOAT, .f = 0.5f}},
                             .expr = {"((T){alpha} * a + (T){beta} < 0 ? (T)0 : (T){alpha} * a + (T){beta} > 1 "
                                      "? (T)1 : (T){alpha} * a + (T){beta})"},
                             .fold = twin_hard_sigmoid},
    /* HardSigmoid with alpha 1/6, beta 1/2, times x */
    [WGC_OP_HARD_SWISH] = {1, 1, wgc_ew_floats,
                           .expr = {"a * ((T)0.16666666666666666 * a + (T)0.5 < 0 ? (T)0 : "
                                    "(T)0.16666666666666666 * a + (T)0.5 > 1 ? (T)1 : "
                                    "(T)0.16666666666666666 * a + (T)0.5)"},
                           .fold = twin_hard_swish},
    [WGC_OP_MISH] = {1, 1, wgc_ew_floats,
                     .expr = {"a * WGK_TANH(a > 30 ? a : WGK_LOG((T)1 + WGK_EXP(a)))"}, .fold = twin_mish},
    [WGC_OP_SOFTPLUS] = {1, 1, wgc_ew_floats, .expr = {"a > 30 ? a : WGK_LOG((T)1 + WGK_EXP(a))"},
                         .fold = twin_softplus},
    [WGC_OP_SOFTSIGN] = {1, 1, wgc_ew_floats, .expr = {"a / ((T)1 + WGK_FABS(a))"},
                         .fold = twin_softsign},
    [WGC_OP_GELU] = {1, 1, wgc_ew_floats,
                     .attrs = {{"approximate", WGC_EW_CHOICE, .s = "none", .values = {"none", "tanh"},
                                .texts = {"(T)0.5 * a * ((T)1 + WGK_ERF(a * (T)0.70710678118654752440))",
                                          "(T)0.5 * a * ((T)1 + WGK_TANH((T)0.79788456080286535588 * "
                                          "(a + (T)0.044715 * a * a * a)))"},
                                .kernels = {"wgk_f32_gelu", "wgk_f32_gelu_tanh"}}},
                     .expr = {"{approximate}"}, .fold = twin_gelu},
    [WGC_OP_SHRINK] = {1, 1, wgc_ew_numbers,
                       .attrs = {{"lambd", WGC_EW_FLOAT, .f = 0.5f}, {"bias", WGC_EW_FLOAT, .f = 0.0f}},
                       .expr = {"(double)a < -{lambd} ? (T)((double)a + {bias}) : (double)a > {lambd} "
                                "? (T)((double)a - {bias}) : (T)0"},
                       .fold = twin_shrink},
};

WGC_EW_FAMILY_HOOKS(unary, rows)

/* The float32 kernel of n: its row's, or the one its choice attribute's value names. */
static const char *f32_kernel(const wgc_node *n, const wgc_ew_row *r)
{
    const char *kernel = r->kernel;
    for (int k = 0; k < WGC_EW_MAX_ATTRS && r->attrs[k].name; k++) {
        const wgc_ew_attr *a = &r->attrs[k];
        if (a->kind == WGC_EW_CHOICE && a->kernels[0]) {
            const int c = wgc_ew_choice(n, a);
            kernel = c >= 0 ? a->kernels[c] : NULL;
        }
    }
    return kernel;
}

/* The kernel's trailing float arguments: the row's float attributes (a choice picked the
 * kernel; flags have none). */
static void kernel_args(wgc_emitter *e, const wgc_node *n, const wgc_ew_row *r, char *args, size_t size)
{
    args[0] = 0;
    for (int k = 0; k < WGC_EW_MAX_ATTRS && r->attrs[k].name; k++) {
        if (r->attrs[k].kind != WGC_EW_FLOAT)
            continue;
        size_t len = strlen(args);
        snprintf(args + len, size - len, ", %s", wgc_float(e, wgc_attr_float(n, r->attrs[k].name, r->attrs[k].f)));
    }
}

/* The float32 kernel where the row has one, else the expression as an inline loop. */
static wg_status unary_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_ew_row *r = &rows[n->op];
    const wgc_tensor *y = wgc_out(g, n, 0);
    const char *kernel = f32_kernel(n, r);
    if (!kernel || y->dtype != WG_DT_FLOAT)
        return wgc_ew_emit(e, g, n, rows);
    wg_status st = wgc_check_i32_numel(g, n, y);
    if (st)
        return st;
    size_t count = (size_t)wgc_numel(&y->shape);
    if (count == 0)
        return WG_OK;
    char args[160];
    kernel_args(e, n, r, args, sizeof args);
    const char *py = wgc_ptr(e, g, n->outputs[0]), *px = wgc_ptr(e, g, n->inputs[0]);
    if (n->act == WGC_ACT_NONE && wgc_split_pays(e, (int64_t)(count + 15) / 16, (int64_t)count)) {
        /* Threads: runs of whole 16-element blocks, so each thread's SIMD loop covers
         * the elements it covers on one thread and the only scalar tail is the last. */
        wgc_emit(e, "{\n");
        wgc_emit_part_range(e, (int64_t)count, 16);
        wgc_emit(e, "    if (lo < hi)\n        %s((float *)%s + lo, (const float *)%s + lo, (size_t)(hi - lo)%s);\n}\n",
                 kernel, py, px, args);
        return WG_OK;
    }
    wgc_emit(e, "%s(%s, %s, %zu%s);\n", kernel, py, px, count, args);
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* The code over symbolic shapes: without a fused activation, the fixed shapes' code over
 * the actual element count (the row's float32 kernel, else its expression in a loop); IsNaN
 * and Not, which broadcast, through the broadcast loop (helpers/sym_code.h); else the op's
 * own code at the maxima (trait WGC_AT_MAXIMA, sym.h) where that runs. */
static wg_status unary_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_IS_NAN: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] != p0[o0]");
    case WGC_OP_NOT: return wgc_sym_broadcast_loop(e, g, n, "!p0[o0]");
    default: break;
    }
    const wgc_ew_row *r = &rows[n->op];
    if (n->act == WGC_ACT_NONE && wgc_shape_eq(&wgc_in(g, n, 0)->shape, &wgc_out(g, n, 0)->shape)) {
        const char *count = wgc_sym_numel(e, wgc_out(g, n, 0)), *kernel = f32_kernel(n, r);
        if (!kernel || wgc_out(g, n, 0)->dtype != WG_DT_FLOAT)
            return wgc_ew_emit_flat(e, g, n, rows, count);
        char args[160];
        kernel_args(e, n, r, args, sizeof args);
        wgc_emit(e, "%s(%s, %s, (size_t)(%s)%s);\n", kernel, wgc_ptr(e, g, n->outputs[0]),
                 wgc_ptr(e, g, n->inputs[0]), count, args);
        return WG_OK;
    }
    if (wgc_sym_runs_at_maxima(g, n))
        return unary_emit(e, g, n);
    return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
}

/* Bounds of integer values computed at run time (ir/valrange.h): Neg and Abs of input 0's
 * (none where its lower end has no negation). */
static bool unary_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                             wgc_vrange *out, int64_t count)
{
    if (n->op != WGC_OP_NEG && n->op != WGC_OP_ABS)
        return false;
    if (!wgc_vrange_elementwise(g, n, y, 0, 1, NULL, out, count))
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
}

/* Shape arithmetic: the Neg of symbolic values is the monomial of the other sign (T5's
 * relative position bias is sliced from -seq: `bias[:, :, -seq:, :]`). */
static wgc_sym_folds unary_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    return n->op == WGC_OP_NEG ? wgc_sym_passes_values(g, n) : WGC_SYM_NO_FOLD;
}

static wg_status unary_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status st = wgc_sym_copy_values(g, n, v, count);
    for (int64_t i = 0; !st && i < count; i++) {
        if (v[i].c == INT64_MIN)
            return wgc_sym_refuse(g, n, "a value with no negation in int64");
        v[i].c = -v[i].c;
    }
    return st;
}

const wgc_op_def wgc_op_elementwise_unary = {
    .infer = unary_infer,
    .fold = unary_fold,
    .emit = unary_emit,
    .sym = {.emit = unary_sym_emit,
            .foldable = unary_sym_foldable,
            .values = unary_sym_values,
            .bounds = unary_sym_bounds},
};
