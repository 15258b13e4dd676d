/*
 * fashion_demo: runs a compiled Fashion-MNIST classifier over the 10,000 test images
 * through the public host API (include/wasmgraph.h), the way an application would.
 *
 *   fashion_demo MODEL.wasm t10k-images-idx3-ubyte t10k-labels-idx1-ubyte
 *
 * Reads the uncompressed IDX files, feeds each image as float32 1x1x28x28 scaled to
 * [0, 1] (how tools/train_lenet.py trained the model), and prints a few predictions,
 * the accuracy and the latency per image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wasmgraph.h"

static const char *const class_names[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                            "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

static uint8_t *read_idx(const char *path, uint32_t magic, uint32_t *count, size_t item_bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fashion_demo: cannot open %s\n", path);
        return NULL;
    }
    uint8_t head[16];
    size_t head_len = magic == 0x803 ? 16 : 8;
    uint8_t *data = NULL;
    if (fread(head, 1, head_len, f) != head_len)
        goto bad;
    uint32_t m = (uint32_t)head[0] << 24 | head[1] << 16 | head[2] << 8 | head[3];
    *count = (uint32_t)head[4] << 24 | head[5] << 16 | head[6] << 8 | head[7];
    if (m != magic || *count == 0 || *count > 1000000)
        goto bad;
    data = malloc((size_t)*count * item_bytes);
    if (!data || fread(data, item_bytes, *count, f) != *count)
        goto bad;
    fclose(f);
    return data;
bad:
    fprintf(stderr, "fashion_demo: %s is not an IDX file of the expected kind\n", path);
    free(data);
    fclose(f);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fashion_demo MODEL.wasm IMAGES.idx3 LABELS.idx1\n");
        return 2;
    }
    int rc = 1;
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *s = NULL;
    uint32_t n_images = 0, n_labels = 0;
    uint8_t *images = read_idx(argv[2], 0x803, &n_images, 28 * 28);
    uint8_t *labels = read_idx(argv[3], 0x801, &n_labels, 1);
    if (!images || !labels)
        goto done;
    if (n_images != n_labels) {
        fprintf(stderr, "fashion_demo: %u images but %u labels\n", n_images, n_labels);
        goto done;
    }
    if (wg_runtime_new(NULL, &rt)) {
        fprintf(stderr, "fashion_demo: cannot start the runtime\n");
        goto done;
    }
    double t0 = now();
    if (wg_model_load(rt, argv[1], &m) || wg_session_new(m, &s)) {
        fprintf(stderr, "fashion_demo: %s\n", wg_last_error(rt));
        goto done;
    }
    double load_ms = (now() - t0) * 1e3;
    const wg_tensor_info *in = wg_model_input(m, 0), *out = wg_model_output(m, 0);
    if (wg_model_num_inputs(m) != 1 || in->dtype != WG_DT_FLOAT || in->bytes != 28 * 28 * sizeof(float) ||
        out->dtype != WG_DT_FLOAT || out->bytes != 10 * sizeof(float)) {
        fprintf(stderr, "fashion_demo: expected a float32 1x1x28x28 -> 1x10 model\n");
        goto done;
    }
    float *x = wg_session_input(s, 0);
    uint32_t correct = 0;
    double t_run = 0;
    printf("image  label         prediction\n");
    for (uint32_t i = 0; i < n_images; i++) {
        for (int p = 0; p < 28 * 28; p++)
            x[p] = images[(size_t)i * 784 + p] / 255.0f;
        double t = now();
        if (wg_session_run(s)) {
            fprintf(stderr, "fashion_demo: image %u: %s\n", i, wg_last_error(rt));
            goto done;
        }
        t_run += now() - t;
        const float *y = wg_session_output(s, 0);
        int best = 0;
        for (int c = 1; c < 10; c++)
            if (y[c] > y[best])
                best = c;
        correct += best == labels[i];
        if (i < 8)
            printf("%5u  %-12s  %-12s %s\n", i, class_names[labels[i]], class_names[best],
                   best == labels[i] ? "" : "(wrong)");
    }
    printf("\naccuracy: %.2f%% (%u of %u test images)\n", 100.0 * correct / n_images, correct, n_images);
    printf("latency: %.1f us per image on wasmtime (load + instantiate %.1f ms)\n", t_run / n_images * 1e6,
           load_ms);
    rc = 0;
done:
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
    free(images);
    free(labels);
    return rc;
}
