/* test_image.c: image decoding and preprocessing (src/cli/image.c): shapes, value ranges,
 * normalisation, BGR order, NHWC layout, gray, crop; on cat.png when present and on a
 * synthetic image always. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "cli/image.h"

static const wg_preprocess plain = {.width = 4, .height = 4, .channels = 3, .scale = 1,
                                    .std = {1, 1, 1}};

/* A 2x2 image: red, green / blue, white. */
static uint8_t px4[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};

TEST(synthetic_layouts_and_normalisation)
{
    wg_image img = {.w = 2, .h = 2, .px = px4};
    float out[3 * 4 * 4];
    char err[200];
    wg_preprocess p = plain;
    p.width = p.height = 2; /* same size: bilinear sampling hits the pixel centres exactly */
    CHECK(wg_image_preprocess(&img, &p, out, err, sizeof err) == WG_OK, "%s", err);
    /* NCHW, RGB: plane R = 255 0 0 255 */
    CHECK(out[0] == 255 && out[1] == 0 && out[2] == 0 && out[3] == 255, "R plane %g %g %g %g",
          out[0], out[1], out[2], out[3]);
    CHECK(out[4 + 1] == 255 && out[8 + 2] == 255, "G, B planes");
    p.bgr = true;
    wg_image_preprocess(&img, &p, out, err, sizeof err);
    CHECK(out[2] == 255 && out[0] == 0, "BGR: first plane is blue");
    p.bgr = false;
    p.nhwc = true;
    wg_image_preprocess(&img, &p, out, err, sizeof err);
    CHECK(out[0] == 255 && out[1] == 0 && out[2] == 0 && out[3 + 1] == 255, "NHWC pixel order");
    p.nhwc = false;
    p.scale = 255;
    p.mean[0] = 0.5f;
    p.std[0] = 0.5f;
    wg_image_preprocess(&img, &p, out, err, sizeof err);
    CHECK(fabsf(out[0] - 1) < 1e-6f && fabsf(out[1] + 1) < 1e-6f, "(v/255-0.5)/0.5: %g %g", out[0],
          out[1]);
    p = plain;
    p.width = p.height = 2;
    p.channels = 1;
    wg_image_preprocess(&img, &p, out, err, sizeof err);
    CHECK(fabsf(out[0] - 0.299f * 255) < 1e-3f && fabsf(out[3] - 255) < 1e-3f, "gray %g %g", out[0],
          out[3]);
    /* Upscaling interpolates between the corners. */
    p = plain;
    wg_image_preprocess(&img, &p, out, err, sizeof err);
    CHECK(out[0] == 255 && out[1] > 0 && out[1] < 255 && out[3] == 0, "bilinear row %g %g %g %g",
          out[0], out[1], out[2], out[3]);
    p.std[1] = 0;
    CHECK(wg_image_preprocess(&img, &p, out, err, sizeof err) == WG_ERR_INVALID, "zero std accepted");
}

TEST(cat_png)
{
    const char *path = "/work/shared/data/images/cat.png";
    FILE *f = fopen(path, "rb");
    if (!f)
        return; /* shared data is optional */
    fclose(f);
    wg_image img;
    char err[300];
    wg_status st = wg_image_load(path, &img, err, sizeof err);
    CHECK(st == WG_OK, "%s", err);
    if (st)
        return;
    CHECK(img.w == 256 && img.h == 256, "size %dx%d", img.w, img.h);
    float *out = malloc(3 * 224 * 224 * sizeof *out);
    wg_preprocess p = {.width = 224, .height = 224, .channels = 3, .scale = 255,
                       .mean = {0.485f, 0.456f, 0.406f}, .std = {0.229f, 0.224f, 0.225f}};
    for (int crop = 0; crop < 2 && out; crop++) {
        p.resize_short = crop ? 256 : 0;
        st = wg_image_preprocess(&img, &p, out, err, sizeof err);
        CHECK(st == WG_OK, "%s", err);
        float lo = INFINITY, hi = -INFINITY;
        double sum = 0;
        for (int i = 0; i < 3 * 224 * 224; i++) {
            lo = fminf(lo, out[i]);
            hi = fmaxf(hi, out[i]);
            sum += out[i];
        }
        /* ImageNet normalisation maps 0..255 into about [-2.12, 2.64]. */
        CHECK(lo >= -2.2f && hi <= 2.7f && hi - lo > 1, "range [%g, %g]", lo, hi);
        CHECK(fabs(sum / (3 * 224 * 224)) < 1.5, "mean %g", sum / (3 * 224 * 224));
    }
    p.resize_short = 100;
    CHECK(wg_image_preprocess(&img, &p, out, err, sizeof err) == WG_ERR_INVALID &&
              strstr(err, "smaller than the 224x224 crop"), "%s", err);
    free(out);
    wg_image_free(&img);
    CHECK(wg_image_load("/etc/hostname", &img, err, sizeof err) != WG_OK, "decoded a text file");
}

int main(void)
{
    RUN(synthetic_layouts_and_normalisation);
    RUN(cat_png);
    return test_summary("image");
}
