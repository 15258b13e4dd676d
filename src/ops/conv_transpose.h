/* conv_transpose.h: a ConvTranspose node's geometry, shared by the op (conv_transpose.c)
 * and the kernel-selection step (src/select/select.c). */
#ifndef WGC_OPS_CONV_TRANSPOSE_H
#define WGC_OPS_CONV_TRANSPOSE_H

#include "../ir/ir.h"

/* Spatial dims padded to 3 with size 1 (in = out = k = s = d = 1, pb = 0). */
typedef struct wgc_deconv_geom {
    int rank;
    int64_t N, C, M, groups;
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3]; /* pb: padding before */
} wgc_deconv_geom;

/* Reads n's attributes against its input shapes; an error (on g) names what is wrong. */
wg_status wgc_deconv_geom_of(wgc_graph *g, const wgc_node *n, wgc_deconv_geom *c);

#endif
