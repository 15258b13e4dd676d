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

#include "../../kernels/include/wgk_eltwise.h"
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "helpers/elementwise.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/sym_code.h"
#include "sym.h"
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
 * fraction of its cost (docs/performance.md). */
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

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* Add, Sub, Mul, Div over symbolic shapes: the broadcasting kernel of float32, int32 and
 * int64 with every dim read at run time; the broadcast loop for the other dtypes. */
static wg_status emit_binary(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    int op;
    switch (n->op) {
    case WGC_OP_ADD: op = WGK_BIN_ADD; break;
    case WGC_OP_SUB: op = WGK_BIN_SUB; break;
    case WGC_OP_MUL: op = WGK_BIN_MUL; break;
    case WGC_OP_DIV: op = WGK_BIN_DIV; break;
    default: return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
    }
    const char *fn = y->dtype == WG_DT_FLOAT ? "wgk_f32_binary" : y->dtype == WG_DT_INT32 ? "wgk_i32_binary"
                   : y->dtype == WG_DT_INT64 ? "wgk_i64_binary" : NULL;
    const char *ct = y->dtype == WG_DT_FLOAT ? "float" : y->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    if (!fn && n->act == WGC_ACT_NONE) {
        static const char *const ops[] = {"p0[o0] + p1[o1]", "p0[o0] - p1[o1]", "p0[o0] * p1[o1]", "p0[o0] / p1[o1]"};
        if (y->dtype == WG_DT_DOUBLE || (op != WGK_BIN_DIV && wgc_sym_c_type(y->dtype)))
            return wgc_sym_broadcast_loop(e, g, n, ops[op]);
    }
    if (!fn || n->act != WGC_ACT_NONE)
        return wgc_sym_refuse(g, n, "this dtype or a fused activation");
    wgc_emit(e, "{\n");
    char pa[96], pb[96];
    snprintf(pa, sizeof pa, "%s", wgc_sym_operand(e, g, n, 0));
    snprintf(pb, sizeof pb, "%s", wgc_sym_operand(e, g, n, 1));
    wgc_sym_put_dims(e, &y->shape, "dims");
    wgc_sym_put_strides(e, &a->shape, &y->shape, "sa");
    wgc_sym_put_strides(e, &b->shape, &y->shape, "sb");
    wgc_emit(e, "%s(%d, (%s *)%s, (const %s *)%s, (const %s *)%s, %d, dims, sa, sb);\n}\n", fn, op, ct,
             wgc_ptr(e, g, n->outputs[0]), ct, pa, ct, pb, y->shape.rank ? y->shape.rank : 1);
    return WG_OK;
}

/* The code over symbolic shapes: Add, Sub, Mul, Div through emit_binary, the others of
 * this file through the broadcast loop (helpers/sym_code.h). */
static wg_status binary_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0);
    bool f32 = a->dtype == WG_DT_FLOAT;
    switch (n->op) {
    case WGC_OP_ADD: case WGC_OP_SUB: case WGC_OP_MUL: case WGC_OP_DIV:
        return emit_binary(e, g, n);
    case WGC_OP_EQUAL: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] == p1[o1]");
    case WGC_OP_LESS: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] < p1[o1]");
    case WGC_OP_GREATER: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] > p1[o1]");
    case WGC_OP_LESS_OR_EQUAL: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] <= p1[o1]");
    case WGC_OP_GREATER_OR_EQUAL: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] >= p1[o1]");
    case WGC_OP_XOR: return wgc_sym_broadcast_loop(e, g, n, "(p0[o0] != 0) != (p1[o1] != 0)");
    case WGC_OP_MOD: /* integers, fmod 0: the remainder takes the divisor's sign */
        if (wg_dtype_is_float(a->dtype) || wgc_attr_int(n, "fmod", 0))
            return wgc_sym_refuse(g, n, "Mod of other than integers with fmod 0");
        return wgc_sym_broadcast_loop(e, g, n, "p0[o0] % p1[o1] != 0 && (p0[o0] % p1[o1] < 0) != (p1[o1] < 0) ? "
                                               "p0[o0] % p1[o1] + p1[o1] : p0[o0] % p1[o1]");
    case WGC_OP_AND: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] && p1[o1]");
    case WGC_OP_OR: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] || p1[o1]");
    case WGC_OP_WHERE: return wgc_sym_broadcast_loop(e, g, n, "p0[o0] ? p1[o1] : p2[o2]");
    case WGC_OP_POW:
        if (!f32 || wgc_in(g, n, 1)->dtype != WG_DT_FLOAT)
            return wgc_sym_refuse(g, n, "Pow of a type other than float32");
        return wgc_sym_broadcast_loop(e, g, n, "p1[o1] == 2.0f ? p0[o0] * p0[o0] : wgk_powf(p0[o0], p1[o1])");
    default:
        return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
    }
}

/* Is every element of Equal(a, b) over symbolic values decided for all sizes in range?
 * Two equal expressions are; so are an expression and a constant outside its range
 * (Equal(batch, -1) in TorchScript's expand(batch, -1)). Then the constant folded at the
 * maxima is the answer at every size; otherwise the Equal runs (binary_sym_emit). */
static bool equal_decided(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = &g->tensors[n->inputs[0]], *b = &g->tensors[n->inputs[1]];
    const wgc_tensor *y = &g->tensors[n->outputs[0]];
    int64_t na = wgc_numel(&a->shape), nb = wgc_numel(&b->shape), count = wgc_numel(&y->shape);
    if ((na != count && na != 1) || (nb != count && nb != 1))
        return false;
    for (int64_t i = 0; i < count; i++) {
        wgc_dimx p = wgc_symval_at(a, na == 1 ? 0 : i), q = wgc_symval_at(b, nb == 1 ? 0 : i);
        bool decided = wgc_dimx_eq(&p, &q) ||
                       (wgc_dimx_is_const(&q) && (q.c < wgc_dimx_min(g, &p) || q.c > wgc_dimx_max(g, &p))) ||
                       (wgc_dimx_is_const(&p) && (p.c < wgc_dimx_min(g, &q) || p.c > wgc_dimx_max(g, &q)));
        if (!decided)
            return false;
    }
    return true;
}

/* Does every element of Add, Sub, Mul or Div over symbolic values come out a product of
 * the symbols, or a linear sum of them (seq + 1, past + seq: a sum symbol)? One that does
 * not (seq / 2, batch * seq + 1) makes the node run in the module
 * instead, its values bounded by binary_sym_bounds: what the sizes it decides are planned
 * for. */
static bool arithmetic_folds(const wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = &g->tensors[n->inputs[0]], *b = &g->tensors[n->inputs[1]];
    const int64_t na = wgc_numel(&a->shape), nb = wgc_numel(&b->shape), count = na > nb ? na : nb;
    if ((na != count && na != 1) || (nb != count && nb != 1))
        return true; /* not elementwise over vectors: binary_sym_values refuses it, naming the node */
    /* float symbolic values (a Cast of shape arithmetic) fold while they stay whole numbers;
     * times a fraction (a mean's 1 / len) they are computed where the node runs */
    for (int k = 0; k < 2 && wg_dtype_is_float(a->dtype); k++) {
        const wgc_tensor *t = k ? b : a;
        for (int64_t i = 0; !t->symval && i < (k ? nb : na); i++) {
            const double f = wgc_elem_get_f(t->data, t->dtype, i);
            if (f != (double)(int64_t)f)
                return false;
        }
    }
    for (int64_t i = 0; i < count; i++) {
        wgc_dimx p = wgc_symval_at(a, na == 1 ? 0 : i), q = wgc_symval_at(b, nb == 1 ? 0 : i), r;
        if (n->op == WGC_OP_SUB)
            q.c = -q.c;
        if ((n->op == WGC_OP_DIV && !wgc_dimx_div(p, q, &r)) ||
            ((n->op == WGC_OP_ADD || n->op == WGC_OP_SUB) && !wgc_dimx_add_ok(g, p, q)))
            return false;
    }
    return true;
}

/* Shape arithmetic: Add, Sub, Mul, Div of symbolic values whose results are products of
 * the symbols, an Equal decided at every size, and a constant Where choosing among
 * symbolic values. */
static wgc_sym_folds binary_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return false;
    switch (n->op) {
    case WGC_OP_MUL: case WGC_OP_DIV: case WGC_OP_ADD: case WGC_OP_SUB:
        return wgc_sym_has_symval_input(g, n) && arithmetic_folds(g, n);
    case WGC_OP_EQUAL: /* decided at every size: the constant folded at the maxima stands */
        return wgc_sym_has_symval_input(g, n) && equal_decided(g, n) ? WGC_SYM_DECIDED : WGC_SYM_NO_FOLD;
    case WGC_OP_WHERE: /* a constant condition choosing among symbolic values */
        return !g->tensors[n->inputs[0]].symval &&
               (g->tensors[n->inputs[1]].symval || g->tensors[n->inputs[2]].symval);
    default:
        return false;
    }
}

static wg_status binary_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const wgc_tensor *b = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    switch (n->op) {
    case WGC_OP_MUL: case WGC_OP_DIV: case WGC_OP_ADD: case WGC_OP_SUB: {
        int64_t na = wgc_numel(&x->shape), nb = wgc_numel(&b->shape);
        if ((na != count && na != 1) || (nb != count && nb != 1))
            return wgc_sym_refuse(g, n, NULL);
        for (int64_t i = 0; i < count; i++) {
            wgc_dimx p = wgc_symval_at(x, na == 1 ? 0 : i), q = wgc_symval_at(b, nb == 1 ? 0 : i);
            bool ok = true;
            if (n->op == WGC_OP_MUL)
                v[i] = wgc_dimx_mul(p, q);
            else if (n->op == WGC_OP_DIV)
                ok = wgc_dimx_div(p, q, &v[i]);
            else {
                if (n->op == WGC_OP_SUB)
                    q.c = -q.c;
                ok = wgc_dimx_add_sym(g, n, p, q, &v[i]);
            }
            if (!ok && g->n_syms == WGC_MAX_SYMS)
                return WG_ERR_LIMIT; /* wgc_dimx_add_sym's message */
            if (!ok)
                return wgc_sym_refuse(g, n, "the result is neither a product of the symbols nor a sum of them");
        }
        return WG_OK;
    }
    case WGC_OP_WHERE: {
        wg_status st = wgc_sym_int_values_only(g, n);
        if (st)
            return st;
        const wgc_tensor *c = x, *f = wgc_in(g, n, 2);
        int64_t nc = wgc_numel(&c->shape), nt = wgc_numel(&b->shape), nf = wgc_numel(&f->shape);
        if ((nc != count && nc != 1) || (nt != count && nt != 1) || (nf != count && nf != 1))
            return wgc_sym_refuse(g, n, NULL);
        for (int64_t i = 0; i < count; i++)
            v[i] = wgc_const_int(c, nc == 1 ? 0 : i) ? wgc_symval_at(b, nt == 1 ? 0 : i)
                                                     : wgc_symval_at(f, nf == 1 ? 0 : i);
        return WG_OK;
    }
    default: {
        wg_status st = wgc_sym_int_values_only(g, n);
        if (st)
            return st;
        return wgc_sym_refuse(g, n, NULL);
    }
    }
}

/* Where's bounds: either branch's value. */
static bool where_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                         wgc_vrange *out, int64_t count)
{
    const wgc_tensor *pt = wgc_in(g, n, 1), *pf = wgc_in(g, n, 2);
    for (int64_t i = 0; i < count; i++) {
        wgc_vrange t, f;
        bool ok;
        if (count == 1)
            ok = wgc_vrange_union(g, pt, &t) && wgc_vrange_union(g, pf, &f);
        else
            ok = wgc_vrange_at(g, pt, wgc_vrange_broadcast_index(&y->shape, &pt->shape, i), &t) &&
                 wgc_vrange_at(g, pf, wgc_vrange_broadcast_index(&y->shape, &pf->shape, i), &f);
        if (!ok)
            return false;
        out[i].lo = t.lo < f.lo ? t.lo : f.lo;
        out[i].hi = t.hi > f.hi ? t.hi : f.hi;
    }
    return true;
}

/* The interval arithmetic of the integer ops that compute shapes (Mod: integer Mod only). */
static const struct {
    wgc_op op;
    wgc_vrange_fn fn;
} bounds_fn[] = {
    {WGC_OP_ADD, wgc_vrange_add}, {WGC_OP_SUB, wgc_vrange_sub}, {WGC_OP_MUL, wgc_vrange_mul},
    {WGC_OP_DIV, wgc_vrange_div}, {WGC_OP_MOD, wgc_vrange_mod},
};

/* Bounds of integer values computed at run time (ir/valrange.h): Add, Sub, Mul, Div and
 * Mod by interval arithmetic over broadcast operands, Where either branch's. */
static bool binary_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                              wgc_vrange *out, int64_t count)
{
    if (n->op == WGC_OP_WHERE)
        return where_bounds(g, n, y, out, count);
    if (n->op == WGC_OP_MOD && wgc_attr_int(n, "fmod", 0))
        return false;
    for (size_t k = 0; k < sizeof bounds_fn / sizeof bounds_fn[0]; k++)
        if (bounds_fn[k].op == n->op)
            return n->n_inputs == 2 &&
                   wgc_vrange_elementwise(g, n, y, 0, 2, bounds_fn[k].fn, out, count);
    return false;
}

const wgc_op_def wgc_op_elementwise_binary = {
    .infer = binary_infer,
    .fold = binary_fold,
    .emit = binary_emit,
    .sym = {.emit = binary_sym_emit,
            .foldable = binary_sym_foldable,
            .values = binary_sym_values,
            .bounds = binary_sym_bounds},
};
