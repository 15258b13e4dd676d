/* f32-softmax.c: numerically stable softmax (subtract the max) along one axis. */
#include "wgk_math.h"
#include "wgk_norm.h"

void wgk_f32_softmax(const float *x, float *y, int outer, int n, int inner)
{
    for (int o = 0; o < outer; o++)
        for (int j = 0; j < inner; j++) {
            const float *xp = x + (size_t)o * n * inner + j;
            float *yp = y + (size_t)o * n * inner + j;
            float m = -__builtin_inff();
            for (int i = 0; i < n; i++)
                m = xp[(size_t)i * inner] > m ? xp[(size_t)i * inner] : m;
            /* All -inf: exp(-inf - -inf) would be NaN; every output is then NaN like
             * the reference runtimes, so no special case. */
            float s = 0.0f;
            for (int i = 0; i < n; i++) {
                float e = wgk_expf(xp[(size_t)i * inner] - m);
                yp[(size_t)i * inner] = e;
                s += e;
            }
            const float r = 1.0f / s;
            for (int i = 0; i < n; i++)
                yp[(size_t)i * inner] *= r;
        }
}
