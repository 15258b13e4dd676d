/* input_files.c: the model inputs `run` and `bench` read from files (cli.h,
 * wg_cli_load_inputs): .pb (ONNX TensorProto, or a SequenceProto / OptionalProto for a
 * sequence or optional input), .npy, .bin (raw little-endian bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/dtype.h"
#include "common/npy.h"
#include "host/inspect.h"
#include "onnx/tensor_file.h"
#include "wasmgraph.h"

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

/* Graph values: the model's inputs or outputs grouped by the sequence or optional each is
 * part of (docs/abi.md "Sequences and optionals"); a plain tensor is a value of one entry.
 * Value k spans entries [first[k], first[k] + count[k]). Returns the number of values. */
size_t wg_cli_group_values(const wg_tensor_info *(*get)(const wg_model *, size_t), const wg_model *m, size_t n,
                           size_t *first, size_t *count)
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


int wg_cli_load_inputs(const wg_model *m, wg_session *s, const char *const *specs, int n_specs, bool *given)
{
    size_t n_in = wg_model_num_inputs(m);
    size_t *vfirst = calloc(n_in + 1, sizeof *vfirst), *vcount = calloc(n_in + 1, sizeof *vcount);
    const char **files = calloc(n_in + 1, sizeof *files);
    int rc = 1;
    if (!vfirst || !vcount || !files) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    size_t nv = wg_cli_group_values(wg_model_input, m, n_in, vfirst, vcount);
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
        if (!files[j] && given)
            continue;
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
        for (size_t k = 0; given && k < vcount[j]; k++)
            given[vfirst[j] + k] = true;
    }
    rc = 0;
done:
    free(vfirst);
    free(vcount);
    free(files);
    return rc;
}
