/*
 * wgkt.h: freestanding test harness for kernel test modules (no libc, wasm32).
 *
 * A kernel test is one C file compiled to wasm together with every kernel source:
 *
 *     #include "../tests/wgkt.h"    (or "wgkt.h" from kernels/tests/)
 *     static void run(void) {
 *         WGKT_CHECK(1 + 1 == 2, "arithmetic");
 *         WGKT_CHECK_CLOSE(got[i], want[i], 1e-4f, 1e-5f, "gemm 4x16 k=3");
 *     }
 *     WGKT_MAIN("gemm", run)
 *
 * WGKT_MAIN defines the exports the host runner (tests/kernels/run_kernel_tests.c) uses:
 *   wgkt_run()     runs the suite, returns the number of failed checks
 *   wgkt_log_ptr() / wgkt_log_len()   the text log in linear memory
 *   wgkt_checks()  the number of checks run
 * Only the first failures of a suite are logged in full (the log is bounded).
 */
#ifndef WGKT_H
#define WGKT_H

#include <stddef.h>
#include <stdint.h>

#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif

#define WGKT_FN static __attribute__((unused))
#define WGKT_LOG_CAP 65536
#define WGKT_MAX_LOGGED_FAILURES 40

static char wgkt_log_buf[WGKT_LOG_CAP];
static int wgkt_log_n;
static int wgkt_failures;
static int wgkt_nchecks;

WGKT_FN void wgkt_log(const char *s)
{
    while (*s && wgkt_log_n < WGKT_LOG_CAP - 1)
        wgkt_log_buf[wgkt_log_n++] = *s++;
}

WGKT_FN void wgkt_log_int(long long v)
{
    char buf[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        buf[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        buf[n++] = '-';
    char out[24];
    for (int i = 0; i < n; i++)
        out[i] = buf[n - 1 - i];
    out[n] = 0;
    wgkt_log(out);
}

/* Prints v as [-]d.dddddde[+-]XX (7 significant digits), or nan / inf. */
WGKT_FN void wgkt_log_float(float v)
{
    if (v != v) {
        wgkt_log("nan");
        return;
    }
    if (v < 0) {
        wgkt_log("-");
        v = -v;
    }
    if (v > 3.4028235e38f) {
        wgkt_log("inf");
        return;
    }
    if (v == 0) {
        wgkt_log("0");
        return;
    }
    double d = v;
    int e = 0;
    while (d >= 10.0) {
        d /= 10.0;
        e++;
    }
    while (d < 1.0) {
        d *= 10.0;
        e--;
    }
    long long digits = (long long)(d * 1e6 + 0.5); /* 1000000..10000000 */
    if (digits >= 10000000) {
        digits /= 10;
        e++;
    }
    char out[16];
    out[0] = (char)('0' + (int)(digits / 1000000));
    out[1] = '.';
    long long rest = digits % 1000000;
    for (int i = 7; i >= 2; i--) {
        out[i] = (char)('0' + (int)(rest % 10));
        rest /= 10;
    }
    out[8] = 0;
    wgkt_log(out);
    wgkt_log(e < 0 ? "e-" : "e+");
    if ((e < 0 ? -e : e) < 10)
        wgkt_log("0");
    wgkt_log_int(e < 0 ? -e : e);
}

WGKT_FN void wgkt_fail_prefix(const char *file, int line)
{
    wgkt_log(file);
    wgkt_log(":");
    wgkt_log_int(line);
    wgkt_log(": ");
}

#define WGKT_CHECK(cond, msg)                                                              \
    do {                                                                                   \
        wgkt_nchecks++;                                                                    \
        if (!(cond)) {                                                                     \
            if (wgkt_failures++ < WGKT_MAX_LOGGED_FAILURES) {                              \
                wgkt_fail_prefix(__FILE__, __LINE__);                                      \
                wgkt_log("CHECK(" #cond ") failed: ");                                     \
                wgkt_log(msg);                                                             \
                wgkt_log("\n");                                                            \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* |got - want| <= atol + rtol * |want|; NaN matches NaN, infinities must match exactly. */
WGKT_FN int wgkt_close(float got, float want, float rtol, float atol)
{
    if (want != want)
        return got != got;
    if (got != got)
        return 0;
    if (want > 3.4028235e38f || want < -3.4028235e38f)
        return got == want;
    float diff = got > want ? got - want : want - got;
    float aw = want < 0 ? -want : want;
    return diff <= atol + rtol * aw;
}

/* Whether got[0..n) has want[0..n)'s bits exactly (thread parts against a whole call). */
WGKT_FN int wgkt_same_bits(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++) {
        union { float f; uint32_t u; } g = {got[i]}, w = {want[i]};
        if (g.u != w.u)
            return 0;
    }
    return 1;
}

#define WGKT_CHECK_CLOSE(got, want, rtol, atol, what)                                      \
    do {                                                                                   \
        float wgkt_g_ = (float)(got), wgkt_w_ = (float)(want);                             \
        wgkt_nchecks++;                                                                    \
        if (!wgkt_close(wgkt_g_, wgkt_w_, (float)(rtol), (float)(atol))) {                 \
            if (wgkt_failures++ < WGKT_MAX_LOGGED_FAILURES) {                              \
                wgkt_fail_prefix(__FILE__, __LINE__);                                      \
                wgkt_log(what);                                                            \
                wgkt_log(": got ");                                                        \
                wgkt_log_float(wgkt_g_);                                                   \
                wgkt_log(", want ");                                                       \
                wgkt_log_float(wgkt_w_);                                                   \
                wgkt_log("\n");                                                            \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* Deterministic xorshift32 PRNG; returns a float in [-1, 1). state must be nonzero. */
WGKT_FN float wgkt_rand(uint32_t *state)
{
    uint32_t x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return (float)(x >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

#define WGKT_MAIN(suite_name, fn)                                                          \
    __attribute__((export_name("wgkt_run"))) int wgkt_run(void)                            \
    {                                                                                      \
        wgkt_log("suite ");                                                                \
        wgkt_log(suite_name);                                                              \
        wgkt_log("\n");                                                                    \
        fn();                                                                              \
        if (wgkt_failures > WGKT_MAX_LOGGED_FAILURES) {                                    \
            wgkt_log("(");                                                                 \
            wgkt_log_int(wgkt_failures - WGKT_MAX_LOGGED_FAILURES);                        \
            wgkt_log(" more failures not shown)\n");                                       \
        }                                                                                  \
        return wgkt_failures;                                                              \
    }                                                                                      \
    __attribute__((export_name("wgkt_log_ptr"))) int wgkt_log_ptr(void)                    \
    {                                                                                      \
        return (int)(uintptr_t)wgkt_log_buf;                                               \
    }                                                                                      \
    __attribute__((export_name("wgkt_log_len"))) int wgkt_log_len(void)                    \
    {                                                                                      \
        return wgkt_log_n;                                                                 \
    }                                                                                      \
    __attribute__((export_name("wgkt_checks"))) int wgkt_checks(void)                      \
    {                                                                                      \
        return wgkt_nchecks;                                                               \
    }

/* "  at M=.. N=.. K=.." of a failing GEMM case (the caller ends the line). */
static inline void wgkt_log_mnk(int M, int N, int K)
{
    wgkt_log("  at M=");
    wgkt_log_int(M);
    wgkt_log(" N=");
    wgkt_log_int(N);
    wgkt_log(" K=");
    wgkt_log_int(K);
}

/* Indices of a gather test of a table of n rows (wgk_gather_*_panels): int64 ones all in range
 * (the first, the last, both counted from the end) and int32 ones whose last is out of range
 * (n). wgkt_gather_row: the row index j reads, n when it is out of range (a zero row). */
typedef struct wgkt_gather_idx {
    int64_t i64[4];
    int32_t i32[4];
} wgkt_gather_idx;

static inline wgkt_gather_idx wgkt_gather_indices(int n)
{
    return (wgkt_gather_idx){{0, n - 1, -1, -n}, {n / 2, -(n / 3) - 1, 0, n}};
}

static inline int64_t wgkt_gather_row(int64_t v, int n)
{
    return v < 0 ? v + n : v;
}

#endif
