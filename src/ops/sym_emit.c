/*
 * sym_emit.c: the code of nodes with symbolic shapes (sym.h). Sizes, strides and kernel
 * arguments are C expressions of the module's wg_dims[] (wgc_dims_expr), so a node runs
 * over the actual sizes; buffers are planned for the maxima and tensors are dense at their
 * actual sizes (ir/symdim.h). Kernel choice (node->impl, src/select) was made from the
 * maxima. A node this file has no code for is refused, naming it, never run wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_eltwise.h"
#include "../../kernels/include/wgk_pack.h"
#include "../ir/kernels.h"
#include "../ir/symdim.h"
#include "helpers/emit_and_fold.h"
#include "helpers/gemm_call.h"
#include "helpers/index_loops.h"
#include "expand_tile_runtime.h"
#include "pad_runtime.h"
#include "range.h"
#include "resize_runtime.h"
#include "slice_runtime.h"
#include "sym.h"

static const char *numel(wgc_emitter *e, const wgc_tensor *t)
{
    return wgc_dims_expr(e, &t->shape, 0, t->shape.rank);
}

static wg_status no_code(wgc_graph *g, const wgc_node *n, const char *what)
{
    return wgc_sym_refuse(g, n, what);
}

/* Copies the actual bytes of input 0 to output 0 (nothing when the planner put both at
 * one address): Identity, Reshape, Unsqueeze, Squeeze, Flatten. */
static wg_status emit_copy(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    const char *pi = wgc_ptr(e, g, n->inputs[0]), *po = wgc_ptr(e, g, n->outputs[0]);
    if (strcmp(pi, po))
        wgc_emit(e, "memcpy(%s, %s, (size_t)%s * %zu);\n", po, pi, numel(e, y),
                 wg_dtype_size(y->dtype));
    return WG_OK;
}

/* dims and strides (in elements) of operand x read at y's shape, numpy broadcasting; the
 * declarations of three int32_t arrays `dims`, `s<tag>` in the C. */
static void put_strides(wgc_emitter *e, const wgc_shape *x, const wgc_shape *y, const char *name)
{
    wgc_emit(e, "const int32_t %s[%d] = {", name, y->rank ? y->rank : 1);
    for (int d = 0; d < y->rank; d++) {
        int dx = d - (y->rank - x->rank);
        bool bcast = dx < 0 || (x->dims[dx] == 1 && !wgc_dim_is_sym(x, dx));
        wgc_emit(e, "%s%s", d ? ", " : "", bcast ? "0" : wgc_dims_expr(e, x, dx + 1, x->rank));
    }
    wgc_emit(e, "%s};\n", y->rank ? "" : "0");
}

static void put_dims(wgc_emitter *e, const wgc_shape *y, const char *name)
{
    wgc_emit(e, "const int32_t %s[%d] = {", name, y->rank ? y->rank : 1);
    for (int d = 0; d < y->rank; d++)
        wgc_emit(e, "%s%s", d ? ", " : "", wgc_dims_expr(e, y, d, d + 1));
    wgc_emit(e, "%s};\n", y->rank ? "" : "1");
}

static const char *c_type(int dt);
static wg_status emit_broadcast_loop(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *expr);

/* Input k's address for an elementwise node's code; an input holding symbolic values
 * (shape arithmetic, e.g. seq in transformers' batch_index * seq + kv_index) is written
 * at its actual values into an array `symv<k>` local to the node's block, which the code
 * then reads instead (its buffer holds the values at the maxima). Call after the "{". */
static const char *operand(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int k)
{
    const wgc_tensor *x = wgc_in(g, n, k);
    if (!x->symval)
        return wgc_ptr(e, g, n->inputs[k]);
    const int64_t count = wgc_numel(&x->shape);
    /* (float symbolic values: a Cast of shape arithmetic, sym_infer.c; integers as floats) */
    const char *ct = x->dtype == WG_DT_INT32 ? "int32_t" : x->dtype == WG_DT_FLOAT ? "float"
                   : x->dtype == WG_DT_DOUBLE ? "double" : "int64_t";
    wgc_emit(e, "const %s symv%d[%lld] = {", ct, k, (long long)(count ? count : 1));
    for (int64_t i = 0; i < count; i++)
        wgc_emit(e, "%s%s", i ? ", " : "", wgc_dimx_expr(e, &x->symval[i]));
    wgc_emit(e, "%s};\n", count ? "" : "0");
    static const char *const names[] = {"symv0", "symv1", "symv2", "symv3", "symv4", "symv5", "symv6", "symv7"};
    if (k >= 8) { /* callers refuse more first: never generate code that runs */
        wgc_emit(e, "#error symbolic operand %d\n", k);
        return "0";
    }
    return names[k];
}

static wg_status emit_binary(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    int op;
    switch (n->op) {
    case WGC_OP_ADD: op = WGK_BIN_ADD; break;
    case WGC_OP_SUB: op = WGK_BIN_SUB; break;
    case WGC_OP_MUL: op = WGK_BIN_MUL; break;
    case WGC_OP_DIV: op = WGK_BIN_DIV; break;
    default: return no_code(g, n, "no run-time code for this op with symbolic shapes yet");
    }
    const char *fn = y->dtype == WG_DT_FLOAT ? "wgk_f32_binary" : y->dtype == WG_DT_INT32 ? "wgk_i32_binary"
                   : y->dtype == WG_DT_INT64 ? "wgk_i64_binary" : NULL;
    const char *ct = y->dtype == WG_DT_FLOAT ? "float" : y->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    if (!fn && n->act == WGC_ACT_NONE) {
        static const char *const ops[] = {"p0[o0] + p1[o1]", "p0[o0] - p1[o1]", "p0[o0] * p1[o1]", "p0[o0] / p1[o1]"};
        if (y->dtype == WG_DT_DOUBLE || (op != WGK_BIN_DIV && c_type(y->dtype)))
            return emit_broadcast_loop(e, g, n, ops[op]);
    }
    if (!fn || n->act != WGC_ACT_NONE)
        return no_code(g, n, "this dtype or a fused activation");
    wgc_emit(e, "{\n");
    char pa[96], pb[96];
    snprintf(pa, sizeof pa, "%s", operand(e, g, n, 0));
    snprintf(pb, sizeof pb, "%s", operand(e, g, n, 1));
    put_dims(e, &y->shape, "dims");
    put_strides(e, &a->shape, &y->shape, "sa");
    put_strides(e, &b->shape, &y->shape, "sb");
    wgc_emit(e, "%s(%d, (%s *)%s, (const %s *)%s, (const %s *)%s, %d, dims, sa, sb);\n}\n", fn, op, ct,
             wgc_ptr(e, g, n->outputs[0]), ct, pa, ct, pb, y->shape.rank ? y->shape.rank : 1);
    return WG_OK;
}

static const char *c_type(int dt)
{
    switch (dt) {
    case WG_DT_FLOAT: return "float";
    case WG_DT_DOUBLE: return "double";
    case WG_DT_INT8: return "int8_t";
    case WG_DT_UINT8: case WG_DT_BOOL: return "uint8_t";
    case WG_DT_INT16: return "int16_t";
    case WG_DT_UINT16: return "uint16_t";
    case WG_DT_INT32: return "int32_t";
    case WG_DT_UINT32: return "uint32_t";
    case WG_DT_INT64: return "int64_t";
    case WG_DT_UINT64: return "uint64_t";
    default: return NULL;
    }
}

/* y = f(a[, b[, c]]) with numpy broadcasting, over y's actual elements in order: one loop
 * that steps every operand's offset by its stride (0 where it broadcasts). For the ops
 * without a kernel of their own here: comparisons, Where, Pow, And/Or, integer math. */
static wg_status emit_broadcast_loop(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *expr)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    int r = y->shape.rank ? y->shape.rank : 1;
    const char *ty = c_type(y->dtype);
    if (!ty || n->n_inputs > 3 || n->act != WGC_ACT_NONE)
        return no_code(g, n, "this dtype");
    /* Operands of y's own shape or of one element (IsNaN and Where(isnan, 0, softmax) as
     * sdpa exports them): one flat loop, no index stepping. */
    bool flat = true;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        flat &= wgc_numel(&x->shape) == 1 ? !wgc_shape_is_sym(&x->shape)
                                          : wgc_shape_eq(&x->shape, &y->shape) &&
                                                !memcmp(x->shape.sym, y->shape.sym, sizeof x->shape.sym);
    }
    wgc_emit(e, "{\n%s *py = (%s *)%s;\n", ty, ty, wgc_ptr(e, g, n->outputs[0]));
    if (!flat)
        put_dims(e, &y->shape, "yd");
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        const char *tx = c_type(x->dtype);
        if (!tx)
            return no_code(g, n, "this dtype");
        char px[96];
        snprintf(px, sizeof px, "%s", operand(e, g, n, k));
        wgc_emit(e, "const %s *p%d = (const %s *)%s;\n", tx, k, tx, px);
        if (flat) { /* stride 1, or 0 for a one-element operand */
            wgc_emit(e, "const int32_t s%d = %d;\n", k, wgc_numel(&x->shape) == 1 && wgc_numel(&y->shape) != 1 ? 0 : 1);
        } else {
            char name[8];
            snprintf(name, sizeof name, "s%d", k);
            put_strides(e, &x->shape, &y->shape, name);
            wgc_emit(e, "int32_t o%d = 0;\n", k);
        }
    }
    if (flat) {
        wgc_emit(e, "for (int32_t i = 0, n = %s; i < n; i++) {\n", numel(e, y));
        for (int k = 0; k < n->n_inputs; k++)
            wgc_emit(e, "    const int32_t o%d = i * s%d;\n", k, k);
        wgc_emit(e, "    py[i] = %s;\n}\n}\n", expr);
        return WG_OK;
    }
    wgc_emit(e, "int32_t ix[%d] = {0};\nfor (int32_t i = 0, n = %s; i < n; i++) {\n", r, numel(e, y));
    wgc_emit(e, "    py[i] = %s;\n    for (int d = %d; d >= 0; d--) {\n        ix[d]++;\n", expr, r - 1);
    for (int k = 0; k < n->n_inputs; k++)
        wgc_emit(e, "        o%d += s%d[d];\n", k, k);
    wgc_emit(e, "        if (ix[d] < yd[d])\n            break;\n");
    for (int k = 0; k < n->n_inputs; k++)
        wgc_emit(e, "        o%d -= s%d[d] * yd[d];\n", k, k);
    wgc_emit(e, "        ix[d] = 0;\n    }\n}\n}\n");
    return WG_OK;
}

static wg_status emit_elementwise(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0);
    bool f32 = a->dtype == WG_DT_FLOAT;
    switch (n->op) {
    case WGC_OP_EQUAL: return emit_broadcast_loop(e, g, n, "p0[o0] == p1[o1]");
    case WGC_OP_LESS: return emit_broadcast_loop(e, g, n, "p0[o0] < p1[o1]");
    case WGC_OP_GREATER: return emit_broadcast_loop(e, g, n, "p0[o0] > p1[o1]");
    case WGC_OP_LESS_OR_EQUAL: return emit_broadcast_loop(e, g, n, "p0[o0] <= p1[o1]");
    case WGC_OP_GREATER_OR_EQUAL: return emit_broadcast_loop(e, g, n, "p0[o0] >= p1[o1]");
    case WGC_OP_XOR: return emit_broadcast_loop(e, g, n, "(p0[o0] != 0) != (p1[o1] != 0)");
    case WGC_OP_IS_NAN: return emit_broadcast_loop(e, g, n, "p0[o0] != p0[o0]");
    case WGC_OP_NOT: return emit_broadcast_loop(e, g, n, "!p0[o0]");
    case WGC_OP_MOD: /* integers, fmod 0: the remainder takes the divisor's sign */
        if (wg_dtype_is_float(a->dtype) || wgc_attr_int(n, "fmod", 0))
            return no_code(g, n, "Mod of other than integers with fmod 0");
        return emit_broadcast_loop(e, g, n, "p0[o0] % p1[o1] != 0 && (p0[o0] % p1[o1] < 0) != (p1[o1] < 0) ? "
                                            "p0[o0] % p1[o1] + p1[o1] : p0[o0] % p1[o1]");
    case WGC_OP_MAX: case WGC_OP_MIN:
        /* two operands; a NaN either side wins, as elementwise_variadic.c's (numpy's) */
        if (n->n_inputs != 2)
            return no_code(g, n, "Max/Min of other than two operands");
        return emit_broadcast_loop(e, g, n, n->op == WGC_OP_MAX ? "p0[o0] != p0[o0] || p0[o0] > p1[o1] ? p0[o0] : p1[o1]"
                                                                : "p0[o0] != p0[o0] || p0[o0] < p1[o1] ? p0[o0] : p1[o1]");
    case WGC_OP_AND: return emit_broadcast_loop(e, g, n, "p0[o0] && p1[o1]");
    case WGC_OP_OR: return emit_broadcast_loop(e, g, n, "p0[o0] || p1[o1]");
    case WGC_OP_WHERE: return emit_broadcast_loop(e, g, n, "p0[o0] ? p1[o1] : p2[o2]");
    case WGC_OP_POW:
        if (!f32 || wgc_in(g, n, 1)->dtype != WG_DT_FLOAT)
            return no_code(g, n, "Pow of a type other than float32");
        return emit_broadcast_loop(e, g, n, "p1[o1] == 2.0f ? p0[o0] * p0[o0] : wgk_powf(p0[o0], p1[o1])");
    default:
        return no_code(g, n, "no run-time code for this op with symbolic shapes yet");
    }
}

/* ReduceMean / ReduceSum over one axis, every length read at run time: y[o][i] = sum over
 * k of x[o][k][i] (divided by the axis length for the mean), in double. */
static wg_status emit_reduce(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank, a, a1;
    wg_status st = wgc_sym_reduce_axes(g, n, &a, &a1);
    if (st)
        return st;
    if (x->dtype != WG_DT_FLOAT)
        return no_code(g, n, "a dtype other than float32");
    wgc_emit(e, "{\nconst float *px = (const float *)%s;\nfloat *py = (float *)%s;\n"
                "const int32_t outer = %s, len = %s, inner = %s;\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), wgc_dims_expr(e, &x->shape, 0, a),
             wgc_dims_expr(e, &x->shape, a, a1), wgc_dims_expr(e, &x->shape, a1, r));
    wgc_emit(e, "for (int32_t o = 0; o < outer; o++)\n    for (int32_t i = 0; i < inner; i++) {\n"
                "        double s = 0;\n        for (int32_t k = 0; k < len; k++)\n"
                "            s += px[((size_t)o * len + k) * inner + i];\n"
                "        py[(size_t)o * inner + i] = (float)(%s);\n    }\n}\n",
             n->op == WGC_OP_REDUCE_MEAN ? "len ? s / len : 0" : "s");
    return WG_OK;
}

/* ReduceMax / ReduceMin over every axis (sym_infer.c): one element from the actual count;
 * of no elements the identity (-inf / +inf, or the type's extreme), as onnxruntime gives.
 * A NaN is kept only where it comes first (the comparison skips it after). */
static wg_status emit_reduce_all(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const char *ct = c_type(x->dtype);
    const bool max = n->op == WGC_OP_REDUCE_MAX;
    if (!ct || x->dtype == WG_DT_BOOL)
        return no_code(g, n, "this dtype");
    const char *init = wg_dtype_is_float(x->dtype) ? (max ? "-__builtin_inf()" : "__builtin_inf()")
                     : x->dtype == WG_DT_INT64 ? (max ? "INT64_MIN" : "INT64_MAX")
                     : x->dtype == WG_DT_INT32 ? (max ? "INT32_MIN" : "INT32_MAX") : NULL;
    if (!init)
        return no_code(g, n, "this dtype");
    wgc_emit(e, "{\n");
    char src[96];
    snprintf(src, sizeof src, "%s", operand(e, g, n, 0)); /* symbolic values at their actual values */
    wgc_emit(e, "const %s *px = (const %s *)%s;\n%s m = (%s)%s;\n", ct, ct, src, ct, ct, init);
    wgc_emit(e, "for (int32_t i = 0, count = %s; i < count; i++)\n    if (i == 0 || px[i] %s m)\n        m = px[i];\n",
             numel(e, x), max ? ">" : "<");
    wgc_emit(e, "*(%s *)%s = m;\n}\n", ct, wgc_ptr(e, g, n->outputs[0]));
    return WG_OK;
}

/* Split along a fixed axis: each part's rows (the dims before the axis, counted at run
 * time) from its slice of x's rows. */
static wg_status emit_split(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = x->shape.rank;
    int a;
    wg_status st = wgc_read_axis(g, n, 0, r, &a);
    if (st)
        return st;
    const size_t es = wg_dtype_size(x->dtype);
    wgc_emit(e, "{\nconst size_t rows = (size_t)%s, inner = (size_t)%s;\n", wgc_dims_expr(e, &x->shape, 0, a),
             wgc_dims_expr(e, &x->shape, a + 1, r));
    int64_t at = 0;
    for (int i = 0; i < n->n_outputs; i++) {
        const wgc_tensor *yi = wgc_out(g, n, i);
        const int64_t len = yi ? yi->shape.dims[a] : 0;
        if (yi && len)
            wgc_emit(e, "wgk_copy_rows(%s, %lld * inner * %zu, (const char *)%s + %lld * inner * %zu, "
                        "%lld * inner * %zu, rows, %lld * inner * %zu);\n", wgc_ptr(e, g, n->outputs[i]),
                     (long long)len, es, wgc_ptr(e, g, n->inputs[0]), (long long)at, es,
                     (long long)x->shape.dims[a], es, (long long)len, es);
        at += len;
    }
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* CumSum along a constant axis, its length and the others read at run time; exclusive
 * and reverse as the op's own code (along_axis.c) does them, in the element type. */
static wg_status emit_cumsum(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const char *ct = c_type(x->dtype);
    const int r = x->shape.rank;
    int64_t a = wgc_const_int(wgc_in(g, n, 1), 0);
    if (a < 0)
        a += r;
    if (!ct || x->dtype == WG_DT_BOOL || a < 0 || a >= r)
        return no_code(g, n, "this dtype or axis");
    const bool rev = wgc_attr_int(n, "reverse", 0) != 0, ex = wgc_attr_int(n, "exclusive", 0) != 0;
    wgc_emit(e, "{\nconst %s *px = (const %s *)%s;\n%s *py = (%s *)%s;\n", ct, ct, wgc_ptr(e, g, n->inputs[0]), ct, ct,
             wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "const int32_t outer = %s, len = %s, inner = %s;\n", wgc_dims_expr(e, &x->shape, 0, (int)a),
             wgc_dims_expr(e, &x->shape, (int)a, (int)a + 1), wgc_dims_expr(e, &x->shape, (int)a + 1, r));
    wgc_emit(e, "for (int32_t o = 0; o < outer; o++)\n    for (int32_t i = 0; i < inner; i++) {\n"
                "        %s s = 0;\n        for (int32_t j = 0; j < len; j++) {\n"
                "            const size_t at = ((size_t)o * len + (size_t)(%s)) * inner + i;\n", ct,
             rev ? "len - 1 - j" : "j");
    if (ex)
        wgc_emit(e, "            py[at] = s;\n            s += px[at];\n");
    else
        wgc_emit(e, "            s += px[at];\n            py[at] = s;\n");
    wgc_emit(e, "        }\n    }\n}\n");
    return WG_OK;
}

/* Concat: each input's rows (the dims before the axis) into its slice of y's rows. */
static wg_status emit_concat(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, y->shape.rank, &axis);
    if (st)
        return st;
    size_t es = wg_dtype_size(y->dtype);
    char rows[96], ypitch[96];
    snprintf(rows, sizeof rows, "%s", wgc_dims_expr(e, &y->shape, 0, axis));
    snprintf(ypitch, sizeof ypitch, "%s", wgc_dims_expr(e, &y->shape, axis, y->shape.rank));
    wgc_emit(e, "{\n");
    /* a total along the axis that is no sum of the inputs' sizes is a run-time size
     * (sym_infer.c), written here */
    wgc_dimx sum = wgc_dimx_const(0);
    bool summed = true;
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0)
            summed = summed && wgc_dimx_add(sum, wgc_dimx_of(g, &wgc_in(g, n, k)->shape, axis), &sum);
    const int total = summed ? -1 : wgc_shape_first_sym(&y->shape, axis);
    if (total >= 0) {
        wgc_emit(e, "wg_dims[%d] = (int32_t)(0", total);
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0)
                wgc_emit(e, " + %s", wgc_dims_expr(e, &wgc_in(g, n, k)->shape, axis, axis + 1));
        wgc_emit(e, ");\n");
    }
    wgc_emit(e, "char *py = (char *)%s;\nsize_t at = 0;\n", wgc_ptr(e, g, n->outputs[0]));
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        if (!x)
            continue;
        if (x->symval && k >= 8)
            return no_code(g, n, "symbolic values in a ninth or later input");
        /* symbolic values (sym_infer.c lets a 1-D Concat of fixed length take them) are
         * written at their actual values first */
        char src[96];
        snprintf(src, sizeof src, "%s", x->symval ? operand(e, g, n, k) : wgc_ptr(e, g, n->inputs[k]));
        const char *slab = wgc_dims_expr(e, &x->shape, axis, x->shape.rank);
        wgc_emit(e, "wgk_copy_rows(py + at, (size_t)%s * %zu, %s, (size_t)%s * %zu, (size_t)%s, (size_t)%s * %zu);\n"
                    "at += (size_t)%s * %zu;\n", ypitch, es, src, slab, es, rows, slab, es, slab, es);
    }
    wgc_emit(e, "}\n");
    return WG_OK;
}

/* Range(start, limit, delta) of a symbolic length: start + i * delta (start and delta
 * constant, the length symbolic: sym_infer.c). */
static wg_status emit_range(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0), *s0 = wgc_in(g, n, 0), *d = wgc_in(g, n, 2);
    const char *ty = c_type(y->dtype);
    if (!ty || !s0->data || !d->data || s0->symval || d->symval ||
        (y->dtype != WG_DT_INT64 && y->dtype != WG_DT_INT32))
        return no_code(g, n, "a start or delta computed at run time, or a float range");
    wgc_emit(e, "{\n%s *py = (%s *)%s;\nfor (int32_t i = 0, n = %s; i < n; i++) py[i] = (%s)(%lld + (int64_t)i * %lld);\n}\n",
             ty, ty, wgc_ptr(e, g, n->outputs[0]), numel(e, y), ty, (long long)wgc_const_int(s0, 0),
             (long long)wgc_const_int(d, 0));
    return WG_OK;
}

static wg_status emit_unary(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    const char *f;
    switch (n->op) {
    case WGC_OP_ERF: f = "wgk_erff(v)"; break;
    case WGC_OP_TANH: f = "wgk_tanhf(v)"; break;
    case WGC_OP_SQRT: f = "wgk_sqrtf(v)"; break;
    case WGC_OP_RELU: f = "v > 0 ? v : 0"; break;
    case WGC_OP_NEG: f = "-v"; break;
    case WGC_OP_ABS: f = "v < 0 ? -v : v"; break;
    case WGC_OP_RECIPROCAL: f = "1.0f / v"; break;
    case WGC_OP_EXP: f = "wgk_expf(v)"; break;
    case WGC_OP_SIGMOID: f = "1.0f / (1.0f + wgk_expf(-v))"; break;
    case WGC_OP_GELU:
        f = strcmp(wgc_attr_str(n, "approximate", "none"), "tanh")
                ? "0.5f * v * (1.0f + wgk_erff(v * 0.70710678118654752f))"
                : "0.5f * v * (1.0f + wgk_tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)))";
        break;
    default: return no_code(g, n, "no run-time code for this op with symbolic shapes yet");
    }
    if (x->dtype != WG_DT_FLOAT || n->act != WGC_ACT_NONE)
        return no_code(g, n, "a dtype other than float32");
    wgc_emit(e, "{\nconst float *px = (const float *)%s;\nfloat *py = (float *)%s;\n"
                "for (int32_t i = 0, n = %s; i < n; i++) { float v = px[i]; py[i] = %s; }\n}\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]), numel(e, y), f);
    return WG_OK;
}

static wg_status emit_matmul(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *y = wgc_out(g, n, 0);
    const wgc_kernel_info *k = wgc_kernel_get(n->impl.kernel);
    int ra = a->shape.rank, rb = b->shape.rank, ry = y->shape.rank;
    if (!k || a->dtype != WG_DT_FLOAT || n->act != WGC_ACT_NONE || n->residual >= 0 || n->bias >= 0 ||
        n->impl.kernel == WGC_KERNEL_GEMM_PACK_RUN)
        return no_code(g, n, "a fused epilogue or an unselected kernel");
    char M[96], K[96], N[96], rows[96], panel[128], part[64];
    snprintf(K, sizeof K, "%s", wgc_dims_expr(e, &a->shape, ra - 1, ra));
    snprintf(N, sizeof N, "%s", wgc_dims_expr(e, &b->shape, rb - 1, rb));
    const char *pa = wgc_ptr(e, g, n->inputs[0]), *py = wgc_ptr(e, g, n->outputs[0]);
    char bexpr[96];
    if (n->impl.kernel == WGC_KERNEL_GEMM_PACKED_B) {
        if (rb != 2 || !b->data || wgc_shape_is_sym(&b->shape))
            return no_code(g, n, "packed B needs a constant matrix");
        int64_t kk = b->shape.dims[0], nn = b->shape.dims[1];
        size_t nf = wgk_pack_b_size((size_t)kk, (size_t)nn);
        float *packed = malloc(sizeof(float) * (nf ? nf : 1));
        const char *w;
        if (!packed)
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", b->name);
        wgk_pack_b(b->data, (size_t)nn, 1, (size_t)kk, (size_t)nn, packed);
        wg_status st = wgc_weight(e, packed, sizeof(float) * nf, &w);
        free(packed);
        if (st)
            return wgc_error(g, n, st, "out of memory");
        snprintf(bexpr, sizeof bexpr, "%s", w);
    } else {
        snprintf(bexpr, sizeof bexpr, "%s", wgc_ptr(e, g, n->inputs[1]));
    }
    snprintf(panel, sizeof panel, "%d * %s", WGK_GEMM_MR, K);
    if (rb == 2) {
        /* A's batches are consecutive rows of one [batch*M, K] product */
        snprintf(rows, sizeof rows, "%s", wgc_dims_expr(e, &a->shape, 0, ra - 1));
        wgc_emit(e, "%s(&(const wgk_gemm_args){%s.M = %s, .N = %s, .K = %s, .a = %s, .a_panel = %s, "
                    ".a_k = 1, .a_m = %s,\n    .b = %s, .ldb = %s, .c = %s, .ldc = %s, .bias = 0, "
                    ".bias_m = 0, .bias_n = 0, .res = 0, .ldr = %s,\n    .alpha = 1.0f, .beta = 1.0f, "
                    ".min = -__builtin_inff(), .max = __builtin_inff()});\n",
                 k->symbol, wgc_gemm_part(e, n->impl.kernel, part), rows, N, K, pa, panel, K, bexpr, N, py, N, N);
        return WG_OK;
    }
    /* batched: A and B have the same batch dims (no broadcast) */
    if (ra != rb)
        return no_code(g, n, "a batched MatMul whose operands' ranks differ");
    for (int d = 0; d < ra - 2; d++)
        if (a->shape.dims[d] != b->shape.dims[d] || memcmp(a->shape.sym[d], b->shape.sym[d], WGC_MAX_SYMS))
            return no_code(g, n, "a batched MatMul that broadcasts");
    snprintf(M, sizeof M, "%s", wgc_dims_expr(e, &a->shape, ra - 2, ra - 1));
    wgc_emit(e, "{\nconst int32_t M = %s, N = %s, K = %s;\n", M, N, K);
    wgc_emit(e, "for (int32_t i = 0, nb = %s; i < nb; i++)\n", wgc_dims_expr(e, &y->shape, 0, ry - 2));
    wgc_emit(e, "    %s(&(const wgk_gemm_args){%s.M = M, .N = N, .K = K, .a = (const float *)%s + i * M * K, "
                ".a_panel = %d * K, .a_k = 1, .a_m = K,\n    .b = (const float *)%s + i * K * N, .ldb = N, "
                ".c = (float *)%s + i * M * N, .ldc = N, .bias = 0, .bias_m = 0, .bias_n = 0, .res = 0, "
                ".ldr = N,\n    .alpha = 1.0f, .beta = 1.0f, .min = -__builtin_inff(), .max = __builtin_inff()});\n}\n",
             k->symbol, wgc_gemm_part(e, n->impl.kernel, part), pa, WGK_GEMM_MR, bexpr, py);
    return WG_OK;
}

/* Gemm: y = act(alpha * A B' + beta * C), A [M, K] with M symbolic, B constant (packed
 * when the selection chose it), C none, a scalar, [N] or [1, N]. */
static wg_status emit_gemm(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *a = wgc_in(g, n, 0), *b = wgc_in(g, n, 1), *c = n->n_inputs > 2 ? wgc_in(g, n, 2) : NULL;
    wgc_kernel kid = n->impl.kernel;
    const wgc_kernel_info *k = wgc_kernel_get(kid);
    bool tb = wgc_attr_int(n, "transB", 0) != 0;
    int64_t K = a->shape.dims[1], N = tb ? b->shape.dims[0] : b->shape.dims[1];
    if (!k || a->dtype != WG_DT_FLOAT || n->residual >= 0 || n->post_affine || n->aux_affine >= 0 ||
        (n->act != WGC_ACT_NONE && n->act != WGC_ACT_RELU && n->act != WGC_ACT_CLIP) || !b->data)
        return no_code(g, n, "a fused epilogue, a B computed at run time or an unselected kernel");
    int bias_n = 0;
    if (c) {
        int64_t cn = wgc_numel(&c->shape);
        if (cn != 1 && !(cn == N && c->shape.dims[c->shape.rank - 1] == N))
            return no_code(g, n, "a C other than a scalar or one row");
        bias_n = cn == 1 ? 0 : 1;
    }
    const char *bexpr;
    char bbuf[96];
    if (n->impl.kernel == WGC_KERNEL_GEMM_PACKED_B || tb) {
        size_t nf = wgk_pack_b_size((size_t)K, (size_t)N);
        float *packed = malloc(sizeof(float) * (nf ? nf : 1));
        if (!packed)
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory packing '%s'", b->name);
        wgk_pack_b(b->data, tb ? 1 : (size_t)N, tb ? (size_t)K : 1, (size_t)K, (size_t)N, packed);
        wg_status st = wgc_weight(e, packed, sizeof(float) * nf, &bexpr);
        free(packed);
        if (st)
            return wgc_error(g, n, st, "out of memory");
        kid = WGC_KERNEL_GEMM_PACKED_B;
        k = wgc_kernel_get(kid);
    } else {
        snprintf(bbuf, sizeof bbuf, "%s", wgc_ptr(e, g, n->inputs[1]));
        bexpr = bbuf;
    }
    float lo = -__builtin_inff(), hi = __builtin_inff();
    if (n->act == WGC_ACT_RELU)
        lo = 0;
    else if (n->act == WGC_ACT_CLIP) {
        lo = n->act_min;
        hi = n->act_max;
    }
    char part[64];
    wgc_emit(e, "%s(&(const wgk_gemm_args){%s.M = %s, .N = %lld, .K = %lld, .a = %s, .a_panel = %lld, .a_k = 1, "
                ".a_m = %lld,\n    .b = %s, .ldb = %lld, .c = %s, .ldc = %lld, .bias = %s, .bias_m = 0, .bias_n = %d, "
                ".res = 0, .ldr = %lld,\n", k->symbol, wgc_gemm_part(e, kid, part),
             wgc_dims_expr(e, &a->shape, 0, 1), (long long)N, (long long)K,
             wgc_ptr(e, g, n->inputs[0]), (long long)(WGK_GEMM_MR * K), (long long)K, bexpr, (long long)N,
             wgc_ptr(e, g, n->outputs[0]), (long long)N, c ? wgc_ptr(e, g, n->inputs[2]) : "0", bias_n, (long long)N);
    wgc_emit(e, "    .alpha = %s, .beta = %s, .min = %s, .max = %s});\n", wgc_float(e, wgc_attr_float(n, "alpha", 1.0f)),
             wgc_float(e, c ? wgc_attr_float(n, "beta", 1.0f) : 0.0f), wgc_float(e, lo), wgc_float(e, hi));
    return WG_OK;
}

static wg_status emit_transpose(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    size_t cnt;
    const int64_t *perm = wgc_attr_ints(n, "perm", &cnt);
    wgc_emit(e, "{\n");
    put_dims(e, &x->shape, "xd");
    wgc_emit(e, "const int32_t perm[%d] = {", x->shape.rank);
    for (int d = 0; d < x->shape.rank; d++)
        wgc_emit(e, "%s%d", d ? ", " : "", perm ? (int)perm[d] : x->shape.rank - 1 - d);
    wgc_emit(e, "};\nwgk_transpose(%s, %s, %zu, %d, xd, perm);\n}\n", wgc_ptr(e, g, n->outputs[0]),
             wgc_ptr(e, g, n->inputs[0]), wg_dtype_size(x->dtype), x->shape.rank);
    return WG_OK;
}

/* Whether a row-wise node over x (rows: all dims but the last) splits among threads: the
 * rule of the fixed-shape ops (wgc_split_pays) at the maxima; the rows are then divided by
 * their actual count at run time. */
static bool split_rows(const wgc_emitter *e, const wgc_tensor *x)
{
    const int r = x->shape.rank;
    return r >= 1 && wgc_split_pays(e, wgc_numel(&x->shape) / (x->shape.dims[r - 1] ? x->shape.dims[r - 1] : 1),
                                    wgc_numel(&x->shape));
}

static wg_status emit_softmax(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank;
    if (x->dtype != WG_DT_FLOAT || n->act != WGC_ACT_NONE)
        return no_code(g, n, "a dtype other than float32");
    /* opset 13: over the last axis (sym_infer.c); before: over dims [axis, r) flattened */
    int axis = r - 1;
    if (n->opset < 13) {
        const int64_t a = wgc_attr_int(n, "axis", 1);
        axis = (int)(a < 0 ? a + r : a);
    }
    char rows[96], len[96];
    snprintf(rows, sizeof rows, "%s", wgc_dims_expr(e, &x->shape, 0, axis));
    snprintf(len, sizeof len, "%s", wgc_dims_expr(e, &x->shape, axis, r));
    if (split_rows(e, x)) { /* threads: runs of rows, each as on one thread */
        wgc_emit(e, "{\n");
        wgc_emit_part_range_expr(e, rows, 1);
        wgc_emit(e, "wgk_f32_softmax((const float *)%s + (size_t)lo * %s, (float *)%s + (size_t)lo * %s, hi - lo, %s, 1);\n}\n",
                 wgc_ptr(e, g, n->inputs[0]), len, wgc_ptr(e, g, n->outputs[0]), len, len);
        return WG_OK;
    }
    wgc_emit(e, "wgk_f32_softmax(%s, %s, %s, %s, 1);\n", wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]), rows, len);
    return WG_OK;
}

static wg_status emit_layernorm(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank;
    if (x->dtype != WG_DT_FLOAT || wgc_numel(&wgc_in(g, n, 1)->shape) != x->shape.dims[r - 1] ||
        (wgc_in(g, n, 2) && wgc_numel(&wgc_in(g, n, 2)->shape) != x->shape.dims[r - 1]))
        return no_code(g, n, "float32 with a scale (and bias) over the last axis only");
    const long long len = (long long)x->shape.dims[r - 1];
    const char *eps = wgc_float(e, wgc_attr_float(n, "epsilon", 1e-5f));
    const char *sc = wgc_ptr(e, g, n->inputs[1]), *bi = n->inputs[2] >= 0 ? wgc_ptr(e, g, n->inputs[2]) : "0";
    if (split_rows(e, x)) { /* threads: runs of rows, each as on one thread */
        wgc_emit(e, "{\n");
        wgc_emit_part_range_expr(e, wgc_dims_expr(e, &x->shape, 0, r - 1), 1);
        wgc_emit(e, "wgk_f32_layernorm((const float *)%s + (size_t)lo * %lld, %s, %s, (float *)%s + (size_t)lo * %lld, "
                    "hi - lo, %lld, %s, 0, 0);\n}\n", wgc_ptr(e, g, n->inputs[0]), len, sc, bi,
                 wgc_ptr(e, g, n->outputs[0]), len, len, eps);
        return WG_OK;
    }
    wgc_emit(e, "wgk_f32_layernorm(%s, %s, %s, %s, %s, %lld, %s, 0, 0);\n", wgc_ptr(e, g, n->inputs[0]), sc, bi,
             wgc_ptr(e, g, n->outputs[0]), wgc_dims_expr(e, &x->shape, 0, r - 1), len, eps);
    return WG_OK;
}

static wg_status emit_gather(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, x->shape.rank, &axis);
    if (st)
        return st;
    wgc_emit(e, "{\nint status = wgk_gather(%s, %s, %s, %zu, (size_t)%s, (size_t)%s, %s, (size_t)%s * %zu);\n"
                "if (status) return status;\n}\n",
             wgc_ptr(e, g, n->outputs[0]), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]),
             wg_dtype_size(ix->dtype), numel(e, ix), wgc_dims_expr(e, &x->shape, 0, axis),
             wgc_dims_expr(e, &x->shape, axis, axis + 1), wgc_dims_expr(e, &x->shape, axis + 1, x->shape.rank),
             wg_dtype_size(x->dtype));
    return WG_OK;
}

/* GatherElements: y[i] = x[i with its axis coordinate replaced by indices[i]], y at the
 * indices' actual dims (x may be larger on the other axes). One flat loop whose multi-index
 * is divided out of the position: BERT's token-type gather is batch x seq elements. */
/* The walk GatherElements and ScatterElements share at the actual sizes: for each element
 * o of the indices ix (pi), `at` is its position in x with the axis coordinate replaced by
 * the index (checked against the axis's actual length: WGK_ERR_INDEX); then `element`.
 * Closes the block the caller opened. */
static void emit_elements_walk(wgc_emitter *e, const wgc_tensor *x, const wgc_tensor *ix, int axis, const char *element)
{
    const int r = x->shape.rank;
    put_dims(e, &ix->shape, "idims");
    wgc_emit(e, "const int32_t xst[%d] = {", r);
    for (int d = 0; d < r; d++)
        wgc_emit(e, "%s%s", d ? ", " : "", wgc_dims_expr(e, &x->shape, d + 1, r));
    wgc_emit(e, "};\nconst int32_t count = %s, dim = %s;\n", numel(e, ix), wgc_dims_expr(e, &x->shape, axis, axis + 1));
    wgc_emit(e, "for (int32_t o = 0; o < count; o++) {\n    int32_t rem = o, off = 0;\n"
                "    for (int d = %d; d >= 0; d--) {\n        const int32_t c = rem %% idims[d];\n"
                "        rem /= idims[d];\n        if (d != %d)\n            off += c * xst[d];\n    }\n"
                "    int64_t k = (int64_t)pi[o];\n    if (k < 0)\n        k += dim;\n"
                "    if (k < 0 || k >= dim)\n        return WGK_ERR_INDEX;\n"
                "    const int32_t at = off + (int32_t)k * xst[%d];\n%s}\n}\n", r - 1, axis, axis, element);
}

static wg_status emit_gather_elements(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    const int r = x->shape.rank;
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, r, &axis);
    if (st)
        return st;
    const char *ct = wgc_loop_bits(x->dtype), *it = ix->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    wgc_emit(e, "{\ntypedef %s TD;\nconst %s *pi = (const %s *)%s;\nconst TD *px = (const TD *)%s;\n"
                "TD *py = (TD *)%s;\n", ct, it, it, wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]));
    emit_elements_walk(e, x, ix, axis, "py[o] = px[at];\n");
    return WG_OK;
}

/* ScatterElements at the actual sizes: y = data, then each update written at its index
 * (checked against the axis's actual length) by the reduction's statement; Faster R-CNN's
 * MultiScaleRoIAlign puts each level's pooled rois back in order this way. */
static wg_status emit_scatter_elements(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *ix = wgc_in(g, n, 1);
    const int r = x->shape.rank, red = wgc_scatter_reduction(n);
    int axis;
    wg_status st = wgc_read_axis(g, n, 0, r, &axis);
    if (st)
        return st;
    const char *update = wgc_scatter_statement(red);
    if (!update)
        return no_code(g, n, "this reduction");
    const char *ct = red == WGC_SCATTER_NONE ? wgc_loop_bits(x->dtype) : c_type(x->dtype);
    const char *it = ix->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    if (!ct)
        return no_code(g, n, "this dtype");
    wgc_emit(e, "{\ntypedef %s TD;\nconst %s *pi = (const %s *)%s;\nconst TD *px = (const TD *)%s;\n"
                "const TD *pu = (const TD *)%s;\nTD *py = (TD *)%s;\n", ct, it, it, wgc_ptr(e, g, n->inputs[1]),
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[2]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "if (py != px)\n    memcpy(py, px, (size_t)%s * sizeof(TD));\n", numel(e, x));
    char element[256];
    snprintf(element, sizeof element, "TD *q = &py[at];\nTD u = pu[o];\n%s", update);
    emit_elements_walk(e, x, ix, axis, element);
    return WG_OK;
}

static wg_status emit_cast(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    if (x->dtype == WG_DT_FLOAT16 || y->dtype == WG_DT_FLOAT16 || x->dtype == WG_DT_STRING ||
        y->dtype == WG_DT_STRING || wg_dtype_size(x->dtype) == 0 || x->dtype > WG_DT_UINT64 ||
        y->dtype > WG_DT_UINT64)
        return no_code(g, n, "this pair of dtypes");
    wgc_emit(e, "wgk_cast(%s, %d, %s, %d, (size_t)%s);\n", wgc_ptr(e, g, n->outputs[0]), y->dtype,
             wgc_ptr(e, g, n->inputs[0]), x->dtype, numel(e, y));
    return WG_OK;
}

/* y (dense at its actual dims) = x read with element strides: Slice (constant starts and
 * steps) and Expand (stride 0 where x broadcasts). */
static wg_status emit_strided(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    int r = y->shape.rank;
    char base[160];
    snprintf(base, sizeof base, "%s", wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "{\n");
    put_dims(e, &y->shape, "yd");
    if (n->op == WGC_OP_EXPAND) {
        put_strides(e, &x->shape, &y->shape, "xs");
        wgc_emit(e, "wgk_copy_strided(%s, %s, %zu, %d, yd, xs);\n}\n", wgc_ptr(e, g, n->outputs[0]), base,
                 wg_dtype_size(x->dtype), r ? r : 1);
        return WG_OK;
    }
    const wgc_tensor *st = wgc_in(g, n, 1), *ax = wgc_in(g, n, 3), *sp = wgc_in(g, n, 4);
    int64_t start[WG_MAX_RANK] = {0}, step[WG_MAX_RANK];
    for (int d = 0; d < r; d++)
        step[d] = 1;
    for (int64_t i = 0; i < wgc_numel(&st->shape); i++) {
        int64_t a = ax ? wgc_const_int(ax, i) : i;
        a = a < 0 ? a + r : a;
        int64_t s0 = wgc_const_int(st, i), dim = x->shape.dims[a];
        step[a] = sp ? wgc_const_int(sp, i) : 1;
        if (step[a] != 1 && wgc_dim_is_sym(&y->shape, (int)a))
            return no_code(g, n, "a step other than 1 on a symbolic axis");
        if (wgc_dim_is_sym(&x->shape, (int)a) && s0 != 0)
            return no_code(g, n, "a start other than 0 on a symbolic axis");
        s0 = s0 < 0 ? s0 + dim : s0;
        start[a] = s0 < 0 ? 0 : s0 > dim - (step[a] < 0) ? dim - (step[a] < 0) : s0;
    }
    wgc_emit(e, "const int32_t xs[%d] = {", r);
    for (int d = 0; d < r; d++)
        wgc_emit(e, "%s%lld * %s", d ? ", " : "", (long long)step[d], wgc_dims_expr(e, &x->shape, d + 1, r));
    wgc_emit(e, "};\nconst char *px = (const char *)%s + (0", base);
    for (int d = 0; d < r; d++)
        if (start[d])
            wgc_emit(e, " + %lld * %s", (long long)start[d], wgc_dims_expr(e, &x->shape, d + 1, r));
    wgc_emit(e, ") * %zu;\nwgk_copy_strided(%s, px, %zu, %d, yd, xs);\n}\n", wg_dtype_size(x->dtype),
             wgc_ptr(e, g, n->outputs[0]), wg_dtype_size(x->dtype), r);
    return WG_OK;
}

static wg_status emit_constant_of_shape(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0), *shape = wgc_in(g, n, 0);
    if (!shape->data) /* run-time dims (constant_of_shape.c): each checked against its bound */
        for (int d = 0; d < y->shape.rank; d++) {
            char vb[160];
            const int sym = wgc_shape_first_sym(&y->shape, d);
            wgc_emit(e, "{\nconst int64_t v = %s;\nif (v < 0)\n    return WGK_ERR_INDEX;\n"
                        "if (v > %lldLL)\n    return WGK_ERR_SIZE_BOUND;\n",
                     wgc_int_elem_expr(e, g, n->inputs[0], d, vb, sizeof vb), (long long)y->shape.dims[d]);
            if (sym >= 0)
                wgc_emit(e, "wg_dims[%d] = (int32_t)v;\n", sym);
            wgc_emit(e, "}\n");
        }
    const wgc_attr *v = wgc_attr_find(n, "value");
    size_t es = wg_dtype_size(y->dtype);
    if (!es || es > 8 || y->dtype == WG_DT_STRING)
        return no_code(g, n, "this dtype");
    uint64_t bits = 0;
    if (v && v->t && v->t->data)
        memcpy(&bits, v->t->data, es);
    const char *ct = es == 1 ? "uint8_t" : es == 2 ? "uint16_t" : es == 4 ? "uint32_t" : "uint64_t";
    wgc_emit(e, "{\n%s *py = (%s *)%s;\nfor (int32_t i = 0, n = %s; i < n; i++) py[i] = (%s)%lluull;\n}\n",
             ct, ct, wgc_ptr(e, g, n->outputs[0]), numel(e, y), ct, (unsigned long long)bits);
    return WG_OK;
}

/* The ops whose output sizes they decide at run time (run-time symbols, symdim.h): on
 * fixed inputs their own emit hooks write the code and the symbols' values. */
static bool data_dependent_op(const wgc_graph *g, const wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_NON_ZERO: case WGC_OP_COMPRESS: case WGC_OP_TOP_K: case WGC_OP_UNIQUE:
    case WGC_OP_NON_MAX_SUPPRESSION:
        break;
    case WGC_OP_SLICE: /* reads x's sizes at run time itself (slice_runtime.c) */
        return wgc_slice_runs_sizes(g, n);
    case WGC_OP_PAD: /* the same (pad_runtime.c, expand_tile_runtime.c) */
        return wgc_pad_is_runtime(g, n);
    case WGC_OP_EXPAND: case WGC_OP_TILE:
        return wgc_expand_tile_is_runtime(g, n);
    case WGC_OP_RANGE:
        return wgc_range_is_runtime(g, n);
    case WGC_OP_RESIZE: case WGC_OP_UPSAMPLE:
        return wgc_resize_is_runtime(g, n);
    default:
        return false;
    }
    /* these read their inputs' sizes at run time themselves (sym_infer.c took the shapes) */
    if (n->op == WGC_OP_NON_MAX_SUPPRESSION) {
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].symval)
                return false;
        return true;
    }
    if (n->op == WGC_OP_NON_ZERO || n->op == WGC_OP_TOP_K || n->op == WGC_OP_COMPRESS || n->op == WGC_OP_UNIQUE)
        return !g->tensors[n->inputs[0]].symval && (n->op == WGC_OP_NON_ZERO || n->op == WGC_OP_UNIQUE ||
                                                    n->opset < 10 || !g->tensors[n->inputs[1]].symval);
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && (wgc_shape_is_sym(&g->tensors[n->inputs[k]].shape) ||
                                  g->tensors[n->inputs[k]].symval))
            return false;
    return true;
}

wg_status wgc_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (data_dependent_op(g, n))
        return wgc_op_hooks(n->op)->emit(e, g, n);
    for (int k = 0; k < n->n_outputs; k++)
        if (n->outputs[k] >= 0 && g->tensors[n->outputs[k]].symval)
            return no_code(g, n, "symbolic values computed at run time");
    /* sizes are int32 expressions in the C: every tensor stays below 2^31 elements at the maxima */
    for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
        int t = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
        if (t >= 0 && wgc_numel(&g->tensors[t].shape) >= ((int64_t)1 << 31))
            return wgc_error(g, n, WG_ERR_LIMIT, "tensor '%s' has 2^31 or more elements at the maxima",
                             g->tensors[t].name);
    }
    if (wgc_sym_batch_op(g, n))
        return wgc_sym_batch_emit(e, g, n);
    if (wgc_sym_window_op(g, n)) /* their own code, on sizes read from wg_dims (wgc_size_expr) */
        return wgc_op_hooks(n->op)->emit(e, g, n);
    switch (n->op) {
    case WGC_OP_IDENTITY: case WGC_OP_RESHAPE: case WGC_OP_UNSQUEEZE: case WGC_OP_SQUEEZE:
    case WGC_OP_FLATTEN: case WGC_OP_DROPOUT:
        return emit_copy(e, g, n);
    case WGC_OP_ADD: case WGC_OP_SUB: case WGC_OP_MUL: case WGC_OP_DIV:
        return emit_binary(e, g, n);
    case WGC_OP_ERF: case WGC_OP_TANH: case WGC_OP_SQRT: case WGC_OP_RELU: case WGC_OP_NEG:
    case WGC_OP_ABS: case WGC_OP_RECIPROCAL: case WGC_OP_EXP: case WGC_OP_SIGMOID: case WGC_OP_GELU:
        if (n->act == WGC_ACT_NONE && wgc_in(g, n, 0)->dtype == WG_DT_FLOAT)
            return emit_unary(e, g, n);
        break; /* the op's own code at the maxima (below) */
    case WGC_OP_EQUAL: case WGC_OP_LESS: case WGC_OP_GREATER: case WGC_OP_AND: case WGC_OP_OR:
    case WGC_OP_WHERE: case WGC_OP_POW: case WGC_OP_LESS_OR_EQUAL: case WGC_OP_GREATER_OR_EQUAL:
    case WGC_OP_XOR: case WGC_OP_MAX: case WGC_OP_MIN: case WGC_OP_IS_NAN: case WGC_OP_NOT: case WGC_OP_MOD:
        return emit_elementwise(e, g, n);
    case WGC_OP_REDUCE_MEAN: case WGC_OP_REDUCE_SUM: return emit_reduce(e, g, n);
    case WGC_OP_REDUCE_MAX: case WGC_OP_REDUCE_MIN: return emit_reduce_all(e, g, n);
    case WGC_OP_CONCAT: return emit_concat(e, g, n);
    case WGC_OP_RANGE: return emit_range(e, g, n);
    case WGC_OP_MATMUL: return emit_matmul(e, g, n);
    case WGC_OP_GEMM: return emit_gemm(e, g, n);
    case WGC_OP_TRANSPOSE: return emit_transpose(e, g, n);
    case WGC_OP_SOFTMAX: return emit_softmax(e, g, n);
    case WGC_OP_LAYER_NORM: return emit_layernorm(e, g, n);
    case WGC_OP_GATHER: return emit_gather(e, g, n);
    case WGC_OP_CAST: return emit_cast(e, g, n);
    case WGC_OP_SLICE: case WGC_OP_EXPAND: return emit_strided(e, g, n);
    case WGC_OP_GATHER_ND: case WGC_OP_ROI_ALIGN:
        return wgc_op_hooks(n->op)->emit(e, g, n); /* their sizes at run time themselves */
    case WGC_OP_GATHER_ELEMENTS: return emit_gather_elements(e, g, n);
    case WGC_OP_SCATTER_ELEMENTS: return emit_scatter_elements(e, g, n);
    case WGC_OP_SPLIT: return emit_split(e, g, n);
    case WGC_OP_CUM_SUM: return emit_cumsum(e, g, n);
    case WGC_OP_IF: case WGC_OP_BODY_BEGIN: case WGC_OP_BODY_ELSE: case WGC_OP_LOOP: case WGC_OP_SCAN:
        /* sizes at run time themselves (control_flow.c) */
        return wgc_op_hooks(n->op)->emit(e, g, n);
    case WGC_OP_CONSTANT_OF_SHAPE: return emit_constant_of_shape(e, g, n);
    default:
        break;
    }
    if (wgc_sym_runs_at_maxima(g, n))
        return wgc_op_hooks(n->op)->emit(e, g, n);
    return no_code(g, n, "no run-time code for this op with symbolic shapes yet");
}
