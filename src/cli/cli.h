/* cli.h: the subcommands of `wasmgraph`; each takes argv starting at its own name and
 * returns the process exit code (0 ok, 1 error, 2 usage). */
#ifndef WG_CLI_H
#define WG_CLI_H

int wg_cmd_compile(int argc, char **argv);
int wg_cmd_info(int argc, char **argv);
int wg_cmd_run(int argc, char **argv);
int wg_cmd_bench(int argc, char **argv);
int wg_cmd_classify(int argc, char **argv);

#endif
