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
    size_t *vfirst = NULL, *vcount = NULL;
    int n_specs = 0, rc = 1, runs = 1;
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *s = NULL;
    if (!specs)
        return wg_cli_fail("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
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
        } else if (wg_cli_other_arg(usage, argc, argv, &i, &model, &opts, " (inputs take --input)")) {
            rc = 2;
            goto done;
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
    size_t n_out = wg_model_num_outputs(m);
    /* outputs grouped into graph values (sequences and optionals span several) */
    vfirst = calloc(n_out + 1, sizeof *vfirst);
    vcount = calloc(n_out + 1, sizeof *vcount);
    if (!vfirst || !vcount) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    if (wg_cli_load_inputs(m, s, specs, n_specs, NULL))
        goto done; /* rc is 1, message printed */
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
        size_t nvo = wg_cli_group_values(wg_model_output, m, n_out, vfirst, vcount);
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
    free(vfirst);
    free(vcount);
    free(specs);
    return rc;
}
