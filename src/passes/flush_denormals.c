/*
 * flush_denormals.c: subnormal float32 weights of the multiply-accumulate ops (Conv,
 * ConvTranspose, Gemm, MatMul, RNN/GRU/LSTM) become signed zeros.
 *
 * Why: x86 handles a subnormal operand of a multiply or add in a microcode assist, ~100
 * times slower than a normal one, and WebAssembly cannot turn on flush-to-zero. Pruned
 * weights that decayed below 2^-126 are common: PP-OCRv4's recognizer has 31,000 of
 * them in its squeeze-and-excite convs, which made four 1x1 convs on a 1x1 image many
 * times slower (docs/performance.md). What a flushed weight contributes is below
 * 2^-126 * |x| per product, invisible next to any normal partial sum (the fp32 tolerance
 * is 1e-5 absolute). The flushed copy is a new constant, so other readers of the
 * original tensor (and the read-only mapped file) keep the exact values.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static bool is_mac_op(wgc_op op)
{
    return op == WGC_OP_CONV || op == WGC_OP_CONV_TRANSPOSE || op == WGC_OP_GEMM ||
           op == WGC_OP_MATMUL || op == WGC_OP_RNN || op == WGC_OP_GRU || op == WGC_OP_LSTM;
}

static bool is_subnormal(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return (u & 0x7f800000u) == 0 && (u & 0x007fffffu) != 0;
}

static bool has_subnormals(const float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (is_subnormal(x[i]))
            return true;
    return false;
}

/* A flushed copy of src, a float32 constant holding subnormals; its index, or -1 when
 * out of memory. */
static int flushed_copy(wgc_graph *g, int src)
{
    const int64_t n = wgc_numel(&g->tensors[src].shape);
    float *copy = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!copy)
        return -1;
    const float *x = g->tensors[src].data;
    for (int64_t k = 0; k < n; k++)
        copy[k] = is_subnormal(x[k]) ? (x[k] < 0 ? -0.0f : 0.0f) : x[k];
    char name[512];
    snprintf(name, sizeof name, "%s/flushed", g->tensors[src].name);
    const int t = wgc_tensor_add(g, name); /* may move g->tensors */
    if (t < 0) {
        free(copy);
        return -1;
    }
    const wgc_shape shape = g->tensors[src].shape;
    wgc_tensor_set_const(g, t, WG_DT_FLOAT, &shape, copy);
    return t;
}

enum { UNSEEN = -1, CLEAN = -2 }; /* states of copy_of[] besides a copy's index */

wg_status wgc_pass_flush_denormals(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    /* Per source tensor: UNSEEN, CLEAN (no subnormals) or its flushed copy, so that a
     * weight read by several nodes is scanned and copied once. Tensors added here are
     * copies, never sources, so the table covers every source. */
    const int n_src = g->n_tensors;
    int *copy_of = malloc(sizeof(int) * (size_t)(n_src > 0 ? n_src : 1));
    if (!copy_of)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory flushing subnormal weights");
    for (int t = 0; t < n_src; t++)
        copy_of[t] = UNSEEN;
    wg_status st = WG_OK;
    for (int ni = 0; ni < g->n_nodes && !st; ni++) {
        if (g->nodes[ni].dead || !is_mac_op(g->nodes[ni].op))
            continue;
        for (int i = 0; i < g->nodes[ni].n_inputs; i++) {
            const int t = g->nodes[ni].inputs[i];
            if (t < 0 || t >= n_src || !g->tensors[t].data || g->tensors[t].dtype != WG_DT_FLOAT)
                continue;
            if (copy_of[t] == UNSEEN) {
                copy_of[t] = CLEAN;
                if (has_subnormals(g->tensors[t].data, wgc_numel(&g->tensors[t].shape)) &&
                    (copy_of[t] = flushed_copy(g, t)) < 0) {
                    st = wgc_error(g, &g->nodes[ni], WG_ERR_NOMEM, "out of memory flushing subnormal weights");
                    break;
                }
            }
            if (copy_of[t] >= 0)
                g->nodes[ni].inputs[i] = copy_of[t];
        }
    }
    free(copy_of);
    return st;
}
