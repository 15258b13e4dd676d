/* test_npy.c: .npy reading and writing (src/common/npy.c): round trips over dtypes and
 * ranks, header versions 1 and 2, and the refusals (Fortran order, big-endian, short data,
 * bad magic). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "common/dtype.h"
#include "common/npy.h"

static char path[128];

/* Builds a .npy image by hand: magic, version, header padded to 64, data. */
static size_t make_npy(uint8_t *buf, int version, const char *header, const void *data, size_t n)
{
    size_t pre = version == 1 ? 10 : 12, hl = strlen(header);
    size_t pad = (64 - (pre + hl + 1) % 64) % 64, total_h = hl + pad + 1;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (uint8_t)version;
    buf[7] = 0;
    if (version == 1) {
        buf[8] = (uint8_t)total_h;
        buf[9] = (uint8_t)(total_h >> 8);
    } else {
        buf[8] = (uint8_t)total_h;
        buf[9] = (uint8_t)(total_h >> 8);
        buf[10] = buf[11] = 0;
    }
    memcpy(buf + pre, header, hl);
    memset(buf + pre + hl, ' ', pad);
    buf[pre + hl + pad] = '\n';
    memcpy(buf + pre + total_h, data, n);
    return pre + total_h + n;
}

TEST(round_trip_dtypes_and_ranks)
{
    static const int dts[] = {WG_DT_FLOAT, WG_DT_FLOAT16, WG_DT_DOUBLE, WG_DT_INT8, WG_DT_UINT8,
                              WG_DT_INT32, WG_DT_INT64, WG_DT_BOOL, WG_DT_UINT64};
    int64_t dims[4] = {2, 3, 1, 5};
    uint8_t data[2 * 3 * 5 * 8];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        for (int rank = 0; rank <= 4; rank++) {
            char err[256];
            size_t numel = 1;
            for (int r = 0; r < rank; r++)
                numel *= (size_t)dims[r];
            wg_status st = wg_npy_write(path, dts[d], dims, rank, data, err, sizeof err);
            CHECK(st == WG_OK, "write %s rank %d: %s", wg_dtype_name(dts[d]), rank, err);
            wg_npy a;
            st = wg_npy_read(path, &a, err, sizeof err);
            CHECK(st == WG_OK, "read %s rank %d: %s", wg_dtype_name(dts[d]), rank, err);
            if (st)
                continue;
            CHECK(a.dtype == dts[d] && a.rank == rank, "dtype %d rank %d", a.dtype, a.rank);
            for (int r = 0; r < rank && r < a.rank; r++)
                CHECK(a.dims[r] == dims[r], "dim %d = %lld", r, (long long)a.dims[r]);
            CHECK(a.bytes == numel * wg_dtype_size(dts[d]), "bytes %zu", a.bytes);
            CHECK(!memcmp(a.data, data, a.bytes), "data differs for %s", wg_dtype_name(dts[d]));
            wg_npy_free(&a);
        }
    }
    /* The data of a written file starts at a multiple of 64 bytes. */
    FILE *f = fopen(path, "rb");
    uint8_t head[10] = {0};
    CHECK(f && fread(head, 1, 10, f) == 10, "reopen");
    if (f)
        fclose(f);
    CHECK((10 + (head[8] | head[9] << 8)) % 64 == 0, "header length %d", head[8] | head[9] << 8);
    remove(path);
}

TEST(version_2_and_numpy_spellings)
{
    uint8_t buf[512];
    float v[3] = {1, 2, 3};
    size_t n = make_npy(buf, 2, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,)}", v, 12);
    wg_npy a;
    char err[256];
    wg_status st = wg_npy_parse(buf, n, "v2", &a, err, sizeof err);
    CHECK(st == WG_OK, "%s", err);
    if (!st) {
        CHECK(a.rank == 1 && a.dims[0] == 3 && ((float *)a.data)[2] == 3, "values");
        wg_npy_free(&a);
    }
    n = make_npy(buf, 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }", "\x07", 1);
    st = wg_npy_parse(buf, n, "scalar", &a, err, sizeof err);
    CHECK(st == WG_OK && a.rank == 0 && a.bytes == 1 && ((uint8_t *)a.data)[0] == 7, "scalar: %s", err);
    if (!st)
        wg_npy_free(&a);
}

TEST(refusals)
{
    uint8_t buf[512];
    float v[4] = {0};
    wg_npy a;
    char err[256];
    size_t n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", v, 16);
    CHECK(wg_npy_parse(buf, n, "f.npy", &a, err, sizeof err) == WG_ERR_UNSUPPORTED &&
              strstr(err, "Fortran order"), "%s", err);
    n = make_npy(buf, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", v, 16);
    CHECK(wg_npy_parse(buf, n, "be.npy", &a, err, sizeof err) == WG_ERR_UNSUPPORTED &&
              strstr(err, "big-endian"), "%s", err);
    n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", v, 16);
    CHECK(wg_npy_parse(buf, n, "short.npy", &a, err, sizeof err) == WG_ERR_FORMAT &&
              strstr(err, "needs 20 data bytes, the file has 16"), "%s", err);
    n = make_npy(buf, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", v, 16);
    CHECK(wg_npy_parse(buf, n, "c.npy", &a, err, sizeof err) == WG_ERR_UNSUPPORTED &&
              strstr(err, "'<c8'"), "%s", err);
    CHECK(wg_npy_parse((const uint8_t *)"PK\3\4 not npy", 13, "z.npy", &a, err, sizeof err) ==
              WG_ERR_FORMAT && strstr(err, "z.npy: not a .npy"), "%s", err);
    CHECK(wg_npy_read("/nonexistent/x.npy", &a, err, sizeof err) == WG_ERR_IO &&
              strstr(err, "/nonexistent/x.npy"), "%s", err);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/wg_test_npy_%ld.npy", (long)getpid());
    RUN(round_trip_dtypes_and_ranks);
    RUN(version_2_and_numpy_spellings);
    RUN(refusals);
    return test_summary("npy");
}
