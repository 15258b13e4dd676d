/*
 * spectral.c: HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix. Their output
 * shape is the value of their inputs, so they are computed on the host (fold) and only
 * when those inputs are constant; a run-time input is reported as unsupported.
 * Values are computed in double and stored as output_datatype (float, double, float16).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/emit_and_fold.h"
#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const int dt_out[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};

/* output_datatype, checked. */
static wg_status out_dtype(wgc_graph *g, const wgc_node *n, int *dt)
{
    *dt = (int)wgc_attr_int(n, "output_datatype", WG_DT_FLOAT);
    for (int k = 0; dt_out[k]; k++)
        if (dt_out[k] == *dt)
            return WG_OK;
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "output_datatype %d (%s) is not supported (float, "
                     "double, float16 only)", *dt, wg_dtype_name(*dt));
}

/* Input i must be a constant (its value sets the output shape). */
static wg_status need_const(wgc_graph *g, const wgc_node *n, int i)
{
    const wgc_tensor *t = wgc_in(g, n, i);
    if (!t)
        return wgc_error(g, n, WG_ERR_INVALID, "input %d is missing", i);
    if (!t->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input '%s' is computed at run time; only constant "
                         "values are supported (the output shape depends on it)", t->name);
    if (wgc_numel(&t->shape) != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' must be a scalar", t->name);
    return WG_OK;
}

/* Scalar input i as a double (integer or float dtypes). */
static double scalar(const wgc_tensor *t)
{
    switch (t->dtype) {
    case WG_DT_FLOAT: { float v; memcpy(&v, t->data, 4); return v; }
    case WG_DT_DOUBLE: { double v; memcpy(&v, t->data, 8); return v; }
    case WG_DT_FLOAT16: { uint16_t h; memcpy(&h, t->data, 2); return wg_f16_to_f32(h); }
    default: return (double)wgc_const_int(t, 0);
    }
}

static void store(void *data, int dt, int64_t i, double v)
{
    switch (dt) {
    case WG_DT_FLOAT: ((float *)data)[i] = (float)v; break;
    case WG_DT_DOUBLE: ((double *)data)[i] = v; break;
    default: ((uint16_t *)data)[i] = wg_f32_to_f16((float)v); break;
    }
}

static wg_status spectral_infer(wgc_graph *g, wgc_node *n)
{
    static const int ints[] = {WG_DT_INT32, WG_DT_INT64, 0};
    static const int nums[] = {WG_DT_INT32, WG_DT_INT64, WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};
    int dt;
    wg_status st;
    if (n->op == WGC_OP_MEL_WEIGHT_MATRIX) {
        st = wgc_check_arity(g, n, 5, 5, 1, 1);
        for (int i = 0; !st && i < 5; i++)
            st = wgc_check_input(g, n, i, i < 3 ? ints : nums);
        for (int i = 0; !st && i < 5; i++)
            st = need_const(g, n, i);
        if (!st)
            st = out_dtype(g, n, &dt);
        if (st)
            return st;
        int64_t bins = wgc_const_int(wgc_in(g, n, 0), 0), len = wgc_const_int(wgc_in(g, n, 1), 0);
        int64_t rate = wgc_const_int(wgc_in(g, n, 2), 0);
        if (bins < 1 || bins > (1 << 16) || len < 1 || len > (1 << 24) || rate < 1)
            return wgc_error(g, n, WG_ERR_INVALID, "num_mel_bins %lld, dft_length %lld or sample_rate "
                             "%lld is out of range", (long long)bins, (long long)len, (long long)rate);
        wgc_set_output(g, n, 0, dt, &(wgc_shape){.rank = 2, .dims = {len / 2 + 1, bins}});
        return WG_OK;
    }
    st = wgc_check_arity(g, n, 1, 1, 1, 1);
    if (!st)
        st = wgc_check_input(g, n, 0, ints);
    if (!st)
        st = need_const(g, n, 0);
    if (!st)
        st = out_dtype(g, n, &dt);
    if (st)
        return st;
    int64_t size = wgc_const_int(wgc_in(g, n, 0), 0);
    if (size < 0 || size > ((int64_t)1 << 30))
        return wgc_error(g, n, WG_ERR_INVALID, "size %lld is out of range", (long long)size);
    wgc_set_output(g, n, 0, dt, &(wgc_shape){.rank = 1, .dims = {size}});
    return WG_OK;
}

static wg_status fold_window(wgc_graph *g, const wgc_node *n, void *data)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    const int64_t size = y->shape.dims[0];
    const double N1 = wgc_attr_int(n, "periodic", 1) ? (double)size : (double)(size - 1);
    double a0, a1, a2; /* w = a0 - a1 cos(2 pi n / N1) + a2 cos(4 pi n / N1) */
    switch (n->op) {
    case WGC_OP_HANN_WINDOW: a0 = 0.5, a1 = 0.5, a2 = 0; break;
    case WGC_OP_HAMMING_WINDOW: a0 = 25.0 / 46.0, a1 = 1 - 25.0 / 46.0, a2 = 0; break;
    case WGC_OP_BLACKMAN_WINDOW: a0 = 0.42, a1 = 0.5, a2 = 0.08; break;
    default: return wgc_no_case(g, n, "the window fold");
    }
    for (int64_t i = 0; i < size; i++) {
        double x = N1 > 0 ? 2 * M_PI * (double)i / N1 : 0;
        store(data, y->dtype, i, a0 - a1 * cos(x) + a2 * cos(2 * x));
    }
    return WG_OK;
}

/* Triangular mel filters over the dft_length / 2 + 1 spectrogram bins, with the bin edges
 * placed as ONNX's reference does: num_mel_bins + 2 points evenly spaced in mel from
 * lower_edge_hertz, step (high - low) / (num_mel_bins + 2), floored to a bin index. */
static wg_status fold_mel(wgc_graph *g, const wgc_node *n, void *data)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    const int64_t bins = y->shape.dims[1], nspec = y->shape.dims[0];
    const double len = scalar(wgc_in(g, n, 1)), rate = scalar(wgc_in(g, n, 2));
    const double lo = scalar(wgc_in(g, n, 3)), hi = scalar(wgc_in(g, n, 4));
    const double mlo = 2595 * log10(1 + lo / 700), mhi = 2595 * log10(1 + hi / 700);
    const double step = (mhi - mlo) / (double)(bins + 2);
    int64_t *edge = malloc(sizeof *edge * (size_t)(bins + 2));
    if (!edge)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < bins + 2; i++) {
        double hz = 700 * (pow(10, ((double)i * step + mlo) / 2595) - 1);
        /* Out-of-range or NaN edges (odd rates or frequencies) become -1 or nspec + 1, so
         * the check below reports them instead of an undefined float->int conversion. */
        const double e = floor((len + 1) * hz / rate);
        edge[i] = !(e >= 0) ? -1 : e > (double)nspec ? nspec + 1 : (int64_t)e;
    }
    wg_status st = WG_OK;
    for (int64_t i = 0; i < nspec * bins; i++)
        store(data, y->dtype, i, 0);
    for (int64_t i = 0; i < bins; i++) {
        const int64_t l = edge[i], c = edge[i + 1], h = edge[i + 2];
        if (l < 0 || c < l || h < c || c >= nspec || h > nspec) {
            st = wgc_error(g, n, WG_ERR_INVALID, "mel bin %lld spans spectrogram bins %lld..%lld, "
                           "outside 0..%lld (check the edge frequencies)", (long long)i, (long long)l,
                           (long long)h, (long long)nspec - 1);
            break;
        }
        if (c == l)
            store(data, y->dtype, c * bins + i, 1);
        else
            for (int64_t j = l; j <= c; j++)
                store(data, y->dtype, j * bins + i, (double)(j - l) / (double)(c - l));
        for (int64_t j = c; j < h; j++)
            store(data, y->dtype, j * bins + i, (double)(h - j) / (double)(h - c));
    }
    free(edge);
    return st;
}

static wg_status spectral_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *y = wgc_out(g, n, 0);
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    if (!data)
        return WG_ERR_NOMEM;
    wg_status st = n->op == WGC_OP_MEL_WEIGHT_MATRIX ? fold_mel(g, n, data) : fold_window(g, n, data);
    if (st) {
        free(data);
        return st;
    }
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

const wgc_op_def wgc_op_spectral = {.infer = spectral_infer, .fold = spectral_fold, .emit = wgc_emit_folded_only};
