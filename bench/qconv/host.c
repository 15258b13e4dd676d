/*
 * host.c: times bench/qconv/layers.c's exports on wasmtime (one thread): for each layer,
 * the int8 Winograd and the int8 im2col GEMM, best of 5 timed calls, in ms and in
 * multiply-adds per second (direct-equivalent: 9 per output and channel pair; and for
 * the Winograd the 16 (stride 2: 25) per tile and pair it does), against the
 * i32x4.dot_i16x8_s chains' ceiling.
 *
 *     host layers.wasm [NAME-SUBSTRING]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <wasm.h>
#include <wasmtime.h>

static wasmtime_context_t *cx;
static wasmtime_instance_t inst;

static int32_t call(const char *name, int nargs, int32_t a0, int32_t a1)
{
    wasmtime_extern_t ex;
    wasmtime_val_t args[2] = {{.kind = WASMTIME_I32, .of.i32 = a0}, {.kind = WASMTIME_I32, .of.i32 = a1}}, res;
    wasm_trap_t *trap = NULL;
    if (!wasmtime_instance_export_get(cx, &inst, name, strlen(name), &ex)) {
        fprintf(stderr, "no export %s\n", name);
        exit(1);
    }
    wasmtime_error_t *err = wasmtime_func_call(cx, &ex.of.func, args, (size_t)nargs, &res, 1, &trap);
    if (err || trap) {
        fprintf(stderr, "%s failed\n", name);
        exit(1);
    }
    return res.of.i32;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Best of 5 calls of run(n), ms per kernel call. */
static double best_ms(int n)
{
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        const double t0 = now_ms();
        call("run", 1, n, 0);
        const double t = (now_ms() - t0) / n;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    if (!f) {
        fprintf(stderr, "usage: host layers.wasm [NAME-SUBSTRING]\n");
        return 2;
    }
    static unsigned char bytes[4 << 20];
    const size_t len = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    wasm_engine_t *engine = wasm_engine_new();
    wasmtime_module_t *module = NULL;
    wasm_trap_t *trap = NULL;
    if (wasmtime_module_new(engine, bytes, len, &module)) {
        fprintf(stderr, "not a module\n");
        return 1;
    }
    wasmtime_store_t *store = wasmtime_store_new(engine, NULL, NULL);
    cx = wasmtime_store_context(store);
    if (wasmtime_instance_new(cx, module, NULL, 0, &inst, &trap) || trap) {
        fprintf(stderr, "instantiation failed\n");
        return 1;
    }
    wasmtime_extern_t mem;
    wasmtime_instance_export_get(cx, &inst, "memory", 6, &mem);
    double peak = 0;
    for (int r = 0; r < 5; r++) {
        const int iters = 20000000;
        const double t0 = now_ms();
        call("peak_dot", 1, iters, 0);
        const double g = (double)iters * 12 * 8 / ((now_ms() - t0) * 1e6);
        peak = g > peak ? g : peak;
    }
    printf("i32x4.dot_i16x8_s + add chains: %.1f G multiply-adds/s (best of 5, wasmtime, one thread)\n", peak);
    printf("%-28s %9s %9s %7s %9s %7s %9s\n", "layer", "wino ms", "G/s eff", "G/s", "% peak", "im2col", "G/s");
    const int n = call("layers", 0, 0, 0);
    for (int i = 0; i < n; i++) {
        const char *name = (const char *)wasmtime_memory_data(cx, &mem.of.memory) + call("layer_name", 1, i, 0);
        if (argc > 2 && !strstr(name, argv[2]))
            continue;
        const double macs = call("layer_kmacs", 1, i, 0) * 1e3, wmacs = call("layer_wino_kmacs", 1, i, 0) * 1e3;
        const int reps = macs > 4e8 ? 2 : macs > 1e8 ? 4 : 10;
        call("setup", 2, i, 0);
        call("run", 1, 1, 0);
        const double tw = best_ms(reps);
        call("setup", 2, i, 1);
        call("run", 1, 1, 0);
        const double tg = best_ms(reps);
        printf("%-28s %9.3f %9.1f %7.1f %8.0f%% %7.3f %9.1f\n", name, tw, macs / tw / 1e6, wmacs / tw / 1e6,
               100 * wmacs / tw / 1e6 / peak, tg, macs / tg / 1e6);
    }
    wasmtime_store_delete(store);
    wasmtime_module_delete(module);
    wasm_engine_delete(engine);
    return 0;
}
