/*
 * elementwise_binary.c: the broadcasting elementwise ops with a fixed number of inputs,
 * one row each (helpers/elementwise.h): Add, Sub, Mul, Div (a kernel for float32, int32
 * and int64, an inline loop for other dtypes), Pow, Mod, the comparisons, the logical and
 * bitwise ops, BitShift, PRelu and Where as inline loops of every dtype they take.
 *
 * The twins fold constant inputs on the host. Integers wrap through uint64 (signed
 * overflow is undefined in C); integer Div truncates toward zero as the ONNX reference
 * does, and x / 0 gives 0 rather than undefined behaviour, like the emitted loop.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/elementwise.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "versions.h"

static bool is_float(const wgc_map_args *a)
{
    return a->kind == WGC_KIND_FLOAT;
}

static wgc_scalar twin_add(const wgc_map_args *a, const wgc_scalar *in)
{
    return is_float(a) ? (wgc_scalar){.f = in[0].f + in[1].f} : (wgc_scalar){.u = in[0].u + in[1].u};
}

static wgc_scalar twin_sub(const wgc_map_args *a, const wgc_scalar *in)
{
    return is_float(a) ? (wgc_scalar){.f = in[0].f - in[1].f} : (wgc_scalar){.u = in[0].u - in[1].u};
}

static wgc_scalar twin_mul(const wgc_map_args *a, const wgc_scalar *in)
{
    return is_float(a) ? (wgc_scalar){.f = in[0].f * in[1].f} : (wgc_scalar){.u = in[0].u * in[1].u};
}

static wgc_scalar twin_div(const wgc_map_args *a, const wgc_scalar *in)
{
    wgc_scalar x = in[0], y = in[1];
    if (is_float(a))
        return (wgc_scalar){.f = x.f / y.f};
    if (a->kind == WGC_KIND_SIGNED)
        return (wgc_scalar){.i = y.i == 0 || (x.i == INT64_MIN && y.i == -1) ? 0 : x.i / y.i};
    return (wgc_scalar){.u = y.u == 0 ? 0 : x.u / y.u};
}

static double as_double(wgc_kind k, wgc_scalar v)
{
    return k == WGC_KIND_FLOAT ? v.f : k == WGC_KIND_SIGNED ? (double)v.i : (double)v.u;
}

/* In the dtype of input 0, through double like wgk_pow((double)a, (double)b); the exponent
 * may have another dtype. */
static wgc_scalar twin_pow(const wgc_map_args *a, const wgc_scalar *in)
{
    double p = pow(as_double(a->kind, in[0]), as_double(a->kinds[1], in[1]));
    wgc_scalar r = {.f = p};
    if (!is_float(a)) {
        char one[8];
        wgc_elem_set_f(one, a->kind == WGC_KIND_SIGNED ? WG_DT_INT64 : WG_DT_UINT64, 0, p);
        memcpy(&r.u, one, 8);
    }
    return r;
}

/* fmod=1: C's fmod / %; fmod=0: Python's floored modulo, the result has the divisor's sign
 * (floats only from Mod-28, as wgk__floormod). */
static wgc_scalar twin_mod(const wgc_map_args *a, const wgc_scalar *in)
{
    bool fmod_ = ((const wgc_ew_params *)a->ctx)->v[0] != 0;
    wgc_scalar x = in[0], y = in[1], r;
    if (is_float(a)) {
        r.f = (y.f != y.f || x.f != x.f || y.f == 0 || isinf(x.f)) ? NAN : isinf(y.f) ? x.f : fmod(x.f, y.f);
        if (!fmod_ && r.f == r.f)
            r.f = r.f == 0 ? copysign(0.0, y.f) : (r.f < 0) != (y.f < 0) ? r.f + y.f : r.f;
    } else if (a->kind == WGC_KIND_SIGNED) {
        if (y.i == 0 || y.i == -1) {
            r.i = 0;
        } else {
            r.i = x.i % y.i;
            if (!fmod_ && r.i != 0 && ((r.i < 0) != (y.i < 0)))
                r.i += y.i;
        }
    } else {
        r.u = y.u == 0 ? 0 : x.u % y.u;
    }
    return r;
}

/* Comparisons, logical and bitwise ops: the output is bool or the inputs' bits. */
#define TWIN(name, expr)                                                                   \
    static wgc_scalar name(const wgc_map_args *a, const wgc_scalar *in)                    \
    {                                                                                      \
        wgc_scalar x = in[0], y = in[1];                                                   \
        int c = wgc_ew_compare(a->kind, x, y);                                             \
        (void)c;                                                                           \
        return (wgc_scalar){.u = (expr)};                                                  \
    }
TWIN(twin_equal, c == 0)
TWIN(twin_less, c == -1)
TWIN(twin_greater, c == 1)
TWIN(twin_less_or_equal, c == -1 || c == 0)
TWIN(twin_greater_or_equal, c == 1 || c == 0)
TWIN(twin_and, x.u && y.u)
TWIN(twin_or, x.u || y.u)
TWIN(twin_xor, (x.u != 0) != (y.u != 0))
TWIN(twin_bitwise_and, x.u & y.u)
TWIN(twin_bitwise_or, x.u | y.u)
TWIN(twin_bitwise_xor, x.u ^ y.u)
#undef TWIN

/* direction: choice 0 is LEFT. Signed inputs (BitShift-28): the narrow type's bits, the
 * sign filled in from the left on a right shift, as the emitted expression. */
static wgc_scalar twin_bit_shift(const wgc_map_args *a, const wgc_scalar *in)
{
    const wgc_scalar x = in[0], y = in[1];
    const bool right = ((const wgc_ew_params *)a->ctx)->v[0] != 0;
    wgc_scalar r;
    if (a->kind == WGC_KIND_SIGNED) {
        if (y.i < 0 || y.i >= 8 * (int64_t)a->size)
            r.i = right && x.i < 0 ? -1 : 0;
        else
            r.i = right ? x.i >> y.i : (int64_t)((uint64_t)x.i << y.i);
    } else {
        r.u = y.u >= 8 * a->size ? 0 : right ? x.u >> y.u : x.u << y.u;
    }
    return r;
}

static wgc_scalar twin_prelu(const wgc_map_args *a, const wgc_scalar *in)
{
    wgc_scalar x = in[0], y = in[1];
    if (is_float(a))
        return (wgc_scalar){.f = x.f < 0 ? x.f * y.f : x.f};
    if (a->kind == WGC_KIND_SIGNED)
        return (wgc_scalar){.u = x.i < 0 ? x.u * y.u : x.u}; /* wraps like the narrow C multiply */
    return x;
}

static wgc_scalar twin_where(const wgc_map_args *a, const wgc_scalar *in)
{
    (void)a;
    return in[0].u ? in[1] : in[2];
}

/* x^2 by a constant exponent (LayerNorm's variance, decomposed): the product of two floats
 * is exact in double, so this is pow's correctly rounded result, bit for bit, at a
 * fraction of its cost (PP-OCRv4 rec: 5 Pows 0.28 ms). */
static const char *pow_square(wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *b = wgc_in(g, n, 1);
    bool square = x->dtype == WG_DT_FLOAT && b->data && wgc_numel(&b->shape) == 1 &&
                  wg_dtype_is_float(b->dtype) && wgc_elem_get_f(b->data, b->dtype, 0) == 2.0;
    return square ? "(double)a * (double)a" : NULL;
}

static wg_status mod_check(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!wgc_attr_int(n, "fmod", 0) && wg_dtype_is_float(x->dtype) && wgc_op_version(n) < 28)
        return wgc_error(g, n, WG_ERR_INVALID, "fmod=0 with floating point inputs (before Mod-28)");
    return WG_OK;
}

/* Mod-28's floored modulo of floats (fmod=0; mod_check refuses it before 28). */
static const char *mod_floored_float(wgc_graph *g, const wgc_node *n)
{
    return !wgc_attr_int(n, "fmod", 0) && wg_dtype_is_float(wgc_in(g, n, 0)->dtype)
               ? "wgk__floormod(a, b)"
               : NULL;
}

/* Signed integers shift from BitShift-28 on. */
static bool is_signed_int(int dt)
{
    return dt == WG_DT_INT8 || dt == WG_DT_INT16 || dt == WG_DT_INT32 || dt == WG_DT_INT64;
}

static wg_status bit_shift_check(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (is_signed_int(x->dtype) && wgc_op_version(n) < 28)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input 'X' has dtype %s: signed BitShift is BitShift-28",
                         wg_dtype_name(x->dtype));
    return WG_OK;
}

/* Signed BitShift-28: an arithmetic right shift; shifts out of range give the sign's fill. */
static const char *bit_shift_signed(wgc_graph *g, const wgc_node *n)
{
    if (!is_signed_int(wgc_in(g, n, 0)->dtype))
        return NULL;
    return strcmp(wgc_attr_str(n, "direction", ""), "LEFT")
               ? "(b < 0 || b >= 8 * (int64_t)sizeof(T)) ? (a < 0 ? -1 : 0) : a >> b"
               : "(b < 0 || b >= 8 * (int64_t)sizeof(T)) ? 0 : (T)((uint64_t)a << b)";
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

/* The slope broadcasts to X, never X to the slope's shape. */
static wg_status prelu_check(wgc_graph *g, wgc_node *n)
{
    wg_status st = n->opset < 7 ? legacy_prelu_slope(g, n) : WG_OK;
    const wgc_tensor *x = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    wgc_shape y;
    if (!st && x->has_shape && s->has_shape && wgc_broadcast(&x->shape, &s->shape, &y) &&
        !wgc_shape_eq(&y, &x->shape))
        return wgc_error(g, n, WG_ERR_INVALID, "slope does not broadcast to X");
    return st;
}

#define FLAG_FMOD {"fmod", WGC_EW_FLAG, .i = 0, .texts = {MOD_FLOORED, "b == 0 ? 0 : a % b"}}
#define MOD_FLOORED "b == 0 ? 0 : (a % b != 0 && ((a % b < 0) != (b < 0))) ? a % b + b : a % b"

/* One row per op: input count, dtypes (and an input's own ones), output dtype, attributes,
 * the C expression by the kind of T (float, signed, unsigned), the host twin, the
 * WGK_BIN_* operation of the kernel if any. */
static const wgc_ew_row rows[WGC_OP_COUNT] = {
    [WGC_OP_ADD] = {2, 2, wgc_numeric_dtypes, .expr = {"a + b", "(uint64_t)a + (uint64_t)b"},
                    .fold = twin_add, .kernel = "WGK_BIN_ADD"},
    [WGC_OP_SUB] = {2, 2, wgc_numeric_dtypes, .expr = {"a - b", "(uint64_t)a - (uint64_t)b"},
                    .fold = twin_sub, .kernel = "WGK_BIN_SUB"},
    [WGC_OP_MUL] = {2, 2, wgc_numeric_dtypes, .expr = {"a * b", "(uint64_t)a * (uint64_t)b"},
                    .fold = twin_mul, .kernel = "WGK_BIN_MUL"},
    [WGC_OP_DIV] = {2, 2, wgc_numeric_dtypes, .expr = {"a / b", "b == 0 ? 0 : a / b"},
                    .fold = twin_div, .kernel = "WGK_BIN_DIV"},
    [WGC_OP_POW] = {2, 2, wgc_ew_numbers, .dtypes_in1 = wgc_ew_numbers,
                    .expr = {"wgk_pow((double)a, (double)b)"}, .fold = twin_pow, .special = pow_square},
    [WGC_OP_MOD] = {2, 2, wgc_ew_numbers, .attrs = {FLAG_FMOD},
                    .expr = {"wgk__fmod(a, b)", "{fmod}", "b == 0 ? 0 : a % b"}, .fold = twin_mod,
                    .check = mod_check, .special = mod_floored_float},
    [WGC_OP_EQUAL] = {2, 2, wgc_gen_dtypes, .out = WGC_EW_BOOL, .expr = {"a == b"}, .fold = twin_equal},
    [WGC_OP_LESS] = {2, 2, wgc_ew_numbers, .out = WGC_EW_BOOL, .expr = {"a < b"}, .fold = twin_less},
    [WGC_OP_GREATER] = {2, 2, wgc_ew_numbers, .out = WGC_EW_BOOL, .expr = {"a > b"},
                        .fold = twin_greater},
    [WGC_OP_LESS_OR_EQUAL] = {2, 2, wgc_ew_numbers, .out = WGC_EW_BOOL, .expr = {"a <= b"},
                              .fold = twin_less_or_equal},
    [WGC_OP_GREATER_OR_EQUAL] = {2, 2, wgc_ew_numbers, .out = WGC_EW_BOOL, .expr = {"a >= b"},
                                 .fold = twin_greater_or_equal},
    [WGC_OP_AND] = {2, 2, wgc_ew_bools, .out = WGC_EW_BOOL, .expr = {"a && b"}, .fold = twin_and},
    [WGC_OP_OR] = {2, 2, wgc_ew_bools, .out = WGC_EW_BOOL, .expr = {"a || b"}, .fold = twin_or},
    [WGC_OP_XOR] = {2, 2, wgc_ew_bools, .out = WGC_EW_BOOL, .expr = {"(a != 0) != (b != 0)"},
                    .fold = twin_xor},
    [WGC_OP_BIT_SHIFT] = {2, 2, wgc_ew_ints,
                          .attrs = {{"direction", WGC_EW_CHOICE, .s = "", .values = {"LEFT", "RIGHT"},
                                     .texts = {"<<", ">>"}}},
                          .expr = {"b >= 8 * sizeof(T) ? 0 : (uint64_t)a {direction} b"},
                          .fold = twin_bit_shift, .check = bit_shift_check, .special = bit_shift_signed},
    [WGC_OP_BITWISE_AND] = {2, 2, wgc_ew_ints, .expr = {"a & b"}, .fold = twin_bitwise_and},
    [WGC_OP_BITWISE_OR] = {2, 2, wgc_ew_ints, .expr = {"a | b"}, .fold = twin_bitwise_or},
    [WGC_OP_BITWISE_XOR] = {2, 2, wgc_ew_ints, .expr = {"a ^ b"}, .fold = twin_bitwise_xor},
    [WGC_OP_PRELU] = {2, 2, wgc_ew_numbers, .expr = {"a < 0 ? a * b : a"}, .fold = twin_prelu,
                      .check = prelu_check},
    [WGC_OP_WHERE] = {3, 3, wgc_gen_dtypes, .dtypes_in0 = wgc_ew_bools, .expr = {"a ? b : c"},
                      .fold = twin_where},
};

WGC_EW_FAMILY_HOOKS(binary, rows)

/* The binary kernel where the row and the dtype have one, else the inline loop. */
static wg_status binary_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_ew_row *r = &rows[n->op];
    const wgc_tensor *y = wgc_out(g, n, 0);
    const char *kernel = r->kernel ? wgc_binary_kernel(y->dtype) : NULL;
    if (!kernel)
        return wgc_ew_emit(e, g, n, rows);
    if (n->act != WGC_ACT_NONE && y->dtype != WG_DT_FLOAT)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "fused activation on dtype %s",
                         wg_dtype_name(y->dtype));
    wg_status st = wgc_check_i32_numel(g, n, y);
    if (st)
        return st;
    wgc_emit_binary(e, g, kernel, r->kernel, n->inputs[0], n->inputs[1], n->outputs[0]);
    wgc_emit_fused_act(e, g, n, n->outputs[0]);
    return WG_OK;
}

const wgc_op_def wgc_op_elementwise_binary = {binary_infer, binary_fold, binary_emit, NULL};
