/*
 * infer.c: shape inference with constant folding, in one walk over the sorted nodes.
 *
 * The two cannot be separate passes: Reshape's output shape is the *value* of its shape
 * input, which is often computed by a Shape -> Gather -> Concat subgraph that only folding
 * turns into a constant. So each node is first inferred, then folded when its inputs are
 * constant (Shape only needs its input's shape).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/symdim.h"
#include "../ir/valrange.h"

#include "../ops/arity.h"
#include "../ops/control_flow.h"
#include "../ops/op.h"
#include "../ops/sym.h"
#include "../ops/versions.h"
#include "passes.h"

/* Tensor x's shape is valid and x fits a wasm32 memory (what names x in messages: "graph
 * input", "output"; n the node, NULL for a graph input). Nothing bigger than a wasm32 memory
 * can be compiled; refusing it here also keeps folding from allocating terabytes for a
 * made-up shape. */
static wg_status check_size(wgc_graph *g, const wgc_node *n, const wgc_tensor *x, const char *what)
{
    char a[128];
    int64_t count;
    if (!wgc_numel_checked(&x->shape, &count))
        return wgc_error(g, n, WG_ERR_INVALID, "%s '%s' has an invalid shape %s", what, x->name,
                         wgc_shape_str(&x->shape, a, sizeof a));
    if ((uint64_t)count * wg_dtype_size(x->dtype) > (UINT64_C(1) << 32))
        return wgc_error(g, n, WG_ERR_LIMIT,
                         "%s '%s' %s %s would take %llu bytes, more than the 4 GiB a wasm32 "
                         "memory can hold",
                         what, x->name, wg_dtype_name(x->dtype), wgc_shape_str(&x->shape, a, sizeof a),
                         (unsigned long long)count * wg_dtype_size(x->dtype));
    return WG_OK;
}

/* A graph input tensor (or a sequence or optional input's element) must have a static,
 * valid shape and a dtype a module can hold. */
static wg_status check_input(wgc_graph *g, const wgc_tensor *x, const char *what)
{
    for (int d = 0; d < x->shape.rank; d++)
        if (x->shape.dims[d] < 0)
            return wgc_error(g, NULL, WG_ERR_INVALID,
                             "graph input '%s' has a dynamic dimension %d; fix it with "
                             "--shape %s=<dims, e.g. 1x3x224x224>",
                             what, d, what);
    if (!x->has_shape)
        return wgc_error(g, NULL, WG_ERR_INVALID,
                         "graph input '%s' declares no shape; give one with --shape %s=<dims>", what, what);
    if (!wg_dtype_size(x->dtype) || x->dtype == WG_DT_STRING)
        return wgc_error(g, NULL, WG_ERR_UNSUPPORTED, "graph input '%s' has dtype %s", x->name,
                         wg_dtype_name(x->dtype));
    return check_size(g, NULL, x, "graph input");
}

/* The wgc_shape of a --shape spec (its symbolic dims still -1). */
static wgc_shape shape_of_spec(const wgc_dims_spec *d)
{
    wgc_shape s = {.rank = d->rank};
    memcpy(s.dims, d->dims, sizeof s.dims);
    return s;
}

/* A new graph-input element tensor "<input>SUFFIX" of the given dtype and shape. */
static int add_element(wgc_graph *g, int v, const char *suffix, int dtype, const wgc_shape *s)
{
    int e = wgc_tensor_add_derived(g, g->tensors[v].name, suffix);
    if (e < 0)
        return -1;
    wgc_tensor *t = &g->tensors[e];
    t->is_input = true;
    t->dtype = dtype;
    t->shape = *s;
    t->has_shape = true;
    return e;
}

/* Graph input v, a sequence or optional, becomes a value over new element tensors: a
 * sequence's from its --shape list o (required), an optional tensor's from o or the
 * declared shape, plus an optional's presence flag (src/ir/values.c). */
static wg_status make_input_value(wgc_graph *g, int v, const wgc_shape_override *o)
{
    wgc_tensor *x = &g->tensors[v];
    const char *name = x->name;
    char a[128], b[128];
    bool seq = x->kind == WGC_KIND_SEQUENCE || x->inner_kind == WGC_KIND_SEQUENCE;
    if (!x->dtype)
        return wgc_error(g, NULL, WG_ERR_INVALID, "graph input '%s' declares no element type", name);
    if (seq && !o)
        return wgc_error(g, NULL, WG_ERR_INVALID,
                         "graph input '%s' is a sequence of %s tensors; give its elements' shapes "
                         "with --shape %s=<dims>+<dims>+... ([] for none)",
                         name, wg_dtype_name(x->dtype), name);
    if (!seq && o && o->n_elems > 1)
        return wgc_error(g, NULL, WG_ERR_INVALID, "--shape %s gives %d shapes; '%s' holds one tensor", name,
                         o->n_elems, name);
    wgc_shape declared = x->shape;
    bool has_declared = x->has_shape;
    int count = o && seq ? o->n_elems : 1, dtype = x->dtype, kind = x->kind;
    int elems[WGC_MAX_SEQ_SHAPES];
    wg_status st;
    for (int j = 0; j < count; j++) {
        wgc_shape s = o ? shape_of_spec(seq ? &o->elems[j] : &o->shape) : declared;
        if (o && has_declared) {
            bool ok = s.rank == declared.rank;
            for (int d = 0; ok && d < s.rank; d++)
                ok = declared.dims[d] < 0 || declared.dims[d] == s.dims[d];
            if (!ok)
                return wgc_error(g, NULL, WG_ERR_INVALID,
                                 "--shape %s: element %d is %s, but the model declares %s", name, j,
                                 wgc_shape_str(&s, a, sizeof a), wgc_shape_str(&declared, b, sizeof b));
        }
        char suffix[32];
        snprintf(suffix, sizeof suffix, "[%d]", j);
        if ((elems[j] = add_element(g, v, suffix, dtype, &s)) < 0)
            return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
        g->tensors[elems[j]].has_shape = o || has_declared;
        if ((st = check_input(g, &g->tensors[elems[j]], g->tensors[v].name)))
            return st;
    }
    if (kind == WGC_KIND_SEQUENCE)
        return wgc_value_set(g, v, WGC_KIND_SEQUENCE, dtype, elems, count, -1);
    wgc_shape scalar = {0};
    int flag = add_element(g, v, "[present]", WG_DT_BOOL, &scalar), held = elems[0];
    if (flag < 0)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    if (seq) {
        if ((held = wgc_tensor_add_derived(g, g->tensors[v].name, "[sequence]")) < 0)
            return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
        if ((st = wgc_value_set(g, held, WGC_KIND_SEQUENCE, dtype, elems, count, -1)))
            return st;
    }
    return wgc_value_set(g, v, WGC_KIND_OPTIONAL, dtype, &held, 1, flag);
}

/* The dynamic dims of the graph inputs: a dim named by --dim becomes that symbol (at its
 * maximum, symdim.h); any other is an error that says what to give. Symbols are numbered
 * in --dim order; a --dim that names no input dimension is an error too. */
/* A --dim that names an integer graph input bounds its values (valrange.h): MIN..MAX for
 * every element. Returns true when dims[j] is one (then not a symbol). */
static bool is_value_range(const wgc_graph *g, const wgc_symbol *d)
{
    int t = wgc_tensor_find(g, d->name);
    if (t < 0 || !g->tensors[t].is_input)
        return false;
    const int dt = g->tensors[t].dtype;
    return dt == WG_DT_INT64 || dt == WG_DT_INT32;
}

static wg_status bind_value_ranges(wgc_graph *g, const wgc_pass_options *opt)
{
    for (int j = 0; j < opt->n_dims; j++) {
        const wgc_symbol *d = &opt->dims[j];
        if (!is_value_range(g, d))
            continue;
        int t = wgc_tensor_find(g, d->name);
        wgc_vrange r = {d->min, d->max};
        if (wgc_vrange_set(g, t, &r, 1))
            return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
    }
    return WG_OK;
}

static wg_status bind_symbols(wgc_graph *g, const wgc_pass_options *opt)
{
    bool used[WGC_MAX_SYMS] = {false};
    g->n_syms = 0;
    for (int j = 0; j < opt->n_dims; j++) {
        const char *name = opt->dims[j].name;
        if (is_value_range(g, &opt->dims[j]) && opt->dims[j].step > 1)
            return wgc_error(g, NULL, WG_ERR_INVALID, "--dim %s=%lld..%lld:%lld: a step applies to dimensions, "
                             "not to the values of integer graph input '%s'", name, (long long)opt->dims[j].min,
                             (long long)opt->dims[j].max, (long long)opt->dims[j].step, name);
        if (is_value_range(g, &opt->dims[j])) {
            for (int i = 0; i < g->n_inputs; i++) {
                const wgc_tensor *x = &g->tensors[g->inputs[i]];
                for (int k = 0; k < x->shape.rank; k++)
                    if (x->shape.dims[k] < 0 && x->dim_param[k] && !strcmp(x->dim_param[k], name))
                        return wgc_error(g, NULL, WG_ERR_INVALID,
                                         "--dim %s names both graph input '%s' (bounding its values) and "
                                         "dimension %d of '%s'", name, name, k, x->name);
            }
            continue;
        }
        if (opt->dims[j].min < 0)
            return wgc_error(g, NULL, WG_ERR_INVALID, "--dim %s=%lld..%lld: a dimension's range starts at 0 "
                             "or more", name, (long long)opt->dims[j].min, (long long)opt->dims[j].max);
        g->syms[g->n_syms] = opt->dims[j];
        g->syms[g->n_syms].unit = -1;
        g->n_syms++;
    }
    const int n_plain = g->n_syms;
    /* A dim_param that is an expression of the --dim symbols (`past_sequence_length +
     * sequence_length`, `seq + 1`) is derived, not given: a host symbol named by its text,
     * which the host reads from the input's shape like any other, whose range comes from its
     * terms' and whose value the module checks against them before any step runs
     * (sym_exports.c; the hosts check it first, naming the input). It is the sum symbol of
     * its definition (wgc_sym_find_sum): a Concat of the past and the new rows, or an Add
     * of their Shape values, gives that same symbol. */
    for (int i = 0; i < g->n_inputs; i++) {
        const wgc_tensor *x = &g->tensors[g->inputs[i]];
        for (int d = 0; x->kind == WGC_KIND_TENSOR && d < x->shape.rank; d++) {
            const char *name = x->dim_param[d];
            wgc_linear l;
            char unknown[WGC_SYM_NAME];
            if (x->shape.dims[d] >= 0 || !name || wgc_sym_find(g, name) >= 0)
                continue;
            if (!wgc_linear_parse(g, name, &l, unknown, sizeof unknown)) {
                if (unknown[0] && strpbrk(name, "+-*()"))
                    return wgc_error(g, NULL, WG_ERR_INVALID,
                                     "graph input '%s' has a dynamic dimension %d ('%s'); give the range of "
                                     "'%s' with --dim %s=MIN..MAX (the expression is derived from it)",
                                     x->name, d, name, unknown, unknown);
                continue;
            }
            for (int t = 0; t < l.n; t++)
                used[l.sym[t]] = true;
            if (l.n == 0 || (l.n == 1 && l.c[0] == 1 && l.plus == 0) || wgc_sym_find_sum(g, &l) >= 0)
                continue;
            if (g->n_syms == WGC_MAX_SYMS)
                return wgc_error(g, NULL, WG_ERR_LIMIT, "more than %d symbolic dimensions in one model",
                                 WGC_MAX_SYMS);
            wgc_symbol *y = &g->syms[g->n_syms];
            *y = (wgc_symbol){.tensor = -1, .dim = -1, .unit = -1, .n_terms = l.n, .plus = l.plus};
            memcpy(y->term, l.sym, sizeof y->term);
            memcpy(y->term_c, l.c, sizeof y->term_c);
            y->min = y->max = l.plus;
            for (int t = 0; t < l.n; t++) {
                const int64_t a = l.c[t] * g->syms[l.sym[t]].min, b = l.c[t] * g->syms[l.sym[t]].max;
                y->min += a < b ? a : b;
                y->max += a < b ? b : a;
            }
            if (y->min < 0)
                return wgc_error(g, NULL, WG_ERR_INVALID, "graph input '%s' dimension %d ('%s') would be %lld "
                                 "at the ranges --dim gives", x->name, d, name, (long long)y->min);
            snprintf(y->name, sizeof y->name, "%s", name);
            if (strlen(name) >= sizeof y->name)
                return wgc_error(g, NULL, WG_ERR_LIMIT, "graph input '%s' dimension %d: the expression '%s' is "
                                 "longer than %d characters", x->name, d, name, WGC_SYM_NAME - 1);
            g->n_syms++;
        }
    }
    /* A multiple's unit (h / step: a derived symbol the module computes from h, after the
     * host's symbols): the shapes say step * unit, so h / 2, h / 32 ... are monomials. */
    const int n_host = g->n_syms;
    for (int k = 0; k < n_host; k++) {
        wgc_symbol *h = &g->syms[k];
        if (h->step <= 1)
            continue;
        wgc_symbol *u = &g->syms[g->n_syms];
        *u = (wgc_symbol){.min = h->min / h->step, .max = h->max / h->step, .runtime = true, .tensor = -1,
                          .dim = -1, .derived = true, .from = k, .from_c = 1, .add = -h->step,
                          .stride = h->step, .unit = -1};
        snprintf(u->name, sizeof u->name, "%.40s/%lld", h->name, (long long)h->step);
        h->unit = g->n_syms++;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        wgc_tensor *x = &g->tensors[g->inputs[i]];
        if (x->kind != WGC_KIND_TENSOR)
            continue; /* a sequence's or optional's elements take --shape (make_input_value) */
        for (int d = 0; d < x->shape.rank; d++) {
            if (x->shape.dims[d] >= 0)
                continue;
            const char *name = x->dim_param[d];
            int k = name ? wgc_sym_find(g, name) : -1;
            wgc_linear l;
            if (k < 0 && name && wgc_linear_parse(g, name, &l, NULL, 0)) {
                if (l.n == 0) { /* a constant after all */
                    x->shape.dims[d] = l.plus;
                    continue;
                }
                k = l.n == 1 && l.c[0] == 1 && l.plus == 0 ? l.sym[0] : wgc_sym_find_sum(g, &l);
            }
            if (k < 0 && name)
                return wgc_error(g, NULL, WG_ERR_INVALID,
                                 "graph input '%s' has a dynamic dimension %d ('%s'); give its "
                                 "range with --dim %s=MIN..MAX, or fix it with --shape %s=<dims>",
                                 x->name, d, name, name, x->name);
            if (k < 0)
                return wgc_error(g, NULL, WG_ERR_INVALID,
                                 "graph input '%s' has a dynamic dimension %d; fix it with "
                                 "--shape %s=<dims, e.g. 1x3x224x224>, or name it there and give "
                                 "its range with --dim NAME=MIN..MAX",
                                 x->name, d, x->name);
            used[k] = true;
            x->shape.dims[d] = g->syms[k].max;
            x->shape.sym[d][g->syms[k].unit >= 0 ? g->syms[k].unit : k] = 1;
        }
        if (wgc_shape_is_sym(&x->shape))
            x->has_shape = true;
    }
    for (int j = 0; j < n_plain; j++)
        if (!used[j])
            return wgc_error(g, NULL, WG_ERR_INVALID,
                             "--dim %s names no dynamic dimension of a graph input (dim_param, "
                             "or a name in --shape) and no integer graph input", g->syms[j].name);
    return bind_value_ranges(g, opt);
}

static wg_status apply_input_shapes(wgc_graph *g, const wgc_pass_options *opt)
{
    char a[128], b[128];
    const wgc_shape_override *value_shape[WGC_MAX_SHAPE_OVERRIDES] = {0};
    int value_input[WGC_MAX_SHAPE_OVERRIDES], n_value = 0;
    for (int k = 0; k < opt->n_shapes; k++) {
        const wgc_shape_override *o = &opt->shapes[k];
        const wgc_shape os = shape_of_spec(&o->shape);
        int t = wgc_tensor_find(g, o->name);
        bool is_input = false;
        for (int i = 0; i < g->n_inputs; i++)
            is_input |= g->inputs[i] == t;
        if (t < 0 || !is_input)
            return wgc_error(g, NULL, WG_ERR_INVALID, "--shape names '%s', which is not a graph input",
                             o->name);
        wgc_tensor *x = &g->tensors[t];
        if (x->kind != WGC_KIND_TENSOR) { /* a sequence's or optional's: make_input_value */
            value_shape[n_value] = o;
            value_input[n_value++] = t;
            continue;
        }
        if (o->n_elems > 1) /* 0: a caller that set only .shape */
            return wgc_error(g, NULL, WG_ERR_INVALID,
                             "--shape %s gives %d shapes, but '%s' is a tensor, not a sequence",
                             o->name, o->n_elems, o->name);
        if (x->shape.rank && x->shape.rank != o->shape.rank)
            return wgc_error(g, NULL, WG_ERR_INVALID,
                             "--shape %s=%s has rank %d, but the model declares rank %d",
                             o->name, wgc_shape_str(&os, a, sizeof a), o->shape.rank,
                             x->shape.rank);
        for (int d = 0; d < x->shape.rank; d++)
            if (x->shape.dims[d] >= 0 && x->shape.dims[d] != o->shape.dims[d])
                return wgc_error(g, NULL, WG_ERR_INVALID,
                                 "--shape %s=%s conflicts with the model's fixed shape %s", o->name,
                                 wgc_shape_str(&os, a, sizeof a),
                                 wgc_shape_str(&x->shape, b, sizeof b));
        x->shape = os;
        x->has_shape = true;
        for (int d = 0; d < x->shape.rank; d++) {
            if (x->shape.dims[d] >= 0)
                continue;
            free(x->dim_param[d]); /* the --shape name replaces the model's dim_param */
            size_t len = strlen(o->dim_name[d]) + 1;
            if (!(x->dim_param[d] = malloc(len)))
                return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory");
            memcpy(x->dim_param[d], o->dim_name[d], len);
        }
    }
    wg_status st;
    if ((st = bind_symbols(g, opt)))
        return st;
    for (int i = 0; i < g->n_inputs; i++) {
        int t = g->inputs[i];
        if (g->tensors[t].kind != WGC_KIND_TENSOR) {
            const wgc_shape_override *o = NULL;
            for (int k = 0; k < n_value; k++)
                if (value_input[k] == t)
                    o = value_shape[k];
            if ((st = make_input_value(g, t, o)))
                return st;
            continue;
        }
        if ((st = check_input(g, &g->tensors[t], g->tensors[t].name)))
            return st;
    }
    return WG_OK;
}

/* Folding puts its outputs into the module's weights (memory and module file). A few
 * bytes of Range, Tile or ConstantOfShape can ask for gigabytes; above this much the
 * compile is refused before anything is allocated. Real folded tensors are far smaller
 * (VGG-19's largest weight is 411 MB), and a quarter of wasm32 memory is a generous cap. */
#define FOLD_LIMIT_BYTES (UINT64_C(1) << 30)

static wg_status check_fold_size(wgc_graph *g, const wgc_node *n)
{
    uint64_t total = 0;
    for (int k = 0; k < n->n_outputs; k++) {
        const wgc_tensor *y = wgc_out(g, n, k);
        if (y)
            total += (uint64_t)wgc_numel(&y->shape) * wg_dtype_size(y->dtype);
    }
    if (total > FOLD_LIMIT_BYTES)
        return wgc_error(g, n, WG_ERR_LIMIT,
                         "folding it would create %llu bytes of constants, more than the %llu "
                         "a module's weights may take",
                         (unsigned long long)total, (unsigned long long)FOLD_LIMIT_BYTES);
    return WG_OK;
}

/* A Slice before opset 10 over symbolic shapes takes its starts, ends and axes as the
 * constant inputs opset 10 has (the one form the symbolic rules read, ops/sym_infer.c);
 * a static one keeps its attributes. Attributes that do not fit are left to the op. */
static wg_status upgrade_slice(wgc_graph *g, int i)
{
    wgc_node *n = &g->nodes[i];
    static const char *const names[3] = {"starts", "ends", "axes"};
    size_t cnt[3] = {0};
    const int64_t *v[3];
    for (int k = 0; k < 3; k++)
        v[k] = wgc_attr_ints(n, names[k], &cnt[k]);
    if (!v[0] || !v[1] || cnt[0] != cnt[1] || !cnt[0] || (v[2] && cnt[2] != cnt[0]) || cnt[0] > WG_MAX_RANK)
        return WG_OK;
    int in[4] = {n->inputs[0], -1, -1, -1};
    const int count = v[2] ? 3 : 2;
    for (int k = 0; k < count; k++) {
        char suffix[16];
        snprintf(suffix, sizeof suffix, "_%s", names[k]);
        const int t = wgc_tensor_add_derived(g, g->nodes[i].name, suffix);
        int64_t *data = malloc(sizeof(int64_t) * cnt[0]);
        if (t < 0 || !data) {
            free(data);
            return wgc_error(g, &g->nodes[i], WG_ERR_NOMEM, "out of memory");
        }
        memcpy(data, v[k], sizeof(int64_t) * cnt[0]);
        const wgc_shape shape = {.rank = 1, .dims = {(int64_t)cnt[0]}};
        wgc_tensor_set_const(g, t, WG_DT_INT64, &shape, data);
        in[1 + k] = t;
    }
    n = &g->nodes[i];
    wg_status st = wgc_node_set_inputs(g, n, in, 1 + count);
    if (!st)
        n->opset = 10;
    return st;
}

/* An elementwise node whose inputs do not broadcast at the maxima: invalid when two fixed
 * sizes differ; when symbolic dims are involved (past + seq against a size the compiler
 * derives otherwise), the compiler cannot prove them equal: unsupported, naming both. */
static wg_status broadcast_unproven(wgc_graph *g, const wgc_node *n, wg_status st)
{
    bool sym = false;
    for (int k = 0; k < n->n_inputs; k++)
        sym |= n->inputs[k] >= 0 && wgc_shape_is_sym(&g->tensors[n->inputs[k]].shape);
    if (!sym || n->inputs[0] < 0)
        return st;
    wgc_shape y = g->tensors[n->inputs[0]].shape, t;
    for (int k = 1; k < n->n_inputs; k++) {
        const wgc_tensor *x = n->inputs[k] >= 0 ? &g->tensors[n->inputs[k]] : NULL;
        if (!x)
            continue;
        if (!wgc_broadcast(&y, &x->shape, &t))
            return wgc_broadcast_fixed_conflict(&y, &x->shape) ? st : wgc_broadcast_error(g, n, k, &x->shape, &y);
        y = t;
    }
    return st;
}

/* Runs node i's infer hook with its inputs' symbolic dims hidden (their sizes at the maxima). */
/* An elementwise node whose operands give one axis in two forms it takes as equal (a
 * model's own total_sequence_length against past + seq: symdim.h wgc_broadcast_checked,
 * checked at run time by ops/sym_emit.c): each such operand dim at the larger maximum, the
 * output's, into dims (the others as they are). False when there is none. */
static bool checked_maxima(wgc_graph *g, const wgc_node *n, int64_t (*dims)[WG_MAX_RANK])
{
    if (!wgc_op_takes(g, n, WGC_BROADCASTS) || n->n_inputs < 2 || n->inputs[0] < 0)
        return false;
    wgc_shape y = g->tensors[n->inputs[0]].shape;
    for (int k = 1; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && !wgc_broadcast_checked(g, &y, &g->tensors[n->inputs[k]].shape, &y))
            return false;
    bool any = false;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_shape *x = n->inputs[k] >= 0 ? &g->tensors[n->inputs[k]].shape : NULL;
        for (int d = 0; x && d < x->rank; d++) {
            const int dy = d + y.rank - x->rank;
            dims[k][d] = x->dims[d];
            if (wgc_dim_is_sym(x, d) && memcmp(x->sym[d], y.sym[dy], WGC_MAX_SYMS) && wgc_dim_is_sym(&y, dy)) {
                dims[k][d] = y.dims[dy];
                any = true;
            }
        }
    }
    return any;
}

/* Runs node i's infer hook with its inputs' symbolic dims hidden (their sizes at the maxima). */
static wg_status infer_at_maxima(wgc_graph *g, int i, const wgc_op_def *op)
{
    wgc_node *n = &g->nodes[i];
    typedef uint8_t dim_syms[WG_MAX_RANK][WGC_MAX_SYMS];
    const int k_max = n->n_inputs;
    dim_syms *saved = malloc(sizeof *saved * (size_t)(k_max ? k_max : 1));
    int *ins = malloc(sizeof *ins * (size_t)(k_max ? k_max : 1));
    int64_t (*dims)[WG_MAX_RANK] = malloc(sizeof *dims * 2 * (size_t)(k_max ? k_max : 1)); /* the hook's, saved */
    if (!saved || !ins || !dims) {
        free(saved);
        free(ins);
        free(dims);
        return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    const bool checked = checked_maxima(g, n, dims);
    for (int k = 0; k < k_max; k++)
        if ((ins[k] = n->inputs[k]) >= 0) {
            wgc_tensor *x = &g->tensors[ins[k]];
            memcpy(saved[k], x->shape.sym, sizeof saved[k]);
            memset(x->shape.sym, 0, sizeof saved[k]);
            memcpy(dims[k_max + k], x->shape.dims, sizeof dims[0]);
            if (checked)
                memcpy(x->shape.dims, dims[k], sizeof(int64_t) * (size_t)x->shape.rank);
        }
    wg_status st = op->infer(g, n);
    /* the hook may have replaced the node's inputs (an If's, if_values.c) or added nodes
     * (ops/unroll.c, moving the array): restore the tensors saved, the last first (an
     * input read twice keeps its own) */
    for (int k = k_max - 1; k >= 0; k--)
        if (ins[k] >= 0) {
            memcpy(g->tensors[ins[k]].shape.sym, saved[k], sizeof saved[k]);
            memcpy(g->tensors[ins[k]].shape.dims, dims[k_max + k], sizeof dims[0]);
        }
    free(saved);
    free(ins);
    free(dims);
    if (st == WG_ERR_INVALID && wgc_op_takes(g, n, WGC_BROADCASTS))
        return broadcast_unproven(g, n, st);
    return st;
}

/* Integer values computed at run time: bounds for the sizes they may decide (ir/valrange.h),
 * by the op's sym.bounds hook, for output 0 (every output of a Split or an If) where it
 * is neither constant nor symbolic values. */
static wg_status infer_bounds(wgc_graph *g, const wgc_node *n)
{
    const wgc_op_sym *s = &wgc_op_hooks(n->op)->sym;
    for (int k = 0; s->bounds && k < n->n_outputs; k++) {
        const wgc_tensor *y = wgc_out(g, n, k);
        if (!y || y->data || y->symval || !wgc_vrange_is_int(y->dtype) ||
            (k > 0 && n->op != WGC_OP_SPLIT && n->op != WGC_OP_IF))
            continue;
        wgc_vrange out[WGC_VRANGE_ELEMS];
        const int64_t count = wgc_vrange_elems(y);
        if (s->bounds(g, n, y, out, count) && wgc_vrange_set(g, n->outputs[k], out, count))
            return wgc_error(g, n, WG_ERR_NOMEM, "out of memory");
    }
    return WG_OK;
}

/* The error of a node whose (domain, op type) names no op we know: where the name is an op
 * of another domain, which; for com.microsoft, the ones implemented. */
static wg_status unsupported_op(wgc_graph *g, const wgc_node *n)
{
    const bool dflt = wgc_is_default_domain(n->domain);
    char hint[640] = "";
    const wgc_op other = wgc_op_elsewhere(n->domain, n->op_type);
    if (other < WGC_OP_COUNT) {
        const char *d = wgc_domain_name(wgc_op_domain(other));
        snprintf(hint, sizeof hint, " (%s is an operator of %s%s%s)", n->op_type,
                 d[0] ? "domain '" : "the default domain", d, d[0] ? "'" : "");
    } else if (!strcmp(n->domain, wgc_domain_name(WGC_DOMAIN_MS))) {
        char ops[512];
        wgc_domain_ops(WGC_DOMAIN_MS, ops, sizeof ops);
        snprintf(hint, sizeof hint, " (the %s operators implemented: %s)", n->domain, ops);
    }
    if (dflt)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "unsupported operator '%s'%s", n->op_type, hint);
    /* the message's prefix names the op and its domain */
    return wgc_error(g, n, WG_ERR_UNSUPPORTED, "unsupported operator%s", hint);
}

/* Infers node i and folds it when it can. */
static wg_status infer_node(wgc_graph *g, int i)
{
    wg_status st;
    wgc_node *n = &g->nodes[i];
    if (n->op == WGC_OP_COUNT)
        return unsupported_op(g, n);
    /* The op's version at this opset is one we implement (ops/versions.c), and its
     * required inputs are present before any hook looks at them (ops/arity.c). */
    st = wgc_check_version(g, n);
    if (!st && n->op == WGC_OP_SLICE && n->opset < 10 && g->n_syms && wgc_sym_node(g, n) &&
        !(st = upgrade_slice(g, i)))
        n = &g->nodes[i];
    if (!st)
        st = wgc_check_required(g, n);
    if (st)
        return st;
    for (int k = 0; k < n->n_inputs; k++) {
        const wgc_tensor *x = wgc_in(g, n, k);
        if (x && (!x->has_shape || !x->dtype))
            return wgc_error(g, n, WG_ERR_INVALID, "input '%s' has no known shape", x->name);
    }
    const wgc_op_def *op = wgc_op_hooks(n->op);
    const bool sym = g->n_syms && wgc_sym_node(g, n);
    /* With symbolic inputs the op's own hook sees the maxima only; sym_infer.c then gives
     * the outputs their symbolic dims, or refuses the node naming the symbol. An If, Loop
     * or Scan sees its bodies' symbols: its outputs take them, or a run-time size of
     * their own where the branches or iterations may differ (ops/control_flow.c). */
    const bool sees_syms = n->op == WGC_OP_IF || n->op == WGC_OP_LOOP || n->op == WGC_OP_SCAN;
    st = sym && !sees_syms ? infer_at_maxima(g, i, op) : op->infer(g, n);
    n = &g->nodes[i]; /* a hook may add nodes (ops/unroll.c), moving the array */
    if (!st && sym)
        st = wgc_sym_infer(g, n);
    if (st)
        return st;
    for (int k = 0; k < n->n_outputs; k++) {
        wgc_tensor *y = wgc_out(g, n, k);
        if (!y)
            continue;
        if (!y->has_shape || !y->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "output '%s' got no shape", y->name);
        if ((st = check_size(g, n, y, "output")))
            return st;
    }
    /* Shape and Size read only their input's shape: fixed, they fold whatever its values */
    if (op->fold && (n->op == WGC_OP_SHAPE || n->op == WGC_OP_SIZE || wgc_inputs_const(g, n)) &&
        (!sym || wgc_sym_foldable(g, n))) {
        if ((st = check_fold_size(g, n)) || (st = wgc_run_fold(g, n)))
            return st;
        if (sym && (st = n->dead ? wgc_sym_fold(g, n) : wgc_sym_refuse(g, n, NULL)))
            return st;
    }
    /* integer values computed at run time: bounds for the sizes they may decide */
    return infer_bounds(g, n);
}

wg_status wgc_pass_infer(wgc_graph *g, const wgc_pass_options *opt)
{
    wg_status st = apply_input_shapes(g, opt);
    if (st)
        return st;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        if ((st = infer_node(g, i))) {
            /* A branch of an If decided at run time that is invalid for these shapes (the
             * other branch is the one they are for: Silero's 8 kHz branch at 16 kHz chunk
             * sizes) becomes a run-time error instead (ops/control_flow.c) */
            int resume;
            if ((st == WG_ERR_INVALID || st == WG_ERR_LIMIT) && wgc_cf_drop_branch(g, i, &resume)) {
                i = resume;
                continue;
            }
            return st;
        }
    }
    for (int k = 0; k < g->n_outputs; k++) {
        const wgc_tensor *y = &g->tensors[g->outputs[k]];
        if (!y->has_shape)
            return wgc_error(g, NULL, WG_ERR_INVALID, "graph output '%s' has no known shape", y->name);
    }
    /* sequences and optionals at the boundary become their element tensors */
    return wgc_values_expand_boundary(g);
}
