/* emitter.h: the emitter's state, private to src/codegen (ops see only emit.h). */
#ifndef WGC_EMITTER_H
#define WGC_EMITTER_H

#include "../plan/plan.h"
#include "../ops/emit.h"
#include "weight_index.h"

/* A float32 weight stored as float16 (emitter.c): n halves at W(woff), widened on the
 * first run of the step that placed it into n floats at P(poff). */
typedef struct wgc_half_blob {
    uint64_t woff, poff, n;
} wgc_half_blob;

struct wgc_emitter {
    wgc_target target;
    wgc_graph *g;
    const wgc_plan *plan;
    int node;             /* node being emitted, for wgc_scratch */
    char *body;           /* C statements of wg_run */
    size_t len, cap;
    uint8_t *weights;     /* the weights segment, in final packed layout */
    size_t wlen, wcap;
    wgc_weight_index placed; /* the blobs in weights by content: each placed once (weight_add) */
    int64_t *weight_off;  /* per tensor: offset in weights, -1 until placed */
    int64_t *packed_off;  /* per tensor: offset of its bytes in a layout (wgc_weight_keep), -1: none */
    int *packed_layout;   /* per tensor: that layout */
    size_t plen;          /* bytes reserved in the prepared-weights region (wgc_prepared) */
    bool *weight_half;    /* per tensor: placed as float16, weight_off is then its P offset */
    wgc_half_blob *halves; /* float16 weights to widen, in the order steps place them */
    int n_halves, cap_halves;
    size_t static_bytes;  /* static data the ops' code declares (wgc_static_data) */
    size_t *step_weights; /* per step of wg_run_step: bytes of weights it and the steps before read */
    int n_steps;
    bool split;           /* threaded build: this node's code runs on every thread (wgc_part) */
    bool single;          /* threaded build: this step (a control-flow construct with its
                           * bodies) runs whole on thread 0, so its nodes do not split */
    int vary_tensor[WGC_VARY_MAX]; /* wgc_ptr_vary: addresses that advance with wg_sample */
    int64_t vary_stride[WGC_VARY_MAX];
    int n_vary;
    bool failed;          /* an allocation failed: the result is unusable */
    char ring[16][96];
    int ring_i;
};

wg_status wgc_emitter_init(wgc_emitter *e, wgc_graph *g, const wgc_plan *plan, const wgc_target *t);
void wgc_emitter_free(wgc_emitter *e);

#endif
