/*
 * wgk_qdeq.h: a dynamically quantized convolution's float tail, done as the int32 sums
 * leave an int8 kernel's registers. onnxruntime's quantize_dynamic follows each
 * ConvInteger with Cast -> Mul (x_scale * w_scale) -> Add (the bias) [-> Relu | Clip],
 * sometimes a residual Add after them, and then a DynamicQuantizeLinear of the result
 * (src/passes/fuse_qconv_epilogue.c). The kernels then write
 *     y = clamp((float)acc * scale + bias, lo, hi) + res
 * in float32, each operation rounded as its node rounds it (the same operations in the
 * same order, so the same bits), instead of an int32 tensor and four passes over it; and
 * with `range`, the running minimum and maximum of y that the DynamicQuantizeLinear of y
 * would otherwise scan for. Beside it, WGK_Q8_OUTPUT_FIELDS: the three outputs (int32 sums,
 * QLinearConv's requantized bytes, this tail) the int8 convolution kernels' args declare.
 */
#ifndef WGK_QDEQ_H
#define WGK_QDEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wgk_q8_deq {
    float *y;           /* [N][M][plane] float32; NULL: not fused (the kernel's int32 y) */
    const float *scale; /* scale[m] when scale_per_m, else scale[0] */
    int scale_per_m;
    const float *bias;  /* bias[m], NULL: no Add */
    int clamp;          /* 1: clamp to [lo, hi] as Clip (Relu: [0, inf]) */
    float lo, hi;
    const float *res;   /* a residual of y's layout added last, NULL: none */
    /* [min, max] of y merged into range[0], range[1] (which the caller set, to 0 for
     * DynamicQuantizeLinear's range widened to include 0); NULL: not kept */
    float *range;
} wgk_q8_deq;

/* The output fields of the int8 convolution kernels' args that write any of the three
 * results (wgk_q8_conv1x1_args, wgk_q8_conv_fewc_args, wgk_q8_dwconv_args,
 * wgk_q8_winograd_args; kernels/conv/q8-requant.h turns them into a channel's sink):
 *   y         the int32 sums [N][M][plane] (ConvInteger), when yq and deq.y are NULL;
 *   yq        QLinearConv: the sums requantized into yq (dtype ydt: 2 uint8, 3 int8;
 *             zero point zy) with the multiplier sx * sw[m when sw_per_m, else 0] / sy in
 *             float32, as wgk_requantize does;
 *   deq       ConvInteger's float tail (above): deq.y instead of y.
 * Flat fields (not a member struct), so that the generated code names them .y, .yq ... */
#define WGK_Q8_OUTPUT_FIELDS       \
    int32_t *y;                    \
    void *yq;                      \
    int ydt;                       \
    const void *zy;                \
    const float *sx, *sw, *sy;     \
    int sw_per_m;                  \
    wgk_q8_deq deq;

/* One sum of output channel m at element i of y, as the nodes compute it. */
static inline float wgk_q8_deq1(const wgk_q8_deq *d, int m, size_t i, int32_t acc)
{
    float v = (float)acc * d->scale[d->scale_per_m ? m : 0];
    if (d->bias)
        v = v + d->bias[m];
    if (d->clamp) {
        v = v < d->lo ? d->lo : v; /* wgk_f32_clip's order: NaN stays NaN */
        v = v > d->hi ? d->hi : v;
    }
    if (d->res)
        v = v + d->res[i];
    return v;
}

/* The sums acc [N][M][plane] (int32; may be d->y itself) into d->y, with d->range: the
 * direct kernels' tail (kernels/quant/quant.c). */
void wgk_q8_dequantize_sums(const int32_t *acc, int N, int M, size_t plane, const wgk_q8_deq *d);

#endif
