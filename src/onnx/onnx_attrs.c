/*
 * onnx_attrs.c: reads a node's AttributeProtos into wgc_attrs: every field checked for its
 * wire type, the type inferred when an old exporter left it out, tensors decoded, and
 * graph attributes (bodies) queued to be read once the rest of their graph is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_read.h"

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
                return wgc_onnx_nomem(rd);
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
        return wgc_onnx_nomem(rd);
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

wg_status wgc_onnx_read_attr(reader *rd, int node, const uint8_t *buf, size_t len)
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
            st = wgc_onnx_nomem(rd);
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
        st = wgc_onnx_nomem(rd);
        goto done;
    }
    switch (type) {
    case WGC_ATTR_GRAPH: {
        /* read after the rest of this graph (read_pending_bodies) */
        if (rd->g->n_regions == INT32_MAX || !(at->body = calloc(1, sizeof *at->body))) {
            st = wgc_onnx_nomem(rd);
            goto done;
        }
        at->body->region = ++rd->g->n_regions;
        if (rd->n_pending == rd->cap_pending) {
            size_t nc = rd->cap_pending ? 2 * rd->cap_pending : 8;
            pending_body *np = realloc(rd->pending, nc * sizeof *np);
            if (!np) {
                st = wgc_onnx_nomem(rd);
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
            st = wgc_onnx_nomem(rd);
            goto done;
        }
        at->s_len = s.n;
        if (type == WGC_ATTR_STRINGS && !attr_strings(buf, len, at))
            st = wgc_onnx_nomem(rd);
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
