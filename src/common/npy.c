/* npy.c: see npy.h. The header is a Python dict literal; we read the three keys NumPy
 * writes ('descr', 'fortran_order', 'shape') and nothing else. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, fsync */
#endif
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "fail.h"

static const struct {
    char kind;
    int size;
    int dtype;
} descrs[] = {
    {'f', 4, WG_DT_FLOAT}, {'f', 2, WG_DT_FLOAT16}, {'f', 8, WG_DT_DOUBLE}, {'i', 1, WG_DT_INT8},
    {'u', 1, WG_DT_UINT8}, {'i', 2, WG_DT_INT16},   {'u', 2, WG_DT_UINT16}, {'i', 4, WG_DT_INT32},
    {'u', 4, WG_DT_UINT32}, {'i', 8, WG_DT_INT64},  {'u', 8, WG_DT_UINT64}, {'b', 1, WG_DT_BOOL},
};

/* Finds 'key': in the header and returns a pointer just after the colon, or NULL. */
static const char *find_key(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\"%s\"", key);
        p = strstr(h, pat);
    }
    if (!p)
        return NULL;
    p += strlen(pat);
    while (isspace((unsigned char)*p))
        p++;
    return *p == ':' ? p + 1 : NULL;
}

static wg_status parse_header(const char *h, const char *name, wg_npy *out, char *err, size_t errlen)
{
    const char *d = find_key(h, "descr"), *f = find_key(h, "fortran_order"), *s = find_key(h, "shape");
    if (!d || !f || !s)
        return wg_fail(err, errlen, WG_ERR_FORMAT,
                    "%s: .npy header lacks 'descr', 'fortran_order' or 'shape': %.100s", name, h);
    while (isspace((unsigned char)*d))
        d++;
    char q = *d;
    if (q != '\'' && q != '"')
        return wg_fail(err, errlen, WG_ERR_UNSUPPORTED, "%s: .npy structured dtypes are not supported",
                    name);
    char descr[16];
    size_t n = 0;
    for (d++; *d && *d != q && n + 1 < sizeof descr; d++)
        descr[n++] = *d;
    descr[n] = 0;
    if (n < 3)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy descr '%s' is malformed", name, descr);
    char order = descr[0], kind = descr[1];
    int size = atoi(descr + 2);
    out->dtype = WG_DT_UNDEFINED;
    for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++)
        if (descrs[i].kind == kind && descrs[i].size == size)
            out->dtype = descrs[i].dtype;
    if (!out->dtype)
        return wg_fail(err, errlen, WG_ERR_UNSUPPORTED, "%s: .npy dtype '%s' is not supported", name,
                    descr);
    if (order == '>' && size > 1)
        return wg_fail(err, errlen, WG_ERR_UNSUPPORTED,
                    "%s: .npy dtype '%s' is big-endian; save it little-endian ('<')", name, descr);
    if (order != '<' && order != '|' && order != '=' && order != '>')
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy descr '%s' has no byte order", name, descr);
    while (isspace((unsigned char)*f))
        f++;
    if (!strncmp(f, "True", 4))
        return wg_fail(err, errlen, WG_ERR_UNSUPPORTED,
                    "%s: .npy data is in Fortran order; save it in C order", name);
    if (strncmp(f, "False", 5))
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy fortran_order is not True or False", name);
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '(')
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy shape is not a tuple", name);
    s++;
    out->rank = 0;
    for (;;) {
        while (isspace((unsigned char)*s) || *s == ',')
            s++;
        if (*s == ')')
            break;
        if (!isdigit((unsigned char)*s))
            return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy shape has a bad dimension", name);
        if (out->rank == WG_MAX_RANK)
            return wg_fail(err, errlen, WG_ERR_UNSUPPORTED, "%s: .npy rank above %d", name, WG_MAX_RANK);
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || v > INT32_MAX)
            return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy dimension too large", name);
        out->dims[out->rank++] = v;
        s = end;
    }
    return WG_OK;
}

wg_status wg_npy_parse(const uint8_t *buf, size_t len, const char *name, wg_npy *out, char *err,
                       size_t errlen)
{
    wg_status st;
    char *h = NULL;
    memset(out, 0, sizeof *out);
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6))
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: not a .npy file (no \\x93NUMPY magic)", name);
    int major = buf[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: truncated .npy header", name);
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    } else {
        return wg_fail(err, errlen, WG_ERR_UNSUPPORTED, "%s: .npy format version %d", name, major);
    }
    if (hlen > len - hstart)
        return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy header (%zu bytes) runs past the end",
                    name, hlen);
    if (!(h = malloc(hlen + 1)))
        return wg_fail(err, errlen, WG_ERR_NOMEM, "%s: out of memory", name);
    memcpy(h, buf + hstart, hlen);
    h[hlen] = 0;
    if ((st = parse_header(h, name, out, err, errlen)))
        goto fail;
    uint64_t numel = 1;
    for (int i = 0; i < out->rank; i++) {
        numel *= (uint64_t)out->dims[i];
        if (numel > ((uint64_t)1 << 40)) {
            st = wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy shape is absurdly large", name);
            goto fail;
        }
    }
    out->bytes = (size_t)numel * wg_dtype_size(out->dtype);
    size_t have = len - hstart - hlen;
    if (have != out->bytes) {
        st = wg_fail(err, errlen, WG_ERR_FORMAT, "%s: .npy shape needs %zu data bytes, the file has %zu",
                  name, out->bytes, have);
        goto fail;
    }
    if (!(out->data = malloc(out->bytes ? out->bytes : 1))) {
        st = wg_fail(err, errlen, WG_ERR_NOMEM, "%s: out of memory", name);
        goto fail;
    }
    memcpy(out->data, buf + hstart + hlen, out->bytes);
    free(h);
    return WG_OK;
fail:
    free(h);
    wg_npy_free(out);
    return st;
}

wg_status wg_npy_read(const char *path, wg_npy *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return wg_fail(err, errlen, WG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    wg_status st = WG_OK;
    for (;;) {
        if (len == cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            uint8_t *nb = realloc(buf, nc);
            if (!nb) {
                st = wg_fail(err, errlen, WG_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        st = wg_fail(err, errlen, WG_ERR_IO, "%s: read error", path);
        goto done;
    }
    if (len == 0) {
        st = wg_fail(err, errlen, WG_ERR_IO, "%s: the file is empty", path);
        goto done;
    }
    st = wg_npy_parse(buf, len, path, out, err, errlen);
done:
    free(buf);
    fclose(f);
    return st;
}

void wg_npy_free(wg_npy *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

static const char *descr_of(int dtype)
{
    switch (dtype) {
    case WG_DT_FLOAT: return "<f4";
    case WG_DT_FLOAT16: return "<f2";
    case WG_DT_DOUBLE: return "<f8";
    case WG_DT_INT8: return "|i1";
    case WG_DT_UINT8: return "|u1";
    case WG_DT_INT16: return "<i2";
    case WG_DT_UINT16: return "<u2";
    case WG_DT_INT32: return "<i4";
    case WG_DT_UINT32: return "<u4";
    case WG_DT_INT64: return "<i8";
    case WG_DT_UINT64: return "<u8";
    case WG_DT_BOOL: return "|b1";
    default: return NULL;
    }
}

wg_status wg_npy_write(const char *path, int dtype, const int64_t *dims, int rank, const void *data,
                       char *err, size_t errlen)
{
    const char *descr = descr_of(dtype);
    if (!descr)
        return wg_fail(err, errlen, WG_ERR_UNSUPPORTED, "%s: cannot write dtype %s to .npy", path,
                    wg_dtype_name(dtype));
    if (rank < 0 || rank > WG_MAX_RANK)
        return wg_fail(err, errlen, WG_ERR_INVALID, "%s: rank %d", path, rank);
    char h[512];
    int n = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    size_t numel = 1;
    for (int i = 0; i < rank; i++) {
        n += snprintf(h + n, sizeof h - (size_t)n, "%lld,%s", (long long)dims[i],
                      i + 1 < rank ? " " : "");
        numel *= (size_t)dims[i];
    }
    n += snprintf(h + n, sizeof h - (size_t)n, "), }");
    /* Pad with spaces and a newline so the data starts at a multiple of 64 bytes. */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    memset(h + n, ' ', pad);
    h[(size_t)n + pad] = '\n';
    size_t hlen = (size_t)n + pad + 1;
    uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(hlen & 0xff),
                       (uint8_t)(hlen >> 8)};
    size_t bytes = numel * wg_dtype_size(dtype);

    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return wg_fail(err, errlen, WG_ERR_INVALID, "%s: path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return wg_fail(err, errlen, WG_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(h, 1, hlen, f) == hlen &&
              (!bytes || fwrite(data, 1, bytes, f) == bytes);
    ok = (fflush(f) == 0) && ok;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path)) {
        int e = errno;
        remove(tmp);
        return wg_fail(err, errlen, WG_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    return WG_OK;
}
