/* cmd_bench.c: `wasmgraph bench`: load+compile time, instantiate time, first run, and
 * the latency of warm runs on the inputs given with --input (as `run` reads them) and,
 * for the rest, deterministic filler (fill_input). With --serve it stays up after the
 * first run and times runs on request (bench/run's interleaved rounds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "common/dtype.h"
#include "common/json.h"
#include "wasmgraph.h"

/* The calling thread's CPU time (ms). */
static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char usage[] =
    "wasmgraph bench MODEL.wasm [--warmup 3] [--iters 20] [--json] [--serve]\n"
    "                       [--time-limit-ms N] [--memory-limit-mb N] [--threads N]\n"
    "                       [--dim SYM=N]...  (ABI 2: run at symbol SYM = N;\n"
    "                       symbols not given run at their maxima)\n"
    "                       [--input [NAME=]FILE]...  (as `run` takes them)\n"
    "  inputs not given: floats uniform in [-1, 1), integers 1 (a valid index into any\n"
    "  table of two or more rows, a mask that keeps every position), bools random";

/* xorshift64*: the same inputs on every run and machine. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* The filler of an input no file gives: floats uniform in [-1, 1), bools 0/1, integers 1.
 * Integers are nearly always indices (token ids, token types, positions) or masks: 1 is
 * in range for any table of two or more rows and keeps every position of a mask, where
 * random integers would index past a token-type table (status WGK_ERR_INDEX). */
static void fill_input(const wg_tensor_info *t, void *dst, uint64_t *seed)
{
    size_t n = t->bytes / wg_dtype_size(t->dtype);
    uint8_t *p = dst;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_rand(seed);
        double u = (double)(r >> 11) / 9007199254740992.0 * 2 - 1;
        switch (t->dtype) {
        case WG_DT_FLOAT: { float v = (float)u; memcpy(p + i * 4, &v, 4); break; }
        case WG_DT_DOUBLE: memcpy(p + i * 8, &u, 8); break;
        case WG_DT_FLOAT16: { uint16_t v = wg_f32_to_f16((float)u); memcpy(p + i * 2, &v, 2); break; }
        case WG_DT_BOOL: p[i] = (uint8_t)(r >> 63); break;
        default: {
            /* the integer 1, little-endian, in the element's width */
            size_t w = wg_dtype_size(t->dtype);
            memset(p + i * w, 0, w);
            p[i * w] = 1;
        }
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * --serve: after the first run, prints one JSON line {"ready":true,...} and then answers
 * commands read from stdin, one per line, each with one JSON line on stdout:
 *   warm MS   runs until MS milliseconds have passed   -> {"runs":N,"ms":T}
 *   run N     times N runs                             -> {"lat":[ms,...]}
 *   quit      ends (so does end of input)
 * A failed run answers {"error":"..."} and ends with status 1.
 */
static int serve(wg_runtime *rt, wg_session *s)
{
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        double arg = 0;
        char cmd[16];
        if (sscanf(line, "%15s %lf", cmd, &arg) < 1)
            continue;
        if (!strcmp(cmd, "quit"))
            return 0;
        bool warm = !strcmp(cmd, "warm");
        if ((!warm && strcmp(cmd, "run")) || !(arg >= 0 && arg <= 1e7)) {
            printf("{\"error\":\"unknown command or bad count (warm MS | run N | quit)\"}\n");
            fflush(stdout);
            continue;
        }
        double t0 = wg_cli_now_ms(), t = t0;
        long n = 0;
        if (!warm)
            printf("{\"lat\":[");
        while (warm ? t - t0 < arg : n < (long)arg) {
            if (wg_session_run(s)) {
                printf("%s{\"error\":", warm ? "" : "]}\n");
                wg_json_write_string(stdout, wg_last_error(rt));
                printf("}\n");
                fflush(stdout);
                return 1;
            }
            double t1 = wg_cli_now_ms();
            if (!warm)
                printf(n ? ",%.4f" : "%.4f", t1 - t);
            t = t1;
            n++;
        }
        if (warm)
            printf("{\"runs\":%ld,\"ms\":%.3f}\n", n, t - t0);
        else
            printf("]}\n");
        fflush(stdout);
    }
    return 0;
}

int wg_cmd_bench(int argc, char **argv)
{
    if (wg_cli_help(usage, argc, argv))
        return 0;
    static const char *const flags[] = {"--json", "--serve", NULL};
    bool set[2] = {false, false};
    wg_cli_timing t = {.warmup = 3, .iters = 20};
    /* --input [NAME=]FILE is taken out here; the rest are the timing commands' options */
    char **rest = malloc(sizeof *rest * (size_t)(argc + 1));
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    int n_rest = 0, n_inputs = 0;
    if (!rest || !inputs) {
        free(rest);
        free(inputs);
        return wg_cli_fail("out of memory");
    }
    for (int i = 0; i < argc; i++) {
        if ((!strcmp(argv[i], "--input") || !strcmp(argv[i], "-i")) && i + 1 < argc)
            inputs[n_inputs++] = argv[++i];
        else
            rest[n_rest++] = argv[i];
    }
    rest[n_rest] = NULL;
    int bad = wg_cli_timing_args(usage, n_rest, rest, flags, set, &t);
    free(rest);
    if (bad) {
        free(inputs);
        return bad;
    }
    const char *model = t.model;
    const uint64_t warmup = t.warmup, iters = t.iters;
    const bool json = set[0], serving = set[1];
    int rc = 1;
    wg_runtime *rt = NULL;
    wg_model *m = NULL;
    wg_session *s = NULL;
    double *lat = NULL;
    bool *given = NULL;
    wg_status st = wg_runtime_new(&t.limits, &rt);
    if (st)
        return wg_cli_fail("cannot start the wasm engine: %s", wg_status_str(st));
    double t0 = wg_cli_now_ms();
    if (wg_model_load(rt, model, &m)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    double t1 = wg_cli_now_ms();
    if (wg_session_new(m, &s)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    if (wg_cli_set_dims(s, &t))
        goto done; /* rc is 1, message printed */
    double t2 = wg_cli_now_ms();
    if (wg_cli_check_threads(t.model, &t.limits, s)) {
        rc = 1;
        goto done;
    }
    given = calloc(wg_model_num_inputs(m) + 1, sizeof *given);
    if (!given) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    if (wg_cli_load_inputs(m, s, inputs, n_inputs, given))
        goto done; /* rc is 1, message printed */
    uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
    for (size_t j = 0; j < wg_model_num_inputs(m); j++)
        if (!given[j])
            fill_input(wg_model_input(m, j), wg_session_input(s, j), &seed);
    if (wg_session_run(s)) {
        rc = wg_cli_fail("%s", wg_last_error(rt));
        goto done;
    }
    double first = wg_cli_now_ms() - t2;
    if (serving) {
        printf("{\"ready\":true,\"load_ms\":%.3f,\"instantiate_ms\":%.3f,\"first_run_ms\":%.3f,"
               "\"cold_ms\":%.3f}\n",
               t1 - t0, t2 - t1, first, t2 - t0 + first);
        fflush(stdout);
        rc = serve(rt, s);
        goto done;
    }
    for (uint64_t k = 0; k < warmup; k++)
        if (wg_session_run(s)) {
            rc = wg_cli_fail("%s", wg_last_error(rt));
            goto done;
        }
    if (!(lat = malloc(iters * sizeof *lat))) {
        rc = wg_cli_fail("out of memory");
        goto done;
    }
    double sum = 0;
    const int nt = wg_session_threads(s);
    double cpu_before[64] = {0}, cpu0 = thread_cpu_ms();
    for (int t = 0; t < nt && t < 64; t++)
        cpu_before[t] = wg_session_thread_cpu_ms(s, t);
    for (uint64_t k = 0; k < iters; k++) {
        double a = wg_cli_now_ms();
        if (wg_session_run(s)) {
            rc = wg_cli_fail("%s", wg_last_error(rt));
            goto done;
        }
        lat[k] = wg_cli_now_ms() - a;
        sum += lat[k];
    }
    qsort(lat, iters, sizeof *lat, cmp_double);
    double median = iters % 2 ? lat[iters / 2] : (lat[iters / 2 - 1] + lat[iters / 2]) / 2;
    double mean = sum / (double)iters;
    if (json) {
        printf("{\"model\":");
        wg_json_write_string(stdout, model);
        printf(",\"load_ms\":%.3f,\"instantiate_ms\":%.3f,\"first_run_ms\":%.3f,\"warmup\":%llu,"
               "\"iters\":%llu,\"median_ms\":%.3f,\"min_ms\":%.3f,\"mean_ms\":%.3f,\"max_ms\":%.3f}\n",
               t1 - t0, t2 - t1, first, (unsigned long long)warmup, (unsigned long long)iters, median,
               lat[0], mean, lat[iters - 1]);
    } else {
        printf("model:        %s\n", model);
        printf("load+compile: %10.3f ms\n", t1 - t0);
        printf("instantiate:  %10.3f ms\n", t2 - t1);
        printf("first run:    %10.3f ms\n", first);
        printf("warm runs:    %llu (after %llu warm-up)\n", (unsigned long long)iters,
               (unsigned long long)warmup);
        printf("  median      %10.3f ms\n", median);
        printf("  min         %10.3f ms\n", lat[0]);
        printf("  mean        %10.3f ms\n", mean);
        printf("  max         %10.3f ms\n", lat[iters - 1]);
        /* Each thread's CPU time per timed run: a thread asleep at a barrier uses none, so
         * this is the work each did, whatever else loads the machine (the balance of the
         * split; the busiest thread bounds the run on idle cores). */
        printf("CPU per run:  ");
        if (nt > 1)
            for (int t = 0; t < nt && t < 64; t++)
                printf(" %.3f", (wg_session_thread_cpu_ms(s, t) - cpu_before[t]) / (double)iters);
        else
            printf(" %.3f", (thread_cpu_ms() - cpu0) / (double)iters);
        printf(" ms (thread 0%s)\n", nt > 1 ? ", 1, ..." : "");
    }
    rc = 0;
done:
    free(lat);
    free(given);
    free(inputs);
    wg_session_free(s);
    wg_model_free(m);
    wg_runtime_free(rt);
    return rc;
}
