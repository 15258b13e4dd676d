/*
 * batchnorm.c: BatchNormalization at inference, standalone (the fold_batchnorm pass merges
 * it into a preceding Conv when it can; this is the fallback), and in training mode (batch
 * statistics: bn_emit_training). With constant parameters
 * the per-channel scale and shift are computed here, so the kernel is y = x*a[c] + b[c];
 * otherwise the module computes them into scratch first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../ir/symdim.h"
#include "helpers/fused_epilogue.h"

static const int f32_only[] = {WG_DT_FLOAT, 0};

static wg_status bn_infer(wgc_graph *g, wgc_node *n)
{
    wg_status st = wgc_check_arity(g, n, 5, 5, 1, 5);
    for (int i = 0; !st && i < 5; i++)
        st = wgc_check_input(g, n, i, f32_only);
    if (st)
        return st;
    const bool training = wgc_bn_training(n);
    if (wgc_attr_int(n, "training_mode", 0) != 0 && n->opset < 14)
        return wgc_error(g, n, WG_ERR_INVALID, "training_mode is an attribute of opset 14 and later");
    for (int i = training ? 3 : 1; i < n->n_outputs; i++)
        if (n->outputs[i] >= 0)
            return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                             "BatchNormalization output %d (training statistics) is not supported", i);
    if (wgc_attr_int(n, "spatial", 1) != 1)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "BatchNormalization with spatial=0 is not supported");
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (x->shape.rank < 2)
        return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has rank %d, expected at least 2", x->name,
                         x->shape.rank);
    int64_t C = x->shape.dims[1];
    for (int i = 1; i < 5; i++) {
        const wgc_tensor *p = wgc_in(g, n, i);
        if (p->shape.rank != 1 || p->shape.dims[0] != C)
            return wgc_error(g, n, WG_ERR_INVALID, "parameter '%s' must have shape [%lld]", p->name,
                             (long long)C);
    }
    if (wgc_numel(&x->shape) >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "input '%s' has 2^31 or more elements", x->name);
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &x->shape);
    const wgc_shape cs = {.rank = 1, .dims = {C}};
    for (int i = 1; training && i < n->n_outputs && i < 3; i++)
        if (n->outputs[i] >= 0)
            wgc_set_output(g, n, i, WG_DT_FLOAT, &cs); /* running mean, running variance */
    return WG_OK;
}

bool wgc_bn_training(const wgc_node *bn)
{
    return bn->op == WGC_OP_BATCH_NORM && wgc_attr_int(bn, "training_mode", 0) != 0;
}

/* Training mode (opset 14+): each channel's mean and (biased) variance over the batch and
 * the spatial dims, summed in double, two passes; y = (x - mean) / sqrt(var + eps) *
 * scale + B; running_mean = input_mean * momentum + mean * (1 - momentum), likewise the
 * variance, as ONNX's reference computes them. */
static wg_status bn_emit_training(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int64_t N = x->shape.dims[0], C = x->shape.dims[1], inner = wgc_numel(&x->shape) / (N * C > 0 ? N * C : 1);
    const float eps = wgc_attr_float(n, "epsilon", 1e-5f), mom = wgc_attr_float(n, "momentum", 0.9f);
    const bool has_rm = n->n_outputs > 1 && n->outputs[1] >= 0, has_rv = n->n_outputs > 2 && n->outputs[2] >= 0;
    wgc_emit(e, "{\nconst float *x = (const float *)%s, *sc = (const float *)%s, *bi = (const float *)%s;\n",
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->inputs[2]));
    wgc_emit(e, "const float *im = (const float *)%s, *iv = (const float *)%s;\nfloat *y = (float *)%s;\n",
             wgc_ptr(e, g, n->inputs[3]), wgc_ptr(e, g, n->inputs[4]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "float *rm = (float *)%s, *rv = (float *)%s;\n(void)im; (void)iv; (void)rm; (void)rv;\n",
             has_rm ? wgc_ptr(e, g, n->outputs[1]) : "0", has_rv ? wgc_ptr(e, g, n->outputs[2]) : "0");
    wgc_emit(e,
             "for (int32_t c = 0; c < %lld; c++) {\n"
             "  double s = 0.0, q = 0.0;\n"
             "  for (int32_t b = 0; b < %lld; b++) for (int32_t i = 0; i < %lld; i++) s += x[(b * %lld + c) * %lld + i];\n"
             "  const double mean = s / %lld.0;\n"
             "  for (int32_t b = 0; b < %lld; b++) for (int32_t i = 0; i < %lld; i++) {\n"
             "    const double d = x[(b * %lld + c) * %lld + i] - mean; q += d * d; }\n"
             "  const float m = (float)mean, v = (float)(q / %lld.0), r = wgk_sqrtf(v + %s);\n"
             "  for (int32_t b = 0; b < %lld; b++) for (int32_t i = 0; i < %lld; i++) {\n"
             "    const int32_t k = (b * %lld + c) * %lld + i; y[k] = (x[k] - m) / r * sc[c] + bi[c]; }\n",
             (long long)C, (long long)N, (long long)inner, (long long)C, (long long)inner, (long long)(N * inner),
             (long long)N, (long long)inner, (long long)C, (long long)inner, (long long)(N * inner), wgc_float(e, eps),
             (long long)N, (long long)inner, (long long)C, (long long)inner);
    if (has_rm)
        wgc_emit(e, "  rm[c] = im[c] * %s + m * (1.0f - %s);\n", wgc_float(e, mom), wgc_float(e, mom));
    if (has_rv)
        wgc_emit(e, "  rv[c] = iv[c] * %s + v * (1.0f - %s);\n", wgc_float(e, mom), wgc_float(e, mom));
    wgc_emit(e, "}\n}\n");
    return WG_OK;
}

static bool params_const(wgc_graph *g, const wgc_node *n)
{
    for (int i = 1; i < 5; i++)
        if (!wgc_in(g, n, i)->data)
            return false;
    return true;
}

static size_t bn_scratch(const wgc_graph *g, const wgc_node *n)
{
    if (params_const((wgc_graph *)g, n) || wgc_bn_training(n))
        return 0;
    return 2 * sizeof(float) * (size_t)g->tensors[n->inputs[0]].shape.dims[1];
}

void wgc_bn_affine(wgc_graph *g, const wgc_node *bn, int64_t C, float *ab)
{
    const float eps = wgc_attr_float(bn, "epsilon", 1e-5f);
    const float *ga = wgc_in(g, bn, 1)->data, *be = wgc_in(g, bn, 2)->data, *mu = wgc_in(g, bn, 3)->data,
                *va = wgc_in(g, bn, 4)->data;
    for (int64_t c = 0; c < C; c++) {
        const double a = ga[c] / sqrt((double)va[c] + eps);
        ab[c] = (float)a;
        ab[C + c] = (float)(be[c] - mu[c] * a);
    }
}

/* A threaded module's BatchNormalization with constant parameters of constant shape:
 * each thread takes a run of whole channels in every sample, each element computed as on
 * one thread (PP-OCR det's BatchNormalizations after its ConvTransposes ran on thread 0). */
static void emit_split_affine(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const char *scale,
                              const char *shift, float lo, float hi)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const long long N = (long long)x->shape.dims[0], C = (long long)x->shape.dims[1];
    const long long inner = (long long)(wgc_numel(&x->shape) / (N * C));
    char res[128] = "0";
    if (n->residual >= 0)
        snprintf(res, sizeof res, "(const float *)%s + o", wgc_ptr(e, g, n->residual));
    wgc_emit(e, "{\n");
    wgc_emit_part_range(e, C, 1);
    wgc_emit(e, "for (int n = 0; lo < hi && n < %lld; n++) {\n", N);
    wgc_emit(e, "    const size_t o = ((size_t)n * %lld + (size_t)lo) * %lld;\n", C, inner);
    wgc_emit(e, "    wgk_f32_channel_affine((const float *)%s + o, (const float *)%s + lo, (const float *)%s + lo, "
                "%s, (float *)%s + o, 1, hi - lo, %lld, %s, %s);\n",
             wgc_ptr(e, g, n->inputs[0]), scale, shift, res, wgc_ptr(e, g, n->outputs[0]), inner,
             wgc_float(e, lo), wgc_float(e, hi));
    wgc_emit(e, "}\n}\n");
}

/* Over symbolic batch or spatial dims too (ops/sym_window.c; inference only): the planes
 * read from wg_dims at run time. */
static wg_status bn_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    if (wgc_bn_training(n) && wgc_shape_is_sym(&wgc_in(g, n, 0)->shape))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "training-mode BatchNormalization of symbolic dims");
    if (wgc_bn_training(n))
        return wgc_no_residual(g, n) ? wgc_no_residual(g, n) : bn_emit_training(e, g, n);
    wg_status st = WG_OK;
    float *ab = NULL;
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int64_t C = x->shape.dims[1];
    const float eps = wgc_attr_float(n, "epsilon", 1e-5f);
    char scale[128], shift[128];
    if (params_const(g, n)) {
        ab = malloc(2 * sizeof(float) * (size_t)(C > 0 ? C : 1));
        if (!ab) {
            st = wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
            goto fail;
        }
        wgc_bn_affine(g, n, C, ab);
        const char *w;
        if ((st = wgc_weight(e, ab, 2 * sizeof(float) * (size_t)C, &w))) {
            st = wgc_error(g, n, st, "out of memory");
            goto fail;
        }
        snprintf(scale, sizeof scale, "%s", w);
        snprintf(shift, sizeof shift, "(const float *)%s + %lld", w, (long long)C);
    } else {
        const char *s = wgc_scratch(e);
        snprintf(scale, sizeof scale, "%s", s);
        snprintf(shift, sizeof shift, "(float *)%s + %lld", s, (long long)C);
        wgc_emit(e, "wgk_f32_batchnorm_params(%s, %s, %s, %s, %s, %lld, %s, %s);\n",
                 wgc_ptr(e, g, n->inputs[1]), wgc_ptr(e, g, n->inputs[2]), wgc_ptr(e, g, n->inputs[3]),
                 wgc_ptr(e, g, n->inputs[4]), wgc_float(e, eps), (long long)C, scale, shift);
    }
    float lo, hi;
    wgc_act_range(n, &lo, &hi);
    if (ab && !wgc_shape_is_sym(&x->shape) && C > 0 && wgc_split_pays(e, C, wgc_numel(&x->shape))) {
        emit_split_affine(e, g, n, scale, shift, lo, hi);
    } else {
        char sn[96], si[96];
        snprintf(sn, sizeof sn, "%s", wgc_size_expr(e, &x->shape, 0, 1));
        snprintf(si, sizeof si, "%s", wgc_size_expr(e, &x->shape, 2, x->shape.rank));
        wgc_emit(e, "wgk_f32_channel_affine(%s, %s, %s, %s, %s, %s, %lld, %s, %s, %s);\n",
                 wgc_ptr(e, g, n->inputs[0]), scale, shift,
                 n->residual >= 0 ? wgc_ptr(e, g, n->residual) : "0", wgc_ptr(e, g, n->outputs[0]),
                 sn, (long long)C, si, wgc_float(e, lo), wgc_float(e, hi));
    }
fail:
    free(ab);
    return st;
}

/* One output only (the running statistics of training mode take every sample): per
 * sample (WGC_PER_SAMPLE), and per pixel over symbolic spatial dims (WGC_WINDOW) of rank
 * 2 or more in inference mode. */
static bool bn_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t != WGC_PER_SAMPLE && t != WGC_WINDOW)
        return false;
    for (int k = 1; k < n->n_outputs; k++)
        if (n->outputs[k] >= 0)
            return false;
    if (t == WGC_PER_SAMPLE)
        return true;
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    return rank >= 2 && !wgc_bn_training(n);
}

const wgc_op_def wgc_op_batchnorm = {
    .infer = bn_infer,
    .emit = bn_emit,
    .scratch = bn_scratch,
    .sym = {.takes = bn_sym_takes},
};
