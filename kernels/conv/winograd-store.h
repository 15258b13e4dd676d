/*
 * winograd-store.h: the epilogue store shared by the 2x2-tile Winograd kernels
 * (f32-conv2d-winograd-f2x3.c, f32-conv2d-winograd-f2x3s2.c), SIMD builds only.
 */
#ifndef WGK_WINOGRAD_STORE_H
#define WGK_WINOGRAD_STORE_H

#include "wgk_base.h"

#ifdef __wasm_simd128__
/* One output row of four adjacent 2x2 tiles: o0, o1 hold the row's left and right
 * outputs (lane k = tile k); interleaved back into 8 contiguous floats at yr, plus the
 * bias bv and the residual row rr (NULL: none), clamped to [lv, hv]. */
WGK_INLINE void wgk_winograd_store_row4(v128_t o0, v128_t o1, float *yr, const float *rr, v128_t bv, v128_t lv,
                                    v128_t hv)
{
    v128_t v0 = wasm_f32x4_add(wasm_i32x4_shuffle(o0, o1, 0, 4, 1, 5), bv);
    v128_t v1 = wasm_f32x4_add(wasm_i32x4_shuffle(o0, o1, 2, 6, 3, 7), bv);
    if (rr) {
        v0 = wasm_f32x4_add(v0, wasm_v128_load(rr));
        v1 = wasm_f32x4_add(v1, wasm_v128_load(rr + 4));
    }
    wasm_v128_store(yr, wasm_f32x4_pmin(wasm_f32x4_pmax(v0, lv), hv));
    wasm_v128_store(yr + 4, wasm_f32x4_pmin(wasm_f32x4_pmax(v1, lv), hv));
}
#endif

#endif
