/*
 * onnx_reader.h: loads an ONNX model file (ModelProto) into the compiler's graph IR.
 *
 *     wgc_graph *g; char err[512];
 *     if (wgc_onnx_load("model.onnx", &g, err, sizeof err)) { fputs(err, stderr); ... }
 *     ... g->nodes are in topological order, initializers are constant tensors ...
 *     wgc_graph_free(g);
 *
 * The file is mapped read-only and kept mapped in g->map/g->map_len (wgc_graph_free
 * unmaps it). An initializer whose raw_data is 16-byte aligned in the file points
 * straight into that mapping (owns_data false: READ-ONLY memory, never write through
 * it); every other constant is copied into a 16-byte aligned malloc'ed buffer
 * (owns_data true, release with free()). External data files are read relative to the
 * model's folder.
 *
 * Graph inputs get their dtype and shape from the model's ValueInfo; a dynamic dim
 * (dim_param or no dim_value) is stored as -1 and leaves has_shape false, as does an
 * input declared without any shape (then shape.rank is 0). Graph outputs are only marked
 * is_output: their dtype and shape are left to shape inference.
 *
 * Status codes: WG_ERR_IO (file missing, empty, a directory, unreadable), WG_ERR_FORMAT
 * (not a ModelProto / TensorProto: bad wire data, truncation, data size that does not
 * match the shape; the message gives the byte offset), WG_ERR_UNSUPPORTED (graph
 * attributes, sparse initializers, string tensors, exotic dtypes), WG_ERR_INVALID (a
 * graph that breaks ONNX's rules: unknown input, tensor produced twice, cycle, unsafe
 * external data path). On failure *out is NULL and err holds the message.
 */
#ifndef WGC_ONNX_READER_H
#define WGC_ONNX_READER_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

wg_status wgc_onnx_load(const char *path, wgc_graph **out, char *err, size_t errlen);

/*
 * Decodes one standalone serialized TensorProto (buf/len) into *out. out->data is a
 * malloc'ed (16-byte aligned) dense little-endian copy, owned by the caller, non-NULL
 * even for an empty tensor. When name is not NULL, *name receives a malloc'ed copy of
 * the tensor's name ("" when it has none). External data is refused (no base folder).
 */
wg_status wgc_onnx_read_value(const uint8_t *buf, size_t len, wgc_value *out, char **name,
                              char *err, size_t errlen);

#endif
