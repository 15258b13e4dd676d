/*
 * tensor_file.h: ONNX test-data tensor files (`input_0.pb`, `output_0.pb`): one
 * serialized TensorProto per file.
 *
 *     wgc_value v; char *name; char err[512];
 *     if (wg_tensor_file_read_pb("test_data_set_0/input_0.pb", &v, &name, err, sizeof err)) ...
 *     ... v.dtype, v.shape, v.data (dense, little-endian) ...
 *     free(v.data); free(name);
 *
 * Errors: WG_ERR_IO (missing/empty/unreadable file, or a write that failed), WG_ERR_FORMAT
 * (not a TensorProto, or data that does not match the shape), WG_ERR_UNSUPPORTED (string
 * tensors, external data, unknown dtypes), WG_ERR_INVALID (bad arguments to the writer).
 */
#ifndef WG_TENSOR_FILE_H
#define WG_TENSOR_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "wasmgraph.h"

/* Reads one TensorProto file. out->data is malloc'ed (16-byte aligned) and owned by the
 * caller; when name is not NULL, *name is a malloc'ed copy of the tensor's name ("" when
 * unnamed). On failure nothing is allocated. */
wg_status wg_tensor_file_read_pb(const char *path, wgc_value *out, char **name, char *err,
                                 size_t errlen);

/* Writes a TensorProto (dims, data_type, name when not NULL, raw_data) to path. The file
 * is written to a temporary file in the same folder and renamed over path, so readers
 * never see half a file. data holds numel(dims) elements of dtype, little-endian. */
wg_status wg_tensor_file_write_pb(const char *path, const char *name, int dtype,
                                  const int64_t *dims, int rank, const void *data, char *err,
                                  size_t errlen);

/*
 * Sequence and optional values (SequenceProto and OptionalProto files, as ONNX's tests keep
 * sequence and optional inputs and outputs): the tensors a sequence holds, or an optional's
 * presence and its tensor or sequence of tensors. kind is WG_VALUE_SEQUENCE or
 * WG_VALUE_OPTIONAL (include/wasmgraph.h), the file's message type: the caller knows it
 * from the model, a .pb file does not say.
 */
#define WG_VALUE_FILE_MAX_ELEMS 65536
typedef struct wg_value_file {
    int kind;
    bool present;        /* an optional holds a value (always true for a sequence) */
    bool holds_sequence; /* the value is a sequence (always true for a sequence) */
    wgc_value *elems;    /* owned: a sequence's elements, or an optional's one tensor */
    int n_elems;
} wg_value_file;

/* Reads a SequenceProto (kind WG_VALUE_SEQUENCE) or OptionalProto file; *out is the
 * caller's (wg_value_file_free) on success, empty on failure. */
wg_status wg_value_file_read_pb(const char *path, int kind, wg_value_file *out, char *err, size_t errlen);
/* Writes v as a SequenceProto or OptionalProto named name (NULL: unnamed), like
 * wg_tensor_file_write_pb (temporary file renamed over path). */
wg_status wg_value_file_write_pb(const char *path, const char *name, const wg_value_file *v, char *err,
                                 size_t errlen);
void wg_value_file_free(wg_value_file *v);

#endif
