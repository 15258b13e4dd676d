/* graph.c: construction, lookup and teardown of the IR graph (see ir.h). */
#include "ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

wgc_graph *wgc_graph_new(void)
{
    return calloc(1, sizeof(wgc_graph));
}

static void value_free(wgc_value *v)
{
    if (v) {
        free(v->data);
        free(v);
    }
}

static void attr_free(wgc_attr *a)
{
    free(a->name);
    free(a->s);
    free(a->floats);
    free(a->ints);
    value_free(a->t);
    if (a->strings)
        for (size_t i = 0; i < a->n; i++)
            free(a->strings[i]);
    free(a->strings);
    if (a->body) {
        free(a->body->inputs);
        free(a->body->outputs);
        free(a->body);
    }
}

void wgc_graph_free(wgc_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_tensors; i++) {
        free(g->tensors[i].name);
        free(g->tensors[i].elems);
        if (g->tensors[i].owns_data)
            free(g->tensors[i].data);
        for (int d = 0; d < WG_MAX_RANK; d++)
            free(g->tensors[i].dim_param[d]);
        free(g->tensors[i].symval);
        free(g->tensors[i].vrange);
    }
    free(g->name_index);
    for (int i = 0; i < g->n_nodes; i++) {
        wgc_node *n = &g->nodes[i];
        free(n->name);
        free(n->op_type);
        free(n->domain);
        free(n->inputs);
        free(n->outputs);
        for (int a = 0; a < n->n_attrs; a++)
            attr_free(&n->attrs[a]);
        free(n->attrs);
    }
    free(g->tensors);
    free(g->nodes);
    free(g->inputs);
    free(g->outputs);
    free(g->input_reads);
    free(g->name);
    free(g->producer);
    if (g->map)
        munmap(g->map, g->map_len);
    free(g);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* FNV-1a of a tensor name. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Records tensor t in the name index unless an earlier tensor has its name (find returns
 * the first). The index has room: at most half of its slots are taken. */
static void index_name(wgc_graph *g, int t)
{
    const uint32_t mask = (uint32_t)g->name_slots - 1;
    for (uint32_t i = name_hash(g->tensors[t].name) & mask;; i = (i + 1) & mask) {
        const int at = g->name_index[i];
        if (at < 0) {
            g->name_index[i] = t;
            return;
        }
        if (!strcmp(g->tensors[at].name, g->tensors[t].name))
            return;
    }
}

/* Makes the name index hold `need` tensors at half load: rebuilt, in index order, when it
 * grows. Unrolled loops add hundreds of thousands of tensors, each name looked up first
 * (wgc_tensor_add_derived): a linear search made that quadratic. */
static bool reserve_names(wgc_graph *g, int need)
{
    if ((int64_t)need * 2 <= g->name_slots)
        return true;
    int slots = g->name_slots ? g->name_slots : 256;
    while ((int64_t)need * 2 > slots)
        slots *= 2;
    int *index = malloc(sizeof(int) * (size_t)slots);
    if (!index)
        return false;
    free(g->name_index);
    g->name_index = index;
    g->name_slots = slots;
    for (int i = 0; i < slots; i++)
        index[i] = -1;
    for (int t = 0; t < g->n_tensors; t++)
        index_name(g, t);
    return true;
}

int wgc_tensor_find(const wgc_graph *g, const char *name)
{
    if (!g->name_slots)
        return -1; /* no tensor yet */
    const uint32_t mask = (uint32_t)g->name_slots - 1;
    for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
        const int at = g->name_index[i];
        if (at < 0)
            return -1;
        if (!strcmp(g->tensors[at].name, name))
            return at;
    }
}

int wgc_tensor_add(wgc_graph *g, const char *name)
{
    if (g->n_tensors == g->cap_tensors) {
        int nc = g->cap_tensors ? g->cap_tensors * 2 : 64;
        wgc_tensor *nt = realloc(g->tensors, (size_t)nc * sizeof *nt);
        if (!nt)
            return -1;
        g->tensors = nt;
        g->cap_tensors = nc;
    }
    if (!reserve_names(g, g->n_tensors + 1))
        return -1;
    wgc_tensor *t = &g->tensors[g->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = dup_str(name);
    if (!t->name)
        return -1;
    t->producer = -1;
    t->addr = -1;
    t->present = -1;
    t->value_of = -1;
    index_name(g, g->n_tensors);
    return g->n_tensors++;
}

int wgc_tensor_get(wgc_graph *g, const char *name)
{
    int t = wgc_tensor_find(g, name);
    return t >= 0 ? t : wgc_tensor_add(g, name);
}

void wgc_tensor_set_const(wgc_graph *g, int t, int dtype, const wgc_shape *shape, void *data)
{
    wgc_tensor *x = &g->tensors[t];
    if (x->owns_data && x->data != data)
        free(x->data);
    x->data = data;
    x->owns_data = true;
    free(x->symval); /* plain values now (wgc_tensor_set_symval sets its own after) */
    x->symval = NULL;
    x->from_dq = false; /* quant.c's fold sets its own after */
    x->dtype = dtype;
    x->shape = *shape;
    x->has_shape = true;
}

int wgc_node_add(wgc_graph *g, const char *name, const char *op_type, const char *domain,
                 const int *inputs, int n_inputs, const int *outputs, int n_outputs)
{
    if (g->n_nodes == g->cap_nodes) {
        int nc = g->cap_nodes ? g->cap_nodes * 2 : 64;
        wgc_node *nn = realloc(g->nodes, (size_t)nc * sizeof *nn);
        if (!nn)
            return -1;
        g->nodes = nn;
        g->cap_nodes = nc;
    }
    wgc_node *n = &g->nodes[g->n_nodes];
    memset(n, 0, sizeof *n);
    n->residual = -1;
    n->aux_affine = -1;
    n->bias = -1;
    n->act_min = -INFINITY;
    n->act_max = INFINITY;
    n->name = dup_str(name);
    n->op_type = dup_str(op_type);
    n->domain = dup_str(domain ? domain : "");
    n->inputs = malloc(sizeof(int) * (size_t)(n_inputs ? n_inputs : 1));
    n->outputs = malloc(sizeof(int) * (size_t)(n_outputs ? n_outputs : 1));
    if (!n->name || !n->op_type || !n->domain || !n->inputs || !n->outputs) {
        free(n->name);
        free(n->op_type);
        free(n->domain);
        free(n->inputs);
        free(n->outputs);
        return -1;
    }
    if (n_inputs)
        memcpy(n->inputs, inputs, sizeof(int) * (size_t)n_inputs);
    if (n_outputs)
        memcpy(n->outputs, outputs, sizeof(int) * (size_t)n_outputs);
    n->n_inputs = n_inputs;
    n->n_outputs = n_outputs;
    n->op = wgc_op_lookup(n->domain, op_type);
    n->opset = g->opset;
    return g->n_nodes++;
}

wgc_attr *wgc_attr_add(wgc_graph *g, int node, const char *name, int type)
{
    wgc_node *n = &g->nodes[node];
    wgc_attr *na = realloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *na);
    if (!na)
        return NULL;
    n->attrs = na;
    wgc_attr *a = &na[n->n_attrs];
    memset(a, 0, sizeof *a);
    a->name = dup_str(name);
    if (!a->name)
        return NULL;
    a->type = type;
    n->n_attrs++;
    return a;
}

wgc_attr *wgc_attr_copy(wgc_graph *g, int n, const wgc_attr *src)
{
    const wgc_attr a = *src; /* src moves when it is n's own and n's attributes grow */
    wgc_attr *d = wgc_attr_add(g, n, a.name, a.type);
    if (!d)
        return NULL;
    d->f = a.f;
    d->i = a.i;
    d->n = a.n;
    d->s_len = a.s_len;
    if (a.s && !(d->s = malloc(a.s_len + 1)))
        return NULL;
    if (a.s)
        memcpy(d->s, a.s, a.s_len + 1);
    if (a.floats && !(d->floats = malloc(sizeof(float) * (a.n ? a.n : 1))))
        return NULL;
    if (a.floats && a.n)
        memcpy(d->floats, a.floats, sizeof(float) * a.n);
    if (a.ints && !(d->ints = malloc(sizeof(int64_t) * (a.n ? a.n : 1))))
        return NULL;
    if (a.ints && a.n)
        memcpy(d->ints, a.ints, sizeof(int64_t) * a.n);
    if (a.t) {
        size_t bytes = (size_t)wgc_numel(&a.t->shape) * wg_dtype_size(a.t->dtype);
        if (!(d->t = calloc(1, sizeof *d->t)) || !(d->t->data = malloc(bytes ? bytes : 1)))
            return NULL;
        d->t->dtype = a.t->dtype;
        d->t->shape = a.t->shape;
        if (bytes)
            memcpy(d->t->data, a.t->data, bytes);
    }
    if (a.strings) {
        if (!(d->strings = calloc(a.n ? a.n : 1, sizeof *d->strings)))
            return NULL;
        for (size_t k = 0; k < a.n; k++)
            if (!(d->strings[k] = dup_str(a.strings[k])))
                return NULL;
    }
    return d;
}

const wgc_attr *wgc_attr_find(const wgc_node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (!strcmp(n->attrs[i].name, name))
            return &n->attrs[i];
    return NULL;
}

int64_t wgc_attr_int(const wgc_node *n, const char *name, int64_t dflt)
{
    const wgc_attr *a = wgc_attr_find(n, name);
    return a && a->type == WGC_ATTR_INT ? a->i : dflt;
}

float wgc_attr_float(const wgc_node *n, const char *name, float dflt)
{
    const wgc_attr *a = wgc_attr_find(n, name);
    if (!a)
        return dflt;
    if (a->type == WGC_ATTR_FLOAT)
        return a->f;
    if (a->type == WGC_ATTR_INT)
        return (float)a->i;
    return dflt;
}

const char *wgc_attr_str(const wgc_node *n, const char *name, const char *dflt)
{
    const wgc_attr *a = wgc_attr_find(n, name);
    return a && a->type == WGC_ATTR_STRING && a->s ? a->s : dflt;
}

const int64_t *wgc_attr_ints(const wgc_node *n, const char *name, size_t *count)
{
    const wgc_attr *a = wgc_attr_find(n, name);
    if (!a || a->type != WGC_ATTR_INTS) {
        *count = 0;
        return NULL;
    }
    *count = a->n;
    return a->ints;
}

const float *wgc_attr_floats(const wgc_node *n, const char *name, size_t *count)
{
    const wgc_attr *a = wgc_attr_find(n, name);
    if (!a || a->type != WGC_ATTR_FLOATS) {
        *count = 0;
        return NULL;
    }
    *count = a->n;
    return a->floats;
}

wgc_tensor *wgc_in(wgc_graph *g, const wgc_node *n, int i)
{
    if (i < 0 || i >= n->n_inputs || n->inputs[i] < 0)
        return NULL;
    return &g->tensors[n->inputs[i]];
}

wgc_tensor *wgc_out(wgc_graph *g, const wgc_node *n, int i)
{
    if (i < 0 || i >= n->n_outputs || n->outputs[i] < 0)
        return NULL;
    return &g->tensors[n->outputs[i]];
}

wg_status wgc_error(wgc_graph *g, const wgc_node *n, wg_status st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n && !wgc_is_default_domain(n->domain)) /* the domain too: "Gelu" is two ops */
        snprintf(g->err, sizeof g->err, "node '%s' (%s, domain %s): %s", n->name, n->op_type,
                 n->domain, msg);
    else if (n)
        snprintf(g->err, sizeof g->err, "node '%s' (%s): %s", n->name, n->op_type, msg);
    else
        snprintf(g->err, sizeof g->err, "%s", msg);
    return st;
}

int64_t wgc_numel(const wgc_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->dims[i];
    return n;
}

bool wgc_numel_checked(const wgc_shape *s, int64_t *out)
{
    const int64_t limit = (int64_t)1 << 40;
    int64_t n = 1;
    if (s->rank < 0 || s->rank > WG_MAX_RANK)
        return false;
    for (int i = 0; i < s->rank; i++) {
        int64_t d = s->dims[i];
        if (d < 0)
            return false;
        if (d && n > limit / d)
            return false;
        n *= d;
    }
    *out = n;
    return true;
}

const char *wgc_shape_str(const wgc_shape *s, char *buf, size_t len)
{
    if (!len)
        return buf;
    if (s->rank == 0) {
        snprintf(buf, len, "scalar");
        return buf;
    }
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < s->rank && used < len; i++) {
        int w = snprintf(buf + used, len - used, i ? "x%lld" : "%lld", (long long)s->dims[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

bool wgc_dim_is_sym(const wgc_shape *s, int d)
{
    for (int k = 0; k < WGC_MAX_SYMS; k++)
        if (s->sym[d][k])
            return true;
    return false;
}

bool wgc_broadcast(const wgc_shape *a, const wgc_shape *b, wgc_shape *out)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    wgc_shape o = {.rank = r};
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1;
        int64_t db = ib >= 0 ? b->dims[ib] : 1;
        /* A symbolic dimension broadcasts only against a fixed 1 or the same expression. */
        bool sa = ia >= 0 && wgc_dim_is_sym(a, ia), sb = ib >= 0 && wgc_dim_is_sym(b, ib);
        if (da == db && sa == sb && (!sa || !memcmp(a->sym[ia], b->sym[ib], WGC_MAX_SYMS))) {
            o.dims[i] = da;
            if (sa)
                memcpy(o.sym[i], a->sym[ia], WGC_MAX_SYMS);
        } else if (db == 1 && !sb) {
            o.dims[i] = da;
            if (sa)
                memcpy(o.sym[i], a->sym[ia], WGC_MAX_SYMS);
        } else if (da == 1 && !sa) {
            o.dims[i] = db;
            if (sb)
                memcpy(o.sym[i], b->sym[ib], WGC_MAX_SYMS);
        } else {
            return false;
        }
    }
    *out = o;
    return true;
}

bool wgc_shape_eq(const wgc_shape *a, const wgc_shape *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i] || memcmp(a->sym[i], b->sym[i], WGC_MAX_SYMS))
            return false;
    return true;
}

void wgc_graph_count_uses(wgc_graph *g)
{
    for (int t = 0; t < g->n_tensors; t++)
        g->tensors[t].n_uses = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const wgc_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0)
                g->tensors[n->inputs[k]].n_uses++;
        if (n->residual >= 0)
            g->tensors[n->residual].n_uses++;
        if (n->bias >= 0)
            g->tensors[n->bias].n_uses++;
    }
    for (int k = 0; k < g->n_outputs; k++)
        g->tensors[g->outputs[k]].n_uses++;
}

int64_t wgc_const_int(const wgc_tensor *t, int64_t i)
{
    const void *d = t->data;
    switch (t->dtype) {
    case WG_DT_INT64: return ((const int64_t *)d)[i];
    case WG_DT_INT32: return ((const int32_t *)d)[i];
    case WG_DT_INT16: return ((const int16_t *)d)[i];
    case WG_DT_INT8: return ((const int8_t *)d)[i];
    case WG_DT_UINT8: return ((const uint8_t *)d)[i];
    case WG_DT_UINT16: return ((const uint16_t *)d)[i];
    case WG_DT_UINT32: return ((const uint32_t *)d)[i];
    case WG_DT_UINT64: return (int64_t)((const uint64_t *)d)[i];
    case WG_DT_BOOL: return ((const uint8_t *)d)[i] != 0;
    default: return 0;
    }
}

bool wgc_is_body_begin(wgc_op op)
{
    return op == WGC_OP_BODY_BEGIN;
}

bool wgc_is_body_end(wgc_op op)
{
    return op == WGC_OP_IF || op == WGC_OP_LOOP || op == WGC_OP_SCAN || op == WGC_OP_SEQUENCE_MAP;
}

int wgc_body_walk(const wgc_graph *g, int begin, int *else_at)
{
    int depth = 0;
    if (else_at)
        *else_at = -1;
    for (int i = begin + 1; i < g->n_nodes; i++) {
        wgc_op op = g->nodes[i].op;
        if (wgc_is_body_begin(op))
            depth++;
        else if (wgc_is_body_end(op) && depth-- == 0)
            return i;
        else if (op == WGC_OP_BODY_ELSE && depth == 0 && else_at)
            *else_at = i;
    }
    return -1;
}

int wgc_body_end(const wgc_graph *g, int begin)
{
    return wgc_body_walk(g, begin, NULL);
}

int wgc_body_begin(const wgc_graph *g, int end)
{
    int depth = 0;
    for (int i = end - 1; i >= 0; i--) {
        wgc_op op = g->nodes[i].op;
        if (wgc_is_body_end(op))
            depth++;
        else if (wgc_is_body_begin(op) && depth-- == 0)
            return i;
    }
    return -1;
}

int wgc_enclosing_marker(const wgc_graph *g, int i)
{
    int depth = 0;
    for (int j = i - 1; j >= 0; j--) {
        wgc_op op = g->nodes[j].op;
        if (wgc_is_body_end(op))
            depth++;
        else if (depth == 0 && (op == WGC_OP_BODY_BEGIN || op == WGC_OP_BODY_ELSE))
            return j;
        else if (op == WGC_OP_BODY_BEGIN)
            depth--;
    }
    return -1;
}

const wgc_body *wgc_attr_body(const wgc_node *n, const char *name)
{
    const wgc_attr *a = wgc_attr_find(n, name);
    return a && a->type == WGC_ATTR_GRAPH ? a->body : NULL;
}

int wgc_step_last(const wgc_graph *g, int i)
{
    if (g->nodes[i].dead || g->nodes[i].op != WGC_OP_BODY_BEGIN)
        return i;
    int e = wgc_body_end(g, i);
    return e < 0 ? i : e;
}

wg_status wgc_graph_move_tail(wgc_graph *g, int at, int from)
{
    int k = g->n_nodes - from;
    if (k <= 0 || at == from)
        return WG_OK;
    wgc_node *tmp = malloc(sizeof *tmp * (size_t)k);
    if (!tmp)
        return wgc_error(g, NULL, WG_ERR_NOMEM, "out of memory moving %d nodes", k);
    memcpy(tmp, &g->nodes[from], sizeof *tmp * (size_t)k);
    memmove(&g->nodes[at + k], &g->nodes[at], sizeof *tmp * (size_t)(from - at));
    memcpy(&g->nodes[at], tmp, sizeof *tmp * (size_t)k);
    free(tmp);
    for (int t = 0; t < g->n_tensors; t++) {
        int p = g->tensors[t].producer;
        if (p >= from)
            g->tensors[t].producer = p - from + at;
        else if (p >= at)
            g->tensors[t].producer = p + k;
    }
    return WG_OK;
}

bool wgc_broadcast_fixed_conflict(const wgc_shape *a, const wgc_shape *b)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        if (ia < 0 || ib < 0 || wgc_dim_is_sym(a, ia) || wgc_dim_is_sym(b, ib))
            continue;
        if (a->dims[ia] != b->dims[ib] && a->dims[ia] != 1 && b->dims[ib] != 1)
            return true;
    }
    return false;
}
