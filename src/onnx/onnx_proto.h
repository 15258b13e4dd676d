/*
 * onnx_proto.h: internal pieces shared by the ONNX model reader and the .pb tensor
 * files: the decoding context (for error messages), file mapping, external data and
 * TensorProto decoding. Not part of any public interface.
 */
#ifndef WGC_ONNX_PROTO_H
#define WGC_ONNX_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/pb.h"
#include "ir/ir.h"

/* Where we are decoding: names the file in messages and turns pointers into offsets. */
typedef struct wgc_onnx_ctx {
    const char *path;    /* file being decoded, for messages ("<memory>" for buffers) */
    const char *dir;     /* folder for external data; NULL refuses external data */
    const uint8_t *base; /* first byte of the file: offsets are relative to it */
    char *err;
    size_t errlen;
} wgc_onnx_ctx;

/* Formats "path: message" into ctx->err and returns st. */
wg_status wgc_onnx_fail(const wgc_onnx_ctx *c, wg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* WG_ERR_FORMAT for the decoding error recorded in r, with its absolute offset; `what`
 * says which message was being read ("GraphProto", "initializer 'w'", ...). */
wg_status wgc_onnx_pb_fail(const wgc_onnx_ctx *c, const wg_pb *r, const char *what);
/* WG_ERR_FORMAT for field f (just read by r) having the wrong wire type. */
wg_status wgc_onnx_wire_fail(const wgc_onnx_ctx *c, const wg_pb *r, const wg_pb_field *f,
                             const char *what);

/* Maps a whole regular, non-empty file read-only. WG_ERR_IO with the path otherwise. */
wg_status wgc_onnx_map_file(const char *path, void **map, size_t *len, char *err,
                            size_t errlen);
/* malloc'ed NUL-terminated copy of the n bytes at p (a protobuf string); NULL when out of
 * memory. */
char *wgc_onnx_dupn(const uint8_t *p, size_t n);
/* malloc'ed copy of the folder holding path ("." when none); NULL when out of memory. */
char *wgc_onnx_dirname(const char *path);
/* A 16-byte aligned buffer of at least max(bytes, 1) bytes, released with free(). */
void *wgc_onnx_alloc_aligned(size_t bytes);

/* Reads `length` bytes (or the rest of the file when has_length is false) at `offset` of
 * external file `location` (relative to c->dir) into an aligned malloc'ed buffer. Refuses
 * absolute paths and `..` with WG_ERR_INVALID naming tensor and path. */
wg_status wgc_onnx_read_external(const wgc_onnx_ctx *c, const char *tensor, const char *location,
                                 uint64_t offset, bool has_length, uint64_t length, void **data,
                                 size_t *bytes);

/* A decoded TensorProto. */
typedef struct wgc_onnx_tensor {
    char *name;      /* malloc'ed, "" when unnamed */
    int dtype;
    wgc_shape shape;
    void *data;      /* dense little-endian, non-NULL; owned when owns_data */
    bool owns_data;
    size_t bytes;
} wgc_onnx_tensor;

/*
 * Decodes the TensorProto in buf[0..len). With `borrow`, 16-byte aligned raw_data is
 * returned as a pointer into buf (owns_data false); otherwise data is always copied.
 * `what` describes the tensor's role for messages ("initializer", "attribute 'value' of
 * node 'c1'"). On failure nothing is left allocated.
 */
wg_status wgc_onnx_tensor_decode(const wgc_onnx_ctx *c, const uint8_t *buf, size_t len,
                                 bool borrow, const char *what, wgc_onnx_tensor *out);
void wgc_onnx_tensor_release(wgc_onnx_tensor *t);

/*
 * After the graph is read: checks that every node input is a graph input, a constant or
 * some node's output and that graph outputs exist (WG_ERR_INVALID otherwise), sorts the
 * nodes topologically (stable: an already sorted graph keeps its order; a cycle is
 * WG_ERR_INVALID naming nodes on it) and sets every tensor's producer.
 */
wg_status wgc_onnx_check_and_sort(const wgc_onnx_ctx *c, wgc_graph *g);
/* Links each If/Loop/Scan to its laid-out bodies (onnx_bodies.c): checks their arity and
 * gives the markers and the node the inputs ops/control_flow.c reads. After the sort. */
wg_status wgc_onnx_link_bodies(const wgc_onnx_ctx *c, wgc_graph *g);

/* The ONNX name of an AttributeProto type ("INTS"), "unknown" when out of range. */
const char *wgc_onnx_attr_type_name(int type);
/* WG_ERR_INVALID when a default-domain attribute has a type other than the one ONNX
 * defines for its name (onnx_attr_check.c); WG_OK for names it does not know. */
wg_status wgc_onnx_check_attr_type(const wgc_onnx_ctx *c, const wgc_node *n, const wgc_attr *a);

#endif
