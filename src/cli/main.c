/* main.c: the `wasmgraph` command: dispatches to one subcommand per file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "wasmgraph.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} commands[] = {
    {"compile", wg_cmd_compile, "compile an ONNX model into a standalone .wasm module"},
    {"info", wg_cmd_info, "print a module's metadata"},
    {"run", wg_cmd_run, "run a module on input tensors (.pb, .npy, .bin)"},
    {"classify", wg_cmd_classify, "classify an image (PNG/JPEG) with a module"},
    {"bench", wg_cmd_bench, "measure load time and run latency"},
    {"profile", wg_cmd_profile, "time each node of a module compiled with --profile"},
    {"generate", wg_cmd_generate, "generate token ids with a decoder module and its KV cache"},
};

static void usage(FILE *f)
{
    fprintf(f, "wasmgraph %s: ONNX models compiled to standalone WebAssembly\n\nusage: wasmgraph COMMAND ...\n\n",
            WG_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].what);
    fprintf(f, "\nRun `wasmgraph COMMAND --help` for its options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("wasmgraph %s\n", WG_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "wasmgraph: error: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
