/* read_axes.h: reads the `axes` of Squeeze/Unsqueeze/Pad (attribute before opset 13, constant
 * input from 13; Pad from 18), shared by those op files. */
#ifndef WGC_OPS_READ_AXES_H
#define WGC_OPS_READ_AXES_H

#include "../op.h"

/* Reads axes from input `input` (when present) or attribute "axes"; *count = -1 when
 * neither exists. Normalises negative axes against rank and rejects duplicates and
 * out-of-range values. The input, when given, must be constant. */
wg_status wgc_read_axes(wgc_graph *g, const wgc_node *n, int input, int rank, int *axes,
                        int *count);

#endif
