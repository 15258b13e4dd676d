/* emitter.c: the buffers behind emit.h (C text of wg_run, the weights segment, the size of
 * the prepared-weights region).
 *
 * Float16 storage: in a model whose float16 weights lower_fp16 widened
 * (g->fp16_weights), a weight of at least WGC_HALF_MIN_BYTES whose every 32-bit word
 * comes back bit for bit from float16 (so every value is a float16 value: the widened
 * weights, and whatever the compiler packed or folded from them alone) is written to the
 * weights segment as float16 and widened by the module into the prepared-weights region
 * on the first run of the step that placed it (generate.c, wgk_f16_widen); the expression
 * the op gets points there. The module file then holds the float16 bytes, and the
 * kernels read float32 as in any model. (A kernel that reads float16 itself gets its
 * halves through wgc_weight_bytes, which places bytes as they are: the packed-B GEMM's
 * float16 panels.) */
#include "emitter.h"
#include "../ir/symdim.h"
#include "../ir/kernels.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

wg_status wgc_emitter_init(wgc_emitter *e, wgc_graph *g, const wgc_plan *plan, const wgc_target *t)
{
    memset(e, 0, sizeof *e);
    e->target = *t;
    e->g = g;
    e->plan = plan;
    e->node = -1;
    e->weight_off = malloc(sizeof(int64_t) * (size_t)(g->n_tensors + 1));
    if (!e->weight_off)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    e->weight_half = calloc((size_t)g->n_tensors + 1, sizeof(bool));
    e->packed_off = malloc(sizeof(int64_t) * (size_t)(g->n_tensors + 1));
    e->packed_layout = calloc((size_t)g->n_tensors + 1, sizeof(int));
    if (!e->weight_half || !e->packed_off || !e->packed_layout)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    for (int i = 0; i < g->n_tensors; i++)
        e->weight_off[i] = e->packed_off[i] = -1;
    return WG_OK;
}

void wgc_emitter_free(wgc_emitter *e)
{
    free(e->body);
    free(e->weights);
    free(e->weight_off);
    free(e->weight_half);
    free(e->packed_off);
    free(e->packed_layout);
    free(e->halves);
    free(e->step_weights);
    wgc_weight_index_free(&e->placed);
    memset(e, 0, sizeof *e);
}

const wgc_target *wgc_emit_target(const wgc_emitter *e)
{
    return &e->target;
}

static bool reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need)
        nc *= 2;
    char *nb = realloc(*buf, nc);
    if (!nb)
        return false;
    *buf = nb;
    *cap = nc;
    return true;
}

void wgc_emit(wgc_emitter *e, const char *fmt, ...)
{
    if (e->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(&e->body, &e->cap, e->len + (size_t)n + 8)) {
        e->failed = true;
        return;
    }
    memcpy(e->body + e->len, "    ", 4);
    e->len += 4;
    va_start(ap, fmt);
    vsnprintf(e->body + e->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    e->len += (size_t)n;
    if (n > 0 && e->body[e->len - 1] != '\n') /* one statement per line, whatever fmt ended with */
        e->body[e->len++] = '\n';
    e->body[e->len] = 0;
}

static char *ring_next(wgc_emitter *e)
{
    char *s = e->ring[e->ring_i];
    e->ring_i = (e->ring_i + 1) % 16;
    return s;
}

/* Places bytes of data in the weights segment (64-byte aligned) and returns their offset,
 * or -1 when out of memory. A blob equal to one placed before is not placed again: its
 * offset is that one's (weight_index.h), so that every weight is held once whatever number
 * of nodes, branches or folds give it. */
static int64_t weight_add(wgc_emitter *e, const void *data, size_t bytes)
{
    const uint64_t h = bytes ? wgc_weight_hash(data, bytes) : 0;
    if (bytes) {
        const int64_t same = wgc_weight_index_find(&e->placed, e->weights, data, bytes, h);
        if (same >= 0)
            return same;
    }
    size_t off = (e->wlen + 63) & ~(size_t)63;
    if (!reserve((char **)&e->weights, &e->wcap, off + bytes + 64)) {
        e->failed = true;
        return -1;
    }
    memset(e->weights + e->wlen, 0, off - e->wlen);
    if (bytes)
        memcpy(e->weights + off, data, bytes);
    e->wlen = off + bytes;
    if (bytes && !wgc_weight_index_add(&e->placed, h, (int64_t)off, bytes)) {
        e->failed = true;
        return -1;
    }
    return (int64_t)off;
}

/* Below this a weight stays float32: the conversion's code would cost more than it saves. */
#define WGC_HALF_MIN_BYTES 1024

/* True when every 32-bit word of data (bytes of it) is a float whose float16 rounding
 * widens back to the same bits. */
static bool halves_exactly(const void *data, size_t bytes)
{
    if (bytes % 4)
        return false;
    const uint8_t *p = data;
    for (size_t i = 0; i < bytes; i += 4) {
        float f, r;
        memcpy(&f, p + i, 4);
        r = wg_f16_to_f32(wg_f32_to_f16(f));
        if (memcmp(&f, &r, 4))
            return false;
    }
    return true;
}

/* Places a weight: as float32 at W(off), or as float16 widened into P(off) (*half set).
 * Returns off, or -1 when out of memory. */
static int64_t place_weight(wgc_emitter *e, const void *data, size_t bytes, bool *half)
{
    *half = false;
    /* threaded builds keep float32 weights: their steps (threads.c) have no first-run
     * widening yet */
    if (!e->g->fp16_weights || e->target.threads > 0 || bytes < WGC_HALF_MIN_BYTES ||
        !halves_exactly(data, bytes))
        return weight_add(e, data, bytes);
    const size_t n = bytes / 4;
    if (e->n_halves == e->cap_halves) {
        const int nc = e->cap_halves ? 2 * e->cap_halves : 64;
        wgc_half_blob *nb = realloc(e->halves, sizeof *nb * (size_t)nc);
        if (!nb) {
            e->failed = true;
            return -1;
        }
        e->halves = nb;
        e->cap_halves = nc;
    }
    uint16_t *h = malloc(2 * n);
    if (!h) {
        e->failed = true;
        return -1;
    }
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, p + 4 * i, 4);
        h[i] = wg_f32_to_f16(f);
    }
    const int64_t woff = weight_add(e, h, 2 * n);
    free(h);
    const char *pexpr;
    const uint64_t poff = ((uint64_t)e->plen + 63) & ~(uint64_t)63;
    if (woff < 0 || wgc_prepared(e, bytes, &pexpr)) {
        e->failed = true;
        return -1;
    }
    e->halves[e->n_halves++] = (wgc_half_blob){(uint64_t)woff, poff, n};
    *half = true;
    return (int64_t)poff;
}

const char *wgc_ptr(wgc_emitter *e, wgc_graph *g, int t)
{
    char *s = ring_next(e);
    const wgc_tensor *x = &g->tensors[t];
    if (x->data) {
        if (e->weight_off[t] < 0)
            e->weight_off[t] = place_weight(e, x->data, (size_t)(wgc_numel(&x->shape) * (int64_t)wg_dtype_size(x->dtype)),
                                            &e->weight_half[t]);
        snprintf(s, 96, "%s(%lld)", e->weight_half[t] ? "P" : "W", (long long)e->weight_off[t]);
    } else if (x->addr >= 0) {
        snprintf(s, 96, "A(%lld)", (long long)x->addr);
        for (int k = 0; k < e->n_vary; k++)
            if (e->vary_tensor[k] == t)
                snprintf(s, 96, "((void *)((char *)A(%lld) + (size_t)wg_sample * %lldu))", (long long)x->addr,
                         (long long)e->vary_stride[k]);
    } else {
        e->failed = true; /* planner bug: caught by wgc_generate */
        snprintf(s, 96, "0 /* unplanned tensor %s */", x->name);
    }
    return s;
}

bool wgc_ptr_vary(wgc_emitter *e, int t, int64_t stride)
{
    if (e->n_vary >= WGC_VARY_MAX)
        return false;
    e->vary_tensor[e->n_vary] = t;
    e->vary_stride[e->n_vary++] = stride;
    return true;
}

void wgc_ptr_vary_end(wgc_emitter *e)
{
    e->n_vary = 0;
}

bool wgc_ptrs_vary(const wgc_emitter *e)
{
    return e->n_vary > 0;
}

const char *wgc_size_expr(wgc_emitter *e, const wgc_shape *s, int d0, int d1)
{
    int64_t v = 1;
    for (int d = d0; d < d1; d++) {
        if (wgc_dim_is_sym(s, d))
            return wgc_dims_expr(e, s, d0, d1);
        v *= s->dims[d];
    }
    char *out = ring_next(e);
    snprintf(out, 96, "%lld", (long long)v);
    return out;
}

const char *wgc_dims_expr(wgc_emitter *e, const wgc_shape *s, int d0, int d1)
{
    wgc_dimx x = wgc_dimx_const(1);
    for (int d = d0; d < d1; d++)
        x = wgc_dimx_mul(x, wgc_dimx_of(e->g, s, d));
    return wgc_dimx_expr(e, &x);
}

const char *wgc_dimx_expr(wgc_emitter *e, const wgc_dimx *xp)
{
    char *out = ring_next(e);
    const wgc_dimx x = *xp;
    size_t n = (size_t)snprintf(out, 96, "(%lld", (long long)x.c);
    for (int k = 0; k < e->g->n_syms && n < 96; k++)
        for (int p = 0; p < x.p[k] && n < 96; p++)
            n += (size_t)snprintf(out + n, 96 - n, " * wg_dims[%d]", k);
    if (n < 96)
        snprintf(out + n, 96 - n, ")");
    if (n >= 95)
        e->failed = true;
    return out;
}

void wgc_static_data(wgc_emitter *e, size_t bytes)
{
    e->static_bytes += (bytes + 15) / 16 * 16;
}

const char *wgc_scratch(wgc_emitter *e)
{
    char *s = ring_next(e);
    int64_t off = e->node >= 0 ? e->plan->scratch_offset[e->node] : -1;
    if (off < 0) {
        e->failed = true;
        snprintf(s, 96, "0 /* node has no scratch */");
    } else if (e->plan->scratch_per_thread[e->node]) {
        /* The region of the thread running it (plan.h), for the nodes whose kernel runs
         * on every thread; the others run on thread 0 and may name it in static data. */
        snprintf(s, 96, "WG_THREAD_SCRATCH(wg_t)");
    } else {
        snprintf(s, 96, "A(%lld)", (long long)off);
    }
    return s;
}

bool wgc_threaded(const wgc_emitter *e)
{
    return e->target.threads > 0 && !e->single;
}

static const char *wgc_part(wgc_emitter *e)
{
    e->split = true;
    return "WG_PART";
}

void wgc_emit_split_guard(wgc_emitter *e, wgc_kernel k, const char *args)
{
    const wgc_kernel_info *i = wgc_kernel_get(k);
    if (i && i->split)
        wgc_emit(e, "if (%s(&%s, %s))", i->split, args, wgc_part(e));
    else /* a compiler bug: only kernels with a rule split (wgc_node_splits) */
        e->failed = true;
}

void wgc_emit_args_call(wgc_emitter *e, wgc_kernel k, bool split, const char *symbol, const char *type,
                        const char *fields, const char *extra)
{
    if (!split) {
        wgc_emit(e, "%s(&(const %s){%s}%s);", symbol, type, fields, extra);
        return;
    }
    wgc_emit(e, "{ %s args = {%s};", type, fields);
    wgc_emit_split_guard(e, k, "args");
    wgc_emit(e, "    %s(&args%s);", symbol, extra);
    wgc_emit(e, "}");
}

void wgc_emit_part_range(wgc_emitter *e, int64_t total, int unit)
{
    char t[32];
    snprintf(t, sizeof t, "%lld", (long long)total);
    wgc_emit_part_range_expr(e, t, unit);
}

void wgc_emit_part_range_expr(wgc_emitter *e, const char *total, int unit)
{
    wgc_emit(e, "int lo, hi;\nwgk_part_range(%s, %s, %d, &lo, &hi);\n", wgc_part(e), total, unit);
}

bool wgc_split_pays(const wgc_emitter *e, int64_t units, int64_t elements)
{
    return wgc_threaded(e) && units >= 2 && elements >= WGC_SPLIT_MIN_ELEMENTS;
}

bool wgc_step_splits(const wgc_emitter *e)
{
    return e->split;
}

void wgc_sync(wgc_emitter *e)
{
    e->split = true;
    wgc_emit(e, "WG_SYNC();\n");
}

wg_status wgc_weight(wgc_emitter *e, const void *data, size_t bytes, const char **expr)
{
    bool half;
    int64_t off = place_weight(e, data, bytes, &half);
    if (off < 0)
        return WG_ERR_NOMEM;
    char *s = ring_next(e);
    snprintf(s, 96, "%s(%lld)", half ? "P" : "W", (long long)off);
    *expr = s;
    return WG_OK;
}

wg_status wgc_weight_bytes(wgc_emitter *e, const void *data, size_t bytes, const char **expr)
{
    const int64_t off = weight_add(e, data, bytes);
    if (off < 0)
        return WG_ERR_NOMEM;
    char *s = ring_next(e);
    snprintf(s, 96, "W(%lld)", (long long)off);
    *expr = s;
    return WG_OK;
}

bool wgc_weight_recall(wgc_emitter *e, int t, int layout, const char **expr)
{
    if (e->packed_off[t] < 0 || e->packed_layout[t] != layout)
        return false;
    char *s = ring_next(e);
    snprintf(s, 96, "W(%lld)", (long long)e->packed_off[t]);
    *expr = s;
    return true;
}

wg_status wgc_weight_keep(wgc_emitter *e, int t, int layout, const void *data, size_t bytes, const char **expr)
{
    const int64_t off = weight_add(e, data, bytes);
    if (off < 0)
        return WG_ERR_NOMEM;
    e->packed_off[t] = off;
    e->packed_layout[t] = layout;
    return wgc_weight_recall(e, t, layout, expr) ? WG_OK : WG_ERR_INVALID;
}

wg_status wgc_prepared(wgc_emitter *e, size_t bytes, const char **expr)
{
    const uint64_t off = ((uint64_t)e->plen + 63) & ~(uint64_t)63;
    /* wasm32: more than 4 GiB fails generate.c's memory check anyway; this keeps the
     * running total from overflowing. */
    if ((uint64_t)bytes > UINT32_MAX || off + bytes > UINT32_MAX)
        return WG_ERR_LIMIT;
    e->plen = (size_t)(off + bytes);
    char *s = ring_next(e);
    snprintf(s, 96, "P(%llu)", (unsigned long long)off);
    *expr = s;
    return WG_OK;
}

const char *wgc_float(wgc_emitter *e, float v)
{
    char *s = ring_next(e);
    if (isnan(v))
        snprintf(s, 96, "__builtin_nanf(\"\")");
    else if (isinf(v))
        snprintf(s, 96, v > 0 ? "__builtin_inff()" : "(-__builtin_inff())");
    else {
        /* %.9g round-trips a float; C needs a '.' or exponent before the f suffix. */
        snprintf(s, 96, "%.9g", (double)v);
        strcat(s, strpbrk(s, ".eE") ? "f" : ".0f");
    }
    return s;
}
