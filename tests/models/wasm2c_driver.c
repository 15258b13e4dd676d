/*
 * wasm2c_driver: runs a module translated to C by Debian's wasm2c (1.0.32 naming, module
 * name "model"), to show that an import-free wasmgraph module runs on an engine other than
 * wasmtime. Usage: wasm2c_driver INPUT_0.pb OUTPUT_DIR — writes OUTPUT_DIR/output_0.pb.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "onnx/tensor_file.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: wasm2c_driver INPUT.pb OUTDIR\n");
        return 2;
    }
    wgc_value in = {0};
    char err[600], path[4096];
    if (wg_tensor_file_read_pb(argv[1], &in, NULL, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    wasm_rt_init();
    Z_model_init_module();
    Z_model_instance_t inst;
    Z_model_instantiate(&inst);
    wasm_rt_memory_t *mem = Z_modelZ_memory(&inst);
    size_t in_bytes = (size_t)wgc_numel(&in.shape) * wg_dtype_size(in.dtype);
    uint32_t ip = Z_modelZ_wg_input_ptr(&inst, 0), op = Z_modelZ_wg_output_ptr(&inst, 0);
    if ((uint64_t)ip + in_bytes > mem->size) {
        fprintf(stderr, "input does not fit in memory\n");
        return 1;
    }
    memcpy(mem->data + ip, in.data, in_bytes);
    uint32_t st = Z_modelZ_wg_run(&inst);
    if (st) {
        fprintf(stderr, "wg_run returned %u\n", st);
        return 1;
    }
    /* SqueezeNet's output: float32 1x1000x1x1. */
    int64_t dims[4] = {1, 1000, 1, 1};
    snprintf(path, sizeof path, "%s/output_0.pb", argv[2]);
    if (wg_tensor_file_write_pb(path, "softmaxout_1", WG_DT_FLOAT, dims, 4, mem->data + op, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    Z_model_free(&inst);
    wasm_rt_free();
    free(in.data);
    printf("ran through wasm2c: %s\n", path);
    return 0;
}
