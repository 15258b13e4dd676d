/*
 * cli.h: the `wasmgraph` subcommands and the helpers they share.
 *
 * Each command takes argv starting at the subcommand name (argv[0] = "run") and returns
 * the process exit code: 0 success, 1 failure (one line `wasmgraph: error: ...` on
 * stderr), 2 usage error (the message and a usage line on stderr).
 */
#ifndef WG_CLI_H
#define WG_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

int wg_cmd_compile(int argc, char **argv); /* cmd_compile.c (the lead's) */
int wg_cmd_info(int argc, char **argv);
int wg_cmd_run(int argc, char **argv);
int wg_cmd_bench(int argc, char **argv);
int wg_cmd_classify(int argc, char **argv);
int wg_cmd_profile(int argc, char **argv);

/* cli_util.c */
/* Prints `wasmgraph: error: <message>` and returns 1. */
int wg_cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints `wasmgraph: error: <message>` and `usage: <usage>`, returns 2. */
int wg_cli_usage(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True, after printing the usage to stdout, when an argument is exactly -h or --help:
 * the command then exits 0. usage may or may not start with "usage: ". */
bool wg_cli_help(const char *usage, int argc, char **argv);
/* A decimal integer in [min, max], the whole string; false otherwise. */
bool wg_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* The sandbox limits every command that runs a module accepts:
 *   --time-limit-ms N   one run may take at most N ms (then WG_ERR_LIMIT)
 *   --memory-limit-mb N modules declaring more linear memory are refused
 *   --threads N         a threaded module runs on N threads (docs/abi.md "Threads")
 * Returns 1 when opt is one of them and val is valid (caller skips val), 0 when opt is not
 * a limit option, -1 (after printing the usage error) when val is missing or bad. */
int wg_cli_limit_option(const char *usage, const char *opt, const char *val, wg_runtime_options *o);
/* (--threads N is parsed there too: a threaded module's session runs on N threads.) After
 * the session is made: 0 when it runs on the threads asked for, else the exit code (1)
 * after a message saying why not (a module built without --threads, or for fewer). */
int wg_cli_check_threads(const char *model, const wg_runtime_options *o, const wg_session *s);
/* The arguments of the timing commands (bench, profile): one model path, --warmup N
 * (>= 0), --iters N (>= 1), the limit options, and the command's own boolean flags:
 * flags[i] (NULL-terminated) sets set[i]. warmup and iters hold the defaults on entry.
 * Returns 0, or the exit code (2) after printing the usage error. */
typedef struct wg_cli_timing {
    const char *model;
    uint64_t warmup, iters;
    wg_runtime_options limits;
} wg_cli_timing;
int wg_cli_timing_args(const char *usage, int argc, char **argv, const char *const *flags, bool *set,
                       wg_cli_timing *out);
/* Element i of data (dtype) as a double; NaN for dtypes it cannot read. */
double wg_cli_elem(int dtype, const void *data, size_t i);
/* "[1,3,224,224]" into buf. */
const char *wg_cli_shape_str(const int64_t *dims, int rank, char *buf, size_t len);
/* Monotonic time in milliseconds. */
double wg_cli_now_ms(void);

#endif
