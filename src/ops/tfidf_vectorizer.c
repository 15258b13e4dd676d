/*
 * tfidf_vectorizer.c: TfIdfVectorizer over integer tokens (pool_int64s; string pools are
 * refused), input [C] or [B, C] of int32 / int64, output float32 [output_size] or
 * [B, output_size] with output_size = max(ngram_indexes) + 1.
 *
 * The pool holds n-grams grouped by length (ngram_counts[i]: where the i+1-grams start);
 * pool n-gram k has id k, and its count goes to output column ngram_indexes[k]. A row
 * counts, for each skip distance d = 1 .. max_skip_count + 1 and each start s, every pool
 * n-gram g of a length n in [min_gram_length, max_gram_length] with x[s + j d] = g[j] for
 * j < n (all inside the row), as ONNX's reference walks its trie: a start is tried while
 * s + d (m - 1) < C with m the smallest length counted, and unigrams count at d = 1 only.
 * A pool that repeats an n-gram is refused (onnxruntime refuses it; ONNX's reference
 * would count the later id only). Then, per pool n-gram k with count c_k, column
 * ngram_indexes[k] gets: TF c_k, IDF weights[k] (or 1) if c_k > 0, TFIDF weights[k] * c_k
 * (or c_k). weights[k] is pool n-gram k's, as the spec words it and onnxruntime computes;
 * ONNX's Python reference reads weights by output column instead, which is the same when
 * ngram_indexes is 0, 1, 2, ... (every node test). Weights with two n-grams sharing a
 * column are refused: how to combine them is nowhere said.
 *
 * The matching runs in the module over a table made at compile time (each counted pool
 * n-gram's first item, length and column), one pass per (row, d, s, n-gram): the pools of
 * exported text models are small.
 */
#include <stdlib.h>
#include <string.h>

#include "helpers/host_elements.h"
#include "helpers/inline_loops.h"

typedef struct tfidf_plan {
    int mode; /* 1 TF, 2 IDF, 3 TFIDF */
    int64_t min_n, max_n, max_skip, out_size, rows, cols;
    const int64_t *pool, *counts, *indexes;
    size_t n_pool, n_counts, n_indexes;
    const float *weights;
    size_t n_weights;
} tfidf_plan;

/* The one place the attributes are read and checked. */
static wg_status plan(wgc_graph *g, const wgc_node *n, tfidf_plan *p)
{
    memset(p, 0, sizeof *p);
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (wgc_attr_find(n, "pool_strings"))
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "pool_strings (string tokens) is not supported");
    const char *mode = wgc_attr_str(n, "mode", "");
    p->mode = !strcmp(mode, "TF") ? 1 : !strcmp(mode, "IDF") ? 2 : !strcmp(mode, "TFIDF") ? 3 : 0;
    if (!p->mode)
        return wgc_error(g, n, WG_ERR_INVALID, "mode '%s' (expected TF, IDF or TFIDF)", mode);
    p->min_n = wgc_attr_int(n, "min_gram_length", 0);
    p->max_n = wgc_attr_int(n, "max_gram_length", 0);
    p->max_skip = wgc_attr_int(n, "max_skip_count", 0);
    if (p->min_n < 1 || p->max_n < p->min_n || p->max_n > 64 || p->max_skip < 0 || p->max_skip > 1024)
        return wgc_error(g, n, WG_ERR_INVALID,
                         "min_gram_length %lld, max_gram_length %lld, max_skip_count %lld: need "
                         "1 <= min <= max <= 64 and 0 <= skip <= 1024",
                         (long long)p->min_n, (long long)p->max_n, (long long)p->max_skip);
    p->pool = wgc_attr_ints(n, "pool_int64s", &p->n_pool);
    p->counts = wgc_attr_ints(n, "ngram_counts", &p->n_counts);
    p->indexes = wgc_attr_ints(n, "ngram_indexes", &p->n_indexes);
    p->weights = wgc_attr_floats(n, "weights", &p->n_weights);
    if (!p->n_indexes || !p->n_counts)
        return wgc_error(g, n, WG_ERR_INVALID, "ngram_counts and ngram_indexes are required");
    int64_t mx = -1, prev = 0;
    for (size_t i = 0; i < p->n_indexes; i++) {
        if (p->indexes[i] < 0 || p->indexes[i] > (1 << 24))
            return wgc_error(g, n, WG_ERR_INVALID, "ngram_indexes[%zu] = %lld is out of range", i,
                             (long long)p->indexes[i]);
        mx = p->indexes[i] > mx ? p->indexes[i] : mx;
    }
    for (size_t i = 0; i < p->n_counts; i++) {
        if (p->counts[i] < prev || p->counts[i] > (int64_t)p->n_pool)
            return wgc_error(g, n, WG_ERR_INVALID, "ngram_counts must rise from 0 within the pool (%zu items)",
                             p->n_pool);
        prev = p->counts[i];
    }
    p->out_size = mx + 1;
    if (p->n_weights && p->n_weights < p->n_indexes)
        return wgc_error(g, n, WG_ERR_INVALID, "weights has %zu values for %zu n-grams", p->n_weights,
                         p->n_indexes);
    for (size_t i = 0; p->n_weights && p->mode != 1 && i < p->n_indexes; i++)
        for (size_t j = 0; j < i; j++)
            if (p->indexes[i] == p->indexes[j])
                return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                                 "weighted n-grams %zu and %zu share output column %lld", j, i,
                                 (long long)p->indexes[i]);
    if (x->shape.rank == 1) {
        p->rows = 1;
        p->cols = x->shape.dims[0];
    } else if (x->shape.rank == 2) {
        p->rows = x->shape.dims[0];
        p->cols = x->shape.dims[1];
    } else {
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "input of rank %d (expected [C] or [B, C])", x->shape.rank);
    }
    return WG_OK;
}

static wg_status tfidf_infer(wgc_graph *g, wgc_node *n)
{
    static const int ints[] = {WG_DT_INT32, WG_DT_INT64, 0};
    wg_status st = wgc_check_data_input(g, n, 1, 1, ints);
    tfidf_plan p;
    if (st || (st = plan(g, n, &p)))
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y = x->shape.rank == 1 ? (wgc_shape){.rank = 1, .dims = {p.out_size}}
                                     : (wgc_shape){.rank = 2, .dims = {p.rows, p.out_size}};
    wgc_set_output(g, n, 0, WG_DT_FLOAT, &y);
    return WG_OK;
}

/* The counted pool n-grams, as int32 triples (first item, length, output column), and
 * each one's weight in wt (1 without weights); *count of them, *dup the pool item where an
 * n-gram repeats an earlier one (-1: none). NULL when out of memory. */
static int32_t *ngram_table(const tfidf_plan *p, float *wt, size_t *count, int64_t *dup)
{
    *dup = -1;
    int32_t *t = malloc(sizeof(int32_t) * 3 * (p->n_pool ? p->n_pool : 1));
    size_t k = 0, id = 0;
    if (!t)
        return NULL;
    for (size_t i = 0; i < p->n_counts; i++) {
        const int64_t len = (int64_t)i + 1, start = p->counts[i];
        const int64_t end = i + 1 < p->n_counts ? p->counts[i + 1] : (int64_t)p->n_pool;
        for (int64_t s = start; s + len <= end; s += len, id++) {
            if (len < p->min_n || len > p->max_n || id >= p->n_indexes)
                continue;
            for (size_t j = 0; j < k && *dup < 0; j++)
                if (t[3 * j + 1] == len && !memcmp(p->pool + t[3 * j], p->pool + s, sizeof(int64_t) * (size_t)len))
                    *dup = s;
            t[3 * k] = (int32_t)s;
            t[3 * k + 1] = (int32_t)len;
            t[3 * k + 2] = (int32_t)p->indexes[id];
            wt[k] = p->n_weights ? p->weights[id] : 1.0f;
            k++;
        }
    }
    *count = k;
    return t;
}

static wg_status tfidf_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    tfidf_plan p;
    wg_status st = plan(g, n, &p);
    const wgc_tensor *x = wgc_in(g, n, 0);
    if (!st)
        st = wgc_check_i32_numel(g, n, wgc_out(g, n, 0));
    if (st)
        return st;
    size_t k = 0;
    int64_t dup;
    float *wt = malloc(sizeof(float) * (p.n_pool ? p.n_pool : 1));
    int32_t *table = wt ? ngram_table(&p, wt, &k, &dup) : NULL;
    if (!table) {
        free(wt);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    const char *pt = "0", *pp = "0", *pw = "0";
    st = dup >= 0 ? wgc_error(g, n, WG_ERR_INVALID, "the n-gram at pool item %lld repeats an earlier one",
                              (long long)dup)
                  : WG_OK;
    if (!st && k && (st = wgc_weight(e, table, sizeof(int32_t) * 3 * k, &pt)) == WG_OK)
        st = wgc_weight(e, wt, sizeof(float) * k, &pw);
    if (!st && p.n_pool)
        st = wgc_weight(e, p.pool, sizeof(int64_t) * p.n_pool, &pp);
    free(table);
    free(wt);
    if (st)
        return st == WG_ERR_INVALID ? st : wgc_error(g, n, st, "out of memory");
    const char *xt = x->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
    const long long R = (long long)p.rows, C = (long long)p.cols, O = (long long)p.out_size;
    wgc_emit(e, "{\nconst %s *x = (const %s *)%s;\nfloat *y = (float *)%s;\n", xt, xt, wgc_ptr(e, g, n->inputs[0]),
             wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "const int32_t *tab = (const int32_t *)%s;\nconst int64_t *pool = (const int64_t *)%s;\n", pt, pp);
    wgc_emit(e, "const float *w = (const float *)%s;\n(void)tab; (void)pool; (void)w;\n", pw);
    wgc_emit(e, "for (int32_t i = 0; i < %lld; i++) y[i] = 0.0f;\n", R * O);
    if (!k) { /* no n-gram of a counted length: zeros */
        wgc_emit(e, "}\n");
        return WG_OK;
    }
    wgc_emit(e,
             "static int32_t cnt[%zu];\n"
             "for (int32_t r = 0; r < %lld; r++) {\n"
             "  const %s *row = x + r * %lld;\n  float *yr = y + r * %lld;\n"
             "  for (int32_t q = 0; q < %zu; q++) cnt[q] = 0;\n"
             "  int32_t m = %lld;\n"
             "  for (int32_t d = 1; d <= %lld; d++) {\n"
             "    for (int32_t s = 0; s + d * (m - 1) < %lld; s++)\n"
             "      for (int32_t q = 0; q < %zu; q++) {\n"
             "        const int32_t off = tab[3 * q], len = tab[3 * q + 1];\n"
             "        if (len < m || s + d * (len - 1) >= %lld) continue;\n"
             "        int32_t j = 0;\n"
             "        while (j < len && (int64_t)row[s + j * d] == pool[off + j]) j++;\n"
             "        cnt[q] += j == len;\n"
             "      }\n"
             "    if (m == 1) { m = 2; if (m > %lld) break; } /* unigrams count once */\n"
             "  }\n",
             k, R, xt, C, O, k, (long long)p.min_n, (long long)p.max_skip + 1, C, k, C, (long long)p.max_n);
    static const char *const per_mode[] = {
        [1] = "yr[tab[3 * q + 2]] += (float)cnt[q];",
        [2] = "if (cnt[q] > 0) yr[tab[3 * q + 2]] = w[q];",
        [3] = "yr[tab[3 * q + 2]] += w[q] * (float)cnt[q];",
    };
    wgc_emit(e, "  for (int32_t q = 0; q < %zu; q++) %s\n}\n", k, per_mode[p.mode]);
    wgc_emit(e, "}\n");
    return WG_OK;
}

const wgc_op_def wgc_op_tfidf_vectorizer = {.infer = tfidf_infer, .emit = tfidf_emit};
