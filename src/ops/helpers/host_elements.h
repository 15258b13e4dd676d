/*
 * host_elements.h: generic element access for host-side constant folding.
 *
 * Folding is small (shape subgraphs, a few weights), so it goes through one element
 * accessor that loads any numeric dtype as a double or an int64 and stores it back,
 * instead of one loop per dtype. Float targets convert from double; integer targets
 * wrap like a C cast from int64 (float sources are truncated toward zero, saturated).
 */
#ifndef WGC_OPS_HOST_ELEMENTS_H
#define WGC_OPS_HOST_ELEMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../ir/ir.h"

/* True for the dtypes the folder can read and write (every numeric dtype and bool). */
bool wgc_elem_supported(int dtype);
/* Element i of data (dtype) as a double / as an int64 (floats truncated, saturated). */
double wgc_elem_get_f(const void *data, int dtype, int64_t i);
int64_t wgc_elem_get_i(const void *data, int dtype, int64_t i);
/* Stores v into element i: floats convert (float16 rounds to nearest even), bool is v != 0,
 * integers from double truncate toward zero with saturation. */
void wgc_elem_set_f(void *data, int dtype, int64_t i, double v);
void wgc_elem_set_i(void *data, int dtype, int64_t i, int64_t v);

/* Allocates numel(s) elements of dtype (at least 1 byte, zeroed); NULL on failure (and sets
 * g->err for node n). */
void *wgc_elem_alloc(wgc_graph *g, const wgc_node *n, int dtype, const wgc_shape *s);

/* Row-major strides (in elements) of shape s into strides[s->rank]. */
void wgc_shape_strides(const wgc_shape *s, int64_t *strides);
/* Element offset in a tensor of shape src (broadcast to dst's rank, numpy rules) of the
 * multi-index idx[dst->rank]. */
int64_t wgc_bcast_offset(const wgc_shape *src, const wgc_shape *dst, const int64_t *idx);
/* Advances the multi-index idx over shape s (row-major); false after the last element. */
bool wgc_index_next(const wgc_shape *s, int64_t *idx);

/* Normalises axis (negative counts from the end) into [0, rank); false when out of range. */
bool wgc_norm_axis(int64_t axis, int rank, int *out);

#endif
