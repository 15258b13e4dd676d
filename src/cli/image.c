/* image.c: see image.h. The one file that holds stb_image's implementation. */
#include "image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"

/* stb_image is third-party code: its own warnings are not ours to fix. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#define STBI_FAILURE_USERMSG
#include <stb/stb_image.h>
#pragma clang diagnostic pop

wg_status wg_image_load(const char *path, wg_image *out, char *err, size_t errlen)
{
    int w, h, comp;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return wg_fail(err, errlen, WG_ERR_IO, "%s: cannot open the image", path);
    /* Asking for 3 components drops alpha and expands gray. */
    uint8_t *px = stbi_load_from_file(f, &w, &h, &comp, 3);
    fclose(f);
    if (!px)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: cannot decode the image: %s", path,
                    stbi_failure_reason());
    out->w = w;
    out->h = h;
    out->px = px;
    return WG_OK;
}

void wg_image_free(wg_image *img)
{
    if (img->px)
        stbi_image_free(img->px);
    memset(img, 0, sizeof *img);
}

/* Bilinear sample of colour channel c at source coordinates (x, y), pixel centres at
 * integer + 0.5 already subtracted by the caller; edges are clamped. */
static float sample(const wg_image *img, float x, float y, int c)
{
    if (x < 0)
        x = 0;
    if (y < 0)
        y = 0;
    int x0 = (int)x, y0 = (int)y;
    if (x0 > img->w - 1)
        x0 = img->w - 1;
    if (y0 > img->h - 1)
        y0 = img->h - 1;
    int x1 = x0 + 1 < img->w ? x0 + 1 : x0, y1 = y0 + 1 < img->h ? y0 + 1 : y0;
    float fx = x - (float)x0, fy = y - (float)y0;
    if (fx > 1)
        fx = 1;
    if (fy > 1)
        fy = 1;
    const uint8_t *r0 = img->px + (size_t)y0 * (size_t)img->w * 3;
    const uint8_t *r1 = img->px + (size_t)y1 * (size_t)img->w * 3;
    float top = (float)r0[x0 * 3 + c] * (1 - fx) + (float)r0[x1 * 3 + c] * fx;
    float bot = (float)r1[x0 * 3 + c] * (1 - fx) + (float)r1[x1 * 3 + c] * fx;
    return top * (1 - fy) + bot * fy;
}

wg_status wg_image_preprocess(const wg_image *img, const wg_preprocess *p, float *out, char *err,
                              size_t errlen)
{
    int W = p->width, H = p->height, C = p->channels;
    if (W <= 0 || H <= 0 || W > 16384 || H > 16384)
        return wg_fail(err, errlen, WG_ERR_INVALID, "image size %dx%d is out of range", W, H);
    if (C != 1 && C != 3)
        return wg_fail(err, errlen, WG_ERR_INVALID, "the model wants %d channels; images have 1 or 3", C);
    if (!(p->scale > 0))
        return wg_fail(err, errlen, WG_ERR_INVALID, "scale must be positive, got %g", (double)p->scale);
    for (int c = 0; c < C; c++)
        if (p->std[c] == 0)
            return wg_fail(err, errlen, WG_ERR_INVALID, "std of channel %d is zero", c);
    /* The virtual resized image is RW x RH; we read the window at (ox, oy) of it. */
    double RW = W, RH = H, ox = 0, oy = 0;
    if (p->resize_short > 0) {
        double k = (double)p->resize_short / (img->w < img->h ? img->w : img->h);
        RW = round(img->w * k);
        RH = round(img->h * k);
        if (RW < W || RH < H)
            return wg_fail(err, errlen, WG_ERR_INVALID,
                        "the image resized to %.0fx%.0f is smaller than the %dx%d crop", RW, RH, W, H);
        ox = floor((RW - W) / 2);
        oy = floor((RH - H) / 2);
    }
    double sx = img->w / RW, sy = img->h / RH;
    size_t plane = (size_t)W * (size_t)H;
    for (int y = 0; y < H; y++) {
        float fy = (float)((y + oy + 0.5) * sy - 0.5);
        for (int x = 0; x < W; x++) {
            float fx = (float)((x + ox + 0.5) * sx - 0.5);
            float rgb[3];
            for (int c = 0; c < 3; c++)
                rgb[c] = sample(img, fx, fy, c);
            float v[3];
            if (C == 1) {
                v[0] = 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
                v[0] = (v[0] / p->scale - p->mean[0]) / p->std[0];
            } else {
                for (int c = 0; c < 3; c++)
                    rgb[c] = (rgb[c] / p->scale - p->mean[c]) / p->std[c];
                for (int c = 0; c < 3; c++)
                    v[c] = rgb[p->bgr ? 2 - c : c];
            }
            size_t pix = (size_t)y * (size_t)W + (size_t)x;
            for (int c = 0; c < C; c++) {
                if (p->nhwc)
                    out[pix * (size_t)C + (size_t)c] = v[c];
                else
                    out[(size_t)c * plane + pix] = v[c];
            }
        }
    }
    return WG_OK;
}
