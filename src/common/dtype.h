/* dtype.h: element types (ONNX numbering, see wg_dtype in wasmgraph.h), sizes, names, fp16. */
#ifndef WG_DTYPE_H
#define WG_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmgraph.h"

/* Bytes per element; 0 for UNDEFINED, STRING and unknown numbers. */
size_t wg_dtype_size(int dt);
/* "float32", "int64", ...; "unknown" for numbers ONNX does not define. */
const char *wg_dtype_name(int dt);
/* The reverse of wg_dtype_name, also accepting "float"; WG_DT_UNDEFINED when unknown. */
int wg_dtype_from_name(const char *name);
bool wg_dtype_is_float(int dt);
/* bfloat16, the float8 types, float4e2m1, int4/uint4, int2/uint2: converted, not computed. */
bool wg_dtype_is_storage(int dt);
/* Bits per element in tensor files and initializers for the packed types (4 or 2), 0 for
 * the others; in memory they take one byte each. */
int wg_dtype_packed_bits(int dt);

float wg_f16_to_f32(uint16_t h);
uint16_t wg_f32_to_f16(float f); /* round to nearest even */
/* Whether every f[i], i < n, is a float16 value (stored as float16, it widens back to the
 * same bits) within +-max_abs. */
bool wg_f32_all_f16_within(const float *f, size_t n, float max_abs);

#endif
