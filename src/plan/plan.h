/*
 * plan.h: the memory planner. Every tensor the module writes gets a byte offset in one
 * arena; tensors whose lifetimes do not overlap share bytes. Graph inputs and outputs
 * get slots of their own that are never reused (the host writes inputs before wg_run
 * and reads outputs after it). A node's scratch area is a tensor alive only during it.
 */
#ifndef WGC_PLAN_H
#define WGC_PLAN_H

#include "../ir/ir.h"

#define WGC_ALIGN 64

typedef struct wgc_plan {
    int64_t arena_bytes;
    int64_t *scratch_offset; /* per node, -1 when the node needs none; owned */
    int64_t *scratch_bytes;  /* per node; owned */
    /* Set by the caller before wgc_plan_memory: the threads of a threaded module; 0 or 1:
     * one. With more, the scratch of every node whose kernel splits its work
     * (wgc_node_scratch_per_thread) is not in the arena: each thread has a region of its own,
     * thread_scratch_bytes long, outside it, and such a node's scratch starts at its
     * region's start (scratch_offset 0, scratch_per_thread[node] set). Memory a thread
     * alone writes stays in its core's cache: in the arena it reused bytes the other
     * cores had just written, which was measured slower (docs/performance.md "Threads"). */
    int threads;
    bool *scratch_per_thread;     /* per node; owned */
    int64_t thread_scratch_bytes; /* the largest such scratch, WGC_ALIGN-aligned */
} wgc_plan;

/* Sets tensors[].addr (arena offsets) for every tensor a live node reads or writes that
 * is not a constant. */
wg_status wgc_plan_memory(wgc_graph *g, wgc_plan *plan);
void wgc_plan_free(wgc_plan *plan);

#endif
