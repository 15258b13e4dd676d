/* tensor_file.c: read and write single-TensorProto `.pb` files (see tensor_file.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/pb.h"
#include "onnx_proto.h"
#include "tensor_file.h"

/* Decodes the bytes p[0..len) of c's file into out. */
typedef wg_status (*file_decoder)(wgc_onnx_ctx *c, const uint8_t *p, size_t len, void *out);

/* Maps the file at path for decode, and unmaps it after. */
static wg_status decode_file(const char *path, file_decoder decode, void *out, char *err, size_t errlen)
{
    void *map;
    size_t len;
    wg_status st = wgc_onnx_map_file(path, &map, &len, err, errlen);
    if (st)
        return st;
    wgc_onnx_ctx c = {path, NULL, map, err, errlen};
    st = decode(&c, map, len, out);
    munmap(map, len);
    return st;
}

static wg_status decode_tensor(wgc_onnx_ctx *c, const uint8_t *p, size_t len, void *t)
{
    return wgc_onnx_tensor_decode(c, p, len, false, "tensor", t);
}

wg_status wg_tensor_file_read_pb(const char *path, wgc_value *out, char **name, char *err,
                                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (name)
        *name = NULL;
    wgc_onnx_tensor t;
    wg_status st = decode_file(path, decode_tensor, &t, err, errlen);
    if (st)
        return st;
    out->dtype = t.dtype;
    out->shape = t.shape;
    out->data = t.data; /* decoded without borrowing: a copy we own */
    if (name)
        *name = t.name;
    else
        free(t.name);
    return WG_OK;
}

static wg_status write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return WG_ERR_IO;
        p += w;
        n -= (size_t)w;
    }
    return WG_OK;
}

/* Appends a TensorProto (dims, data_type, name when not NULL, raw_data) to w. */
static wg_status encode_tensor(wgc_onnx_ctx *c, wg_pbw *w, const char *name, int dtype, const int64_t *dims,
                               int rank, const void *data)
{
    size_t esize = wg_dtype_size(dtype);
    if (!esize)
        return wgc_onnx_fail(c, WG_ERR_INVALID, "cannot write a tensor of dtype %d (%s)", dtype,
                             wg_dtype_name(dtype));
    if (rank < 0 || rank > WG_MAX_RANK || (rank > 0 && !dims))
        return wgc_onnx_fail(c, WG_ERR_INVALID, "bad rank %d (0..%d)", rank, WG_MAX_RANK);
    uint64_t bytes = esize;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return wgc_onnx_fail(c, WG_ERR_INVALID, "dim %d is negative (%lld)", i,
                                 (long long)dims[i]);
        if (__builtin_mul_overflow(bytes, (uint64_t)dims[i], &bytes) || bytes > SIZE_MAX / 2)
            return wgc_onnx_fail(c, WG_ERR_INVALID, "tensor size overflows");
    }
    if (bytes && !data)
        return wgc_onnx_fail(c, WG_ERR_INVALID, "no data for %llu bytes",
                             (unsigned long long)bytes);
    /* the 4- and 2-bit types: one byte per element in memory, packed in the file */
    const int bits = wg_dtype_packed_bits(dtype);
    uint8_t *packed = NULL;
    if (bits) {
        const unsigned per = 8 / (unsigned)bits, mask = (1u << bits) - 1;
        size_t nb = (size_t)((bytes * (uint64_t)bits + 7) / 8);
        if (!(packed = calloc(nb ? nb : 1, 1)))
            return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory");
        for (uint64_t i = 0; i < bytes; i++)
            packed[i / per] |= (uint8_t)((((const uint8_t *)data)[i] & mask) << ((i % per) * (unsigned)bits));
        data = packed;
        bytes = nb;
    }
    for (int i = 0; i < rank; i++)
        wg_pbw_varint_field(w, 1, (uint64_t)dims[i]);
    wg_pbw_varint_field(w, 2, (uint64_t)dtype);
    if (name)
        wg_pbw_bytes_field(w, 8, name, strlen(name));
    wg_pbw_bytes_field(w, 9, data, (size_t)bytes);
    free(packed);
    if (w->failed)
        return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory encoding %llu bytes",
                             (unsigned long long)bytes);
    return WG_OK;
}

/* Writes w's bytes to a temporary file in path's folder and renames it over path, so
 * readers never see half a file. */
static wg_status write_atomic(wgc_onnx_ctx *c, const char *path, const wg_pbw *w)
{
    wg_status st = WG_OK;
    int fd = -1;
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory");
    snprintf(tmp, n, "%s.tmp.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) {
        st = wgc_onnx_fail(c, WG_ERR_IO, "cannot create temporary file '%s': %s", tmp,
                           strerror(errno));
        free(tmp);
        return st; /* nothing to remove */
    }
    fchmod(fd, 0644); /* mkstemp makes 0600; a data file is normally readable by all */
    if (write_all(fd, w->buf, w->len) || fsync(fd) != 0) {
        st = wgc_onnx_fail(c, WG_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
        goto done;
    }
    if (close(fd) != 0) {
        fd = -1;
        st = wgc_onnx_fail(c, WG_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
        goto done;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        st = wgc_onnx_fail(c, WG_ERR_IO, "cannot rename '%s' to it: %s", tmp, strerror(errno));
        goto done;
    }
    free(tmp);
    return WG_OK;
done:
    if (fd >= 0)
        close(fd);
    unlink(tmp); /* a failed write leaves nothing behind */
    free(tmp);
    return st;
}

wg_status wg_tensor_file_write_pb(const char *path, const char *name, int dtype,
                                  const int64_t *dims, int rank, const void *data, char *err,
                                  size_t errlen)
{
    wgc_onnx_ctx c = {path, NULL, NULL, err, errlen};
    wg_pbw w = {0};
    wg_status st = encode_tensor(&c, &w, name, dtype, dims, rank, data);
    if (!st)
        st = write_atomic(&c, path, &w);
    wg_pbw_free(&w);
    return st;
}

/* ---- SequenceProto and OptionalProto files ---------------------------------------- */

void wg_value_file_free(wg_value_file *v)
{
    for (int k = 0; v->elems && k < v->n_elems; k++)
        free(v->elems[k].data);
    free(v->elems);
    memset(v, 0, sizeof *v);
}

static wg_status add_elem(wgc_onnx_ctx *c, wg_value_file *v, const uint8_t *p, size_t len)
{
    if (v->n_elems >= WG_VALUE_FILE_MAX_ELEMS)
        return wgc_onnx_fail(c, WG_ERR_FORMAT, "more than %d tensors", WG_VALUE_FILE_MAX_ELEMS);
    wgc_value *ne = realloc(v->elems, sizeof *ne * (size_t)(v->n_elems + 1));
    if (!ne)
        return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory");
    v->elems = ne;
    wgc_onnx_tensor t;
    wg_status st = wgc_onnx_tensor_decode(c, p, len, false, "sequence element", &t);
    if (st)
        return st;
    free(t.name);
    ne[v->n_elems++] = (wgc_value){t.dtype, t.shape, t.data};
    return WG_OK;
}

/* Field f of a SequenceProto or OptionalProto, into v. */
typedef wg_status (*value_field_fn)(wgc_onnx_ctx *c, const wg_pb_field *f, wg_value_file *v);

/* Passes each field of the `proto` message p[0..len) to field. */
static wg_status read_fields(wgc_onnx_ctx *c, const uint8_t *p, size_t len, const char *proto,
                             value_field_fn field, wg_value_file *v)
{
    wg_pb r = wg_pb_init(p, len);
    wg_pb_field f;
    while (wg_pb_next(&r, &f)) {
        wg_status st = field(c, &f, v);
        if (st)
            return st;
    }
    if (r.error)
        return wgc_onnx_fail(c, WG_ERR_FORMAT, "not a valid %s (malformed protobuf)", proto);
    return WG_OK;
}

/* SequenceProto: 1 name, 2 elem_type (1 = tensors), 3 tensor_values; other element kinds
 * (4 sparse, 5 sequences, 6 maps, 7 optionals) are refused. */
static wg_status sequence_field(wgc_onnx_ctx *c, const wg_pb_field *f, wg_value_file *v)
{
    if (f->number == 2 && f->wire == WG_PB_VARINT && f->varint != 1 && f->varint != 0)
        return wgc_onnx_fail(c, WG_ERR_UNSUPPORTED, "a sequence of element type %llu (only tensors)",
                             (unsigned long long)f->varint);
    if (f->number >= 4 && f->number <= 7)
        return wgc_onnx_fail(c, WG_ERR_UNSUPPORTED, "a sequence of non-tensors (field %u)", f->number);
    if (f->number != 3)
        return WG_OK;
    if (f->wire != WG_PB_LEN)
        return wgc_onnx_fail(c, WG_ERR_FORMAT, "not a SequenceProto: field 3 has wire type %d", f->wire);
    return add_elem(c, v, f->data, f->len);
}

static wg_status read_sequence(wgc_onnx_ctx *c, const uint8_t *p, size_t len, wg_value_file *v)
{
    return read_fields(c, p, len, "SequenceProto", sequence_field, v);
}

/* OptionalProto: 1 name, 2 elem_type, 3 tensor_value, 5 sequence_value; a value of
 * another kind (4 sparse, 6 map, 7 optional) is refused. No value: empty. */
static wg_status optional_field(wgc_onnx_ctx *c, const wg_pb_field *f, wg_value_file *v)
{
    if (f->number == 4 || f->number == 6 || f->number == 7)
        return wgc_onnx_fail(c, WG_ERR_UNSUPPORTED, "an optional of a sparse tensor, map or optional");
    if (f->number != 3 && f->number != 5)
        return WG_OK;
    if (f->wire != WG_PB_LEN || v->present)
        return wgc_onnx_fail(c, WG_ERR_FORMAT, "not an OptionalProto: field %u repeated or of wire type %d",
                             f->number, f->wire);
    v->present = true;
    v->holds_sequence = f->number == 5;
    return f->number == 3 ? add_elem(c, v, f->data, f->len) : read_sequence(c, f->data, f->len, v);
}

/* A SequenceProto file, or an OptionalProto one, by out's kind. */
static wg_status decode_value(wgc_onnx_ctx *c, const uint8_t *p, size_t len, void *out)
{
    wg_value_file *v = out;
    if (v->kind != WG_VALUE_SEQUENCE)
        return read_fields(c, p, len, "OptionalProto", optional_field, v);
    v->present = true;
    v->holds_sequence = true;
    return read_sequence(c, p, len, v);
}

wg_status wg_value_file_read_pb(const char *path, int kind, wg_value_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    wg_status st = decode_file(path, decode_value, out, err, errlen);
    if (st)
        wg_value_file_free(out);
    return st;
}

/* A SequenceProto of v's tensors into w. */
static wg_status encode_sequence(wgc_onnx_ctx *c, wg_pbw *w, const char *name, const wg_value_file *v)
{
    if (name)
        wg_pbw_bytes_field(w, 1, name, strlen(name));
    wg_pbw_varint_field(w, 2, 1);
    for (int k = 0; k < v->n_elems; k++) {
        wg_pbw t = {0};
        wg_status st = encode_tensor(c, &t, NULL, v->elems[k].dtype, v->elems[k].shape.dims,
                                     v->elems[k].shape.rank, v->elems[k].data);
        if (!st)
            wg_pbw_bytes_field(w, 3, t.buf, t.len);
        wg_pbw_free(&t);
        if (st)
            return st;
    }
    return w->failed ? wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory") : WG_OK;
}

wg_status wg_value_file_write_pb(const char *path, const char *name, const wg_value_file *v, char *err,
                                 size_t errlen)
{
    wgc_onnx_ctx c = {path, NULL, NULL, err, errlen};
    wg_pbw w = {0}, inner = {0};
    wg_status st = WG_OK;
    if (v->kind == WG_VALUE_SEQUENCE) {
        st = encode_sequence(&c, &w, name, v);
    } else {
        if (name)
            wg_pbw_bytes_field(&w, 1, name, strlen(name));
        /* OptionalProto.DataType: 1 TENSOR, 3 SEQUENCE */
        wg_pbw_varint_field(&w, 2, v->holds_sequence ? 3 : 1);
        if (v->present && v->holds_sequence)
            st = encode_sequence(&c, &inner, NULL, v);
        else if (v->present && v->n_elems == 1)
            st = encode_tensor(&c, &inner, NULL, v->elems[0].dtype, v->elems[0].shape.dims, v->elems[0].shape.rank,
                               v->elems[0].data);
        else if (v->present)
            st = wgc_onnx_fail(&c, WG_ERR_INVALID, "an optional tensor of %d tensors", v->n_elems);
        if (!st && v->present)
            wg_pbw_bytes_field(&w, v->holds_sequence ? 5 : 3, inner.buf, inner.len);
        if (!st && w.failed)
            st = wgc_onnx_fail(&c, WG_ERR_NOMEM, "out of memory");
    }
    if (!st)
        st = write_atomic(&c, path, &w);
    wg_pbw_free(&inner);
    wg_pbw_free(&w);
    return st;
}
