/* cache_pairs.h: the KV-cache pairs of a decoder (docs/abi.md "Resident KV caches"): a graph
 * input (the past) whose only data reader is one Concat of the main graph that takes it
 * as its first of two inputs along a symbolic axis, and whose output is a graph output
 * (the present). The module keeps a region per pair in which the present lies at its
 * largest size along the axis (capacity rows of each outer slice), so that a host may
 * leave the cache there between runs and write nothing but the new tokens' inputs. One
 * definition, read by the Concat's code (ops/helpers/cache_concat.c), the memory layout
 * and exports (codegen/generate.c, sym_exports.c) and the metadata (codegen/metadata.c). */
#ifndef WGC_CACHE_PAIRS_H
#define WGC_CACHE_PAIRS_H

#include "ir.h"

typedef struct wgc_cache_pair {
    int input, output;  /* the past's index in g->inputs, the present's in g->outputs */
    int node;           /* the Concat */
    int axis;           /* the concat axis */
    int64_t capacity;   /* rows of one outer slice in the region: the present's largest size
                         * along the axis */
    int64_t offset;     /* the region's offset among the regions (64-byte aligned) */
    int64_t bytes;      /* the region's size: the present's buffer at its maxima */
} wgc_cache_pair;

/* The pairs of g in the order of their past inputs, into out (up to cap of them); returns
 * how many there are (maybe more than cap). A graph without symbols has none. */
int wgc_cache_pairs(const wgc_graph *g, wgc_cache_pair *out, int cap);
/* The bytes of all regions (each 64-byte aligned), 0 without pairs. */
int64_t wgc_cache_bytes(const wgc_graph *g);
/* The pair whose Concat is node `node` into *p, its index; -1 when it is none. */
int wgc_cache_pair_of(const wgc_graph *g, int node, wgc_cache_pair *p);

#endif
