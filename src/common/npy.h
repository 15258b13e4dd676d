/*
 * npy.h: NumPy .npy files (format versions 1, 2 and 3), little-endian, C order only.
 *
 *     wg_npy a; char err[256];
 *     if (wg_npy_read("x.npy", &a, err, sizeof err)) ...
 *     ... a.dtype (wg_dtype), a.rank, a.dims, a.data (a.bytes bytes) ...
 *     wg_npy_free(&a);
 *
 * dtypes: '<f4' '<f2' '<f8' '|i1' '|u1' '<i2' '<u2' '<i4' '<u4' '<i8' '<u8' '|b1' (also
 * with '=' on this little-endian host). Big-endian data and fortran_order True are
 * refused (WG_ERR_UNSUPPORTED); a malformed header or short data is WG_ERR_FORMAT.
 */
#ifndef WG_NPY_H
#define WG_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

typedef struct wg_npy {
    int dtype;                    /* wg_dtype */
    int rank;
    int64_t dims[WG_MAX_RANK];
    void *data;                   /* malloc'ed, owned: wg_npy_free */
    size_t bytes;
} wg_npy;

/* Parses an in-memory .npy image; the data is copied. name is used in messages. */
wg_status wg_npy_parse(const uint8_t *buf, size_t len, const char *name, wg_npy *out, char *err,
                       size_t errlen);
wg_status wg_npy_read(const char *path, wg_npy *out, char *err, size_t errlen);
void wg_npy_free(wg_npy *a);

/* Writes a version 1 .npy file through a temporary file renamed over path. */
wg_status wg_npy_write(const char *path, int dtype, const int64_t *dims, int rank, const void *data,
                       char *err, size_t errlen);

#endif
