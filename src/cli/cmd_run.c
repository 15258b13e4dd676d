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
    "             run may take another path than later ones: docs/performance.md, Winograd)\n"
    "  inputs: .pb (ONNX TensorProto), .npy, .bin (raw little-endian bytes); a FILE without\n"
    "  NAME= is the next model input in order. Outputs go to DIR/output_<i>.pb, or are\n"
    "  summarised when no DIR is given. A sequence or optional input or output (ABI 2) is\n"
    "  one SequenceProto or OptionalProto .pb file.";

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

static bool has_sym(const wg_tensor_info *t)
{
    for (int d = 0; d < t->rank; d++)
        if (t->sym[d] >= 0)
            return true;
    return false;
}

/* An input with symbolic dims (ABI 2): the file's shape gives the sizes, which the session
 * checks (range, agreement with the other inputs at run); its actual bytes are copied. */
static int take_sym_tensor(wg_session *s, size_t j, const char *path, const wg_tensor_info *t,
                           int dtype, const int64_t *dims, int rank, const void *data)
{
    if (dtype != (int)t->dtype)
        return wg_cli_fail("input '%s': %s holds %s, the model wants %s", t->name, path,
                           wg_dtype_name(dtype), wg_dtype_name(t->dtype));
    if (wg_session_set_input_shape(s, j, dims, rank))
        return wg_cli_fail("%s (from %s)", wg_last_error(wg_session_runtime(s)), path);
    size_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= (size_t)dims[d];
    memcpy(wg_session_input(s, j), data, n * wg_dtype_size(t->dtype));
    return 0;
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

static int load_input(wg_session *s, size_t j, const char *path, const wg_tensor_info *t, void *dst)
{
    char err[1024];
    bool sym = has_sym(t);
    const char *ext = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (ext && slash && ext < slash)
        ext = NULL;
    if (ext && !strcmp(ext, ".pb")) {
        wgc_value v;
        if (wg_tensor_file_read_pb(path, &v, NULL, err, sizeof err))
            return wg_cli_fail("input '%s': %s", t->name, err);
        int rc = sym ? take_sym_tensor(s, j, path, t, v.dtype, v.shape.dims, v.shape.rank, v.data)
                     : take_tensor(path, t, v.dtype, v.shape.dims, v.shape.rank, v.data, dst);
        free(v.data);
        return rc;
    }
    if (ext && !strcmp(ext, ".npy")) {
        wg_npy a;
        if (wg_npy_read(path, &a, err, sizeof err))
            return wg_cli_fail("input '%s': %s", t->name, err);
        int rc = sym ? take_sym_tensor(s, j, path, t, a.dtype, a.dims, a.rank, a.data)
                     : take_tensor(path, t, a.dtype, a.dims, a.rank, a.data, dst);
        wg_npy_free(&a);
        return rc;
    }
    if (ext && !strcmp(ext, ".bin") && sym)
        return wg_cli_fail("input '%s' has symbolic dimensions: give it as .pb or .npy, whose shape "
                           "says its sizes", t->name);
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

/* Graph values: the model's inputs or outputs grouped by the sequence or optional each is
 * part of (docs/abi.md "Sequences and optionals"); a plain tensor is a value of one entry.
 * Value k spans entries [first[k], first[k] + count[k]). Returns the number of values. */
static size_t group_values(const wg_tensor_info *(*get)(const wg_model *, size_t), const wg_model *m,
                           size_t n, size_t *first, size_t *count)
{
    size_t nv = 0;
    for (size_t j = 0; j < n; j++) {
        const wg_tensor_info *t = get(m, j);
        const wg_tensor_info *prev = j ? get(m, j - 1) : NULL;
        if (nv && t->value && prev->value && !strcmp(t->value, prev->value)) {
            count[nv - 1]++;
            continue;
        }
        first[nv] = j;
        count[nv++] = 1;
    }
    return nv;
}

static const char *value_name(const wg_tensor_info *t)
{
    return t->value ? t->value : t->name;
}

/* Loads a sequence or optional file into the session inputs first..first+count-1. */
static int load_value(const char *path, const wg_model *m, wg_session *s, size_t first, size_t count)
{
    const wg_tensor_info *t0 = wg_model_input(m, first);
    const char *name = t0->value;
    char err[1024];
    wg_value_file v;
    if (wg_value_file_read_pb(path, t0->value_kind, &v, err, sizeof err))
        return wg_cli_fail("input '%s': %s", name, err);
    int rc = 0;
    bool optional = t0->value_kind == WG_VALUE_OPTIONAL;
    size_t n_elem = optional ? count - 1 : count; /* an optional's flag is its last entry */
    if (optional && v.present && v.holds_sequence != (t0->value_holds == WG_VALUE_SEQUENCE)) {
        rc = wg_cli_fail("input '%s': %s holds a %s, the model wants an optional %s", name, path,
                         v.holds_sequence ? "sequence" : "tensor",
                         t0->value_holds == WG_VALUE_SEQUENCE ? "sequence" : "tensor");
    } else if (v.present && (size_t)v.n_elems != n_elem) {
        rc = wg_cli_fail("input '%s': %s holds %d tensors, the model was compiled for %zu (compile "
                         "with --shape %s=DIMS+DIMS+... to change it)",
                         name, path, v.n_elems, n_elem, name);
    }
    for (size_t k = 0; !rc && k < n_elem; k++) {
        const wg_tensor_info *t = wg_model_input(m, first + k);
        if (v.present)
            rc = take_tensor(path, t, v.elems[k].dtype, v.elems[k].shape.dims, v.elems[k].shape.rank,
                             v.elems[k].data, wg_session_input(s, first + k));
        else
            memset(wg_session_input(s, first + k), 0, t->bytes);
    }
    if (!rc && optional)
        *(uint8_t *)wg_session_input(s, first + count - 1) = v.present;
    wg_value_file_free(&v);
    return rc;
}

/* Writes outputs first..first+count-1, one sequence or optional value, to path. */
static int write_value(const char *path, const wg_model *m, wg_session *s, size_t first, size_t count)
{
    const wg_tensor_info *t0 = wg_model_output(m, first);
    bool optional = t0->value_kind == WG_VALUE_OPTIONAL;
    size_t n_elem = optional ? count - 1 : count;
    wgc_value elems[WG_ABI_MAX_TENSORS];
    if (n_elem > WG_ABI_MAX_TENSORS)
        return wg_cli_fail("output '%s': too many parts", t0->value);
    for (size_t k = 0; k < n_elem; k++) {
        const wg_tensor_info *t = wg_model_output(m, first + k);
        elems[k].dtype = (int)t->dtype;
        elems[k].shape.rank = t->rank;
        memcpy(elems[k].shape.dims, t->dims, sizeof t->dims);
        elems[k].data = (void *)wg_session_output(s, first + k); /* only read: the writer takes wgc_values */
    }
    wg_value_file v = {
        .kind = t0->value_kind,
        .present = !optional || *(const uint8_t *)wg_session_output(s, first + count - 1),
        .holds_sequence = t0->value_kind == WG_VALUE_SEQUENCE || t0->value_holds == WG_VALUE_SEQUENCE,
        .elems = elems,
        .n_elems = (int)n_elem,
    };
    char err[1024];
    if (wg_value_file_write_pb(path, t0->value, &v, err, sizeof err))
        return wg_cli_fail("%s", err);
    printf("wrote %s ('%s', %s)\n", path, t0->value, optional ? "optional" : "sequence");
    return 0;
}

int wg_cmd_run(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    const char *model = NULL, *outdir = NULL;
    wg_runtime_options opts = {0};
    const char **specs = calloc((size_t)argc + 1, sizeof *specs);
    const char **files = NULL;
    size_t *vfirst = NULL, *vcount = NULL;
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
    size_t n_in = wg_model_num_inputs(m), n_out = wg_model_num_outputs(m);
    /* inputs and outputs grouped into graph values (sequences and optionals span several) */
    vfirst = calloc(n_in + n_out + 1, sizeof *vfirst);
    vcount = calloc(n_in + n_out + 1, sizeof *vcount);
    files = calloc(n_in + 1, sizeof *files);
    if (!files || !vfirst || !vcount) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    size_t nv = group_values(wg_model_input, m, n_in, vfirst, vcount);
    /* NAME=FILE when NAME is an input's (or a sequence's or optional's) name; otherwise FILE
     * is the next unassigned input value. */
    for (int k = 0; k < n_specs; k++) {
        const char *eq = strchr(specs[k], '=');
        size_t idx = nv;
        const char *file = specs[k];
        if (eq) {
            for (size_t j = 0; j < nv; j++) {
                const char *nm = value_name(wg_model_input(m, vfirst[j]));
                if (strlen(nm) == (size_t)(eq - specs[k]) && !strncmp(nm, specs[k], strlen(nm)))
                    idx = j;
            }
            if (idx < nv)
                file = eq + 1;
        }
        if (idx == nv) {
            for (size_t j = 0; j < nv && idx == nv; j++)
                if (!files[j])
                    idx = j;
            if (idx == nv) {
                rc = wg_cli_fail("%s: more inputs given than the model's %zu", specs[k], nv);
                goto done;
            }
        }
        if (files[idx]) {
            rc = wg_cli_fail("input '%s' is given twice (%s and %s)", value_name(wg_model_input(m, vfirst[idx])),
                             files[idx], file);
            goto done;
        }
        files[idx] = file;
    }
    for (size_t j = 0; j < nv; j++) {
        const wg_tensor_info *t = wg_model_input(m, vfirst[j]);
        if (!files[j]) {
            char shape[160];
            if (t->value)
                rc = wg_cli_fail("input '%s' (a %s) is missing: pass --input %s=FILE.pb", t->value,
                                 t->value_kind == WG_VALUE_SEQUENCE ? "sequence" : "optional", t->value);
            else
                rc = wg_cli_fail("input '%s' (%s %s) is missing: pass --input %s=FILE", t->name,
                                 wg_dtype_name(t->dtype), wg_cli_shape_str(t->dims, t->rank, shape, sizeof shape),
                                 t->name);
            goto done;
        }
        if (t->value ? load_value(files[j], m, s, vfirst[j], vcount[j])
                     : load_input(s, vfirst[j], files[j], t, wg_session_input(s, vfirst[j])))
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
        size_t nvo = group_values(wg_model_output, m, n_out, vfirst, vcount);
        for (size_t j = 0; j < nvo; j++) {
            wg_tensor_info actual = *wg_model_output(m, vfirst[j]), *t = &actual;
            wg_session_output_shape(s, vfirst[j], actual.dims, &actual.rank, &actual.bytes);
            char path[4200], err[1024];
            snprintf(path, sizeof path, "%s/output_%zu.pb", outdir, j);
            if (t->value) {
                if (write_value(path, m, s, vfirst[j], vcount[j]))
                    goto done;
                continue;
            }
            if (wg_tensor_file_write_pb(path, t->name, t->dtype, t->dims, t->rank,
                                        wg_session_output(s, vfirst[j]), err, sizeof err)) {
                rc = wg_cli_fail("%s", err);
                goto done;
            }
            printf("wrote %s ('%s')\n", path, t->name);
        }
    } else {
        for (size_t j = 0; j < wg_model_num_outputs(m); j++) {
            wg_tensor_info actual = *wg_model_output(m, j);
            wg_session_output_shape(s, j, actual.dims, &actual.rank, &actual.bytes);
            summarise(j, &actual, wg_session_output(s, j));
        }
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
    free(vfirst);
    free(vcount);
    free(specs);
    return rc;
}
