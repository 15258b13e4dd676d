/*
 * onnx_reader.c: ModelProto -> wgc_graph. Decodes the model, its GraphProto, opsets, nodes,
 * initializers and bodies in place over the mapped file; onnx_names.c keeps the tensor
 * names, onnx_attrs.c reads attributes, onnx_value_info.c graph inputs/outputs,
 * onnx_tensor.c decodes TensorProtos, onnx_check.c validates and sorts the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_proto.h"
#include "onnx_read.h"
#include "onnx_reader.h"

/* WG_ONNX_MAX_OPSET: the newest opset of the pinned onnx (ops/versions.c reads the rest). */
#define WG_ONNX_OP(...)
#include "../ir/onnx_versions.def"
#undef WG_ONNX_OP

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
                st = wgc_onnx_nomem(rd);
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
        st = wgc_onnx_nomem(rd);
        goto done;
    }
    if (is_default_domain(domain))
        domain[0] = 0;
    opset_entry *ne = realloc(rd->opsets, (rd->n_opsets + 1) * sizeof *ne);
    if (!ne) {
        st = wgc_onnx_nomem(rd);
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
            st = wgc_onnx_nomem(rd);
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
        st = wgc_onnx_nomem(rd);
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
        st = wgc_onnx_nomem(rd);
        goto done;
    }
    int me = rd->g->n_nodes; /* the index wgc_node_add will give this node */
    for (size_t k = 0; k < ins.n; k++) {
        in_idx[k] = -1;
        if (!ins.v[k].n)
            continue; /* "" = omitted optional input */
        free(tmp);
        if (!(tmp = wgc_onnx_dupn(ins.v[k].p, ins.v[k].n)) ||
            (in_idx[k] = wgc_onnx_tensor_ref(rd, tmp)) < 0) {
            st = wgc_onnx_nomem(rd);
            goto done;
        }
    }
    for (size_t k = 0; k < outs.n; k++) {
        out_idx[k] = -1;
        if (!outs.v[k].n)
            continue;
        free(tmp);
        if (!(tmp = wgc_onnx_dupn(outs.v[k].p, outs.v[k].n)) ||
            (out_idx[k] = wgc_onnx_tensor_get(rd, tmp, NULL)) < 0) {
            st = wgc_onnx_nomem(rd);
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
        st = wgc_onnx_nomem(rd);
        goto done;
    }
    int64_t ver = opset_of(rd, s_domain);
    rd->g->nodes[node].opset = s_domain[0] ? (ver < 0 ? 0 : (int)ver) : rd->g->opset;
    rd->g->nodes[node].region = rd->region;
    for (size_t k = 0; k < attrs.n; k++)
        if ((st = wgc_onnx_read_attr(rd, node, attrs.v[k].p, attrs.v[k].n)))
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
    if ((t = wgc_onnx_tensor_get(rd, ot.name, &created)) < 0) {
        st = wgc_onnx_nomem(rd);
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
    int t = wgc_onnx_tensor_get(rd, name, &created);
    if (t < 0)
        *st = wgc_onnx_nomem(rd);
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
    const int t = wgc_onnx_tensor_visible(rd, name, &no_memory);
    if (no_memory)
        *st = wgc_onnx_nomem(rd);
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
    if (!st && !(input ? wgc_onnx_push_index(&body->inputs, &body->n_inputs, t)
                       : wgc_onnx_push_index(&body->outputs, &body->n_outputs, t)))
        st = wgc_onnx_nomem(rd);
    return st;
}

/* Input or output #index (input tells which) of the graph, or of a body when body is set:
 * its ValueInfoProto read, then recorded. */
static wg_status read_graph_io(reader *rd, wgc_body *body, const uint8_t *buf, size_t len,
                               size_t index, bool input)
{
    char *name;
    value_info vi;
    wg_status st =
        wgc_onnx_read_graph_value(rd, buf, len, input ? "input" : "output", index, &vi, &name);
    if (st)
        return st;
    if (body)
        st = add_body_value(rd, body, &vi, name, input);
    else
        st = input ? wgc_onnx_add_graph_input(rd, &vi, name)
                   : wgc_onnx_add_graph_output(rd, &vi, name);
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
        return wgc_onnx_nomem(rd);
    int m = wgc_node_add(rd->g, name, "BodyBegin", "wasmgraph", NULL, 0, body->inputs,
                         body->n_inputs);
    free(name);
    if (m < 0)
        return wgc_onnx_nomem(rd);
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
            st = wgc_onnx_nomem(rd);
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
                st = wgc_onnx_nomem(rd);
                goto done;
            }
            continue;
        }
        if (!slices_push(dst, f.data, f.len)) {
            st = wgc_onnx_nomem(rd);
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
                return wgc_onnx_nomem(rd);
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
        st = wgc_onnx_nomem(&rd);
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
