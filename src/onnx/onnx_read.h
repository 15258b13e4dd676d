/*
 * onnx_read.h: the ONNX model reader's internal state, shared by the files that make it up:
 * onnx_reader.c (nodes, initializers, bodies, graph and model), onnx_names.c (tensor names
 * and their scopes), onnx_attrs.c (attributes) and onnx_value_info.c (graph inputs and
 * outputs). Not part of any public interface.
 */
#ifndef WGC_ONNX_READ_H
#define WGC_ONNX_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx_proto.h"

typedef struct slice {
    const uint8_t *p;
    size_t n;
} slice;

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

/* A ValueInfoProto as read (onnx_value_info.c): a graph or body input or output. */
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

/* WG_ERR_NOMEM, "out of memory while reading the model" (onnx_reader.c). */
wg_status wgc_onnx_nomem(const reader *rd);

/* Tensor names (onnx_names.c). */
/* The tensor stored under name (already scoped), -1 when none. */
int wgc_onnx_map_find(const name_map *m, const wgc_graph *g, const char *name);
/* The tensor called name in the current scope, created when new; -1 when out of memory. */
int wgc_onnx_tensor_get(reader *rd, const char *name, bool *created);
/* name in the innermost scope that has it, -1 when none (*nomem set when out of memory). */
int wgc_onnx_tensor_visible(reader *rd, const char *name, bool *nomem);
/* A node input: visible from here, or else a new tensor of this scope; -1 when out of memory. */
int wgc_onnx_tensor_ref(reader *rd, const char *name);

/* Attributes (onnx_attrs.c): reads one AttributeProto of node `node`; a graph attribute is
 * queued in rd->pending, read once the rest of its graph is. */
wg_status wgc_onnx_read_attr(reader *rd, int node, const uint8_t *buf, size_t len);

/* Graph inputs and outputs (onnx_value_info.c). */
/* Appends x to the int array *v of *n elements; false when out of memory. */
bool wgc_onnx_push_index(int **v, int *n, int x);
/* Reads graph input or output #index (kind "input" or "output") into *vi and a malloc'ed
 * copy of its name into *name (an error when it has none). */
wg_status wgc_onnx_read_graph_value(reader *rd, const uint8_t *buf, size_t len, const char *kind,
                                    size_t index, value_info *vi, char **name);
/* Graph input name, described by vi: a new tensor, or an initializer listed as input too. */
wg_status wgc_onnx_add_graph_input(reader *rd, const value_info *vi, const char *name);
/* Graph output name, described by vi: a value the graph has. */
wg_status wgc_onnx_add_graph_output(reader *rd, const value_info *vi, const char *name);

#endif
