/*
 * onnx_reader.c: ModelProto -> wgc_graph. Decodes the model, its GraphProto, nodes,
 * attributes, initializers and graph inputs/outputs in place over the mapped file;
 * onnx_tensor.c decodes TensorProtos, onnx_check.c validates and sorts the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_proto.h"
#include "onnx_reader.h"

/* WG_ONNX_MAX_OPSET: the newest opset of the pinned onnx (ops/versions.c reads the rest). */
#define WG_ONNX_OP(...)
#include "../ir/onnx_versions.def"
#undef WG_ONNX_OP

typedef struct slice {
    const uint8_t *p;
    size_t n;
} slice;

typedef struct slices {
    slice *v;
    size_t n, cap;
} slices;

static bool slices_push(slices *s, const uint8_t *p, size_t n)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        slice *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return false;
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = (slice){p, n};
    return true;
}

typedef struct opset_entry {
    char *domain; /* "" for the default domain */
    int64_t version;
} opset_entry;

/* A string -> tensor index hash (open addressing) so large graphs load in linear time. */
typedef struct name_map {
    int *slot; /* tensor index + 1; 0 = empty */
    size_t cap;
    size_t n;
} name_map;

/* A graph attribute whose body is read once the nodes of its graph are (so that every
 * outer name a body refers to exists): node and attribute by index, the GraphProto bytes. */
typedef struct pending_body {
    int node, attr;
    slice graph;
} pending_body;

/* How deep bodies may nest (If in Loop in ...); deeper is refused, not recursed into. */
#define MAX_BODY_DEPTH 32

/* Everything the reader needs while it works. */
typedef struct reader {
    wgc_onnx_ctx c;
    wgc_graph *g;
    opset_entry *opsets;
    size_t n_opsets;
    name_map names;
    /* Scopes: the main graph's names are stored as they are, a body's own names behind
     * its prefix ("<node>/<attribute>/"), so sibling bodies may reuse names; a name is
     * looked up from the innermost scope out. */
    char *scopes[MAX_BODY_DEPTH + 1];
    int depth;
    int region; /* the region of the nodes being read (0: the main graph) */
    pending_body *pending;
    size_t n_pending, cap_pending;
} reader;

static wg_status nomem(const reader *rd)
{
    return wgc_onnx_fail(&rd->c, WG_ERR_NOMEM, "out of memory while reading the model");
}

/* ---- tensor names ---------------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static bool map_insert(name_map *m, const wgc_graph *g, int t);

static bool map_grow(name_map *m, const wgc_graph *g)
{
    size_t nc = m->cap ? m->cap * 2 : 256;
    int *old = m->slot;
    size_t oc = m->cap;
    m->slot = calloc(nc, sizeof *m->slot);
    if (!m->slot) {
        m->slot = old;
        return false;
    }
    m->cap = nc;
    m->n = 0;
    for (size_t i = 0; i < oc; i++)
        if (old[i])
            map_insert(m, g, old[i] - 1);
    free(old);
    return true;
}

static bool map_insert(name_map *m, const wgc_graph *g, int t)
{
    if ((m->n + 1) * 2 > m->cap && !map_grow(m, g))
        return false;
    size_t i = hash_str(g->tensors[t].name) & (m->cap - 1);
    while (m->slot[i])
        i = (i + 1) & (m->cap - 1);
    m->slot[i] = t + 1;
    m->n++;
    return true;
}

static int map_find(const name_map *m, const wgc_graph *g, const char *name)
{
    if (!m->cap)
        return -1;
    size_t i = hash_str(name) & (m->cap - 1);
    while (m->slot[i]) {
        int t = m->slot[i] - 1;
        if (!strcmp(g->tensors[t].name, name))
            return t;
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

/* name behind the prefix of scope d, malloc'ed (NULL when out of memory). */
static char *scoped_name(const reader *rd, int d, const char *name)
{
    size_t a = strlen(rd->scopes[d]), b = strlen(name);
    char *key = malloc(a + b + 1);
    if (key) {
        memcpy(key, rd->scopes[d], a);
        memcpy(key + a, name, b + 1);
    }
    return key;
}

/* The tensor called name in the current scope, created when new; -1 when out of memory.
 * Values a graph defines (inputs, initializers, node outputs) are always its own. */
static int tensor_get(reader *rd, const char *name, bool *created)
{
    char *key = scoped_name(rd, rd->depth, name);
    if (!key)
        return -1;
    int t = map_find(&rd->names, rd->g, key);
    if (created)
        *created = t < 0;
    if (t < 0 && (t = wgc_tensor_add(rd->g, key)) >= 0 && !map_insert(&rd->names, rd->g, t))
        t = -1;
    free(key);
    return t;
}

/* The tensor a node or a body output reads: name in the innermost scope that has it, -1
 * when none does (*nomem set when out of memory). */
static int tensor_visible(reader *rd, const char *name, bool *nomem)
{
    *nomem = false;
    for (int d = rd->depth; d >= 0; d--) {
        char *key = scoped_name(rd, d, name);
        if (!key) {
            *nomem = true;
            return -1;
        }
        int t = map_find(&rd->names, rd->g, key);
        free(key);
        if (t >= 0)
            return t;
    }
    return -1;
}

/* A node input: visible from here, or else a new tensor of this scope (produced by a node
 * later in the file, or by none: onnx_check.c reports that). -1 when out of memory. */
static int tensor_ref(reader *rd, const char *name)
{
    bool nomem;
    int t = tensor_visible(rd, name, &nomem);
    if (t >= 0 || nomem)
        return t;
    return tensor_get(rd, name, NULL);
}

/* ---- opsets ---------------------------------------------------------------------- */

static bool is_default_domain(const char *d)
{
    return !d[0] || !strcmp(d, "ai.onnx");
}

static wg_status read_opset(reader *rd, const uint8_t *buf, size_t len)
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    char *domain = NULL;
    int64_t version = 0;
    wg_status st = WG_OK;
    while (wg_pb_next(&r, &f)) {
        if (f.number == 1) {
            if (f.wire != WG_PB_LEN) {
                st = wgc_onnx_wire_fail(&rd->c, &r, &f, "OperatorSetIdProto");
                goto done;
            }
            free(domain);
            if (!(domain = wgc_onnx_dupn(f.data, f.len))) {
                st = nomem(rd);
                goto done;
            }
        } else if (f.number == 2) {
            if (f.wire != WG_PB_VARINT) {
                st = wgc_onnx_wire_fail(&rd->c, &r, &f, "OperatorSetIdProto");
                goto done;
            }
            version = (int64_t)f.varint;
        }
    }
    if (r.error) {
        st = wgc_onnx_pb_fail(&rd->c, &r, "OperatorSetIdProto");
        goto done;
    }
    if (!domain && !(domain = wgc_onnx_dupn((const uint8_t *)"", 0))) {
        st = nomem(rd);
        goto done;
    }
    if (is_default_domain(domain))
        domain[0] = 0;
    opset_entry *ne = realloc(rd->opsets, (rd->n_opsets + 1) * sizeof *ne);
    if (!ne) {
        st = nomem(rd);
        goto done;
    }
    rd->opsets = ne;
    rd->opsets[rd->n_opsets++] = (opset_entry){domain, version};
    domain = NULL;
done:
    free(domain);
    return st;
}

/* The opset version imported for domain ("" = default); -1 when not imported. */
static int64_t opset_of(const reader *rd, const char *domain)
{
    int64_t v = -1;
    for (size_t i = 0; i < rd->n_opsets; i++)
        if (!strcmp(rd->opsets[i].domain, domain) && rd->opsets[i].version > v)
            v = rd->opsets[i].version;
    return v;
}

/* ---- attributes ------------------------------------------------------------------ */

/* One AttributeProto, as found on the wire. */
typedef struct attr_fields {
    char *name;
    int64_t type;
    bool has_type, has_f, has_i, has_s, has_t, has_g, has_sparse, has_tp;
    uint32_t f_bits;
    int64_t i;
    slice s, t, g;
    wg_pb_f32s floats;
    wg_pb_i64s ints;
    size_t n_strings, n_tensors, n_graphs;
    slice s0, t0;
} attr_fields;

static void attr_fields_free(attr_fields *a)
{
    free(a->name);
    free(a->floats.v);
    free(a->ints.v);
}

static wg_status read_attr_fields(reader *rd, const uint8_t *buf, size_t len, attr_fields *a,
                                  const char *what)
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    while (wg_pb_next(&r, &f)) {
        bool ok = true;
        int want = -1; /* the wire type this field must have, -1 for "checked below" */
        switch (f.number) {
        case 1: case 4: case 5: case 6: case 9: case 10: case 11: case 22: case 23:
            want = WG_PB_LEN;
            break;
        case 2: want = WG_PB_I32; break;
        case 3: case 20: want = WG_PB_VARINT; break;
        case 7:
            if (f.wire != WG_PB_I32 && f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(&rd->c, &r, &f, what);
            break;
        case 8:
            if (f.wire != WG_PB_VARINT && f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(&rd->c, &r, &f, what);
            break;
        default: continue; /* doc_string, ref_attr_name, type protos */
        }
        if (want >= 0 && f.wire != want)
            return wgc_onnx_wire_fail(&rd->c, &r, &f, what);
        switch (f.number) {
        case 1:
            free(a->name);
            if (!(a->name = wgc_onnx_dupn(f.data, f.len)))
                return nomem(rd);
            break;
        case 2: a->has_f = true; a->f_bits = (uint32_t)f.varint; break;
        case 3: a->has_i = true; a->i = (int64_t)f.varint; break;
        case 4: a->has_s = true; a->s = (slice){f.data, f.len}; break;
        case 5: a->has_t = true; a->t = (slice){f.data, f.len}; break;
        case 6: a->has_g = true; a->g = (slice){f.data, f.len}; break;
        case 7: /* an empty packed blob adds nothing (pb.c would memcpy from NULL) */
            ok = (f.wire == WG_PB_LEN && !f.len) || wg_pb_append_f32s(&a->floats, &f);
            break;
        case 8:
            ok = (f.wire == WG_PB_LEN && !f.len) || wg_pb_append_varints(&a->ints, &f);
            break;
        case 9:
            if (a->n_strings++ == 0)
                a->s0 = (slice){f.data, f.len};
            break;
        case 10:
            if (a->n_tensors++ == 0)
                a->t0 = (slice){f.data, f.len};
            break;
        case 11: a->n_graphs++; break;
        case 20: a->has_type = true; a->type = (int64_t)f.varint; break;
        case 22: case 23: a->has_sparse = true; break;
        default: break;
        }
        if (!ok)
            return wgc_onnx_fail(&rd->c, WG_ERR_FORMAT,
                                 "not valid ONNX protobuf: malformed repeated field %u ending at "
                                 "byte %zu, or out of memory (in %s)",
                                 f.number, (size_t)(r.p - rd->c.base), what);
    }
    if (r.error)
        return wgc_onnx_pb_fail(&rd->c, &r, what);
    return WG_OK;
}

/* The attribute type when the `type` field is missing (old exporters): whichever value
 * field is set. An attribute with no value at all is an empty list, read as INTS. */
static int64_t infer_attr_type(const attr_fields *a)
{
    if (a->has_g) return WGC_ATTR_GRAPH;
    if (a->n_graphs) return WGC_ATTR_GRAPHS;
    if (a->has_sparse) return 11; /* SPARSE_TENSOR */
    if (a->has_t) return WGC_ATTR_TENSOR;
    if (a->floats.n) return WGC_ATTR_FLOATS;
    if (a->ints.n) return WGC_ATTR_INTS;
    if (a->n_strings) return WGC_ATTR_STRINGS;
    if (a->n_tensors) return WGC_ATTR_TENSORS;
    if (a->has_f) return WGC_ATTR_FLOAT;
    if (a->has_i) return WGC_ATTR_INT;
    if (a->has_s) return WGC_ATTR_STRING;
    return WGC_ATTR_INTS;
}

/* Decodes a TensorProto held by an attribute into a malloc'ed wgc_value. */
static wg_status attr_tensor(reader *rd, slice s, const char *what, wgc_value **out)
{
    wgc_onnx_tensor t;
    wg_status st = wgc_onnx_tensor_decode(&rd->c, s.p, s.n, false, what, &t);
    if (st)
        return st;
    wgc_value *v = malloc(sizeof *v);
    if (!v) {
        wgc_onnx_tensor_release(&t);
        return nomem(rd);
    }
    v->dtype = t.dtype;
    v->shape = t.shape;
    v->data = t.data; /* always owned: decoded without borrowing */
    free(t.name);
    *out = v;
    return WG_OK;
}

/* Copies every string of a STRINGS attribute (field 9) into at->strings (at->n of them;
 * the fields were already validated by read_attr_fields). Returns false when out of memory. */
static bool attr_strings(const uint8_t *buf, size_t len, wgc_attr *at)
{
    if (!at->n)
        return true;
    if (!(at->strings = calloc(at->n, sizeof *at->strings)))
        return false;
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    size_t k = 0;
    while (k < at->n && wg_pb_next(&r, &f))
        if (f.number == 9 && f.wire == WG_PB_LEN &&
            !(at->strings[k++] = wgc_onnx_dupn(f.data ? f.data : (const uint8_t *)"", f.len)))
            return false;
    return true;
}

static wg_status read_attr(reader *rd, int node, const uint8_t *buf, size_t len)
{
    attr_fields a;
    memset(&a, 0, sizeof a);
    char what[512];
    const wgc_node *n = &rd->g->nodes[node];
    snprintf(what, sizeof what, "an attribute of node '%s' (%s)", n->name, n->op_type);
    wg_status st = read_attr_fields(rd, buf, len, &a, what);
    if (st)
        goto done;
    n = &rd->g->nodes[node];
    if (!a.name || !a.name[0]) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_FORMAT, "node '%s' (%s): an attribute has no name",
                           n->name, n->op_type);
        goto done;
    }
    snprintf(what, sizeof what, "attribute '%s' of node '%s' (%s)", a.name, n->name, n->op_type);
    int64_t type = a.has_type && a.type ? a.type : infer_attr_type(&a);
    if (type == WGC_ATTR_GRAPHS || (type == WGC_ATTR_GRAPH && !wgc_is_body_end(n->op))) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                           "node '%s' (%s): attribute '%s' is a graph; subgraphs are supported in "
                           "If, Loop, Scan and SequenceMap only",
                           n->name, n->op_type, a.name);
        goto done;
    }
    if (type == WGC_ATTR_GRAPH && !a.has_g) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_FORMAT, "%s has type GRAPH but no graph", what);
        goto done;
    }
    if (type == WGC_ATTR_TYPE_PROTO && !strcmp(n->op_type, "Optional")) {
        /* Optional's `type` (what an empty optional would hold): kept by name only; the
         * op needs no more than to know it is there (ops/optional.c) */
        if (!wgc_attr_add(rd->g, node, a.name, (int)type))
            st = nomem(rd);
        goto done;
    }
    if (type < WGC_ATTR_FLOAT || type > WGC_ATTR_TENSORS) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                           "node '%s' (%s): attribute '%s' has type %lld (sparse tensor or type "
                           "proto), which is not supported",
                           n->name, n->op_type, a.name, (long long)type);
        goto done;
    }
    wgc_attr *at = wgc_attr_add(rd->g, node, a.name, (int)type);
    if (!at) {
        st = nomem(rd);
        goto done;
    }
    switch (type) {
    case WGC_ATTR_GRAPH: {
        /* read after the rest of this graph (read_pending_bodies) */
        if (rd->g->n_regions == INT32_MAX || !(at->body = calloc(1, sizeof *at->body))) {
            st = nomem(rd);
            goto done;
        }
        at->body->region = ++rd->g->n_regions;
        if (rd->n_pending == rd->cap_pending) {
            size_t nc = rd->cap_pending ? 2 * rd->cap_pending : 8;
            pending_body *np = realloc(rd->pending, nc * sizeof *np);
            if (!np) {
                st = nomem(rd);
                goto done;
            }
            rd->pending = np;
            rd->cap_pending = nc;
        }
        rd->pending[rd->n_pending++] =
            (pending_body){node, rd->g->nodes[node].n_attrs - 1, {a.g.p, a.g.n}};
        break;
    }
    case WGC_ATTR_FLOAT: memcpy(&at->f, &a.f_bits, 4); break;
    case WGC_ATTR_INT: at->i = a.i; break;
    case WGC_ATTR_STRING:
    case WGC_ATTR_STRINGS: {
        /* STRINGS keeps its count in n and its first string in s */
        slice s = type == WGC_ATTR_STRING ? a.s : a.s0;
        if (type == WGC_ATTR_STRINGS)
            at->n = a.n_strings;
        if (!(at->s = wgc_onnx_dupn(s.p ? s.p : (const uint8_t *)"", s.n))) {
            st = nomem(rd);
            goto done;
        }
        at->s_len = s.n;
        if (type == WGC_ATTR_STRINGS && !attr_strings(buf, len, at))
            st = nomem(rd);
        break;
    }
    case WGC_ATTR_TENSOR:
        if (!a.has_t) {
            st = wgc_onnx_fail(&rd->c, WG_ERR_FORMAT, "%s has type TENSOR but no tensor", what);
            goto done;
        }
        st = attr_tensor(rd, a.t, what, &at->t);
        break;
    case WGC_ATTR_TENSORS:
        /* TENSORS keeps its count in n and its first tensor in t */
        at->n = a.n_tensors;
        if (a.n_tensors)
            st = attr_tensor(rd, a.t0, what, &at->t);
        break;
    case WGC_ATTR_FLOATS:
        at->floats = a.floats.v;
        at->n = a.floats.n;
        a.floats.v = NULL;
        break;
    case WGC_ATTR_INTS:
        at->ints = a.ints.v;
        at->n = a.ints.n;
        a.ints.v = NULL;
        break;
    default: break;
    }
    if (st == WG_OK)
        st = wgc_onnx_check_attr_type(&rd->c, &rd->g->nodes[node], at);
done:
    attr_fields_free(&a);
    return st;
}

/* ---- nodes ----------------------------------------------------------------------- */

static wg_status read_node(reader *rd, const uint8_t *buf, size_t len, size_t index)
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    slices ins = {0}, outs = {0}, attrs = {0};
    slice name = {0}, op_type = {0}, domain = {0};
    char *s_name = NULL, *s_op = NULL, *s_domain = NULL, *tmp = NULL;
    int *in_idx = NULL, *out_idx = NULL;
    char what[64];
    wg_status st = WG_OK;
    snprintf(what, sizeof what, "node #%zu (NodeProto)", index);
    while (wg_pb_next(&r, &f)) {
        if (f.number < 1 || f.number > 7 || f.number == 6)
            continue; /* doc_string, overload, metadata */
        if (f.wire != WG_PB_LEN) {
            st = wgc_onnx_wire_fail(&rd->c, &r, &f, what);
            goto done;
        }
        bool ok = true;
        switch (f.number) {
        case 1: ok = slices_push(&ins, f.data, f.len); break;
        case 2: ok = slices_push(&outs, f.data, f.len); break;
        case 3: name = (slice){f.data, f.len}; break;
        case 4: op_type = (slice){f.data, f.len}; break;
        case 5: ok = slices_push(&attrs, f.data, f.len); break;
        case 7: domain = (slice){f.data, f.len}; break;
        }
        if (!ok) {
            st = nomem(rd);
            goto done;
        }
    }
    if (r.error) {
        st = wgc_onnx_pb_fail(&rd->c, &r, what);
        goto done;
    }
    if (ins.n > 100000 || outs.n > 100000) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_LIMIT, "%s has too many inputs or outputs", what);
        goto done;
    }
    if (!(s_op = wgc_onnx_dupn(op_type.p, op_type.n)) || !(s_domain = wgc_onnx_dupn(domain.p, domain.n))) {
        st = nomem(rd);
        goto done;
    }
    if (!s_op[0]) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_FORMAT, "%s has no op_type", what);
        goto done;
    }
    if (is_default_domain(s_domain))
        s_domain[0] = 0;
    if (name.n) {
        s_name = wgc_onnx_dupn(name.p, name.n);
    } else {
        size_t n = strlen(s_op) + 32;
        if ((s_name = malloc(n)))
            snprintf(s_name, n, "%s_%zu", s_op, index);
    }
    in_idx = malloc(sizeof(int) * (ins.n + 1));
    out_idx = malloc(sizeof(int) * (outs.n + 1));
    if (!s_name || !in_idx || !out_idx) {
        st = nomem(rd);
        goto done;
    }
    int me = rd->g->n_nodes; /* the index wgc_node_add will give this node */
    for (size_t k = 0; k < ins.n; k++) {
        in_idx[k] = -1;
        if (!ins.v[k].n)
            continue; /* "" = omitted optional input */
        free(tmp);
        if (!(tmp = wgc_onnx_dupn(ins.v[k].p, ins.v[k].n)) || (in_idx[k] = tensor_ref(rd, tmp)) < 0) {
            st = nomem(rd);
            goto done;
        }
    }
    for (size_t k = 0; k < outs.n; k++) {
        out_idx[k] = -1;
        if (!outs.v[k].n)
            continue;
        free(tmp);
        if (!(tmp = wgc_onnx_dupn(outs.v[k].p, outs.v[k].n)) ||
            (out_idx[k] = tensor_get(rd, tmp, NULL)) < 0) {
            st = nomem(rd);
            goto done;
        }
        wgc_tensor *t = &rd->g->tensors[out_idx[k]];
        const char *other = NULL;
        if (t->producer >= 0)
            other = t->producer == me ? "this same node" : rd->g->nodes[t->producer].name;
        if (other || t->data || t->is_input) {
            st = wgc_onnx_fail(&rd->c, WG_ERR_INVALID,
                               "node '%s' (%s) writes '%s', which is already %s%s%s", s_name, s_op,
                               tmp,
                               other ? "written by node '" : t->data ? "an initializer"
                                                                     : "a graph input",
                               other ? other : "", other ? "'" : "");
            goto done;
        }
        /* provisional (file order) producer, to detect a second writer; onnx_check.c
         * sets the final one after sorting */
        t->producer = me;
    }
    int node = wgc_node_add(rd->g, s_name, s_op, s_domain, in_idx, (int)ins.n, out_idx,
                            (int)outs.n);
    if (node < 0) {
        st = nomem(rd);
        goto done;
    }
    int64_t ver = opset_of(rd, s_domain);
    rd->g->nodes[node].opset = s_domain[0] ? (ver < 0 ? 0 : (int)ver) : rd->g->opset;
    rd->g->nodes[node].region = rd->region;
    for (size_t k = 0; k < attrs.n; k++)
        if ((st = read_attr(rd, node, attrs.v[k].p, attrs.v[k].n)))
            goto done;
done:
    free(ins.v);
    free(outs.v);
    free(attrs.v);
    free(s_name);
    free(s_op);
    free(s_domain);
    free(tmp);
    free(in_idx);
    free(out_idx);
    return st;
}

/* ---- value infos (graph inputs and outputs) --------------------------------------- */

/* TensorShapeProto -> shape; *dynamic set when a dim has no dim_value; params[d]: the
 * dim_param of dim d ("" when none, or longer than a symbol name may be). */
static wg_status read_shape(reader *rd, const uint8_t *buf, size_t len, const char *what,
                            wgc_shape *shape, bool *dynamic, char (*params)[WGC_SYM_NAME])
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    shape->rank = 0;
    while (wg_pb_next(&r, &f)) {
        if (f.number != 1)
            continue;
        if (f.wire != WG_PB_LEN)
            return wgc_onnx_wire_fail(&rd->c, &r, &f, what);
        if (shape->rank == WG_MAX_RANK)
            return wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                                 "%s has more than %d dims, which is not supported", what,
                                 WG_MAX_RANK);
        int64_t d = -1;
        wg_pb dr = wg_pb_init(f.data, f.len);
        wg_pb_field df;
        while (wg_pb_next(&dr, &df)) {
            if (df.number == 1) {
                if (df.wire != WG_PB_VARINT)
                    return wgc_onnx_wire_fail(&rd->c, &dr, &df, what);
                d = (int64_t)df.varint;
            } else if (df.number == 2 && df.wire == WG_PB_LEN && df.len < WGC_SYM_NAME &&
                       !memchr(df.data, 0, df.len)) {
                memcpy(params[shape->rank], df.data, df.len);
                params[shape->rank][df.len] = 0;
            }
        }
        if (dr.error)
            return wgc_onnx_pb_fail(&rd->c, &dr, what);
        if (d < -1)
            return wgc_onnx_fail(&rd->c, WG_ERR_INVALID, "%s: dim %d is %lld (negative)", what,
                                 shape->rank, (long long)d);
        if (d < 0) { /* dim_param, no dim_value, or the -1 some exporters write */
            d = -1;
            *dynamic = true;
        }
        shape->dims[shape->rank++] = d;
    }
    if (r.error)
        return wgc_onnx_pb_fail(&rd->c, &r, what);
    return WG_OK;
}

typedef struct value_info {
    slice name;
    int64_t elem_type;
    bool is_tensor, has_type, has_shape, dynamic;
    bool other;     /* a map, sparse tensor or nesting we do not take (see read_type) */
    int kind;       /* WGC_KIND_TENSOR, _SEQUENCE or _OPTIONAL: the outer type */
    int inner_kind; /* an optional's: what it holds */
    wgc_shape shape;
    char dim_param[WG_MAX_RANK][WGC_SYM_NAME];
} value_info;

/* TypeProto.Tensor: the element type and shape. */
static wg_status read_tensor_type(reader *rd, const uint8_t *buf, size_t len, const char *what,
                                  value_info *vi)
{
    wg_pb er = wg_pb_init(buf, len);
    wg_pb_field ef;
    wg_status st;
    vi->is_tensor = true;
    while (wg_pb_next(&er, &ef)) {
        if (ef.number == 1) {
            if (ef.wire != WG_PB_VARINT)
                return wgc_onnx_wire_fail(&rd->c, &er, &ef, what);
            vi->elem_type = (int64_t)ef.varint;
        } else if (ef.number == 2) {
            if (ef.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(&rd->c, &er, &ef, what);
            vi->has_shape = true;
            vi->dynamic = false;
            if ((st = read_shape(rd, ef.data, ef.len, what, &vi->shape, &vi->dynamic, vi->dim_param)))
                return st;
        }
    }
    if (er.error)
        return wgc_onnx_pb_fail(&rd->c, &er, what);
    return WG_OK;
}

/* TypeProto: a tensor (field 1), a sequence (4) or an optional (9) of tensors, or an
 * optional of a sequence of tensors; anything else (maps, sparse tensors, sequences of
 * sequences) sets vi->other. depth counts the sequence/optional wrappers seen. */
static wg_status read_type(reader *rd, const uint8_t *buf, size_t len, const char *what,
                           value_info *vi, int depth)
{
    wg_pb tr = wg_pb_init(buf, len);
    wg_pb_field tf;
    wg_status st;
    while (wg_pb_next(&tr, &tf)) {
        if (tf.number != 1 && tf.number != 4 && tf.number != 9) {
            if (tf.number == 5 || tf.number == 8)
                vi->other = true; /* map, sparse tensor */
            continue;
        }
        if (tf.wire != WG_PB_LEN)
            return wgc_onnx_wire_fail(&rd->c, &tr, &tf, what);
        if (tf.number == 1) {
            if ((st = read_tensor_type(rd, tf.data, tf.len, what, vi)))
                return st;
            continue;
        }
        int kind = tf.number == 4 ? WGC_KIND_SEQUENCE : WGC_KIND_OPTIONAL;
        if (depth == 0) {
            vi->kind = kind;
        } else if (depth == 1 && vi->kind == WGC_KIND_OPTIONAL && kind == WGC_KIND_SEQUENCE) {
            vi->inner_kind = kind;
        } else {
            vi->other = true;
            continue;
        }
        /* TypeProto.Sequence and TypeProto.Optional: field 1 is the element's TypeProto */
        wg_pb er = wg_pb_init(tf.data, tf.len);
        wg_pb_field ef;
        while (wg_pb_next(&er, &ef)) {
            if (ef.number != 1)
                continue;
            if (ef.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(&rd->c, &er, &ef, what);
            if ((st = read_type(rd, ef.data, ef.len, what, vi, depth + 1)))
                return st;
        }
        if (er.error)
            return wgc_onnx_pb_fail(&rd->c, &er, what);
    }
    if (tr.error)
        return wgc_onnx_pb_fail(&rd->c, &tr, what);
    return WG_OK;
}

/* ValueInfoProto: name, and the type (read_type). */
static wg_status read_value_info(reader *rd, const uint8_t *buf, size_t len, const char *what,
                                 value_info *vi)
{
    memset(vi, 0, sizeof *vi);
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    wg_status st;
    while (wg_pb_next(&r, &f)) {
        if (f.number != 1 && f.number != 2)
            continue;
        if (f.wire != WG_PB_LEN)
            return wgc_onnx_wire_fail(&rd->c, &r, &f, what);
        if (f.number == 1) {
            vi->name = (slice){f.data, f.len};
            continue;
        }
        vi->has_type = true;
        if ((st = read_type(rd, f.data, f.len, what, vi, 0)))
            return st;
    }
    if (r.error)
        return wgc_onnx_pb_fail(&rd->c, &r, what);
    return WG_OK;
}

static bool push_index(int **v, int *n, int x)
{
    int *nv = realloc(*v, sizeof(int) * (size_t)(*n + 1));
    if (!nv)
        return false;
    nv[(*n)++] = x;
    *v = nv;
    return true;
}

/* Reads graph input or output #index (kind "input" or "output") into *vi and a malloc'ed
 * copy of its name into *name (an error when it has none). */
static wg_status read_graph_value(reader *rd, const uint8_t *buf, size_t len, const char *kind,
                                  size_t index, value_info *vi, char **name)
{
    char what[64];
    snprintf(what, sizeof what, "graph %s #%zu (ValueInfoProto)", kind, index);
    wg_status st = read_value_info(rd, buf, len, what, vi);
    if (st)
        return st;
    if (!(*name = wgc_onnx_dupn(vi->name.p, vi->name.n)))
        return nomem(rd);
    if ((*name)[0])
        return WG_OK;
    free(*name);
    return wgc_onnx_fail(&rd->c, WG_ERR_FORMAT, "%s has no name", what);
}

/* Graph input name, described by vi: a new tensor, or an initializer listed as input too. */
static wg_status add_graph_input(reader *rd, const value_info *vi, const char *name)
{
    bool created;
    int t;
    if ((t = tensor_get(rd, name, &created)) < 0)
        return nomem(rd);
    wgc_tensor *x = &rd->g->tensors[t];
    if (!created && x->data)
        return WG_OK; /* an initializer listed as input too (IR < 4): a constant */
    if (!created)
        return wgc_onnx_fail(&rd->c, WG_ERR_INVALID, "graph input '%s' is declared twice", name);
    if (vi->has_type && (vi->other || !vi->is_tensor))
        return wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                             "graph input '%s' is not a tensor, a sequence or an optional of "
                             "tensors (maps, sparse tensors and nested sequences are not supported)",
                             name);
    if (vi->elem_type && (vi->elem_type > WG_DT_INT2 || !wg_dtype_size((int)vi->elem_type)))
        return wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                             "graph input '%s' has element type %lld (%s), which is not supported",
                             name, (long long)vi->elem_type, wg_dtype_name((int)vi->elem_type));
    x->is_input = true;
    x->dtype = (int)vi->elem_type;
    x->shape = vi->shape;
    x->has_shape = vi->has_shape && !vi->dynamic;
    /* a sequence or optional: its element type and declared element shape, for now; the
     * element tensors are made from --shape when shapes are applied (passes/infer.c) */
    x->kind = vi->kind;
    x->inner_kind = vi->inner_kind;
    for (int d = 0; d < vi->shape.rank; d++)
        if (vi->shape.dims[d] < 0 && vi->dim_param[d][0] &&
            !(x->dim_param[d] = wgc_onnx_dupn((const uint8_t *)vi->dim_param[d], strlen(vi->dim_param[d]))))
            return nomem(rd);
    if (!push_index(&rd->g->inputs, &rd->g->n_inputs, t))
        return nomem(rd);
    return WG_OK;
}

/* Graph output name, described by vi: a value the graph has. */
static wg_status add_graph_output(reader *rd, const value_info *vi, const char *name)
{
    int t = map_find(&rd->names, rd->g, name);
    if (t < 0)
        return wgc_onnx_fail(&rd->c, WG_ERR_INVALID,
                             "graph output '%s' is not produced by any node, and is neither an "
                             "input nor an initializer",
                             name);
    if (rd->g->tensors[t].is_output)
        return wgc_onnx_fail(&rd->c, WG_ERR_INVALID, "graph output '%s' is declared twice", name);
    rd->g->tensors[t].is_output = true;
    rd->g->tensors[t].declared_dtype = (int)vi->elem_type;
    if (!push_index(&rd->g->outputs, &rd->g->n_outputs, t))
        return nomem(rd);
    return WG_OK;
}

/* ---- initializers ----------------------------------------------------------------- */

static wg_status read_initializer(reader *rd, const uint8_t *buf, size_t len, size_t index)
{
    wgc_onnx_tensor ot;
    wg_status st = wgc_onnx_tensor_decode(&rd->c, buf, len, true, "initializer", &ot);
    if (st)
        return st;
    bool created;
    int t;
    if (!ot.name[0]) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_FORMAT, "initializer #%zu has no name", index);
        goto fail;
    }
    if ((t = tensor_get(rd, ot.name, &created)) < 0) {
        st = nomem(rd);
        goto fail;
    }
    if (!created) {
        st = wgc_onnx_fail(&rd->c, WG_ERR_INVALID, "initializer '%s' is declared twice", ot.name);
        goto fail;
    }
    wgc_tensor *x = &rd->g->tensors[t];
    x->dtype = ot.dtype;
    x->shape = ot.shape;
    x->has_shape = true;
    x->data = ot.data;
    x->owns_data = ot.owns_data;
    free(ot.name);
    return WG_OK;
fail:
    wgc_onnx_tensor_release(&ot);
    return st;
}

/* ---- bodies (graph attributes) ----------------------------------------------------- */

/* A body's inputs and outputs may be tensors, sequences and optionals (of a tensor or a
 * sequence of tensors: what ops/control_flow.c and ops/unroll.c carry across a body); a
 * map, a sparse tensor or a deeper nesting is refused. */
static wg_status body_value_supported(reader *rd, const value_info *vi, const char *name,
                                      const char *what)
{
    /* a value whose TypeProto is empty (exporters write some, e.g. Silero VAD's inlined
     * branches) is a tensor to be inferred; a sequence or optional needs its element type */
    if (!vi->has_type || (!vi->other && (vi->kind == WGC_KIND_TENSOR || vi->is_tensor)))
        return WG_OK;
    return wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                         "body %s '%s' (%s) is a map, a sparse tensor or a nesting of sequences and "
                         "optionals; bodies of such values are not supported",
                         what, name, rd->scopes[rd->depth]);
}

/* A body input's tensor: a new value of the body's scope (*st set when the name is declared
 * twice or out of memory). */
static int body_input_tensor(reader *rd, const char *name, wg_status *st)
{
    bool created;
    int t = tensor_get(rd, name, &created);
    if (t < 0)
        *st = nomem(rd);
    else if (!created)
        *st = wgc_onnx_fail(&rd->c, WG_ERR_INVALID, "body input '%s' (%s) is declared twice", name,
                            rd->g->tensors[t].name);
    return t;
}

/* A body output's tensor: any value visible in the body (its own, an outer one, a
 * constant); *st set when there is none or out of memory. */
static int body_output_tensor(reader *rd, const char *name, wg_status *st)
{
    bool no_memory;
    const int t = tensor_visible(rd, name, &no_memory);
    if (no_memory)
        *st = nomem(rd);
    else if (t < 0)
        *st = wgc_onnx_fail(&rd->c, WG_ERR_INVALID,
                            "body output '%s' (%s) is not produced by any node, and is neither a "
                            "body input, an initializer nor a value of an outer graph",
                            name, rd->scopes[rd->depth]);
    return t;
}

/* Body input or output name, described by vi (input tells which), recorded in body->inputs
 * or body->outputs. */
static wg_status add_body_value(reader *rd, wgc_body *body, const value_info *vi, const char *name,
                                bool input)
{
    wg_status st = body_value_supported(rd, vi, name, input ? "input" : "output");
    if (st)
        return st;
    const int t = input ? body_input_tensor(rd, name, &st) : body_output_tensor(rd, name, &st);
    if (!st && !(input ? push_index(&body->inputs, &body->n_inputs, t)
                       : push_index(&body->outputs, &body->n_outputs, t)))
        st = nomem(rd);
    return st;
}

/* Input or output #index (input tells which) of the graph, or of a body when body is set:
 * its ValueInfoProto read, then recorded. */
static wg_status read_graph_io(reader *rd, wgc_body *body, const uint8_t *buf, size_t len,
                               size_t index, bool input)
{
    char *name;
    value_info vi;
    wg_status st = read_graph_value(rd, buf, len, input ? "input" : "output", index, &vi, &name);
    if (st)
        return st;
    if (body)
        st = add_body_value(rd, body, &vi, name, input);
    else
        st = input ? add_graph_input(rd, &vi, name) : add_graph_output(rd, &vi, name);
    free(name);
    return st;
}

/* The node that opens a body: its outputs are the body's inputs (onnx_bodies.c gives it
 * its inputs and, in an If's else branch, its op). */
static wg_status add_body_marker(reader *rd, const wgc_body *body, const char *scope)
{
    size_t n = strlen(scope);
    char *name = wgc_onnx_dupn((const uint8_t *)scope, n ? n - 1 : 0); /* without the '/' */
    if (!name)
        return nomem(rd);
    int m = wgc_node_add(rd->g, name, "BodyBegin", "wasmgraph", NULL, 0, body->inputs,
                         body->n_inputs);
    free(name);
    if (m < 0)
        return nomem(rd);
    rd->g->nodes[m].op = WGC_OP_BODY_BEGIN;
    rd->g->nodes[m].region = body->region;
    for (int k = 0; k < body->n_inputs; k++)
        rd->g->tensors[body->inputs[k]].producer = m;
    return WG_OK;
}

static wg_status read_graph(reader *rd, const uint8_t *buf, size_t len, wgc_body *body);

/* Reads the bodies queued since `from` (the graph attributes of the nodes just read), each
 * in its own scope, and drops them from the queue. */
static wg_status read_pending_bodies(reader *rd, size_t from)
{
    wg_status st = WG_OK;
    for (size_t i = from; i < rd->n_pending && !st; i++) {
        const pending_body p = rd->pending[i];
        const wgc_node *n = &rd->g->nodes[p.node];
        wgc_attr *a = &n->attrs[p.attr];
        if (rd->depth == MAX_BODY_DEPTH) {
            st = wgc_onnx_fail(&rd->c, WG_ERR_LIMIT,
                               "node '%s' (%s): bodies nest more than %d deep", n->name,
                               n->op_type, MAX_BODY_DEPTH);
            break;
        }
        const char *outer = rd->scopes[rd->depth];
        size_t len = strlen(outer) + strlen(n->name) + strlen(a->name) + 3;
        char *scope = malloc(len);
        if (!scope) {
            st = nomem(rd);
            break;
        }
        snprintf(scope, len, "%s%s/%s/", outer, n->name, a->name);
        int saved_region = rd->region;
        rd->scopes[++rd->depth] = scope;
        rd->region = a->body->region;
        st = read_graph(rd, p.graph.p, p.graph.n, a->body);
        rd->region = saved_region;
        rd->scopes[rd->depth--] = NULL;
        free(scope);
    }
    rd->n_pending = from;
    return st;
}

/* ---- graph and model ---------------------------------------------------------------- */

/* The main graph (body NULL) or a body, in the current scope. */
static wg_status read_graph(reader *rd, const uint8_t *buf, size_t len, wgc_body *body)
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    slices nodes = {0}, inits = {0}, inputs = {0}, outputs = {0};
    wg_status st = WG_OK;
    while (wg_pb_next(&r, &f)) {
        slices *dst = NULL;
        switch (f.number) {
        case 1: dst = &nodes; break;
        case 5: dst = &inits; break;
        case 11: dst = &inputs; break;
        case 12: dst = &outputs; break;
        case 2: case 15: break;
        default: continue; /* doc_string, value_info, quantization annotations */
        }
        if (f.wire != WG_PB_LEN) {
            st = wgc_onnx_wire_fail(&rd->c, &r, &f, "GraphProto");
            goto done;
        }
        if (f.number == 15) {
            st = wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                               "the graph has a sparse_initializer (at byte %zu); sparse "
                               "initializers are not supported",
                               (size_t)(f.data - rd->c.base));
            goto done;
        }
        if (f.number == 2) {
            if (body)
                continue;
            free(rd->g->name);
            if (!(rd->g->name = wgc_onnx_dupn(f.data, f.len))) {
                st = nomem(rd);
                goto done;
            }
            continue;
        }
        if (!slices_push(dst, f.data, f.len)) {
            st = nomem(rd);
            goto done;
        }
    }
    if (r.error) {
        st = wgc_onnx_pb_fail(&rd->c, &r, "GraphProto");
        goto done;
    }
    /* fields may come in any order: constants first, then inputs, nodes, outputs; a
     * body's marker before its nodes (onnx_check.c keeps it first), and the bodies of the
     * nodes once every name of this graph exists */
    size_t first_pending = rd->n_pending;
    for (size_t i = 0; i < inits.n && !st; i++)
        st = read_initializer(rd, inits.v[i].p, inits.v[i].n, i);
    for (size_t i = 0; i < inputs.n && !st; i++)
        st = read_graph_io(rd, body, inputs.v[i].p, inputs.v[i].n, i, true);
    if (body && !st)
        st = add_body_marker(rd, body, rd->scopes[rd->depth]);
    for (size_t i = 0; i < nodes.n && !st; i++)
        st = read_node(rd, nodes.v[i].p, nodes.v[i].n, i);
    if (!st)
        st = read_pending_bodies(rd, first_pending);
    for (size_t i = 0; i < outputs.n && !st; i++)
        st = read_graph_io(rd, body, outputs.v[i].p, outputs.v[i].n, i, false);
done:
    free(nodes.v);
    free(inits.v);
    free(inputs.v);
    free(outputs.v);
    return st;
}

static wg_status read_model(reader *rd, const uint8_t *buf, size_t len)
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    slice graph = {0};
    bool has_graph = false;
    wg_status st;
    while (wg_pb_next(&r, &f)) {
        switch (f.number) {
        case 1:
            if (f.wire != WG_PB_VARINT)
                return wgc_onnx_wire_fail(&rd->c, &r, &f, "ModelProto");
            rd->g->ir_version = (int64_t)f.varint;
            break;
        case 2:
            if (f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(&rd->c, &r, &f, "ModelProto");
            free(rd->g->producer);
            if (!(rd->g->producer = wgc_onnx_dupn(f.data, f.len)))
                return nomem(rd);
            break;
        case 7:
            if (f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(&rd->c, &r, &f, "ModelProto");
            graph = (slice){f.data, f.len};
            has_graph = true;
            break;
        case 8:
            if (f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(&rd->c, &r, &f, "ModelProto");
            if ((st = read_opset(rd, f.data, f.len)))
                return st;
            break;
        default: break;
        }
    }
    if (r.error)
        return wgc_onnx_pb_fail(&rd->c, &r, "ModelProto");
    if (!has_graph)
        return wgc_onnx_fail(&rd->c, WG_ERR_FORMAT,
                             "not an ONNX model: the ModelProto (%zu bytes) has no graph field",
                             len);
    /* A model without any opset import predates opsets (IR version < 3): opset 1. From
     * IR version 3 on, ONNX requires an import; guessing would pick the wrong semantics. */
    int64_t v = opset_of(rd, "");
    if (v < 0 && rd->n_opsets == 0 && rd->g->ir_version >= 3)
        return wgc_onnx_fail(&rd->c, WG_ERR_INVALID,
                             "the model (IR version %lld) imports no opset at all: "
                             "opset_import is empty",
                             (long long)rd->g->ir_version);
    if (v < 0)
        v = 1;
    if (v < 1 || v > WG_ONNX_MAX_OPSET)
        return wgc_onnx_fail(&rd->c, WG_ERR_UNSUPPORTED,
                             "the model imports default-domain opset %lld; supported are 1..%d",
                             (long long)v, WG_ONNX_MAX_OPSET);
    rd->g->opset = (int)v;
    return read_graph(rd, graph.p, graph.n, NULL);
}

wg_status wgc_onnx_load(const char *path, wgc_graph **out, char *err, size_t errlen)
{
    reader rd;
    memset(&rd, 0, sizeof rd);
    rd.c.path = path;
    rd.c.err = err;
    rd.c.errlen = errlen;
    rd.scopes[0] = (char *)"";
    *out = NULL;
    if (err && errlen)
        err[0] = 0;
    wg_status st;
    wgc_graph *g = wgc_graph_new();
    char *dir = wgc_onnx_dirname(path);
    if (!g || !dir) {
        st = nomem(&rd);
        goto fail;
    }
    rd.g = g;
    rd.c.dir = dir;
    void *map;
    size_t len;
    if ((st = wgc_onnx_map_file(path, &map, &len, err, errlen)))
        goto fail;
    g->map = map;
    g->map_len = len;
    rd.c.base = map;
    if ((st = read_model(&rd, map, len)))
        goto fail;
    if ((st = wgc_onnx_check_and_sort(&rd.c, g)))
        goto fail;
    if ((st = wgc_onnx_link_bodies(&rd.c, g)))
        goto fail;
    *out = g;
    g = NULL;
fail:
    wgc_graph_free(g);
    free(dir);
    for (size_t i = 0; i < rd.n_opsets; i++)
        free(rd.opsets[i].domain);
    free(rd.opsets);
    free(rd.names.slot);
    free(rd.pending);
    return st;
}
