/* cli_util.c: small helpers shared by the subcommands (see cli.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/dtype.h"

int wg_cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("wasmgraph: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* "usage: <usage>" and a newline, whether or not usage starts with "usage: " or ends
 * with a newline (compile's does both). */
static void print_usage(FILE *f, const char *usage)
{
    size_t n = strlen(usage);
    fprintf(f, "%s%s%s", strncmp(usage, "usage: ", 7) ? "usage: " : "", usage,
            n && usage[n - 1] == '\n' ? "" : "\n");
}

int wg_cli_usage(const char *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("wasmgraph: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    print_usage(stderr, usage);
    va_end(ap);
    return 2;
}

bool wg_cli_help(const char *usage, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            print_usage(stdout, usage);
            return true;
        }
    }
    return false;
}

bool wg_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

double wg_cli_elem(int dtype, const void *data, size_t i)
{
    switch (dtype) {
    case WG_DT_FLOAT: { float v; memcpy(&v, (const char *)data + i * 4, 4); return v; }
    case WG_DT_DOUBLE: { double v; memcpy(&v, (const char *)data + i * 8, 8); return v; }
    case WG_DT_FLOAT16: {
        uint16_t v;
        memcpy(&v, (const char *)data + i * 2, 2);
        return wg_f16_to_f32(v);
    }
    case WG_DT_INT8: return ((const int8_t *)data)[i];
    case WG_DT_UINT8: return ((const uint8_t *)data)[i];
    case WG_DT_BOOL: return ((const uint8_t *)data)[i] != 0;
    case WG_DT_INT16: { int16_t v; memcpy(&v, (const char *)data + i * 2, 2); return v; }
    case WG_DT_UINT16: { uint16_t v; memcpy(&v, (const char *)data + i * 2, 2); return v; }
    case WG_DT_INT32: { int32_t v; memcpy(&v, (const char *)data + i * 4, 4); return v; }
    case WG_DT_UINT32: { uint32_t v; memcpy(&v, (const char *)data + i * 4, 4); return v; }
    case WG_DT_INT64: { int64_t v; memcpy(&v, (const char *)data + i * 8, 8); return (double)v; }
    case WG_DT_UINT64: { uint64_t v; memcpy(&v, (const char *)data + i * 8, 8); return (double)v; }
    default: return NAN;
    }
}

const char *wg_cli_shape_str(const int64_t *dims, int rank, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < rank && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? "," : "", (long long)dims[i]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

double wg_cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int wg_cli_limit_option(const char *usage, const char *opt, const char *val, wg_runtime_options *o)
{
    uint64_t v;
    if (!strcmp(opt, "--time-limit-ms")) {
        if (!val || !wg_cli_parse_u64(val, 1, UINT64_C(1) << 40, &v)) {
            wg_cli_usage(usage, "--time-limit-ms needs a positive integer");
            return -1;
        }
        o->time_limit_ms = v;
        return 1;
    }
    if (!strcmp(opt, "--threads")) {
        if (!val || !wg_cli_parse_u64(val, 1, 1024, &v)) {
            wg_cli_usage(usage, "--threads needs an integer from 1 to 1024");
            return -1;
        }
        o->threads = (int)v;
        return 1;
    }
    if (!strcmp(opt, "--memory-limit-mb")) {
        if (!val || !wg_cli_parse_u64(val, 1, 1 << 20, &v)) {
            wg_cli_usage(usage, "--memory-limit-mb needs a positive integer");
            return -1;
        }
        o->memory_limit_bytes = (size_t)v << 20;
        return 1;
    }
    return 0;
}

int wg_cli_other_arg(const char *usage, int argc, char **argv, int *i, const char **model, wg_runtime_options *o,
                     const char *hint)
{
    const char *a = argv[*i];
    const int lim = wg_cli_limit_option(usage, a, *i + 1 < argc ? argv[*i + 1] : NULL, o);
    if (lim < 0)
        return 2;
    if (lim > 0) {
        (*i)++;
        return 0;
    }
    if (a[0] == '-' && a[1])
        return wg_cli_usage(usage, "unknown option '%s'", a);
    if (*model)
        return wg_cli_usage(usage, "unexpected argument '%s'%s", a, hint ? hint : "");
    *model = a;
    return 0;
}

int wg_cli_timing_args(const char *usage, int argc, char **argv, const char *const *flags, bool *set,
                       wg_cli_timing *out)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int f = 0;
        while (flags[f] && strcmp(a, flags[f]))
            f++;
        if (flags[f]) {
            set[f] = true;
        } else if (!strcmp(a, "--dim")) {
            if (i + 1 >= argc || out->n_dims >= WG_CLI_MAX_DIMS)
                return wg_cli_usage(usage, "--dim needs SYM=N (at most %d)", WG_CLI_MAX_DIMS);
            out->dims[out->n_dims++] = argv[++i];
        } else if (!strcmp(a, "--warmup") || !strcmp(a, "--iters")) {
            bool w = !strcmp(a, "--warmup");
            if (i + 1 >= argc ||
                !wg_cli_parse_u64(argv[i + 1], w ? 0 : 1, 1000000, w ? &out->warmup : &out->iters))
                return wg_cli_usage(usage, "%s needs an integer (%s)", a, w ? ">= 0" : ">= 1");
            i++;
        } else if (wg_cli_other_arg(usage, argc, argv, &i, &out->model, &out->limits, NULL)) {
            return 2;
        }
    }
    if (!out->model)
        return wg_cli_usage(usage, "no model given");
    return 0;
}

int wg_cli_set_dims(wg_session *s, const wg_cli_timing *t)
{
    for (int k = 0; k < t->n_dims; k++) {
        char name[64];
        const char *d = t->dims[k], *eq = strchr(d, '=');
        char *end = NULL;
        long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
        if (!eq || (size_t)(eq - d) >= sizeof name || end == eq + 1 || *end)
            return wg_cli_fail("--dim wants SYM=N, got '%s'", d);
        memcpy(name, d, (size_t)(eq - d));
        name[eq - d] = 0;
        if (wg_session_set_dim(s, name, v))
            return wg_cli_fail("%s", wg_last_error(wg_session_runtime(s)));
    }
    return 0;
}

int wg_cli_check_threads(const char *model, const wg_runtime_options *o, const wg_session *s)
{
    const int want = o->threads > 1 ? o->threads : 1, have = wg_session_threads(s);
    if (want == have)
        return 0;
    if (have == 1)
        return wg_cli_fail("%s was compiled without --threads: it runs on one thread (asked for %d)", model, want);
    return wg_cli_fail("%s was compiled for at most %d threads (compile --threads --max-threads N), asked for %d",
                       model, have, want);
}
