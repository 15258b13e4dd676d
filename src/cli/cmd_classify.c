/* cmd_classify.c: `wasmgraph classify`: decode an image, preprocess it into the model's
 * input, run, soft-max when the output is not already probabilities, print the top-k
 * classes with their labels (the seed's `test_graph_resnet50`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/dtype.h"
#include "image.h"
#include "labels.h"
#include "onnx/tensor_file.h"
#include "preprocess.h"
#include "wasmgraph.h"

static const char usage[] =
    "wasmgraph classify MODEL.wasm -i IMAGE -l LABELS [--top 5] [--size N] [--crop]\n"
    "                          [--mean R,G,B] [--std R,G,B] [--scale S] [--bgr]\n"
    "                          [--layout nchw|nhwc] [--gray] [--no-preprocess]\n"
    "                          [--save-input FILE.pb]  (the input tensor, as fed)\n"
    "                          [--time-limit-ms N] [--memory-limit-mb N] [--threads N]\n"
    "  pixel v in 0..255 becomes (v / scale - mean) / std (defaults 1, 0, 1); the image is\n"
    "  resized to the model's input size, or with --crop/--size N its shorter side goes to\n"
    "  N (default size*256/224) and the centre is cropped; --gray is automatic for 1 channel.\n"
    "  A model compiled with --preprocess \"...\" gives the defaults of these options\n"
    "  (the command line overrides each one; --no-preprocess ignores the model's)";

typedef struct args {
    const char *model, *image, *labels, *save_input;
    uint64_t top;
    bool no_preprocess;
    wg_cli_prep prep;
    wg_runtime_options limits;
} args;

static int parse_args(int argc, char **argv, args *a)
{
    *a = (args){.top = 5, .prep = wg_cli_prep_defaults()};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int lim = wg_cli_limit_option(usage, o, val, &a->limits);
        int prep = lim ? 0 : wg_cli_prep_option(usage, o, val, &a->prep);
        if (lim < 0 || prep < 0)
            return 2;
        if (lim > 0 || prep == 2) {
            i++;
            continue;
        }
        if (prep == 1)
            continue;
        if (!strcmp(o, "--no-preprocess")) {
            a->no_preprocess = true;
            continue;
        }
        bool image = !strcmp(o, "-i") || !strcmp(o, "--image");
        bool labels = !strcmp(o, "-l") || !strcmp(o, "--labels"), top = !strcmp(o, "--top");
        bool save = !strcmp(o, "--save-input");
        if (image || labels || top || save) {
            if (!val)
                return wg_cli_usage(usage, "%s needs a value", o);
            if (top && !wg_cli_parse_u64(val, 1, 1000000, &a->top))
                return wg_cli_usage(usage, "--top needs a positive integer");
            if (image)
                a->image = val;
            if (labels)
                a->labels = val;
            if (save)
                a->save_input = val;
            i++;
        } else if (o[0] == '-' && o[1]) {
            return wg_cli_usage(usage, "unknown option '%s'", o);
        } else if (a->model) {
            return wg_cli_usage(usage, "unexpected argument '%s'", o);
        } else {
            a->model = o;
        }
    }
    if (!a->model)
        return wg_cli_usage(usage, "no model given");
    if (!a->image)
        return wg_cli_usage(usage, "no image given (-i IMAGE)");
    if (!a->labels)
        return wg_cli_usage(usage, "no labels file given (-l LABELS)");
    return 0;
}

/* The preprocessing the model recorded (compile --preprocess) under what the command
 * line gave; returns nonzero (after printing) when the metadata's object is bad. */
static int model_preprocess(const args *a, const wg_model *m, wg_cli_prep *p)
{
    *p = a->prep;
    if (a->no_preprocess)
        return 0;
    const char *meta = wg_model_metadata_json(m);
    char err[256];
    wg_json *j = meta ? wg_json_parse(meta, strlen(meta), err, sizeof err) : NULL;
    if (!j)
        return 0; /* the host checked the metadata when it loaded the model */
    const wg_json *pre = wg_json_get(j, "preprocess");
    bool ok = !pre || wg_cli_prep_from_json(pre, p, err, sizeof err);
    wg_json_free(j);
    return ok ? 0 : wg_cli_fail("%s: %s", a->model, err);
}

/* Works out the input's layout and size; returns nonzero (after printing) on failure. */
static int plan_input(const wg_cli_prep *a, const wg_tensor_info *t, wg_preprocess *p)
{
    char shape[160];
    wg_cli_shape_str(t->dims, t->rank, shape, sizeof shape);
    if (t->dtype != WG_DT_FLOAT && t->dtype != WG_DT_FLOAT16)
        return wg_cli_fail("input '%s' is %s; classify feeds float32 or float16 images", t->name,
                           wg_dtype_name(t->dtype));
    const int64_t *d = t->dims;
    if (t->rank == 4) {
        if (d[0] != 1)
            return wg_cli_fail("input '%s' has batch %lld; classify needs batch 1", t->name,
                               (long long)d[0]);
        d++;
    } else if (t->rank != 3) {
        return wg_cli_fail("input '%s' has shape %s; classify needs [1,C,H,W] or [1,H,W,C]",
                           t->name, shape);
    }
    bool nhwc = a->layout_set ? a->nhwc : !(d[0] == 1 || d[0] == 3) && (d[2] == 1 || d[2] == 3);
    int64_t C = nhwc ? d[2] : d[0], H = nhwc ? d[0] : d[1], W = nhwc ? d[1] : d[2];
    if (C != 1 && C != 3)
        return wg_cli_fail("input '%s' has shape %s: %lld channels in %s layout; images have 1 or 3",
                           t->name, shape, (long long)C, nhwc ? "nhwc" : "nchw");
    if (a->gray && C != 1)
        return wg_cli_fail("--gray: input '%s' has shape %s, 3 channels", t->name, shape);
    p->width = (int)W;
    p->height = (int)H;
    p->channels = (int)C;
    p->nhwc = nhwc;
    p->bgr = a->bgr;
    p->scale = a->scale;
    memcpy(p->mean, a->mean, sizeof p->mean);
    memcpy(p->std, a->std, sizeof p->std);
    if (a->size)
        p->resize_short = (int)a->size;
    else if (a->crop)
        p->resize_short = (int)lround((double)(H < W ? H : W) * 256 / 224);
    return 0;
}

int wg_cmd_classify(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    rc = 1;
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *s = NULL;
    wg_image img = {0};
    wg_labels labels = {0};
    float *pix = NULL;
    double *prob = NULL;
    char err[1024];
    wg_preprocess p = {0};

    wg_status st = wg_runtime_new(&a.limits, &rt);
    if (st)
        return wg_cli_fail("cannot start the wasm engine: %s", wg_status_str(st));
    if (wg_model_load(rt, a.model, &m)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (wg_model_num_inputs(m) != 1) {
        rc = wg_cli_fail("%s has %zu inputs; classify needs a model with one image input", a.model,
                         wg_model_num_inputs(m));
        goto done;
    }
    const wg_tensor_info *in = wg_model_input(m, 0), *out = wg_model_output(m, 0);
    if (out->dtype != WG_DT_FLOAT && out->dtype != WG_DT_FLOAT16 && out->dtype != WG_DT_DOUBLE) {
        rc = wg_cli_fail("output '%s' is %s; classify needs float scores", out->name,
                         wg_dtype_name(out->dtype));
        goto done;
    }
    size_t classes = out->bytes / wg_dtype_size(out->dtype);
    if (!classes) {
        rc = wg_cli_fail("output '%s' is empty", out->name);
        goto done;
    }
    wg_cli_prep prep;
    if ((rc = model_preprocess(&a, m, &prep)) || (rc = plan_input(&prep, in, &p)))
        goto done;
    rc = 1;
    if (wg_labels_load(a.labels, &labels, err, sizeof err)) {
        rc = wg_cli_fail("%s", err);
        goto done;
    }
    if (labels.n < classes) {
        rc = wg_cli_fail("labels file %s has %zu labels, model has %zu classes", a.labels, labels.n,
                         classes);
        goto done;
    }
    if (wg_image_load(a.image, &img, err, sizeof err)) {
        rc = wg_cli_fail("%s", err);
        goto done;
    }
    size_t n = (size_t)p.width * (size_t)p.height * (size_t)p.channels;
    if (!(pix = malloc(n * sizeof *pix)) || !(prob = malloc(classes * sizeof *prob))) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    if (wg_image_preprocess(&img, &p, pix, err, sizeof err)) {
        rc = wg_cli_fail("%s: %s", a.image, err);
        goto done;
    }
    if (wg_session_new(m, &s)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (wg_cli_check_threads(a.model, &a.limits, s)) {
        rc = 1;
        goto done;
    }
    void *dst = wg_session_input(s, 0);
    if (in->dtype == WG_DT_FLOAT) {
        memcpy(dst, pix, n * sizeof *pix);
    } else {
        for (size_t i = 0; i < n; i++) {
            uint16_t h = wg_f32_to_f16(pix[i]);
            memcpy((uint8_t *)dst + 2 * i, &h, 2);
        }
    }
    if (a.save_input && wg_tensor_file_write_pb(a.save_input, in->name, in->dtype, in->dims, in->rank, dst,
                                                err, sizeof err)) {
        rc = wg_cli_fail("%s", err);
        goto done;
    }
    if (wg_session_run(s)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    /* Probabilities already? Otherwise soft-max (shifted by the max for stability). */
    const void *scores = wg_session_output(s, 0);
    double sum = 0, hi = -INFINITY;
    bool probs = true;
    for (size_t i = 0; i < classes; i++) {
        prob[i] = wg_cli_elem(out->dtype, scores, i);
        if (isnan(prob[i])) {
            rc = wg_cli_fail("output '%s' holds NaN at index %zu", out->name, i);
            goto done;
        }
        probs = probs && prob[i] >= 0 && prob[i] <= 1;
        sum += prob[i];
        hi = prob[i] > hi ? prob[i] : hi;
    }
    bool softmax = !(probs && fabs(sum - 1) <= 1e-3);
    if (softmax) {
        sum = 0;
        for (size_t i = 0; i < classes; i++)
            sum += (prob[i] = exp(prob[i] - hi));
        for (size_t i = 0; i < classes; i++)
            prob[i] /= sum;
    }
    size_t k = a.top < classes ? (size_t)a.top : classes;
    printf("top-%zu of %zu classes%s:\n", k, classes, softmax ? " (softmax of the model's scores)" : "");
    printf("  rank  prob    idx    label\n");
    size_t best = 0;
    for (size_t r = 0; r < k; r++) {
        /* Pick the r-th largest: the largest not above the previous pick (ties by index). */
        size_t pick = classes;
        for (size_t i = 0; i < classes; i++) {
            if (prob[i] < 0)
                continue; /* taken */
            if (pick == classes || prob[i] > prob[pick])
                pick = i;
        }
        if (r == 0)
            best = pick;
        printf("  %4zu  %.4f  %-5zu  %s\n", r + 1, prob[pick], pick, wg_labels_get(&labels, pick));
        prob[pick] = -1;
    }
    printf("input image belongs to the class '%s'\n", wg_labels_get(&labels, best));
    rc = 0;
done:
    free(prob);
    free(pix);
    wg_image_free(&img);
    wg_labels_free(&labels);
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
    return rc;
}
