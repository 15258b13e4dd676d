/* pb.c: protobuf wire-format reader and writer; see pb.h. */
#include "pb.h"
#include "leb128.h"

#include <stdlib.h>
#include <string.h>

wg_pb wg_pb_init(const uint8_t *buf, size_t len)
{
    wg_pb r = {buf, buf + len, buf, NULL, 0};
    return r;
}

bool wg_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    return wg_leb128_read(p, end, 10, out); /* a varint is an unsigned LEB128 */
}

static bool fail(wg_pb *r, const char *why)
{
    if (!r->error) {
        r->error = why;
        r->error_offset = (size_t)(r->p - r->start);
    }
    r->p = r->end;
    return false;
}

bool wg_pb_next(wg_pb *r, wg_pb_field *f)
{
    if (r->error || r->p >= r->end)
        return false;
    uint64_t key;
    if (!wg_pb_varint(&r->p, r->end, &key))
        return fail(r, "truncated or overlong field key");
    f->number = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    f->data = NULL;
    f->len = 0;
    f->varint = 0;
    if (f->number == 0 || (key >> 3) > 0x1fffffff)
        return fail(r, "invalid field number");
    switch (f->wire) {
    case WG_PB_VARINT:
        if (!wg_pb_varint(&r->p, r->end, &f->varint))
            return fail(r, "truncated or overlong varint");
        return true;
    case WG_PB_I64:
        if (r->end - r->p < 8)
            return fail(r, "truncated 64-bit field");
        memcpy(&f->varint, r->p, 8);
        r->p += 8;
        return true;
    case WG_PB_I32: {
        uint32_t v;
        if (r->end - r->p < 4)
            return fail(r, "truncated 32-bit field");
        memcpy(&v, r->p, 4);
        f->varint = v;
        r->p += 4;
        return true;
    }
    case WG_PB_LEN: {
        uint64_t n;
        if (!wg_pb_varint(&r->p, r->end, &n))
            return fail(r, "truncated or overlong length");
        if (n > (uint64_t)(r->end - r->p))
            return fail(r, "length-delimited field runs past the end of its message");
        f->data = r->p;
        f->len = (size_t)n;
        r->p += n;
        return true;
    }
    default:
        return fail(r, "unknown wire type (groups are not used by ONNX)");
    }
}

static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem)
            return false;
        nc *= 2;
    }
    void *nv = realloc(*v, nc * elem);
    if (!nv)
        return false;
    *v = nv;
    *cap = nc;
    return true;
}

bool wg_pb_append_varints(wg_pb_i64s *a, const wg_pb_field *f)
{
    if (f->wire == WG_PB_VARINT) {
        if (!grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v))
            return false;
        a->v[a->n++] = (int64_t)f->varint;
        return true;
    }
    if (f->wire != WG_PB_LEN)
        return false;
    const uint8_t *p = f->data, *end = f->data + f->len;
    while (p < end) {
        uint64_t v;
        if (!wg_pb_varint(&p, end, &v))
            return false;
        if (!grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v))
            return false;
        a->v[a->n++] = (int64_t)v;
    }
    return true;
}

bool wg_pb_append_f32s(wg_pb_f32s *a, const wg_pb_field *f)
{
    if (f->wire == WG_PB_I32) {
        if (!grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v))
            return false;
        uint32_t bits = (uint32_t)f->varint;
        memcpy(&a->v[a->n++], &bits, 4);
        return true;
    }
    if (f->wire != WG_PB_LEN || f->len % 4)
        return false;
    if (!f->len)
        return true;
    size_t k = f->len / 4;
    if (!grow((void **)&a->v, &a->cap, a->n + k, sizeof *a->v))
        return false;
    memcpy(a->v + a->n, f->data, f->len);
    a->n += k;
    return true;
}

bool wg_pb_append_f64s(wg_pb_f64s *a, const wg_pb_field *f)
{
    if (f->wire == WG_PB_I64) {
        if (!grow((void **)&a->v, &a->cap, a->n + 1, sizeof *a->v))
            return false;
        memcpy(&a->v[a->n++], &f->varint, 8);
        return true;
    }
    if (f->wire != WG_PB_LEN || f->len % 8)
        return false;
    if (!f->len)
        return true;
    size_t k = f->len / 8;
    if (!grow((void **)&a->v, &a->cap, a->n + k, sizeof *a->v))
        return false;
    memcpy(a->v + a->n, f->data, f->len);
    a->n += k;
    return true;
}

void wg_pbw_raw(wg_pbw *w, const void *data, size_t len)
{
    if (w->failed)
        return;
    if (!grow((void **)&w->buf, &w->cap, w->len + len, 1)) {
        w->failed = true;
        return;
    }
    if (len)
        memcpy(w->buf + w->len, data, len);
    w->len += len;
}

static void put_varint(wg_pbw *w, uint64_t v)
{
    uint8_t tmp[10];
    wg_pbw_raw(w, tmp, (size_t)(wg_leb128_put(tmp, v) - tmp));
}

void wg_pbw_varint_field(wg_pbw *w, uint32_t number, uint64_t v)
{
    put_varint(w, (uint64_t)number << 3 | WG_PB_VARINT);
    put_varint(w, v);
}

void wg_pbw_bytes_field(wg_pbw *w, uint32_t number, const void *data, size_t len)
{
    put_varint(w, (uint64_t)number << 3 | WG_PB_LEN);
    put_varint(w, len);
    wg_pbw_raw(w, data, len);
}

void wg_pbw_free(wg_pbw *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}
