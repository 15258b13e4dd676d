/*
 * cache_pairs.c: resident KV caches (docs/abi.md "Resident KV caches"). The metadata's
 * "cache_pairs" and its checks; per session, the module's wg_cache_mode array, the mode
 * the host runs in (wg_session_set_cache_mode) and the rows the regions hold, so that a
 * resident run whose past the regions do not hold, or whose past and new rows pass a
 * region's capacity, is refused before the module runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fail.h"
#include "../common/json.h"
#include "host.h"

/* Entry k (e) against the inputs and outputs of m: NULL when it keeps the rules, else why not. */
static const char *pair_rule(const wgh_meta *m, const wg_cache_pair_info *p, const bool *past_seen,
                             const bool *present_seen)
{
    if (p->past >= m->n_inputs || p->present >= m->n_outputs)
        return "past must be an input's index and present an output's";
    if (past_seen[p->past] || present_seen[p->present])
        return "an input or output is in two pairs";
    const wg_tensor_info *x = &m->inputs[p->past], *y = &m->outputs[p->present];
    if (x->dtype != y->dtype || x->rank != y->rank || p->axis < 0 || p->axis >= x->rank)
        return "the past and present differ in dtype or rank, or axis is not one of their dims";
    if (x->sym[p->axis] < 0 || y->sym[p->axis] == -1 || p->capacity != y->dims[p->axis])
        return "the past's dim at axis must be symbolic, the present's too, and capacity its largest size";
    for (int d = 0; d < x->rank; d++)
        if (d != p->axis && (x->dims[d] != y->dims[d] || x->sym[d] != y->sym[d]))
            return "the past and present differ off the axis";
    return NULL;
}

wg_status wgh_parse_cache_pairs(const struct wg_json *j, wgh_meta *m, char *err, size_t errlen)
{
    const wg_json *arr = wg_json_get(j, "cache_pairs");
    if (!arr)
        return WG_OK;
    if (arr->type != WG_JSON_ARRAY || arr->n > WG_ABI_MAX_TENSORS)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: \"cache_pairs\" must be an array of at most %d objects",
                       WG_ABI_MAX_TENSORS);
    bool *past_seen = calloc(m->n_inputs + 1, 1), *present_seen = calloc(m->n_outputs + 1, 1);
    m->cache_pairs = calloc(arr->n + 1, sizeof *m->cache_pairs);
    wg_status st = WG_OK;
    if (!past_seen || !present_seen || !m->cache_pairs) {
        st = wg_fail(err, errlen, WG_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < arr->n; k++) {
        const wg_json *e = wg_json_at(arr, k);
        int64_t past, present, axis, cap;
        const char *why = "past, present, axis and capacity must be non-negative integers";
        if (e->type == WG_JSON_OBJECT && wg_json_int(wg_json_get(e, "past"), &past) &&
            wg_json_int(wg_json_get(e, "present"), &present) && wg_json_int(wg_json_get(e, "axis"), &axis) &&
            wg_json_int(wg_json_get(e, "capacity"), &cap) && past >= 0 && present >= 0 && axis >= 0 &&
            axis < WG_MAX_RANK && cap >= 0) {
            wg_cache_pair_info p = {(size_t)past, (size_t)present, (int)axis, cap};
            why = pair_rule(m, &p, past_seen, present_seen);
            m->cache_pairs[k] = p;
        }
        if (why) {
            st = wg_fail(err, errlen, WG_ERR_FORMAT, "metadata: \"cache_pairs\" entry %zu: %s", k, why);
            goto done;
        }
        past_seen[past] = present_seen[present] = true;
        m->n_cache_pairs = k + 1;
    }
done:
    free(past_seen);
    free(present_seen);
    return st;
}

wg_status wgh_session_cache_init(wg_session *s)
{
    const wgh_meta *m = &s->m->info.meta;
    s->cache_mode = WG_CACHE_COPY;
    if (!m->n_cache_pairs)
        return WG_OK;
    if (s->cache_off % 4 || s->cache_off == 0 || (uint64_t)s->cache_off + 4 * m->n_cache_pairs > s->mem_size)
        return wgh_error(s->m->rt, WG_ERR_ABI,
                         "%s: wg_cache_mode_ptr() = %u is not an aligned array of %zu i32 inside memory",
                         s->m->name, s->cache_off, m->n_cache_pairs);
    if (!(s->cache_rows = calloc(m->n_cache_pairs, sizeof *s->cache_rows)))
        return wgh_error(s->m->rt, WG_ERR_NOMEM, "%s: out of memory creating a session", s->m->name);
    return WG_OK;
}

void wgh_session_cache_free(wg_session *s)
{
    free(s->cache_rows);
    s->cache_rows = NULL;
}

wg_status wg_session_set_cache_mode(wg_session *s, wg_cache_mode mode)
{
    if (mode == WG_CACHE_COPY) {
        s->cache_mode = mode;
        return WG_OK;
    }
    if (mode != WG_CACHE_RESIDENT && mode != WG_CACHE_LOAD)
        return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: cache mode %d is none of copy (0), resident (1), load (2)",
                         s->m->name, (int)mode);
    if (!s->m->info.meta.n_cache_pairs)
        return wgh_error(s->m->rt, WG_ERR_INVALID,
                         "%s: the module keeps no KV cache (no \"cache_pairs\": docs/abi.md \"Resident KV caches\")",
                         s->m->name);
    s->cache_mode = mode;
    return WG_OK;
}

int64_t wg_session_cache_rows(const wg_session *s)
{
    return s->cache_rows ? s->cache_rows[0] : 0;
}

/* Dim d of input i (out: output i) at the sizes of the coming run; -1 when the run decides it. */
static int64_t dim_now(const wg_session *s, const wg_tensor_info *t, int d)
{
    return t->sym[d] >= 0 ? s->sym_cur[t->sym[d]] : t->sym[d] == WG_DIM_BOUNDED ? -1 : t->dims[d];
}

wg_status wgh_session_write_cache(wg_session *s)
{
    const wgh_meta *m = &s->m->info.meta;
    for (size_t k = 0; k < m->n_cache_pairs; k++) {
        const wg_cache_pair_info *p = &m->cache_pairs[k];
        const int64_t past = dim_now(s, &m->inputs[p->past], p->axis);
        const int64_t total = dim_now(s, &m->outputs[p->present], p->axis);
        if (s->cache_mode != WG_CACHE_COPY && total > p->capacity)
            return wgh_error(s->m->rt, WG_ERR_INVALID,
                             "%s: KV cache '%s': past %lld + new rows = %lld rows, beyond the %lld its region holds",
                             s->m->name, m->inputs[p->past].name, (long long)past, (long long)total,
                             (long long)p->capacity);
        if (s->cache_mode == WG_CACHE_RESIDENT && past > s->cache_rows[k])
            return wgh_error(s->m->rt, WG_ERR_INVALID,
                             "%s: KV cache '%s': a resident past of %lld rows, but the module's region holds %lld "
                             "(the rows of the last resident or load run)",
                             s->m->name, m->inputs[p->past].name, (long long)past, (long long)s->cache_rows[k]);
        const int32_t mode = (int32_t)s->cache_mode;
        memcpy(s->mem_base + s->cache_off + 4 * k, &mode, 4);
    }
    return WG_OK;
}

void wgh_session_cache_ran(wg_session *s)
{
    const wgh_meta *m = &s->m->info.meta;
    for (size_t k = 0; s->cache_mode != WG_CACHE_COPY && k < m->n_cache_pairs; k++) {
        const wg_cache_pair_info *p = &m->cache_pairs[k];
        const wg_tensor_info *y = &m->outputs[p->present];
        s->cache_rows[k] = y->sym[p->axis] == WG_DIM_BOUNDED ? s->out_dims[p->present][p->axis]
                                                             : dim_now(s, y, p->axis);
    }
}
