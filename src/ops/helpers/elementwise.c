/* elementwise.c: infer, emit and fold of the elementwise op families from their rows (see
 * elementwise.h). */
#include "elementwise.h"

#include <stdio.h>
#include <string.h>

#include "inline_loops.h"

const int wgc_ew_floats[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, 0};
const int wgc_ew_ints[] = {WG_DT_INT8,  WG_DT_INT16,  WG_DT_INT32,  WG_DT_INT64, WG_DT_UINT8,
                           WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
const int wgc_ew_uints[] = {WG_DT_UINT8, WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
const int wgc_ew_numbers[] = {WG_DT_FLOAT, WG_DT_DOUBLE, WG_DT_FLOAT16, WG_DT_INT8,
                              WG_DT_INT16, WG_DT_INT32,  WG_DT_INT64,   WG_DT_UINT8,
                              WG_DT_UINT16, WG_DT_UINT32, WG_DT_UINT64, 0};
const int wgc_ew_bools[] = {WG_DT_BOOL, 0};

/* The row of n's op in table[WGC_OP_COUNT] into *r, or an error naming the op. */
static wg_status row_of(wgc_graph *g, const wgc_node *n, const wgc_ew_row *table,
                        const wgc_ew_row **r)
{
    if ((int)n->op < 0 || n->op >= WGC_OP_COUNT || table[n->op].min_in == 0)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "op %s has no row in its elementwise table (internal error)", n->op_type);
    *r = &table[n->op];
    return WG_OK;
}

int wgc_ew_choice(const wgc_node *n, const wgc_ew_attr *a)
{
    const char *v = wgc_attr_str(n, a->name, a->s);
    for (int k = 0; k < WGC_EW_MAX_CHOICES; k++)
        if (a->values[k] && !strcmp(v, a->values[k]))
            return k;
    return -1;
}

/* Reads the row's attributes of n (choices already checked by infer). */
static wgc_ew_params read_params(const wgc_node *n, const wgc_ew_row *r)
{
    wgc_ew_params p = {{0}};
    for (int k = 0; k < WGC_EW_MAX_ATTRS && r->attrs[k].name; k++) {
        const wgc_ew_attr *a = &r->attrs[k];
        switch (a->kind) {
        case WGC_EW_FLOAT: p.v[k] = wgc_attr_float(n, a->name, a->f); break;
        case WGC_EW_FLAG: p.v[k] = wgc_attr_int(n, a->name, a->i) != 0; break;
        case WGC_EW_CHOICE: p.v[k] = wgc_ew_choice(n, a); break;
        }
    }
    return p;
}

/* The dtypes input i must have, and whether it must agree with the others. */
static const int *input_dtypes(const wgc_ew_row *r, int i, bool *agrees)
{
    const int *own = i == 0 ? r->dtypes_in0 : i == 1 ? r->dtypes_in1 : NULL;
    *agrees = !own;
    return own ? own : r->dtypes;
}

wg_status wgc_ew_infer(wgc_graph *g, wgc_node *n, const wgc_ew_row *table)
{
    const wgc_ew_row *r;
    wg_status st = row_of(g, n, table, &r);
    if (st)
        return st;
    st = wgc_check_arity(g, n, r->min_in, r->max_in, 1, 1);
    if (!st && r->check)
        st = r->check(g, n);
    if (st)
        return st;
    for (int k = 0; k < WGC_EW_MAX_ATTRS && r->attrs[k].name; k++) {
        const wgc_ew_attr *a = &r->attrs[k];
        if (a->kind == WGC_EW_CHOICE && wgc_ew_choice(n, a) < 0)
            return wgc_error(g, n, WG_ERR_INVALID, "%s='%s' (want %s or %s)", a->name,
                             wgc_attr_str(n, a->name, a->s), a->values[0], a->values[1]);
    }
    wgc_shape y = {0};
    int ref = -1; /* the first input whose dtype the others must agree with */
    for (int i = 0; i < n->n_inputs; i++) {
        bool agrees;
        if ((st = wgc_check_input(g, n, i, input_dtypes(r, i, &agrees))))
            return st;
        const wgc_tensor *x = wgc_in(g, n, i);
        if (agrees && ref < 0)
            ref = i;
        else if (agrees && x->dtype != wgc_in(g, n, ref)->dtype)
            return wgc_error(g, n, WG_ERR_INVALID, "inputs have different dtypes %s and %s",
                             wg_dtype_name(wgc_in(g, n, ref)->dtype), wg_dtype_name(x->dtype));
        wgc_shape t;
        if (i == 0) {
            y = x->shape;
        } else if (!wgc_broadcast(&y, &x->shape, &t)) {
            return wgc_broadcast_error(g, n, i, &x->shape, &y);
        } else {
            y = t;
        }
    }
    wgc_set_output(g, n, 0, r->out == WGC_EW_BOOL ? WG_DT_BOOL : wgc_in(g, n, ref)->dtype, &y);
    return WG_OK;
}

wg_status wgc_ew_fold(wgc_graph *g, wgc_node *n, const wgc_ew_row *table)
{
    const wgc_ew_row *r;
    wg_status st = row_of(g, n, table, &r);
    if (st)
        return st;
    if (n->act != WGC_ACT_NONE)
        return WG_ERR_UNSUPPORTED;
    wgc_ew_params p = read_params(n, r);
    return wgc_fold_map(g, n, r->fold, &p);
}

/*
 * Writes tmpl into out with each "{name}" replaced: by the row's attribute of that name
 * (a float as an exact literal, a flag as 0/1 or its text, a choice as its text), or by
 * the text given for it in more[] (name, text pairs, NULL-terminated). False when out is
 * too small or a name is unknown (a bug in a row).
 */
static bool expand(char *out, size_t cap, const char *tmpl, const wgc_ew_row *r,
                   const wgc_ew_params *p, const char *const *more)
{
    size_t len = 0;
    for (const char *s = tmpl; *s;) {
        char lit[40];
        const char *text = NULL;
        size_t skip = 1;
        if (*s == '{') {
            const char *end = strchr(s, '}');
            size_t nl = end ? (size_t)(end - s - 1) : 0;
            for (int k = 0; end && k < WGC_EW_MAX_ATTRS && r->attrs[k].name; k++) {
                const wgc_ew_attr *a = &r->attrs[k];
                if (strlen(a->name) != nl || strncmp(a->name, s + 1, nl))
                    continue;
                /* a float attribute may hold any value (the fuzzer gave 7.7e31): only
                 * flags and choices, which read_params keeps small, become an int */
                if (a->kind == WGC_EW_FLOAT)
                    text = wgc_dlit(lit, sizeof lit, p->v[k]);
                else if (a->texts[0])
                    text = a->texts[(int)p->v[k]];
                else
                    text = p->v[k] != 0 ? "1" : "0";
            }
            for (int k = 0; end && !text && more && more[k]; k += 2)
                if (strlen(more[k]) == nl && !strncmp(more[k], s + 1, nl))
                    text = more[k + 1];
            if (!text)
                return false;
            skip = nl + 2;
        }
        size_t tl = text ? strlen(text) : 1;
        if (len + tl >= cap)
            return false;
        memcpy(out + len, text ? text : s, tl);
        len += tl;
        s += skip;
    }
    out[len] = '\0';
    return true;
}

/* Builds a variadic row's expression over n's inputs into ex. */
static bool variadic_expr(char *ex, size_t cap, const wgc_ew_row *r, const wgc_ew_params *p, int nin)
{
    static const char *const v[4] = {"a", "b", "c", "d"};
    char acc[1024], t[1024], count[16];
    snprintf(acc, sizeof acc, "a");
    for (int i = 1; i < nin; i++) {
        const char *more[] = {"acc", acc, "x", v[i], NULL};
        if (!expand(t, sizeof t, r->step, r, p, more))
            return false;
        snprintf(acc, sizeof acc, "%s", t);
    }
    snprintf(count, sizeof count, "%d", nin);
    const char *more[] = {"acc", acc, "n", count, NULL};
    if (nin > 1 && r->finish)
        return expand(ex, cap, r->finish, r, p, more);
    snprintf(ex, cap, "%s", acc);
    return true;
}

/* The row's C expression for n, over operands a, b, c, d of type T (the first input's). */
static wg_status row_expression(wgc_graph *g, const wgc_node *n, const wgc_ew_row *table, const wgc_ew_row **row,
                                char *ex, size_t size)
{
    const wgc_ew_row *r;
    wg_status st = row_of(g, n, table, &r);
    if (st)
        return st;
    const wgc_tensor *x = wgc_in(g, n, 0), *y = wgc_out(g, n, 0);
    if (n->act != WGC_ACT_NONE)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "fused activation on dtype %s",
                         wg_dtype_name(y->dtype));
    const char *special = r->special ? r->special(g, n) : NULL;
    if (!special && !r->expr[0] && !r->step)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED,
                         "dtype %s is only supported when the inputs are constant",
                         wg_dtype_name(y->dtype));
    wgc_ew_params p = read_params(n, r);
    bool ok;
    if (special) {
        ok = expand(ex, size, special, r, &p, NULL);
    } else if (r->step) {
        ok = variadic_expr(ex, size, r, &p, n->n_inputs);
    } else {
        int k = wgc_dtype_kind(x->dtype) == WGC_KIND_FLOAT ? 0
                : wgc_dtype_kind(x->dtype) == WGC_KIND_SIGNED ? 1 : 2;
        while (k > 0 && !r->expr[k])
            k--;
        ok = expand(ex, size, r->expr[k], r, &p, NULL);
    }
    if (!ok)
        return wgc_error(g, n, WG_ERR_LIMIT, "expression of %s does not expand (internal error)",
                         n->op_type);
    *row = r;
    return WG_OK;
}

wg_status wgc_ew_emit(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_ew_row *table)
{
    const wgc_ew_row *r;
    char ex[1024];
    wg_status st = row_expression(g, n, table, &r, ex, sizeof ex);
    if (st)
        return st;
    /* A helper macro ("name(p, q) body") lives only around this node's loop. */
    char name[64] = "";
    if (r->helper && n->n_inputs > 1) {
        snprintf(name, sizeof name, "%.*s", (int)strcspn(r->helper, "("), r->helper);
        wgc_emit(e, "#define %s\n", r->helper);
    }
    st = wgc_gen_map(e, g, n, n->inputs, n->n_inputs, n->outputs[0], ex);
    if (name[0])
        wgc_emit(e, "#undef %s\n", name);
    return st;
}

wg_status wgc_ew_emit_flat(wgc_emitter *e, wgc_graph *g, wgc_node *n, const wgc_ew_row *table, const char *count)
{
    const wgc_ew_row *r;
    char ex[1024];
    wg_status st = row_expression(g, n, table, &r, ex, sizeof ex);
    if (st)
        return st;
    const char *cx = wgc_ctype(wgc_in(g, n, 0)->dtype), *cy = wgc_ctype(wgc_out(g, n, 0)->dtype);
    if (!cx || !cy)
        return wgc_error(g, n, WG_ERR_UNSUPPORTED, "dtype %s at run time", wg_dtype_name(wgc_in(g, n, 0)->dtype));
    wgc_emit(e, "{\ntypedef %s TY;\ntypedef %s T;\nconst T *pa = (const T *)%s;\nTY *py = (TY *)%s;\n", cy, cx,
             wgc_ptr(e, g, n->inputs[0]), wgc_ptr(e, g, n->outputs[0]));
    wgc_emit(e, "for (int32_t o = 0, n_ = %s; o < n_; o++) {\nT a = pa[o];\npy[o] = (TY)(%s);\n}\n}\n", count, ex);
    return WG_OK;
}

int wgc_ew_compare(wgc_kind k, wgc_scalar a, wgc_scalar b)
{
    if (k == WGC_KIND_FLOAT)
        return a.f < b.f ? -1 : a.f > b.f ? 1 : a.f == b.f ? 0 : 2;
    if (k == WGC_KIND_SIGNED)
        return a.i < b.i ? -1 : a.i > b.i;
    return a.u < b.u ? -1 : a.u > b.u;
}

const char *wgc_binary_kernel(int dtype)
{
    switch (dtype) {
    case WG_DT_FLOAT: return "wgk_f32_binary";
    case WG_DT_INT32: return "wgk_i32_binary";
    case WG_DT_INT64: return "wgk_i64_binary";
    default: return NULL;
    }
}

void wgc_emit_binary(wgc_emitter *e, wgc_graph *g, const char *kernel, const char *op, int a,
                     int b, int y)
{
    int64_t dims[WG_MAX_RANK], sa[WG_MAX_RANK], sb[WG_MAX_RANK];
    char ld[160], la[160], lb[160];
    const wgc_tensor *ty = &g->tensors[y];
    if (wgc_numel(&ty->shape) == 0)
        return;
    int r = wgc_bcast_plan(&g->tensors[a].shape, &g->tensors[b].shape, &ty->shape, dims, sa, sb);
    const char *pa = wgc_ptr(e, g, a), *pb = wgc_ptr(e, g, b), *py = wgc_ptr(e, g, y);
    if (r >= 1 && wgc_split_pays(e, dims[0], wgc_numel(&ty->shape))) {
        /* Threads: runs of the outermost dimension, each element computed as on one. */
        const char *ct = ty->dtype == WG_DT_FLOAT ? "float" : ty->dtype == WG_DT_INT32 ? "int32_t" : "int64_t";
        const int64_t inner = wgc_numel(&ty->shape) / dims[0];
        wgc_emit(e, "{\n");
        wgc_emit_part_range(e, dims[0], 1);
        wgc_emit(e, "    int32_t d[%d] = %s;\n    d[0] = hi - lo;\n", r, wgc_i32_list(ld, sizeof ld, dims, r) + strlen("(const int32_t[])"));
        wgc_emit(e, "    if (lo < hi)\n        %s(%s, (%s *)%s + (size_t)lo * %lld, (const %s *)%s + (size_t)lo * %lld, "
                    "(const %s *)%s + (size_t)lo * %lld, %d, d, %s, %s);\n}\n",
                 kernel, op, ct, py, (long long)inner, ct, pa, (long long)sa[0], ct, pb, (long long)sb[0], r,
                 wgc_i32_list(la, sizeof la, sa, r), wgc_i32_list(lb, sizeof lb, sb, r));
        return;
    }
    wgc_emit(e, "%s(%s, %s, %s, %s, %d, %s, %s, %s);\n", kernel, op, py, pa, pb, r,
             wgc_i32_list(ld, sizeof ld, dims, r), wgc_i32_list(la, sizeof la, sa, r),
             wgc_i32_list(lb, sizeof lb, sb, r));
}
