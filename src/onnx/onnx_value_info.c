/*
 * onnx_value_info.c: reads the graph's inputs and outputs (ValueInfoProtos: name, element
 * type, shape with its dim_params, tensor / sequence / optional) and records them in the
 * graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_read.h"

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

bool wgc_onnx_push_index(int **v, int *n, int x)
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
wg_status wgc_onnx_read_graph_value(reader *rd, const uint8_t *buf, size_t len, const char *kind,
                                    size_t index, value_info *vi, char **name)
{
    char what[64];
    snprintf(what, sizeof what, "graph %s #%zu (ValueInfoProto)", kind, index);
    wg_status st = read_value_info(rd, buf, len, what, vi);
    if (st)
        return st;
    if (!(*name = wgc_onnx_dupn(vi->name.p, vi->name.n)))
        return wgc_onnx_nomem(rd);
    if ((*name)[0])
        return WG_OK;
    free(*name);
    return wgc_onnx_fail(&rd->c, WG_ERR_FORMAT, "%s has no name", what);
}

/* Graph input name, described by vi: a new tensor, or an initializer listed as input too. */
wg_status wgc_onnx_add_graph_input(reader *rd, const value_info *vi, const char *name)
{
    bool created;
    int t;
    if ((t = wgc_onnx_tensor_get(rd, name, &created)) < 0)
        return wgc_onnx_nomem(rd);
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
            return wgc_onnx_nomem(rd);
    if (!wgc_onnx_push_index(&rd->g->inputs, &rd->g->n_inputs, t))
        return wgc_onnx_nomem(rd);
    return WG_OK;
}

/* Graph output name, described by vi: a value the graph has. */
wg_status wgc_onnx_add_graph_output(reader *rd, const value_info *vi, const char *name)
{
    int t = wgc_onnx_map_find(&rd->names, rd->g, name);
    if (t < 0)
        return wgc_onnx_fail(&rd->c, WG_ERR_INVALID,
                             "graph output '%s' is not produced by any node, and is neither an "
                             "input nor an initializer",
                             name);
    if (rd->g->tensors[t].is_output)
        return wgc_onnx_fail(&rd->c, WG_ERR_INVALID, "graph output '%s' is declared twice", name);
    rd->g->tensors[t].is_output = true;
    rd->g->tensors[t].declared_dtype = (int)vi->elem_type;
    if (!wgc_onnx_push_index(&rd->g->outputs, &rd->g->n_outputs, t))
        return wgc_onnx_nomem(rd);
    return WG_OK;
}
