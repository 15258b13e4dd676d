/*
 * elementwise_variadic.c: the broadcasting elementwise ops of any number of inputs, one row
 * each (helpers/elementwise.h): Sum (a chain of binary kernel calls for float32, int32 and
 * int64), Min, Max and Mean (one inline loop over up to four inputs, every dtype they take).
 */
#include <stdio.h>
#include <string.h>

#include "../ir/valrange.h"
#include "helpers/elementwise.h"
#include "helpers/inline_loops.h"
#include "helpers/sym_code.h"
#include "sym.h"

/* Sum adds in input order and rounds to the dtype after each input, as the kernel chain
 * does (y = in0 + in1, y += in2, ...); it starts from 0, so -0 alone sums to +0. */
static wgc_scalar twin_sum(const wgc_map_args *a, const wgc_scalar *in)
{
    wgc_scalar r = {0};
    for (int i = 0; i < a->n->n_inputs; i++) {
        if (a->kind == WGC_KIND_FLOAT)
            r.f = wgc_round_to(a->dtype, r.f + in[i].f);
        else
            r.u += in[i].u;
    }
    return r;
}

/* Min and Max propagate NaN (numpy minimum/maximum): keep r when it is NaN or wins. */
static wgc_scalar extreme(const wgc_map_args *a, const wgc_scalar *in, int wins)
{
    wgc_scalar r = in[0];
    for (int i = 1; i < a->n->n_inputs; i++) {
        bool keep = (a->kind == WGC_KIND_FLOAT && r.f != r.f) ||
                    wgc_ew_compare(a->kind, r, in[i]) == wins;
        if (!keep)
            r = in[i];
    }
    return r;
}

static wgc_scalar twin_min(const wgc_map_args *a, const wgc_scalar *in)
{
    return extreme(a, in, -1);
}

static wgc_scalar twin_max(const wgc_map_args *a, const wgc_scalar *in)
{
    return extreme(a, in, 1);
}

static wgc_scalar twin_mean(const wgc_map_args *a, const wgc_scalar *in)
{
    double sum = in[0].f;
    for (int i = 1; i < a->n->n_inputs; i++)
        sum += in[i].f;
    return (wgc_scalar){.f = sum / a->n->n_inputs};
}

/* One row per op: input count, dtypes, how the expression grows with the inputs, the host
 * twin, the WGK_BIN_* operation of the kernel if any. */
static const wgc_ew_row rows[WGC_OP_COUNT] = {
    [WGC_OP_SUM] = {1, 1 << 20, wgc_numeric_dtypes, .fold = twin_sum, .kernel = "WGK_BIN_ADD"},
    [WGC_OP_MIN] = {1, 4, wgc_ew_numbers, .step = "wgk__min0({acc}, {x})",
                    .helper = "wgk__min0(p, q) (((p) != (p) || (p) < (q)) ? (p) : (q))", .fold = twin_min},
    [WGC_OP_MAX] = {1, 4, wgc_ew_numbers, .step = "wgk__max0({acc}, {x})",
                    .helper = "wgk__max0(p, q) (((p) != (p) || (p) > (q)) ? (p) : (q))", .fold = twin_max},
    [WGC_OP_MEAN] = {1, 4, wgc_ew_floats, .step = "{acc} + {x}", .finish = "({acc}) / (T){n}",
                     .fold = twin_mean},
};

WGC_EW_FAMILY_HOOKS(variadic, rows)

/* Sum: y = in0 + in1, then y += in_i, through the binary kernel. */
static wg_status sum_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n, const char *kernel,
                          const char *op)
{
    int yt = n->outputs[0];
    wg_status st = wgc_check_i32_numel(g, n, wgc_out(g, n, 0));
    if (st)
        return st;
    if (n->n_inputs == 1) {
        wgc_emit_copy(e, g, n->inputs[0], yt);
    } else {
        /* y is written by the first step, so an input that shares y's address must be the
         * first operand of that step; no other input may share it. */
        char ybuf[64];
        snprintf(ybuf, sizeof ybuf, "%s", wgc_ptr(e, g, yt));
        int first = 0, n_alias = 0;
        for (int i = 0; i < n->n_inputs; i++)
            if (!strcmp(wgc_ptr(e, g, n->inputs[i]), ybuf) && n->inputs[i] != n->inputs[first]) {
                first = i;
                n_alias++;
            }
        if (n_alias > 1)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED, "several inputs share the output's memory");
        int second = first == 0 ? 1 : 0;
        wgc_emit_binary(e, g, kernel, op, n->inputs[first], n->inputs[second], yt);
        for (int i = 0; i < n->n_inputs; i++)
            if (i != first && i != second)
                wgc_emit_binary(e, g, kernel, op, yt, n->inputs[i], yt);
    }
    if (n->act != WGC_ACT_NONE && wgc_out(g, n, 0)->dtype == WG_DT_FLOAT)
        wgc_emit_fused_act(e, g, n, yt);
    return WG_OK;
}

/* The kernel chain where the row and the dtype have one, else the inline loop. */
static wg_status variadic_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_ew_row *r = &rows[n->op];
    const char *kernel = r->kernel ? wgc_binary_kernel(wgc_out(g, n, 0)->dtype) : NULL;
    if (!kernel)
        return wgc_ew_emit(e, g, n, rows);
    return sum_emit(e, g, n, kernel, r->kernel);
}

/* The code over symbolic shapes: Max and Min of two operands through the broadcast loop
 * (helpers/sym_code.h). */
static wg_status variadic_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    switch (n->op) {
    case WGC_OP_MAX: case WGC_OP_MIN:
        /* two operands; a NaN either side wins, as this file's (numpy's) */
        if (n->n_inputs != 2)
            return wgc_sym_refuse(g, n, "Max/Min of other than two operands");
        return wgc_sym_broadcast_loop(e, g, n,
                                      n->op == WGC_OP_MAX ? "p0[o0] != p0[o0] || p0[o0] > p1[o1] ? p0[o0] : p1[o1]"
                                                          : "p0[o0] != p0[o0] || p0[o0] < p1[o1] ? p0[o0] : p1[o1]");
    default:
        return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
    }
}

/* Bounds of integer values computed at run time (ir/valrange.h): Sum, Min and Max by
 * interval arithmetic over all their broadcast inputs. */
static bool variadic_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                                wgc_vrange *out, int64_t count)
{
    const wgc_vrange_fn fn = n->op == WGC_OP_SUM   ? wgc_vrange_add
                             : n->op == WGC_OP_MIN ? wgc_vrange_min
                             : n->op == WGC_OP_MAX ? wgc_vrange_max
                                                   : NULL;
    return fn && wgc_vrange_elementwise(g, n, y, 0, n->n_inputs, fn, out, count);
}

const wgc_op_def wgc_op_elementwise_variadic = {
    .infer = variadic_infer,
    .fold = variadic_fold,
    .emit = variadic_emit,
    .sym = {.emit = variadic_sym_emit, .bounds = variadic_sym_bounds},
};
