/* variadic.c: Sum of any number of inputs with numpy broadcasting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "lower.h"

/* From binary.c. */
void wgc_fold_binary(wgc_op op, const wgc_tensor *a, const wgc_tensor *b, const wgc_shape *ys,
                     int dtype, void *y);
const char *wgc_binary_kernel(int dtype);
void wgc_emit_binary(wgc_emitter *e, wgc_graph *g, const char *kernel, const char *op, int a,
                     int b, int y);

static wg_status variadic_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 1, 1 << 20, 1, 1);
    if (st)
        return st;
    wgc_shape y = {0};
    int dtype = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if ((st = wgc_check_input(g, n, i, wgc_numeric_dtypes)))
            return st;
        const wgc_tensor *t = wgc_in(g, n, i);
        if (i == 0) {
            dtype = t->dtype;
            y = t->shape;
            continue;
        }
        if (t->dtype != dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "input %d has dtype %s, input 0 has %s", i,
                             wg_dtype_name(t->dtype), wg_dtype_name(dtype));
        wgc_shape out;
        if (!wgc_broadcast(&y, &t->shape, &out)) {
            char s1[96], s2[96];
            return wgc_error(g, n, WG_ERR_INVALID, "input %d shape %s does not broadcast with %s",
                             i, wgc_shape_str(&t->shape, s1, sizeof s1),
                             wgc_shape_str(&y, s2, sizeof s2));
        }
        y = out;
    }
    wgc_set_output(g, n, 0, dtype, &y);
    return WG_OK;
}

static wg_status variadic_fold(wgc_graph *g, wgc_node *n)
{
    if (!wgc_inputs_const(g, n) || n->act != WGC_ACT_NONE)
        return WG_ERR_UNSUPPORTED;
    wgc_tensor *y = wgc_out(g, n, 0);
    void *acc = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    void *tmp = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!acc || !tmp) {
        free(acc);
        free(tmp);
        return WG_ERR_NOMEM;
    }
    /* acc = 0 (calloc), then acc = acc + input_i, broadcasting each input. */
    wgc_tensor accv = {.dtype = y->dtype, .shape = y->shape, .has_shape = true, .data = acc};
    for (int i = 0; i < n->n_inputs; i++) {
        wgc_fold_binary(WGC_OP_ADD, &accv, wgc_in(g, n, i), &y->shape, y->dtype, tmp);
        void *t = acc;
        acc = tmp;
        tmp = t;
        accv.data = acc;
    }
    free(tmp);
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, acc);
    return WG_OK;
}

static wg_status variadic_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_tensor *y = wgc_out(g, n, 0);
    int yt = n->outputs[0];
    const char *kernel = wgc_binary_kernel(y->dtype);
    if (!kernel)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "dtype %s is only supported when the inputs are constant",
                         wg_dtype_name(y->dtype));
    wg_status st = wgc_check_i32_numel(g, n, y);
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
        wgc_emit_binary(e, g, kernel, "WGK_BIN_ADD", n->inputs[first], n->inputs[second], yt);
        for (int i = 0; i < n->n_inputs; i++)
            if (i != first && i != second)
                wgc_emit_binary(e, g, kernel, "WGK_BIN_ADD", yt, n->inputs[i], yt);
    }
    if (n->act != WGC_ACT_NONE && y->dtype == WG_DT_FLOAT)
        wgc_emit_fused_act(e, g, n, yt);
    return WG_OK;
}

const wgc_op_def wgc_op_variadic = {variadic_infer, variadic_fold, variadic_emit, NULL};
