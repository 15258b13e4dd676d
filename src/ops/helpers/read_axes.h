/* read_axes.h: reads the `axes` of Squeeze/Unsqueeze/Pad (attribute before opset 13, constant
 * input from 13; Pad from 18), and the axis and [outer][len][inner] view of the ops that
 * work along one axis (Softmax, LogSoftmax, Hardmax, the normalisations, CumSum). */
#ifndef WGC_OPS_READ_AXES_H
#define WGC_OPS_READ_AXES_H

#include "../op.h"

/* Reads axes from input `input` (when present) or attribute "axes"; *count = -1 when
 * neither exists. Normalises negative axes against rank and rejects duplicates and
 * out-of-range values. The input, when given, must be constant. */
wg_status wgc_read_axes(wgc_graph *g, const wgc_node *n, int input, int rank, int *axes,
                        int *count);

/* The axis of Softmax, LogSoftmax and Hardmax, its default set by the opset: before 13 the
 * input is flattened to 2-D at `axis` (default 1) and normalised over the whole second part
 * (*block = true); from 13 along the one axis `axis` (default -1). */
int64_t wgc_softmax_axis(const wgc_node *n, bool *block);
int64_t wgc_softmax_axis_default(const wgc_node *n);

/* The [outer][len][inner] view of shape s around `axis` (negative counts from the back):
 * len is dim axis, or dims [axis, rank) when block. An axis outside [-rank, rank - 1]
 * (rank itself allowed when end_ok: everything in the outer part) is an error naming n. */
wg_status wgc_axis_view(wgc_graph *g, const wgc_node *n, const wgc_shape *s, int64_t axis, bool block,
                        bool end_ok, int64_t *outer, int64_t *len, int64_t *inner);

#endif
