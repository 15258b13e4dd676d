/* f32-vexp.c: wgk_f32_exp over an array (wgk_vmath.h). The scalar tail is wgk_expf. */
#include "vmath_internal.h"

void wgk_f32_exp(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    for (; i + 4 <= n; i += 4)
        wasm_v128_store(y + i, wgk__exp4_full(wasm_v128_load(x + i)));
#endif
    for (; i < n; i++)
        y[i] = wgk_expf(x[i]);
}
