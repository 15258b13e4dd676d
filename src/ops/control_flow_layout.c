/*
 * control_flow_layout.c: where an If, Loop or Scan node keeps its values (the layout of its
 * inputs, control_flow_layout.h), and a Scan's axes, batch and length; read by
 * control_flow.c, control_flow_body.c and unroll.c.
 */
#include "control_flow_layout.h"

#include <string.h>

#include "../ir/symdim.h"
#include "sym.h"
#include "helpers/index_loops.h"

/* ---- layout -------------------------------------------------------------------------- */

wg_status wgc_cf_layout_of(wgc_graph *g, const wgc_node *n, wgc_cf_layout *l)
{
    memset(l, 0, sizeof *l);
    int want;
    if (n->op == WGC_OP_IF) {
        l->n_onnx = 1;
        l->n_state = n->n_outputs;
        l->first_body_out = 1;
        want = 1 + 2 * n->n_outputs;
    } else {
        const wgc_body *b = wgc_attr_body(n, "body");
        if (!b)
            return wgc_error(g, n, WG_ERR_INVALID, "has no body");
        if (n->op == WGC_OP_LOOP) {
            l->n_state = b->n_inputs - 2;
            l->first_state = 2;
            l->n_onnx = 2 + l->n_state;
        } else {
            l->n_scan_in = (int)wgc_attr_int(n, "num_scan_inputs", 0);
            l->lens = n->opset < 9;
            l->n_state = b->n_inputs - l->n_scan_in;
            l->first_state = l->lens;
            l->n_onnx = l->lens + l->n_state + l->n_scan_in;
        }
        l->n_scan = n->n_outputs - l->n_state;
        l->first_body_out = l->n_onnx;
        l->first_carried = l->n_onnx + (n->op == WGC_OP_LOOP) + l->n_state + l->n_scan;
        want = l->first_carried + l->n_state;
    }
    if (n->n_inputs != want || l->n_state < 0 || l->n_scan < 0)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "internal error: %d inputs, not linked to its body (%d expected)",
                         n->n_inputs, want);
    return WG_OK;
}

/* ---- Scan's axes --------------------------------------------------------------------- */

/* Scan input or output k's axis (scan_input_axes / scan_output_axes; Scan-8: 1, after the
 * batch) normalised for rank, and its direction (1: reverse). */
wg_status wgc_cf_scan_axis(wgc_graph *g, const wgc_node *n, bool input, int k, int rank, int *axis,
                           int *reverse)
{
    size_t na = 0, nd = 0;
    const int64_t *axes = NULL, *dirs;
    if (n->opset < 9) {
        dirs = input ? wgc_attr_ints(n, "directions", &nd) : NULL;
        *axis = 1;
    } else {
        axes = wgc_attr_ints(n, input ? "scan_input_axes" : "scan_output_axes", &na);
        dirs = wgc_attr_ints(n, input ? "scan_input_directions" : "scan_output_directions", &nd);
        int64_t a = axes && (size_t)k < na ? axes[k] : 0;
        if (a < -rank || a >= rank)
            return wgc_error(g, n, WG_ERR_INVALID, "scan %s %d: axis %lld is out of range for rank %d",
                             input ? "input" : "output", k, (long long)a, rank);
        *axis = (int)(a < 0 ? a + rank : a);
    }
    int64_t d = dirs && (size_t)k < nd ? dirs[k] : 0;
    if (d != 0 && d != 1)
        return wgc_error(g, n, WG_ERR_INVALID, "scan %s %d: direction %lld is neither 0 nor 1",
                         input ? "input" : "output", k, (long long)d);
    *reverse = (int)d;
    return WG_OK;
}

wg_status wgc_cf_scan_input_axis(wgc_graph *g, const wgc_node *n, int k, int rank, int *axis)
{
    int rev;
    return wgc_cf_scan_axis(g, n, true, k, rank, axis, &rev);
}

/* Scan's batch (Scan-8: B, else 1) and sequence length T, checked across its scan inputs. */
wg_status wgc_cf_scan_extent(wgc_graph *g, const wgc_node *scan, const wgc_cf_layout *l, int64_t *batch,
                             int64_t *len)
{
    *batch = 1;
    *len = -1;
    int first_axis = 0;
    const int first_in = l->first_state + l->n_state;
    for (int k = 0; k < l->n_scan_in; k++) {
        const wgc_tensor *x = wgc_in(g, scan, first_in + k);
        if (!x)
            return wgc_error(g, scan, WG_ERR_INVALID, "scan input %d is missing", k);
        int axis, rev;
        wg_status st;
        if (x->shape.rank < (l->lens ? 2 : 1))
            return wgc_error(g, scan, WG_ERR_INVALID, "scan input '%s' has rank %d, too low", x->name,
                             x->shape.rank);
        if ((st = wgc_cf_scan_axis(g, scan, true, k, x->shape.rank, &axis, &rev)))
            return st;
        int64_t b = l->lens ? x->shape.dims[0] : 1, t = x->shape.dims[axis];
        /* a symbolic length (--dim seq over time steps), the same for every input, and
         * symbolic element dims ([batch, seq, h] along axis 1): emit reads them at run time */
        if (l->lens && wgc_shape_is_sym(&x->shape))
            return wgc_sym_refuse(g, scan, "a Scan-8 of symbolic dims");
        const int first = l->first_state + l->n_state;
        if (k && memcmp(x->shape.sym[axis], wgc_in(g, scan, first)->shape.sym[first_axis], WGC_MAX_SYMS))
            return wgc_sym_refuse(g, scan, "scan inputs of different symbolic lengths");
        if (!k)
            first_axis = axis;
        if ((*len >= 0 && t != *len) || (k && b != *batch))
            return wgc_error(g, scan, WG_ERR_INVALID,
                             "scan input '%s' has %lld steps (batch %lld), the others %lld (batch %lld)",
                             x->name, (long long)t, (long long)b, (long long)*len, (long long)*batch);
        *len = t;
        *batch = b;
    }
    if (*len < 0)
        return wgc_error(g, scan, WG_ERR_INVALID, "has no scan input");
    const wgc_tensor *lens = l->lens ? wgc_in(g, scan, 0) : NULL;
    if (lens) {
        wg_status st = wgc_loop_need_const(g, scan, 0, "sequence_lens");
        if (st)
            return st;
        for (int64_t b = 0; b < wgc_numel(&lens->shape); b++)
            if (wgc_const_int(lens, b) != *len)
                return wgc_error(g, scan, WG_ERR_UNSUPPORTED,
                                 "sequence_lens[%lld] is %lld, not the full %lld steps; shorter "
                                 "sequences are not supported",
                                 (long long)b, (long long)wgc_const_int(lens, b), (long long)*len);
    }
    return WG_OK;
}
