/*
 * pb.h: a bounds-checked reader for the protobuf wire format.
 *
 * ONNX files and TensorProto .pb files are protobuf messages. We decode them in
 * place over the mapped bytes: a wgc_pb cursor walks one message; a length-delimited
 * field is handed out as a pointer and length into the same buffer (zero copy), and a
 * nested message is read by starting a new cursor over that slice.
 *
 *     wg_pb r = wg_pb_init(buf, len);
 *     wg_pb_field f;
 *     while (wg_pb_next(&r, &f)) {
 *         if (f.number == 1 && f.wire == WG_PB_LEN) ... f.data, f.len ...
 *     }
 *     if (r.error) ...   // truncated field, bad wire type, overlong varint
 */
#ifndef WG_PB_H
#define WG_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { WG_PB_VARINT = 0, WG_PB_I64 = 1, WG_PB_LEN = 2, WG_PB_I32 = 5 };

typedef struct wg_pb {
    const uint8_t *p, *end;
    const uint8_t *start;
    const char *error; /* static description of the first decoding error, or NULL */
    size_t error_offset;
} wg_pb;

typedef struct wg_pb_field {
    uint32_t number;
    int wire;
    uint64_t varint;      /* WG_PB_VARINT, WG_PB_I64, WG_PB_I32 (raw bits) */
    const uint8_t *data;  /* WG_PB_LEN */
    size_t len;
} wg_pb_field;

wg_pb wg_pb_init(const uint8_t *buf, size_t len);
/* Reads the next field; false at the end of the message or on error (then r->error is set). */
bool wg_pb_next(wg_pb *r, wg_pb_field *f);
/* Decodes one varint at *p (< end). Returns false when truncated or longer than 10 bytes. */
bool wg_pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *out);

/*
 * Packed or unpacked repeated scalars: a repeated field may arrive as several unpacked
 * fields or as one or more packed LEN blobs. Each call appends the values of one field
 * occurrence to a growable array. Return false on malformed data or allocation failure.
 */
typedef struct wg_pb_i64s { int64_t *v; size_t n, cap; } wg_pb_i64s;
typedef struct wg_pb_f32s { float *v; size_t n, cap; } wg_pb_f32s;
typedef struct wg_pb_f64s { double *v; size_t n, cap; } wg_pb_f64s;
bool wg_pb_append_varints(wg_pb_i64s *a, const wg_pb_field *f);
bool wg_pb_append_f32s(wg_pb_f32s *a, const wg_pb_field *f);
bool wg_pb_append_f64s(wg_pb_f64s *a, const wg_pb_field *f);

/* Writer: a growable byte buffer with the field encoders wasmgraph needs. */
typedef struct wg_pbw { uint8_t *buf; size_t len, cap; bool failed; } wg_pbw;
void wg_pbw_varint_field(wg_pbw *w, uint32_t number, uint64_t v);
void wg_pbw_bytes_field(wg_pbw *w, uint32_t number, const void *data, size_t len);
void wg_pbw_raw(wg_pbw *w, const void *data, size_t len);
void wg_pbw_free(wg_pbw *w);

#endif
