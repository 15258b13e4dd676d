/*
 * gemm_call.h: emits one call of the GEMM kernel (kernels/include/wgk_gemm.h) for Gemm and
 * MatMul. Pointer fields are C expressions (from wgc_ptr / wgc_weight, possibly with an
 * offset); NULL means "none".
 */
#ifndef WGC_OPS_GEMM_CALL_H
#define WGC_OPS_GEMM_CALL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "../../../kernels/include/wgk_gemm.h"
#include "../../../kernels/include/wgk_pack.h"
#include "../../ir/kernels.h"
#include "../op.h"

typedef struct wgc_gemm_call {
    int64_t M, N, K;
    const char *a;
    int64_t a_panel, a_k, a_m;
    const char *b;
    int64_t ldb;
    const char *c;
    int64_t ldc;
    const char *bias;
    int64_t bias_m, bias_n;
    const char *res;
    int64_t ldr;
    float alpha, beta, min, max;
    wgc_kernel kernel; /* the node's impl.kernel (src/select/select_gemm.c): GEMM_PACKED_B
                        * (b is wgk_pack_b panels of a constant B, A row-major),
                        * GEMM_PACKED_B_F16 (those panels as float16),
                        * GEMM_PACKED_B_Q8 (one byte a weight, wgk_pack_b_q8),
                        * GEMM_PACK_RUN (b row-major, packed by the kernel into scratch),
                        * GEMM_4X8 or GEMM_4X4 */
    bool bq_shared;      /* GEMM_PACKED_B_Q8: its panels share one head (wgc_q8_panels_shared) */
    const char *scratch; /* GEMM_PACK_RUN: the packed B's floats (the node's scratch) */
    int act;             /* WGK_GEMM_ACT_* (packed-B kernels only), 0: none */
} wgc_gemm_call;

/* Whether a call of GEMM kernel k is split among threads (a threaded build; k has a split
 * rule): each thread then computes its share of C (wgk_split.h) with its own broadcast
 * buffer. */
static inline bool wgc_gemm_splits(const wgc_emitter *e, wgc_kernel k)
{
    return wgc_threaded(e) && wgc_kernel_splits(k);
}

/* A call of GEMM kernel k on the wgk_gemm_args initializer `fields` (then `extra`
 * arguments, "" for none): each thread on its share where the call splits. */
static inline void wgc_emit_gemm_fields(wgc_emitter *e, wgc_kernel k, const char *fields, const char *extra)
{
    const bool split = wgc_gemm_splits(e, k);
    char f[4096];
    snprintf(f, sizeof f, "%s%s", split ? ".splat = WG_SPLAT, " : "", fields);
    wgc_emit_args_call(e, k, split, wgc_kernel_get(k)->symbol, "wgk_gemm_args", f, extra);
}

/* The wgk_gemm_args field of B's address expression b for kernel k into buf: ".b = b", or
 * for float16 panels (GEMM_PACKED_B_F16) ".b = 0, .bh = b", for one-byte panels
 * (GEMM_PACKED_B_Q8) ".b = 0, .bq = b", read as they are; with bq_shared (their panels share
 * the head before them, wgk_pack.h) ".bq = b + the head, .bq_head = b". */
static inline const char *wgc_gemm_b_field(wgc_kernel k, const char *b, bool bq_shared, char *buf, size_t len)
{
    if (k == WGC_KERNEL_GEMM_PACKED_B_Q8 && bq_shared)
        snprintf(buf, len, ".b = 0, .bq = (const int8_t *)%s + %zu, .bq_head = (const wgk_q8_panel_head *)%s", b,
                 WGK_GEMM_Q8_HEAD, b);
    else
        snprintf(buf, len,
                 k == WGC_KERNEL_GEMM_PACKED_B_F16  ? ".b = 0, .bh = (const uint16_t *)%s"
                 : k == WGC_KERNEL_GEMM_PACKED_B_Q8 ? ".b = 0, .bq = (const int8_t *)%s"
                                                    : ".b = %s",
                 b);
    return buf;
}

static inline void wgc_emit_gemm(wgc_emitter *e, const wgc_gemm_call *c)
{
    char fields[3072], act[32] = "", extra[160] = "", b[400];
    if (c->act)
        snprintf(act, sizeof act, ", .act = %d", c->act);
    if (c->scratch)
        snprintf(extra, sizeof extra, ", (float *)%s", c->scratch);
    wgc_gemm_b_field(c->kernel, c->b, c->bq_shared, b, sizeof b);
    snprintf(fields, sizeof fields,
             ".M = %lld, .N = %lld, .K = %lld, .a = %s, .a_panel = %lld, .a_k = %lld, .a_m = %lld,\n"
             "        %s, .ldb = %lld, .c = %s, .ldc = %lld, .bias = %s, .bias_m = %lld, .bias_n = %lld,\n"
             "        .res = %s, .ldr = %lld, .alpha = %s, .beta = %s, .min = %s, .max = %s%s",
             (long long)c->M, (long long)c->N, (long long)c->K, c->a, (long long)c->a_panel, (long long)c->a_k,
             (long long)c->a_m, b, (long long)c->ldb, c->c, (long long)c->ldc, c->bias ? c->bias : "0",
             (long long)c->bias_m, (long long)c->bias_n, c->res ? c->res : "0", (long long)c->ldr,
             wgc_float(e, c->alpha), wgc_float(e, c->beta), wgc_float(e, c->min), wgc_float(e, c->max), act);
    wgc_emit_gemm_fields(e, c->kernel, fields, extra);
}

#endif
