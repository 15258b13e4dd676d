/* q8-conv-im2col.c: wgk_q8_conv (wgk_qgemm.h): im2col blocks of output pixels times the
 * packed weights on wgk_q8_gemm, the product transposed into NCHW (int32, or the float
 * tail of wgk_qdeq.h). */
#include "../conv/q8-requant.h"
#include "wgk_base.h"
#include "wgk_qgemm.h"

void wgk_q8_conv(const wgk_q8_conv_args *a)
{
    const size_t K = (size_t)a->C * a->k[0] * a->k[1] * a->k[2], kp = wgk_qgemm_kp(K);
    const size_t P = WGK_QCONV_PIXELS;
    const size_t osz = (size_t)a->out[0] * a->out[1] * a->out[2];
    const size_t isz = (size_t)a->in[0] * a->in[1] * a->in[2];
    int16_t *work = a->scratch;
    int32_t *prod = (int32_t *)(work + wgk_qgemm_work_size(P, K));
    const int32_t z = a->xz ? wgk_qgemm_load8(a->xz, a->xdt, 0) : 0;
    const int k2n = a->k[2], s2 = a->s[2], d2 = a->d[2], p2 = a->p[2], in2 = a->in[2];
    for (int n = 0; n < a->N; n++) {
        const uint8_t *x = (const uint8_t *)a->x + (size_t)n * a->C * isz;
        for (size_t p0 = 0; p0 < osz; p0 += P) {
            const size_t np = osz - p0 < P ? osz - p0 : P;
            for (size_t q = 0; q < np; q++) {
                const size_t pix = p0 + q;
                const int o2 = (int)(pix % (size_t)a->out[2]);
                const int o1 = (int)(pix / (size_t)a->out[2] % (size_t)a->out[1]);
                const int o0 = (int)(pix / ((size_t)a->out[2] * a->out[1]));
                const int b2 = o2 * s2 - p2; /* first tap's column */
                const int inside2 = b2 >= 0 && b2 + (k2n - 1) * d2 < in2;
                int16_t *row = work + q * kp;
                size_t k = 0;
                for (int c = 0; c < a->C; c++)
                    for (int k0 = 0; k0 < a->k[0]; k0++) {
                        const int i0 = o0 * a->s[0] - a->p[0] + k0 * a->d[0];
                        for (int k1 = 0; k1 < a->k[1]; k1++, k += (size_t)k2n) {
                            const int i1 = o1 * a->s[1] - a->p[1] + k1 * a->d[1];
                            if (i0 < 0 || i0 >= a->in[0] || i1 < 0 || i1 >= a->in[1]) {
                                for (int k2 = 0; k2 < k2n; k2++)
                                    row[k + k2] = 0; /* the zero point, widened */
                                continue;
                            }
                            const uint8_t *xr = x + (size_t)c * isz + ((size_t)i0 * a->in[1] + i1) * in2;
                            if (inside2) { /* interior: no column checks */
                                const uint8_t *xs = xr + b2;
                                if (a->xdt == 2)
                                    for (int k2 = 0; k2 < k2n; k2++)
                                        row[k + k2] = (int16_t)(xs[k2 * d2] - z);
                                else
                                    for (int k2 = 0; k2 < k2n; k2++)
                                        row[k + k2] = (int16_t)((int8_t)xs[k2 * d2] - z);
                                continue;
                            }
                            for (int k2 = 0; k2 < k2n; k2++) {
                                const int i2 = b2 + k2 * d2;
                                row[k + k2] = i2 >= 0 && i2 < in2
                                                  ? (int16_t)(wgk_qgemm_load8(xr, a->xdt, (size_t)i2) - z)
                                                  : 0;
                            }
                        }
                    }
                for (; k < kp; k++)
                    row[k] = 0;
            }
            wgk_q8_gemm_widened(&(wgk_q8_gemm_args){(int)np, a->M, (int)K, NULL, a->xdt, (int)K, NULL, 0,
                                                    a->w, prod, a->M, work});
            for (int m = 0; m < a->M; m++) {
                const uint32_t b = a->bias ? (uint32_t)a->bias[m] : 0u;
                if (!a->deq.y) {
                    int32_t *ym = a->y + (size_t)(n * a->M + m) * osz + p0;
                    for (size_t q = 0; q < np; q++)
                        ym[q] = (int32_t)((uint32_t)prod[q * a->M + m] + b);
                    continue;
                }
                /* the float tail, 8 sums at a time through a row buffer */
                wgk_q8_sink k = wgk_q8_sink_of(NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, &a->deq, m,
                                               (size_t)(n * a->M + m) * osz + p0);
                size_t q = 0;
#ifdef __wasm_simd128__
                for (; q + 8 <= np; q += 8) {
                    int32_t t[8];
                    for (int j = 0; j < 8; j++)
                        t[j] = (int32_t)((uint32_t)prod[(q + (size_t)j) * a->M + m] + b);
                    wgk_q8_sink_store8(&k, q, wasm_v128_load(t), wasm_v128_load(t + 4));
                }
#endif
                for (; q < np; q++)
                    wgk_q8_sink_put(&k, q, (int32_t)((uint32_t)prod[q * a->M + m] + b));
                wgk_q8_sink_done(&k);
            }
        }
    }
}
