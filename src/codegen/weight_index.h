/* weight_index.h: the weights segment's blobs by content, so that the emitter places each
 * distinct blob once (emitter.c, weight_add): a weight that several nodes read, each
 * packing it alike (the two branches of an If reading one initializer), or that folding
 * made twice (a Transpose of the same table folded in each branch), is one blob that they
 * all address. Private to src/codegen. */
#ifndef WGC_WEIGHT_INDEX_H
#define WGC_WEIGHT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wgc_weight_slot {
    uint64_t hash;
    int64_t off; /* -1: empty */
    size_t bytes;
} wgc_weight_slot;

typedef struct wgc_weight_index {
    wgc_weight_slot *slots; /* open addressing, a power of two of them */
    size_t cap, used;
} wgc_weight_index;

/* The content hash of bytes of data. */
uint64_t wgc_weight_hash(const void *data, size_t bytes);

/* The offset in segment (the weights placed so far) of a blob equal to bytes of data with
 * content hash h, or -1: none. */
int64_t wgc_weight_index_find(const wgc_weight_index *x, const uint8_t *segment, const void *data, size_t bytes,
                              uint64_t h);

/* Records the blob of bytes at off with content hash h; false when out of memory. */
bool wgc_weight_index_add(wgc_weight_index *x, uint64_t h, int64_t off, size_t bytes);

void wgc_weight_index_free(wgc_weight_index *x);

#endif
