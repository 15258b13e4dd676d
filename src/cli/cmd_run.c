/* cmd_run.c: `wasmgraph run`: run a module once on input tensors read from .pb (ONNX
 * TensorProto), .npy or .bin (raw bytes) files; write or summarise the outputs. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdir */
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/dtype.h"
#include "common/npy.h"
#include "host/inspect.h"
#include "onnx/tensor_file.h"
#include "wasmgraph.h"

static const char usage[] =
    "wasmgraph run MODEL.wasm [--input NAME=FILE | --input FILE]... [--output-dir DIR]\n"
    "                     [--runs N] [--time-limit-ms N] [--memory-limit-mb N] [--threads N]\n"
    "  --runs N   run N times on the same inputs and report the last run (a module's first\n"
    "             run may take another path than later ones: see README, Winograd)\n"
    "  inputs: .pb (ONNX TensorProto), .npy, .bin (raw little-endian bytes); a FILE without\n"
    "  NAME= is the next model input in order. Outputs go to DIR/output_<i>.pb, or are\n"
    "  summarised when no DIR is given.";

/* Shapes match when equal after dropping leading 1s ([3,4] fits [1,3,4]). */
static bool same_shape(const int64_t *a, int ra, const int64_t *b, int rb)
{
    while (ra > 0 && a[0] == 1 && ra > rb) {
        a++;
        ra--;
    }
    while (rb > 0 && b[0] == 1 && rb > ra) {
        b++;
        rb--;
    }
    if (ra != rb)
        return false;
    for (int i = 0; i < ra; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* Checks a decoded tensor against the model input and copies it to dst. */
static int take_tensor(const char *path, const wg_tensor_info *t, int dtype, const int64_t *dims,
                       int rank, const void *data, void *dst)
{
    char want[160], got[160];
    wg_cli_shape_str(t->dims, t->rank, want, sizeof want);
    wg_cli_shape_str(dims, rank, got, sizeof got);
    /* ONNX 1.12's test data (Debian's libonnx-testdata) stores bfloat16 tensors as uint16
     * holding the same 16 bits: take them as they are. */
    if (dtype == WG_DT_UINT16 && t->dtype == WG_DT_BFLOAT16)
        dtype = WG_DT_BFLOAT16;
    if (dtype != (int)t->dtype || !same_shape(dims, rank, t->dims, t->rank))
        return wg_cli_fail("input '%s': %s holds %s %s, the model wants %s %s", t->name, path,
                           wg_dtype_name(dtype), got, wg_dtype_name(t->dtype), want);
    memcpy(dst, data, t->bytes);
    return 0;
}

static int load_input(const char *path, const wg_tensor_info *t, void *dst)
{
    char err[1024];
    const char *ext = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (ext && slash && ext < slash)
        ext = NULL;
    if (ext && !strcmp(ext, ".pb")) {
        wgc_value v;
        if (wg_tensor_file_read_pb(path, &v, NULL, err, sizeof err))
            return wg_cli_fail("input '%s': %s", t->name, err);
        int rc = take_tensor(path, t, v.dtype, v.shape.dims, v.shape.rank, v.data, dst);
        free(v.data);
        return rc;
    }
    if (ext && !strcmp(ext, ".npy")) {
        wg_npy a;
        if (wg_npy_read(path, &a, err, sizeof err))
            return wg_cli_fail("input '%s': %s", t->name, err);
        int rc = take_tensor(path, t, a.dtype, a.dims, a.rank, a.data, dst);
        wg_npy_free(&a);
        return rc;
    }
    if (ext && !strcmp(ext, ".bin")) {
        uint8_t *bytes;
        size_t len;
        if (wgh_read_file(path, &bytes, &len, err, sizeof err))
            return wg_cli_fail("input '%s': %s", t->name, err);
        int rc = 0;
        if (len != t->bytes) {
            char want[160];
            rc = wg_cli_fail("input '%s': %s has %zu bytes, the model wants %zu (%s %s)", t->name,
                             path, len, t->bytes, wg_dtype_name(t->dtype),
                             wg_cli_shape_str(t->dims, t->rank, want, sizeof want));
        } else {
            memcpy(dst, bytes, len);
        }
        free(bytes);
        return rc;
    }
    return wg_cli_fail("input '%s': %s: unknown file type (use .pb, .npy or .bin)", t->name, path);
}

static void summarise(size_t i, const wg_tensor_info *t, const void *data)
{
    char shape[160];
    size_t n = t->bytes / wg_dtype_size(t->dtype);
    printf("output %zu '%s' %s %s:", i, t->name, wg_dtype_name(t->dtype),
           wg_cli_shape_str(t->dims, t->rank, shape, sizeof shape));
    for (size_t k = 0; k < n && k < 8; k++)
        printf(" %.6g", wg_cli_elem(t->dtype, data, k));
    if (n > 8)
        printf(" ...");
    printf("\n");
    if (!n)
        return;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t nan = 0;
    for (size_t k = 0; k < n; k++) {
        double v = wg_cli_elem(t->dtype, data, k);
        if (isnan(v)) {
            nan++;
            continue;
        }
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
    }
    printf("    min %.6g  max %.6g  mean %.6g", lo, hi, n > nan ? sum / (double)(n - nan) : NAN);
    if (nan)
        printf("  (%zu NaN)", nan);
    printf("\n");
}

int wg_cmd_run(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    const char *model = NULL, *outdir = NULL;
    wg_runtime_options opts = {0};
    const char **specs = calloc((size_t)argc + 1, sizeof *specs);
    const char **files = NULL;
    int n_specs = 0, rc = 1, runs = 1;
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *s = NULL;
    if (!specs)
        return wg_cli_fail("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int lim;
        bool has_val = i + 1 < argc;
        if (!strcmp(a, "--input") || !strcmp(a, "-i")) {
            if (!has_val) {
                rc = wg_cli_usage(usage, "%s needs a value", a);
                goto done;
            }
            specs[n_specs++] = argv[++i];
        } else if (!strcmp(a, "--output-dir") || !strcmp(a, "-o")) {
            if (!has_val) {
                rc = wg_cli_usage(usage, "%s needs a directory", a);
                goto done;
            }
            outdir = argv[++i];
        } else if (!strcmp(a, "--runs")) {
            uint64_t v;
            if (!has_val || !wg_cli_parse_u64(argv[i + 1], 1, 1000000, &v)) {
                rc = wg_cli_usage(usage, "--runs needs an integer from 1 to 1000000");
                goto done;
            }
            runs = (int)v;
            i++;
        } else if ((lim = wg_cli_limit_option(usage, a, has_val ? argv[i + 1] : NULL, &opts)) != 0) {
            if (lim < 0) {
                rc = 2;
                goto done;
            }
            i++;
        } else if (a[0] == '-' && a[1]) {
            rc = wg_cli_usage(usage, "unknown option '%s'", a);
            goto done;
        } else if (model) {
            rc = wg_cli_usage(usage, "unexpected argument '%s' (inputs take --input)", a);
            goto done;
        } else {
            model = a;
        }
    }
    if (!model) {
        rc = wg_cli_usage(usage, "no model given");
        goto done;
    }
    wg_status st = wg_runtime_new(&opts, &rt);
    if (st) {
        rc = wg_cli_fail("cannot start the wasm engine: %s", wg_status_str(st));
        goto done;
    }
    if (wg_model_load(rt, model, &m) || wg_session_new(m, &s)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (wg_cli_check_threads(model, &opts, s)) {
        rc = 1;
        goto done;
    }
    size_t n_in = wg_model_num_inputs(m);
    files = calloc(n_in + 1, sizeof *files);
    if (!files) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    /* NAME=FILE when NAME is an input's name; otherwise FILE is the next unassigned input. */
    for (int k = 0; k < n_specs; k++) {
        const char *eq = strchr(specs[k], '=');
        size_t idx = n_in;
        const char *file = specs[k];
        if (eq) {
            for (size_t j = 0; j < n_in; j++) {
                const char *nm = wg_model_input(m, j)->name;
                if (strlen(nm) == (size_t)(eq - specs[k]) && !strncmp(nm, specs[k], strlen(nm)))
                    idx = j;
            }
            if (idx < n_in)
                file = eq + 1;
        }
        if (idx == n_in) {
            for (size_t j = 0; j < n_in && idx == n_in; j++)
                if (!files[j])
                    idx = j;
            if (idx == n_in) {
                rc = wg_cli_fail("%s: more inputs given than the model's %zu", specs[k], n_in);
                goto done;
            }
        }
        if (files[idx]) {
            rc = wg_cli_fail("input '%s' is given twice (%s and %s)", wg_model_input(m, idx)->name,
                             files[idx], file);
            goto done;
        }
        files[idx] = file;
    }
    for (size_t j = 0; j < n_in; j++) {
        const wg_tensor_info *t = wg_model_input(m, j);
        if (!files[j]) {
            char shape[160];
            rc = wg_cli_fail("input '%s' (%s %s) is missing: pass --input %s=FILE", t->name,
                             wg_dtype_name(t->dtype), wg_cli_shape_str(t->dims, t->rank, shape, sizeof shape),
                             t->name);
            goto done;
        }
        if (load_input(files[j], t, wg_session_input(s, j)))
            goto done; /* rc is 1, message printed */
    }
    double dt = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = wg_cli_now_ms();
        if (wg_session_run(s)) {
            rc = wg_cli_fail("%s", wg_last_error(rt));
            goto done;
        }
        dt = wg_cli_now_ms() - t0;
    }
    if (outdir) {
        if (mkdir(outdir, 0777) && errno != EEXIST) {
            rc = wg_cli_fail("%s: cannot create the output directory: %s", outdir, strerror(errno));
            goto done;
        }
        for (size_t j = 0; j < wg_model_num_outputs(m); j++) {
            const wg_tensor_info *t = wg_model_output(m, j);
            char path[4200], err[1024];
            snprintf(path, sizeof path, "%s/output_%zu.pb", outdir, j);
            if (wg_tensor_file_write_pb(path, t->name, t->dtype, t->dims, t->rank,
                                        wg_session_output(s, j), err, sizeof err)) {
                rc = wg_cli_fail("%s", err);
                goto done;
            }
            printf("wrote %s ('%s')\n", path, t->name);
        }
    } else {
        for (size_t j = 0; j < wg_model_num_outputs(m); j++)
            summarise(j, wg_model_output(m, j), wg_session_output(s, j));
    }
    if (runs > 1)
        printf("run %d of %d: %.3f ms\n", runs, runs, dt);
    else
        printf("run: %.3f ms\n", dt);
    rc = 0;
done:
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
    free(files);
    free(specs);
    return rc;
}
