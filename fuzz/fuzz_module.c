/*
 * fuzz_module.c: libFuzzer target for the host library. Each input is loaded as a
 * compiled module with wg_model_load_bytes (our ABI checks, then wasmtime); when it
 * loads, a session is created and run once under a 50 ms time limit and a 64 MiB memory
 * cap, with the inputs filled with a fixed pattern. Any status is fine; a crash, a
 * sanitizer report, a leak, a hang or an error without a message is a finding.
 *
 * The runtime is created once: making an engine per input would dominate the run time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasmgraph.h"

static wg_runtime *rt;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    wg_runtime_options o = {.memory_limit_bytes = (size_t)64 << 20, .time_limit_ms = 50};
    if (wg_runtime_new(&o, &rt) != WG_OK) {
        fprintf(stderr, "fuzz_module: cannot create the runtime\n");
        abort();
    }
    return 0;
}

/* An error must explain itself. */
static void check_message(wg_status st, const char *where)
{
    const char *msg = wg_last_error(rt);
    if (st != WG_OK && (!msg || !msg[0])) {
        fprintf(stderr, "fuzz_module: %s returned %d (%s) with no message\n", where, (int)st,
                wg_status_str(st));
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wg_model *m = NULL;
    wg_session *s = NULL;
    wg_status st = wg_model_load_bytes(rt, data, size, "fuzz.wasm", &m);
    check_message(st, "wg_model_load_bytes");
    if (st != WG_OK)
        return 0;
    /* The metadata accessors must agree with what was loaded. */
    for (size_t i = 0; i < wg_model_num_inputs(m); i++)
        if (!wg_model_input(m, i) || !wg_model_input(m, i)->name)
            abort();
    for (size_t i = 0; i < wg_model_num_outputs(m); i++)
        if (!wg_model_output(m, i) || !wg_model_output(m, i)->name)
            abort();
    (void)wg_model_metadata_json(m);
    st = wg_session_new(m, &s);
    check_message(st, "wg_session_new");
    if (st == WG_OK) {
        for (size_t i = 0; i < wg_model_num_inputs(m); i++) {
            void *p = wg_session_input(s, i);
            if (!p)
                abort(); /* session_new checked every input address */
            memset(p, 0x3f, wg_model_input(m, i)->bytes);
        }
        if (wg_session_input(s, wg_model_num_inputs(m)) != NULL)
            abort();
        st = wg_session_run(s);
        check_message(st, "wg_session_run");
        if (st == WG_OK) {
            /* Touch the outputs so ASan sees any bad address. */
            volatile uint8_t sink = 0;
            for (size_t i = 0; i < wg_model_num_outputs(m); i++) {
                const uint8_t *p = wg_session_output(s, i);
                size_t n = wg_model_output(m, i)->bytes;
                if (n)
                    sink ^= p[0] ^ p[n - 1];
            }
            (void)sink;
        }
    }
    wg_session_free(s);
    wg_model_free(m);
    return 0;
}
