/*
 * session_dims.c: the sizes of a session of a module with symbolic dims (module ABI 2,
 * docs/abi.md "Symbolic dimensions"): wg_session_set_dim, wg_session_set_input_shape,
 * wg_session_output_shape, and what wg_session_run writes into the module's wg_dims
 * before it runs (every symbol in its range, every given shape agreeing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/dtype.h"
#include "host.h"

wg_status wgh_session_dims_init(wg_session *s)
{
    const wgh_meta *m = &s->m->info.meta;
    if (m->has_bounded) {
        if (!(s->out_dims = calloc(m->n_outputs, sizeof *s->out_dims)))
            return wgh_error(s->m->rt, WG_ERR_NOMEM, "%s: out of memory creating a session", s->m->name);
        for (size_t i = 0; i < m->n_outputs; i++) /* before any run: the bounds */
            memcpy(s->out_dims[i], m->outputs[i].dims, sizeof s->out_dims[i]);
    }
    if (!m->n_symbols)
        return WG_OK;
    uint64_t mem = s->mem_size; /* either memory kind: a threaded session's is shared */
    if (s->dims_off % 4 || (uint64_t)s->dims_off + 4 * m->n_symbols > mem || s->dims_off == 0)
        return wgh_error(s->m->rt, WG_ERR_ABI,
                         "%s: wg_dims_ptr() = %u is not an aligned array of %zu i32 inside memory",
                         s->m->name, s->dims_off, m->n_symbols);
    s->sym_val = malloc(sizeof *s->sym_val * m->n_symbols);
    s->sym_cur = malloc(sizeof *s->sym_cur * m->n_symbols);
    s->in_given = calloc(m->n_inputs + 1, sizeof *s->in_given);
    s->in_dims = calloc(m->n_inputs + 1, sizeof *s->in_dims);
    s->in_empty = calloc(m->n_inputs + 1, sizeof *s->in_empty);
    if (!s->sym_val || !s->sym_cur || !s->in_given || !s->in_dims || !s->in_empty)
        return wgh_error(s->m->rt, WG_ERR_NOMEM, "%s: out of memory creating a session", s->m->name);
    if (m->has_empty && (s->empty_off % 4 || (uint64_t)s->empty_off + 4 * m->n_inputs > mem || s->empty_off == 0))
        return wgh_error(s->m->rt, WG_ERR_ABI,
                         "%s: wg_input_empty_ptr() = %u is not an aligned array of %zu i32 inside memory",
                         s->m->name, s->empty_off, m->n_inputs);
    for (size_t k = 0; k < m->n_symbols; k++) {
        s->sym_val[k] = -1;
        s->sym_cur[k] = m->symbols[k].max;
    }
    return WG_OK;
}

void wgh_session_dims_free(wg_session *s)
{
    free(s->sym_val);
    free(s->sym_cur);
    free(s->in_given);
    free(s->in_dims);
    free(s->in_empty);
    free(s->out_dims);
}

/* Is v a value symbol y takes: in its range, a multiple of its step? */
static bool in_range(const wg_symbol_info *y, int64_t v)
{
    return v >= y->min && v <= y->max && v % y->step == 0;
}

/* "32..960" or "32..960 in steps of 32" into buf. */
static const char *range_text(const wg_symbol_info *y, char *buf, size_t len)
{
    if (y->step > 1)
        snprintf(buf, len, "%lld..%lld in steps of %lld", (long long)y->min, (long long)y->max, (long long)y->step);
    else
        snprintf(buf, len, "%lld..%lld", (long long)y->min, (long long)y->max);
    return buf;
}

static wg_status out_of_range(wg_session *s, const wg_symbol_info *y, int64_t v, const char *where)
{
    char r[96];
    return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: %s%ssymbol '%s' = %lld is outside its range %s",
                     s->m->name, where ? where : "", where ? ": " : "", y->name, (long long)v,
                     range_text(y, r, sizeof r));
}

wg_status wg_session_set_dim(wg_session *s, const char *name, int64_t value)
{
    const wgh_meta *m = &s->m->info.meta;
    for (size_t k = 0; name && k < m->n_symbols; k++)
        if (!strcmp(m->symbols[k].name, name)) {
            if (!in_range(&m->symbols[k], value))
                return out_of_range(s, &m->symbols[k], value, NULL);
            s->sym_val[k] = value;
            return WG_OK;
        }
    return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: the model has no symbolic dimension '%s'", s->m->name,
                     name ? name : "(null)");
}

wg_status wg_session_set_input_shape(wg_session *s, size_t i, const int64_t *dims, int rank)
{
    const wgh_meta *m = &s->m->info.meta;
    if (i >= m->n_inputs)
        return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: no input %zu", s->m->name, i);
    const wg_tensor_info *t = &m->inputs[i];
    if (rank != t->rank)
        return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: input '%s' has rank %d, not %d", s->m->name,
                         t->name, t->rank, rank);
    for (int d = 0; d < rank; d++) {
        if (t->sym[d] < 0 && dims[d] != t->dims[d])
            return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: input '%s' dimension %d is %lld, the model "
                             "fixes it at %lld", s->m->name, t->name, d, (long long)dims[d],
                             (long long)t->dims[d]);
        if (t->sym[d] >= 0) {
            const wg_symbol_info *y = &m->symbols[t->sym[d]];
            char r[96];
            if (!in_range(y, dims[d]) && !(t->may_be_empty && dims[d] == 0)) /* 0: maybe empty, see below */
                return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: input '%s' dimension %d: symbol '%s' = "
                                 "%lld is outside its range %s", s->m->name, t->name, d, y->name,
                                 (long long)dims[d], range_text(y, r, sizeof r));
        }
    }
    if (!m->n_symbols)
        return WG_OK; /* ABI 1: the fixed shape, nothing to remember */
    memcpy(s->in_dims[i], dims, sizeof(int64_t) * (size_t)rank);
    s->in_given[i] = true;
    return WG_OK;
}

wg_status wgh_session_write_dims(wg_session *s)
{
    const wgh_meta *m = &s->m->info.meta;
    if (!m->n_symbols)
        return WG_OK;
    int64_t val[WG_ABI_MAX_SYMBOLS];
    const char *from[WG_ABI_MAX_SYMBOLS];
    for (size_t k = 0; k < m->n_symbols; k++) {
        val[k] = s->sym_val[k];
        from[k] = "wg_session_set_dim";
    }
    for (size_t i = 0; i < m->n_inputs; i++) {
        const wg_tensor_info *t = &m->inputs[i];
        if (!s->in_given[i])
            continue;
        for (int d = 0; d < t->rank; d++) {
            int k = t->sym[d];
            if (k < 0 || (t->may_be_empty && s->in_dims[i][d] == 0)) /* maybe empty: decided below */
                continue;
            if (val[k] >= 0 && val[k] != s->in_dims[i][d]) {
                const bool zero = !s->in_dims[i][d] || !val[k];
                return wgh_error(s->m->rt, WG_ERR_INVALID,
                                 "%s: input '%s' has %s = %lld (dimension %d), but %s%s%s gives %lld%s%s%s",
                                 s->m->name, t->name, m->symbols[k].name, (long long)s->in_dims[i][d], d,
                                 strcmp(from[k], "wg_session_set_dim") ? "input '" : "", from[k],
                                 strcmp(from[k], "wg_session_set_dim") ? "'" : "",
                                 (long long)val[k], zero ? " (input '" : "",
                                 zero ? (val[k] ? t->name : from[k]) : "",
                                 zero ? "' may not be empty: the model reads it outside If branches and loop "
                                        "bodies)" : "");
            }
            val[k] = s->in_dims[i][d];
            from[k] = t->name;
        }
    }
    /* An input that may be empty, given 0 along a symbol: the symbol's value when nothing
     * else gives one (a plain symbol: before the sums are made from their terms) */
    for (size_t i = 0; i < m->n_inputs; i++)
        for (int d = 0; s->in_given[i] && m->inputs[i].may_be_empty && d < m->inputs[i].rank; d++) {
            const int k = m->inputs[i].sym[d];
            if (k >= 0 && s->in_dims[i][d] == 0 && val[k] < 0 && !(m->sums && m->sums[k].n)) {
                val[k] = 0;
                from[k] = m->inputs[i].name;
            }
        }
    int32_t out[WG_ABI_MAX_SYMBOLS];
    for (size_t k = 0; k < m->n_symbols; k++) /* a sum given by nothing: from its terms */
        if (val[k] < 0 && m->sums && m->sums[k].n) {
            int64_t v = m->sums[k].plus;
            for (int t = 0; t < m->sums[k].n; t++) {
                const int j = m->sums[k].sym[t];
                v += m->sums[k].c[t] * (val[j] >= 0 ? val[j] : m->symbols[j].max);
            }
            val[k] = v;
            from[k] = NULL;
        }
    for (size_t k = 0; k < m->n_symbols; k++) {
        if (!m->sums || !m->sums[k].n || !from[k] || !strcmp(from[k], "wg_session_set_dim"))
            continue;
        /* a dim_param `past + seq`: the value the input gives must be its terms' (the module
         * checks it too: WGK_ERR_DIMS) */
        const struct wgh_sym_sum *u = &m->sums[k];
        int64_t v = u->plus;
        char terms[256];
        size_t len = 0;
        for (int t = 0; t < u->n; t++) {
            const int j = u->sym[t];
            const int64_t x = val[j] >= 0 ? val[j] : m->symbols[j].max;
            v += u->c[t] * x;
            if (len < sizeof terms && u->c[t] == 1)
                len += (size_t)snprintf(terms + len, sizeof terms - len, "%s%s %lld", t ? " + " : "",
                                        m->symbols[j].name, (long long)x);
            else if (len < sizeof terms)
                len += (size_t)snprintf(terms + len, sizeof terms - len, "%s%lld * %s %lld", t ? " + " : "",
                                        (long long)u->c[t], m->symbols[j].name, (long long)x);
        }
        if (u->plus && len < sizeof terms)
            len += (size_t)snprintf(terms + len, sizeof terms - len, " + %lld", (long long)u->plus);
        if (len < sizeof terms)
            snprintf(terms + len, sizeof terms - len, " = %lld", (long long)v);
        if (v != val[k]) {
            int d = 0;
            for (size_t i = 0; i < m->n_inputs; i++)
                if (!strcmp(m->inputs[i].name, from[k]))
                    for (int e = 0; e < m->inputs[i].rank; e++)
                        if (m->inputs[i].sym[e] == (int)k)
                            d = e;
            return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: %s's dim %d (%lld) is not %s (%s) (WGK_ERR_DIMS)",
                             s->m->name, from[k], d, (long long)val[k], m->symbols[k].name, terms);
        }
    }
    /* ... else that input is empty: size 0 along a symbol of another value (docs/abi.md
     * "Empty inputs"), which the module is told; a body that reads it stops the run */
    for (size_t i = 0; i < m->n_inputs; i++) {
        s->in_empty[i] = false;
        for (int d = 0; s->in_given[i] && m->inputs[i].may_be_empty && d < m->inputs[i].rank; d++) {
            const int k = m->inputs[i].sym[d];
            s->in_empty[i] |= k >= 0 && s->in_dims[i][d] == 0 && val[k] > 0;
        }
    }
    for (size_t k = 0; k < m->n_symbols; k++) {
        if (val[k] < 0)
            val[k] = m->symbols[k].max; /* given by nothing: its maximum */
        if (!in_range(&m->symbols[k], val[k]))
            return out_of_range(s, &m->symbols[k], val[k], NULL);
        out[k] = (int32_t)val[k];
        s->sym_cur[k] = val[k];
    }
    memcpy(s->mem_base + s->dims_off, out, 4 * m->n_symbols);
    for (size_t i = 0; m->has_empty && i < m->n_inputs; i++) {
        const int32_t flag = s->in_empty[i];
        memcpy(s->mem_base + s->empty_off + 4 * i, &flag, 4);
    }
    return WG_OK;
}

wg_status wg_session_output_shape(const wg_session *s, size_t i, int64_t *dims, int *rank, size_t *bytes)
{
    const wgh_meta *m = &s->m->info.meta;
    if (i >= m->n_outputs)
        return wgh_error(s->m->rt, WG_ERR_INVALID, "%s: no output %zu", s->m->name, i);
    const wg_tensor_info *t = &m->outputs[i];
    size_t n = 1;
    *rank = t->rank;
    for (int d = 0; d < t->rank; d++) {
        dims[d] = s->out_dims ? s->out_dims[i][d] : t->sym[d] >= 0 ? s->sym_cur[t->sym[d]] : t->dims[d];
        n *= (size_t)dims[d];
    }
    if (bytes)
        *bytes = n * wg_dtype_size(t->dtype);
    return WG_OK;
}

wg_status wgh_session_read_out_dims(wg_session *s)
{
    const wgh_meta *m = &s->m->info.meta;
    if (!m->has_bounded)
        return WG_OK;
    uint64_t mem = s->mem_size; /* either memory kind: a threaded session's is shared */
    const uint8_t *base = s->mem_base;
    for (size_t i = 0; i < m->n_outputs; i++) {
        const wg_tensor_info *t = &m->outputs[i];
        int32_t p;
        wg_status st = wgh_call_i32(s, &s->out_dims_fn, "wg_output_dims_ptr", true, (int32_t)i, &p);
        if (st)
            return st;
        uint32_t off = (uint32_t)p;
        if (off == 0 || off % 4 || (uint64_t)off + 4 * (uint64_t)t->rank > mem)
            return wgh_error(s->m->rt, WG_ERR_ABI,
                             "%s: wg_output_dims_ptr(%zu) = %u is not an aligned array of %d i32 inside memory",
                             s->m->name, i, off, t->rank);
        for (int d = 0; d < t->rank; d++) {
            int32_t v;
            memcpy(&v, base + off + 4 * (size_t)d, 4);
            /* what the metadata allows: a fixed dim itself, a symbol its value, a
             * data-dependent one 0..bound; anything else is refused, never read past */
            int64_t want = t->sym[d] >= 0 ? s->sym_cur[t->sym[d]] : t->dims[d];
            if (t->sym[d] == WG_DIM_BOUNDED ? v < 0 || v > t->dims[d] : v != want)
                return wgh_error(s->m->rt, WG_ERR_ABI,
                                 "%s: output '%s' dimension %d is %d after the run (wg_output_dims_ptr), "
                                 "but the metadata %s %lld", s->m->name, t->name, d, v,
                                 t->sym[d] == WG_DIM_BOUNDED ? "bounds it at" : "makes it",
                                 (long long)(t->sym[d] == WG_DIM_BOUNDED ? t->dims[d] : want));
            s->out_dims[i][d] = v;
        }
    }
    return WG_OK;
}

wg_runtime *wg_session_runtime(const wg_session *s)
{
    return s->m->rt;
}
