/* cmd_profile.c: `wasmgraph profile`: times each step (node) of a module compiled with
 * `--profile` and prints the steps, or the op types with --by-op, slowest first, each step
 * with the kernel it ran (the metadata's "kernel" of the step, src/ir/kernels.def).
 * Inputs stay as instantiation leaves them (zero-filled). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "cli.h"
#include "wasmgraph.h"

static const char usage[] = "wasmgraph profile MODEL.wasm [--warmup 3] [--iters 20] [--by-op] [--dim SYM=N]...\n"
                            "                         [--time-limit-ms N] [--memory-limit-mb N] [--threads N]";

/* One line of the table: a step, or with --by-op every step of one op type. */
typedef struct row {
    size_t step;      /* step index (first step of the op with --by-op) */
    size_t count;     /* steps summed into this row */
    const char *op;   /* op type, op_len bytes (points into a step label) */
    int op_len;
    const char *name; /* node name (NULL with --by-op) */
    const char *kernel; /* the kernel the step ran, "" when the op has no choice */
    const char *first_run; /* the kernel of the module's first run when another, else NULL */
    double ms;        /* median ms of the step, or the sum of those medians */
} row;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Slowest first; equal times keep step order. */
static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->ms != y->ms)
        return x->ms > y->ms ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

/* Folds rows[0..n) into one row per op type (in place); returns the new count. */
static size_t group_by_op(row *rows, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < m && !(rows[j].op_len == rows[i].op_len && !memcmp(rows[j].op, rows[i].op, (size_t)rows[i].op_len)))
            j++;
        if (j == m) {
            rows[m] = rows[i];
            rows[m].name = NULL;
            m++;
        } else {
            rows[j].ms += rows[i].ms;
            rows[j].count++;
        }
    }
    return m;
}

static void print_table(const row *rows, size_t n, bool by_op, double total)
{
    int op_w = 2, name_w = 4;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].op_len > op_w)
            op_w = rows[i].op_len;
        int nl = rows[i].name ? (int)strlen(rows[i].name) : 0;
        if (nl > name_w)
            name_w = nl < 48 ? nl : 48; /* longer names push their line's columns right */
    }
    if (by_op)
        printf("%4s  %-*s  %5s  %10s  %6s  %6s\n", "rank", op_w, "op", "steps", "ms", "%", "cum%");
    else
        printf("%4s  %5s  %-*s  %-*s  %10s  %6s  %6s  %s\n", "rank", "step", op_w, "op", name_w, "name", "ms", "%",
               "cum%", "kernel");
    double cum = 0;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        double pct = total > 0 ? 100.0 * r->ms / total : 0;
        cum += pct;
        if (by_op)
            printf("%4zu  %-*.*s  %5zu  %10.4f  %6.2f  %6.2f\n", i + 1, op_w, r->op_len, r->op, r->count, r->ms, pct,
                   cum);
        else {
            printf("%4zu  %5zu  %-*.*s  %-*s  %10.4f  %6.2f  %6.2f", i + 1, r->step, op_w, r->op_len, r->op, name_w,
                   r->name, r->ms, pct, cum);
            if (r->kernel[0])
                printf("  %s", r->kernel);
            if (r->first_run)
                printf(" (first run: %s)", r->first_run);
            putchar('\n');
        }
    }
}

int wg_cmd_profile(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    static const char *const flags[] = {"--by-op", NULL};
    bool set[1] = {false};
    wg_cli_timing t = {.warmup = 3, .iters = 20};
    int bad = wg_cli_timing_args(usage, argc, argv, flags, set, &t);
    if (bad)
        return bad;
    const char *model = t.model;
    const uint64_t warmup = t.warmup, iters = t.iters;
    const bool by_op = set[0];
    int rc = 1;
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *s = NULL;
    double *lat = NULL; /* lat[k * iters + r]: step k in round r, ms */
    row *rows = NULL;
    wg_json *meta = NULL; /* the metadata, for the steps' kernels */
    wg_status st = wg_runtime_new(&t.limits, &rt);
    if (st)
        return wg_cli_fail("cannot start the wasm engine: %s", wg_status_str(st));
    if (wg_model_load(rt, model, &m)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    size_t n = wg_model_num_steps(m);
    if (!n) {
        rc = wg_cli_fail("%s was not compiled with --profile (compile it again with `wasmgraph compile "
                         "... --profile`)",
                         model);
        goto done;
    }
    if (n > SIZE_MAX / sizeof *lat / iters || !(lat = malloc(n * iters * sizeof *lat)) ||
        !(rows = calloc(n, sizeof *rows))) {
        rc = wg_cli_fail("out of memory for %zu steps x %llu rounds", n, (unsigned long long)iters);
        goto done;
    }
    const char *mj = wg_model_metadata_json(m);
    char jerr[128];
    /* The host has checked the metadata already; a module without it names no kernels. */
    meta = mj ? wg_json_parse(mj, strlen(mj), jerr, sizeof jerr) : NULL;
    const wg_json *steps = wg_json_get(meta, "profile");
    if (wg_session_new(m, &s)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (wg_cli_check_threads(t.model, &t.limits, s) || wg_cli_set_dims(s, &t)) {
        rc = 1;
        goto done;
    }
    for (uint64_t r = 0; r < warmup; r++)
        if (wg_session_run(s)) {
            rc = wg_cli_fail("%s", wg_last_error(rt));
            goto done;
        }
    for (uint64_t r = 0; r < iters; r++)
        for (size_t k = 0; k < n; k++) {
            double t0 = wg_cli_now_ms();
            if (wg_session_run_step(s, k)) {
                rc = wg_cli_fail("%s", wg_last_error(rt));
                goto done;
            }
            lat[k * iters + r] = wg_cli_now_ms() - t0;
        }
    double total = 0;
    for (size_t k = 0; k < n; k++) {
        double *t = lat + k * iters;
        qsort(t, iters, sizeof *t, cmp_double);
        const char *label = wg_model_step_label(m, k);
        const char *sp = strchr(label, ' ');
        rows[k] = (row){.step = k, .count = 1, .op = label, .op_len = sp ? (int)(sp - label) : (int)strlen(label),
                        .name = sp ? sp + 1 : "",
                        .ms = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2};
        const char *kernel = wg_json_str(wg_json_get(wg_json_at(steps, k), "kernel"));
        rows[k].kernel = kernel ? kernel : "";
        rows[k].first_run = wg_json_str(wg_json_get(wg_json_at(steps, k), "first_run_kernel"));
        total += rows[k].ms;
    }
    size_t n_rows = by_op ? group_by_op(rows, n) : n;
    qsort(rows, n_rows, sizeof *rows, cmp_row);
    printf("model: %s, %llu rounds after %llu warm-up runs, median ms per step\n", model,
           (unsigned long long)iters, (unsigned long long)warmup);
    print_table(rows, n_rows, by_op, total);
    if (by_op)
        printf("total: %.4f ms (sum of step medians), %zu steps, %zu op types\n", total, n, n_rows);
    else
        printf("total: %.4f ms (sum of step medians), %zu steps\n", total, n);
    rc = 0;
done:
    wg_json_free(meta);
    free(rows);
    free(lat);
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
    return rc;
}
