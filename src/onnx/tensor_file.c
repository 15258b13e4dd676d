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

wg_status wg_tensor_file_read_pb(const char *path, wgc_value *out, char **name, char *err,
                                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (name)
        *name = NULL;
    void *map;
    size_t len;
    wg_status st = wgc_onnx_map_file(path, &map, &len, err, errlen);
    if (st)
        return st;
    wgc_onnx_ctx c = {path, NULL, map, err, errlen};
    wgc_onnx_tensor t;
    st = wgc_onnx_tensor_decode(&c, map, len, false, "tensor", &t);
    munmap(map, len);
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

wg_status wg_tensor_file_write_pb(const char *path, const char *name, int dtype,
                                  const int64_t *dims, int rank, const void *data, char *err,
                                  size_t errlen)
{
    wgc_onnx_ctx c = {path, NULL, NULL, err, errlen};
    wg_pbw w = {0};
    char *tmp = NULL;
    int fd = -1;
    wg_status st = WG_OK;
    size_t esize = wg_dtype_size(dtype);
    if (!esize)
        return wgc_onnx_fail(&c, WG_ERR_INVALID, "cannot write a tensor of dtype %d (%s)", dtype,
                             wg_dtype_name(dtype));
    if (rank < 0 || rank > WG_MAX_RANK || (rank > 0 && !dims))
        return wgc_onnx_fail(&c, WG_ERR_INVALID, "bad rank %d (0..%d)", rank, WG_MAX_RANK);
    uint64_t bytes = esize;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return wgc_onnx_fail(&c, WG_ERR_INVALID, "dim %d is negative (%lld)", i,
                                 (long long)dims[i]);
        if (__builtin_mul_overflow(bytes, (uint64_t)dims[i], &bytes) || bytes > SIZE_MAX / 2)
            return wgc_onnx_fail(&c, WG_ERR_INVALID, "tensor size overflows");
    }
    if (bytes && !data)
        return wgc_onnx_fail(&c, WG_ERR_INVALID, "no data for %llu bytes",
                             (unsigned long long)bytes);
    /* the 4- and 2-bit types: one byte per element in memory, packed in the file */
    const int bits = wg_dtype_packed_bits(dtype);
    uint8_t *packed = NULL;
    if (bits) {
        const unsigned per = 8 / (unsigned)bits, mask = (1u << bits) - 1;
        size_t nb = (size_t)((bytes * (uint64_t)bits + 7) / 8);
        if (!(packed = calloc(nb ? nb : 1, 1)))
            return wgc_onnx_fail(&c, WG_ERR_NOMEM, "out of memory");
        for (uint64_t i = 0; i < bytes; i++)
            packed[i / per] |= (uint8_t)((((const uint8_t *)data)[i] & mask) << ((i % per) * (unsigned)bits));
        data = packed;
        bytes = nb;
    }
    for (int i = 0; i < rank; i++)
        wg_pbw_varint_field(&w, 1, (uint64_t)dims[i]);
    wg_pbw_varint_field(&w, 2, (uint64_t)dtype);
    if (name)
        wg_pbw_bytes_field(&w, 8, name, strlen(name));
    wg_pbw_bytes_field(&w, 9, data, (size_t)bytes);
    free(packed);
    if (w.failed) {
        st = wgc_onnx_fail(&c, WG_ERR_NOMEM, "out of memory encoding %llu bytes",
                           (unsigned long long)bytes);
        goto done;
    }
    size_t n = strlen(path) + 16;
    if (!(tmp = malloc(n))) {
        st = wgc_onnx_fail(&c, WG_ERR_NOMEM, "out of memory");
        goto done;
    }
    snprintf(tmp, n, "%s.tmp.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "cannot create temporary file '%s': %s", tmp,
                           strerror(errno));
        free(tmp);
        tmp = NULL; /* nothing to remove */
        goto done;
    }
    fchmod(fd, 0644); /* mkstemp makes 0600; a data file is normally readable by all */
    if (write_all(fd, w.buf, w.len) || fsync(fd) != 0) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
        goto done;
    }
    if (close(fd) != 0) {
        fd = -1;
        st = wgc_onnx_fail(&c, WG_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
        goto done;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "cannot rename '%s' to it: %s", tmp, strerror(errno));
        goto done;
    }
    free(tmp);
    tmp = NULL;
done:
    if (fd >= 0)
        close(fd);
    if (tmp) {
        unlink(tmp); /* a failed write leaves nothing behind */
        free(tmp);
    }
    wg_pbw_free(&w);
    return st;
}
