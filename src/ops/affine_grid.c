/*
 * affine_grid.c: AffineGrid (opset 20), float and double: for theta [N, 2, 3] and a constant
 * size [N, C, H, W] the grid [N, H, W, 2] of theta applied to the normalised coordinates
 * (x, y, 1) of each output pixel (3-D: theta [N, 3, 4], size [N, C, D, H, W], grid
 * [N, D, H, W, 3] from (x, y, z, 1)); coordinates run over [-1, 1] through the pixel centres,
 * or through the corner pixels with align_corners (a single pixel: -1). An inline loop.
 */
#include <stdio.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, 0};

/* The grid's geometry: sd spatial dims (2 or 3) of sizes d (D, H, W; D = 1 in 2-D), and
 * its shape y. */
typedef struct ag_geom {
    int sd;
    int64_t d[3];
    wgc_shape y;
} ag_geom;

static wg_status resolve(wgc_graph *g, const wgc_node *n, ag_geom *q)
{
    static const int ints[] = {WG_DT_INT64, 0};
    wg_status st = wgc_check_two_inputs(g, n, floats, ints);
    if (st)
        return st;
    const wgc_tensor *t = wgc_in(g, n, 0), *s = wgc_in(g, n, 1);
    if (!s->data)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "size input '%s' is computed at run time; only constant "
                         "values are supported", s->name);
    const int64_t m = wgc_numel(&s->shape);
    if (m != 4 && m != 5)
        return wgc_error(g, n, WG_ERR_INVALID, "size has %lld values (4 or 5)", (long long)m);
    const int sd = q->sd = (int)m - 2;
    const int64_t N = wgc_const_int(s, 0);
    if (t->shape.rank != 3 || t->shape.dims[0] != N || t->shape.dims[1] != sd || t->shape.dims[2] != sd + 1)
        return wgc_error(g, n, WG_ERR_INVALID, "theta must be [%lld, %d, %d]", (long long)N, sd, sd + 1);
    int64_t *dims = q->d;
    dims[0] = 1;
    for (int k = 0; k < sd; k++) {
        dims[3 - sd + k] = wgc_const_int(s, 2 + k);
        if (dims[3 - sd + k] < 0 || dims[3 - sd + k] > ((int64_t)1 << 20))
            return wgc_error(g, n, WG_ERR_INVALID, "size value %lld", (long long)dims[3 - sd + k]);
    }
    if (N * dims[0] * dims[1] * dims[2] * sd >= ((int64_t)1 << 31))
        return wgc_error(g, n, WG_ERR_LIMIT, "the grid has 2^31 or more elements");
    q->y = sd == 2 ? (wgc_shape){.rank = 4, .dims = {t->shape.dims[0], dims[1], dims[2], 2}}
                   : (wgc_shape){.rank = 5, .dims = {t->shape.dims[0], dims[0], dims[1], dims[2], 3}};
    return WG_OK;
}

WGC_INFER_BY_RESOLVE(affine_grid_infer, ag_geom, resolve, q.y)

/* The normalised coordinate of index i of S: "(double)..." as a C expression into buf. */
static void coord(char *buf, size_t cap, const char *i, int64_t S, bool align)
{
    if (align)
        snprintf(buf, cap, "(%lld > 1 ? -1.0 + %s * (2.0 / %lld) : -1.0)", (long long)S, i, (long long)(S - 1));
    else
        snprintf(buf, cap, "(-1.0 + (2.0 * %s + 1.0) / %lld)", i, (long long)S);
}

static wg_status affine_grid_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    ag_geom q;
    wg_status st = resolve(g, n, &q);
    if (st || wgc_numel(&wgc_out(g, n, 0)->shape) == 0)
        return st;
    const wgc_tensor *t = wgc_in(g, n, 0);
    const int sd = q.sd;
    const int64_t *d = q.d;
    const bool align = wgc_attr_int(n, "align_corners", 0) != 0;
    char cz[160], cy[160], cx[160];
    coord(cz, sizeof cz, "z", d[0], align);
    coord(cy, sizeof cy, "y", d[1], align);
    coord(cx, sizeof cx, "x", d[2], align);
    const int r = sd, c = sd + 1;
    wgc_emit(e, "{\ntypedef %s T;\nconst T *pt = (const T *)%s;\nT *py = (T *)%s;\n"
                "for (int32_t b = 0; b < %lld; b++) {\nconst T *th = pt + (int64_t)b * %d;\n"
                "for (int32_t z = 0; z < %lld; z++)\nfor (int32_t y = 0; y < %lld; y++)\n"
                "for (int32_t x = 0; x < %lld; x++) {\n"
                "const double v[4] = {%s, %s, %s, 1.0};\n",
             wgc_ctype(t->dtype), wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]),
             (long long)t->shape.dims[0], r * c, (long long)d[0], (long long)d[1], (long long)d[2], cx, cy,
             sd == 3 ? cz : "1.0");
    wgc_emit(e, "T *o = py + ((((int64_t)b * %lld + z) * %lld + y) * %lld + x) * %d;\n"
                "for (int32_t k = 0; k < %d; k++) {\ndouble s = 0;\n"
                "for (int32_t j = 0; j < %d; j++) s += (double)th[k * %d + j] * v[j];\n",
             (long long)d[0], (long long)d[1], (long long)d[2], r, r, c, c);
    wgc_emit(e, "o[k] = (T)s;\n}\n}\n}\n}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_affine_grid = {.infer = affine_grid_infer, .emit = affine_grid_emit};
