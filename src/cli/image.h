/*
 * image.h: decoding (PNG, JPEG, BMP, ... through stb_image) and preprocessing an image
 * into a model's input tensor for `wasmgraph classify`.
 *
 * Preprocessing, per output pixel: bilinear sampling (half-pixel centres) of the source,
 * optionally after scaling its shorter side and taking the centre crop; then for each
 * channel v in 0..255 becomes (v / scale - mean[c]) / std[c], where c names the source
 * colour (R, G, B; or the single gray channel, which uses mean[0]/std[0]); then the
 * channels are ordered RGB or BGR and laid out NCHW or NHWC.
 */
#ifndef WG_IMAGE_H
#define WG_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

typedef struct wg_image {
    int w, h;    /* pixels */
    uint8_t *px; /* w*h RGB triples, row-major; alpha dropped; gray expanded */
} wg_image;

wg_status wg_image_load(const char *path, wg_image *out, char *err, size_t errlen);
void wg_image_free(wg_image *img);

typedef struct wg_preprocess {
    int width, height;  /* output size */
    int channels;       /* 3 (colour) or 1 (gray: 0.299 R + 0.587 G + 0.114 B) */
    int resize_short;   /* > 0: scale the shorter side to this, then centre-crop width x height;
                           0: stretch the whole image to width x height */
    float scale;        /* v / scale first (1: keep 0..255, 255: 0..1) */
    float mean[3], std[3]; /* per source colour R, G, B */
    bool bgr;           /* channel order B, G, R instead of R, G, B */
    bool nhwc;          /* layout H, W, C instead of C, H, W */
} wg_preprocess;

/* Fills out[channels * height * width] floats. WG_ERR_INVALID for bad settings (zero std,
 * sizes, a crop larger than the resized image). */
wg_status wg_image_preprocess(const wg_image *img, const wg_preprocess *p, float *out, char *err,
                              size_t errlen);

#endif
