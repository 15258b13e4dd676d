/*
 * erf.c: wgk_erff, the scalar form of wgk_f32_erf (kernels/math/f32-verf.c): x P(x^2) for
 * |x| < 0.875, 1 - e^Q(|x|) above (vmath_internal.h), within 2.3 ulp over the floats
 * kernels/tests/test_vmath.c visits. Generated elementwise code (WGK_ERF in wgk_gen.h)
 * calls it for float32; double stays on wgk_erf (f64.c).
 */
#include "vmath_internal.h"

float wgk_erff(float x)
{
    float a = __builtin_fabsf(x);
    if (!(a >= WGK_ERF_T)) /* also NaN */
        return wgk__erf_small(x);
    float r = 1.0f - wgk__erfc_big(a);
    return x < 0 ? -r : r;
}
