/*
 * sliding_window.h: the sliding-window geometry shared by Conv and the pools: kernel_shape,
 * strides, dilations, pads, auto_pad and ceil_mode resolved into output sizes and
 * explicit pads (ONNX rules).
 */
#ifndef WGC_OPS_SLIDING_WINDOW_H
#define WGC_OPS_SLIDING_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "../op.h"

typedef struct wgc_window {
    int rank;                /* spatial dims */
    int64_t k[WG_MAX_RANK];  /* kernel */
    int64_t s[WG_MAX_RANK];  /* strides */
    int64_t d[WG_MAX_RANK];  /* dilations */
    int64_t pb[WG_MAX_RANK]; /* pads at the beginning */
    int64_t pe[WG_MAX_RANK]; /* pads at the end */
    int64_t out[WG_MAX_RANK];
} wgc_window;

/* Resolves the window of node n over the spatial sizes in[rank]. kernel: the kernel size
 * when it comes from a weight (Conv), checked against kernel_shape when both exist; NULL
 * to require kernel_shape (pools). ceil_mode is read only when allow_ceil. Errors
 * (negative pads, zero strides, attribute lengths, an empty output) name the node. */
wg_status wgc_window_resolve(wgc_graph *g, const wgc_node *n, const int64_t *in, int rank,
                             const int64_t *kernel, bool allow_ceil, wgc_window *w);

/* Sets output i of pool n (input 0: N, C, then w->rank spatial dims) to dtype and the shape
 * N, C, w->out. */
void wgc_window_set_output(wgc_graph *g, const wgc_node *n, const wgc_window *w, int i, int dtype);

/* The sizes the code of a window op over x -> y ([N, C, (H,) W] -> [N, M, (OH,) OW]; 1-D as
 * H = OH = 1) runs on, as C text: literals for fixed dims, reads of wg_dims for symbolic
 * ones (emit.h wgc_size_expr). NC: N * C of x; the planes: H * W and OH * OW; numel: y's. */
typedef struct wgc_window_sizes {
    char N[96], NC[96], H[96], W[96], OH[96], OW[96], in_plane[96], out_plane[96], numel[96];
} wgc_window_sizes;
void wgc_window_sizes_of(wgc_emitter *e, const wgc_shape *x, const wgc_shape *y, wgc_window_sizes *z);

#endif
