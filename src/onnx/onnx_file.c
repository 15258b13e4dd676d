/* onnx_file.c: file access for the ONNX reader: mapping, external data, error helpers. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_proto.h"

wg_status wgc_onnx_fail(const wgc_onnx_ctx *c, wg_status st, const char *fmt, ...)
{
    if (!c->err || !c->errlen)
        return st;
    int n = snprintf(c->err, c->errlen, "%s: ", c->path ? c->path : "<memory>");
    if (n < 0 || (size_t)n >= c->errlen)
        return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

wg_status wgc_onnx_pb_fail(const wgc_onnx_ctx *c, const wg_pb *r, const char *what)
{
    size_t off = (size_t)(r->start - c->base) + r->error_offset;
    return wgc_onnx_fail(c, WG_ERR_FORMAT, "not valid ONNX protobuf: %s at byte %zu (in %s)",
                         r->error ? r->error : "bad data", off, what);
}

wg_status wgc_onnx_wire_fail(const wgc_onnx_ctx *c, const wg_pb *r, const wg_pb_field *f,
                             const char *what)
{
    size_t off = (size_t)(r->p - c->base);
    return wgc_onnx_fail(c, WG_ERR_FORMAT,
                         "not valid ONNX protobuf: field %u has wire type %d, which is wrong "
                         "for it (field ends at byte %zu, in %s)",
                         f->number, f->wire, off, what);
}

wg_status wgc_onnx_map_file(const char *path, void **map, size_t *len, char *err,
                            size_t errlen)
{
    wgc_onnx_ctx c = {path, NULL, NULL, err, errlen};
    wg_status st = WG_OK;
    *map = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return wgc_onnx_fail(&c, WG_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "cannot stat: %s", strerror(errno));
        goto done;
    }
    if (S_ISDIR(sb.st_mode)) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "is a directory, not a file");
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "is not a regular file");
        goto done;
    }
    if (sb.st_size == 0) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "file is empty");
        goto done;
    }
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "file is too large to map");
        goto done;
    }
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        st = wgc_onnx_fail(&c, WG_ERR_IO, "cannot map %lld bytes: %s", (long long)sb.st_size,
                           strerror(errno));
        goto done;
    }
    *map = m;
    *len = (size_t)sb.st_size;
done:
    close(fd);
    return st;
}

char *wgc_onnx_dupn(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, p, n);
    s[n] = 0;
    return s;
}

char *wgc_onnx_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path); /* "/m.onnx" -> "/" */
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

void *wgc_onnx_alloc_aligned(size_t bytes)
{
    /* aligned_alloc wants a size that is a multiple of the alignment */
    if (bytes > SIZE_MAX - 16)
        return NULL;
    size_t n = (bytes + 15) & ~(size_t)15;
    if (n == 0)
        n = 16;
    return aligned_alloc(16, n);
}

/* True when location is relative and has no ".." segment (either slash counts). */
static bool location_is_safe(const char *loc)
{
    if (!loc[0] || loc[0] == '/' || loc[0] == '\\')
        return false;
    if (((loc[0] >= 'a' && loc[0] <= 'z') || (loc[0] >= 'A' && loc[0] <= 'Z')) && loc[1] == ':')
        return false; /* a Windows drive path, "C:..." */
    const char *seg = loc;
    for (const char *p = loc;; p++) {
        if (*p == '/' || *p == '\\' || *p == 0) {
            if (p - seg == 2 && seg[0] == '.' && seg[1] == '.')
                return false;
            if (*p == 0)
                break;
            seg = p + 1;
        }
    }
    return true;
}

wg_status wgc_onnx_read_external(const wgc_onnx_ctx *c, const char *tensor, const char *location,
                                 uint64_t offset, bool has_length, uint64_t length, void **data,
                                 size_t *bytes)
{
    wg_status st = WG_OK;
    char *full = NULL;
    void *buf = NULL;
    int fd = -1;
    *data = NULL;
    *bytes = 0;
    if (!c->dir) {
        return wgc_onnx_fail(c, WG_ERR_UNSUPPORTED,
                             "tensor '%s' keeps its data in external file '%s', which is not "
                             "supported here (no model folder)",
                             tensor, location);
    }
    if (!location_is_safe(location)) {
        return wgc_onnx_fail(c, WG_ERR_INVALID,
                             "tensor '%s': external data location '%s' is refused (it must be a "
                             "relative path inside the model's folder, without '..')",
                             tensor, location);
    }
    size_t n = strlen(c->dir) + strlen(location) + 2;
    full = malloc(n);
    if (!full) {
        st = wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory");
        goto done;
    }
    snprintf(full, n, "%s/%s", c->dir, location);
    fd = open(full, O_RDONLY);
    if (fd < 0) {
        st = wgc_onnx_fail(c, WG_ERR_IO, "tensor '%s': cannot open external data file '%s': %s",
                           tensor, full, strerror(errno));
        goto done;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = wgc_onnx_fail(c, WG_ERR_IO, "tensor '%s': external data '%s' is not a regular file",
                           tensor, full);
        goto done;
    }
    uint64_t size = (uint64_t)sb.st_size;
    if (offset > size) {
        st = wgc_onnx_fail(c, WG_ERR_INVALID,
                           "tensor '%s': external data offset %llu is past the end of '%s' (%llu "
                           "bytes)",
                           tensor, (unsigned long long)offset, full, (unsigned long long)size);
        goto done;
    }
    if (has_length && length > size - offset) {
        st = wgc_onnx_fail(c, WG_ERR_INVALID,
                           "tensor '%s': external data offset %llu length %llu runs past the end "
                           "of '%s' (%llu bytes)",
                           tensor, (unsigned long long)offset, (unsigned long long)length, full,
                           (unsigned long long)size);
        goto done;
    }
    uint64_t want = has_length ? length : size - offset;
    if (want > SIZE_MAX - 16) {
        st = wgc_onnx_fail(c, WG_ERR_LIMIT, "tensor '%s': external data too large", tensor);
        goto done;
    }
    buf = wgc_onnx_alloc_aligned((size_t)want);
    if (!buf) {
        st = wgc_onnx_fail(c, WG_ERR_NOMEM, "tensor '%s': out of memory for %llu bytes", tensor,
                           (unsigned long long)want);
        goto done;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(fd, (char *)buf + got, (size_t)want - got, (off_t)(offset + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            st = wgc_onnx_fail(c, WG_ERR_IO, "tensor '%s': cannot read external data '%s': %s",
                               tensor, full, r < 0 ? strerror(errno) : "unexpected end of file");
            goto done;
        }
        got += (size_t)r;
    }
    *data = buf;
    *bytes = (size_t)want;
    buf = NULL;
done:
    if (fd >= 0)
        close(fd);
    free(buf);
    free(full);
    return st;
}
