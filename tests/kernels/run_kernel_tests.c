/*
 * run_kernel_tests.c: runs kernel test modules (kernels/tests/test_*.c built to wasm)
 * in wasmtime through its C API.
 *
 *     run_kernel_tests build/kernel-tests/test_gemm-simd.wasm ...
 *
 * For each module: instantiate with no imports, call the export wgkt_run, print the
 * module's log (wgkt_log_ptr / wgkt_log_len in its memory), then
 * "<module>: N checks, M failed". A module that cannot be loaded, traps, or reports a
 * failure counts as a failed suite. The last line is "kernels: P passed, F failed";
 * the exit code is nonzero when any suite failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wasm.h>
#include <wasmtime.h>

static void print_error(const char *path, const char *what, wasmtime_error_t *err,
                        wasm_trap_t *trap)
{
    wasm_byte_vec_t msg = {0, NULL};
    if (err) {
        wasmtime_error_message(err, &msg);
        wasmtime_error_delete(err);
    } else if (trap) {
        wasm_trap_message(trap, &msg);
        wasm_trap_delete(trap);
    }
    fprintf(stderr, "%s: %s: %.*s\n", path, what, (int)msg.size, msg.data ? msg.data : "");
    wasm_byte_vec_delete(&msg);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto fail;
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        goto fail;
    fclose(f);
    *len = (size_t)n;
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

/* Calls export `name` () -> i32. Returns 0 on success. */
static int call_i32(wasmtime_context_t *cx, const wasmtime_instance_t *inst, const char *path,
                    const char *name, int32_t *out)
{
    wasmtime_extern_t ex;
    wasmtime_val_t res;
    wasm_trap_t *trap = NULL;
    if (!wasmtime_instance_export_get(cx, inst, name, strlen(name), &ex) ||
        ex.kind != WASMTIME_EXTERN_FUNC) {
        fprintf(stderr, "%s: missing export function %s\n", path, name);
        return -1;
    }
    wasmtime_error_t *err = wasmtime_func_call(cx, &ex.of.func, NULL, 0, &res, 1, &trap);
    if (err || trap) {
        print_error(path, name, err, trap);
        return -1;
    }
    if (res.kind != WASMTIME_I32) {
        fprintf(stderr, "%s: %s did not return i32\n", path, name);
        return -1;
    }
    *out = res.of.i32;
    return 0;
}

/* Runs one module; returns 1 when the suite passed. */
static int run_module(wasm_engine_t *engine, const char *path)
{
    size_t len = 0;
    unsigned char *bytes = read_file(path, &len);
    wasmtime_module_t *module = NULL;
    wasmtime_store_t *store = NULL;
    int ok = 0;
    if (!bytes) {
        fprintf(stderr, "%s: cannot read the file\n", path);
        goto done;
    }
    wasmtime_error_t *err = wasmtime_module_new(engine, bytes, len, &module);
    if (err) {
        print_error(path, "not a valid module", err, NULL);
        goto done;
    }
    store = wasmtime_store_new(engine, NULL, NULL);
    if (!store) {
        fprintf(stderr, "%s: cannot create a store\n", path);
        goto done;
    }
    wasmtime_context_t *cx = wasmtime_store_context(store);
    wasmtime_instance_t inst;
    wasm_trap_t *trap = NULL;
    err = wasmtime_instance_new(cx, module, NULL, 0, &inst, &trap);
    if (err || trap) {
        print_error(path, "instantiation failed", err, trap);
        goto done;
    }
    int32_t failed = -1, checks = 0, lp = 0, ll = 0;
    int run_rc = call_i32(cx, &inst, path, "wgkt_run", &failed);
    /* Print the log even after a trap: it shows how far the suite got. */
    wasmtime_extern_t mem;
    if (call_i32(cx, &inst, path, "wgkt_log_ptr", &lp) == 0 &&
        call_i32(cx, &inst, path, "wgkt_log_len", &ll) == 0 &&
        wasmtime_instance_export_get(cx, &inst, "memory", 6, &mem) &&
        mem.kind == WASMTIME_EXTERN_MEMORY) {
        uint8_t *data = wasmtime_memory_data(cx, &mem.of.memory);
        size_t size = wasmtime_memory_data_size(cx, &mem.of.memory);
        if (lp >= 0 && ll >= 0 && (size_t)lp + (size_t)ll <= size)
            fwrite(data + lp, 1, (size_t)ll, stdout);
    }
    if (call_i32(cx, &inst, path, "wgkt_checks", &checks) != 0)
        checks = -1;
    if (run_rc != 0) {
        printf("%s: trapped after %d checks\n", path, (int)checks);
        goto done;
    }
    printf("%s: %d checks, %d failed\n", path, (int)checks, (int)failed);
    ok = failed == 0 && checks > 0;
done:
    if (store)
        wasmtime_store_delete(store);
    if (module)
        wasmtime_module_delete(module);
    free(bytes);
    return ok;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    wasm_engine_t *engine = wasm_engine_new();
    if (!engine) {
        fprintf(stderr, "run_kernel_tests: cannot create a wasmtime engine\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (run_module(engine, argv[i]))
            passed++;
        else
            failed++;
    }
    wasm_engine_delete(engine);
    printf("kernels: %d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}
