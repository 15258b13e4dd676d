/*
 * test_tensor_proto.c: `.pb` tensor files (src/onnx/tensor_file.c): write/read round
 * trips for several dtypes and ranks, atomic writes, damaged files, and the real ONNX
 * test data in /work/shared (MNIST input, fp16 and fp32 SqueezeNet inputs and outputs).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "common/pb.h"
#include "onnx/tensor_file.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char p[2][512];
    static int k;
    k ^= 1;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

TEST(round_trip_float_int64_fp16_scalar_empty)
{
    char err[512];
    float f[6] = {0.5f, -1, 2, 3.75f, -1e30f, 1e-30f};
    int64_t df[3] = {1, 2, 3};
    int64_t i64[2] = {-7, 1LL << 50};
    int64_t di[1] = {2};
    uint16_t h[4] = {0x3c00, 0xc000, 0x7bff, 0x0001};
    int64_t dh[2] = {2, 2};
    uint8_t b[1] = {1};
    int64_t de[2] = {3, 0};
    struct {
        const char *file, *name;
        int dtype;
        const int64_t *dims;
        int rank;
        const void *data;
        size_t bytes;
    } cases[] = {
        {"f.pb", "input_f", WG_DT_FLOAT, df, 3, f, sizeof f},
        {"i.pb", "ints", WG_DT_INT64, di, 1, i64, sizeof i64},
        {"h.pb", "half", WG_DT_FLOAT16, dh, 2, h, sizeof h},
        {"s.pb", NULL, WG_DT_BOOL, NULL, 0, b, 1},
        {"e.pb", "empty", WG_DT_FLOAT, de, 2, NULL, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *p = tmp_path(cases[c].file);
        wg_status st = wg_tensor_file_write_pb(p, cases[c].name, cases[c].dtype, cases[c].dims,
                                               cases[c].rank, cases[c].data, err, sizeof err);
        CHECK(st == WG_OK, "%s: write %d %s", cases[c].file, st, err);
        wgc_value v;
        char *name = NULL;
        st = wg_tensor_file_read_pb(p, &v, &name, err, sizeof err);
        CHECK(st == WG_OK, "%s: read %d %s", cases[c].file, st, err);
        if (st)
            continue;
        CHECK(v.dtype == cases[c].dtype, "%s: dtype %d", cases[c].file, v.dtype);
        CHECK(v.shape.rank == cases[c].rank, "%s: rank %d", cases[c].file, v.shape.rank);
        for (int i = 0; i < v.shape.rank; i++)
            CHECK(v.shape.dims[i] == cases[c].dims[i], "%s: dim %d", cases[c].file, i);
        CHECK(!strcmp(name, cases[c].name ? cases[c].name : ""), "%s: name '%s'", cases[c].file,
              name);
        CHECK(v.data != NULL, "%s: data NULL", cases[c].file);
        if (cases[c].bytes)
            CHECK(!memcmp(v.data, cases[c].data, cases[c].bytes), "%s: data differs",
                  cases[c].file);
        free(v.data);
        free(name);
    }
    /* overwrite in place: still one file per name, no temp files left behind */
    int before = count_files(tmpdir);
    wg_status st = wg_tensor_file_write_pb(tmp_path("f.pb"), "again", WG_DT_FLOAT, df, 3, f, err,
                                           sizeof err);
    CHECK(st == WG_OK && count_files(tmpdir) == before, "overwrite: %d files %d -> %d", st,
          before, count_files(tmpdir));
}

TEST(writer_refuses_bad_arguments_and_leaves_nothing)
{
    char err[512];
    float f[2] = {1, 2};
    int64_t neg[1] = {-2};
    int64_t d[1] = {2};
    CHECK(wg_tensor_file_write_pb(tmp_path("bad.pb"), "x", WG_DT_STRING, d, 1, f, err,
                                  sizeof err) == WG_ERR_INVALID,
          "string dtype accepted");
    CHECK(wg_tensor_file_write_pb(tmp_path("bad.pb"), "x", WG_DT_FLOAT, neg, 1, f, err,
                                  sizeof err) == WG_ERR_INVALID,
          "negative dim accepted");
    CHECK(wg_tensor_file_write_pb(tmp_path("bad.pb"), "x", WG_DT_FLOAT, d, 9, f, err,
                                  sizeof err) == WG_ERR_INVALID,
          "rank 9 accepted");
    CHECK(access(tmp_path("bad.pb"), F_OK) != 0, "bad.pb was created");
    wg_status st = wg_tensor_file_write_pb(tmp_path("no/such/dir/x.pb"), "x", WG_DT_FLOAT, d, 1,
                                           f, err, sizeof err);
    CHECK(st == WG_ERR_IO && strstr(err, "no/such/dir/x.pb"), "missing dir: %d %s", st, err);
}

TEST(reader_refuses_damaged_files)
{
    char err[512];
    wgc_value v;
    char *name = NULL;
    wg_status st = wg_tensor_file_read_pb(tmp_path("missing.pb"), &v, &name, err, sizeof err);
    CHECK(st == WG_ERR_IO && strstr(err, "missing.pb") && name == NULL, "missing: %d %s", st, err);
    /* every truncation of a valid file fails with FORMAT (or, when a whole trailing field
     * was cut, loads a tensor whose data size is then wrong: also FORMAT) */
    float f[4] = {1, 2, 3, 4};
    int64_t d[2] = {2, 2};
    const char *p = tmp_path("t.pb");
    CHECK(wg_tensor_file_write_pb(p, "t", WG_DT_FLOAT, d, 2, f, err, sizeof err) == WG_OK, "write");
    FILE *fp = fopen(p, "rb");
    uint8_t buf[256];
    size_t len = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp)
        fclose(fp);
    for (size_t n = 1; n < len; n++) {
        const char *q = tmp_path("cut.pb");
        FILE *o = fopen(q, "wb");
        fwrite(buf, 1, n, o);
        fclose(o);
        st = wg_tensor_file_read_pb(q, &v, &name, err, sizeof err);
        CHECK(st == WG_ERR_FORMAT && v.data == NULL && name == NULL, "prefix %zu: %d %s", n, st,
              err);
    }
    /* garbage */
    const char *g = tmp_path("garbage.pb");
    FILE *o = fopen(g, "wb");
    fputs("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", o);
    fclose(o);
    st = wg_tensor_file_read_pb(g, &v, &name, err, sizeof err);
    CHECK(st == WG_ERR_FORMAT && strstr(err, "garbage.pb") && strstr(err, "byte"), "garbage: %d %s",
          st, err);
}

/* Reads path and checks dtype and dims; returns the value (caller frees) or data NULL. */
static wgc_value read_expect(const char *path, int dtype, const int64_t *dims, int rank)
{
    wgc_value v = {0};
    char err[512];
    if (access(path, R_OK) != 0) {
        printf("  (skipped: %s is missing)\n", path);
        return v;
    }
    wg_status st = wg_tensor_file_read_pb(path, &v, NULL, err, sizeof err);
    CHECK(st == WG_OK, "%s: %d %s", path, st, err);
    if (st)
        return v;
    CHECK(v.dtype == dtype, "%s: dtype %d want %d", path, v.dtype, dtype);
    CHECK(v.shape.rank == rank, "%s: rank %d want %d", path, v.shape.rank, rank);
    for (int i = 0; i < rank && i < v.shape.rank; i++)
        CHECK(v.shape.dims[i] == dims[i], "%s: dim %d is %lld want %lld", path, i,
              (long long)v.shape.dims[i], (long long)dims[i]);
    return v;
}

TEST(reads_mnist_test_data)
{
    const int64_t in[4] = {1, 1, 28, 28}, out[2] = {1, 10};
    wgc_value v = read_expect("/work/shared/data/mnist/test_data_set_0/input_0.pb", WG_DT_FLOAT,
                              in, 4);
    if (v.data) {
        float mx = 0;
        const float *x = v.data;
        for (int i = 0; i < 784; i++)
            mx = x[i] > mx ? x[i] : mx;
        CHECK(mx > 0 && isfinite(mx), "pixels all zero or not finite (max %g)", mx);
        free(v.data);
    }
    v = read_expect("/work/shared/data/mnist/test_data_set_0/output_0.pb", WG_DT_FLOAT, out, 2);
    free(v.data);
}

TEST(reads_squeezenet_fp16_and_fp32_test_data)
{
    const int64_t in[4] = {1, 3, 224, 224}, out[4] = {1, 1000, 1, 1};
    const char *base = "/work/shared/data/squeezenet1.1-caffe2";
    char p16[512], p32[512];
    snprintf(p16, sizeof p16, "%s/test_data_fp16/test_data_set_0/input_0.pb", base);
    snprintf(p32, sizeof p32, "%s/test_data_fp32/test_data_set_0/input_0.pb", base);
    wgc_value h = read_expect(p16, WG_DT_FLOAT16, in, 4);
    wgc_value f = read_expect(p32, WG_DT_FLOAT, in, 4);
    if (h.data && f.data) {
        /* the same image: fp16 of raw 0..255 pixels is exact for integers */
        const uint16_t *hv = h.data;
        const float *fv = f.data;
        int bad = 0;
        for (int i = 0; i < 3 * 224 * 224; i++)
            bad += fabsf(wg_f16_to_f32(hv[i]) - fv[i]) > 0.5f;
        CHECK(bad == 0, "%d pixels differ between fp16 and fp32 inputs", bad);
    }
    free(h.data);
    free(f.data);
    snprintf(p16, sizeof p16, "%s/test_data_fp16/test_data_set_0/output_0.pb", base);
    h = read_expect(p16, WG_DT_FLOAT16, out, 4);
    if (h.data) {
        double sum = 0;
        for (int i = 0; i < 1000; i++)
            sum += wg_f16_to_f32(((uint16_t *)h.data)[i]);
        CHECK(fabs(sum - 1.0) < 0.02, "softmax output sums to %g", sum);
    }
    free(h.data);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/wg_tensor_pb_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(round_trip_float_int64_fp16_scalar_empty);
    RUN(writer_refuses_bad_arguments_and_leaves_nothing);
    RUN(reader_refuses_damaged_files);
    RUN(reads_mnist_test_data);
    RUN(reads_squeezenet_fp16_and_fp32_test_data);
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] != '.')
            unlink(tmp_path(e->d_name));
    }
    if (d)
        closedir(d);
    rmdir(tmpdir);
    return test_summary("tensor_proto");
}
