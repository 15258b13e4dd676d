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
int wg_cmd_generate(int argc, char **argv);

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
/* The last branch of a command's argument loop: a limit option (*i moves past its value),
 * an unknown option, or the model path (a second one is an error, hint appended to its
 * message when not NULL). Returns 0, or the exit code (2) after printing the usage error. */
int wg_cli_other_arg(const char *usage, int argc, char **argv, int *i, const char **model, wg_runtime_options *o,
                     const char *hint);
/* (--threads N is parsed there too: a threaded module's session runs on N threads.) After
 * the session is made: 0 when it runs on the threads asked for, else the exit code (1)
 * after a message saying why not (a module built without --threads, or for fewer). */
int wg_cli_check_threads(const char *model, const wg_runtime_options *o, const wg_session *s);
/* The arguments of the timing commands (bench, profile): one model path, --warmup N
 * (>= 0), --iters N (>= 1), --dim SYM=N (ABI 2: run at that size; kept as given, checked
 * by wg_cli_set_dims), the limit options, and the command's own boolean flags: flags[i]
 * (NULL-terminated) sets set[i]. warmup and iters hold the defaults on entry. Returns 0,
 * or the exit code (2) after printing the usage error. */
#define WG_CLI_MAX_DIMS 16
typedef struct wg_cli_timing {
    const char *model;
    uint64_t warmup, iters;
    wg_runtime_options limits;
    const char *dims[WG_CLI_MAX_DIMS];
    int n_dims;
} wg_cli_timing;
int wg_cli_timing_args(const char *usage, int argc, char **argv, const char *const *flags, bool *set,
                       wg_cli_timing *out);
/* Sets the session's symbols from t's --dim SYM=N; 0, or 1 after a message. */
int wg_cli_set_dims(wg_session *s, const wg_cli_timing *t);
/* Element i of data (dtype) as a double; NaN for dtypes it cannot read. */
double wg_cli_elem(int dtype, const void *data, size_t i);
/* "[1,3,224,224]" into buf. */
const char *wg_cli_shape_str(const int64_t *dims, int rank, char *buf, size_t len);
/* Monotonic time in milliseconds. */
double wg_cli_now_ms(void);

/* input_files.c */
/* Graph values: the model's inputs or outputs (get: wg_model_input or wg_model_output)
 * grouped by the sequence or optional each is part of (docs/abi.md "Sequences and
 * optionals"); a plain tensor is a value of one entry. Value k spans entries [first[k],
 * first[k] + count[k]). Returns the number of values. */
size_t wg_cli_group_values(const wg_tensor_info *(*get)(const wg_model *, size_t), const wg_model *m, size_t n,
                           size_t *first, size_t *count);
/* Reads the --input values specs[0..n_specs) into the session: NAME=FILE names an input (or
 * a sequence or optional), a bare FILE is the next input not yet given. With given NULL
 * every input must be given; otherwise given[j] (one per model input entry, false on
 * entry) becomes true for each entry a file filled, and the rest are left alone. Returns
 * 0, or 1 after a message naming the input and the file. */
int wg_cli_load_inputs(const wg_model *m, wg_session *s, const char *const *specs, int n_specs, bool *given);

#endif
