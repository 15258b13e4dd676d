/*
 * wgk_status.h: the statuses a module's exported run functions return (module ABI v1,
 * docs/abi.md "Statuses"). 0 is success; anything else stops wg_run at the step that
 * returned it, and the step's outputs are then unspecified.
 *
 * One list for every layer: kernels and generated code return the WGK_ERR_* values,
 * codegen writes their names into the generated C (generate.c, src/ops/), and both
 * hosts name them in their messages: the C host through wgk_status_name() (included
 * from src/host/session.c), the JS loader through its STATUSES table, which
 * tests/js/test_abi.mjs checks against this file. A status not listed here (a newer
 * module) is reported by number as "unknown status".
 *
 * Adding one: a new row with a new number (never reuse one), docs/abi.md's table, and
 * js/wasmgraph.mjs's STATUSES.
 */
#ifndef WGK_STATUS_H
#define WGK_STATUS_H

/* X(name, value, meaning): the meaning is the text hosts print after the number. */
#define WGK_STATUS_LIST(X)                                                                     \
    X(WGK_ERR_NO_STEP, -1, "no such step (wg_run_step or wg_profile_step called with k out "  \
                           "of range)")                                                        \
    X(WGK_ERR_INDEX, 2, "an index input holds a value out of range")                          \
    X(WGK_ERR_DIMS, 3, "a symbolic dimension is outside its range (module ABI 2)")            \
    X(WGK_ERR_TRIP_COUNT, 10, "a Loop ran past the iterations its outputs were sized for")     \
    X(WGK_ERR_BRANCH, 11, "an If took a branch that is invalid for the module's input shapes "  \
                          "(see the compile's note)")                                 \
    X(WGK_ERR_LOOP_SHAPE, 12, "a Loop or Scan body gave a carried value another shape, or a "  \
                              "scan row another size than the first iteration's")            \
    X(WGK_ERR_SIZE_BOUND, 13, "a size computed at run time (Pad, Expand, Tile, Range, Resize, "     \
                              "ConstantOfShape) is past the bound the module was compiled for: an " \
                              "integer input outside its --dim range")                            \
    X(WGK_ERR_SEQ_INDEX, 15, "a sequence position is out of range (SequenceAt)")              \
    X(WGK_ERR_OPTIONAL_EMPTY, 16, "an optional value is empty (OptionalGetElement)")                  \
    X(WGK_ERR_ATTN_LENGTHS, 17, "an attention's sequence lengths (seqlens_k, total_sequence_length, "   \
                                "position ids) do not fit its KV cache or rotary tables "            \
                                "(GroupQueryAttention)")                                              \
    X(WGK_ERR_EMPTY_INPUT, 18, "an input given empty (size 0 along a symbol other inputs give) is "   \
                               "read by the branch or body the run took")                              \
    X(WGK_ERR_DIM_MISMATCH, 19, "two symbolic dimensions an elementwise op takes as equal differ at run "  \
                                "time (a model's own symbol against a size computed from others)")        \
    X(WGK_ERR_THREAD_ABORT, 20, "another thread of the run trapped or was stopped "            \
                                "(wg_threads_abort)")                                          \
    X(WGK_ERR_THREADS, 21, "a thread number or thread count out of range for the module "     \
                           "(wg_thread_init, wg_run_begin, wg_run_thread)")          \
    X(WGK_ERR_CACHE, 22, "a resident KV cache's mode or lengths do not fit its region: a mode "   \
                         "other than 0, 1 or 2, past + new rows beyond its capacity, or a "         \
                         "resident past longer than the rows the region holds")

enum {
    WGK_OK = 0,
#define WGK_STATUS_ENUM(name, value, meaning) name = value,
    WGK_STATUS_LIST(WGK_STATUS_ENUM)
#undef WGK_STATUS_ENUM
};

/* "WGK_ERR_INDEX" etc., and its meaning; NULL for 0 and for values not in the list. */
static inline const char *wgk_status_name(int status)
{
    switch (status) {
#define WGK_STATUS_CASE(name, value, meaning) case value: return #name;
    WGK_STATUS_LIST(WGK_STATUS_CASE)
#undef WGK_STATUS_CASE
    default: return (const char *)0;
    }
}

static inline const char *wgk_status_meaning(int status)
{
    switch (status) {
#define WGK_STATUS_CASE(name, value, meaning) case value: return meaning;
    WGK_STATUS_LIST(WGK_STATUS_CASE)
#undef WGK_STATUS_CASE
    default: return (const char *)0;
    }
}

#endif
