/*
 * fuzz_module.c: libFuzzer target for the host library. Each input is loaded as a
 * compiled module with wg_model_load_bytes (our ABI checks, then wasmtime); when it
 * loads, a session is created and run once under a 50 ms time limit and a 64 MiB memory
 * cap (on 2 threads for a threaded module), with the inputs filled with a fixed pattern. Any status is fine; a crash, a
 * sanitizer report, a leak, a hang or an error without a message is a finding.
 *
 * An input that starts with '{' is taken as metadata JSON instead: it is appended as the
 * `wasmgraph` custom section to a small valid module (BASE below), so the metadata
 * parser and the session checks see far more well-formed modules than byte mutations of
 * whole files would give them. Seed such inputs with *.json files in the corpus.
 *
 * Metadata JSON with "abi":2 goes onto BASE2 instead, which also exports wg_dims_ptr
 * (module ABI 2): then the random-dims mode runs too, feeding the session sizes taken
 * from the input's last bytes (in and out of the symbols' ranges, per symbol and per
 * input shape) and running again: refusals are fine, a crash or a message-less error
 * is a finding. (That the module itself refuses out-of-range values written straight
 * into wg_dims is checked by tests/models/dims_guard.mjs on compiled modules.)
 *
 * The runtime is created once: making an engine per input would dominate the run time.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasmgraph.h"

static wg_runtime *rt;

/* wat2wasm of: memory 1 page; wg_abi_version() = 1; wg_input_ptr(i) = 1024 + 256 i;
 * wg_output_ptr(i) = 8192 + 256 i; wg_run() = 0. */
static const uint8_t BASE[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60,
    0x00, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x03, 0x05, 0x04, 0x00,
    0x01, 0x01, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x43, 0x05, 0x06,
    0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x0e, 0x77, 0x67, 0x5f,
    0x61, 0x62, 0x69, 0x5f, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x00,
    0x00, 0x0c, 0x77, 0x67, 0x5f, 0x69, 0x6e, 0x70, 0x75, 0x74, 0x5f, 0x70,
    0x74, 0x72, 0x00, 0x01, 0x0d, 0x77, 0x67, 0x5f, 0x6f, 0x75, 0x74, 0x70,
    0x75, 0x74, 0x5f, 0x70, 0x74, 0x72, 0x00, 0x02, 0x06, 0x77, 0x67, 0x5f,
    0x72, 0x75, 0x6e, 0x00, 0x03, 0x0a, 0x26, 0x04, 0x04, 0x00, 0x41, 0x01,
    0x0b, 0x0c, 0x00, 0x41, 0x80, 0x08, 0x20, 0x00, 0x41, 0x80, 0x02, 0x6c,
    0x6a, 0x0b, 0x0d, 0x00, 0x41, 0x80, 0xc0, 0x00, 0x20, 0x00, 0x41, 0x80,
    0x02, 0x6c, 0x6a, 0x0b, 0x04, 0x00, 0x41, 0x00, 0x0b
};

/* BASE with wg_abi_version() = 2 and wg_dims_ptr() = 4096 (ABI 2). */
static const uint8_t BASE2[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60,
    0x00, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x03, 0x06, 0x05, 0x00,
    0x01, 0x01, 0x00, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x51, 0x06,
    0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x0e, 0x77, 0x67,
    0x5f, 0x61, 0x62, 0x69, 0x5f, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e,
    0x00, 0x00, 0x0c, 0x77, 0x67, 0x5f, 0x69, 0x6e, 0x70, 0x75, 0x74, 0x5f,
    0x70, 0x74, 0x72, 0x00, 0x01, 0x0d, 0x77, 0x67, 0x5f, 0x6f, 0x75, 0x74,
    0x70, 0x75, 0x74, 0x5f, 0x70, 0x74, 0x72, 0x00, 0x02, 0x06, 0x77, 0x67,
    0x5f, 0x72, 0x75, 0x6e, 0x00, 0x03, 0x0b, 0x77, 0x67, 0x5f, 0x64, 0x69,
    0x6d, 0x73, 0x5f, 0x70, 0x74, 0x72, 0x00, 0x04, 0x0a, 0x2c, 0x05, 0x04,
    0x00, 0x41, 0x02, 0x0b, 0x0c, 0x00, 0x41, 0x80, 0x08, 0x20, 0x00, 0x41,
    0x80, 0x02, 0x6c, 0x6a, 0x0b, 0x0d, 0x00, 0x41, 0x80, 0xc0, 0x00, 0x20,
    0x00, 0x41, 0x80, 0x02, 0x6c, 0x6a, 0x0b, 0x04, 0x00, 0x41, 0x00, 0x0b,
    0x05, 0x00, 0x41, 0x80, 0x20, 0x0b
};

static void put_leb(uint8_t *p, size_t *at, size_t v)
{
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        p[(*at)++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
}

/* BASE (BASE2 for "abi":2) + a `wasmgraph` custom section holding json; NULL when out of
 * memory. */
static uint8_t *with_metadata(const uint8_t *json, size_t len, size_t *out_len)
{
    bool v2 = memmem(json, len, "\"abi\":2", 7) != NULL;
    const uint8_t *base = v2 ? BASE2 : BASE;
    size_t base_len = v2 ? sizeof BASE2 : sizeof BASE;
    uint8_t *p = malloc(base_len + len + 32);
    if (!p)
        return NULL;
    size_t at = base_len;
    memcpy(p, base, base_len);
    p[at++] = 0; /* custom section */
    put_leb(p, &at, 1 + 9 + len);
    p[at++] = 9;
    memcpy(p + at, "wasmgraph", 9);
    at += 9;
    memcpy(p + at, json, len);
    *out_len = at + len;
    return p;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* threads: a threaded module (compile --threads; seeds.sh has some) runs on 2, so that
     * its thread start, barrier, abort and stop paths are fuzzed too; others ignore it. */
    wg_runtime_options o = {.memory_limit_bytes = (size_t)64 << 20, .time_limit_ms = 50, .threads = 2};
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

/* The random-dims mode (ABI 2): sizes from the input's last bytes, some out of range. */
static void run_random_dims(wg_model *m, wg_session *s, const uint8_t *data, size_t size)
{
    const wg_model_info *info = wg_model_get_info(m);
    size_t at = size;
    int64_t val[WG_ABI_MAX_SYMBOLS];
    for (size_t k = 0; k < info->num_symbols; k++) {
        const wg_symbol_info *y = &info->symbols[k];
        uint8_t b = at ? data[--at] : 0;
        int64_t span = y->max - y->min + 3;
        val[k] = y->min - 1 + (int64_t)(b % (uint64_t)(span > 255 ? 255 : span));
        if (b & 0x80)
            val[k] = y->max + 1 - (b & 3); /* near the top */
        wg_status st = wg_session_set_dim(s, y->name, val[k]);
        check_message(st, "wg_session_set_dim");
    }
    for (size_t i = 0; i < wg_model_num_inputs(m); i++) {
        const wg_tensor_info *t = wg_model_input(m, i);
        int64_t dims[WG_MAX_RANK];
        uint8_t b = at ? data[--at] : 0;
        for (int d = 0; d < t->rank; d++)
            dims[d] = t->sym[d] >= 0 ? val[t->sym[d]] + ((b >> d) & 1 && (b & 0x40) ? 1 : 0) : t->dims[d];
        wg_status st = wg_session_set_input_shape(s, i, dims, t->rank);
        check_message(st, "wg_session_set_input_shape");
    }
    wg_status st = wg_session_run(s);
    check_message(st, "wg_session_run (random dims)");
    for (size_t i = 0; st == WG_OK && i < wg_model_num_outputs(m); i++) {
        int64_t dims[WG_MAX_RANK];
        int rank;
        size_t bytes;
        if (wg_session_output_shape(s, i, dims, &rank, &bytes) || bytes > wg_model_output(m, i)->bytes)
            abort(); /* an output larger than its buffer */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wg_model *m = NULL;
    wg_session *s = NULL;
    uint8_t *built = NULL;
    if (size && data[0] == '{') {
        if (!(built = with_metadata(data, size, &size)))
            return 0;
        data = built;
    }
    /* Inspection alone (wasmgraph info) on the same bytes: accepts whatever loads. */
    wg_model_info *info = NULL;
    char ierr[512];
    wg_status ist = wg_model_inspect_bytes(data, size, "fuzz.wasm", &info, ierr, sizeof ierr);
    if (ist == WG_OK && !info->metadata_json)
        __builtin_trap();
    wg_model_info_free(info);
    wg_status st = wg_model_load_bytes(rt, data, size, "fuzz.wasm", &m);
    check_message(st, "wg_model_load_bytes");
    if (st == WG_OK && ist != WG_OK)
        __builtin_trap(); /* loaded, yet inspection refused it */
    if (st != WG_OK)
        goto done;
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
        if (wg_model_get_info(m)->num_symbols)
            run_random_dims(m, s, data, size);
    }
done:
    wg_session_free(s);
    wg_model_free(m);
    free(built);
    return 0;
}
