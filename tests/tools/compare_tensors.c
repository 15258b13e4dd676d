/*
 * compare_tensors: `compare_tensors GOT.pb WANT.pb [--rtol R] [--atol A]`
 *
 * Compares two TensorProto files element by element with numpy's allclose rule,
 * |got - want| <= atol + rtol * |want|, for float32/float16/float64; integer and bool
 * tensors must match exactly. Shapes and dtypes must match (float16 vs float32 is
 * allowed: a float16 model's output can be checked against either, unless --exact-dtype).
 * NaN matches NaN; integers are compared as int64 (exact). The storage types decode through
 * kernels/include/wgk_storage.h: bfloat16 and the float8/float4 types as floats, int4/int2 and
 * uint4/uint2 as integers. Prints one line
 * with the largest errors; exit 0 when close, 1 when not, 2 on bad input. With --kind
 * sequence or optional both files are SequenceProto or OptionalProto values, compared
 * element by element (one line each).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/include/wgk_storage.h"
#include "onnx/tensor_file.h"

static double load(const wgc_value *v, int64_t i)
{
    switch (v->dtype) {
    case WG_DT_FLOAT: return ((const float *)v->data)[i];
    case WG_DT_FLOAT16: return wg_f16_to_f32(((const uint16_t *)v->data)[i]);
    case WG_DT_DOUBLE: return ((const double *)v->data)[i];
    case WG_DT_INT64: return (double)((const int64_t *)v->data)[i];
    case WG_DT_INT32: return ((const int32_t *)v->data)[i];
    case WG_DT_INT16: return ((const int16_t *)v->data)[i];
    case WG_DT_INT8: return ((const int8_t *)v->data)[i];
    case WG_DT_UINT8: case WG_DT_BOOL: return ((const uint8_t *)v->data)[i];
    case WG_DT_UINT16: return ((const uint16_t *)v->data)[i];
    case WG_DT_UINT32: return ((const uint32_t *)v->data)[i];
    case WG_DT_UINT64: return (double)((const uint64_t *)v->data)[i];
    case WG_DT_BFLOAT16: return wgk_storage_to_f32(v->dtype, ((const uint16_t *)v->data)[i]);
    default:
        if (wg_dtype_is_storage(v->dtype))
            return wgk_storage_to_f32(v->dtype, ((const uint8_t *)v->data)[i]);
        fprintf(stderr, "compare_tensors: cannot compare dtype %s\n", wg_dtype_name(v->dtype));
        exit(2);
    }
}

/* Integers exactly (int64 and uint64 do not fit a double). */
static int64_t load_i(const wgc_value *v, int64_t i)
{
    if (v->dtype == WG_DT_INT64 || v->dtype == WG_DT_UINT64)
        return ((const int64_t *)v->data)[i];
    return (int64_t)load(v, i);
}

/* Compares one pair of tensors; prints one line (prefix before it); 0 close, 1 not. */
static int compare_one(wgc_value *v, const char *prefix, double rtol, double atol, bool exact_dtype)
{
    /* ONNX 1.12's test data stores bfloat16 as uint16 holding the same 16 bits */
    if (v[1].dtype == WG_DT_UINT16 && v[0].dtype == WG_DT_BFLOAT16)
        v[1].dtype = WG_DT_BFLOAT16;
    #define IS_FLOATY(dt) (wg_dtype_is_float(dt) || (wg_dtype_is_storage(dt) && !wgk_storage_is_int(dt)))
    bool floats = IS_FLOATY(v[0].dtype) && IS_FLOATY(v[1].dtype);
    if (!wgc_shape_eq(&v[0].shape, &v[1].shape) ||
        ((!floats || exact_dtype || wg_dtype_is_storage(v[0].dtype) || wg_dtype_is_storage(v[1].dtype)) &&
         v[0].dtype != v[1].dtype)) {
        char a[128], b[128];
        printf("%sMISMATCH shape/dtype: got %s %s, want %s %s\n", prefix, wg_dtype_name(v[0].dtype),
               wgc_shape_str(&v[0].shape, a, sizeof a), wg_dtype_name(v[1].dtype),
               wgc_shape_str(&v[1].shape, b, sizeof b));
        return 1;
    }
    int64_t n = wgc_numel(&v[0].shape), bad = 0, worst = -1;
    double max_abs = 0, max_rel = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = load(&v[0], i), w = load(&v[1], i);
        double d = fabs(g - w);
        bool ok = floats ? (d <= atol + rtol * fabs(w) || (isnan(g) && isnan(w)) || g == w)
                         : load_i(&v[0], i) == load_i(&v[1], i);
        if (d > max_abs || isnan(d))
            max_abs = d, worst = i;
        if (w != 0 && d / fabs(w) > max_rel)
            max_rel = d / fabs(w);
        bad += !ok;
    }
    printf("%s%s: %lld elements, %lld outside rtol %g atol %g, max abs err %.3g, max rel err %.3g", prefix,
           bad ? "MISMATCH" : "ok", (long long)n, (long long)bad, rtol, atol, max_abs, max_rel);
    if (worst >= 0)
        printf(" (worst at %lld: got %.9g want %.9g)", (long long)worst, load(&v[0], worst), load(&v[1], worst));
    printf("\n");
    return bad ? 1 : 0;
}

/* --kind sequence|optional: both files are SequenceProto or OptionalProto values: the same
 * presence, kind of value and element count, every element close. */
static int compare_values(const char **paths, int kind, double rtol, double atol, bool exact_dtype)
{
    wg_value_file v[2] = {0};
    char err[600];
    int rc = 2;
    for (int k = 0; k < 2; k++)
        if (wg_value_file_read_pb(paths[k], kind, &v[k], err, sizeof err)) {
            fprintf(stderr, "compare_tensors: %s\n", err);
            goto done;
        }
    rc = 1;
    if (v[0].present != v[1].present || (v[0].present && v[0].holds_sequence != v[1].holds_sequence) ||
        v[0].n_elems != v[1].n_elems) {
        printf("MISMATCH value: got %s%s of %d tensors, want %s%s of %d\n", v[0].present ? "" : "empty ",
               v[0].holds_sequence ? "sequence" : "tensor", v[0].n_elems, v[1].present ? "" : "empty ",
               v[1].holds_sequence ? "sequence" : "tensor", v[1].n_elems);
        goto done;
    }
    rc = 0;
    if (!v[0].n_elems)
        printf("ok: %s value\n", v[0].present ? "no tensors in the" : "empty");
    for (int k = 0; k < v[0].n_elems; k++) {
        wgc_value pair[2] = {v[0].elems[k], v[1].elems[k]};
        char prefix[32];
        snprintf(prefix, sizeof prefix, "element %d: ", k);
        rc |= compare_one(pair, prefix, rtol, atol, exact_dtype);
    }
done:
    wg_value_file_free(&v[0]);
    wg_value_file_free(&v[1]);
    return rc;
}

int main(int argc, char **argv)
{
    double rtol = 1e-4, atol = 1e-5;
    bool exact_dtype = false;
    int kind = WG_VALUE_TENSOR;
    const char *paths[2] = {0};
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rtol") && i + 1 < argc)
            rtol = atof(argv[++i]);
        else if (!strcmp(argv[i], "--atol") && i + 1 < argc)
            atol = atof(argv[++i]);
        else if (!strcmp(argv[i], "--exact-dtype"))
            exact_dtype = true;
        else if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
            const char *k = argv[++i];
            kind = !strcmp(k, "sequence") ? WG_VALUE_SEQUENCE : !strcmp(k, "optional") ? WG_VALUE_OPTIONAL : -1;
            if (kind < 0 && strcmp(k, "tensor")) {
                fprintf(stderr, "compare_tensors: --kind is tensor, sequence or optional, not '%s'\n", k);
                return 2;
            }
            if (kind < 0)
                kind = WG_VALUE_TENSOR;
        } else if (np < 2)
            paths[np++] = argv[i];
    }
    if (np != 2) {
        fprintf(stderr, "usage: compare_tensors GOT.pb WANT.pb [--rtol R] [--atol A] [--exact-dtype] "
                        "[--kind tensor|sequence|optional]\n");
        return 2;
    }
    if (kind != WG_VALUE_TENSOR)
        return compare_values(paths, kind, rtol, atol, exact_dtype);
    wgc_value v[2] = {0};
    char err[600];
    int rc = 2;
    for (int k = 0; k < 2; k++)
        if (wg_tensor_file_read_pb(paths[k], &v[k], NULL, err, sizeof err)) {
            fprintf(stderr, "compare_tensors: %s\n", err);
            goto done;
        }
    rc = compare_one(v, "", rtol, atol, exact_dtype);
done:
    free(v[0].data);
    free(v[1].data);
    return rc;
}
