/*
 * fold_map.h: the host evaluator behind constant folding of the generic ops.
 *
 * One mechanism for every elementwise op: each op gives a scalar formula over
 * wgc_scalar values (the host twin of the C expression its emitter writes), and
 * wgc_fold_map applies it with numpy broadcasting, reading and writing every dtype
 * through host_elements.h. Data movement folds through the same affine view its emitter uses
 * (wgc_fold_affine), so folded and run-time results agree element for element.
 */
#ifndef WGC_OPS_FOLD_MAP_H
#define WGC_OPS_FOLD_MAP_H

#include <stdint.h>

#include "../op.h"

/* One element: floats (float16/32/64) as double, signed integers as int64, unsigned
 * integers and bool as uint64 (the field is chosen by wgc_kind of the dtype). */
typedef union wgc_scalar {
    double f;
    int64_t i;
    uint64_t u;
} wgc_scalar;

typedef enum wgc_kind { WGC_KIND_FLOAT, WGC_KIND_SIGNED, WGC_KIND_UNSIGNED } wgc_kind;

wgc_kind wgc_dtype_kind(int dtype);
wgc_scalar wgc_scalar_get(const void *data, int dtype, int64_t i);
/* Stores v (of the kind of dtype): floats round once to dtype, integers wrap like a C cast. */
void wgc_scalar_set(void *data, int dtype, int64_t i, wgc_scalar v);

/* The formula of one op: out = f(in[0..nin-1]). kind is the kind of input 0 (the type T of
 * the emitted expression), size its byte size, dtype its dtype, kinds[k] the kind of input
 * k; out must be of the kind of the output dtype. ctx is the op's own parameters
 * (attributes read once). */
typedef struct wgc_map_args {
    const wgc_node *n;
    wgc_kind kind;
    size_t size;
    int dtype;
    const wgc_kind *kinds;
    const void *ctx;
} wgc_map_args;
typedef wgc_scalar (*wgc_scalar_fn)(const wgc_map_args *a, const wgc_scalar *in);

/* Largest output (elements) a fold may create: folding never bloats the weights with a
 * tensor the module could compute from a small one. */
#define WGC_FOLD_MAX_NUMEL ((int64_t)1 << 22)

/* Rounds v to what a tensor of float dtype holds (float32: to float, float16: to half). */
double wgc_round_to(int dtype, double v);

/* Folds output 0 of n as fn over inputs 0..n->n_inputs-1 broadcast to the output's shape.
 * Returns WG_ERR_UNSUPPORTED (declined) when an input is not constant, a dtype is not
 * foldable or the output is larger than WGC_FOLD_MAX_NUMEL and than every input (a map
 * that broadcasts small constants into a large one). */
wg_status wgc_fold_map(wgc_graph *g, wgc_node *n, wgc_scalar_fn fn, const void *ctx);

/* Folds output 0 of n as y[v] = x[base + sum_d v_d * strides[d]] over a view of rank r of
 * y (the same view wgc_gen_affine emits). */
wg_status wgc_fold_affine(wgc_graph *g, wgc_node *n, int r, const int64_t *dims,
                          const int64_t *strides, int64_t base);

#endif
