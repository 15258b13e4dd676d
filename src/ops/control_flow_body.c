/*
 * control_flow_body.c: the code a Loop's or Scan's BodyBegin opens its body with (the loops,
 * the initial values, a Scan's rows and slices read into the body's inputs), and the copies
 * that end each iteration (the carry, a Scan's output slices and state rows); control_flow.c
 * calls them (control_flow_body.h).
 */
#include "control_flow_body.h"

#include <stdio.h>

#include "helpers/emit_and_fold.h"

static int index_of(const wgc_graph *g, const wgc_node *n)
{
    return (int)(n - g->nodes);
}

/* Is symbol s the run-time dim of tensor t (t >= 0) that this construct writes (an If's or
 * a Loop's output, if_infer / loop_infer)? */
static bool owns_sym(const wgc_graph *g, int t, int s)
{
    return t >= 0 && g->syms[s].runtime && g->syms[s].tensor == t;
}

/* Copies of the carried values back into the body's inputs, through scratch when one of
 * the next values is another value's input (a body that swaps two: after the first copy
 * the second would read the new value). Returns the scratch bytes that needs, 0 for none. */
size_t wgc_cf_staging_bytes(const wgc_graph *g, const wgc_node *n, const wgc_cf_layout *l)
{
    const int out0 = l->first_body_out + (n->op == WGC_OP_LOOP);
    bool clash = false;
    size_t bytes = 0;
    for (int k = 0; k < l->n_state; k++) {
        const int v_out = n->inputs[out0 + k];
        for (int j = 0; j < l->n_state; j++)
            clash |= j != k && v_out == n->inputs[l->first_carried + j];
        const wgc_tensor *v = &g->tensors[n->inputs[l->first_carried + k]];
        bytes += ((size_t)wgc_numel(&v->shape) * wg_dtype_size(v->dtype) + 63) / 64 * 64;
    }
    return clash ? bytes : 0;
}

void wgc_cf_emit_carry(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_cf_layout *l)
{
    const int out0 = l->first_body_out + (n->op == WGC_OP_LOOP);
    if (!wgc_cf_staging_bytes(g, n, l)) {
        for (int k = 0; k < l->n_state; k++)
            wgc_emit_copy(e, g, n->inputs[out0 + k], n->inputs[l->first_carried + k]);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        for (int k = 0; k < l->n_state; k++) {
            const wgc_tensor *v = &g->tensors[n->inputs[l->first_carried + k]];
            size_t bytes = (size_t)wgc_numel(&v->shape) * wg_dtype_size(v->dtype);
            const char *s = wgc_scratch(e);
            const char *x = wgc_ptr(e, g, n->inputs[pass ? l->first_carried + k : out0 + k]);
            if (bytes && !pass)
                wgc_emit(e, "memcpy((uint8_t *)%s + %zu, %s, %zu);\n", s, at, x, bytes);
            else if (bytes)
                wgc_emit(e, "memcpy(%s, (uint8_t *)%s + %zu, %zu);\n", x, s, at, bytes);
            at += (bytes + 63) / 64 * 64;
        }
    }
}

void wgc_cf_emit_loop_begin(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_node *loop,
                            const wgc_cf_layout *l)
{
    const int id = index_of(g, n);
    wgc_emit(e, "{ /* Loop %s */\n", loop->name);
    const wgc_tensor *m = n->inputs[0] >= 0 ? &g->tensors[n->inputs[0]] : NULL;
    if (m && m->symval) /* a symbolic trip count (seq): its value at run time */
        wgc_emit(e, "int64_t wg_trip%d = (int64_t)%s;\n", id, wgc_dimx_expr(e, &m->symval[0]));
    else if (m)
        wgc_emit(e, "int64_t wg_trip%d = *(const int64_t *)%s;\n", id, wgc_ptr(e, g, n->inputs[0]));
    else
        wgc_emit(e, "int64_t wg_trip%d = INT64_MAX;\n", id);
    if (n->inputs[1] >= 0)
        wgc_emit(e, "int wg_go%d = *(const uint8_t *)%s != 0;\n", id, wgc_ptr(e, g, n->inputs[1]));
    else
        wgc_emit(e, "int wg_go%d = 1;\n", id);
    for (int k = 0; k < l->n_state; k++)
        wgc_emit_copy(e, g, n->inputs[2 + k], n->outputs[2 + k]);
    for (int s = 0; s < g->n_syms; s++) /* a scan row size the body decides (loop_infer): 0 rows, 0 */
        for (int k = 0; k < l->n_scan; k++)
            if (owns_sym(g, loop->outputs[l->n_state + k], s))
                wgc_emit(e, "wg_dims[%d] = 0;\n", s);
    wgc_emit(e, "for (int64_t wg_it%d = 0; wg_it%d < wg_trip%d && wg_go%d; wg_it%d++) {\n", id, id, id,
             id, id);
    wgc_emit(e, "*(int64_t *)%s = wg_it%d;\n", wgc_ptr(e, g, n->outputs[0]), id);
    wgc_emit(e, "*(uint8_t *)%s = 1;\n", wgc_ptr(e, g, n->outputs[1]));
}

/* The scan length as a C expression (symbolic: read at run time), after wgc_cf_scan_extent. */
static const char *scan_len_expr(wgc_emitter *e, wgc_graph *g, const wgc_node *scan, const wgc_cf_layout *l)
{
    const wgc_tensor *x = wgc_in(g, scan, l->first_state + l->n_state);
    int axis = 0, rev;
    if (wgc_cf_scan_axis(g, scan, true, 0, x->shape.rank, &axis, &rev))
        return "0";
    return wgc_dims_expr(e, &x->shape, axis, axis + 1);
}
/* Copies slice t (a C expression) along an axis between a whole tensor and one element of
 * it: to_whole false reads x[.., t, ..] into the element, true writes it. */
static void emit_slice_copy(wgc_emitter *e, wgc_graph *g, int whole, int elem, int axis, const char *t,
                            const char *batch, bool to_whole)
{
    const wgc_tensor *w = &g->tensors[whole];
    if (!wgc_numel(&w->shape))
        return; /* empty at the maxima: empty at every size */
    const char *pw = wgc_ptr(e, g, whole), *pe = wgc_ptr(e, g, elem);
    char base[160], rows[96], bytes[128];
    /* the actual sizes: a Scan over a symbolic number of steps, of rows of symbolic dims;
     * Scan-8 (batch): axis 1 of row `batch`, whose loop is the caller's */
    snprintf(base, sizeof base, "%s * %s", batch ? batch : "wg_o", wgc_dims_expr(e, &w->shape, axis, axis + 1));
    snprintf(rows, sizeof rows, "%s", wgc_dims_expr(e, &w->shape, 0, axis));
    snprintf(bytes, sizeof bytes, "(int64_t)%s * %zu", wgc_dims_expr(e, &w->shape, axis + 1, w->shape.rank),
             wg_dtype_size(w->dtype));
    wgc_emit(e, "{\nconst int64_t wg_row = %s;\n", bytes);
    if (!batch)
        wgc_emit(e, "for (int64_t wg_o = 0; wg_o < %s; wg_o++)\n", rows);
    const char *ei = batch ? "0" : "wg_o";
    if (to_whole)
        wgc_emit(e, "    memcpy((uint8_t *)%s + (%s + (%s)) * wg_row, (const uint8_t *)%s + %s * wg_row, (size_t)wg_row);\n",
                 pw, base, t, pe, ei);
    else
        wgc_emit(e, "    memcpy((uint8_t *)%s + %s * wg_row, (const uint8_t *)%s + (%s + (%s)) * wg_row, (size_t)wg_row);\n",
                 pe, ei, pw, base, t);
    wgc_emit(e, "}\n");
}

/* Copies row wg_b<id> of a batched Scan state (Scan-8's batch axis 0) between the whole
 * state and the row tensor: to_whole false reads the row, true writes it. */
void wgc_cf_emit_state_row_copy(wgc_emitter *e, wgc_graph *g, int whole, int row, int id,
                                bool to_whole)
{
    const wgc_tensor *s = &g->tensors[row];
    int64_t bytes = wgc_numel(&s->shape) * (int64_t)wg_dtype_size(s->dtype);
    if (!bytes)
        return;
    if (to_whole)
        wgc_emit(e, "memcpy((uint8_t *)%s + wg_b%d * %lld, %s, %lld);\n", wgc_ptr(e, g, whole), id,
                 (long long)bytes, wgc_ptr(e, g, row), (long long)bytes);
    else
        wgc_emit(e, "memcpy(%s, (const uint8_t *)%s + wg_b%d * %lld, %lld);\n", wgc_ptr(e, g, row),
                 wgc_ptr(e, g, whole), id, (long long)bytes, (long long)bytes);
}

/* Copies scan input or output k's slice of iteration wg_it<id> (counted from the end when
 * the scan runs that axis in reverse) between the whole tensor and its element: an input is
 * read into the element, an output written from it. */
wg_status wgc_cf_emit_scan_slice_copy(wgc_emitter *e, wgc_graph *g, const wgc_node *scan,
                                      const wgc_cf_layout *l, bool input, int k, int whole,
                                      int elem, int id)
{
    int axis, rev;
    wg_status st = wgc_cf_scan_axis(g, scan, input, k, g->tensors[whole].shape.rank, &axis, &rev);
    if (st)
        return st;
    char b[32], t[160];
    snprintf(b, sizeof b, "wg_b%d", id);
    if (rev)
        snprintf(t, sizeof t, "%s - 1 - wg_it%d", wgc_dims_expr(e, &g->tensors[whole].shape, axis, axis + 1), id);
    else
        snprintf(t, sizeof t, "wg_it%d", id);
    emit_slice_copy(e, g, whole, elem, axis, t, l->lens ? b : NULL, !input);
    return WG_OK;
}

wg_status wgc_cf_emit_scan_begin(wgc_emitter *e, wgc_graph *g, const wgc_node *n, const wgc_node *scan,
                                 const wgc_cf_layout *l)
{
    const int id = index_of(g, n);
    int64_t batch, len;
    wg_status st = wgc_cf_scan_extent(g, scan, l, &batch, &len);
    if (st)
        return st;
    wgc_emit(e, "{ /* Scan %s */\n", scan->name);
    wgc_emit(e, "for (int64_t wg_b%d = 0; wg_b%d < %lld; wg_b%d++) {\n", id, id, (long long)batch, id);
    for (int k = 0; k < l->n_state; k++)
        wgc_cf_emit_state_row_copy(e, g, n->inputs[l->first_state + k], n->outputs[k], id, false);
    wgc_emit(e, "for (int64_t wg_it%d = 0; wg_it%d < %s; wg_it%d++) {\n", id, id, scan_len_expr(e, g, scan, l), id);
    for (int k = 0; k < l->n_scan_in && !st; k++) {
        const int x = n->inputs[l->first_state + l->n_state + k];
        st = wgc_cf_emit_scan_slice_copy(e, g, scan, l, true, k, x, n->outputs[l->n_state + k], id);
    }
    return st;
}
