/* f32-verf.c: wgk_f32_erf over an array (wgk_vmath.h; polynomials in vmath_internal.h). */
#include "vmath_internal.h"

void wgk_f32_erf(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __wasm_simd128__
    const v128_t signbit = wasm_i32x4_splat((int32_t)0x80000000u);
    for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(x + i);
        v128_t a = wasm_f32x4_abs(v);
        /* a < T, or NaN (small is NaN there too), takes small; a form no lane takes is
         * not computed (the same bits either way, as in wgk_f32_gelu). */
        const v128_t use_big = wasm_f32x4_ge(a, WGK__V(WGK_ERF_T));
        v128_t r;
        if (!wasm_v128_any_true(use_big)) {
            r = wgk__erf_small4(v);
        } else {
            v128_t big = wasm_f32x4_sub(WGK__V(1.0f), wgk__erfc_big4(a));
            big = wasm_v128_or(big, wasm_v128_and(v, signbit)); /* erf is odd; big >= 0 */
            r = wasm_i32x4_all_true(use_big) ? big : wasm_v128_bitselect(big, wgk__erf_small4(v), use_big);
        }
        wasm_v128_store(y + i, r);
    }
#endif
    for (; i < n; i++)
        y[i] = wgk_erff(x[i]); /* kernels/math/erf.c: the same polynomials */
}
