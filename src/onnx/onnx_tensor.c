/*
 * onnx_tensor.c: decodes one TensorProto (initializer, attribute value, .pb file) into a
 * dense little-endian buffer, checking the shape and that the data size matches it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_proto.h"
#include "onnx_reader.h"

/* TensorProto field numbers. */
enum {
    TP_DIMS = 1, TP_DATA_TYPE = 2, TP_SEGMENT = 3, TP_FLOAT_DATA = 4, TP_INT32_DATA = 5,
    TP_STRING_DATA = 6, TP_INT64_DATA = 7, TP_NAME = 8, TP_RAW_DATA = 9, TP_DOUBLE_DATA = 10,
    TP_UINT64_DATA = 11, TP_EXTERNAL_DATA = 13, TP_DATA_LOCATION = 14,
};

/* Everything a TensorProto said, before it is checked and turned into dense data. */
typedef struct fields {
    wg_pb_i64s dims, i32, i64, u64;
    wg_pb_f32s f32;
    wg_pb_f64s f64;
    int64_t dtype;
    bool has_raw, has_strings, has_segment;
    const uint8_t *raw;
    size_t raw_len;
    int64_t location_kind; /* data_location: 0 default, 1 external */
    char *ext_location;
    char *ext_offset, *ext_length;
    bool has_ext;
} fields;

static void fields_free(fields *f)
{
    free(f->dims.v);
    free(f->i32.v);
    free(f->i64.v);
    free(f->u64.v);
    free(f->f32.v);
    free(f->f64.v);
    free(f->ext_location);
    free(f->ext_offset);
    free(f->ext_length);
}

/* Parses a decimal string of the external-data table (offset, length). */
static bool parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s[0])
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        uint64_t digit = (uint64_t)(*s - '0');
        if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && digit > UINT64_MAX % 10))
            return false;
        v = v * 10 + digit;
    }
    *out = v;
    return true;
}

/* One StringStringEntryProto of external_data. */
static wg_status read_ext_entry(const wgc_onnx_ctx *c, const uint8_t *buf, size_t len, fields *fl,
                                const char *what)
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    const uint8_t *key = NULL, *val = NULL;
    size_t key_len = 0, val_len = 0;
    while (wg_pb_next(&r, &f)) {
        if (f.number != 1 && f.number != 2)
            continue;
        if (f.wire != WG_PB_LEN)
            return wgc_onnx_wire_fail(c, &r, &f, what);
        if (f.number == 1) {
            key = f.data;
            key_len = f.len;
        } else {
            val = f.data;
            val_len = f.len;
        }
    }
    if (r.error)
        return wgc_onnx_pb_fail(c, &r, what);
    if (!key)
        return WG_OK;
    char **slot = NULL;
    if (key_len == 8 && !memcmp(key, "location", 8))
        slot = &fl->ext_location;
    else if (key_len == 6 && !memcmp(key, "offset", 6))
        slot = &fl->ext_offset;
    else if (key_len == 6 && !memcmp(key, "length", 6))
        slot = &fl->ext_length;
    if (!slot)
        return WG_OK; /* "checksum" and anything newer: not needed */
    free(*slot);
    *slot = wgc_onnx_dupn(val ? val : (const uint8_t *)"", val_len);
    if (!*slot)
        return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory");
    if (memchr(*slot, 0, val_len))
        return wgc_onnx_fail(c, WG_ERR_INVALID, "external data entry contains a NUL byte (in %s)",
                             what);
    return WG_OK;
}

/* An empty packed field adds nothing (and pb.c's appenders would memcpy from NULL). */
static bool empty_packed(const wg_pb_field *f)
{
    return f->wire == WG_PB_LEN && f->len == 0;
}

/* Pass 1: collect the fields. */
static wg_status read_fields(const wgc_onnx_ctx *c, const uint8_t *buf, size_t len,
                             const char *what, fields *fl, char **name)
{
    wg_pb r = wg_pb_init(buf, len);
    wg_pb_field f;
    wg_status st;
    while (wg_pb_next(&r, &f)) {
        bool ok = true;
        switch (f.number) {
        case TP_DIMS:
        case TP_INT32_DATA:
        case TP_INT64_DATA:
        case TP_UINT64_DATA: {
            wg_pb_i64s *a = f.number == TP_DIMS         ? &fl->dims
                            : f.number == TP_INT32_DATA ? &fl->i32
                            : f.number == TP_INT64_DATA ? &fl->i64
                                                        : &fl->u64;
            if (f.wire != WG_PB_VARINT && f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(c, &r, &f, what);
            ok = empty_packed(&f) || wg_pb_append_varints(a, &f);
            break;
        }
        case TP_DATA_TYPE:
        case TP_DATA_LOCATION:
            if (f.wire != WG_PB_VARINT)
                return wgc_onnx_wire_fail(c, &r, &f, what);
            if (f.number == TP_DATA_TYPE)
                fl->dtype = (int64_t)f.varint;
            else
                fl->location_kind = (int64_t)f.varint;
            break;
        case TP_FLOAT_DATA:
            if (f.wire != WG_PB_I32 && f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(c, &r, &f, what);
            ok = empty_packed(&f) || wg_pb_append_f32s(&fl->f32, &f);
            break;
        case TP_DOUBLE_DATA:
            if (f.wire != WG_PB_I64 && f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(c, &r, &f, what);
            ok = empty_packed(&f) || wg_pb_append_f64s(&fl->f64, &f);
            break;
        case TP_SEGMENT:
            fl->has_segment = true;
            break;
        case TP_STRING_DATA:
            fl->has_strings = true;
            break;
        case TP_NAME:
            if (f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(c, &r, &f, what);
            free(*name);
            *name = wgc_onnx_dupn(f.data, f.len);
            if (!*name)
                return wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory");
            break;
        case TP_RAW_DATA:
            if (f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(c, &r, &f, what);
            fl->has_raw = true;
            fl->raw = f.data;
            fl->raw_len = f.len;
            break;
        case TP_EXTERNAL_DATA:
            if (f.wire != WG_PB_LEN)
                return wgc_onnx_wire_fail(c, &r, &f, what);
            fl->has_ext = true;
            if ((st = read_ext_entry(c, f.data, f.len, fl, what)))
                return st;
            break;
        default:
            break; /* doc_string, metadata_props, ... */
        }
        if (!ok)
            return wgc_onnx_fail(c, WG_ERR_FORMAT,
                                 "not valid ONNX protobuf: malformed repeated field %u ending at "
                                 "byte %zu, or out of memory (in %s)",
                                 f.number, (size_t)(r.p - c->base), what);
    }
    if (r.error)
        return wgc_onnx_pb_fail(c, &r, what);
    return WG_OK;
}

/* Converts the typed repeated field that carries this dtype into dense data, in a buffer
 * allocated only once the value count matches the shape (so a bogus shape cannot make
 * us allocate more than the file holds). */
static wg_status from_typed(const wgc_onnx_ctx *c, const fields *fl, const char *what,
                            const char *tname, int64_t numel, size_t esize, void **out)
{
    size_t have = 0;
    const char *field = "";
    int dt = (int)fl->dtype;
    switch (dt) {
    case WG_DT_FLOAT: have = fl->f32.n; field = "float_data"; break;
    case WG_DT_DOUBLE: have = fl->f64.n; field = "double_data"; break;
    case WG_DT_INT64: have = fl->i64.n; field = "int64_data"; break;
    case WG_DT_UINT32:
    case WG_DT_UINT64: have = fl->u64.n; field = "uint64_data"; break;
    default: have = fl->i32.n; field = "int32_data"; break; /* the 8/16/32-bit types */
    }
    /* data stored in a field that does not belong to this dtype is a malformed tensor */
    size_t stray = fl->f32.n + fl->f64.n + fl->i64.n + fl->u64.n + fl->i32.n - have;
    if (stray)
        return wgc_onnx_fail(c, WG_ERR_FORMAT,
                             "tensor '%s' (%s): %zu values stored in a field that does not match "
                             "its dtype (expected %s)",
                             tname, wg_dtype_name(dt), stray, field);
    if (have != (uint64_t)numel)
        return wgc_onnx_fail(c, WG_ERR_FORMAT,
                             "tensor '%s' (%s): data size does not match the shape: expected %llu "
                             "bytes (%lld elements), got %llu bytes (%zu values in %s)",
                             tname, wg_dtype_name(dt), (unsigned long long)numel * esize,
                             (long long)numel, (unsigned long long)have * esize, have, field);
    void *dst = wgc_onnx_alloc_aligned((size_t)numel * esize);
    if (!dst)
        return wgc_onnx_fail(c, WG_ERR_NOMEM, "%s '%s': out of memory for %llu bytes", what, tname,
                             (unsigned long long)numel * esize);
    *out = dst;
    for (size_t i = 0; i < have; i++) {
        switch (dt) {
        case WG_DT_FLOAT: ((float *)dst)[i] = fl->f32.v[i]; break;
        case WG_DT_DOUBLE: ((double *)dst)[i] = fl->f64.v[i]; break;
        case WG_DT_INT64: ((int64_t *)dst)[i] = fl->i64.v[i]; break;
        case WG_DT_UINT64: ((uint64_t *)dst)[i] = (uint64_t)fl->u64.v[i]; break;
        case WG_DT_UINT32: ((uint32_t *)dst)[i] = (uint32_t)fl->u64.v[i]; break;
        case WG_DT_INT32: ((int32_t *)dst)[i] = (int32_t)fl->i32.v[i]; break;
        case WG_DT_INT16: ((int16_t *)dst)[i] = (int16_t)fl->i32.v[i]; break;
        case WG_DT_UINT16:
        case WG_DT_BFLOAT16:
        case WG_DT_FLOAT16: /* fp16 and bf16 travel as their 16 bits in int32_data */
            ((uint16_t *)dst)[i] = (uint16_t)fl->i32.v[i];
            break;
        case WG_DT_INT8: ((int8_t *)dst)[i] = (int8_t)fl->i32.v[i]; break;
        case WG_DT_UINT8: ((uint8_t *)dst)[i] = (uint8_t)fl->i32.v[i]; break;
        case WG_DT_BOOL: ((uint8_t *)dst)[i] = fl->i32.v[i] != 0; break;
        case WG_DT_FLOAT8E4M3FN: case WG_DT_FLOAT8E4M3FNUZ: case WG_DT_FLOAT8E5M2:
        case WG_DT_FLOAT8E5M2FNUZ: case WG_DT_FLOAT8E8M0:
            ((uint8_t *)dst)[i] = (uint8_t)fl->i32.v[i];
            break;
        default: break;
        }
    }
    return WG_OK;
}

/* The packed 4- and 2-bit types: `bits` per element, lowest bits first, in ceil(numel *
 * bits / 8) bytes; unpacked to one byte per element (sign-extended for int4/int2). */
static uint64_t packed_bytes(uint64_t numel, int bits)
{
    return (numel * (uint64_t)bits + 7) / 8;
}

static void unpack(int dt, int bits, const uint8_t *src, uint8_t *dst, uint64_t numel)
{
    const bool sgn = dt == WG_DT_INT4 || dt == WG_DT_INT2;
    const unsigned per = 8 / (unsigned)bits, mask = (1u << bits) - 1;
    for (uint64_t i = 0; i < numel; i++) {
        unsigned v = (src[i / per] >> ((i % per) * (unsigned)bits)) & mask;
        if (sgn && (v >> (bits - 1)))
            v |= 0xffu << bits;
        dst[i] = (uint8_t)v;
    }
}

static bool dtype_supported(int64_t dt)
{
    return dt > 0 && dt <= WG_DT_INT2 && dt != WG_DT_STRING && wg_dtype_size((int)dt) > 0;
}

wg_status wgc_onnx_tensor_decode(const wgc_onnx_ctx *c, const uint8_t *buf, size_t len,
                                 bool borrow, const char *what, wgc_onnx_tensor *out)
{
    fields fl;
    memset(&fl, 0, sizeof fl);
    memset(out, 0, sizeof *out);
    char *name = NULL;
    void *data = NULL;
    bool owns = true;
    wg_status st = read_fields(c, buf, len, what, &fl, &name);
    if (st)
        goto fail;
    if (!name && !(name = wgc_onnx_dupn((const uint8_t *)"", 0))) {
        st = wgc_onnx_fail(c, WG_ERR_NOMEM, "out of memory");
        goto fail;
    }
    const char *tname = name[0] ? name : "(unnamed)";
    if (fl.has_segment) {
        st = wgc_onnx_fail(c, WG_ERR_UNSUPPORTED,
                           "%s '%s' is split into segments, which is not supported", what, tname);
        goto fail;
    }
    if (fl.dtype == WG_DT_STRING || fl.has_strings) {
        st = wgc_onnx_fail(c, WG_ERR_UNSUPPORTED, "%s '%s' holds strings, which are not supported",
                           what, tname);
        goto fail;
    }
    if (fl.dtype == WG_DT_UNDEFINED) {
        st = wgc_onnx_fail(c, WG_ERR_FORMAT, "%s '%s' has no data_type", what, tname);
        goto fail;
    }
    if (!dtype_supported(fl.dtype)) {
        st = wgc_onnx_fail(c, WG_ERR_UNSUPPORTED,
                           "%s '%s' has data_type %lld (%s), which is not supported", what, tname,
                           (long long)fl.dtype, wg_dtype_name((int)fl.dtype));
        goto fail;
    }
    if (fl.dims.n > WG_MAX_RANK) {
        st = wgc_onnx_fail(c, WG_ERR_UNSUPPORTED, "%s '%s' has rank %zu; at most %d is supported",
                           what, tname, fl.dims.n, WG_MAX_RANK);
        goto fail;
    }
    out->shape.rank = (int)fl.dims.n;
    uint64_t numel = 1;
    for (size_t i = 0; i < fl.dims.n; i++) {
        int64_t d = fl.dims.v[i];
        if (d < 0) {
            st = wgc_onnx_fail(c, WG_ERR_FORMAT, "%s '%s': dim %zu is negative (%lld)", what, tname,
                               i, (long long)d);
            goto fail;
        }
        out->shape.dims[i] = d;
        if (__builtin_mul_overflow(numel, (uint64_t)d, &numel) || numel > INT64_MAX) {
            st = wgc_onnx_fail(c, WG_ERR_FORMAT, "%s '%s': element count overflows", what, tname);
            goto fail;
        }
    }
    size_t esize = wg_dtype_size((int)fl.dtype);
    const int pbits = wg_dtype_packed_bits((int)fl.dtype);
    uint64_t bytes;
    if (__builtin_mul_overflow(numel, (uint64_t)esize, &bytes) || bytes > SIZE_MAX - 16) {
        st = wgc_onnx_fail(c, WG_ERR_FORMAT, "%s '%s': byte size overflows (%llu elements)", what,
                           tname, (unsigned long long)numel);
        goto fail;
    }

    if (fl.location_kind == 1) { /* EXTERNAL */
        if (!fl.ext_location) {
            st = wgc_onnx_fail(c, WG_ERR_FORMAT,
                               "%s '%s' says its data is external but gives no location", what,
                               tname);
            goto fail;
        }
        uint64_t off = 0, length = 0;
        const char *bad_key = NULL, *bad_val = NULL;
        if (fl.ext_offset && !parse_u64(fl.ext_offset, &off))
            bad_key = "offset", bad_val = fl.ext_offset;
        else if (fl.ext_length && !parse_u64(fl.ext_length, &length))
            bad_key = "length", bad_val = fl.ext_length;
        if (bad_key) {
            st = wgc_onnx_fail(c, WG_ERR_INVALID,
                               "%s '%s': external data %s '%s' is not a byte count (a decimal "
                               "number below 2^64)",
                               what, tname, bad_key, bad_val);
            goto fail;
        }
        size_t got = 0;
        st = wgc_onnx_read_external(c, tname, fl.ext_location, off, fl.ext_length != NULL, length,
                                    &data, &got);
        if (st)
            goto fail;
        uint64_t want = pbits ? packed_bytes(numel, pbits) : bytes;
        if (got != want) {
            st = wgc_onnx_fail(c, WG_ERR_FORMAT,
                               "%s '%s' (%s): external data size does not match the shape: "
                               "expected %llu bytes, got %zu",
                               what, tname, wg_dtype_name((int)fl.dtype),
                               (unsigned long long)want, got);
            goto fail;
        }
        if (pbits) {
            uint8_t *wide = wgc_onnx_alloc_aligned((size_t)bytes);
            if (!wide) {
                st = wgc_onnx_fail(c, WG_ERR_NOMEM, "%s '%s': out of memory for %llu bytes", what,
                                   tname, (unsigned long long)bytes);
                goto fail;
            }
            unpack((int)fl.dtype, pbits, data, wide, numel);
            free(data);
            data = wide;
        }
    } else if (fl.location_kind != 0) {
        st = wgc_onnx_fail(c, WG_ERR_FORMAT, "%s '%s' has unknown data_location %lld", what, tname,
                           (long long)fl.location_kind);
        goto fail;
    } else if (fl.has_raw && pbits) {
        if (fl.raw_len != packed_bytes(numel, pbits)) {
            st = wgc_onnx_fail(c, WG_ERR_FORMAT,
                               "%s '%s' (%s): data size does not match the shape: expected %llu "
                               "bytes (%d bits per element), got %zu bytes of raw_data",
                               what, tname, wg_dtype_name((int)fl.dtype),
                               (unsigned long long)packed_bytes(numel, pbits), pbits, fl.raw_len);
            goto fail;
        }
        if (!(data = wgc_onnx_alloc_aligned((size_t)bytes ? (size_t)bytes : 1))) {
            st = wgc_onnx_fail(c, WG_ERR_NOMEM, "%s '%s': out of memory for %llu bytes", what,
                               tname, (unsigned long long)bytes);
            goto fail;
        }
        unpack((int)fl.dtype, pbits, fl.raw, data, numel);
    } else if (pbits) { /* int32_data: each value holds 8 / bits elements, like one raw byte */
        uint64_t nb = packed_bytes(numel, pbits);
        if (fl.i32.n != nb || fl.f32.n + fl.f64.n + fl.i64.n + fl.u64.n) {
            st = wgc_onnx_fail(c, WG_ERR_FORMAT,
                               "%s '%s' (%s): data size does not match the shape: expected %llu "
                               "int32_data values (%d bits per element), got %zu",
                               what, tname, wg_dtype_name((int)fl.dtype), (unsigned long long)nb,
                               pbits, fl.i32.n);
            goto fail;
        }
        uint8_t *raw = malloc(nb ? (size_t)nb : 1);
        if (!raw || !(data = wgc_onnx_alloc_aligned((size_t)bytes ? (size_t)bytes : 1))) {
            free(raw);
            st = wgc_onnx_fail(c, WG_ERR_NOMEM, "%s '%s': out of memory for %llu bytes", what,
                               tname, (unsigned long long)bytes);
            goto fail;
        }
        for (uint64_t k = 0; k < nb; k++)
            raw[k] = (uint8_t)fl.i32.v[k];
        unpack((int)fl.dtype, pbits, raw, data, numel);
        free(raw);
    } else if (fl.has_raw) {
        if (fl.raw_len != bytes) {
            st = wgc_onnx_fail(c, WG_ERR_FORMAT,
                               "%s '%s' (%s): data size does not match the shape: expected %llu "
                               "bytes, got %zu bytes of raw_data",
                               what, tname, wg_dtype_name((int)fl.dtype),
                               (unsigned long long)bytes, fl.raw_len);
            goto fail;
        }
        if (borrow && bytes > 0 && ((uintptr_t)fl.raw & 15) == 0) {
            data = (void *)(uintptr_t)fl.raw; /* read-only view of the mapped file */
            owns = false;
        } else {
            if (!(data = wgc_onnx_alloc_aligned((size_t)bytes))) {
                st = wgc_onnx_fail(c, WG_ERR_NOMEM, "%s '%s': out of memory for %llu bytes", what,
                                   tname, (unsigned long long)bytes);
                goto fail;
            }
            if (bytes)
                memcpy(data, fl.raw, (size_t)bytes);
        }
    } else if ((st = from_typed(c, &fl, what, tname, (int64_t)numel, esize, &data))) {
        goto fail;
    }
    out->name = name;
    out->dtype = (int)fl.dtype;
    out->data = data;
    out->owns_data = owns;
    out->bytes = (size_t)bytes;
    fields_free(&fl);
    return WG_OK;
fail:
    if (owns)
        free(data);
    free(name);
    fields_free(&fl);
    memset(out, 0, sizeof *out);
    return st;
}

void wgc_onnx_tensor_release(wgc_onnx_tensor *t)
{
    if (t->owns_data)
        free(t->data);
    free(t->name);
    memset(t, 0, sizeof *t);
}

wg_status wgc_onnx_read_value(const uint8_t *buf, size_t len, wgc_value *out, char **name,
                              char *err, size_t errlen)
{
    wgc_onnx_ctx c = {"<TensorProto>", NULL, buf, err, errlen};
    wgc_onnx_tensor t;
    memset(out, 0, sizeof *out);
    if (name)
        *name = NULL;
    wg_status st = wgc_onnx_tensor_decode(&c, buf, len, false, "tensor", &t);
    if (st)
        return st;
    out->dtype = t.dtype;
    out->shape = t.shape;
    out->data = t.data;
    if (name)
        *name = t.name;
    else
        free(t.name);
    return WG_OK;
}
