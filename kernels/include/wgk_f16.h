/*
 * wgk_f16.h: float16 weights widened to float32 when a module first runs the step that
 * reads them. The compiler stores a float32 weight whose every value is a float16 value
 * (a float16 model's weights, after src/passes/lower_fp16.c) as float16 in the weights
 * segment, and the module widens it into the prepared-weights region (docs/abi.md), so
 * the file holds half the bytes and the kernels still read float32. Exact: every float16
 * value, subnormals, infinities and NaN payloads included, is a float32 value.
 *
 *     wgk_f16_widen(W(0), P(0), n);   // once, on the first run
 */
#ifndef WGK_F16_H
#define WGK_F16_H

#include <stddef.h>
#include <stdint.h>

/* dst[i] = src[i] as float32, i < n. src 2-byte and dst 4-byte aligned. */
void wgk_f16_widen(const uint16_t *src, float *dst, size_t n);

#endif
