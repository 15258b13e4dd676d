/*
 * match_qdq.c: the QDQ form of a quantized convolution, as onnxruntime's quantize_static
 * writes it,
 *     QuantizeLinear(Conv(DequantizeLinear(xq), DequantizeLinear(wq)[, DequantizeLinear(bq)]))
 * becomes one QLinearConv(xq, wq[, bq]) on the int8 kernels, instead of dequantizing into
 * a float32 convolution and quantizing its output again (onnxruntime fuses the same way).
 * Both compute the same sum of products (xq - xz)(wq - wz) scaled by xs ws; the float
 * path adds the dequantized products in float32, QLinearConv adds them exactly in int32
 * and scales once, so the two differ by float32 rounding before the final rounding to
 * an integer: an output may move by one quantization step, as between onnxruntime and
 * the float reference.
 *
 * Applies when: the Conv is 2-D with one group and either pointwise (1x1, stride 1, no
 * padding), the layers the int8 pointwise kernel serves at about twice the float32
 * GEMM's rate (kernels/conv/q8-conv1x1-pixlanes.c), or 3x3 with stride 1 (any dilation
 * and padding) and at least 4 input channels, which the exact int8 Winograd
 * serves (kernels/include/wgk_qwinograd.h: 16 multiplies per 2x2 tile on the int8
 * instruction rate, against float32 F(4x4)'s 36 per 4x4 tile at half that rate, and no
 * float tensor between the DQ and the Q). Other convolutions stay float32: a strided 3x3
 * on the float32 stride-2 Winograd (not yet measured against the int8 one inside QDQ
 * models), a depthwise one on the float32 depthwise kernel, as fast as the int8 one (the
 * measurements: docs/performance.md "Quantized models"). And x comes from a live DequantizeLinear of a uint8/int8 tensor with
 * a scalar scale and zero point; the weight was a DequantizeLinear of a constant int8/
 * uint8 tensor with a scalar or per-output-channel (axis 0) scale and zero point (folded
 * by now: its node is dead, its inputs still there); the bias, if any, a DequantizeLinear
 * of a constant int32 tensor with zero point 0 whose scale is xs * ws (per channel),
 * which is QLinearConv's bias scale, to float32 rounding, or a float32 bias of zeros
 * (dropped: exact); and the Conv's output is read
 * only by a QuantizeLinear with a scalar scale and zero point and no output_dtype of its
 * own. The Conv node becomes the QLinearConv and writes the QuantizeLinear's output; the
 * DequantizeLinear of x stays for its other readers, if any (remove-dead drops it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* A constant holding one element, of a dtype in the 0-terminated list ok. */
static bool const_scalar(const wgc_tensor *t, const int *ok)
{
    if (!t || !t->data || wgc_numel(&t->shape) != 1 || t->shape.rank > 1)
        return false;
    for (; *ok; ok++)
        if (t->dtype == *ok)
            return true;
    return false;
}

static const int F32[] = {WG_DT_FLOAT, 0}, Q8[] = {WG_DT_UINT8, WG_DT_INT8, 0};

/* A QuantizeLinear/DequantizeLinear without blocked or per-axis options beyond what the
 * caller checks, of opset-10+ form (scale and zero point inputs). */
static bool plain_q(const wgc_node *n)
{
    return n->n_inputs == 3 && n->n_outputs == 1 && wgc_attr_int(n, "block_size", 0) == 0 &&
           !wgc_attr_find(n, "output_dtype") && wgc_attr_int(n, "saturate", 1) == 1;
}

/* The DequantizeLinear node that wrote tensor t (live or folded), or NULL. */
static wgc_node *dq_producer(wgc_graph *g, int t)
{
    if (t < 0 || g->tensors[t].producer < 0)
        return NULL;
    wgc_node *n = &g->nodes[g->tensors[t].producer];
    return n->op == WGC_OP_DEQUANTIZE_LINEAR && plain_q(n) ? n : NULL;
}

/* A scale or zero point of a weight with m output channels: a scalar, or m values on a
 * 1-D tensor when the node's axis is 0. */
static bool per_channel_ok(const wgc_node *dq, const wgc_tensor *t, int64_t m, const int *dtypes)
{
    if (const_scalar(t, dtypes))
        return true;
    if (!t || !t->data || t->shape.rank != 1 || t->shape.dims[0] != m || wgc_attr_int(dq, "axis", 1) != 0)
        return false;
    for (; *dtypes; dtypes++)
        if (t->dtype == *dtypes)
            return true;
    return false;
}

static float value_at(const wgc_tensor *t, int64_t i)
{
    return ((const float *)t->data)[wgc_numel(&t->shape) == 1 ? 0 : i];
}

/* The bias DequantizeLinear: constant int32 bq, zero point 0 (or none), scale xs * ws. */
static bool bias_ok(wgc_graph *g, const wgc_node *dqb, float xs, const wgc_tensor *ws, int64_t m)
{
    static const int I32[] = {WG_DT_INT32, 0};
    const wgc_tensor *bq = wgc_in(g, dqb, 0), *bs = wgc_in(g, dqb, 1), *bz = wgc_in(g, dqb, 2);
    if (!bq || !bq->data || bq->dtype != WG_DT_INT32 || bq->shape.rank != 1 || bq->shape.dims[0] != m ||
        !per_channel_ok(dqb, bs, m, F32))
        return false;
    if (bz) {
        if (!per_channel_ok(dqb, bz, m, I32))
            return false;
        for (int64_t c = 0; c < wgc_numel(&bz->shape); c++)
            if (((const int32_t *)bz->data)[c] != 0)
                return false;
    }
    for (int64_t c = 0; c < m; c++) {
        const float want = xs * value_at(ws, c), got = value_at(bs, c);
        if (!(fabsf(got - want) <= 1e-6f * fabsf(want)))
            return false;
    }
    return true;
}

/* A float32 constant bias of zeros: as good as none (exporters write one, and
 * quantize_static leaves it float when the initializer is shared, e.g. all of a
 * freshly initialised network's folded BatchNorm biases). */
static bool zero_bias(const wgc_tensor *b)
{
    if (!b || !b->data || b->dtype != WG_DT_FLOAT)
        return false;
    for (int64_t i = 0; i < wgc_numel(&b->shape); i++)
        if (((const float *)b->data)[i] != 0.0f)
            return false;
    return true;
}

/* One group, unit strides, and either a 1x1 kernel without padding (dilations do not
 * matter for 1x1) or a 3x3 one (any dilation and padding) with at least 4 input channels
 * (src/select/tunables.h WGC_Q8_WINOGRAD_MIN_C: below, the int8 Winograd does not run
 * the layer). */
static bool int8_pays(const wgc_node *n, const wgc_tensor *w)
{
    size_t np = 0, ns = 0;
    const int64_t *pads = wgc_attr_ints(n, "pads", &np), *strides = wgc_attr_ints(n, "strides", &ns);
    for (size_t i = 0; strides && i < ns; i++)
        if (strides[i] != 1)
            return false;
    if (wgc_attr_int(n, "group", 1) != 1)
        return false;
    if (w->shape.dims[2] == 3 && w->shape.dims[3] == 3)
        return w->shape.dims[1] >= 4;
    for (size_t i = 0; pads && i < np; i++)
        if (pads[i])
            return false;
    const char *ap = wgc_attr_str(n, "auto_pad", "NOTSET");
    return w->shape.dims[2] == 1 && w->shape.dims[3] == 1 && (!strcmp(ap, "NOTSET") || !strcmp(ap, "VALID"));
}

/* Conv node n as QLinearConv when the pattern holds (see the top); false leaves it. */
static bool match_conv(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *w = wgc_in(g, n, 1);
    if (n->n_inputs < 2 || n->n_outputs != 1 || !w || w->shape.rank != 4 || !int8_pays(n, w) ||
        n->act != WGC_ACT_NONE || n->residual >= 0 || n->post_affine || n->aux_affine >= 0 || n->bias >= 0)
        return false;
    const int64_t m = w->shape.dims[0];
    wgc_node *dqx = dq_producer(g, n->inputs[0]), *dqw = dq_producer(g, n->inputs[1]);
    const bool has_b = n->n_inputs >= 3 && n->inputs[2] >= 0 && !zero_bias(wgc_in(g, n, 2));
    wgc_node *dqb = has_b ? dq_producer(g, n->inputs[2]) : NULL;
    if (!dqx || dqx->dead || dqx->region != n->region || !dqw || !dqw->dead || (has_b && (!dqb || !dqb->dead)))
        return false;
    const wgc_tensor *xq = wgc_in(g, dqx, 0), *xs = wgc_in(g, dqx, 1), *xz = wgc_in(g, dqx, 2);
    const wgc_tensor *wq = wgc_in(g, dqw, 0), *ws = wgc_in(g, dqw, 1), *wz = wgc_in(g, dqw, 2);
    if (!xq || (xq->dtype != WG_DT_UINT8 && xq->dtype != WG_DT_INT8) || !const_scalar(xs, F32) ||
        !const_scalar(xz, Q8) || xz->dtype != xq->dtype)
        return false;
    if (!wq || !wq->data || (wq->dtype != WG_DT_UINT8 && wq->dtype != WG_DT_INT8) ||
        !wgc_shape_eq(&wq->shape, &w->shape) || !per_channel_ok(dqw, ws, m, F32) ||
        !per_channel_ok(dqw, wz, m, Q8) || wz->dtype != wq->dtype)
        return false;
    if (dqb && !bias_ok(g, dqb, *(const float *)xs->data, ws, m))
        return false;
    wgc_node *q = wgc_only_consumer(g, n->outputs[0]);
    if (!q || q->op != WGC_OP_QUANTIZE_LINEAR || !plain_q(q) || q->inputs[0] != n->outputs[0])
        return false;
    const wgc_tensor *ys = wgc_in(g, q, 1), *yz = wgc_in(g, q, 2);
    if (!const_scalar(ys, F32) || !const_scalar(yz, Q8))
        return false;
    const int in[9] = {dqx->inputs[0], dqx->inputs[1], dqx->inputs[2], dqw->inputs[0], dqw->inputs[1],
                       dqw->inputs[2], q->inputs[1], q->inputs[2], dqb ? dqb->inputs[0] : -1};
    static const char type[] = "QLinearConv";
    char *op_type = strdup(type);
    if (!op_type || wgc_node_set_inputs(g, n, in, dqb ? 9 : 8) != WG_OK) {
        free(op_type);
        return false; /* out of memory: the float path is still right */
    }
    free(n->op_type);
    n->op_type = op_type;
    n->op = WGC_OP_QLINEAR_CONV;
    wgc_take_output(g, n, q); /* counts the uses again */
    return true;
}

wg_status wgc_pass_match_qdq(wgc_graph *g, const wgc_pass_options *opt)
{
    (void)opt;
    wgc_graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        if (!n->dead && n->op == WGC_OP_CONV)
            (void)match_conv(g, n);
    }
    return WG_OK;
}
