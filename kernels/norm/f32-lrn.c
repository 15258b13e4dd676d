/* f32-lrn.c: local response normalisation across channels (ONNX LRN). */
#include "wgk_math.h"
#include "wgk_norm.h"

void wgk_f32_lrn(const float *x, float *y, int N, int C, int inner, int size, float alpha,
                 float beta, float bias)
{
    const int before = (size - 1) / 2, after = size / 2; /* floor and ceil of (size-1)/2 */
    const float k = alpha / (float)size;
    for (int n = 0; n < N; n++) {
        const float *xn = x + (size_t)n * C * inner;
        float *yn = y + (size_t)n * C * inner;
        for (int c = 0; c < C; c++) {
            const int c0 = c - before < 0 ? 0 : c - before;
            const int c1 = c + after >= C ? C - 1 : c + after;
            for (int i = 0; i < inner; i++) {
                float s = 0.0f;
                for (int cc = c0; cc <= c1; cc++) {
                    float v = xn[(size_t)cc * inner + i];
                    s += v * v;
                }
                float d = bias + k * s;
                /* beta = 0.75 (AlexNet, GoogLeNet): d^-0.75 = 1 / (sqrt(d) * sqrt(sqrt(d))). */
                float scale = beta == 0.75f ? 1.0f / (wgk_sqrtf(d) * wgk_sqrtf(wgk_sqrtf(d)))
                                            : 1.0f / wgk_powf(d, beta);
                yn[(size_t)c * inner + i] = xn[(size_t)c * inner + i] * scale;
            }
        }
    }
}
