/*
 * reduce.c: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare and
 * ArgMax/ArgMin, every numeric dtype, as inline loops: one loop nest over the kept axes,
 * an inner nest over the reduced ones. Floats accumulate in double, integers in 64 bits.
 * Constant inputs fold on the host with the same loops and accumulators.
 *
 * Each op is one row of rows[] below: its dtypes, where its axes come from, the
 * accumulator's start, the C of its step and finish, and their host twins (written right
 * above the table), and what it does with symbolic shapes. The hooks read the row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/read_axes.h"
#include "helpers/host_elements.h"
#include "helpers/fold_map.h"
#include "helpers/inline_loops.h"
#include "helpers/emit_and_fold.h"
#include "helpers/sym_code.h"
#include "../ir/symdim.h"
#include "../ir/valrange.h"
#include "sym.h"

/* ---- the ops, one row each ------------------------------------------------------------ */

/* The host accumulator of one output element: the running value, the max of the first
 * pass (ReduceLogSumExp), the index kept (ArgMax/ArgMin) and the elements seen. Floats
 * accumulate in double, integers in 64 bits, like the module's acc. */
typedef struct racc {
    wgc_scalar acc;
    double mx;
    int64_t arg, k;
} racc;

/* What a host step reads of the node: the kind of the input (float, signed, else
 * unsigned), whether its dtype is narrower than double, select_last_index, and the row's
 * direction (.greater). */
typedef struct step_ctx {
    bool fl, sgn, f32, last, greater;
} step_ctx;

/* The host twins of the rows' steps: each adds v to the accumulator as the emitted step
 * does (integers wrap through uint64). */
typedef void (*reduce_step_fn)(const step_ctx *c, racc *r, wgc_scalar v);

static void step_sum(const step_ctx *c, racc *r, wgc_scalar v)
{
    if (c->fl) r->acc.f += v.f;
    else r->acc.u += v.u;
}

/* Max, Min: a NaN is taken wherever it comes. */
static void step_extreme(const step_ctx *c, racc *r, wgc_scalar v)
{
    bool mx = c->greater;
    bool take = c->fl ? (mx ? v.f > r->acc.f : v.f < r->acc.f) || v.f != v.f
              : c->sgn ? (mx ? v.i > r->acc.i : v.i < r->acc.i)
                       : (mx ? v.u > r->acc.u : v.u < r->acc.u);
    if (take)
        r->acc = v;
}

static void step_prod(const step_ctx *c, racc *r, wgc_scalar v)
{
    if (c->fl) r->acc.f *= v.f;
    else r->acc.u *= v.u; /* wraps */
}

static void step_l1(const step_ctx *c, racc *r, wgc_scalar v)
{
    if (c->fl) r->acc.f += v.f < 0 ? -v.f : v.f;
    else r->acc.u += c->sgn && v.i < 0 ? 0 - v.u : v.u;
}

static void step_l2(const step_ctx *c, racc *r, wgc_scalar v)
{
    (void)c;
    r->acc.f += v.f * v.f;
}

/* v * v is computed in the element type, then added */
static void step_sum_square(const step_ctx *c, racc *r, wgc_scalar v)
{
    if (c->fl) r->acc.f += c->f32 ? (double)(float)(v.f * v.f) : v.f * v.f;
    else r->acc.u += v.u * v.u;
}

static void step_exp(const step_ctx *c, racc *r, wgc_scalar v)
{
    (void)c;
    r->acc.f += exp(v.f - r->mx);
}

/* ArgMax, ArgMin: the first element, then a better one (or an equal one under
 * select_last_index). */
static void step_arg(const step_ctx *c, racc *r, wgc_scalar v)
{
    bool mx = c->greater, last = c->last;
    bool better = c->fl ? (mx ? v.f > r->acc.f : v.f < r->acc.f) || (last && v.f == r->acc.f)
                : c->sgn ? (mx ? v.i > r->acc.i : v.i < r->acc.i) || (last && v.i == r->acc.i)
                         : (mx ? v.u > r->acc.u : v.u < r->acc.u) || (last && v.u == r->acc.u);
    if (r->k == 0 || better) {
        r->acc = v;
        r->arg = r->k;
    }
    r->k++;
}

/* The host twins of the rows' finishes; count is the number of reduced elements. */
typedef wgc_scalar (*reduce_fin_fn)(const racc *r, int64_t count);

static wgc_scalar fin_mean(const racc *r, int64_t count)
{
    wgc_scalar out = r->acc;
    out.f = r->acc.f / (double)count;
    return out;
}

static wgc_scalar fin_sqrt(const racc *r, int64_t count)
{
    (void)count;
    wgc_scalar out = r->acc;
    out.f = sqrt(r->acc.f);
    return out;
}

static wgc_scalar fin_log(const racc *r, int64_t count)
{
    (void)count;
    wgc_scalar out = r->acc;
    out.f = log(r->acc.f);
    return out;
}

static wgc_scalar fin_log_sum_exp(const racc *r, int64_t count)
{
    (void)count;
    wgc_scalar out = r->acc;
    out.f = isinf(r->mx) || r->mx != r->mx ? r->mx : r->mx + log(r->acc.f);
    return out;
}

static wgc_scalar fin_arg(const racc *r, int64_t count)
{
    (void)count;
    wgc_scalar out = r->acc;
    out.i = r->arg;
    return out;
}

/* The accumulator's start, by the kind of the input (float, signed, unsigned): its C text
 * in the module and its host value. */
typedef enum reduce_init { INIT_ZERO, INIT_ONE, INIT_LOWEST, INIT_HIGHEST } reduce_init;

static const char *const init_text[][3] = {
    [INIT_ZERO] = {"0", "0", "0"},
    [INIT_ONE] = {"1", "1", "1"},
    [INIT_LOWEST] = {"-1.0/0.0", "INT64_MIN", "0"},
    [INIT_HIGHEST] = {"1.0/0.0", "INT64_MAX", "UINT64_MAX"},
};

static const wgc_scalar init_value[][3] = {
    [INIT_ZERO] = {{.u = 0}, {.u = 0}, {.u = 0}},
    [INIT_ONE] = {{.f = 1}, {.u = 1}, {.u = 1}},
    [INIT_LOWEST] = {{.f = -INFINITY}, {.i = INT64_MIN}, {.u = 0}},
    [INIT_HIGHEST] = {{.f = INFINITY}, {.i = INT64_MAX}, {.u = UINT64_MAX}},
};

/* What the op does with symbolic shapes (reduce_sym_infer, reduce_sym_emit). */
typedef enum reduce_sym {
    SYM_NONE,
    SYM_RUN, /* over a run of consecutive axes, every length read at run time */
    SYM_ALL, /* over every axis, of the actual count */
} reduce_sym;

typedef struct reduce_row {
    const int *dtypes; /* the input's dtypes (NULL: the op has no row) */
    /* The opset from which axes come as input 1 rather than the attribute; 0 for
     * ArgMax/ArgMin, which take one "axis". */
    int axes_input;
    bool arg;      /* ArgMax/ArgMin: one axis, keeps the index (arg), int64 output */
    bool greater;  /* Max, ArgMax: keeps the greater element (Min, ArgMin: the lesser) */
    bool max_pass; /* a first pass finds the max mx of the reduced elements (LogSumExp) */
    reduce_init init;
    /* The module's C: the step adding T v to acc, by the kind of T (float, signed,
     * unsigned; a NULL one is the one before), as a printf format whose %s is the tie
     * test of select_last_index; the output from acc (NULL: acc itself), as a format whose
     * %s is the count of reduced elements. */
    const char *step[3];
    const char *fin;
    reduce_step_fn host_step; /* the host twin of .step */
    reduce_fin_fn host_fin;   /* the host twin of .fin (NULL: the accumulator) */
    reduce_sym sym;
    const char *sym_fin; /* SYM_RUN: the output from the double sum s of len elements */
    bool sym_product;    /* folds a 1-D symbolic value to its product (numel of a shape) */
} reduce_row;

static const int floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};
static const int numeric[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8,
                              WG_DT_INT16, WG_DT_INT32, WG_DT_INT64, WG_DT_UINT8,
                              WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};

static const reduce_row rows[WGC_OP_COUNT] = {
    [WGC_OP_REDUCE_SUM] = {numeric, 13, .step = {"acc += v"}, .host_step = step_sum,
                           .sym = SYM_RUN, .sym_fin = "s"},
    [WGC_OP_REDUCE_MEAN] = {floats, 18, .step = {"acc += v"}, .fin = "acc / %s",
                            .host_step = step_sum, .host_fin = fin_mean,
                            .sym = SYM_RUN, .sym_fin = "len ? s / len : 0"},
    [WGC_OP_REDUCE_MAX] = {numeric, 18, .greater = true, .init = INIT_LOWEST,
                           .step = {"if (v > acc || v != v) acc = v"}, .host_step = step_extreme,
                           .sym = SYM_ALL},
    [WGC_OP_REDUCE_MIN] = {numeric, 18, .init = INIT_HIGHEST,
                           .step = {"if (v < acc || v != v) acc = v"}, .host_step = step_extreme,
                           .sym = SYM_ALL},
    [WGC_OP_REDUCE_PROD] = {numeric, 18, .init = INIT_ONE, .step = {"acc *= v"},
                            .host_step = step_prod, .sym_product = true},
    [WGC_OP_REDUCE_L1] = {numeric, 18, .step = {"acc += v < 0 ? -v : v", "acc += v < 0 ? 0 - v : v"},
                          .host_step = step_l1},
    [WGC_OP_REDUCE_L2] = {floats, 18, .step = {"acc += (double)v * v"}, .fin = "wgk__sqrt(acc)",
                          .host_step = step_l2, .host_fin = fin_sqrt},
    [WGC_OP_REDUCE_LOG_SUM] = {floats, 18, .step = {"acc += v"}, .fin = "wgk_log(acc)",
                               .host_step = step_sum, .host_fin = fin_log},
    /* max-shifted: the first pass finds the max (mx), the second sums exp(v - mx) */
    [WGC_OP_REDUCE_LOG_SUM_EXP] = {floats, 18, .max_pass = true,
                                   .step = {"acc += wgk_exp((double)v - mx)"},
                                   .fin = "mx == -1.0/0.0 || mx == 1.0/0.0 || mx != mx ? mx : mx + wgk_log(acc)",
                                   .host_step = step_exp, .host_fin = fin_log_sum_exp},
    [WGC_OP_REDUCE_SUM_SQUARE] = {numeric, 18, .step = {"acc += v * v"}, .host_step = step_sum_square},
    [WGC_OP_ARG_MAX] = {numeric, 0, .arg = true, .greater = true,
                        .step = {"if (k == 0 || v > acc%s) { acc = v; arg = k; } k++"}, .fin = "arg",
                        .host_step = step_arg, .host_fin = fin_arg},
    [WGC_OP_ARG_MIN] = {numeric, 0, .arg = true,
                        .step = {"if (k == 0 || v < acc%s) { acc = v; arg = k; } k++"}, .fin = "arg",
                        .host_step = step_arg, .host_fin = fin_arg},
};

/* The row of n's op, or NULL. */
static const reduce_row *row_of(const wgc_node *n)
{
    return (unsigned)n->op < WGC_OP_COUNT && rows[n->op].dtypes ? &rows[n->op] : NULL;
}

/* The index of a kind in the rows' by-kind arrays: float, signed, unsigned. */
static int kind_index(bool fl, bool sgn) { return fl ? 0 : sgn ? 1 : 2; }

/* Reduced axes into red[rank] (true = reduced); *noop when the op is the identity. */
static wg_status reduced_axes(wgc_graph *g, const wgc_node *n, const reduce_row *row, bool *red,
                              bool *noop)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int rank = x->shape.rank, axes[WG_MAX_RANK], count = -1;
    *noop = false;
    memset(red, 0, sizeof(bool) * WG_MAX_RANK);
    if (row->arg) {
        int64_t a = wgc_attr_int(n, "axis", 0);
        if (a < -rank || a >= rank || rank == 0)
            return wgc_error(g, n, WG_ERR_INVALID, "axis %lld is out of range for rank %d",
                             (long long)a, rank);
        red[a < 0 ? a + rank : a] = true;
        return WG_OK;
    }
    bool from_input = n->opset >= row->axes_input;
    wg_status st = wgc_read_axes(g, n, from_input && n->n_inputs > 1 ? 1 : -1, rank, axes, &count);
    if (st)
        return st;
    if (count <= 0) {
        if (count == 0 && wgc_attr_int(n, "noop_with_empty_axes", 0)) {
            *noop = true;
            return WG_OK;
        }
        if (count < 0 && from_input && wgc_attr_int(n, "noop_with_empty_axes", 0)) {
            *noop = true;
            return WG_OK;
        }
        for (int d = 0; d < rank; d++)
            red[d] = true;
        return WG_OK;
    }
    for (int k = 0; k < count; k++)
        red[axes[k]] = true;
    return WG_OK;
}

static wg_status reduce_infer(wgc_graph *g, wgc_node *n)
{
    const reduce_row *row = row_of(n);
    if (!row)
        return wgc_no_case(g, n, "the shape inference");
    wg_status st = wgc_check_data_input(g, n, 1, 2, row->dtypes);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0);
    bool red[WG_MAX_RANK], noop;
    if ((st = reduced_axes(g, n, row, red, &noop)))
        return st;
    bool keep = wgc_attr_int(n, "keepdims", 1) != 0;
    wgc_shape y = {0};
    for (int d = 0; d < x->shape.rank; d++) {
        if (noop || !red[d])
            y.dims[y.rank++] = x->shape.dims[d];
        else if (keep)
            y.dims[y.rank++] = 1;
    }
    wgc_set_output(g, n, 0, row->arg ? WG_DT_INT64 : x->dtype, &y);
    return WG_OK;
}

static wg_status reduce_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const reduce_row *row = row_of(n);
    if (!row)
        return wgc_no_case(g, n, "the emitter");
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    bool red[WG_MAX_RANK], noop;
    wg_status st = reduced_axes(g, n, row, red, &noop);
    if (!st)
        st = wgc_check_i32_numel(g, n, x);
    if (st)
        return st;
    if (noop)
        return wgc_gen_map(e, g, n, n->inputs, 1, n->outputs[0], "a");
    if (wgc_numel(&y->shape) == 0)
        return WG_OK;
    bool fl = wg_dtype_is_float(x->dtype);
    bool sgn = x->dtype == WG_DT_INT8 || x->dtype == WG_DT_INT16 || x->dtype == WG_DT_INT32 ||
               x->dtype == WG_DT_INT64;
    const char *acc_t = fl ? "double" : sgn ? "int64_t" : "uint64_t";
    char cnt[32];
    int64_t count = 1, strides[WG_MAX_RANK];
    int rank = x->shape.rank;
    for (int d = 0; d < rank; d++)
        if (red[d])
            count *= x->shape.dims[d];
    snprintf(cnt, sizeof cnt, "%lld", (long long)count);
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= x->shape.dims[d];
    }
    /* the row's C for this kind, the formats filled in */
    int k = kind_index(fl, sgn), j = k;
    while (j > 0 && !row->step[j])
        j--;
    bool last = row->arg && wgc_attr_int(n, "select_last_index", 0) != 0;
    char step[160], fin[160];
    snprintf(step, sizeof step, row->step[j], last ? " || v == acc" : "");
    snprintf(fin, sizeof fin, row->fin ? row->fin : "acc", cnt);
    char off[600];
    size_t len = (size_t)snprintf(off, sizeof off, "0");
    for (int d = 0; d < rank; d++)
        len += (size_t)snprintf(off + len, sizeof off - len, " + i%d * %lld", d, (long long)strides[d]);
    wgc_emit(e, "{\ntypedef %s T;\ntypedef %s TY;\nconst T *px = (const T *)%s;\n", wgc_ctype(x->dtype),
             wgc_ctype(y->dtype), wgc_ptr(e, g, n->inputs[0]));
    wgc_emit(e, "TY *py = (TY *)%s;\nint32_t o = 0;\n", wgc_ptr(e, g, n->outputs[0]));
    for (int d = 0; d < rank; d++)
        if (!red[d])
            wgc_emit(e, "for (int32_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)x->shape.dims[d], d);
    wgc_emit(e, "{\n%s acc = %s; int64_t arg = 0, k = 0; (void)arg; (void)k;\n", acc_t,
             init_text[row->init][k]);
    if (row->max_pass) {
        wgc_emit(e, "double mx = -1.0/0.0;\n");
        for (int d = 0; d < rank; d++)
            if (red[d])
                wgc_emit(e, "for (int32_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)x->shape.dims[d], d);
        wgc_emit(e, "{ double v = px[%s]; if (v > mx || v != v) mx = v; }\n", off);
    }
    for (int d = 0; d < rank; d++)
        if (red[d])
            wgc_emit(e, "for (int32_t i%d = 0; i%d < %lld; i%d++)\n", d, d, (long long)x->shape.dims[d], d);
    wgc_emit(e, "{ T v = px[%s]; %s; }\n", off, step);
    wgc_emit(e, "py[o++] = (TY)(%s);\n}\n}\n", fin);
    return WG_OK;
}

/* Folding: the loops above run on the host, visiting each output's elements in the same
 * order with the same accumulator types (double, int64, uint64), so sums round alike. */
static wg_status reduce_fold(wgc_graph *g, wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_tensor *y = wgc_out(g, n, 0);
    if (!wgc_inputs_const(g, n) || wgc_numel(&x->shape) > WGC_FOLD_MAX_NUMEL)
        return WG_ERR_UNSUPPORTED;
    const reduce_row *row = row_of(n);
    if (!row)
        return wgc_no_case(g, n, "the fold");
    bool red[WG_MAX_RANK], noop;
    wg_status st = reduced_axes(g, n, row, red, &noop);
    if (st)
        return st;
    if (noop)
        return wgc_fold_copy(g, n, 0, x->data);
    int rank = x->shape.rank;
    int64_t ny = wgc_numel(&y->shape), nx = wgc_numel(&x->shape), count = 1;
    int64_t ost[WG_MAX_RANK] = {0}, s = 1; /* output stride of each kept input dim */
    for (int d = rank - 1; d >= 0; d--) {
        if (red[d]) {
            count *= x->shape.dims[d];
            continue;
        }
        ost[d] = s;
        s *= x->shape.dims[d];
    }
    wgc_kind kind = wgc_dtype_kind(x->dtype);
    const step_ctx c = {.fl = kind == WGC_KIND_FLOAT, .sgn = kind == WGC_KIND_SIGNED,
                        .f32 = x->dtype != WG_DT_DOUBLE,
                        .last = wgc_attr_int(n, "select_last_index", 0) != 0,
                        .greater = row->greater};
    void *data = wgc_elem_alloc(g, n, y->dtype, &y->shape);
    racc *acc = calloc((size_t)(ny ? ny : 1), sizeof *acc);
    if (!data || !acc) {
        free(data);
        free(acc);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory folding");
    }
    const wgc_scalar init = init_value[row->init][kind_index(c.fl, c.sgn)];
    for (int64_t o = 0; o < ny; o++) {
        acc[o].mx = -INFINITY;
        acc[o].acc = init;
    }
    /* Row-major over the input visits each output's reduced elements in the emitted order. */
    for (int pass = row->max_pass ? 0 : 1; pass < 2 && nx > 0; pass++) {
        int64_t idx[WG_MAX_RANK] = {0}, i = 0;
        do {
            int64_t o = 0;
            for (int d = 0; d < rank; d++)
                o += idx[d] * ost[d];
            wgc_scalar v = wgc_scalar_get(x->data, x->dtype, i++);
            if (pass == 0) {
                if (v.f > acc[o].mx || v.f != v.f)
                    acc[o].mx = v.f;
            } else {
                row->host_step(&c, &acc[o], v);
            }
        } while (wgc_index_next(&x->shape, idx));
    }
    for (int64_t o = 0; o < ny; o++)
        wgc_scalar_set(data, y->dtype, o, row->host_fin ? row->host_fin(&acc[o], count) : acc[o].acc);
    free(acc);
    wgc_tensor_set_const(g, n->outputs[0], y->dtype, &y->shape, data);
    return WG_OK;
}

/* ---- symbolic shapes (sym.h) ---------------------------------------------------------- */

/* ReduceMean/ReduceSum with symbolic dims: the run of consecutive axes [*a0, *a1) they
 * reduce (from the attribute or a constant input), or a refusal. */
static wg_status sym_reduce_axes(wgc_graph *g, const wgc_node *n, int *a0, int *a1)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const int r = x->shape.rank;
    size_t cnt = 0;
    const int64_t *ax = wgc_attr_ints(n, "axes", &cnt);
    const wgc_tensor *at = n->n_inputs > 1 ? wgc_in(g, n, 1) : NULL;
    if (!ax && at && at->data && !at->symval)
        cnt = (size_t)wgc_numel(&at->shape);
    else if (!ax)
        cnt = 0;
    if (cnt < 1 || cnt > (size_t)r || x->symval || wgc_attr_int(n, "noop_with_empty_axes", 0))
        return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
    bool seen[WG_MAX_RANK] = {false};
    for (size_t i = 0; i < cnt; i++) {
        int64_t a = ax ? ax[i] : wgc_const_int(at, (int64_t)i);
        a = a < 0 ? a + r : a;
        if (a < 0 || a >= r || seen[a])
            return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
        seen[a] = true;
    }
    int lo = 0;
    while (!seen[lo])
        lo++;
    int hi = lo;
    while (hi < r && seen[hi])
        hi++;
    if (hi - lo != (int)cnt)
        return wgc_sym_refuse(g, n, "only a reduction over axes given as constants, one after the other");
    *a0 = lo;
    *a1 = hi;
    return WG_OK;
}

/* The per-sample rule first (sym_batch.c), then ReduceMax/Min over every axis and
 * ReduceMean/Sum over a run of consecutive axes. */
static wg_status reduce_sym_infer(wgc_graph *g, wgc_node *n)
{
    if (wgc_sym_batch_op(g, n))
        return wgc_sym_batch_rule(g, n);
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_shape y;
    if (!wgc_sym_out0(g, n, &y))
        return WG_OK;
    wg_status st;
    const reduce_row *row = row_of(n);
    if (row && row->sym == SYM_ALL) {
        /* over every axis (no axes given): one element whatever the sizes (batched_nms's
         * boxes.max(); SSD's min(topk_candidates, count) over symbolic values);
         * emit_reduce_all loops over the actual count */
        if (wgc_attr_find(n, "axes") ||
            (n->n_inputs > 1 && n->inputs[1] >= 0) || wgc_attr_int(n, "noop_with_empty_axes", 0))
            return wgc_sym_refuse(g, n, "only a reduction over every axis");
        return wgc_sym_set_out(g, n, 0, &y);
    }
    if (row && row->sym == SYM_RUN) {
        /* over a run of consecutive axes (symbolic or not), keepdims either way */
        int a0, a1;
        if ((st = sym_reduce_axes(g, n, &a0, &a1)))
            return st;
        bool keep = wgc_attr_int(n, "keepdims", 1) != 0;
        for (int d = 0, o = 0; d < x->shape.rank; d++) {
            const bool reduced = d >= a0 && d < a1;
            if (reduced && !keep)
                continue;
            if (!reduced)
                memcpy(y.sym[o], x->shape.sym[d], WGC_MAX_SYMS);
            o++;
        }
        return wgc_sym_set_out(g, n, 0, &y);
    }
    return wgc_sym_batch_refuse(g, n);
}

/* ReduceMean / ReduceSum over one axis, every length read at run time: y[o][i] = sum over
 * k of x[o][k][i] (divided by the axis length for the mean), in double; ReduceSum of int32
 * or int64 (an attention mask's valid lengths, as onnxruntime-genai's graphs count them)
 * in int64, wrapping as onnxruntime's does. */
static wg_status emit_reduce(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    int r = x->shape.rank, a, a1;
    wg_status st = sym_reduce_axes(g, n, &a, &a1);
    if (st)
        return st;
    const bool ints = n->op == WGC_OP_REDUCE_SUM && (x->dtype == WG_DT_INT64 || x->dtype == WG_DT_INT32);
    if (x->dtype != WG_DT_FLOAT && !ints)
        return wgc_sym_refuse(g, n, "a dtype other than float32 (or ReduceSum of int32 and int64)");
    const char *ct = wgc_sym_c_type(x->dtype);
    wgc_emit(e, "{\nconst %s *px = (const %s *)%s;\n%s *py = (%s *)%s;\n"
                "const int32_t outer = %s, len = %s, inner = %s;\n",
             ct, ct, wgc_ptr(e, g, n->inputs[0]), ct, ct, wgc_ptr(e, g, n->outputs[0]),
             wgc_dims_expr(e, &x->shape, 0, a), wgc_dims_expr(e, &x->shape, a, a1), wgc_dims_expr(e, &x->shape, a1, r));
    wgc_emit(e, "for (int32_t o = 0; o < outer; o++)\n    for (int32_t i = 0; i < inner; i++) {\n"
                "        %s s = 0;\n        for (int32_t k = 0; k < len; k++)\n"
                "            s %s px[((size_t)o * len + k) * inner + i];\n"
                "        py[(size_t)o * inner + i] = (%s)(%s);\n    }\n}\n",
             ints ? "uint64_t" : "double", ints ? "+= (uint64_t)" : "+=", ct, row_of(n)->sym_fin);
    return WG_OK;
}

/* ReduceMax / ReduceMin over every axis (reduce_sym_infer): one element from the actual
 * count; of no elements the identity (-inf / +inf, or the type's extreme), as onnxruntime
 * gives. A NaN is kept only where it comes first (the comparison skips it after). */
static wg_status emit_reduce_all(wgc_emitter *e, wgc_graph *g, const wgc_node *n)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    const char *ct = wgc_sym_c_type(x->dtype);
    const bool max = row_of(n)->greater;
    if (!ct || x->dtype == WG_DT_BOOL)
        return wgc_sym_refuse(g, n, "this dtype");
    const char *init = wg_dtype_is_float(x->dtype) ? (max ? "-__builtin_inf()" : "__builtin_inf()")
                     : x->dtype == WG_DT_INT64 ? (max ? "INT64_MIN" : "INT64_MAX")
                     : x->dtype == WG_DT_INT32 ? (max ? "INT32_MIN" : "INT32_MAX") : NULL;
    if (!init)
        return wgc_sym_refuse(g, n, "this dtype");
    wgc_emit(e, "{\n");
    char src[96];
    snprintf(src, sizeof src, "%s", wgc_sym_operand(e, g, n, 0)); /* symbolic values at their actual values */
    wgc_emit(e, "const %s *px = (const %s *)%s;\n%s m = (%s)%s;\n", ct, ct, src, ct, ct, init);
    wgc_emit(e, "for (int32_t i = 0, count = %s; i < count; i++)\n    if (i == 0 || px[i] %s m)\n        m = px[i];\n",
             wgc_sym_numel(e, x), max ? ">" : "<");
    wgc_emit(e, "*(%s *)%s = m;\n}\n", ct, wgc_ptr(e, g, n->outputs[0]));
    return WG_OK;
}

static wg_status reduce_sym_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n)
{
    const reduce_row *row = row_of(n);
    if (row && row->sym == SYM_RUN)
        return emit_reduce(e, g, n);
    if (row && row->sym == SYM_ALL)
        return emit_reduce_all(e, g, n);
    return wgc_sym_refuse(g, n, "no run-time code for this op with symbolic shapes yet");
}

/* ReduceProd of symbolic values: numel from a shape (batched_nms's boxes.numel() == 0). */
static wgc_sym_folds reduce_sym_foldable(const wgc_graph *g, const wgc_node *n)
{
    if (!wgc_inputs_const(g, n))
        return false;
    if (!row_of(n) || !row_of(n)->sym_product)
        return false;
    return n->inputs[0] >= 0 && g->tensors[n->inputs[0]].symval && g->tensors[n->inputs[0]].shape.rank == 1;
}

static wg_status reduce_sym_values(wgc_graph *g, wgc_node *n, wgc_dimx *v, int64_t count)
{
    wg_status st = wgc_sym_int_values_only(g, n);
    if (st)
        return st;
    if (!row_of(n) || !row_of(n)->sym_product)
        return wgc_sym_refuse(g, n, NULL);
    /* a 1-D value's product, over its one axis (keepdims either way) */
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_dimx p = wgc_dimx_const(1);
    for (int64_t i = 0; i < wgc_numel(&x->shape); i++)
        p = wgc_dimx_mul(p, wgc_symval_at(x, i));
    if (count != 1)
        return wgc_sym_refuse(g, n, NULL);
    v[0] = p;
    return WG_OK;
}

/* Does reduction n leave dim 0 alone (constant axes, none of them 0)? */
static bool reduce_keeps_batch(const wgc_graph *g, const wgc_node *n, int rank)
{
    size_t cnt = 0;
    const int64_t *ax = wgc_attr_ints(n, "axes", &cnt);
    const wgc_tensor *at = n->n_inputs > 1 && n->inputs[1] >= 0 ? &g->tensors[n->inputs[1]] : NULL;
    if (!ax && at) {
        if (!at->data || at->symval)
            return false;
        cnt = (size_t)wgc_numel(&at->shape);
    }
    if (cnt == 0) /* every axis, or none under noop_with_empty_axes */
        return false;
    for (size_t i = 0; i < cnt; i++) {
        const int64_t a = ax ? ax[i] : wgc_const_int(at, (int64_t)i);
        if (a == 0 || a == -rank)
            return false;
    }
    return true;
}

/* Per sample (WGC_PER_SAMPLE): a reduction that leaves dim 0 alone; ArgMax/ArgMin along
 * any axis but 0. */
static bool reduce_sym_takes(const wgc_graph *g, const wgc_node *n, wgc_op_trait t)
{
    if (t != WGC_PER_SAMPLE)
        return false;
    const int rank = g->tensors[n->inputs[0]].shape.rank;
    if (row_of(n) && row_of(n)->arg) {
        const int64_t axis = wgc_attr_int(n, "axis", 0);
        return axis != 0 && axis != -rank;
    }
    return reduce_keeps_batch(g, n, rank);
}

/* Bounds of integer values computed at run time (ir/valrange.h): ReduceMax and ReduceMin
 * any of input 0's values; ReduceSum a sum of at most k of them, k the element count at
 * the maxima over y's; ArgMax and ArgMin an index along the axis. */
static bool reduce_sym_bounds(wgc_graph *g, const wgc_node *n, const wgc_tensor *y,
                              wgc_vrange *out, int64_t count)
{
    const wgc_tensor *x = wgc_in(g, n, 0);
    wgc_vrange a;
    if (n->op == WGC_OP_REDUCE_MAX || n->op == WGC_OP_REDUCE_MIN)
        return wgc_vrange_of_input0(g, n, y, out, count);
    if (n->op == WGC_OP_REDUCE_SUM) {
        int64_t ny = wgc_numel(&y->shape), k = ny ? wgc_numel(&x->shape) / ny : 0;
        if (!wgc_vrange_union(g, x, &a) || __builtin_mul_overflow(a.lo, k, &a.lo) ||
            __builtin_mul_overflow(a.hi, k, &a.hi))
            return false;
        out[0] = (wgc_vrange){a.lo < 0 ? a.lo : 0, a.hi > 0 ? a.hi : 0};
        for (int64_t i = 1; i < count; i++)
            out[i] = out[0];
        return true;
    }
    if (n->op == WGC_OP_ARG_MAX || n->op == WGC_OP_ARG_MIN) {
        int64_t axis = wgc_attr_int(n, "axis", 0);
        axis = axis < 0 ? axis + x->shape.rank : axis;
        if (axis < 0 || axis >= x->shape.rank)
            return false;
        for (int64_t i = 0; i < count; i++)
            out[i] = (wgc_vrange){0, x->shape.dims[axis] > 0 ? x->shape.dims[axis] - 1 : 0};
        return true;
    }
    return false;
}

const wgc_op_def wgc_op_reduce = {
    .infer = reduce_infer,
    .fold = reduce_fold,
    .emit = reduce_emit,
    .sym = {.infer = reduce_sym_infer,
            .emit = reduce_sym_emit,
            .foldable = reduce_sym_foldable,
            .values = reduce_sym_values,
            .takes = reduce_sym_takes,
            .bounds = reduce_sym_bounds},
};
