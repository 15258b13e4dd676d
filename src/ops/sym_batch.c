/*
 * sym_batch.c: per-sample ops over a symbolic batch (sym.h). A CNN exported with a
 * dynamic batch axis (`--dim batch=1..8`) has convolutions, pools and normalisations
 * whose input 0 is [batch, C, H, W] with only the batch symbolic. Each of these ops
 * computes output sample b from input sample b alone, so its code is the op's own
 * static code for one sample (the kernel chosen for that geometry, packed weights,
 * Winograd and all), run in a loop over the actual batch with the samples' addresses
 * advancing (wgc_ptr_vary). Memory is planned for the largest batch; a smaller one
 * costs its share of the time.
 */
#include <string.h>

#include "../ir/symdim.h"
#include "sym.h"

/* The first symbolic dim of s past dim 0, or -1. */
static int sym_past_batch(const wgc_shape *s)
{
    for (int d = 1; d < s->rank; d++)
        if (wgc_dim_is_sym(s, d))
            return d;
    return -1;
}

static bool rest_fixed(const wgc_shape *s)
{
    return sym_past_batch(s) < 0;
}

/* Input 0 symbolic in dim 0 alone, nothing else symbolic. */
static bool batch_only(const wgc_graph *g, const wgc_node *n)
{
    const wgc_shape *x = &g->tensors[n->inputs[0]].shape;
    if (x->rank < 2 || !wgc_dim_is_sym(x, 0) || !rest_fixed(x))
        return false;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *t = n->inputs[k] >= 0 ? &g->tensors[n->inputs[k]] : NULL;
        if (t && (t->symval || (k > 0 && wgc_shape_is_sym(&t->shape))))
            return false;
    }
    return true;
}

bool wgc_sym_batch_op(const wgc_graph *g, const wgc_node *n)
{
    return n->n_inputs > 0 && n->inputs[0] >= 0 && wgc_op_takes(g, n, WGC_PER_SAMPLE) && batch_only(g, n);
}

wg_status wgc_sym_batch_refuse(wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = n->n_inputs > 0 && n->inputs[0] >= 0 ? wgc_in(g, n, 0) : NULL;
    const int d = x ? sym_past_batch(&x->shape) : -1;
    if (d < 0 || !wgc_op_takes(g, n, WGC_PER_SAMPLE))
        return wgc_sym_refuse(g, n, NULL);
    const wgc_symbol *s = &g->syms[wgc_shape_first_sym(&x->shape, d)];
    if (s->runtime)
        return wgc_sym_refuse(g, n, "only its batch (dimension 0) may be of a size known at run time");
    return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                     "dimension %d of input '%s' is symbolic ('%s', --dim); this op takes a symbolic batch "
                     "(dimension 0) only: fix the others with --shape", d, x->name, s->name);
}

/* The batch of a node wgc_sym_batch_op takes: dim 0 of input 0. */
static wg_status batch_of(wgc_graph *g, const wgc_node *n, wgc_dimx *batch)
{
    if (!wgc_sym_batch_op(g, n))
        return wgc_error(g, n, WG_ERR_INVALID, "not a per-sample node over a symbolic batch (internal error)");
    *batch = wgc_dimx_of(g, &wgc_in(g, n, 0)->shape, 0);
    return WG_OK;
}

wg_status wgc_sym_batch_infer(wgc_graph *g, wgc_node *n, wgc_shape *y, int k)
{
    wgc_dimx batch;
    wg_status st = batch_of(g, n, &batch);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (y->rank < 1 || y->dims[0] != x->shape.dims[0])
        return wgc_error(g, n, WG_ERR_INVALID, "output %d does not keep the batch of its input (internal error)",
                         k);
    memcpy(y->sym[0], x->shape.sym[0], WGC_MAX_SYMS);
    return WG_OK;
}

/* A tensor of the node that holds one row per sample: batch symbolic in dim 0 alone. */
static bool batched(const wgc_graph *g, const wgc_tensor *t, const wgc_dimx *batch)
{
    const wgc_dimx d = wgc_dimx_of(g, &t->shape, 0);
    return t->shape.rank >= 1 && wgc_dimx_eq(&d, batch) && rest_fixed(&t->shape);
}

wg_status wgc_sym_batch_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    wgc_dimx batch;
    wg_status st = batch_of(g, n, &batch);
    if (st)
        return st;
    /* the tensors that advance by a sample: input 0, the outputs and a fused residual */
    int ts[WGC_VARY_MAX], nt = 0;
    int cand[WGC_VARY_MAX];
    int nc = 0;
    cand[nc++] = n->inputs[0];
    for (int k = 0; k < n->n_outputs && nc < WGC_VARY_MAX - 1; k++)
        if (n->outputs[k] >= 0)
            cand[nc++] = n->outputs[k];
    if (n->residual >= 0)
        cand[nc++] = n->residual;
    for (int i = 0; i < nc; i++) {
        bool seen = false;
        for (int j = 0; j < nt; j++)
            seen = seen || ts[j] == cand[i];
        if (seen)
            continue;
        if (!batched(g, &g->tensors[cand[i]], &batch))
            return wgc_sym_refuse(g, n, "a fused residual that is not batched as its output");
        ts[nt++] = cand[i];
    }
    wgc_shape saved[WGC_VARY_MAX];
    wgc_emit(e, "for (int32_t wg_sample = 0; wg_sample < %s; wg_sample++) {\n", wgc_dimx_expr(e, &batch));
    for (int i = 0; i < nt; i++) {
        wgc_tensor *t = &g->tensors[ts[i]];
        saved[i] = t->shape;
        const int64_t per_sample = wgc_numel(&t->shape) / t->shape.dims[0];
        wgc_ptr_vary(e, ts[i], per_sample * (int64_t)wg_dtype_size(t->dtype));
        t->shape.dims[0] = 1; /* the op's own code, for one sample */
        memset(t->shape.sym[0], 0, WGC_MAX_SYMS);
    }
    st = wgc_op_hooks(n->op)->emit(e, g, n);
    for (int i = 0; i < nt; i++)
        g->tensors[ts[i]].shape = saved[i];
    wgc_ptr_vary_end(e);
    /* Split across threads, the op's code may count on a barrier between one run of it
     * and the next (a first-run flag that thread 0 sets after every thread has read it):
     * one between samples too. */
    if (wgc_step_splits(e))
        wgc_sync(e);
    wgc_emit(e, "}\n");
    return st;
}
