/*
 * qweight.c: what the quantized-weight ops share (qweight.h): identical constants placed
 * once, float16 scales kept float16 in threaded builds too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qweight.h"

static size_t const_bytes(const wgc_tensor *x)
{
    return (size_t)wgc_numel(&x->shape) * wg_dtype_size(x->dtype);
}

int wgc_qweight_canonical(const wgc_graph *g, int t)
{
    const wgc_tensor *x = &g->tensors[t];
    if (!x->data)
        return t;
    const size_t bytes = const_bytes(x);
    for (int i = 0; i < t; i++) {
        const wgc_tensor *y = &g->tensors[i];
        if (y->data && y->dtype == x->dtype && const_bytes(y) == bytes && !memcmp(y->data, x->data, bytes))
            return i;
    }
    return t;
}

/* The emitter's threshold (codegen/emitter.c): below it float32 is cheaper than the code. */
#define HALF_MIN_BYTES 1024

wg_status wgc_qweight_scales(wgc_emitter *e, wgc_graph *g, const wgc_node *n, int t, char *out, size_t cap)
{
    const wgc_tensor *x = &g->tensors[t];
    const int64_t count = wgc_numel(&x->shape);
    bool half = wgc_threaded(e) && g->fp16_weights && x->data && x->dtype == WG_DT_FLOAT &&
                count * 4 >= HALF_MIN_BYTES;
    const float *f = x->data;
    for (int64_t i = 0; half && i < count; i++) {
        const float r = wg_f16_to_f32(wg_f32_to_f16(f[i]));
        half = !memcmp(&r, &f[i], 4);
    }
    if (!half) {
        snprintf(out, cap, "%s", wgc_ptr(e, g, t));
        return WG_OK;
    }
    uint16_t *h = malloc(sizeof *h * (size_t)count);
    if (!h)
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory storing '%s' as float16", x->name);
    for (int64_t i = 0; i < count; i++)
        h[i] = wg_f32_to_f16(f[i]);
    const char *w, *p;
    wg_status st = wgc_weight(e, h, sizeof *h * (size_t)count, &w);
    free(h);
    char src[96];
    if (!st) {
        snprintf(src, sizeof src, "%s", w);
        st = wgc_prepared(e, 4 * (size_t)count, &p);
    }
    if (st)
        return wgc_error(g, n, st, "storing '%s' as float16", x->name);
    snprintf(out, cap, "%s", p);
    wgc_emit(e, "{\n    static int widened;\n    if (!widened) {\n        wgk_f16_widen((const uint16_t *)%s, "
                "(float *)%s, %lld);\n        widened = 1;\n    }\n}\n", src, out, (long long)count);
    return WG_OK;
}
